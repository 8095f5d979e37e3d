package billing_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// Different events of one subscription delivered at once (seat changes up and down with their payments,
// a zero-value transaction, the job) serialise on the subscription row: the month ends at the largest
// allowance paid for, never at a sum of top-ups computed from the same stale total. The payments are dated
// at the month's start, so each tops up the whole difference and the outcome does not depend on the order.
func TestConcurrentEventsOfOneSubscriptionNeverDoubleAMonth(t *testing.T) {
	t.Parallel()
	for round := range 4 {
		f := newFixture(t, pgtest.New(t), sampleTiers)
		yearly := f.samples(t).yearly
		f.mustDeliver(t, yearly.body()) // 10 seats: 5000

		quantities := []int{12, 15, 11, 20, 5, 8, 14, 18} // the largest, 20 seats, is 10000 a month
		bodies := make([][]byte, 0, len(quantities)+1)
		for i, q := range quantities {
			bodies = append(bodies, seats(yearly, fmt.Sprintf("evt_seats_%d", q), sampleT0.Add(time.Duration(i+1)*time.Hour), q).body(),
				paid(f.samples(t).renewal, fmt.Sprintf("evt_paid_%d", q), fmt.Sprintf("txn_seats_%d", q), sampleT0, yearly.get("data.items.1.price"), q).body())
		}
		card := f.samples(t).renewal.clone().set("event_id", "evt_card").set("data.id", "txn_card").
			set("data.origin", "subscription_payment_method_change").set("data.details.totals.total", "0")
		bodies = append(bodies, card.body())

		var start, done sync.WaitGroup
		start.Add(1)
		errs := make(chan error, len(bodies)+1)
		for _, body := range bodies {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				_, err := f.deliver(t, body)
				errs <- err
			}()
		}
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			_, err := f.svc.GrantMonths(context.Background(), sampleT0.AddDate(0, 0, 3))
			errs <- err
		}()
		start.Done()
		done.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err, "round %d", round)
		}
		st := f.sampleState(t)
		require.Equal(t, 10000, st.Balance, "round %d: %v", round, f.grantsOf(t))
		require.Equal(t, 18, st.Quantity, "round %d: the newest snapshot (18 seats) wins", round)
	}
}
