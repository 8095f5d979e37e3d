package account

import (
	"context"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Identity is a verified Clerk session as the account policy needs it.
type Identity struct {
	ClerkUserID string
	Email       string
	// AuthTime is when the user actually signed in (the JWT auth_time claim), nil when absent.
	AuthTime *time.Time
}

// Authenticate returns the user behind a verified session, creating it lazily.
func (s *Service) Authenticate(ctx context.Context, id Identity) (models.User, error) {
	return s.EnsureUser(ctx, id.ClerkUserID, id.Email)
}
