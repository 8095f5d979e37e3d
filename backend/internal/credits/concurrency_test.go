package credits_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// race runs fn in n goroutines, each in its own transaction on its own connection, and commits each one
// that returns nil. Every goroutine has already sent BEGIN when it reaches the start barrier, so the
// statements reach Postgres together rather than one connection setup apart.
func race(t *testing.T, d *pgtest.DB, n int, fn func(i int, tx *gorm.DB) error) []error {
	t.Helper()
	errs := make([]error, n)
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			begun := false
			errs[i] = d.Gorm.WithContext(context.Background()).Transaction(func(tx *gorm.DB) error {
				begun = true
				ready.Done()
				<-start
				return fn(i, tx)
			})
			if !begun {
				ready.Done() // BEGIN itself failed; the error is in errs[i]
			}
		})
	}
	ready.Wait()
	close(start)
	done.Wait()
	return errs
}

// tally counts nil errors and ErrInsufficient, and fails on anything else.
func tally(t *testing.T, errs []error) (ok, insufficient int) {
	t.Helper()
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, credits.ErrInsufficient):
			insufficient++
		default:
			require.NoError(t, err)
		}
	}
	return ok, insufficient
}

// Without the user row lock both transactions read a balance of 10 and both insert: the balance ends
// negative. Several rounds make a lucky interleaving unlikely to hide that.
func TestConcurrentDeductsNeverOverdraw(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                  string
		goroutines, amount    int
		wantOK, wantRemaining int
	}{
		{"two deducts of 7 on 10", 2, 7, 1, 3},
		{"ten deducts of 3 on 10", 10, 3, 3, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, d := setup(t)
			for round := range 20 {
				user := newUser(t, svc, d, 10)
				errs := race(t, d, tc.goroutines, func(i int, tx *gorm.DB) error {
					_, _, err := svc.WithTx(tx).Deduct(context.Background(), user, tc.amount, fmt.Sprintf("job-%d-%d", round, i), "")
					return err
				})
				ok, insufficient := tally(t, errs)
				require.Equal(t, tc.wantOK, ok, "round %d", round)
				require.Equal(t, tc.goroutines-tc.wantOK, insufficient, "round %d", round)
				require.Equal(t, tc.wantRemaining, balance(t, svc, user), "round %d", round)
			}
		})
	}
}

func TestConcurrentGrantSameJob(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 0)
	ids := make([]uuid.UUID, 20)
	created := make([]bool, 20)
	errs := race(t, d, 20, func(i int, tx *gorm.DB) (err error) {
		var m credits.Movement
		m, created[i], err = svc.WithTx(tx).Grant(context.Background(), credits.GrantSpec{UserID: user, Amount: 100, Key: "grant:sub_1:2026-05"})
		ids[i] = m.ID
		return err
	})
	ok, _ := tally(t, errs)
	require.Equal(t, 20, ok)
	require.Equal(t, 1, countTrue(created))
	for _, id := range ids {
		require.Equal(t, ids[0], id, "every caller sees the one row")
	}
	require.Equal(t, 1, rows(t, d, "grant:sub_1:2026-05"))
	require.Equal(t, 100, balance(t, svc, user))
}

func TestConcurrentDeductSameJob(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 10)
	created := make([]bool, 10)
	errs := race(t, d, 10, func(i int, tx *gorm.DB) (err error) {
		_, created[i], err = svc.WithTx(tx).Deduct(context.Background(), user, 3, "job-1", "")
		return err
	})
	ok, _ := tally(t, errs)
	require.Equal(t, 10, ok)
	require.Equal(t, 1, countTrue(created))
	require.Equal(t, 1, rows(t, d, "job-1"))
	require.Equal(t, 7, balance(t, svc, user))
}

func TestConcurrentMarkFailedRefundsOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 10)
	_, _, err := svc.Deduct(context.Background(), user, 4, "job-1", "")
	require.NoError(t, err)
	created := make([]bool, 10)
	errs := race(t, d, 10, func(i int, tx *gorm.DB) (err error) {
		_, created[i], err = svc.WithTx(tx).MarkFailed(context.Background(), user, "job-1", "")
		return err
	})
	ok, _ := tally(t, errs)
	require.Equal(t, 10, ok)
	require.Equal(t, 1, countTrue(created))
	require.Equal(t, 3, rows(t, d, "job-1"), "deduct, refund, task_failed")
	require.Equal(t, 10, balance(t, svc, user))
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
