package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

func badQuery(msg string) error { return NewError(http.StatusBadRequest, "bad_request", msg) }

// listParams reads limit, cursor and since (RFC 3339, "" for no bound), the same way for every list
// endpoint. The service clamps the limit, but a limit that is not a number, or an unreadable since, is the
// caller's bug: 400; an unreadable cursor is db.ErrBadCursor, 400 too.
func listParams(c echo.Context) (p db.Page, since *time.Time, err error) {
	p.Cursor = c.QueryParam("cursor")
	if s := c.QueryParam("limit"); s != "" {
		if p.Limit, err = strconv.Atoi(s); err != nil {
			return p, nil, badQuery("limit must be an integer")
		}
	}
	since, err = timeParam(c, "since")
	return p, since, err
}

// timeParam reads an optional RFC 3339 query parameter; an unreadable one is 400 naming it.
func timeParam(c echo.Context, name string) (*time.Time, error) {
	s := c.QueryParam(name)
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, badQuery(name + " must be an RFC 3339 timestamp")
	}
	return &t, nil
}
