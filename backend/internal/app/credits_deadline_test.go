package app

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A session chose its own refund deadline: spend with expires_in 1, let the reconciler refund a second
// later, have the worker's complete refused and a re-spend answered "already paid" — metered work for
// free. The deadline is a worker's setting, a refunded job is finished, and a completion after the orphan
// refund charges the job again.
func TestSessionCannotChooseItsRefundDeadline(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	alice := e.token(t, "user_alice")
	for _, body := range []string{
		`{"amount":4,"job_id":"job-1","expires_in":1}`,
		`{"amount":4,"job_id":"job-1","expires_in":900}`,
		`{"amount":4,"job_id":"job-1","expires_in":86400}`,
	} {
		rec := e.call(t, http.MethodPost, spendPath, alice, body)
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
		require.Contains(t, rec.Body.String(), "expires_in is accepted only with a worker key")
	}
	require.Zero(t, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'deduct'`), "nothing written")
	require.Equal(t, 10, e.creditBalance(t, "user_alice"))
}

func TestOrphanRefundThenCompletionChargesAgain(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	alice := e.token(t, "user_alice")
	aliceID := e.userID(t, "user_alice")
	rec := e.call(t, http.MethodPost, spendPath, workerKey, `{"amount":4,"job_id":"job-1","expires_in":1,"user_id":"`+aliceID+`"}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Eventually(t, func() bool {
		_, err := e.app.RunTask(t.Context(), "reconcile-credits")
		require.NoError(t, err)
		return e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'reconciler_refund'`) == 1
	}, 10*time.Second, 200*time.Millisecond)
	require.Equal(t, 10, e.creditBalance(t, "user_alice"))

	for _, token := range []string{alice, workerKey} {
		body := `{"amount":4,"job_id":"job-1"}`
		if token == workerKey {
			body = `{"amount":4,"job_id":"job-1","user_id":"` + aliceID + `"}`
		}
		rec = e.call(t, http.MethodPost, spendPath, token, body)
		require.Equal(t, http.StatusConflict, rec.Code, "a refunded job is finished, not paid: %s", rec.Body.String())
		require.Contains(t, rec.Body.String(), `"code":"job_finished"`)
	}
	// The user spends what came back; then the worker reports the job done.
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":9,"job_id":"job-2"}`).Code)
	rec = e.call(t, http.MethodPost, jobsPath+"job-1/complete", workerKey, forUser(aliceID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"job_id":"job-1","status":"completed","idempotent":false,"recharged":4}`, rec.Body.String())
	rec = e.call(t, http.MethodPost, jobsPath+"job-1/complete", workerKey, forUser(aliceID))
	require.JSONEq(t, `{"job_id":"job-1","status":"completed","idempotent":true,"recharged":0}`, rec.Body.String())
	require.Equal(t, -3, e.creditBalance(t, "user_alice"), "the delivered work is owed, below zero if need be")
	rec = e.call(t, http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"job-3"}`)
	require.Equal(t, http.StatusPaymentRequired, rec.Code, "no spend until the debt is covered: %s", rec.Body.String())
}
