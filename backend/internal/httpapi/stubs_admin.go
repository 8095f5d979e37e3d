package httpapi

import (
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/admin"
)

type adminHandler struct {
	admin  *admin.Service
	emails []string
}

func (h *adminHandler) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(echo.Context) error { return errNotImplemented }
}
func (h *adminHandler) users(echo.Context) error         { return errNotImplemented }
func (h *adminHandler) user(echo.Context) error          { return errNotImplemented }
func (h *adminHandler) audit(echo.Context) error         { return errNotImplemented }
func (h *adminHandler) webhookEvents(echo.Context) error { return errNotImplemented }
func (h *adminHandler) webhookEvent(echo.Context) error  { return errNotImplemented }
func (h *adminHandler) replay(echo.Context) error        { return errNotImplemented }
func (h *adminHandler) stats(echo.Context) error         { return errNotImplemented }

var adminErrors []sentinel
