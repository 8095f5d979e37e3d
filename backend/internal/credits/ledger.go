package credits

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Grant adds g.Amount credits to a new bucket for g.Key. A repeated key returns the original grant with
// created=false and changes nothing.
func (s *Service) Grant(ctx context.Context, g GrantSpec) (Movement, bool, error) {
	if err := s.validGrant(&g); err != nil {
		return Movement{}, false, wrap("grant credits", err)
	}
	var m Movement
	var created bool
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		m, created, err = s.grantTx(tx, g, KindGrant)
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("grant credits", err)
	}
	return m, created, nil
}

// grantTx writes a positive movement with its bucket under the user's lock, or returns the existing one.
func (s *Service) grantTx(tx *gorm.DB, g GrantSpec, kind string) (Movement, bool, error) {
	now := s.now()
	if _, err := credit(tx, g.UserID, g.Amount, g.ExpiresAt, now); err != nil {
		return Movement{}, false, err
	}
	m, ok, err := grantBucket(tx, g, kind, now)
	if err != nil || ok {
		return m, ok, err
	}
	existing, err := mustFind(tx, g.UserID, g.Key, kind)
	return existing, false, err
}

// GrantLater is Grant for a caller that needs no result: the grant is written, or it is a no-op if the
// key was granted before. In a db.Pipelined transaction both of its statements ride with the next
// statement or the COMMIT (db.ExecLater), so a failure (the user is gone) fails the transaction there.
// Pipelining keeps their order and their snapshots: the second still runs after the first holds the lock.
func (s *Service) GrantLater(ctx context.Context, g GrantSpec) error {
	if err := s.validGrant(&g); err != nil {
		return wrap("grant credits", err)
	}
	now := s.now()
	if err := db.ExecLater(ctx, s.db, creditSQL, g.UserID, g.Amount, g.ExpiresAt, now); err != nil {
		return wrap("grant credits", translate(s.db, err))
	}
	if err := db.ExecLater(ctx, s.db, grantSQL,
		g.UserID, g.Amount, KindGrant, g.Key, g.Reason, now, g.Category, g.Priority, g.ExpiresAt, g.Source); err != nil {
		return wrap("grant credits", translate(s.db, err))
	}
	return nil
}

// Granted sums the user's grants whose key starts with keyPrefix (a caller's family of keys, such as
// every grant of one subscription month). Bound to a caller's transaction (WithTx) it reads that
// transaction's view; the caller serialises the read with its following Grant (billing holds the
// subscription row's lock).
func (s *Service) Granted(ctx context.Context, userID uuid.UUID, keyPrefix string) (int, error) {
	if err := validJobID(keyPrefix); err != nil {
		return 0, wrap("granted credits", err)
	}
	var n int
	// starts_with, not LIKE: keys carry "_" (Paddle's sub_...), a LIKE wildcard. The partial index on the
	// user's grants keeps the read to those, however many deducts the user has.
	err := s.db.WithContext(ctx).Raw(`SELECT COALESCE(SUM(delta), 0) FROM credit_transactions
		WHERE user_id = ? AND kind = 'grant' AND starts_with(job_id, ?)`, userID, keyPrefix).Scan(&n).Error
	if err != nil {
		return 0, wrap("granted credits", translate(s.db, err))
	}
	return n, nil
}

// Charge takes amount credits for key, for good: no orphan deadline, nothing refunds it later. It is the
// call for work that runs inside the caller's own transaction (WithTx), where the charge and the app's
// own rows commit or roll back together. ErrInsufficient when the balance does not cover it (nothing is
// written); a repeated key returns the original charge with created=false, or ErrJobConflict when it
// named another amount. It returns the balance after the charge.
func (s *Service) Charge(ctx context.Context, userID uuid.UUID, amount int, key, reason string) (m Movement, bal int, created bool, err error) {
	if err := validate(amount, key, reason); err != nil {
		return Movement{}, 0, false, wrap("charge credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		m, bal, created, err = s.take(tx, draft{userID: userID, amount: amount, kind: KindCharge, jobID: key, reason: reason}, nil, s.now())
		return err
	})
	if err != nil {
		return Movement{}, 0, false, wrap("charge credits", err)
	}
	return m, bal, created, nil
}

