package httpapi

import (
	"context"
	"io"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// WebhookIngester is the webhook pipeline as the HTTP layer uses it: deliveries, and admin replays.
type WebhookIngester interface {
	Ingest(ctx context.Context, provider string, h http.Header, body []byte) (webhook.Result, error)
	Replay(ctx context.Context, archiveID uuid.UUID) (webhook.Result, error)
}

// webhookErrors: every signature failure is a 401 and writes nothing; providers retry non-2xx, which heals
// a secret rotated on their side before ours.
var webhookErrors = []ErrorCode{
	{webhook.ErrMissingSignature, http.StatusUnauthorized, "invalid_signature", "missing webhook signature"},
	{webhook.ErrMalformedSignature, http.StatusUnauthorized, "invalid_signature", "malformed webhook signature"},
	{webhook.ErrStaleSignature, http.StatusUnauthorized, "invalid_signature", "webhook signature timestamp outside tolerance"},
	{webhook.ErrBadSignature, http.StatusUnauthorized, "invalid_signature", "webhook signature does not match"},
	{webhook.ErrHandlerFailed, http.StatusInternalServerError, "handler_failed", "webhook handler failed; it will be retried"},
	{webhook.ErrUnknownProvider, http.StatusNotFound, "not_found", "unknown webhook provider"},
	{webhook.ErrNotReplayable, http.StatusConflict, "not_replayable", "this delivery was processed; there is nothing to replay"},
	{webhook.ErrMalformedArchive, http.StatusConflict, "not_replayable", "this delivery was never readable; resend it from the provider"},
	{webhook.ErrRedacted, http.StatusConflict, "delivery_redacted", "this delivery was redacted when its user was erased; nothing is left to run"},
}

type webhookHandler struct {
	pipeline WebhookIngester
	maxBody  int64
}

type webhookResponse struct {
	EventID    string `json:"event_id"`
	Idempotent bool   `json:"idempotent,omitempty"`
	Ignored    bool   `json:"ignored,omitempty"`
	// Failed is a delivery whose payload can never be processed (Reason says why): it is archived as
	// failed, and answered 200 because Paddle and Svix retry any other status for days.
	Failed bool   `json:"failed,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// receive reads the raw body (bounded: 413 beyond) and hands the exact bytes to the pipeline, which
// verifies them before anything parses them. No Bind: re-serialised JSON would not match the signature.
func (h *webhookHandler) receive(c echo.Context) error {
	req := c.Request()
	if req.ContentLength > h.maxBody {
		return NewError(http.StatusRequestEntityTooLarge, "payload_too_large", "webhook body too large")
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), req.Body, h.maxBody))
	if err != nil {
		return err
	}
	res, err := h.pipeline.Ingest(req.Context(), c.Param("provider"), req.Header, body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, webhookResponse{
		EventID:    res.EventID,
		Idempotent: res.Status == webhook.StatusSkipped,
		Ignored:    res.Status == webhook.StatusIgnored,
		Failed:     res.Reason != "",
		Reason:     res.Reason,
	})
}
