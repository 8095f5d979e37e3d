package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/fabrica-saas/fabrica/backend/"

// goPackage is what `go list -json` says about one package of the module.
type goPackage struct {
	ImportPath string
	Imports    []string // direct imports (tests' imports are not included)
	Deps       []string // everything it depends on, transitively
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"...")
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

func short(path string) string { return strings.TrimPrefix(path, module) }

// The import rules of docs/architecture.md, enforced: each guarded package may be imported only by the
// packages listed (directly; an entry ending in "/" admits every package under it), and no domain package
// may depend on Echo at all, even transitively.
func TestImportRules(t *testing.T) {
	t.Parallel()
	onlyImportedBy := map[string][]string{
		// An app's own endpoint packages (backend/examples/...) are HTTP edges like httpapi: they add routes
		// through httpapi.Routes (docs/usage.md, "A metered endpoint of your own").
		"github.com/labstack/echo/v4":            {"internal/httpapi", "internal/app", "examples/"},
		"github.com/labstack/echo/v4/middleware": {"internal/httpapi"},
		"github.com/getsentry/sentry-go/echo":    {"internal/httpapi"},
		module + "internal/httpapi":              {"internal/app", "examples/"},
		module + "internal/jobs":                 {"internal/app", "cmd/chaos"},
		module + "internal/config":               {"internal/app", "cmd/fabrica", "cmd/loadgen", "cmd/chaos"},
		module + "internal/app":                  {"cmd/fabrica"},
		module + "internal/devauth":              {"internal/app", "cmd/fabrica", "internal/simulate"},
		module + "internal/trigger":              {"cmd/fabrica", "internal/seed", "internal/simulate"},
		module + "internal/seed":                 {"cmd/fabrica"},
		module + "internal/simulate":             {"cmd/fabrica"},
		module + "internal/catchup":              {"internal/app", "cmd/fabrica"},
		// The embedded OpenAPI document and viewer: served by the HTTP edge, read by the spec checker.
		"github.com/fabrica-saas/fabrica/docs": {"internal/httpapi", "internal/apispec"},
		// Test code only, like pgtest: no package of the build may depend on the spec checker.
		module + "internal/apispec":    {},
		module + "internal/sentrytest": {},
		// account screens sign-ups through its own EmailScreen interface; only app builds the blocklist.
		module + "internal/disposable": {"internal/app"},
		// The console's pages: app builds them from the config, httpapi serves them.
		module + "internal/console": {"internal/app", "internal/httpapi"},
	}
	domain := []string{"internal/account", "internal/admin", "internal/audit", "internal/billing", "internal/broadcast",
		"internal/billing/paddleapi", "internal/console", "internal/credits", "internal/db", "internal/disposable", "internal/email", "internal/feedback", "internal/metrics",
		"internal/models", "internal/session", "internal/webhook", "internal/usage", "internal/idempotency"}
	for _, p := range listPackages(t) {
		// verify is imported by every package that owns tables (their checks): it depends on none of ours.
		if short(p.ImportPath) == "internal/verify" {
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module) {
					t.Errorf("internal/verify imports %s; it must import no package of the module", short(imp))
				}
			}
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
}

// admits reports whether pkg is in allowed, or under one of its entries that ends in "/".
func admits(allowed []string, pkg string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool {
		return a == pkg || (strings.HasSuffix(a, "/") && strings.HasPrefix(pkg, a))
	})
}