// take records a negative movement the balance must cover: the balance row's conditional update (the
// lock and the check in one statement), then the movement and its burn. A repeated key returns the
// existing movement with created=false (the caller compares it), even if the balance is now too low. An
// expiry that is due is written off first, so expired credits are never spent. bal is the balance after.
func (s *Service) take(tx *gorm.DB, d draft, deadline *time.Time, now time.Time) (m Movement, bal int, created bool, err error) {
	bal, ok, err := debit(tx, d.userID, d.amount, now)
	if err != nil {
		return Movement{}, 0, false, err
	}
	if !ok {
		if existing, found, err := find(tx, d.userID, d.jobID, d.kind); err != nil || found {
			if err == nil {
				err = sameAmount(existing, d)
			}
			return existing, 0, false, err
		}
		if bal, ok, err = s.retryAfterExpiry(tx, d, now); err != nil || !ok {
			if err == nil {
				err = unlessNoUser(tx, d.userID, ErrInsufficient)
			}
			return Movement{}, 0, false, err
		}
	}
	if m, ok, err = burn(tx, d, deadline, false, now); err != nil || ok {
		return m, bal, ok, err
	}
	existing, err := mustFind(tx, d.userID, d.jobID, d.kind)
	if err == nil {
		err = sameAmount(existing, d)
	}
	return existing, 0, false, err
}

// sameAmount is ErrJobConflict when a repeated key named another amount than its movement.
func sameAmount(existing Movement, d draft) error {
	if existing.Delta != -d.amount {
		return ErrJobConflict
	}
	return nil
}

// unlessNoUser is err, or db.ErrNotFound for a user that does not exist (who has no balance row either,
// so the ledger cannot tell without asking): only refusals pay for the extra read.
func unlessNoUser(tx *gorm.DB, userID uuid.UUID, err error) error {
	var exists bool
	if qerr := db.QueryRow(tx.Statement.Context, tx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1)`, []any{userID}, &exists); qerr != nil {
		return translate(tx, qerr)
	}
	if !exists {
		return fmt.Errorf("user %s: %w", userID, db.ErrNotFound)
	}
	return err
}

// retryAfterExpiry is the slow path of a refused debit: under the lock, it writes off what is due, if
// anything, and tries the debit again. The refusal may have been for an expiry that the lock's previous
// holder (the expiry job, another spend of the user) wrote off while this one waited for the lock: then
// nothing is due any more, and the balance alone decides.
func (s *Service) retryAfterExpiry(tx *gorm.DB, d draft, now time.Time) (int, bool, error) {
	st, err := lockBalance(tx, d.userID)
	switch {
	case err != nil || !st.exists:
		return 0, false, err
	case st.due(now):
		if err := expireDueOf(tx, d.userID, now); err != nil {
			return 0, false, err
		}
	case st.balance < d.amount:
		return 0, false, nil // nothing due and too little: the refusal stands without another statement
	}
	return debit(tx, d.userID, d.amount, now)
}

// validGrant checks g and fills its defaults.
func (s *Service) validGrant(g *GrantSpec) error {
	if err := validate(g.Amount, g.Key, g.Reason); err != nil {
		return err
	}
	if g.Category == "" {
		g.Category = CategoryPromotional
	}
	if g.Priority == 0 {
		g.Priority = DefaultPriority
	}
	switch {
	case !slices.Contains(Categories, g.Category):
		return grantError("category", "category must be one of allowance, purchased, promotional")
	case g.Priority < MinPriority || g.Priority > MaxPriority:
		return grantError("priority", "priority must be 1-100")
	case len(g.Source) > MaxJobIDLen:
		return grantError("source", "source is longer than 128 characters")
	}
	if g.ExpiresAt != nil {
		t := g.ExpiresAt.UTC().Truncate(time.Microsecond)
		g.ExpiresAt = &t
	}
	return nil
}

// Categories are the bucket categories a grant may name.
var Categories = []string{CategoryAllowance, CategoryPurchased, CategoryPromotional}

// GrantError says what is wrong with a grant, and in which field; errors.Is(err, ErrInvalidGrant) holds.
type GrantError struct{ Field, Reason string }

func grantError(field, reason string) error { return &GrantError{Field: field, Reason: reason} }

// Error is the reason.
func (e *GrantError) Error() string { return "invalid grant: " + e.Reason }

// FieldNames names the offending field, for the API's error message.
func (e *GrantError) FieldNames() []string { return []string{e.Field} }

// Unwrap makes errors.Is see ErrInvalidGrant.
func (e *GrantError) Unwrap() error { return ErrInvalidGrant }
