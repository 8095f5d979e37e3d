//go:build browser

package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The operator console in a real browser: Debian's Chromium, headless, driven by chromedp, against a real
// server on 127.0.0.1 and a real Postgres. `make test-browser` runs it (the build tag keeps `make test`
// fast); screenshots of every page go to build/screenshots/ (gitignored).

// browserBudget bounds the whole scenario: the browser is killed when it runs out.
const browserBudget = 3 * time.Minute

// stepTimeout bounds each wait for the page.
const stepTimeout = 20 * time.Second

// The tiers files of the two deploys: the first does not know the price of a new plan yet.
const (
	tiersBefore = "tiers:\n  - name: free\n    signup_credits: 25\n  - name: pro\n    paddle_price_ids: [pri_pro_monthly]\n    monthly_credits: 1000\n"
	tiersAfter  = "tiers:\n  - name: free\n    signup_credits: 25\n  - name: pro\n    paddle_price_ids: [pri_pro_2027, pri_pro_monthly]\n    monthly_credits: 1000\n"
)

// consoleWorld is a development server (dev tokens accepted, admin@fabrica.test an operator) whose App can
// be swapped for a new deploy on the same database, as an operator's fix would.
type consoleWorld struct {
	db     *pgtest.DB
	live   atomic.Pointer[App]
	srv    *httptest.Server
	env    map[string]string
	devKey string
}

func newConsoleWorld(t *testing.T) *consoleWorld {
	t.Helper()
	dir := t.TempDir()
	w := &consoleWorld{db: pgtest.New(t), devKey: filepath.Join(dir, "dev-session-key.pem")}
	w.env = map[string]string{"APP_ENV": config.EnvDevelopment, "DEV_SESSION_KEY_FILE": w.devKey,
		"TIERS_FILE": writeFile(t, dir, "tiers-before.yaml", tiersBefore), "EMAIL_RATE_PER_SECOND": "0", "SHUTDOWN_TIMEOUT": "5s"}
	w.live.Store(appOn(t, w.db, w.env, Options{}))
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.live.Load().Echo().ServeHTTP(rw, r)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

// redeploy starts the App again with env changed, on the same database and listener.
func (w *consoleWorld) redeploy(t *testing.T, change map[string]string) {
	t.Helper()
	for k, v := range change {
		w.env[k] = v
	}
	w.live.Store(appOn(t, w.db, w.env, Options{}))
}

// devToken is what `bin/fabrica dev token [--admin]` prints.
func (w *consoleWorld) devToken(t *testing.T, admin bool) string {
	t.Helper()
	key, err := devauth.LoadOrCreateKey(w.devKey)
	require.NoError(t, err)
	c := devauth.Claims{UserID: devauth.DefaultUserID, Email: "dev@fabrica.test", TTL: time.Hour}
	if admin {
		c = devauth.Claims{UserID: devauth.DefaultAdminUserID, Email: config.DevAdminEmail, TTL: time.Hour}
	}
	tok, err := devauth.Token(key, c, time.Now())
	require.NoError(t, err)
	return tok
}

// deliver posts a signed sample event to the live server and returns the status.
func (w *consoleWorld) deliver(t *testing.T, b *trigger.Builder, s trigger.Spec) int {
	t.Helper()
	d, err := b.Build(s)
	require.NoError(t, err)
	return deliver(w.live.Load().Echo(), s.Provider, d.Header, d.Body).Code
}

// page is one browser tab with helpers that wait, read and take screenshots, each bounded.
type page struct {
	t     *testing.T
	ctx   context.Context
	shots string
	mu    sync.Mutex
	// problems are the script errors and CSP violations the tab reported.
	problems []string
}

func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	require.NoError(t, err, "Debian's chromium is needed: apt-get install chromium chromium-driver (scripts/ensure-chromium.sh)")
	ctx, cancel := context.WithTimeout(t.Context(), browserBudget)
	t.Cleanup(cancel)
	// The flags keep the browser on this machine: no background traffic, and every name but the loopback
	// addresses fails to resolve.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.Flag("disable-quic", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"),
		chromedp.WindowSize(1000, 800))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	require.NoError(t, chromedp.Do(bctx)) // starts the browser, bounded by browserBudget
	return bctx
}

