package admin

import (
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Page size bounds of every list.
const (
	defaultPageSize = 50
	maxPageSize     = 100
)

// cursorLen is 8 bytes of created_at in Unix microseconds (Postgres' own precision, so the round trip is
// exact) plus the 16 bytes of the row id.
const cursorLen = 8 + 16

// snapshot is the options of a read that spans several statements: one consistent view, no writes.
var snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// Page selects one page of a list, newest first. Cursor is opaque: "" for the first page, then the Next
// of the previous page. Limit is clamped to 1..100 (0 means 50).
type Page struct {
	Limit  int
	Cursor string
}

// list runs q (one table with created_at and id columns, filters applied) with keyset pagination on
// (created_at, id): unlike OFFSET, rows inserted while an operator pages cannot shift a page, so nothing
// is skipped or shown twice. key reads a row's (created_at, id) to build the next cursor.
func list[T any](q *gorm.DB, p Page, key func(T) (time.Time, uuid.UUID)) (items []T, next string, err error) {
	limit := pageSize(p.Limit)
	if p.Cursor != "" {
		at, id, err := decodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		// The id breaks ties: rows written in one transaction share created_at (NOW() is its start time).
		q = q.Where("(created_at, id) < (?, ?)", at, id)
	}
	// Never nil, so an empty page serialises as [] rather than null. One extra row tells whether another
	// page exists, so the last page never hands out a dead cursor.
	items = make([]T, 0, limit+1)
	if err := q.Order("created_at DESC, id DESC").Limit(limit + 1).Find(&items).Error; err != nil {
		return nil, "", db.Translate(err)
	}
	if len(items) > limit {
		items = items[:limit]
		next = encodeCursor(key(items[limit-1]))
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
		return time.Time{}, uuid.UUID{}, fmt.Errorf("decode cursor: %w", ErrBadCursor)
	}
	id, _ := uuid.FromBytes(b[8:]) // cannot fail: exactly 16 bytes
	return time.UnixMicro(int64(binary.BigEndian.Uint64(b[:8]))).UTC(), id, nil
}
