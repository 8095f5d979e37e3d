package credits_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// The expiry job writes off what is left of each due bucket once, and nothing else; a balance read before
// it runs already leaves the due credits out, and a spend never takes them.
func TestExpiryWritesOffDueBucketsOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	now := time.Now()
	grant(t, svc, user, 100, "pack", credits.CategoryPurchased, at(now.Add(time.Hour)), 0)
	grant(t, svc, user, 50, "forever", credits.CategoryPromotional, nil, 0)
	_, _, _, err := svc.Charge(ctx, user, 30, "c1", "")
	require.NoError(t, err)
	require.Equal(t, map[string]int{"pack": 70, "forever": 50}, remaining(t, d, user), "the soonest expiry burns first")

	later := svc.At(now.Add(2 * time.Hour))
	n, err := later.Balance(ctx, user)
	require.NoError(t, err)
	require.Equal(t, 50, n, "due credits are not spendable, written off or not")
	_, _, _, err = later.Charge(ctx, user, 60, "c2", "")
	require.ErrorIs(t, err, credits.ErrInsufficient, "the expired 70 cannot pay")
	for range 2 {
		rep, err := later.ExpireDue(ctx, now.Add(2*time.Hour))
		require.NoError(t, err)
		require.LessOrEqual(t, rep.Buckets, 1)
	}
	require.Equal(t, 1, count(t, d, credits.KindExpire), "exactly once per bucket")
	require.Equal(t, map[string]int{"pack": 0, "forever": 50}, remaining(t, d, user))
	require.Equal(t, 50, balance(t, svc, user))
	mustVerify(t, d)
}

// A spend that finds an expiry due writes it off itself (under the same lock) before it spends, so the
// job is never needed for correctness.
func TestSpendWritesOffItsOwnDueBuckets(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	now := time.Now()
	grant(t, svc, user, 10, "soon", credits.CategoryPromotional, at(now.Add(time.Minute)), 0)
	grant(t, svc, user, 10, "late", credits.CategoryPromotional, at(now.Add(time.Hour)), 0)
	later := svc.At(now.Add(2 * time.Minute))
	_, bal, created, err := later.Charge(ctx, user, 4, "c1", "")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 6, bal)
	require.Equal(t, map[string]int{"soon": 0, "late": 6}, remaining(t, d, user))
	require.Equal(t, 1, count(t, d, credits.KindExpire))
	mustVerify(t, d)
}

// Many due buckets over many users: the job takes them in batches until none is left.
func TestExpiryRunsInBatches(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	now := time.Now()
	user := newUser(t, svc, d, 0)
	// 2,500 due buckets: more than two batches.
	require.NoError(t, d.Gorm.Exec(`SELECT 1`).Error)
	for i := range 2500 {
		_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: fmt.Sprintf("g-%d", i),
			ExpiresAt: at(now.Add(time.Minute))})
		require.NoError(t, err)
	}
	rep, err := svc.ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, credits.ExpiryReport{Buckets: 2500, Credits: 2500}, rep)
	require.Equal(t, 0, balance(t, svc, user))
	mustVerify(t, d)
}

// A refund returns credits to the buckets they came from; credits whose bucket has expired meanwhile go
// to a bucket that expires as theirs did, so they are written off, never revived.
func TestRefundReturnsCreditsWhereTheyCameFrom(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	now := time.Now()
	grant(t, svc, user, 5, "soon", credits.CategoryPromotional, at(now.Add(time.Minute)), 0)
	grant(t, svc, user, 10, "forever", credits.CategoryPurchased, nil, 0)
	_, _, err := svc.Deduct(ctx, user, 8, "job-1", "")
	require.NoError(t, err)
	require.Equal(t, map[string]int{"soon": 0, "forever": 7}, remaining(t, d, user))

	later := svc.At(now.Add(2 * time.Minute))
	_, created, err := later.Refund(ctx, user, "job-1", "")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, map[string]int{"soon": 0, "forever": 10, "promotional": 5}, remaining(t, d, user),
		"the 3 back to their bucket; the 5 to a promotional bucket that expired when theirs did")
	n, err := later.Balance(ctx, user)
	require.NoError(t, err)
	require.Equal(t, 10, n, "the revived 5 are already past their expiry")
	_, err = later.ExpireDue(ctx, now.Add(2*time.Minute))
	require.NoError(t, err)
	require.Equal(t, 10, balance(t, later, user))
	mustVerify(t, d)
}

