package billing

import (
	"context"
	"fmt"
	"time"
)

// ExpireCanceled downgrades to free every user whose canceled subscription's paid period has ended and
// who has no other subscription granting access, with one audit row each, in one statement. Running it
// twice, or from several instances at once, downgrades nobody twice: the WHERE clause no longer matches.
func (s *Service) ExpireCanceled(ctx context.Context, now time.Time) (int, error) {
	free := s.tiers.Free().Name
	res := s.db.WithContext(ctx).Exec(`WITH downgraded AS (
		UPDATE users u SET current_tier = ?, updated_at = now()
		 WHERE u.current_tier <> ? AND u.deleted_at IS NULL
		   AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = u.id AND s.status = 'canceled'
		                  AND s.current_period_end <= ?)
		   AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = u.id
		                  AND s.status IN ? AND s.access_revoked_at IS NULL)
		RETURNING u.id)
		INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details)
		SELECT 'system:expiry', 'subscription.expired', id, 'user', id::text, '{"tier":"free"}'::jsonb FROM downgraded`,
		free, free, now, LiveStatuses)
	if res.Error != nil {
		return 0, fmt.Errorf("expire canceled subscriptions: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}
