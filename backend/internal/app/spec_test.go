package app

import (
	"bytes"
	"net/http"
	"slices"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/apispec"
)

// checkAgainstSpec makes every answer of e, in every API test, meet docs/openapi.yaml: a declared status
// and a body its schema accepts, else the test fails. It wraps the whole chain (a Pre middleware), so
// errors, 404s and the webhook route are checked like any answer, whether the test calls the router
// directly or through a real server. Routes a test adds itself are not the API's and are left alone.
// Benchmarks are not checked: they measure the app, not the check.
func checkAgainstSpec(tb testing.TB, e *echo.Echo) {
	if _, ok := tb.(*testing.T); !ok {
		return
	}
	ours := map[string]bool{"": true} // "": the request matched no route at all
	for _, r := range e.Routes() {
		ours[r.Path] = true
	}
	e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			res := c.Response()
			tee := &teeWriter{ResponseWriter: res.Writer}
			res.Writer = tee
			// The error handler runs here rather than after the chain, so its answer is recorded too; Echo
			// does nothing more with an error once the response is committed.
			if err := next(c); err != nil {
				c.Error(err)
			}
			if ours[c.Path()] {
				if err := apispec.Check(c.Request(), c.Path(), res.Status, res.Header(), tee.body.Bytes()); err != nil {
					tb.Error(err)
				}
			}
			return nil
		}
	})
}

// teeWriter keeps a copy of the body on its way to the client.
type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer (flushes, deadlines).
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// The operations marked x-fabrica-app-route (an app's own endpoint packages, added through
// httpapi.Deps.Routes) are exactly the routes the App adds beyond httpapi's table.
func TestSpecMatchesTheAppsOwnRoutes(t *testing.T) {
	t.Parallel()
	a, _ := testApp(t, nil)
	doc, err := apispec.Doc()
	require.NoError(t, err)
	var marked, served []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if _, ok := op.Extensions["x-fabrica-app-route"]; ok {
				marked = append(marked, method+" "+path)
			}
		}
	}
	for _, r := range a.Echo().Routes() {
		if op := apispec.Operation(doc, r.Method, r.Path); op != nil {
			if _, ok := op.Operation.Extensions["x-fabrica-app-route"]; ok {
				served = append(served, r.Method+" "+apispec.SpecPath(r.Path))
			}
		} else if r.Method != echo.RouteNotFound {
			t.Errorf("the App serves %s %s, which docs/openapi.yaml does not describe", r.Method, r.Path)
		}
	}
	slices.Sort(marked)
	slices.Sort(served)
	require.Equal(t, marked, served)
}
