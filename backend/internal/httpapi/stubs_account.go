package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
)

// errNotImplemented marks a route whose handler is still being written.
var errNotImplemented = NewError(http.StatusNotImplemented, "not_implemented", "not implemented yet")

type accountHandler struct {
	accounts *account.Service
}

func (h *accountHandler) me(echo.Context) error          { return errNotImplemented }
func (h *accountHandler) updateMe(echo.Context) error    { return errNotImplemented }
func (h *accountHandler) deleteMe(echo.Context) error    { return errNotImplemented }
func (h *accountHandler) export(echo.Context) error      { return errNotImplemented }
func (h *accountHandler) consent(echo.Context) error     { return errNotImplemented }
func (h *accountHandler) unsubscribe(echo.Context) error { return errNotImplemented }

var accountErrors []sentinel
