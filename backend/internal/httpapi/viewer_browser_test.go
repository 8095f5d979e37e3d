package httpapi

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/apispec"
)

// The development viewer in a real browser: headless Chromium renders /docs from a real server, every
// operation of the document appears, and the page runs under its CSP without a single violation or script
// error (a blocked style or eval shows up as one). The screenshot is kept with `go test -artifacts`.
func TestDocsViewerRendersInChromium(t *testing.T) {
	t.Parallel()
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium on PATH (apt-get install chromium)")
	}
	srv := httptest.NewServer(fullRouter("development"))
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser),
		// Root (CI containers) cannot use Chromium's sandbox; the page is our own, on loopback.
		chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()

	// Every console message: a CSP violation is a "security" error of the browser log, a blocked eval or a
	// broken script an exception.
	lctx, stopListening := context.WithCancel(ctx)
	messages := chromedp.Console(lctx)
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				problems = append(problems, m.Source+" "+m.String()+" "+m.URL)
			}
		}
	}()

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/docs"),
		chromedp.WaitVisible(chromedp.CSS(".opblock")),
		// Open one operation, so its parameters, schemas and examples render too.
		chromedp.Click(chromedp.CSS("#operations-credits-spendCredits .opblock-summary-control")),
		chromedp.WaitVisible(chromedp.CSS("#operations-credits-spendCredits .responses-wrapper")),
	))
	operations, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".opblock").length`))
	require.NoError(t, err)
	for name, shot := range map[string]chromedp.Action[[]byte]{
		"docs.jpg":  chromedp.FullScreenshot(80),
		"spend.png": chromedp.Screenshot(chromedp.CSS("#operations-credits-spendCredits")),
	} {
		b, err := chromedp.Run(ctx, shot)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), name), b, 0o600))
	}
	stopListening()
	<-done

	doc, err := apispec.Doc()
	require.NoError(t, err)
	want := 0
	for _, item := range doc.Paths.Map() {
		want += len(item.Operations())
	}
	require.Equal(t, want, operations, "every operation of docs/openapi.yaml is shown")
	require.Empty(t, problems, "the viewer runs cleanly under its CSP")
}
