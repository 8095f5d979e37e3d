package account

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Broadcast audiences and the send-time recipient check. The broadcast package decides what to send; who
// may receive it is read here, from the users table this package owns.

// Audience selects the users a broadcast goes to: live users (not soft-deleted) with a verified address, of one
// tier when Tier is set, and only those who gave marketing consent when Consent is set.
type Audience struct {
	Tier    string
	Consent bool
}

// AudiencePageTx returns up to limit ids of a's users greater than after, in id order: a keyset over the
// primary key, so a dispatcher pages through any number of users in bounded statements and resumes from
// the last id it committed.
func AudiencePageTx(ctx context.Context, tx *gorm.DB, a Audience, after uuid.UUID, limit int) ([]uuid.UUID, error) {
	q := tx.WithContext(ctx).Table("users").Select("id").
		Where("deleted_at IS NULL AND "+mailAddressSQL+" <> '' AND id > ?", after)
	if a.Tier != "" {
		q = q.Where("current_tier = ?", a.Tier)
	}
	if a.Consent {
		q = q.Where("marketing_consent_given")
	}
	var ids []uuid.UUID
	rows, err := q.Order("id").Limit(limit).Rows()
	if err != nil {
		return nil, fmt.Errorf("audience page: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("audience page: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audience page: %w", err)
	}
	return ids, nil
}

// Reasons a user is not mailed at send time (RecipientTx).
const (
	SkipDeleted      = "deleted"      // soft-deleted or erased
	SkipNoAddress    = "no_address"   // no verified address
	SkipNoConsent    = "no_consent"   // marketing consent never given (or withdrawn through the API)
	SkipUnsubscribed = "unsubscribed" // consent withdrawn through an unsubscribe link
)

// Recipient is a user as a send sees them right before mailing: the address, or why not to mail them.
type Recipient struct {
	Email string
	// Skip is one of the Skip* reasons; "" when the user may be mailed.
	Skip string
}

// RecipientTx reads the user as they are now, so a consent withdrawn, an unsubscribe or a deletion between
// queueing and sending is honoured: with needConsent (marketing mail) only a user whose marketing consent
// is given may be mailed. Every mail requires a live user with a verified address.
func RecipientTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, needConsent bool) (Recipient, error) {
	var rows []struct {
		Email                  string
		Deleted                bool
		MarketingConsentGiven  bool
		MarketingConsentSource *string
	}
	if err := tx.WithContext(ctx).Raw(`SELECT `+mailAddressSQL+` AS email, deleted_at IS NOT NULL AS deleted, marketing_consent_given,
		marketing_consent_source FROM users WHERE id = ?`, userID).Scan(&rows).Error; err != nil {
		return Recipient{}, fmt.Errorf("recipient: %w", err)
	}
	switch {
	case len(rows) == 0 || rows[0].Deleted:
		return Recipient{Skip: SkipDeleted}, nil
	case rows[0].Email == "":
		return Recipient{Skip: SkipNoAddress}, nil
	case needConsent && !rows[0].MarketingConsentGiven:
		if src := rows[0].MarketingConsentSource; src != nil && *src == ConsentSourceUnsubscribe {
			return Recipient{Skip: SkipUnsubscribed}, nil
		}
		return Recipient{Skip: SkipNoConsent}, nil
	}
	return Recipient{Email: rows[0].Email}, nil
}
