package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// export answers GET /me/export by streaming: the document ({exported_at, user, then one array per
// exported table of the user-data registry: subscriptions, credit_transactions, feedback, audit_logs, and
// any a module registers}) is written while the account service reads it page by page, so neither side
// holds more than a page and a write buffer, whatever the length of the user's history.
// The status is sent with the first byte: a failure after that (the client went away, the database
// failed) cannot become an error answer, so the document is left unfinished, which no JSON reader
// mistakes for a whole one, and the error handler logs it.
func (h *accountHandler) export(c echo.Context) error {
	w := &exportStream{c: c}
	if _, err := h.accounts.Export(c.Request().Context(), actorOf(c), w); err != nil {
		return err
	}
	return w.end()
}

// exportBuffer is the write buffer of a streaming export: the response gets whole buffers, and one flush
// per page.
const exportBuffer = 32 << 10

// exportStream is account.ExportWriter writing JSON to the response as it comes.
type exportStream struct {
	c   echo.Context
	buf *bufio.Writer
	// open is true while a section's array is open; first while it has no row yet.
	open, first bool
}

func (s *exportStream) Start(exportedAt time.Time, u models.User) error {
	res := s.c.Response()
	res.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	res.WriteHeader(http.StatusOK)
	s.buf = bufio.NewWriterSize(res, exportBuffer)
	s.raw(`{"exported_at":`)
	s.value(exportedAt)
	s.raw(`,"user":`)
	return s.value(exportUser{ID: u.ID, ClerkUserID: u.ClerkUserID, Email: u.Email, DisplayName: u.DisplayName,
		Locale: u.Locale, Tier: u.CurrentTier, Consent: toConsentView(u), SignupMetadata: toSignupMetadataView(u),
		DisposableEmail: u.DisposableEmail, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt})
}

// Section closes the open array and opens the next, under key (the registry's keys are plain names).
func (s *exportStream) Section(key string) error {
	s.close()
	s.raw(`,`)
	if err := s.value(key); err != nil {
		return err
	}
	s.raw(`:[`)
	s.open, s.first = true, true
	return nil
}

// Rows writes one page of the open section, then hands what is buffered to the client.
func (s *exportStream) Rows(page []any) error {
	for _, row := range page {
		if !s.first {
			s.raw(",")
		}
		s.first = false
		if err := s.value(exportView(row)); err != nil {
			return err
		}
	}
	return s.flush()
}

// exportView is the export's JSON of a row: the built-in owners' row types get the API's views; a
// module's row is already its own export view.
func exportView(row any) any {
	switch r := row.(type) {
	case models.Subscription:
		return exportSubscription{subscriptionView: *toSubscriptionView(r),
			PaddleCustomerID: r.PaddleCustomerID, PaddlePriceID: r.PaddlePriceID,
			CurrentPeriodStart: r.CurrentPeriodStart, AccessRevokedAt: r.AccessRevokedAt,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	case credits.Movement:
		return movementView{ID: r.ID, Delta: r.Delta, Kind: r.Kind, JobID: r.JobID, Reason: r.Reason, CreatedAt: r.CreatedAt}
	case models.Feedback:
		return exportFeedback{Message: r.Message, Page: r.Page, Rating: r.Rating, CreatedAt: r.CreatedAt}
	case models.AuditLog:
		return exportAudit{Action: r.Action, Actor: audit.Exported(r.Actor), ResourceType: r.ResourceType,
			ResourceID: r.ResourceID, Details: r.Details, IP: r.IP, CreatedAt: r.CreatedAt}
	}
	return row
}

func (s *exportStream) close() {
	if s.open {
		s.raw("]")
		s.open = false
	}
}

// end completes the document.
func (s *exportStream) end() error {
	s.close()
	s.raw("}\n")
	return s.flush()
}

func (s *exportStream) raw(text string) { _, _ = s.buf.WriteString(text) } // a failed write sticks: flush reports it

func (s *exportStream) value(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.buf.Write(b)
	return err
}

func (s *exportStream) flush() error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if err := http.NewResponseController(s.c.Response().Writer).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
