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

// export answers GET /me/export by streaming: the document ({exported_at, user, subscriptions,
// credit_transactions, feedback, audit_logs}) is written while the account service reads it page by page,
// so neither side holds more than a page and a write buffer, whatever the length of the user's history.
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

// exportSections are the export's arrays after subscriptions, in the order account.ExportWriter fills them.
var exportSections = []string{"credit_transactions", "feedback", "audit_logs"}

// exportBuffer is the write buffer of a streaming export: the response gets whole buffers, and one flush
// per page.
const exportBuffer = 32 << 10

// exportStream is account.ExportWriter writing JSON to the response as it comes.
type exportStream struct {
	c   echo.Context
	buf *bufio.Writer
	// open is how many of exportSections have been opened; the last one opened is still open.
	open  int
	first bool
}

func (s *exportStream) Start(exportedAt time.Time, u models.User, subs []models.Subscription) error {
	res := s.c.Response()
	res.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	res.WriteHeader(http.StatusOK)
	s.buf = bufio.NewWriterSize(res, exportBuffer)
	views := make([]exportSubscription, 0, len(subs))
	for _, sub := range subs {
		views = append(views, exportSubscription{subscriptionView: *toSubscriptionView(sub),
			PaddleCustomerID: sub.PaddleCustomerID, PaddlePriceID: sub.PaddlePriceID,
			CurrentPeriodStart: sub.CurrentPeriodStart, AccessRevokedAt: sub.AccessRevokedAt,
			CreatedAt: sub.CreatedAt, UpdatedAt: sub.UpdatedAt})
	}
	s.raw(`{"exported_at":`)
	s.value(exportedAt)
	s.raw(`,"user":`)
	s.value(exportUser{ID: u.ID, ClerkUserID: u.ClerkUserID, Email: u.Email, DisplayName: u.DisplayName,
		Locale: u.Locale, Tier: u.CurrentTier, Consent: toConsentView(u), SignupMetadata: toSignupMetadataView(u),
		DisposableEmail: u.DisposableEmail, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt})
	s.raw(`,"subscriptions":`)
	return s.value(views)
}

func (s *exportStream) Ledger(page []credits.Movement) error {
	return items(s, 0, page, func(m credits.Movement) any {
		return movementView{ID: m.ID, Delta: m.Delta, Kind: m.Kind, JobID: m.JobID, Reason: m.Reason, CreatedAt: m.CreatedAt}
	})
}

func (s *exportStream) Feedback(page []models.Feedback) error {
	return items(s, 1, page, func(f models.Feedback) any {
		return exportFeedback{Message: f.Message, Page: f.Page, Rating: f.Rating, CreatedAt: f.CreatedAt}
	})
}

func (s *exportStream) Audit(page []models.AuditLog) error {
	return items(s, 2, page, func(a models.AuditLog) any {
		return exportAudit{Action: a.Action, Actor: audit.Exported(a.Actor), ResourceType: a.ResourceType,
			ResourceID: a.ResourceID, Details: a.Details, IP: a.IP, CreatedAt: a.CreatedAt}
	})
}

// items writes one page of a section's array, then hands what is buffered to the client.
func items[T any](s *exportStream, section int, page []T, view func(T) any) error {
	s.enter(section + 1)
	for _, row := range page {
		if !s.first {
			s.raw(",")
		}
		s.first = false
		if err := s.value(view(row)); err != nil {
			return err
		}
	}
	return s.flush()
}

// enter closes the open section and opens every section before the nth (1-based), each left empty when
// the writer skipped it (a table without rows gets no page).
func (s *exportStream) enter(n int) {
	for s.open < n {
		if s.open > 0 {
			s.raw("]")
		}
		s.raw(`,"` + exportSections[s.open] + `":[`)
		s.open++
		s.first = true
	}
}

// end completes the document.
func (s *exportStream) end() error {
	s.enter(len(exportSections))
	s.raw("]}\n")
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
