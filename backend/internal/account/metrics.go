package account

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Reads for the admin metrics overview, each bounded by an index: ix_users_created_at for signups,
// ix_users_last_seen_at for activity.

// SourceDay is how many users signed up on one UTC day from one utm_source ("" when none was recorded).
type SourceDay struct {
	Day    time.Time
	Source string
	Count  int64
}

// SignupsPerDayTx counts the users created since since, per UTC day and utm_source. Soft-deleted users
// count (they did sign up); erased ones are gone.
func SignupsPerDayTx(ctx context.Context, tx *gorm.DB, since time.Time) ([]SourceDay, error) {
	out := []SourceDay{}
	if err := tx.WithContext(ctx).Raw(`SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day,
		coalesce(signup_utm_source, '') AS source, count(*) AS count
		FROM users WHERE created_at >= ? GROUP BY 1, 2 ORDER BY 1, 2`, since).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("signups per day: %w", err)
	}
	return out, nil
}

// Activity counts the users seen (an authenticated request) in the last day, week and 30 days before
// now. last_seen_at is written at most once per SeenEvery, so each count can lag by that much.
type Activity struct {
	DAU, WAU, MAU int64
}

// ActivityTx counts active users at now.
func ActivityTx(ctx context.Context, tx *gorm.DB, now time.Time) (Activity, error) {
	var a Activity
	err := tx.WithContext(ctx).Raw(`SELECT count(*) FILTER (WHERE last_seen_at > ?) AS dau,
		count(*) FILTER (WHERE last_seen_at > ?) AS wau, count(*) AS mau
		FROM users WHERE last_seen_at > ?`, now.AddDate(0, 0, -1), now.AddDate(0, 0, -7), now.AddDate(0, 0, -30)).
		Row().Scan(&a.DAU, &a.WAU, &a.MAU)
	if err != nil {
		return Activity{}, fmt.Errorf("activity: %w", err)
	}
	return a, nil
}
