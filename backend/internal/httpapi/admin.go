package httpapi

import (
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

type adminHandler struct {
	admin *admin.Service
	// ledger takes an operator's credit adjustments (admin_credits.go).
	ledger *credits.Service
	// emails are ADMIN_EMAILS, folded (email.Fold); ids are ADMIN_CLERK_USER_IDS.
	emails []string
	ids    []string
}

var adminErrors = []ErrorCode{
	{admin.ErrNoReplayer, http.StatusServiceUnavailable, "unavailable", "webhook replay is not configured"},
}

// requireAdmin lets through only operators: a user pinned by Clerk id in ADMIN_CLERK_USER_IDS, or one
// whose *verified* email is in ADMIN_EMAILS (an unverified address is anybody's to claim). It runs on every
// request against the user row requireUser just loaded, so removing an entry (or a user changing their
// email) takes effect at once. A refusal is 403, audited at most once per user per minute.
func (h *adminHandler) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if h.isAdmin(currentUser(c)) {
			c.Set(ctxActor, actorOf(c).AsAdmin())
			return next(c)
		}
		req := c.Request()
		if err := h.admin.RecordUnauthorized(req.Context(), actorOf(c), req.Method, req.URL.EscapedPath()); err != nil {
			return err
		}
		return NewError(http.StatusForbidden, "forbidden", "admin access required")
	}
}

// isAdmin compares emails with ASCII case folding only (email.Fold): Unicode folding would let the Kelvin
// sign "K" (U+212A) stand in for "k". An empty email or id never matches, even if a list has an empty entry.
func (h *adminHandler) isAdmin(u models.User) bool {
	if u.ClerkUserID != "" && slices.Contains(h.ids, u.ClerkUserID) {
		return true
	}
	addr := email.Fold(u.Email)
	return u.EmailVerified && addr != "" && slices.Contains(h.emails, addr)
}

// idParam reads the :id path segment; a malformed id names nothing, so it is a 404 like an unknown one.
func idParam(c echo.Context) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return uuid.UUID{}, db.ErrNotFound
	}
	return id, nil
}

type pageResponse[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor,omitempty"`
}

func toPage[M, V any](items []M, next string, conv func(M) V) pageResponse[V] {
	out := pageResponse[V]{Items: make([]V, 0, len(items)), NextCursor: next}
	for _, m := range items {
		out.Items = append(out.Items, conv(m))
	}
	return out
}

func (h *adminHandler) users(c echo.Context) error {
	p, _, err := listParams(c)
	if err != nil {
		return err
	}
	items, next, err := h.admin.Users(c.Request().Context(), admin.UserFilter{Query: c.QueryParam("query"),
		Email: c.QueryParam("email"), ClerkUserID: c.QueryParam("clerk_user_id"), Page: p})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(items, next, toAdminUserView))
}

func (h *adminHandler) user(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	d, err := h.admin.User(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAdminUserDetail(d))
}

func (h *adminHandler) audit(c echo.Context) error {
	f := admin.AuditFilter{Action: c.QueryParam("action")}
	var err error
	if f.Page, f.Since, err = listParams(c); err != nil {
		return err
	}
	if f.Until, err = timeParam(c, "until"); err != nil {
		return err
	}
	if s := c.QueryParam("user_id"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return badQuery("user_id must be a uuid")
		}
		f.UserID = &id
	}
	items, next, err := h.admin.AuditLog(c.Request().Context(), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(items, next, toAuditView))
}

func (h *adminHandler) webhookEvents(c echo.Context) error {
	f := admin.WebhookFilter{Provider: c.QueryParam("provider"), Status: c.QueryParam("status"), Type: c.QueryParam("type"),
		EventID: c.QueryParam("event_id")}
	var err error
	if f.Page, f.Since, err = listParams(c); err != nil {
		return err
	}
	if f.Until, err = timeParam(c, "until"); err != nil {
		return err
	}
	items, next, err := h.admin.WebhookEvents(c.Request().Context(), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toPage(items, next, toWebhookEventView))
}

func (h *adminHandler) webhookEvent(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	w, err := h.admin.WebhookEvent(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toWebhookEventDetail(w))
}

type replayResponse struct {
	EventID  string    `json:"event_id"`
	Status   string    `json:"status"`
	ReplayOf uuid.UUID `json:"replay_of"`
}

func (h *adminHandler) replay(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	r, err := h.admin.Replay(c.Request().Context(), actorOf(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, replayResponse{EventID: r.EventID, Status: r.Status, ReplayOf: r.ReplayOf})
}

func (h *adminHandler) stats(c echo.Context) error {
	s, err := h.admin.Stats(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toStatsResponse(s))
}
