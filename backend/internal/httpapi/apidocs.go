package httpapi

import (
	"io/fs"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/docs"
)

// The API's own description. /openapi.yaml is served everywhere: it documents a public API and holds no
// secret, and the embedded copy is the document of the build that answers. The /docs viewer is a
// development convenience only (Config.DocsViewer); staging and production have no such route.

// mimeYAML is RFC 9512's media type for YAML.
const mimeYAML = "application/yaml"

func serveOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, mimeYAML, docs.OpenAPI)
}

// viewerCSP lets the viewer page load only from its own origin: the bundle and init.js (no inline script,
// no eval), the stylesheet, the document and "Try it out" requests. See docs/api.md for what it allows and why.
const viewerCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// viewerAssets are the files /docs/:asset may serve (an allow-list: nothing else of docs.Viewer is
// reachable), by the name in the URL.
var viewerAssets = map[string]struct{ file, mime string }{
	"init.js":                          {"init.js", "text/javascript; charset=utf-8"},
	"swagger-ui-bundle.js":             {"swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8"},
	"swagger-ui.css":                   {"swagger-ui/swagger-ui.css", "text/css; charset=utf-8"},
	"LICENSE":                          {"swagger-ui/LICENSE", echo.MIMETextPlainCharsetUTF8},
	"NOTICE":                           {"swagger-ui/NOTICE", echo.MIMETextPlainCharsetUTF8},
	"swagger-ui-bundle.js.LICENSE.txt": {"swagger-ui/swagger-ui-bundle.js.LICENSE.txt", echo.MIMETextPlainCharsetUTF8},
}

func serveViewer(c echo.Context) error {
	page, err := fs.ReadFile(docs.Viewer, "index.html")
	if err != nil {
		return err
	}
	// Only the CSP changes: the other security headers (nosniff, frame DENY, no-referrer, no-store) stay.
	c.Response().Header().Set("Content-Security-Policy", viewerCSP)
	return c.HTMLBlob(http.StatusOK, page)
}

func serveViewerAsset(c echo.Context) error {
	a, ok := viewerAssets[c.Param("asset")]
	if !ok {
		return echo.ErrNotFound
	}
	body, err := fs.ReadFile(docs.Viewer, a.file)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, a.mime, body)
}
