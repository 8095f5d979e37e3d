package account

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
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
	u, err := s.upsertUser(ctx, tx, snap)
	if err != nil || u.deleted || u.erased {
		return err // a deleted or erased user is never resurrected by a late event
	}
	if snap.consent {
		if err := recordSignupConsent(ctx, tx, u.id); err != nil {
			return err
		}
	}
	first, err := claimSignupTx(ctx, tx, u.id)
	if err != nil {
		return err
	}
	if first {
		// The hooks see the verified address stored for the user, which a newer user.updated may have set.
		addr, err := EmailTx(ctx, tx, u.id)
		if err != nil {
			return err
		}
		if err := s.runSignupHooks(ctx, tx, NewUser{ID: u.id, ClerkUserID: snap.clerkID, Email: addr, EventID: ev.ID}); err != nil {
			return err
		}
	}
	return audit.Write(ctx, tx, audit.Entry{
		Actor: audit.ActorClerk, Action: EventUserCreated, UserID: &u.id,
		ResourceType: "user", ResourceID: snap.clerkID,
		Details: map[string]any{"event_id": ev.ID, "signup_hooks_ran": first},
	})
}

// onUserUpdated syncs the email from a snapshot newer than the one applied; an unknown user is created.
func (s *Service) onUserUpdated(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	snap, err := parseUser(ev.Payload)
	if err != nil {
		return err
	}
	_, err = s.upsertUser(ctx, tx, snap)
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
		return tx.WithContext(ctx).Raw(`INSERT INTO users (clerk_user_id, deleted_at) VALUES (?, now())
			ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE SET deleted_at = now(), updated_at = now()
			WHERE users.deleted_at IS NULL
			RETURNING id`, d.ID).Scan(&ids).Error
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
}

// upsertUser applies snap unless the stored state is newer, deleted or erased, and returns the user either
// way.
func (s *Service) upsertUser(ctx context.Context, tx *gorm.DB, snap snapshot) (upserted, error) {
	var row struct {
		ID        uuid.UUID
		DeletedAt *time.Time
	}
	erased, err := s.erased.guardTx(ctx, tx, snap.clerkID, func() error {
		err := tx.WithContext(ctx).Raw(`INSERT INTO users (clerk_user_id, email, email_verified, clerk_synced_at)
			VALUES (?, ?, ? <> '', ?)
			ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE
			   SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
			       clerk_synced_at = EXCLUDED.clerk_synced_at, updated_at = now()
			 WHERE users.deleted_at IS NULL
			   AND (users.clerk_synced_at IS NULL OR users.clerk_synced_at < EXCLUDED.clerk_synced_at)
			RETURNING id, deleted_at`, snap.clerkID, snap.email, snap.email, snap.at).Scan(&row).Error
		if err == nil && row.ID == uuid.Nil {
			// The stored snapshot is newer (or the user is deleted): read it instead of writing.
			err = tx.WithContext(ctx).Raw(`SELECT id, deleted_at FROM users WHERE clerk_user_id = ?`, snap.clerkID).Scan(&row).Error
		}
		return err
	})
	if err != nil {
		return upserted{}, fmt.Errorf("upsert user: %w", err)
	}
	return upserted{id: row.ID, deleted: row.DeletedAt != nil, erased: erased}, nil
}

func recordSignupConsent(ctx context.Context, tx *gorm.DB, id uuid.UUID) error {
	err := tx.WithContext(ctx).Exec(`UPDATE users SET marketing_consent_given = true, marketing_consent_at = now(),
		marketing_consent_source = 'signup' WHERE id = ? AND marketing_consent_at IS NULL`, id).Error
	if err != nil {
		return fmt.Errorf("record signup consent: %w", err)
	}
	return nil
}
