package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rootPath is the Go module; modulePath its backend, where short names start ("internal/app").
const (
	rootPath   = "github.com/fabrica-saas/fabrica/"
	modulePath = rootPath + "backend/"
)

// goPackage is what `go list -json` says about one package of the module.
type goPackage struct {
	ImportPath string
	Imports    []string // direct imports (tests' imports are not included)
	Deps       []string // everything it depends on, transitively
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", rootPath+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// short names a package of the module from the backend ("internal/app"), or from the root outside it
// ("docs", "migrations").
func short(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, modulePath), rootPath)
}

// allowedImports is the deny-by-default half of docs/architecture.md's import rules: every package of the
// module and the module's packages it may import directly (test files aside). A package without an
// entry fails TestImportRules, so a new package cannot escape the rules by being new. The packages of the
// app's own under appAreas share appAreaImports instead of an entry each.
var allowedImports = map[string][]string{
	"cmd/chaos":                    {"internal/config", "internal/jobs", "internal/webhook"},
	"cmd/fabrica":                  {"internal/app", "internal/billing", "internal/catchup", "internal/config", "internal/devauth", "internal/seed", "internal/simulate", "internal/trigger", "internal/verify"},
	"cmd/ledgerverify":             {"internal/credits", "internal/db", "internal/verify"},
	"cmd/loadgen":                  {"internal/config", "internal/webhook"},
	"internal/account":             {"internal/audit", "internal/clock", "internal/credits", "internal/db", "internal/email", "internal/models", "internal/userdata", "internal/verify", "internal/webhook"},
	"internal/admin":               {"internal/account", "internal/audit", "internal/billing", "internal/broadcast", "internal/credits", "internal/db", "internal/feedback", "internal/models", "internal/webhook"},
	"internal/apispec":             {"docs"},
	"internal/app":                 {"examples/", "modules/", "internal/"},
	"internal/audit":               {"internal/db", "internal/models", "internal/userdata"},
	"internal/billing":             {"internal/account", "internal/audit", "internal/clock", "internal/credits", "internal/db", "internal/email", "internal/models", "internal/userdata", "internal/verify", "internal/webhook"},
	"internal/billing/paddleapi":   {},
	"internal/broadcast":           {"internal/account", "internal/audit", "internal/billing", "internal/db", "internal/email", "internal/models", "internal/userdata"},
	"internal/catchup":             {"internal/billing/paddleapi", "internal/verify", "internal/webhook"},
	"internal/clock":               {},
	"internal/config":              {},
	"internal/console":             {},
	"internal/credits":             {"internal/audit", "internal/clock", "internal/db", "internal/userdata", "internal/verify"},
	"internal/db":                  {"migrations"},
	"internal/devauth":             {},
	"internal/disposable":          {"internal/db"},
	"internal/email":               {},
	"internal/feedback":            {"internal/audit", "internal/db", "internal/models", "internal/userdata"},
	"internal/httpapi":             {"internal/account", "internal/admin", "internal/audit", "internal/billing", "internal/billing/paddleapi", "internal/broadcast", "internal/clock", "internal/console", "internal/credits", "internal/db", "internal/email", "internal/feedback", "internal/idempotency", "internal/models", "internal/session", "internal/usage", "internal/webhook", "docs"},
	"internal/idempotency":         {"internal/clock", "internal/db", "internal/userdata"},
	"internal/jobs":                {"internal/clock", "internal/db", "internal/email", "internal/verify"},
	"internal/jobs/jobstest":       {},
	"internal/metrics":             {"internal/credits"},
	"internal/models":              {},
	"internal/module":              {"internal/httpapi", "internal/userdata"},
	"internal/pgtest":              {"internal/db"},
	"internal/seed":                {"internal/trigger", "internal/webhook"},
	"internal/sentrytest":          {},
	"internal/session":             {"internal/clock"},
	"internal/session/sessiontest": {},
	"internal/simulate":            {"internal/billing", "internal/clock", "internal/devauth", "internal/trigger", "internal/webhook"},
	"internal/trigger":             {"internal/billing", "internal/webhook"},
	"internal/usage":               {"internal/account", "internal/audit", "internal/billing", "internal/clock", "internal/credits", "internal/db", "internal/email", "internal/userdata", "internal/verify"},
	"internal/userdata":            {},
	"internal/verify":              {}, // imported by every table owner for its checks: it depends on none of ours
	"internal/webhook":             {"internal/audit", "internal/clock", "internal/db", "internal/email", "internal/userdata", "internal/verify"},
	"docs":                         {},
	"migrations":                   {},
}

// appAreas hold the app's own packages: the worked examples and a fork's packages under backend/modules/.
// They are HTTP edges of their own (routes through module.Module) and share one rule, appAreaImports:
// the capabilities an app's feature builds on, never billing's or account's internals (a feature that
// needs one declares an interface in its own package, as account.Jobs does, and app passes the
// implementation in its Deps).
var (
	appAreas       = []string{"examples/", "modules/"}
	appAreaImports = []string{"internal/module", "internal/httpapi", "internal/userdata", "internal/usage", "internal/credits",
		"internal/idempotency", "internal/db", "internal/models", "internal/clock", "internal/audit", "examples/", "modules/"}
)

