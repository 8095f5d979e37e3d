package account

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// ErrErased means the account was erased for good (the hard delete after the grace period). It wraps
// ErrDeleted, so the API answers 410 account_deleted for it too; unlike a soft delete it can never be
// restored.
var ErrErased = fmt.Errorf("%w: erased", ErrDeleted)

// errNoErasureKey fails closed: without a key no tombstone can be checked, so no user may be created.
var errNoErasureKey = errors.New("erasure tombstone key is not configured")

// erasureDomain separates this HMAC from any other use of the key.
const erasureDomain = "erased_users|v1|"

// Erasures remembers erased users without remembering who they were. The hard delete leaves a tombstone in
// erased_users: HMAC-SHA256(ERASURE_TOMBSTONE_KEY, "erased_users|v1|" + clerk_user_id), no personal data.
// Every path that could create a user (Clerk's user events, a session's lazy user, billing's signed
// checkout data through EnsureUserTx) looks there first, so a very late or replayed event cannot bring an
// erased user back. The key must never change: tombstones written under another key no longer match.
//
// One value is shared by account and billing (app builds it once), so both hash with the same key.
type Erasures struct{ key []byte }

// NewErasures builds the tombstone keeper from ERASURE_TOMBSTONE_KEY.
func NewErasures(key string) Erasures { return Erasures{key: []byte(key)} }

func (e Erasures) hash(clerkUserID string) ([]byte, error) {
	if len(e.key) == 0 {
		return nil, errNoErasureKey
	}
	m := hmac.New(sha256.New, e.key)
	m.Write([]byte(erasureDomain + clerkUserID))
	return m.Sum(nil), nil
}

// standIn is what stands for an erased user's Clerk id in the records that outlive them (audit rows):
// "erased:" and the hex of their tombstone hash.
func (e Erasures) standIn(clerkUserID string) (string, error) {
	h, err := e.hash(clerkUserID)
	if err != nil {
		return "", err
	}
	return "erased:" + hex.EncodeToString(h), nil
}

// recordTx writes the tombstone of clerkUserID; a second one for the same id is a no-op.
func (e Erasures) recordTx(ctx context.Context, tx *gorm.DB, clerkUserID string) error {
	h, err := e.hash(clerkUserID)
	if err != nil {
		return err
	}
	// SELECT, not VALUES (?): GORM spreads a []byte written right after "(" into one parameter per byte.
	return tx.WithContext(ctx).Exec(`INSERT INTO erased_users (clerk_id_hash) SELECT ?::bytea ON CONFLICT DO NOTHING`, h).Error
}

// erasedTx reports whether clerkUserID has a tombstone.
func (e Erasures) erasedTx(ctx context.Context, tx *gorm.DB, clerkUserID string) (bool, error) {
	h, err := e.hash(clerkUserID)
	if err != nil {
		return false, err
	}
	var erased bool
	err = tx.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM erased_users WHERE clerk_id_hash = ?)`, h).Scan(&erased).Error
	if err != nil {
		return false, fmt.Errorf("check erasure: %w", err)
	}
	return erased, nil
}

// guardTx runs write, an upsert of clerkUserID's row, unless the user is erased (erased reports it, and
// nothing is written). It looks twice. Before, the common case: a late event for a user erased long ago.
// After, the race: a hard delete committing while the upsert waited on the row's lock leaves no row to
// conflict with, so the upsert inserted a new one; the tombstone, committed with the delete, is visible to
// the second look (a later statement, a newer snapshot), and ErrErased rolls the caller's transaction
// back. A webhook retried after that stops at the first look.
func (e Erasures) guardTx(ctx context.Context, tx *gorm.DB, clerkUserID string, write func() error) (erased bool, err error) {
	if erased, err = e.erasedTx(ctx, tx, clerkUserID); err != nil || erased {
		return erased, err
	}
	if err := write(); err != nil {
		return false, err
	}
	switch again, err := e.erasedTx(ctx, tx, clerkUserID); {
	case err != nil:
		return false, err
	case again:
		return false, fmt.Errorf("user erased while being written: %w", ErrErased)
	}
	return false, nil
}
