package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Identity is a verified Clerk session as the account policy needs it.
type Identity struct {
	ClerkUserID string
	Email       string
	// EmailVerified is the session's word that Email is verified; only then is Email stored.
	EmailVerified bool
	// AuthTime is when the user actually signed in (the JWT auth_time claim), nil when absent.
	AuthTime *time.Time
}

// Authenticate returns the user behind a verified session, creating it lazily. A soft-deleted account is
// restored when the session proves a sign-in after the deletion, within the grace period; otherwise it
// stays deleted and Authenticate returns ErrDeleted.
//
// It also records the user as seen (users.last_seen_at, for the activity metrics), at most once per
// SeenEvery: the common request finds a fresh last_seen_at on the row it already loaded and writes nothing.
func (s *Service) Authenticate(ctx context.Context, id Identity) (models.User, error) {
	u, err := s.EnsureUser(ctx, id.ClerkUserID, id.Email, id.EmailVerified)
	if errors.Is(err, ErrDeleted) && s.mayRestore(u, id, s.now()) {
		u, err = s.restore(ctx, u)
	}
	if err == nil {
		s.touchLastSeen(ctx, &u, s.now())
	}
	return u, err
}

// SeenEvery is how often an active user's last_seen_at is written at most: DAU/WAU/MAU need no finer
// grain, and a write per request would turn every read into a row version.
const SeenEvery = time.Hour

// touchLastSeen writes last_seen_at when the loaded row's value is older than SeenEvery. The condition is
// repeated in SQL against the database clock, so concurrent requests of one user write once, and a skew
// between the clock and the database's (development's moved clock included) costs at most a statement that
// matches nothing. last_seen_at is activity bookkeeping, stamped by the database like the other activity
// figures it is compared with. It is not the request's purpose: a failure is logged and the request goes on.
func (s *Service) touchLastSeen(ctx context.Context, u *models.User, now time.Time) {
	if u.LastSeenAt != nil && now.Sub(*u.LastSeenAt) < SeenEvery {
		return
	}
	var seen []time.Time
	err := s.db.WithContext(ctx).Raw(`UPDATE users SET last_seen_at = now()
		WHERE id = ? AND (last_seen_at IS NULL OR last_seen_at < now() - make_interval(secs => ?))
		RETURNING last_seen_at`, u.ID, SeenEvery.Seconds()).Scan(&seen).Error
	if err != nil {
		s.log.WarnContext(ctx, "record last seen", "user_id", u.ID.String(), "error", err.Error())
		return
	}
	if len(seen) == 1 {
		u.LastSeenAt = &seen[0]
	}
}

// mayRestore is the restore rule. auth_time, not iat: a session minted before the deletion keeps refreshing
// its iat every minute, so only a fresh sign-in shows the user wants the account back. No auth_time fails
// closed.
func (s *Service) mayRestore(u models.User, id Identity, now time.Time) bool {
	return u.DeletedAt != nil && id.AuthTime != nil && id.AuthTime.After(*u.DeletedAt) &&
		now.Before(u.DeletedAt.Add(s.grace()))
}

// restore clears deleted_at and audits once. The UPDATE matches only the deleted_at we saw, so of several
// concurrent requests exactly one restores; the others find the row already live and read it.
func (s *Service) restore(ctx context.Context, u models.User) (models.User, error) {
	var restored []models.User
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Raw(`UPDATE users SET deleted_at = NULL, updated_at = now()
			WHERE id = ? AND deleted_at = ? RETURNING *`, u.ID, *u.DeletedAt).Scan(&restored).Error
		if err != nil || len(restored) == 0 {
			return err
		}
		by := audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID}
		return audit.Write(ctx, tx, by.Entry(ActionRestored, "user", u.ClerkUserID,
			map[string]any{"deleted_at": u.DeletedAt.UTC()}))
	})
	if err != nil {
		return models.User{}, fmt.Errorf("restore account: %w", err)
	}
	if len(restored) == 1 {
		return restored[0], nil
	}
	return s.reload(ctx, u)
}

// reload reads the user again after losing a race; it answers ErrDeleted unless the row is live.
func (s *Service) reload(ctx context.Context, u models.User) (models.User, error) {
	var rows []models.User
	if err := s.db.WithContext(ctx).Where("id = ?", u.ID).Limit(1).Find(&rows).Error; err != nil {
		return models.User{}, fmt.Errorf("reload account: %w", err)
	}
	if len(rows) == 0 || rows[0].DeletedAt != nil {
		return u, ErrDeleted
	}
	return rows[0], nil
}
