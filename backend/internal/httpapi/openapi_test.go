package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/apispec"
	"github.com/fabrica-saas/fabrica/backend/internal/console"
	"github.com/fabrica-saas/fabrica/docs"
)

// devOnly marks the operations only development serves (the /docs viewer).
const devOnly = "x-fabrica-development-only"

// appRoute marks the operations of an app's own endpoint packages, added through Deps.Routes by app.wire;
// this table has none of them, and the app's test holds them to the App's routes.
const appRoute = "x-fabrica-app-route"

func TestSpecIsValid(t *testing.T) {
	t.Parallel()
	doc, err := apispec.Doc()
	require.NoError(t, err)
	require.Equal(t, "3.1.0", doc.OpenAPI)
	// Validate checks the examples against their schemas too, so an example cannot drift either.
	require.NoError(t, doc.Validate(context.Background()))
}

// fullRouter is the route table with every optional route present in the environment, as the App builds
// it: /metrics and the console (their dependencies are given) and, in development, the viewer.
func fullRouter(t *testing.T, env string) *echo.Echo {
	pages, err := console.New(console.Config{Development: env == "development"})
	require.NoError(t, err)
	return New(Config{Env: env, MaxBodyBytes: 1024, DocsViewer: env == "development"},
		Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: http.NotFoundHandler(), Console: pages})
}

// The spec and the route table in step, both ways: every route of the table is an operation of
// docs/openapi.yaml with the same method and path, and every operation is a route. The development-only
// operations are routes in development and absent elsewhere.
func TestSpecMatchesTheRouteTable(t *testing.T) {
	t.Parallel()
	doc, err := apispec.Doc()
	require.NoError(t, err)
	for _, env := range []string{"development", "production"} {
		var routes []string
		for _, r := range fullRouter(t, env).Routes() {
			if r.Method == echo.RouteNotFound {
				continue // the catch-alls Echo adds for a group's middleware, not routes of ours
			}
			routes = append(routes, r.Method+" "+apispec.SpecPath(r.Path))
		}
		var ops []string
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				if _, dev := op.Extensions[devOnly]; dev && env != "development" {
					continue
				}
				if _, app := op.Extensions[appRoute]; app {
					continue
				}
				ops = append(ops, method+" "+path)
			}
		}
		slices.Sort(routes)
		slices.Sort(ops)
		require.Equal(t, routes, ops, "%s: router.go's routes and docs/openapi.yaml's operations differ", env)
	}
}

// Production serves the document but not the viewer; development serves both, the viewer under a CSP that
// allows only its own origin.
func TestDocsViewerIsDevelopmentOnly(t *testing.T) {
	t.Parallel()
	prod, dev := fullRouter(t, "production"), fullRouter(t, "development")
	for _, e := range []*echo.Echo{prod, dev} {
		rec := do(e, http.MethodGet, "/openapi.yaml", nil, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, mimeYAML, rec.Header().Get("Content-Type"))
		require.Equal(t, docs.OpenAPI, rec.Body.Bytes())
	}
	for _, path := range []string{"/docs", "/docs/swagger-ui-bundle.js", "/docs/init.js", "/docs/swagger-ui.css"} {
		rec := do(prod, http.MethodGet, path, nil, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, "production serves %s", path)
	}

	rec := do(dev, http.MethodGet, "/docs", nil, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, viewerCSP, rec.Header().Get("Content-Security-Policy"))
	require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	for _, src := range []string{`src="docs/swagger-ui-bundle.js"`, `src="docs/init.js"`, `href="docs/swagger-ui.css"`} {
		require.Contains(t, rec.Body.String(), src)
	}
	require.NotContains(t, rec.Body.String(), "<script>", "no inline script: the CSP forbids it")
	require.NotContains(t, viewerCSP, "unsafe")

	// Every asset the document names is served, and nothing else of the embedded directory.
	doc, err := apispec.Doc()
	require.NoError(t, err)
	enum := doc.Paths.Value("/docs/{asset}").Get.Parameters[0].Value.Schema.Value.Enum
	require.Len(t, enum, len(viewerAssets))
	for _, name := range enum {
		rec := do(dev, http.MethodGet, "/docs/"+name.(string), nil, nil)
		require.Equal(t, http.StatusOK, rec.Code, name)
		require.NotEmpty(t, rec.Body.Bytes(), name)
	}
	for _, path := range []string{"/docs/index.html", "/docs/README.md", "/docs/swagger-ui%2FLICENSE", "/docs/..%2Fopenapi.yaml"} {
		require.Equal(t, http.StatusNotFound, do(dev, http.MethodGet, path, nil, nil).Code, path)
	}
	require.True(t, strings.HasPrefix(do(dev, http.MethodGet, "/docs/init.js", nil, nil).Header().Get("Content-Type"), "text/javascript"))
	var _ openapi3.T
}