// The import rules of docs/architecture.md, enforced. Deny by default: every package has an entry of the
// module's packages it may import (allowedImports, or its area's rule). On top, each guarded package may be
// imported only by the packages listed (directly; an entry ending in "/" admits every package under
// it), and no domain package may depend on Echo at all, even transitively.
func TestImportRules(t *testing.T) {
	t.Parallel()
	onlyImportedBy := map[string][]string{
		// The app's own packages are HTTP edges like httpapi: they add routes through module.Module.
		"github.com/labstack/echo/v4":            {"internal/httpapi", "internal/app", "examples/", "modules/"},
		"github.com/labstack/echo/v4/middleware": {"internal/httpapi"},
		"github.com/getsentry/sentry-go/echo":    {"internal/httpapi"},
		modulePath + "internal/httpapi":          {"internal/app", "internal/module", "examples/", "modules/"},
		modulePath + "internal/jobs":             {"internal/app", "cmd/chaos"},
		modulePath + "internal/config":           {"internal/app", "cmd/fabrica", "cmd/loadgen", "cmd/chaos"},
		modulePath + "internal/app":              {"cmd/fabrica"},
		modulePath + "internal/devauth":          {"internal/app", "cmd/fabrica", "internal/simulate"},
		modulePath + "internal/trigger":          {"cmd/fabrica", "internal/seed", "internal/simulate"},
		modulePath + "internal/seed":             {"cmd/fabrica"},
		modulePath + "internal/simulate":         {"cmd/fabrica"},
		modulePath + "internal/catchup":          {"internal/app", "cmd/fabrica"},
		// The embedded OpenAPI document and viewer: served by the HTTP edge, read by the spec checker.
		"github.com/fabrica-saas/fabrica/docs": {"internal/httpapi", "internal/apispec"},
		// Test code only, like pgtest: no package of the build may depend on the spec checker.
		modulePath + "internal/apispec":    {},
		modulePath + "internal/sentrytest": {},
		// account screens sign-ups through its own EmailScreen interface; only app builds the blocklist.
		modulePath + "internal/disposable": {"internal/app"},
		// The console's pages: app builds them from the config, httpapi serves them.
		modulePath + "internal/console": {"internal/app", "internal/httpapi"},
	}
	domain := []string{"internal/account", "internal/admin", "internal/audit", "internal/billing", "internal/broadcast",
		"internal/billing/paddleapi", "internal/console", "internal/credits", "internal/db", "internal/disposable", "internal/email", "internal/feedback", "internal/metrics",
		"internal/models", "internal/session", "internal/webhook", "internal/usage", "internal/idempotency", "internal/userdata"}
	pkgs := listPackages(t)
	for _, p := range pkgs {
		for _, problem := range importProblems(short(p.ImportPath), p.Imports) {
			t.Error(problem)
		}
		for _, imp := range p.Imports {
			if allowed, guarded := onlyImportedBy[imp]; guarded && !admits(allowed, short(p.ImportPath)) {
				t.Errorf("%s imports %s; only %v may", short(p.ImportPath), short(imp), allowed)
			}
		}
		if slices.Contains(domain, short(p.ImportPath)) {
			for _, dep := range p.Deps {
				if strings.HasPrefix(dep, "github.com/labstack/echo") {
					t.Errorf("domain package %s depends on %s: domain packages never know about HTTP", short(p.ImportPath), dep)
				}
			}
		}
	}
	for name := range allowedImports {
		if !slices.ContainsFunc(pkgs, func(p goPackage) bool { return short(p.ImportPath) == name }) {
			t.Errorf("allowedImports has an entry for %s, which is no package of the module: remove it", name)
		}
	}
}

// importProblems checks one package's imports of the module's packages against its entry.
func importProblems(pkg string, imports []string) []string {
	allowed, ok := allowedImports[pkg]
	if admits(appAreas, pkg) {
		allowed, ok = appAreaImports, true
	}
	if !ok {
		return []string{fmt.Sprintf("%s has no entry in allowedImports (backend/internal/app/imports_test.go): add one "+
			"listing the packages of the module it may import, and its row in docs/architecture.md's import rules; "+
			"a package of the app's own belongs under backend/modules/, which shares one rule", pkg)}
	}
	var out []string
	for _, imp := range imports {
		if !strings.HasPrefix(imp, rootPath) || admits(allowed, short(imp)) {
			continue
		}
		out = append(out, fmt.Sprintf("%s imports %s, which its entry in allowedImports does not allow: if it needs a "+
			"capability of that package, declare an interface in your package, as account.Jobs does (app passes the "+
			"implementation); if the dependency is right, add it to the entry and to docs/architecture.md", pkg, short(imp)))
	}
	return out
}

// Deny by default, checked on made-up packages: one without an entry, one importing past its entry, and
// one under modules/ that shares the app area's rule.
func TestImportRulesDenyByDefault(t *testing.T) {
	t.Parallel()
	require.Len(t, importProblems("internal/brandnew", nil), 1)
	require.Contains(t, importProblems("internal/brandnew", nil)[0], "has no entry in allowedImports")
	require.Len(t, importProblems("internal/feedback", []string{modulePath + "internal/billing"}), 1)
	require.Contains(t, importProblems("internal/feedback", []string{modulePath + "internal/billing"})[0], "as account.Jobs does")
	require.Empty(t, importProblems("modules/reports", []string{modulePath + "internal/usage", modulePath + "internal/module", "fmt"}))
	require.Len(t, importProblems("modules/reports", []string{modulePath + "internal/billing", modulePath + "internal/account"}), 2)
}

// admits reports whether pkg is in allowed, or under one of its entries that ends in "/".
func admits(allowed []string, pkg string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool {
		return a == pkg || (strings.HasSuffix(a, "/") && strings.HasPrefix(pkg, a))
	})
}
