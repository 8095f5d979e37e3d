// Package feedback keeps what users tell us through the in-app widget: a message, the page it was sent
// from and an optional rating, stored with its author. It owns the feedback table; a user's erasure keeps
// the message and forgets the author (user_id SET NULL).
package feedback

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Limits of a message; the table's CHECKs say the same.
const (
	MaxMessage = 4000 // characters
	MaxPage    = 2048 // characters
	MinRating  = 1
	MaxRating  = 5
)

// ActionSubmitted is the audit action of a submitted message (its id and rating, never its text).
const ActionSubmitted = "feedback.submitted"

// ErrInvalid means a field of the submission is missing or out of bounds (a FieldError names them).
var ErrInvalid = errors.New("invalid feedback")

// FieldError names the fields behind ErrInvalid.
type FieldError struct{ Fields []string }

func (e *FieldError) Error() string { return ErrInvalid.Error() + ": " + strings.Join(e.Fields, ", ") }

// FieldNames lists the fields, for the API's error message.
func (e *FieldError) FieldNames() []string { return e.Fields }

// Unwrap makes errors.Is see ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// Input is one submission as the user sent it.
type Input struct {
	Message string
	Page    *string
	Rating  *int
}

// Service stores and lists feedback.
type Service struct{ db *gorm.DB }

// New builds the service.
func New(db *gorm.DB) *Service { return &Service{db: db} }

// Submit stores the caller's message and audits it, in one transaction.
func (s *Service) Submit(ctx context.Context, a audit.Actor, in Input) (models.Feedback, error) {
	f, err := validate(in)
	if err != nil {
		return models.Feedback{}, fmt.Errorf("submit feedback: %w", err)
	}
	f.UserID = &a.UserID
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&f).Error; err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionSubmitted, "feedback", f.ID.String(), map[string]any{"rating": f.Rating}))
	})
	if err != nil {
		return models.Feedback{}, fmt.Errorf("submit feedback: %w", err)
	}
	return f, nil
}

func validate(in Input) (models.Feedback, error) {
	var bad []string
	msg := strings.TrimSpace(in.Message)
	if msg == "" || utf8.RuneCountInString(msg) > MaxMessage || strings.ContainsFunc(msg, isBadControl) {
		bad = append(bad, "message")
	}
	var page *string
	if in.Page != nil {
		if p := strings.TrimSpace(*in.Page); p != "" {
			if utf8.RuneCountInString(p) > MaxPage || strings.ContainsFunc(p, unicode.IsControl) {
				bad = append(bad, "page")
			}
			page = &p
		}
	}
	if in.Rating != nil && (*in.Rating < MinRating || *in.Rating > MaxRating) {
		bad = append(bad, "rating")
	}
	if len(bad) > 0 {
		return models.Feedback{}, &FieldError{Fields: bad}
	}
	return models.Feedback{Message: msg, Page: page, Rating: in.Rating}, nil
}

// isBadControl allows line breaks and tabs in a message, and no other control character.
func isBadControl(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }

// ListTx lists feedback newest first, keyset-paginated (the admin's viewer).
func ListTx(ctx context.Context, tx *gorm.DB, p db.Page) ([]models.Feedback, string, error) {
	items, next, err := db.Keyset(tx.WithContext(ctx).Model(&models.Feedback{}), p.Limit, p.Cursor,
		func(f models.Feedback) (time.Time, uuid.UUID) { return f.CreatedAt, f.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list feedback: %w", err)
	}
	return items, next, nil
}

// ForUserTx walks a user's feedback oldest first, in pages of at most size messages (the GDPR export;
// see db.Walk).
func ForUserTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, size int, each func([]models.Feedback) error) error {
	err := db.Walk(func() *gorm.DB { return tx.WithContext(ctx).Model(&models.Feedback{}).Where("user_id = ?", userID) },
		size, func(f models.Feedback) (time.Time, uuid.UUID) { return f.CreatedAt, f.ID }, each)
	if err != nil {
		return fmt.Errorf("feedback of user: %w", err)
	}
	return nil
}
