package admin

import (
	"context"

	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Feedback lists the users' feedback, newest first.
func (s *Service) Feedback(ctx context.Context, p Page) ([]models.Feedback, string, error) {
	return feedback.ListTx(ctx, s.db, p)
}
