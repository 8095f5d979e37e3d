package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// creditsHandler serves metered work: a client (the user's session, or a worker for the user) spends
// credits for a job before it runs; the worker that ran it reports it completed or failed. A failure
// refunds; a job never reported is refunded by the orphan reconciler at its deadline.
type creditsHandler struct {
	credits *credits.Service
	users   *account.Service
}

// creditsErrors: the ledger's sentinels. A job has one outcome: completing a failed (or already refunded)
// job, or failing a completed one, is a 409 rather than a silent no-op, so a worker bug that reports both
// shows up.
var creditsErrors = []ErrorCode{
	{credits.ErrInsufficient, http.StatusPaymentRequired, "insufficient_credits", "not enough credits"},
	{credits.ErrInvalidAmount, http.StatusUnprocessableEntity, "validation_failed", "amount must be a positive integer"},
	{credits.ErrInvalidJobID, http.StatusUnprocessableEntity, "validation_failed", "job_id is required"},
	{credits.ErrInvalidText, http.StatusUnprocessableEntity, "validation_failed",
		"job_id (128) and reason (255) must be valid text within their length"},
	{credits.ErrJobConflict, http.StatusConflict, "job_conflict", "job_id already used for a different operation"},
	{credits.ErrNoDeduct, http.StatusNotFound, "not_found", "no credit deduction for this job"},
	{credits.ErrJobFinished, http.StatusConflict, "job_finished", "the job already finished (its outcome is recorded, or its credits came back)"},
	{credits.ErrInvalidExpiry, http.StatusUnprocessableEntity, "validation_failed",
		"expires_in must be a whole number of seconds from 1 to 86400"},
	{credits.ErrInvalidGrant, http.StatusUnprocessableEntity, "validation_failed",
		"an operator grants promotional or purchased credits, priority 1-100, expires_in 60 seconds to 10 years; a correction names none of them"},
	{credits.ErrReasonRequired, http.StatusUnprocessableEntity, "validation_failed", "reason is required"},
}

type spendRequest struct {
	Amount int    `json:"amount"`
	JobID  string `json:"job_id"`
	Reason string `json:"reason"`
	// ExpiresIn (seconds) is how long the job may run before the reconciler refunds it; absent: the default.
	ExpiresIn *int64 `json:"expires_in"`
	// UserID names the user a worker spends for; a session must not send it.
	UserID *string `json:"user_id"`
}

type spendResponse struct {
	Movement   movementView `json:"movement"`
	Balance    int          `json:"balance"`
	Idempotent bool         `json:"idempotent"`
	// ExpiresAt is when the deduct is refunded unless a worker reports the job's outcome first.
	ExpiresAt *time.Time `json:"expires_at"`
}

// completeRequest and failRequest come from a worker, which names the job's user.
type completeRequest struct {
	UserID *string `json:"user_id"`
}

type failRequest struct {
	UserID *string `json:"user_id"`
	Reason string  `json:"reason"`
}

type completeResponse struct {
	JobID      string `json:"job_id"`
	Status     string `json:"status"`
	Idempotent bool   `json:"idempotent"`
	// Recharged is what the job was charged again: the reconciler had refunded it as orphaned.
	Recharged int `json:"recharged"`
}

type failResponse struct {
	JobID      string       `json:"job_id"`
	Status     string       `json:"status"`
	Refund     movementView `json:"refund"`
	Balance    int          `json:"balance"`
	Idempotent bool         `json:"idempotent"`
}

func toMovementView(m credits.Movement) movementView {
	return movementView{ID: m.ID, Delta: m.Delta, Kind: m.Kind, JobID: m.JobID, Reason: m.Reason, CreatedAt: m.CreatedAt}
}

// spend answers 201 for a new deduct and 200 (idempotent) for a repeated job_id, which charges nothing.
func (h *creditsHandler) spend(c echo.Context) error {
	var req spendRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	a, err := h.spender(c, req.UserID)
	if err != nil {
		return err
	}
	// The orphan deadline decides when credits come back unless a worker reports the outcome; a user who
	// could set it would set it to a second, let the reconciler refund, and have the work for free.
	if req.ExpiresIn != nil && !isWorker(c) {
		return errExpiresInNotAllowed
	}
	m, balance, created, err := h.credits.Spend(c.Request().Context(), a, req.Amount, req.JobID, req.Reason,
		expiresIn(req.ExpiresIn))
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, spendResponse{Movement: toMovementView(m), Balance: balance, Idempotent: !created, ExpiresAt: m.ExpiresAt})
}

// spender is whose credits a spend takes: the session's user, or the user a worker names, who must exist
// and not be deleted (404 / 410), as for the user's own session.
func (h *creditsHandler) spender(c echo.Context, userID *string) (audit.Actor, error) {
	if !isWorker(c) {
		if userID != nil {
			return audit.Actor{}, errUserIDNotAllowed
		}
		return actorOf(c), nil
	}
	a, err := workerActor(c, userID)
	if err != nil {
		return audit.Actor{}, err
	}
	if _, err := h.users.LiveUser(c.Request().Context(), a.UserID); err != nil {
		return audit.Actor{}, err
	}
	return a, nil
}

// errExpiresInNotAllowed refuses an orphan deadline chosen by a user's session.
var errExpiresInNotAllowed = NewError(http.StatusUnprocessableEntity, "validation_failed",
	"expires_in is accepted only with a worker key (a session's spends use CREDITS_ORPHAN_AFTER)")

// expiresIn turns the body's seconds into the ledger's window: absent is 0 (the default). Values outside
// the ledger's bounds map to a window the ledger refuses (ErrInvalidExpiry), an explicit 0 included, and
// the multiplication cannot overflow into range.
func expiresIn(seconds *int64) time.Duration {
	switch {
	case seconds == nil:
		return 0
	case *seconds < 1:
		return -1
	case *seconds > int64(credits.MaxExpiresIn/time.Second):
		return credits.MaxExpiresIn + time.Second
	}
	return time.Duration(*seconds) * time.Second
}

// complete takes {"user_id"}: the worker names whose job it ran.
func (h *creditsHandler) complete(c echo.Context) error {
	jobID, err := jobIDParam(c)
	if err != nil {
		return err
	}
	var req completeRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	a, err := workerActor(c, req.UserID)
	if err != nil {
		return err
	}
	done, err := h.credits.CompleteJob(c.Request().Context(), a, jobID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, completeResponse{JobID: jobID, Status: "completed", Idempotent: !done.Created,
		Recharged: done.Recharged})
}

// fail takes {"user_id", "reason"}; the optional reason is stored on the refund, as the reason the
// credits came back.
func (h *creditsHandler) fail(c echo.Context) error {
	jobID, err := jobIDParam(c)
	if err != nil {
		return err
	}
	var req failRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	a, err := workerActor(c, req.UserID)
	if err != nil {
		return err
	}
	refund, balance, created, err := h.credits.FailJob(c.Request().Context(), a, jobID, req.Reason)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, failResponse{JobID: jobID, Status: "failed", Refund: toMovementView(refund),
		Balance: balance, Idempotent: !created})
}

// jobIDParam is the :job_id segment, decoded. Echo matches on the raw path, and returns the raw segment,
// only when the request uses escapes Go would not produce (job%2F1); otherwise the segment is decoded.
func jobIDParam(c echo.Context) (string, error) {
	id := c.Param("job_id")
	if c.Request().URL.RawPath != "" {
		var err error
		if id, err = url.PathUnescape(id); err != nil {
			return "", NewError(http.StatusUnprocessableEntity, "validation_failed", "job_id is not a valid path segment")
		}
	}
	return id, nil
}
