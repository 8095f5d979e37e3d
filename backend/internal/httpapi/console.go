package httpapi

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/console"
)

// consoleHandler serves the operator console's static files (docs/console.md). They are public: they hold
// no data, and everything they show comes from the admin API, behind requireAdmin.
type consoleHandler struct {
	pages *console.Pages
}

func (h *consoleHandler) redirect(c echo.Context) error {
	return c.Redirect(http.StatusMovedPermanently, "/console/")
}

// serve answers a file with the console's own CSP in place of the API's (the other security headers stay:
// nosniff, frame DENY, no-referrer, same-origin resources). Files are revalidated on every load (no-cache)
// and the ETag makes that a 304, so an upgrade's new files are picked up at once.
func (h *consoleHandler) serve(c echo.Context) error {
	f, ok := h.pages.Open(c.Param("*"))
	if !ok {
		return echo.ErrNotFound
	}
	hdr := c.Response().Header()
	hdr.Set("Content-Security-Policy", h.pages.CSP())
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("ETag", f.ETag)
	if etagMatches(c.Request().Header.Get("If-None-Match"), f.ETag) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, f.ContentType, f.Body)
}

// etagMatches reads If-None-Match: a list of entity tags, or "*".
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		if t = strings.TrimSpace(t); t == etag || t == "*" || t == "W/"+etag {
			return true
		}
	}
	return false
}
