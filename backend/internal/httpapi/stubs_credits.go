package httpapi

import (
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

type creditsHandler struct {
	credits *credits.Service
}

func (h *creditsHandler) spend(echo.Context) error    { return errNotImplemented }
func (h *creditsHandler) complete(echo.Context) error { return errNotImplemented }
func (h *creditsHandler) fail(echo.Context) error     { return errNotImplemented }

var creditsAPIErrors []sentinel
