package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Regression tests of the hole "users reporting their own job outcomes" (docs/security.md). Job outcomes are
// now the trusted side's to report (a service key), the orphan window is per job, and job ids are scoped per
// user.

// userID is the internal users.id of clerkID's user.
func (e *apiEnv) userID(t *testing.T, clerkID string) string {
	t.Helper()
	var id string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id::text FROM users WHERE clerk_user_id = ?`, clerkID).Scan(&id).Error)
	require.NotEmpty(t, id, clerkID)
	return id
}

// forUser is a worker's request body naming the job's user.
func forUser(userID string) string { return fmt.Sprintf(`{"user_id":%q}`, userID) }

// workerName is the audit actor of a worker call made with key.
func workerName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "worker:" + hex.EncodeToString(sum[:4])
}

// A session may spend, but neither complete nor fail a job (not even its own), nor spend for someone else.
func TestUsersCannotReportJobOutcomes(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	e.seedCredits(t, "user_bob", 10)
	alice := e.token(t, "user_alice")
	aliceID, bobID := e.userID(t, "user_alice"), e.userID(t, "user_bob")
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":4,"job_id":"job-1"}`).Code)

	for _, tc := range []struct{ name, path, body string }{
		{"complete", jobsPath + "job-1/complete", ``},
		{"fail", jobsPath + "job-1/fail", `{"reason":"it broke, refund me"}`},
		{"complete naming herself", jobsPath + "job-1/complete", forUser(aliceID)},
		{"fail naming herself", jobsPath + "job-1/fail", forUser(aliceID)},
	} {
		rec := e.call(t, http.MethodPost, tc.path, alice, tc.body)
		require.Equal(t, http.StatusUnauthorized, rec.Code, "%s: %s", tc.name, rec.Body.String())
		require.Contains(t, rec.Body.String(), `"code":"unauthorized"`, tc.name)
	}
	rec := e.call(t, http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"job-2","user_id":"`+bobID+`"}`)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "user_id")

	require.Equal(t, 6, e.creditBalance(t, "user_alice"), "the ledger is unchanged")
	require.Equal(t, 10, e.creditBalance(t, "user_bob"))
	require.Zero(t, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE kind <> 'grant' AND kind <> 'deduct'`))
	require.Zero(t, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action IN ('credits.job_completed', 'credits.job_failed')`))
}

func TestWorkerKeyReportsOutcomes(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	e.seedCredits(t, "user_carol", 10)
	alice := e.token(t, "user_alice")
	aliceID, carolID := e.userID(t, "user_alice"), e.userID(t, "user_carol")
	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET deleted_at = now() WHERE id = ?`, carolID).Error)
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":4,"job_id":"job-1"}`).Code)
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":3,"job_id":"job-2"}`).Code)

	type outcome struct {
		JobID      string       `json:"job_id"`
		Status     string       `json:"status"`
		Refund     movementJSON `json:"refund"`
		Balance    int          `json:"balance"`
		Idempotent bool         `json:"idempotent"`
	}
	rec := e.call(t, http.MethodPost, jobsPath+"job-1/complete", workerKey, forUser(aliceID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, outcome{JobID: "job-1", Status: "completed"}, decodeJSON[outcome](t, rec.Body.Bytes()))
	rec = e.call(t, http.MethodPost, jobsPath+"job-1/complete", workerKeyNext, forUser(aliceID))
	require.Equal(t, http.StatusOK, rec.Code, "either key of a rotation: %s", rec.Body.String())
	require.True(t, decodeJSON[outcome](t, rec.Body.Bytes()).Idempotent)

	rec = e.call(t, http.MethodPost, jobsPath+"job-2/fail", workerKey, `{"user_id":"`+aliceID+`","reason":"provider 503"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	got := decodeJSON[outcome](t, rec.Body.Bytes())
	require.Equal(t, outcome{JobID: "job-2", Status: "failed", Balance: 6, Refund: movementJSON{
		ID: got.Refund.ID, Delta: 3, Kind: "refund", JobID: "job-2", Reason: "provider 503"}}, got)

	rec = e.call(t, http.MethodPost, spendPath, workerKeyNext, `{"amount":2,"job_id":"job-3","user_id":"`+aliceID+`"}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	for _, tc := range []struct {
		name, path, token, body string
		wantStatus              int
		wantCode, wantMessage   string
	}{
		{"complete without user_id", jobsPath + "job-3/complete", workerKey, ``, 422, "validation_failed", "user_id"},
		{"fail with a malformed user_id", jobsPath + "job-3/fail", workerKey, forUser("alice"), 422, "validation_failed", "user_id"},
		{"complete with an unknown key", jobsPath + "job-3/complete", "wk_test_00000000000000000000000000000000", forUser(aliceID), 401, "unauthorized", ""},
		{"fail with a key's prefix", jobsPath + "job-3/fail", workerKey[:len(workerKey)-1], forUser(aliceID), 401, "unauthorized", ""},
		{"complete without any key", jobsPath + "job-3/complete", "", forUser(aliceID), 401, "unauthorized", ""},
		{"complete for an unknown user", jobsPath + "job-3/complete", workerKey, forUser("00000000-0000-4000-8000-000000000000"), 404, "not_found", ""},
		{"spend without user_id", spendPath, workerKey, `{"amount":1,"job_id":"job-4"}`, 422, "validation_failed", "user_id"},
		{"spend for an unknown user", spendPath, workerKey, `{"amount":1,"job_id":"job-4","user_id":"00000000-0000-4000-8000-000000000000"}`, 404, "not_found", ""},
		{"spend for a deleted user", spendPath, workerKey, `{"amount":1,"job_id":"job-4","user_id":"` + carolID + `"}`, 410, "account_deleted", ""},
	} {
		rec := e.call(t, http.MethodPost, tc.path, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		require.Contains(t, rec.Body.String(), tc.wantMessage, tc.name)
	}
	require.Equal(t, 4, e.creditBalance(t, "user_alice"), "10 - 4 - 3 + 3 - 2")
	require.Equal(t, 10, e.creditBalance(t, "user_carol"))

	// The trail names the key (by fingerprint, never the key) and keeps the job's user as the row's user.
	var trail []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT actor || ' ' || action || ' ' || resource_id || ' ' || user_id::text
		FROM audit_logs WHERE action LIKE 'credits.%' ORDER BY created_at, id`).Scan(&trail).Error)
	require.Equal(t, []string{
		"user:user_alice credits.spent job-1 " + aliceID,
		"user:user_alice credits.spent job-2 " + aliceID,
		workerName(workerKey) + " credits.job_completed job-1 " + aliceID,
		workerName(workerKey) + " credits.job_failed job-2 " + aliceID,
		workerName(workerKeyNext) + " credits.spent job-3 " + aliceID,
	}, trail)
}

// Two users may use the same job id; neither can see or affect the other's job, and a probe of another
// user's job id answers exactly as a job that does not exist.
func TestJobIDsAreScopedPerUser(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	e.seedCredits(t, "user_bob", 10)
	alice, bob := e.token(t, "user_alice"), e.token(t, "user_bob")
	aliceID, bobID := e.userID(t, "user_alice"), e.userID(t, "user_bob")

	for _, tc := range []struct {
		name, token, body string
		wantStatus        int
	}{
		{"alice spends job-x", alice, `{"amount":4,"job_id":"job-x"}`, 201},
		{"bob spends his own job-x", bob, `{"amount":3,"job_id":"job-x"}`, 201},
		{"bob takes job-next first", bob, `{"amount":1,"job_id":"job-next"}`, 201},
		{"alice's job-next is still hers to use", alice, `{"amount":2,"job_id":"job-next"}`, 201},
		{"alice's private job", alice, `{"amount":1,"job_id":"job-a-only"}`, 201},
		{"bob repeats his job-x", bob, `{"amount":3,"job_id":"job-x"}`, 200},
		{"bob's job-x with another amount", bob, `{"amount":4,"job_id":"job-x"}`, 409},
	} {
		rec := e.call(t, http.MethodPost, spendPath, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
	}

	probe := func(job, outcome string) string {
		rec := e.call(t, http.MethodPost, jobsPath+job+"/"+outcome, workerKey, forUser(bobID))
		return fmt.Sprintf("%d %s", rec.Code, rec.Body.String())
	}
	for _, outcome := range []string{"complete", "fail"} {
		require.Equal(t, probe("no-such-job", outcome), probe("job-a-only", outcome), outcome)
		require.Contains(t, probe("job-a-only", outcome), "404 ", outcome)
	}

	rec := e.call(t, http.MethodPost, jobsPath+"job-x/fail", workerKey, forUser(aliceID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec = e.call(t, http.MethodPost, jobsPath+"job-x/complete", workerKey, forUser(bobID))
	require.Equal(t, http.StatusOK, rec.Code, "alice's failure is not bob's: %s", rec.Body.String())
	require.Equal(t, 7, e.creditBalance(t, "user_alice"), "10 - 4 - 2 - 1 + 4 (job-x refunded)")
	require.Equal(t, 6, e.creditBalance(t, "user_bob"), "10 - 3 - 1")
}

// Ten users spending the same job id at once each get their own deduct.
func TestSameJobIDAcrossUsersConcurrently(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	const n = 10
	tokens := make([]string, n)
	for i := range n {
		clerkID := fmt.Sprintf("user_%d", i)
		e.seedCredits(t, clerkID, 5)
		tokens[i] = e.token(t, clerkID)
	}
	codes := make([]int, n)
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			ready.Done()
			<-start
			codes[i] = e.call(t, http.MethodPost, spendPath, tokens[i], `{"amount":3,"job_id":"job-shared"}`).Code
		})
	}
	ready.Wait()
	close(start)
	done.Wait()
	for i, code := range codes {
		require.Equal(t, http.StatusCreated, code, "user %d", i)
	}
	require.Equal(t, n, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE job_id = 'job-shared' AND kind = 'deduct'`))
	require.Equal(t, 2*n, e.ledgerInt(t, `SELECT COALESCE(SUM(delta), 0) FROM credit_transactions`))
}

