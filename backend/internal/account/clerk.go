package account

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Clerk event types we act on; every other type is archived as ignored.
const (
	EventUserCreated = "user.created"
	EventUserUpdated = "user.updated"
	EventUserDeleted = "user.deleted"
)

// ClerkHandlers is the handler table the webhook pipeline dispatches Clerk events to.
func (s *Service) ClerkHandlers() map[string]webhook.Handler {
	return map[string]webhook.Handler{
		EventUserCreated: s.onUserCreated,
		EventUserUpdated: s.onUserUpdated,
		EventUserDeleted: s.onUserDeleted,
	}
}

// clerkEvent is the part of Clerk's envelope we read. timestamp is in milliseconds.
type clerkEvent struct {
	Timestamp int64           `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

type clerkUser struct {
	ID                    string  `json:"id"`
	PrimaryEmailAddressID *string `json:"primary_email_address_id"`
	EmailAddresses        []struct {
		ID           string `json:"id"`
		EmailAddress string `json:"email_address"`
		Verification *struct {
			Status string `json:"status"`
		} `json:"verification"`
	} `json:"email_addresses"`
	UpdatedAt      int64 `json:"updated_at"`
	UnsafeMetadata struct {
		MarketingConsent bool `json:"marketing_consent"`
	} `json:"unsafe_metadata"`
}

// errNoUserID is a user event without a user: no retry heals it.
var errNoUserID = fmt.Errorf("clerk event has no data.id: %w", webhook.ErrPermanent)

// snapshot is a user state from Clerk and the time it describes. email is the verified primary address,
// "" when the primary is missing or unverified.
type snapshot struct {
	clerkID string
	email   string
	at      time.Time
	consent bool
}

func parseUser(payload []byte) (snapshot, error) {
	var ev clerkEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return snapshot{}, webhook.Permanent(fmt.Errorf("parse clerk event: %w", err))
	}
	var u clerkUser
	if err := json.Unmarshal(ev.Data, &u); err != nil {
		return snapshot{}, webhook.Permanent(fmt.Errorf("parse clerk user: %w", err))
	}
	if u.ID == "" {
		return snapshot{}, errNoUserID
	}
	// The user object's updated_at orders snapshots of the same user; the envelope timestamp is the
	// fallback for payloads without it.
	ms := u.UpdatedAt
	if ms == 0 {
		ms = ev.Timestamp
	}
	return snapshot{clerkID: u.ID, email: primaryEmail(u), at: time.UnixMilli(ms).UTC(),
		consent: u.UnsafeMetadata.MarketingConsent}, nil
}

// primaryEmail is the address whose id is primary_email_address_id, if Clerk verified it; "" otherwise.
// Never "the first listed one": anybody can add an address to their account, and an unverified one must
// not become who we think they are (the admin list and the Paddle customer binding compare it).
func primaryEmail(u clerkUser) string {
	for _, e := range u.EmailAddresses {
		if u.PrimaryEmailAddressID != nil && e.ID == *u.PrimaryEmailAddressID {
			if e.Verification == nil || e.Verification.Status != "verified" {
				return ""
			}
			return email.Fold(e.EmailAddress)
		}
	}
	return ""
}

// onUserCreated upserts the user, records the sign-up's marketing consent, audits, and the first time a
// user.created is processed for the user runs the sign-up hooks (signup.go) in the same transaction: the
// signup grant, the welcome email and whatever the composition root added. A user first seen through
// user.updated or a session has not signed up yet, so its user.created still runs them, once.
func (s *Service) onUserCreated(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	snap, err := parseUser(ev.Payload)
	if err != nil {
		return err
	}
	u, err := s.upsertUser(ctx, tx, snap, true)
	if err != nil || u.deleted || u.erased {
		return err // a deleted or erased user is never resurrected by a late event
	}
	if snap.consent {
		if err := recordSignupConsent(ctx, tx, u.id); err != nil {
			return err
		}
	}
	if u.signedUp {
		// The hooks see the verified address stored for the user, which a newer user.updated may have set.
		if err := s.runSignupHooks(ctx, tx, NewUser{ID: u.id, ClerkUserID: snap.clerkID, Email: u.email, EventID: ev.ID}); err != nil {
			return err
		}
	}
	return audit.Write(ctx, tx, audit.Entry{
		Actor: audit.ActorClerk, Action: EventUserCreated, UserID: &u.id,
		ResourceType: "user", ResourceID: snap.clerkID,
		Details: map[string]any{"event_id": ev.ID, "signup_hooks_ran": u.signedUp},
	})
}

// onUserUpdated syncs the email from a snapshot newer than the one applied; an unknown user is created.
func (s *Service) onUserUpdated(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	snap, err := parseUser(ev.Payload)
	if err != nil {
		return err
	}
	_, err = s.upsertUser(ctx, tx, snap, false)
	return err
}

// onUserDeleted soft-deletes the user; for a user we never saw it leaves a deleted row, so a user.created
// delivered late cannot bring the account back. An erased user stays erased: no row at all.
func (s *Service) onUserDeleted(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	var e clerkEvent
	var d struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(ev.Payload, &e); err != nil {
		return webhook.Permanent(fmt.Errorf("parse clerk event: %w", err))
	}
	if err := json.Unmarshal(e.Data, &d); err != nil || d.ID == "" {
		return errNoUserID
	}
	var ids []uuid.UUID
	erased, err := s.erased.guardTx(ctx, tx, d.ID, func() error {
		// deleted_at starts the grace period, a decision: the clock's time, not the database's.
		return tx.WithContext(ctx).Raw(`INSERT INTO users (clerk_user_id, deleted_at) VALUES (?, ?)
			ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE SET deleted_at = EXCLUDED.deleted_at, updated_at = now()
			WHERE users.deleted_at IS NULL
			RETURNING id`, d.ID, s.now()).Scan(&ids).Error
	})
	if err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	if erased || len(ids) == 0 {
		return nil // erased, or already deleted
	}
	if err := s.cancelSubscriptions(ctx, tx, ids[0]); err != nil {
		return err
	}
	return audit.Write(ctx, tx, audit.Entry{
		Actor: audit.ActorClerk, Action: EventUserDeleted, UserID: &ids[0],
		ResourceType: "user", ResourceID: d.ID, Details: map[string]any{"event_id": ev.ID},
	})
}

type upserted struct {
	id      uuid.UUID
	deleted bool
	// erased: the user was hard-deleted; there is no row and nothing was written.
	erased bool
	// signedUp: the caller asked to claim the sign-up and this call marked it done (claimSignup), so the
	// sign-up hooks run now; email is then the verified address stored for the user ("" for none).
	signedUp bool
	email    string
}

// upsertUserSQL applies a snapshot unless the stored state is newer or deleted, and never for an erased
// user: the tombstone check (the first of Erasures' two looks) is in the same statement as the write.
// xmax = 0 tells an inserted row from an updated one.
const upsertUserSQL = `INSERT INTO users (clerk_user_id, email, email_verified, clerk_synced_at)
	SELECT $1::text, $2::text, $2::text <> '', $3::timestamptz
	 WHERE NOT EXISTS (SELECT 1 FROM erased_users WHERE clerk_id_hash = $4::bytea)
	ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE
	   SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
	       clerk_synced_at = EXCLUDED.clerk_synced_at, updated_at = now()
	 WHERE users.deleted_at IS NULL
	   AND (users.clerk_synced_at IS NULL OR users.clerk_synced_at < EXCLUDED.clerk_synced_at)
	RETURNING id, deleted_at IS NOT NULL, xmax = 0`

// claimSignupSQL marks the user's sign-up done if nobody has, and returns the stored address if it is
// verified (mailAddressSQL) with the second look for a tombstone (a later statement than the upsert, so a
// newer snapshot: see Erasures.guardTx). The row lock the upsert took orders concurrent user.created deliveries (different
// event ids for one user): the first sets signup_completed_at, the others wait, re-check and match
// nothing. A row a session or user.updated created first has no mark yet, so its user.created still
// runs the hooks.
const claimSignupSQL = `UPDATE users SET signup_completed_at = now()
	 WHERE clerk_user_id = $1 AND signup_completed_at IS NULL AND deleted_at IS NULL
	RETURNING coalesce(` + mailAddressSQL + `, ''), EXISTS (SELECT 1 FROM erased_users WHERE clerk_id_hash = $2)`

// upsertUser applies snap unless the stored state is newer, deleted or erased, and returns the user either
// way; with claimSignup it also claims the sign-up (upserted.signedUp). Two statements for a new user
// instead of five, in one round trip (the claim names the user by Clerk id, so it needs nothing back from
// the upsert): Erasures' first look rides with the upsert, its second with the claim.
func (s *Service) upsertUser(ctx context.Context, tx *gorm.DB, snap snapshot, claimSignup bool) (upserted, error) {
	h, err := s.erased.hash(snap.clerkID)
	if err != nil {
		return upserted{}, fmt.Errorf("upsert user: %w", err)
	}
	var u upserted
	var inserted, erased bool
	up := &db.Row{SQL: upsertUserSQL, Args: []any{snap.clerkID, snap.email, snap.at, h}, Dest: []any{&u.id, &u.deleted, &inserted}}
	claim := &db.Row{SQL: claimSignupSQL, Args: []any{snap.clerkID, h}, Dest: []any{&u.email, &erased}, NoRow: true}
	if claimSignup {
		// After the upsert, in the same round trip: it claims the row the upsert wrote, or the stored one
		// when the upsert did not apply; a deleted or erased user has nothing to claim.
		claim.NoRow = false
		err = db.QueryRows(ctx, tx, up, claim)
	} else {
		err = db.QueryRows(ctx, tx, up)
	}
	if err == nil && up.NoRow {
		// Nothing written: the stored snapshot is newer, the user is deleted, or erased (no row at all).
		err = db.QueryRow(ctx, tx, `SELECT id, deleted_at IS NOT NULL FROM users WHERE clerk_user_id = $1`,
			[]any{snap.clerkID}, &u.id, &u.deleted)
		if errors.Is(err, sql.ErrNoRows) {
			return s.noRow(ctx, tx, snap.clerkID)
		}
	}
	if err != nil {
		return upserted{}, fmt.Errorf("upsert user: %w", err)
	}
	if u.deleted {
		return u, nil
	}
	secondLook := inserted // an update found a live row, which an erasure would have had to wait for
	if !claim.NoRow {
		u.signedUp, secondLook = true, false
		if erased {
			return upserted{}, fmt.Errorf("user erased while being written: %w", ErrErased)
		}
	}
	if secondLook {
		switch again, err := s.erased.erasedTx(ctx, tx, snap.clerkID); {
		case err != nil:
			return upserted{}, err
		case again:
			return upserted{}, fmt.Errorf("user erased while being written: %w", ErrErased)
		}
	}
	return u, nil
}

// noRow explains an upsert that wrote nothing for a user that has no row: the tombstone kept the insert
// out, or a hard delete committed between the two statements (and left its tombstone).
func (s *Service) noRow(ctx context.Context, tx *gorm.DB, clerkID string) (upserted, error) {
	erased, err := s.erased.erasedTx(ctx, tx, clerkID)
	switch {
	case err != nil:
		return upserted{}, err
	case !erased:
		return upserted{}, fmt.Errorf("upsert user %s: nothing written and no row stored", clerkID)
	}
	return upserted{erased: true}, nil
}

func recordSignupConsent(ctx context.Context, tx *gorm.DB, id uuid.UUID) error {
	err := tx.WithContext(ctx).Exec(`UPDATE users SET marketing_consent_given = true, marketing_consent_at = now(),
		marketing_consent_source = 'signup' WHERE id = ? AND marketing_consent_at IS NULL`, id).Error
	if err != nil {
		return fmt.Errorf("record signup consent: %w", err)
	}
	return nil
}
