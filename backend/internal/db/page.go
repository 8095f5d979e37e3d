package db

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Page size bounds of every list.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// Page selects one page of a list, newest first. Cursor is opaque: "" for the first page, then the next
// cursor of the previous page. Limit is clamped by PageSize.
type Page struct {
	Limit  int
	Cursor string
}

// ErrBadCursor means a list cursor was not one a list handed out.
var ErrBadCursor = errors.New("invalid cursor")

// cursorLen is 8 bytes of created_at in Unix microseconds (Postgres' own precision, so the round trip is
// exact) plus the 16 bytes of the row id.
const cursorLen = 8 + 16

// PageSize clamps a requested page size to 1..MaxPageSize; 0 means DefaultPageSize.
func PageSize(limit int) int {
	switch {
	case limit == 0:
		return DefaultPageSize
	case limit < 1:
		return 1
	case limit > MaxPageSize:
		return MaxPageSize
	}
	return limit
}

// Keyset runs q (one table with created_at and id columns, filters applied) newest first with keyset
// pagination on (created_at, id): unlike OFFSET, rows inserted while a client pages cannot shift a page,
// so nothing is skipped or shown twice. cursor is "" for the first page, then the previous page's next;
// key reads a row's (created_at, id). next is "" on the last page.
func Keyset[T any](q *gorm.DB, limit int, cursor string, key func(T) (time.Time, uuid.UUID)) (items []T, next string, err error) {
	limit = PageSize(limit)
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
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
		return nil, "", Translate(err)
	}
	if len(items) > limit {
		items = items[:limit]
		next = encodeCursor(key(items[limit-1]))
	}
	return items, next, nil
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

// Walk reads every row of a query oldest first, in keyset pages of size rows on (created_at, id), and hands
// each page to each before it reads the next: a caller holds one page at a time, however many rows there
// are (the GDPR export streams a user's whole history this way). query builds the query afresh, filters
// applied, for every page; each page continues after the last row of the one before, so rows inserted
// meanwhile cannot shift a page.
func Walk[T any](query func() *gorm.DB, size int, key func(T) (time.Time, uuid.UUID), each func([]T) error) error {
	size = max(size, 1)
	var after *[2]any
	for {
		q := query()
		if after != nil {
			q = q.Where("(created_at, id) > (?, ?)", after[0], after[1])
		}
		page := make([]T, 0, size)
		if err := q.Order("created_at, id").Limit(size).Find(&page).Error; err != nil {
			return Translate(err)
		}
		if len(page) > 0 {
			if err := each(page); err != nil {
				return err
			}
			at, id := key(page[len(page)-1])
			after = &[2]any{at, id}
		}
		if len(page) < size {
			return nil
		}
	}
}
