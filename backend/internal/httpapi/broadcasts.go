package httpapi

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// Broadcasts and the email preview, behind the admin gate.

var broadcastErrors = []ErrorCode{
	{broadcast.ErrInvalidDraft, http.StatusUnprocessableEntity, "validation_failed", "invalid value for these fields"},
	{broadcast.ErrUnknownTemplate, http.StatusUnprocessableEntity, "unknown_template", "not a broadcast template"},
	{broadcast.ErrConsentRequired, http.StatusConflict, "consent_required", "marketing email cannot bypass consent"},
	{broadcast.ErrBypassNeedsFixedWording, http.StatusConflict, "bypass_not_allowed", "only a template with fixed wording may bypass consent"},
	{email.ErrUnknownTemplate, http.StatusNotFound, "not_found", "unknown email template"},
}

type broadcastHandler struct {
	broadcasts *broadcast.Service
}

type audienceView struct {
	Tier string `json:"tier,omitempty"`
}

type broadcastRequest struct {
	Template      string       `json:"template"`
	Subject       string       `json:"subject"`
	BodyMarkdown  string       `json:"body_markdown"`
	Audience      audienceView `json:"audience"`
	Kind          string       `json:"kind"`
	BypassConsent bool         `json:"bypass_consent"`
}

type broadcastCounts struct {
	Pending int64 `json:"pending"`
	Sent    int64 `json:"sent"`
	Skipped int64 `json:"skipped"`
	Failed  int64 `json:"failed"`
}

type broadcastView struct {
	ID            uuid.UUID        `json:"id"`
	Template      string           `json:"template"`
	Subject       string           `json:"subject"`
	BodyMarkdown  string           `json:"body_markdown"`
	Audience      audienceView     `json:"audience"`
	Kind          string           `json:"kind"`
	BypassConsent bool             `json:"bypass_consent"`
	Status        string           `json:"status"`
	CreatedBy     string           `json:"created_by"`
	CreatedAt     time.Time        `json:"created_at"`
	StartedAt     *time.Time       `json:"started_at"`
	DispatchedAt  *time.Time       `json:"dispatched_at"`
	FinishedAt    *time.Time       `json:"finished_at"`
	Counts        *broadcastCounts `json:"counts,omitempty"`
}

func toBroadcastView(r broadcast.Run, withCounts bool) broadcastView {
	v := broadcastView{ID: r.ID, Template: r.Template, Subject: r.Subject, BodyMarkdown: r.BodyMarkdown,
		Audience: audienceView{Tier: r.Audience.Tier}, Kind: r.Kind, BypassConsent: r.BypassConsent, Status: r.Status,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, DispatchedAt: r.DispatchedAt,
		FinishedAt: r.FinishedAt}
	if withCounts {
		v.Counts = &broadcastCounts{Pending: r.Counts.Pending, Sent: r.Counts.Sent, Skipped: r.Counts.Skipped, Failed: r.Counts.Failed}
	}
	return v
}

func (r broadcastRequest) draft() broadcast.Draft {
	return broadcast.Draft{Template: r.Template, Subject: r.Subject, BodyMarkdown: r.BodyMarkdown,
		Audience: broadcast.Audience{Tier: r.Audience.Tier}, Kind: r.Kind, BypassConsent: r.BypassConsent}
}

func (h *broadcastHandler) create(c echo.Context) error {
	var req broadcastRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	r, err := h.broadcasts.Create(c.Request().Context(), actorOf(c), req.draft())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toBroadcastView(r, true))
}

func (h *broadcastHandler) send(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	r, err := h.broadcasts.Send(c.Request().Context(), actorOf(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, toBroadcastView(r, true))
}

func (h *broadcastHandler) get(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	r, err := h.broadcasts.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toBroadcastView(r, true))
}

func (h *broadcastHandler) list(c echo.Context) error {
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	items, next, err := h.broadcasts.List(c.Request().Context(), p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(items, next, func(r broadcast.Run) broadcastView { return toBroadcastView(r, false) }))
}

type previewResponse struct {
	Template string `json:"template"`
	Subject  string `json:"subject"`
	Text     string `json:"text"`
	HTML     string `json:"html"`
}

// preview renders any registered template with its sample data; an unknown name is 404.
func (h *broadcastHandler) preview(c echo.Context) error {
	name := c.Param("template")
	m, err := h.broadcasts.Preview(name)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, previewResponse{Template: name, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
}

// previewDraft renders a draft as its recipients would get it, validated as create would; it stores nothing.
func (h *broadcastHandler) previewDraft(c echo.Context) error {
	var req broadcastRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	m, err := h.broadcasts.PreviewDraft(req.draft())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, previewResponse{Template: req.Template, Subject: m.Subject, Text: m.Text, HTML: m.HTML})
}
