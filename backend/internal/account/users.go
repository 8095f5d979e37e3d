package account

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// The users table belongs to this package: other packages create users and change their tier only through
// the functions below, each on the caller's transaction (tx may also be a pool), so one transaction can
// span a webhook claim, a subscription row and the user it binds.

// EnsureUser returns the user for an authenticated Clerk id, creating the row on first sight: a user can
// call the API before their user.created webhook arrives (Svix retries for a day). The lazy row gets no
// signup credits and no welcome email; user.created still brings both, once. verified says whether the
// session vouches for email (its email_verified claim). An erased user's session (their Clerk identity
// outlives our erasure) answers ErrErased, which is ErrDeleted: 410, for good.
func (s *Service) EnsureUser(ctx context.Context, clerkUserID, email string, verified bool) (models.User, error) {
	u, err := EnsureUserTx(ctx, s.db, s.erased, clerkUserID, email, verified)
	if err != nil {
		return models.User{}, err
	}
	if u.DeletedAt != nil {
		return u, ErrDeleted
	}
	return u, nil
}

// LiveUser returns the user with internal id id for a trusted caller acting on their behalf (a worker
// spending for a user): db.ErrNotFound when there is none, ErrDeleted when the account is soft-deleted.
func (s *Service) LiveUser(ctx context.Context, id uuid.UUID) (models.User, error) {
	u, err := UserTx(ctx, s.db, id)
	if err != nil {
		return models.User{}, err
	}
	if u.DeletedAt != nil {
		return models.User{}, ErrDeleted
	}
	return u, nil
}

// EnsureUserTx returns the user with clerkUserID, creating it when there is none. users.email only ever
// holds a verified address: email is stored when verified vouches for it, and then also fills in a row
// that has no verified address yet (one created before the address was known, or stored before
// email_verified existed). It never replaces a verified address: Clerk's snapshots own that. A soft-deleted
// user is returned as it is (DeletedAt set): whether that matters is the caller's policy. An erased user
// is never created again: ErrErased, which fails a caller's webhook delivery (billing's signed checkout
// data for an erased user is a replay from before the erasure; the archive keeps it as failed).
func EnsureUserTx(ctx context.Context, tx *gorm.DB, erased Erasures, clerkUserID, addr string, verified bool) (models.User, error) {
	addr = email.Fold(addr)
	if addr == "" || !verified {
		addr, verified = "", false
	}
	var u models.User
	q := tx.WithContext(ctx)
	// Read first: every authenticated request passes here, and an upsert would write a row version each time.
	res := q.Where("clerk_user_id = ?", clerkUserID).Limit(1).Find(&u)
	switch {
	case res.Error == nil && res.RowsAffected == 0:
		// No row: a user not seen yet, or an erased one. A hard delete in progress still shows the read its
		// row, and it commits the tombstone with the delete, so when the read finds nothing this later
		// statement sees any tombstone there is.
		switch gone, err := erased.erasedTx(ctx, q, clerkUserID); {
		case err != nil:
			return models.User{}, fmt.Errorf("ensure user: %w", err)
		case gone:
			return models.User{}, fmt.Errorf("ensure user: %w", ErrErased)
		}
		// DO UPDATE rather than DO NOTHING so RETURNING yields the row a concurrent creator just committed.
		res = q.Raw(`INSERT INTO users (clerk_user_id, email, email_verified) VALUES (?, ?, ?)
			ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE SET clerk_user_id = EXCLUDED.clerk_user_id
			RETURNING *`, clerkUserID, addr, verified).Scan(&u)
	case res.Error == nil && verified && !u.EmailVerified:
		var rows []models.User
		res = q.Raw(`UPDATE users SET email = ?, email_verified = true, updated_at = now()
			WHERE id = ? AND NOT email_verified RETURNING *`, addr, u.ID).Scan(&rows)
		if len(rows) == 1 {
			u = rows[0]
		}
	}
	if res.Error != nil {
		return models.User{}, fmt.Errorf("ensure user %s: %w", clerkUserID, res.Error)
	}
	return u, nil
}

// SetTierTx writes the user's current tier (server-controlled: only billing's webhook handlers and jobs
// call it). It reports whether the tier changed.
func SetTierTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, tier string) (bool, error) {
	res := tx.WithContext(ctx).Exec(`UPDATE users SET current_tier = ?, updated_at = now() WHERE id = ?`, tier, userID)
	if res.Error != nil {
		return false, fmt.Errorf("set tier: %w", res.Error)
	}
	return res.RowsAffected > 0, nil
}

