package usage

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// The operator console's reads: a user's months, and the features nearest their limits across users.
// Both read counters only (one row per user, feature and month), through an index.

// Month is one counter: a feature's usage in one usage month.
type Month struct {
	UserID      uuid.UUID `gorm:"column:user_id"`
	Feature     string
	PeriodStart time.Time
	PeriodEnd   time.Time
	Used        int64
	// Limit is the limit of the month's last event (nil for a credits feature).
	Limit     *int64 `gorm:"column:limit_value"`
	UpdatedAt time.Time
}

// History lists the user's counters, newest month first (features alphabetically within a month), one
// page at a time: p.Cursor is "" or the next of the previous page.
func (s *Service) History(ctx context.Context, userID uuid.UUID, p db.Page) ([]Month, string, error) {
	limit := db.PageSize(p.Limit)
	q := s.db.WithContext(ctx).Table("usage_counters").Where("user_id = ?", userID)
	if p.Cursor != "" {
		at, feature, err := decodeMonthCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		q = q.Where("(period_start < ? OR (period_start = ? AND feature > ?))", at, at, feature)
	}
	out := make([]Month, 0, limit+1)
	if err := q.Order("period_start DESC, feature").Limit(limit + 1).Find(&out).Error; err != nil {
		return nil, "", fmt.Errorf("usage history: %w", db.Translate(err))
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(last.PeriodStart.UnixMicro(), 10) + "|" + last.Feature))
	}
	return out, next, nil
}

func decodeMonthCursor(c string) (time.Time, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", db.ErrBadCursor
	}
	micros, feature, ok := strings.Cut(string(raw), "|")
	n, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil {
		return time.Time{}, "", db.ErrBadCursor
	}
	return time.UnixMicro(n).UTC(), feature, nil
}

// NearestLimits lists the counters of usage months in progress that are closest to their limits (used
// over limit, highest first), across users: the console's overview. Counters without a limit (credits
// features) are left out.
func (s *Service) NearestLimits(ctx context.Context, n int) ([]Month, error) {
	now := s.now()
	out := []Month{}
	// ix_usage_counters_period_end finds the months in progress; their count is bounded by users ×
	// features, whatever the history.
	err := s.db.WithContext(ctx).Table("usage_counters").
		Where("period_end > ? AND period_start <= ? AND limit_value > 0", now, now).
		Order("used::float8 / limit_value DESC, user_id, feature").Limit(db.PageSize(n)).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("nearest limits: %w", db.Translate(err))
	}
	return out, nil
}
