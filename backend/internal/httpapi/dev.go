package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// DevTools are development's time travel and mail view (docs/simulate.md), which app implements; nil
// outside development, where the /dev routes do not exist.
type DevTools interface {
	// Clock tells the development clock's time and how far it is moved.
	Clock(ctx context.Context) (ClockView, error)
	// MoveClock moves it for every process, runs the periodic tasks whose schedule the move crossed and
	// returns once every process tells the new time.
	MoveClock(ctx context.Context, by audit.Actor, m ClockMove) (ClockView, error)
	// Emails lists the transactional email jobs addressed to addr.
	Emails(ctx context.Context, addr string) ([]EmailView, error)
}

// ClockMove is the body of POST /dev/clock: exactly one of set (an RFC 3339 instant), advance (a span
// such as 31d, 1mo, 36h) or reset.
type ClockMove struct {
	Set     *time.Time `json:"set"`
	Advance string     `json:"advance"`
	Reset   bool       `json:"reset"`
}

// ClockView is the development clock's state, and after a move the tasks it ran.
type ClockView struct {
	Now           time.Time `json:"now"`
	Moved         bool      `json:"moved"`
	OffsetSeconds float64   `json:"offset_seconds"`
	Tasks         []TaskRun `json:"tasks,omitempty"`
}

// TaskRun is one periodic task a clock move ran, with its report.
type TaskRun struct {
	Name   string         `json:"name"`
	Report map[string]int `json:"report"`
}

// EmailView is one queued transactional email.
type EmailView struct {
	Template       string    `json:"template"`
	To             string    `json:"to"`
	IdempotencyKey string    `json:"idempotency_key"`
	State          string    `json:"state"`
	CreatedAt      time.Time `json:"created_at"`
}

var errBadClockMove = NewError(http.StatusUnprocessableEntity, "validation_failed",
	"name exactly one of set (RFC 3339), advance (a span such as 31d, 1mo, 36h) or reset")

type devHandler struct{ dev DevTools }

func (h *devHandler) clock(c echo.Context) error {
	v, err := h.dev.Clock(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (h *devHandler) moveClock(c echo.Context) error {
	var m ClockMove
	if err := bind(c, &m); err != nil {
		return err
	}
	n := 0
	for _, set := range []bool{m.Set != nil, strings.TrimSpace(m.Advance) != "", m.Reset} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errBadClockMove
	}
	v, err := h.dev.MoveClock(c.Request().Context(), actorOf(c), m)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (h *devHandler) emails(c echo.Context) error {
	to := strings.TrimSpace(c.QueryParam("to"))
	if to == "" {
		return NewError(http.StatusUnprocessableEntity, "validation_failed", "to is required")
	}
	list, err := h.dev.Emails(c.Request().Context(), to)
	if err != nil {
		return err
	}
	if list == nil {
		list = []EmailView{}
	}
	return c.JSON(http.StatusOK, map[string]any{"items": list})
}

// present answers 404 when the App has no development tools (a development router built without them).
func (h *devHandler) present(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if h.dev == nil {
			return NewError(http.StatusNotFound, "not_found", "not found")
		}
		return next(c)
	}
}