func newPage(t *testing.T, browser context.Context) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser) // a new tab: its own sessionStorage
	t.Cleanup(cancel)
	shots, err := filepath.Abs(filepath.Join("..", "..", "..", "build", "screenshots"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(shots, 0o755))
	p := &page{t: t, ctx: ctx, shots: shots}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if strings.Contains(ev.Entry.Text, "Content Security Policy") {
				msg = "csp: " + ev.Entry.Text
			}
		}
		if msg != "" {
			p.mu.Lock()
			p.problems = append(p.problems, msg)
			p.mu.Unlock()
		}
	}))
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1000, 800)))
	return p
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	require.NoError(p.t, chromedp.Do(ctx, steps...))
}

// wait polls a JavaScript predicate until it holds.
func (p *page) wait(what, predicate string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingTimeout(stepTimeout)))
		// A reload (signing in reloads the page) destroys the context the poll ran in: poll the new one.
		if err != nil && ctx.Err() == nil && reloaded(err) {
			continue
		}
		if err != nil {
			text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
			p.t.Fatalf("waiting for %s: %v\npage:\n%s", what, err, text)
		}
		return
	}
}

// reloaded reports an error of a poll whose page went away under it (a reload): the wait goes on.
func reloaded(err error) bool {
	for _, m := range []string{"Cannot find context", "Inspected target navigated or closed", "Execution context was destroyed"} {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// ready waits for a page of the console to have rendered with this heading.
func (p *page) ready(heading string) {
	p.t.Helper()
	p.wait("page "+heading, `!document.getElementById("main").hasAttribute("aria-busy") &&
		(document.querySelector("main h1")?.textContent || "").startsWith(`+jsString(heading)+`)`)
}

func (p *page) eval(js string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	require.NoError(p.t, err, js)
	return v
}

// shot saves the whole page as build/screenshots/NAME.png (viewport: only what is on screen, for a modal).
func (p *page) shot(name string, viewport ...bool) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	capture := chromedp.FullScreenshot(100)
	if len(viewport) > 0 && viewport[0] {
		capture = chromedp.CaptureScreenshot()
	}
	png, err := chromedp.Run(ctx, capture)
	require.NoError(p.t, err)
	require.NoError(p.t, os.WriteFile(filepath.Join(p.shots, name+".png"), png, 0o644))
}

func (p *page) clean() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Empty(p.t, p.problems, "script errors or CSP violations in the console")
}

func jsString(s string) string {
	return "`" + strings.NewReplacer("`", "\\`", "$", "\\$", "\\", "\\\\").Replace(s) + "`"
}