// Rollover at a month boundary: the month's allowance ends there; none carries nothing, a cap carries at
// most that much, and the carry rolls on the same way. Purchased credits are never touched. The carry is
// the same whether the expiry job wrote the month off first or CarryOver did.
func TestCarryOverOfTheAllowance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		max      int
		jobFirst bool
		carried  int
		after    int
	}{
		{"none", 0, false, 0, 1000 + 50},
		{"max 250", 250, false, 250, 1000 + 250 + 50},
		{"max 1000", 1000, false, 600, 1000 + 600 + 50},
		{"max 250, the expiry job first", 250, true, 250, 1000 + 250 + 50},
		// A full refund, a pause or a drop to free ends the allowance before its month does: nothing of it
		// carries into a period paid later.
		{"max 1000, ended early", 1000, false, 0, 1000 + 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, d := setup(t)
			ctx := context.Background()
			user := newUser(t, svc, d, 0)
			m1 := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
			m2 := m1.Add(30 * time.Minute) // the boundary between two (short) months, already passed
			m3 := m2.Add(24 * time.Hour)
			_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1000, Key: "grant:sub_1:m1",
				Category: credits.CategoryAllowance, Source: "sub_1", ExpiresAt: &m2})
			require.NoError(t, err)
			grant(t, svc, user, 50, "pack", credits.CategoryPurchased, nil, 0)
			// 400 spent in month 1 (before its end: the test's clock says so).
			_, _, _, err = svc.At(m1.Add(time.Minute)).Charge(ctx, user, 400, "c1", "")
			require.NoError(t, err)
			if tc.name == "max 1000, ended early" {
				_, err := svc.At(m1.Add(2*time.Minute)).ExpireSource(ctx, user, credits.CategoryAllowance, "sub_1", "subscription period refunded")
				require.NoError(t, err)
			}
			if tc.jobFirst {
				rep, err := svc.ExpireDue(ctx, time.Now())
				require.NoError(t, err)
				require.Equal(t, 600, rep.Credits)
			}
			c := credits.Carry{UserID: user, Source: "sub_1", Boundary: m2, Max: tc.max, Key: "rollover:sub_1:m2", ExpiresAt: &m3}
			carried, err := svc.CarryOver(ctx, c)
			require.NoError(t, err)
			require.Equal(t, tc.carried, carried)
			again, err := svc.CarryOver(ctx, c)
			require.NoError(t, err)
			require.Equal(t, tc.carried, again, "a repeated key carries nothing more")
			if tc.carried > 0 {
				smaller := c
				smaller.Max = 1
				again, err = svc.CarryOver(ctx, smaller)
				require.NoError(t, err)
				require.Equal(t, tc.carried, again, "a repeated key returns what it carried, whatever the cap says now")
			}
			_, _, err = svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1000, Key: "grant:sub_1:m2",
				Category: credits.CategoryAllowance, Source: "sub_1", ExpiresAt: &m3})
			require.NoError(t, err)
			require.Equal(t, tc.after, balance(t, svc, user))
			mustVerify(t, d)
		})
	}
}

// Debt from a recharge is paid from the next credits before any of them is written off.
func TestDebtIsPaidBeforeExpiry(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	a := actorFor(newUser(t, svc, d, 10))
	oldDeduct(t, d, a.UserID, 8, "job-1", time.Hour)
	require.Equal(t, credits.ReconcileResult{Scanned: 1, Refunded: 1}, reconcile(t, svc, 0))
	_, _, _, err := svc.Charge(ctx, a.UserID, 10, "c1", "")
	require.NoError(t, err)
	c, err := svc.CompleteJob(ctx, a, "job-1")
	require.NoError(t, err)
	require.Equal(t, 8, c.Recharged)
	require.Equal(t, -8, balance(t, svc, a.UserID))

	now := time.Now()
	grant(t, svc, a.UserID, 20, "pack", credits.CategoryPurchased, at(now.Add(time.Minute)), 0)
	require.Equal(t, 12, balance(t, svc, a.UserID))
	rep, err := svc.ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, credits.ExpiryReport{Buckets: 1, Credits: 12}, rep, "8 of the pack paid the debt; 12 expired")
	require.Equal(t, 0, balance(t, svc, a.UserID))
	require.Equal(t, 1, count(t, d, credits.KindSettle))
	mustVerify(t, d)
}

