package credits

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// Audit actions of an operator's adjustments.
const (
	ActionGranted   = "credits.granted"
	ActionCorrected = "credits.corrected"
)

// GrantBy is an operator's grant (a promotional bucket unless g says otherwise), audited once: the same
// key again grants and audits nothing. a is the operator; g.UserID the user credited.
func (s *Service) GrantBy(ctx context.Context, a audit.Actor, g GrantSpec) (m Movement, bal int, created bool, err error) {
	if err := s.validGrant(&g); err != nil {
		return Movement{}, 0, false, wrap("grant credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		if m, created, err = s.grantTx(tx, g, KindGrant); err != nil {
			return err
		}
		if created {
			details := map[string]any{"movement_id": m.ID, "amount": g.Amount, "category": g.Category, "key": g.Key,
				"reason": g.Reason}
			if g.ExpiresAt != nil {
				details["expires_at"] = g.ExpiresAt.Format(time.RFC3339)
			}
			if err := audit.Write(ctx, tx, operatorEntry(a, ActionGranted, g.UserID, details)); err != nil {
				return err
			}
		}
		bal, err = available(tx, g.UserID, s.now())
		return err
	})
	if err != nil {
		return Movement{}, 0, false, wrap("grant credits", err)
	}
	return m, bal, created, nil
}

// CorrectBy takes amount credits from the user for good (a correction movement, burned like a spend),
// audited once per key. It never takes the balance below zero: ErrInsufficient, and nothing is written.
func (s *Service) CorrectBy(ctx context.Context, a audit.Actor, userID uuid.UUID, amount int, key, reason string) (m Movement, bal int, created bool, err error) {
	if err := validate(amount, key, reason); err != nil {
		return Movement{}, 0, false, wrap("correct credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		now := s.now()
		m, bal, created, err = s.take(tx, draft{userID: userID, amount: amount, kind: KindCorrection, jobID: key, reason: reason}, nil, now)
		if err != nil {
			return err
		}
		if !created {
			bal, err = available(tx, userID, now)
			return err
		}
		return audit.Write(ctx, tx, operatorEntry(a, ActionCorrected, userID,
			map[string]any{"movement_id": m.ID, "amount": amount, "key": key, "reason": reason}))
	})
	if err != nil {
		return Movement{}, 0, false, wrap("correct credits", err)
	}
	return m, bal, created, nil
}

// operatorEntry is the audit row of an operator's adjustment: the operator acted, on the user's credits
// (the row's user is the one credited, so the user's own trail and export show it).
func operatorEntry(a audit.Actor, action string, userID uuid.UUID, details map[string]any) audit.Entry {
	return audit.Entry{Actor: a.Name(), Action: action, UserID: &userID, ResourceType: "credits",
		ResourceID: userID.String(), Details: details, IP: a.IP}
}
