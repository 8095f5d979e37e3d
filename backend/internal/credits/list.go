package credits

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// Page size bounds for List.
const (
	defaultPageSize = 50
	maxPageSize     = 100
)

// cursorLen is 8 bytes of created_at in Unix microseconds (Postgres' own precision, so the round trip is
// exact) plus the 16 bytes of the row id.
const cursorLen = 8 + 16

// List returns the user's movements newest first with keyset pagination on (created_at, id); cursor is
// opaque (base64 of the last row's created_at+id), "" for the first page; next is "" on the last page.
// limit is clamped to 1..100 (0 → 50).
func (s *Service) List(ctx context.Context, userID uuid.UUID, limit int, cursor string) (items []Movement, next string, err error) {
	limit = pageSize(limit)
	q := s.db.WithContext(ctx).Where("user_id = ?", userID)
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", wrap("list credit movements", err)
		}
		// The id breaks ties: rows written in one transaction share created_at (NOW() is its start time).
		q = q.Where("(created_at, id) < (?, ?)", at, id)
	}
	// Never nil, so an empty history serialises as [] rather than null.
	items = make([]Movement, 0, limit+1)
	// One extra row tells whether another page exists, so the last page never hands out a dead cursor.
	err = q.Table("credit_transactions").Select(columns).
		Order("created_at DESC, id DESC").Limit(limit + 1).Scan(&items).Error
	if err != nil {
		return nil, "", wrap("list credit movements", translate(q, err))
	}
	if len(items) > limit {
		items = items[:limit]
		last := items[limit-1]
		next = encodeCursor(last.CreatedAt, last.ID)
	}
	return items, next, nil
}

func pageSize(limit int) int {
	switch {
	case limit == 0:
		return defaultPageSize
	case limit < 1:
		return 1
	case limit > maxPageSize:
		return maxPageSize
	}
	return limit
}

func encodeCursor(at time.Time, id uuid.UUID) string {
	var b [cursorLen]byte
	binary.BigEndian.PutUint64(b[:8], uint64(at.UnixMicro()))
	copy(b[8:], id[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func decodeCursor(cursor string) (time.Time, uuid.UUID, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != cursorLen {
		return time.Time{}, uuid.UUID{}, ErrBadCursor
	}
	id, _ := uuid.FromBytes(b[8:]) // cannot fail: exactly 16 bytes
	return time.UnixMicro(int64(binary.BigEndian.Uint64(b[:8]))).UTC(), id, nil
}