// An operator's grant and correction: audited once per key; a correction never goes below zero.
func TestOperatorGrantAndCorrection(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	op := audit.Actor{ClerkUserID: "user_admin", Email: "admin@example.com", Admin: true}
	for range 2 {
		_, bal, _, err := svc.GrantBy(ctx, op, credits.GrantSpec{UserID: user, Amount: 30, Key: "goodwill-1", Reason: "outage"})
		require.NoError(t, err)
		require.Equal(t, 30, bal)
	}
	_, _, _, err := svc.GrantBy(ctx, op, credits.GrantSpec{UserID: user, Amount: 31, Key: "goodwill-1", Reason: "outage"})
	require.ErrorIs(t, err, credits.ErrJobConflict, "the same key with another amount")
	_, _, _, err = svc.CorrectBy(ctx, op, user, 31, "fix-1", "too much")
	require.ErrorIs(t, err, credits.ErrInsufficient)
	_, bal, created, err := svc.CorrectBy(ctx, op, user, 20, "fix-2", "double grant")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 10, bal)
	require.Equal(t, 1, audits(t, d, credits.ActionGranted))
	require.Equal(t, 1, audits(t, d, credits.ActionCorrected))
	_, _, _, err = svc.GrantBy(ctx, op, credits.GrantSpec{UserID: user, Amount: 1, Key: "k", Category: "gift"})
	require.ErrorIs(t, err, credits.ErrInvalidGrant)
	mustVerify(t, d)
}

// verify finds a difference planted behind the ledger's back, and names it.
func TestVerifyFindsAPlantedDifference(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 10)
	mustVerify(t, d)
	require.NoError(t, d.Gorm.Exec(`UPDATE credit_balances SET balance = balance + 1 WHERE user_id = ?`, user).Error)
	require.NoError(t, d.Gorm.Exec(`UPDATE credit_buckets SET remaining = remaining - 1 WHERE user_id = ?`, user).Error)
	rep, err := verify.Run(context.Background(), d.Gorm, credits.Checks(), verify.Scope{UserID: &user})
	require.NoError(t, err)
	var failed []string
	for _, r := range rep.Results {
		if len(r.Violations) > 0 {
			failed = append(failed, r.Check.Name)
		}
	}
	require.Equal(t, []string{"ledger.balance_is_sum_of_movements", "ledger.balance_is_sum_of_buckets",
		"ledger.bucket_is_sum_of_allocations"}, failed)
}

// A batch of the expiry job writes off at most ExpiryBatch buckets, however many due buckets its users
// hold: it used to write off every due bucket of the users it locked, so users with ten due buckets each
// made a batch of 1,000 candidates ten times as long (and held their locks that long).
func TestExpiryBatchIsBoundedByBucketsNotUsers(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	now := time.Now()
	users := []uuid.UUID{newUser(t, svc, d, 0), newUser(t, svc, d, 0), newUser(t, svc, d, 0)}
	per := credits.ExpiryBatch/len(users) + 100 // more due buckets than one batch, in every user
	require.NoError(t, d.Gorm.Transaction(func(tx *gorm.DB) error {
		for _, u := range users {
			for i := range per {
				exp := now.Add(time.Duration(i) * time.Millisecond)
				if _, _, err := svc.WithTx(tx).Grant(ctx, credits.GrantSpec{UserID: u, Amount: 1, Key: fmt.Sprint("m", i),
					Category: credits.CategoryAllowance, ExpiresAt: &exp}); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	later := svc.At(now.Add(time.Hour))
	n, candidates, err := later.ExpireBatch(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, credits.ExpiryBatch, candidates)
	require.Equal(t, credits.ExpiryBatch, n, "one batch, at most its candidates")
	left := len(users)*per - n
	rep, err := later.ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, left, rep.Buckets, "the next batches write off the rest")
	require.Equal(t, len(users)*per, count(t, d, credits.KindExpire))
	mustVerify(t, d)
}
