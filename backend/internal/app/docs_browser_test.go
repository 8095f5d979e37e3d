//go:build browser

package app

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/apispec"
)

// The development API viewer in a real browser (make test-browser, beside the console's): /docs of a
// development server shows every operation of docs/openapi.yaml, opens one with its schemas and examples,
// and runs under its self-only CSP without a script error or a CSP violation (a blocked inline style or
// eval would be one). Swagger UI reports a document it cannot read in .errors-wrapper. The screenshot is
// build/screenshots/docs.png.
func TestDocsViewerInABrowser(t *testing.T) {
	w := newConsoleWorld(t)
	p := newPage(t, startBrowser(t))
	p.do(chromedp.Navigate(w.srv.URL+"/docs"), chromedp.WaitVisible(chromedp.CSS(".opblock")),
		chromedp.Click(chromedp.CSS("#operations-credits-spendCredits .opblock-summary-control")),
		chromedp.WaitVisible(chromedp.CSS("#operations-credits-spendCredits .responses-wrapper")))

	doc, err := apispec.Doc()
	require.NoError(t, err)
	want := 0
	for _, item := range doc.Paths.Map() {
		want += len(item.Operations())
	}
	require.Equal(t, strconv.Itoa(want), p.eval(`String(document.querySelectorAll(".opblock").length)`),
		"every operation of docs/openapi.yaml is shown")
	require.Equal(t, "0", p.eval(`String(document.querySelectorAll(".errors-wrapper").length)`), "Swagger UI read the document")
	p.shot("docs")
	p.clean()
}