// An operator who has never seen the code finds why a delivery failed, fixes the cause, replays it from the
// browser and sees it processed; filters by status; opens the user and sees the credits it brought; a
// non-admin sees only the refusal.
func TestConsoleInABrowser(t *testing.T) {
	start := time.Now()
	w := newConsoleWorld(t)
	before := triggerBuilder(t, w.live.Load())
	// A builder that already uses the new plan's price, as Paddle does the moment the plan goes live.
	newTiers, err := billing.LoadTiers(writeFile(t, t.TempDir(), "tiers.yaml", tiersAfter))
	require.NoError(t, err)
	after := &trigger.Builder{Tiers: newTiers, Secrets: before.Secrets}
	for _, u := range []string{"user_ann", "user_bob"} {
		require.Equal(t, http.StatusOK, w.deliver(t, before, trigger.Spec{Provider: "clerk", Event: "user.created", User: u}))
	}
	require.Equal(t, http.StatusOK, w.deliver(t, before, trigger.Spec{Provider: "paddle", Event: "subscription.created", User: "user_bob"}))
	require.Equal(t, http.StatusInternalServerError, w.deliver(t, after, trigger.Spec{Provider: "paddle",
		Event: "subscription.created", User: "user_ann", EventID: "evt_console_new_plan"}), "the price is not in this deploy's tiers file")

	browser := startBrowser(t)
	t.Logf("browser up after %s", time.Since(start).Round(time.Millisecond))
	op := newPage(t, browser)

	// Sign in: development offers the paste-a-token box.
	op.do(chromedp.Navigate(w.srv.URL + "/console/"))
	op.ready("Sign in")
	op.shot("sign-in")
	op.do(chromedp.SetValue(chromedp.ID("dev-token"), w.devToken(t, true)),
		chromedp.Click(chromedp.CSS("#dev-sign-in button[type=submit]")))

	// The failed delivery is in the list, with the counts of the last day on top.
	op.ready("Deliveries") // after the reload that signing in does
	require.Equal(t, "", op.eval(`localStorage.length ? "localStorage used" : ""`), "the token is in sessionStorage only")
	op.wait("the failed delivery", `document.querySelector("main tbody")?.textContent.includes("evt_console_new_plan")`)
	require.Contains(t, op.eval(`document.querySelector("ul.counts").textContent`), "failed")
	require.Equal(t, config.DevAdminEmail, op.eval(`document.getElementById("who-email").textContent`))
	op.shot("deliveries")

	// Filter by status: only the failure is left.
	op.do(chromedp.SetValue(chromedp.ID("f-status"), "failed"), chromedp.Click(chromedp.CSS("form.filters button[type=submit]")))
	op.wait("the failed filter", `location.hash.includes("status=failed") && !document.getElementById("main").hasAttribute("aria-busy") &&
		[...document.querySelectorAll("main tbody .badge")].map(b => b.textContent).join() === "failed"`)
	op.shot("deliveries-failed")

	// Open it: the error says what is wrong.
	op.do(chromedp.Click(chromedp.CSS(`main tbody a[href^="#/deliveries/"]`)))
	op.ready("subscription.created")
	require.Contains(t, op.eval(`document.getElementById("error-message").textContent`), "unknown paddle price id")
	require.Contains(t, op.eval(`document.getElementById("claim").textContent`), "not taken effect")
	require.Contains(t, op.eval(`document.querySelector("pre.payload").textContent`), `"event_id": "evt_console_new_plan"`)
	op.shot("delivery")

	// The operator adds the price to the tiers file and redeploys, then replays, confirming first.
	w.redeploy(t, map[string]string{"TIERS_FILE": writeFile(t, t.TempDir(), "tiers-after.yaml", tiersAfter)})
	op.do(chromedp.Click(chromedp.ID("replay")))
	op.wait("the confirmation", `document.getElementById("replay-dialog").open`)
	op.shot("replay-confirm", true)
	op.do(chromedp.Click(chromedp.ID("replay-confirm")))
	op.wait("the replay's answer", `(document.getElementById("replay-result")?.textContent || "").includes("Replayed: processed")`)
	require.Contains(t, op.eval(`document.getElementById("claim").textContent`), "was processed")
	require.Contains(t, op.eval(`[...document.querySelectorAll("main tbody .badge")].map(b => b.textContent).join()`), "processed")
	op.shot("replayed")

	// A second replay of the processed one is refused, and says so.
	op.do(chromedp.Click(chromedp.CSS(`main tbody a[href^="#/deliveries/"]`)))
	op.wait("the processed attempt", `document.querySelector("main h1 .badge")?.textContent === "processed"`)
	op.do(chromedp.Click(chromedp.ID("replay")))
	op.wait("the confirmation", `document.getElementById("replay-dialog").open`)
	op.do(chromedp.Click(chromedp.ID("replay-confirm")))
	op.wait("the refusal", `(document.getElementById("replay-result")?.textContent || "").includes("409 not_replayable")`)

	// The user: found by email, any case; the subscription's credits are there.
	op.do(chromedp.Click(chromedp.CSS(`#nav a[data-page="users"]`)))
	op.ready("Users")
	op.do(chromedp.SetValue(chromedp.ID("user-q"), "ANN@fabrica.test"), chromedp.Click(chromedp.CSS(`form[role=search] button[type=submit]`)))
	op.wait("the user in the list", `location.hash.includes("q=") && document.querySelectorAll('main tbody a[href^="#/users/"]').length === 1`)
	op.shot("users")
	op.do(chromedp.Click(chromedp.CSS(`main tbody a[href^="#/users/"]`)))
	op.ready("ann@fabrica.test")
	require.Equal(t, "1025", op.eval(`document.getElementById("balance").textContent.replace(/\D/g, "")`), "25 at signup + 1000 for pro")
	require.Equal(t, "pro", op.eval(`document.getElementById("tier").textContent`))
	require.Contains(t, op.eval(`document.getElementById("deliveries").textContent`), "evt_console_new_plan")
	require.Contains(t, op.eval(`document.getElementById("usage").textContent`), "Usage this month")
	op.shot("user")

	// The buckets behind the balance, in burn order: at equal priority and no expiry, promotional first.
	require.Equal(t, "2", op.eval(`String(document.querySelectorAll("#buckets tbody tr").length)`))
	require.Contains(t, op.eval(`document.querySelector("#buckets tbody tr").textContent`), "promotional")
	require.Contains(t, op.eval(`document.querySelector("#buckets tbody tr").textContent`), "25 / 25")
	require.Equal(t, "2", op.eval(`String(document.querySelectorAll("#bucket-history tbody tr").length)`))

	// A grant through the form, double-clicked: applied once, the balance and the buckets follow. The
	// 30-day bucket expires soonest, so it burns first.
	op.do(chromedp.SetValue(chromedp.ID("a-amount"), "50"), chromedp.SetValue(chromedp.ID("a-reason"), "goodwill: the outage"),
		chromedp.SetValue(chromedp.ID("a-days"), "30"))
	op.eval(`(() => { const b = document.getElementById("a-submit"); b.click(); b.click(); return "" })()`)
	op.wait("the grant's result", `(document.getElementById("adjust-result")?.textContent || "").includes("Granted 50 credits") &&
		document.getElementById("balance").textContent.replace(/\D/g, "") === "1075"`)
	op.wait("the new bucket first", `document.querySelectorAll("#buckets tbody tr").length === 3 &&
		document.querySelector("#buckets tbody tr").textContent.includes("operator")`)
	require.Equal(t, "3", op.eval(`String(document.querySelectorAll("#bucket-history tbody tr").length)`))
	require.Contains(t, op.eval(`document.querySelector("#ledger tbody tr").textContent`), "goodwill: the outage")
	var grants int64
	require.NoError(t, w.db.Gorm.Raw(`SELECT count(*) FROM credit_transactions WHERE starts_with(job_id, 'operator:')`).Scan(&grants).Error)
	require.Equal(t, int64(1), grants, "the double click granted once")
	op.wait("the grant in the user's audit trail", `document.getElementById("audit").textContent.includes("credits.granted")`)
	op.shot("user-credits")

	// Taking back more than the balance is refused, and says so.
	op.do(chromedp.SetValue(chromedp.ID("a-amount"), "-5000"), chromedp.SetValue(chromedp.ID("a-reason"), "too much"),
		chromedp.Click(chromedp.ID("a-submit")))
	op.wait("the refusal", `(document.getElementById("adjust-result")?.textContent || "").includes("insufficient_credits")`)
	require.Equal(t, "1075", op.eval(`document.getElementById("balance").textContent.replace(/\D/g, "")`))

	op.do(chromedp.Click(chromedp.CSS(`#nav a[data-page="overview"]`)))
	op.ready("Overview")
	op.wait("the charts", `document.querySelectorAll("figure.chart svg rect").length > 0`)
	op.wait("the features nearest their limits", `document.getElementById("nearest-limits") !== null`)
	require.Contains(t, op.eval(`[...document.querySelectorAll("figure.chart figcaption")].map(c => c.textContent).join("|")`),
		"Credits expired and rolled over per day")
	op.shot("overview")

	op.do(chromedp.Evaluate[chromedp.Void](`location.hash = "#/audit?action=admin.webhook_replayed"`))
	op.ready("Audit")
	op.wait("the replays in the trail", `document.querySelectorAll("main tbody tr").length === 1`)
	op.shot("audit")

	// A broadcast: composed from the template, previewed, saved, sent (confirmed first), its progress shown
	// until it finishes. The job workers run for this part, as `fabrica serve` runs them.
	op.do(chromedp.Click(chromedp.CSS(`#nav a[data-page="broadcasts"]`)))
	op.ready("Broadcasts")
	op.do(chromedp.SetValue(chromedp.ID("b-subject"), "Scheduled maintenance"),
		chromedp.SetValue(chromedp.ID("b-body"), "We will be **down for ten minutes** on Sunday at 06:00 UTC.\n\n- exports pause\n- webhooks queue up"),
		chromedp.Click(chromedp.CSS(`input[name=kind][value=transactional]`)), chromedp.Click(chromedp.ID("b-preview")))
	require.Equal(t, "true", op.eval(`String(document.getElementById("b-bypass").disabled)`), "a free-form announcement cannot bypass consent")
	op.wait("the preview", `(document.getElementById("preview-text")?.textContent || "").includes("down for ten minutes")`)
	op.shot("broadcast-compose")
	op.do(chromedp.Click(chromedp.ID("b-save")))
	op.ready("Scheduled maintenance")
	workers, stop := context.WithCancel(t.Context())
	worked := make(chan error, 1)
	go func() { worked <- w.live.Load().RunWorkers(workers) }()
	op.do(chromedp.Click(chromedp.ID("send")))
	op.wait("the confirmation", `document.getElementById("send-dialog").open`)
	op.do(chromedp.Click(chromedp.ID("send-confirm")))
	op.wait("the broadcast to finish", `document.querySelector("#run-status .badge")?.textContent === "finished"`)
	require.Contains(t, op.eval(`document.getElementById("run-counts").textContent`), "0 of 0 recipients settled: 0 sent",
		"an announcement goes to those who gave marketing consent, and none of ann, bob and the operator did")
	op.shot("broadcast")
	stop()
	require.NoError(t, <-worked)

	// On a phone.
	op.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Evaluate[chromedp.Void](`location.hash = "#/deliveries"`))
	op.ready("Deliveries")
	op.shot("deliveries-phone")
	op.clean()

	// A signed-in user who is not an operator sees the refusal and nothing else; the refusal is audited.
	dev := newPage(t, browser)
	dev.do(chromedp.Navigate(w.srv.URL+"/console/"), chromedp.WaitVisible(chromedp.ID("dev-token")),
		chromedp.SetValue(chromedp.ID("dev-token"), w.devToken(t, false)), chromedp.Click(chromedp.CSS("#dev-sign-in button[type=submit]")))
	dev.ready("Not an operator")
	require.Equal(t, "0 none", dev.eval(`document.querySelectorAll("main table").length + " " + getComputedStyle(document.getElementById("nav")).display`),
		"no data and no navigation")
	dev.shot("refusal")
	dev.clean()
	var refused int64
	require.NoError(t, w.db.Gorm.Raw(`SELECT count(*) FROM audit_logs a JOIN users u ON u.id = a.user_id
		WHERE a.action = 'admin.unauthorized' AND u.clerk_user_id = ?`, devauth.DefaultUserID).Scan(&refused).Error)
	require.Equal(t, int64(1), refused)

	// The CSP is enforced: an inline script does not run.
	probe := newPage(t, browser)
	probe.do(chromedp.Navigate(w.srv.URL + "/console/"))
	probe.ready("Sign in")
	require.Equal(t, "blocked", probe.eval(`(() => { const s = document.createElement("script"); s.textContent = "window.inlineRan = 1";
		document.head.append(s); return window.inlineRan ? "ran" : "blocked" })()`))

	var claims int64
	require.NoError(t, w.db.Gorm.Raw(`SELECT count(*) FROM processed_webhook_events WHERE event_id = 'evt_console_new_plan'`).Scan(&claims).Error)
	require.Equal(t, int64(1), claims)
	require.Equal(t, webhook.StatusProcessed, lastStatus(t, w.db, "evt_console_new_plan"))
	t.Logf("scenario done in %s; screenshots in %s", time.Since(start).Round(time.Millisecond), op.shots)
}

func lastStatus(t *testing.T, d *pgtest.DB, eventID string) string {
	t.Helper()
	var s string
	require.NoError(t, d.Gorm.Raw(`SELECT processing_status FROM webhook_events WHERE event_id = ? AND source = 'replay'
		ORDER BY created_at DESC LIMIT 1`, eventID).Scan(&s).Error)
	return s
}
