package app

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A worker's expires_in is seconds, turned into a time.Duration (nanoseconds, int64). Multiplied without a
// bound, 18446744075 seconds wraps around to 1.29 seconds, inside the ledger's 1 s .. 24 h, and would be
// accepted: a job refunded by the reconciler a second after it started, its work delivered for free.
// 9223372037 wraps to a negative window. Every value past 24 hours is refused before the multiplication,
// and nothing is deducted.
func TestWorkerExpiresInThatWrapsAroundIsRefused(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	aliceID := e.userID(t, "user_alice")
	for _, seconds := range []string{"86401", "9223372037", "18446744075", "9223372036854775807"} {
		body := fmt.Sprintf(`{"amount":1,"job_id":"job-%s","expires_in":%s,"user_id":%q}`, seconds, seconds, aliceID)
		rec := e.call(t, http.MethodPost, spendPath, workerKey, body)
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s: %s", seconds, rec.Body.String())
		require.Contains(t, rec.Body.String(), `"code":"validation_failed"`, seconds)
		require.Contains(t, rec.Body.String(), "expires_in must be a whole number of seconds from 1 to 86400", seconds)
	}
	require.Zero(t, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'deduct'`), "nothing deducted")
	require.Equal(t, 10, e.creditBalance(t, "user_alice"))
}