// DowngradeTx moves a live user to tier unless they are on it already, and reports whether it did. A
// soft-deleted user is left alone (deleted reports it), so a restore finds the downgrade still to do.
// Concurrent calls downgrade once: the second waits on the row lock, then no longer matches.
func DowngradeTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, tier string) (changed, deleted bool, err error) {
	var rows []struct {
		Changed bool
		Deleted bool
	}
	err = tx.WithContext(ctx).Raw(`WITH d AS (
		UPDATE users SET current_tier = ?, updated_at = now()
		 WHERE id = ? AND current_tier <> ? AND deleted_at IS NULL RETURNING id)
		SELECT EXISTS (SELECT 1 FROM d) AS changed,
		       EXISTS (SELECT 1 FROM users WHERE id = ? AND deleted_at IS NOT NULL) AS deleted`,
		tier, userID, tier, userID).Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return false, false, fmt.Errorf("downgrade user %s: %w", userID, err)
	}
	return rows[0].Changed, rows[0].Deleted, nil
}

// mailAddressSQL is the one definition of the address we may mail a user at: their address only if it is
// verified, else empty. Rows stored before migration 00009 kept their address but start unverified, so the
// address alone says nothing. Every read of an address to send to (EmailTx, the deletion confirmation, the
// welcome mail's sign-up claim, broadcast audiences and recipients) selects this expression.
const mailAddressSQL = `CASE WHEN email_verified THEN email ELSE '' END`

// EmailTx returns the address to mail a live user at: "" when the user is deleted, has no address, or has
// one Clerk has not verified.
func EmailTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) (string, error) {
	var addrs []string
	if err := tx.WithContext(ctx).Raw(`SELECT `+mailAddressSQL+` FROM users WHERE id = ? AND deleted_at IS NULL`, userID).
		Scan(&addrs).Error; err != nil {
		return "", fmt.Errorf("user email: %w", err)
	}
	if len(addrs) == 0 {
		return "", nil
	}
	return addrs[0], nil
}

// ErrCustomerTaken means the Paddle customer is already bound to another user.
var ErrCustomerTaken = errors.New("paddle customer is bound to another user")

// BindPaddleCustomerTx binds customerID to the user unless the user is bound already, and returns the
// user's binding (the existing one wins: a binding never moves). Only billing calls it, with a customer
// its own API call created or found for the user's verified email.
func BindPaddleCustomerTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, customerID string) (string, error) {
	q := tx.WithContext(ctx)
	// The NOT EXISTS spares the common refusal a failed statement; the unique constraint still decides races.
	err := q.Exec(`UPDATE users SET paddle_customer_id = ?, updated_at = now()
		WHERE id = ? AND paddle_customer_id IS NULL
		  AND NOT EXISTS (SELECT 1 FROM users WHERE paddle_customer_id = ?)`, customerID, userID, customerID).Error
	if errors.Is(db.Translate(err), db.ErrDuplicate) {
		return "", ErrCustomerTaken
	}
	if err != nil {
		return "", fmt.Errorf("bind paddle customer: %w", err)
	}
	bound, err := PaddleCustomerTx(ctx, tx, userID)
	if err != nil || bound == "" {
		return "", errors.Join(err, ErrCustomerTaken)
	}
	return bound, nil
}

// UserByPaddleCustomerTx returns the user bound to customerID, if any.
func UserByPaddleCustomerTx(ctx context.Context, tx *gorm.DB, customerID string) (uuid.UUID, bool, error) {
	var ids []uuid.UUID
	if err := tx.WithContext(ctx).Raw(`SELECT id FROM users WHERE paddle_customer_id = ?`, customerID).
		Scan(&ids).Error; err != nil {
		return uuid.Nil, false, fmt.Errorf("user of paddle customer: %w", err)
	}
	if len(ids) == 0 {
		return uuid.Nil, false, nil
	}
	return ids[0], true, nil
}

// PaddleCustomerTx returns the user's bound Paddle customer, "" when there is none.
func PaddleCustomerTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) (string, error) {
	var rows []struct{ PaddleCustomerID *string }
	if err := tx.WithContext(ctx).Raw(`SELECT paddle_customer_id FROM users WHERE id = ?`, userID).Scan(&rows).Error; err != nil {
		return "", fmt.Errorf("paddle customer of user: %w", err)
	}
	if len(rows) == 0 || rows[0].PaddleCustomerID == nil {
		return "", nil
	}
	return *rows[0].PaddleCustomerID, nil
}
