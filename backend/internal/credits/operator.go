package credits

import (
	"context"
	"math"
	"strings"
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
// key again grants and audits nothing, and with another amount is ErrJobConflict. a is the operator;
// g.UserID the user credited.
func (s *Service) GrantBy(ctx context.Context, a audit.Actor, g GrantSpec) (m Movement, bal int, created bool, err error) {
	if err := s.validGrant(&g); err != nil {
		return Movement{}, 0, false, wrap("grant credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		if m, created, err = s.grantTx(tx, g, KindGrant); err != nil {
			return err
		}
		if !created && m.Delta != g.Amount {
			return ErrJobConflict // the repeat wrote nothing: grantSQL undid its balance change
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

// OperatorKeyPrefix starts the ledger key of every operator adjustment (Adjust): the operator's
// idempotency key lives in a namespace of its own, so no key an operator picks can be taken for one the
// ledger writes itself (signup:…, pack:…, rollover:…, expire:…, a subscription month's).
const OperatorKeyPrefix = "operator:"

// OperatorSource is the source of the bucket an operator's grant creates.
const OperatorSource = "operator"

// Bounds of the expiry of an operator's grant. Under a minute is a unit mistake (seconds for minutes);
// over ten years is "never", which is what leaving it out means.
const (
	MinGrantExpiresIn = time.Minute
	MaxGrantExpiresIn = 10 * 365 * 24 * time.Hour
)

// Adjustment is an operator's change of a user's credits: a positive Amount is granted into a new
// bucket, a negative one taken back as a correction.
type Adjustment struct {
	UserID uuid.UUID
	Amount int
	// Key is the operator's idempotency key; the movement's is OperatorKeyPrefix + Key.
	Key    string
	Reason string
	// Category (promotional or purchased; "": promotional), Priority (0: DefaultPriority) and ExpiresIn
	// (0: never) shape a grant's bucket. A correction takes from the buckets in burn order and sets none.
	Category  string
	Priority  int
	ExpiresIn time.Duration
}

// Adjust applies an operator's adjustment once per key, audited once (GrantBy, CorrectBy). One key names
// one adjustment whatever its sign: the same key again returns the original movement with created=false
// and writes nothing, and with another amount is ErrJobConflict. A correction never takes the balance
// below zero (ErrInsufficient, nothing written). bal is the balance after.
func (s *Service) Adjust(ctx context.Context, a audit.Actor, adj Adjustment) (m Movement, bal int, created bool, err error) {
	if err := validAdjustment(adj); err != nil {
		return Movement{}, 0, false, wrap("adjust credits", err)
	}
	key := OperatorKeyPrefix + adj.Key
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		// A grant and a correction of one key are two rows to UNIQUE(user_id, job_id, kind): only the
		// user's lock, taken before looking for the other kind, keeps two of them from both being written.
		st, err := lockBalance(tx, adj.UserID)
		if err != nil {
			return err
		}
		other := KindCorrection
		if adj.Amount < 0 {
			other = KindGrant
		}
		if _, found, err := find(tx, adj.UserID, key, other); err != nil || found {
			if err == nil {
				err = ErrJobConflict
			}
			return err
		}
		bound := s.WithTx(tx)
		if adj.Amount > 0 {
			g := GrantSpec{UserID: adj.UserID, Amount: adj.Amount, Key: key, Reason: adj.Reason, Category: adj.Category,
				Priority: adj.Priority, Source: OperatorSource}
			if adj.ExpiresIn > 0 {
				g.ExpiresAt = new(s.now().Add(adj.ExpiresIn))
			}
			m, bal, created, err = bound.GrantBy(ctx, a, g)
			return err
		}
		// Without a balance row nothing was ever granted, so there is nothing to take; and there was no lock
		// to hold against a first grant committing meanwhile, which this answer is ordered before.
		if !st.exists {
			return unlessNoUser(tx, adj.UserID, ErrInsufficient)
		}
		m, bal, created, err = bound.CorrectBy(ctx, a, adj.UserID, -adj.Amount, key, adj.Reason)
		return err
	})
	if err != nil {
		return Movement{}, 0, false, wrap("adjust credits", err)
	}
	return m, bal, created, nil
}

const errCorrectionBucket = "a correction takes from the buckets in burn order: category, priority and expires_in are a grant's"

// validAdjustment checks what GrantBy and CorrectBy do not: the sign, the reason, the operator's key, and
// which bucket settings an operator may choose.
func validAdjustment(adj Adjustment) error {
	switch {
	case adj.Amount == 0 || adj.Amount < -math.MaxInt32:
		return ErrInvalidAmount
	case strings.TrimSpace(adj.Reason) == "":
		return ErrReasonRequired
	case adj.Key == "":
		return ErrInvalidJobID
	case adj.Amount < 0 && adj.Category != "":
		return grantError("category", errCorrectionBucket)
	case adj.Amount < 0 && adj.Priority != 0:
		return grantError("priority", errCorrectionBucket)
	case adj.Amount < 0 && adj.ExpiresIn != 0:
		return grantError("expires_in", errCorrectionBucket)
	case adj.Category == CategoryAllowance:
		// An allowance belongs to a subscription's month: its rollover and its end at a downgrade go by
		// the subscription, which an operator's bucket has not.
		return grantError("category", "an operator grants promotional or purchased credits")
	case adj.ExpiresIn != 0 && (adj.ExpiresIn < MinGrantExpiresIn || adj.ExpiresIn > MaxGrantExpiresIn):
		return grantError("expires_in", "expires_in must be from 60 seconds to 10 years")
	}
	return nil
}