// The reconciler refunds a job when its own expires_in has passed: 1 second here, while the default
// (CREDITS_ORPHAN_AFTER, 15 minutes) and the 24-hour maximum leave theirs alone. A completed job is never
// refunded, however short its window.
func TestOrphanWindowIsPerJob(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 20)
	alice := e.token(t, "user_alice")
	aliceID := e.userID(t, "user_alice")
	type spent struct {
		Movement struct {
			CreatedAt time.Time `json:"created_at"`
		} `json:"movement"`
		ExpiresAt *time.Time `json:"expires_at"`
	}
	// expires_in is a worker's setting: the worker spends for alice.
	forAlice := func(body string) string { return strings.Replace(body, "{", `{"user_id":"`+aliceID+`",`, 1) }
	window := func(body string) time.Duration {
		t.Helper()
		rec := e.call(t, http.MethodPost, spendPath, workerKey, forAlice(body))
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		s := decodeJSON[spent](t, rec.Body.Bytes())
		require.NotNil(t, s.ExpiresAt, rec.Body.String())
		return s.ExpiresAt.Sub(s.Movement.CreatedAt)
	}
	require.Equal(t, time.Second, window(`{"amount":1,"job_id":"job-short","expires_in":1}`))
	require.Equal(t, time.Second, window(`{"amount":2,"job_id":"job-short-done","expires_in":1}`))
	rec := e.call(t, http.MethodPost, spendPath, alice, `{"amount":3,"job_id":"job-default"}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	s := decodeJSON[spent](t, rec.Body.Bytes())
	require.Equal(t, 15*time.Minute, s.ExpiresAt.Sub(s.Movement.CreatedAt), "a session's spend has the default window")
	require.Equal(t, 24*time.Hour, window(`{"amount":4,"job_id":"job-day","expires_in":86400}`))
	rec = e.call(t, http.MethodPost, jobsPath+"job-short-done/complete", workerKey, forUser(aliceID))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	for _, tc := range []struct {
		body       string
		wantStatus int
	}{
		{`{"amount":1,"job_id":"j","expires_in":0}`, 422},
		{`{"amount":1,"job_id":"j","expires_in":-5}`, 422},
		{`{"amount":1,"job_id":"j","expires_in":86401}`, 422},
		{`{"amount":1,"job_id":"j","expires_in":9223372037}`, 422},
		{`{"amount":1,"job_id":"j","expires_in":18446744075}`, 422},
		{`{"amount":1,"job_id":"j","expires_in":1.5}`, 400},
	} {
		rec := e.call(t, http.MethodPost, spendPath, workerKey, forAlice(tc.body))
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.body, rec.Body.String())
		if tc.wantStatus == 422 {
			require.Contains(t, rec.Body.String(), "expires_in", tc.body)
		}
	}

	refunded := func() []string {
		var jobs []string
		require.NoError(t, e.db.Gorm.Raw(`SELECT job_id FROM credit_transactions WHERE kind = 'reconciler_refund' ORDER BY job_id`).
			Scan(&jobs).Error)
		return jobs
	}
	require.Eventually(t, func() bool {
		_, err := e.app.RunTask(t.Context(), "reconcile-credits")
		require.NoError(t, err)
		return len(refunded()) > 0
	}, 10*time.Second, 200*time.Millisecond, "job-short expires a second after its spend")
	require.Equal(t, []string{"job-short"}, refunded())
	require.Equal(t, 20-2-3-4, e.creditBalance(t, "user_alice"))
}

// Workers racing to report both outcomes of one job: the first to commit decides it, every report of the
// other outcome is 409 job_finished, and the job has exactly one outcome row and one audit row.
func TestConcurrentWorkerOutcomesAgree(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 100)
	alice := e.token(t, "user_alice")
	aliceID := e.userID(t, "user_alice")
	const rounds, n = 5, 10
	for round := range rounds {
		job := fmt.Sprintf("job-%d", round)
		require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":4,"job_id":"`+job+`"}`).Code)
		codes := make([]int, n)
		start := make(chan struct{})
		var ready, done sync.WaitGroup
		ready.Add(n)
		for i := range n {
			done.Go(func() {
				path, key := jobsPath+job+"/complete", workerKey
				if i%2 == 1 {
					path, key = jobsPath+job+"/fail", workerKeyNext
				}
				ready.Done()
				<-start
				codes[i] = e.call(t, http.MethodPost, path, key, forUser(aliceID)).Code
			})
		}
		ready.Wait()
		close(start)
		done.Wait()
		ok := [2]int{} // 200s of complete, of fail
		for i, code := range codes {
			if code == http.StatusOK {
				ok[i%2]++
				continue
			}
			require.Equal(t, http.StatusConflict, code, "round %d, call %d", round, i)
		}
		require.Contains(t, [][2]int{{5, 0}, {0, 5}}, ok, "round %d: one outcome wins", round)
		require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions
			WHERE job_id = ? AND kind IN ('task_completed', 'task_failed')`, job), "round %d", round)
		require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs
			WHERE resource_id = ? AND action IN ('credits.job_completed', 'credits.job_failed')`, job), "round %d", round)
	}
	completed := e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'task_completed'`)
	require.Equal(t, 100-4*completed, e.creditBalance(t, "user_alice"), "failed jobs came back, completed ones did not")
}

// Sessions spending stay under the per-user rate limit, one budget with every other route; workers, the
// trusted side, are not limited.
func TestRateLimitAppliesToSessionsNotWorkers(t *testing.T) {
	t.Parallel()
	e := envWith(t, map[string]string{"RATE_LIMIT_PER_MINUTE": "2", "WORKER_API_KEYS": workerKey})
	e.seedCredits(t, "user_alice", 100)
	alice := e.token(t, "user_alice")
	aliceID := e.userID(t, "user_alice")
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/billing/subscription", alice, "").Code)
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"s-1"}`).Code)
	rec := e.call(t, http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"s-2"}`)
	require.Equal(t, http.StatusTooManyRequests, rec.Code, rec.Body.String())
	for i := range 5 {
		rec := e.call(t, http.MethodPost, spendPath, workerKey, fmt.Sprintf(`{"amount":1,"job_id":"w-%d","user_id":%q}`, i, aliceID))
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	}
	require.Equal(t, 94, e.creditBalance(t, "user_alice"))
}

// With no WORKER_API_KEYS nobody can report an outcome: every report is 401, and the reconciler refunds.
func TestWithoutWorkerKeysNobodyReportsOutcomes(t *testing.T) {
	t.Parallel()
	e := envWith(t, nil)
	e.seedCredits(t, "user_alice", 10)
	alice := e.token(t, "user_alice")
	aliceID := e.userID(t, "user_alice")
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, spendPath, alice, `{"amount":4,"job_id":"job-1"}`).Code)
	for _, token := range []string{alice, workerKey, "Bearer", ""} {
		for _, outcome := range []string{"complete", "fail"} {
			rec := e.call(t, http.MethodPost, jobsPath+"job-1/"+outcome, token, forUser(aliceID))
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s with %q: %s", outcome, token, rec.Body.String())
		}
	}
	rec := e.call(t, http.MethodPost, spendPath, workerKey, `{"amount":1,"job_id":"job-2","user_id":"`+aliceID+`"}`)
	require.Equal(t, http.StatusUnauthorized, rec.Code, "an unconfigured key is just an invalid session token")
	require.Equal(t, 6, e.creditBalance(t, "user_alice"))
}
