package app

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

const (
	spendPath = "/api/v1/credits/spend"
	jobsPath  = "/api/v1/credits/jobs/"
)

// seedCredits creates clerkID's user with a grant of amount credits, as a signup or renewal would have.
func (e *apiEnv) seedCredits(t *testing.T, clerkID string, amount int) {
	t.Helper()
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, email, email_verified) VALUES (?, ?, true)`, clerkID, clerkID+"@example.com").Error)
	e.grant(t, clerkID, amount, "seed-"+clerkID)
}

// grant grants the user amount credits under key, through the ledger (which keeps the balance row and the
// buckets in step: a row inserted by hand would be invisible to both).
func (e *apiEnv) grant(t *testing.T, clerkID string, amount int, key string) {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = ?`, clerkID).Row().Scan(&id))
	_, _, err := e.app.ledger.Grant(t.Context(), credits.GrantSpec{UserID: id, Amount: amount, Key: key, Reason: "seed"})
	require.NoError(t, err)
}

// ledgerInt runs a query returning one integer.
func (e *apiEnv) ledgerInt(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, e.db.Gorm.Raw(query, args...).Scan(&n).Error)
	return n
}

func (e *apiEnv) creditBalance(t *testing.T, clerkID string) int {
	return e.ledgerInt(t, `SELECT COALESCE(SUM(delta), 0) FROM credit_transactions c JOIN users u ON u.id = c.user_id
		WHERE u.clerk_user_id = ?`, clerkID)
}

func TestCreditsAPI(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_alice", 10)
	e.seedCredits(t, "user_bob", 5)
	alice, bob := e.token(t, "user_alice"), e.token(t, "user_bob")
	forged := sessiontest.NewIssuer(t).Token(t, sessiontest.TokenClaims{UserID: "user_alice"})
	long := strings.Repeat("j", 129)
	// Outcomes are reported by a worker naming the job's user.
	bobID := e.userID(t, "user_bob")
	forAlice, forBob := forUser(e.userID(t, "user_alice")), forUser(bobID)
	aliceFails := func(reason string) string { return strings.TrimSuffix(forAlice, "}") + `,"reason":"` + reason + `"}` }

	// Steps run in order against one database: each row sees the ledger the rows above left.
	for _, tc := range []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantCode                        string
	}{
		{"spend without token", http.MethodPost, spendPath, "", `{"amount":1,"job_id":"j"}`, 401, "unauthorized"},
		{"spend with garbage token", http.MethodPost, spendPath, "abc.def.ghi", `{"amount":1,"job_id":"j"}`, 401, "unauthorized"},
		{"complete with garbage token", http.MethodPost, jobsPath + "job-a/complete", "abc.def.ghi", forAlice, 401, "unauthorized"},
		{"fail with forged token", http.MethodPost, jobsPath + "job-a/fail", forged, forAlice, 401, "unauthorized"},
		{"complete with alice's own session", http.MethodPost, jobsPath + "job-a/complete", alice, forAlice, 401, "unauthorized"},
		{"amount zero", http.MethodPost, spendPath, alice, `{"amount":0,"job_id":"j"}`, 422, "validation_failed"},
		{"amount negative", http.MethodPost, spendPath, alice, `{"amount":-3,"job_id":"j"}`, 422, "validation_failed"},
		{"amount missing", http.MethodPost, spendPath, alice, `{"job_id":"j"}`, 422, "validation_failed"},
		{"amount too large", http.MethodPost, spendPath, alice, `{"amount":2147483648,"job_id":"j"}`, 422, "validation_failed"},
		{"job_id missing", http.MethodPost, spendPath, alice, `{"amount":1}`, 422, "validation_failed"},
		{"job_id too long", http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"` + long + `"}`, 422, "validation_failed"},
		{"job_id with NUL", http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"a\u0000b"}`, 422, "validation_failed"},
		{"expires_in too long", http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"j","expires_in":86401}`, 422, "validation_failed"},
		{"user_id with a session", http.MethodPost, spendPath, alice, `{"amount":1,"job_id":"j","user_id":"` + bobID + `"}`, 422, "validation_failed"},
		{"amount not an integer", http.MethodPost, spendPath, alice, `{"amount":1.5,"job_id":"j"}`, 400, "bad_request"},
		{"malformed body", http.MethodPost, spendPath, alice, `{"amount":`, 400, "bad_request"},
		{"spend", http.MethodPost, spendPath, alice, `{"amount":4,"job_id":"job-a","reason":"summarise"}`, 201, ""},
		{"spend again", http.MethodPost, spendPath, alice, `{"amount":4,"job_id":"job-a","reason":"summarise"}`, 200, ""},
		{"same job other amount", http.MethodPost, spendPath, alice, `{"amount":5,"job_id":"job-a"}`, 409, "job_conflict"},
		{"insufficient", http.MethodPost, spendPath, alice, `{"amount":7,"job_id":"job-big"}`, 402, "insufficient_credits"},
		{"another user's job on complete", http.MethodPost, jobsPath + "job-a/complete", workerKey, forBob, 404, "not_found"},
		{"another user's job on fail", http.MethodPost, jobsPath + "job-a/fail", workerKey, forBob, 404, "not_found"},
		{"another user's job_id is their own job", http.MethodPost, spendPath, bob, `{"amount":4,"job_id":"job-a"}`, 201, ""},
		{"complete unknown job", http.MethodPost, jobsPath + "no-such-job/complete", workerKey, forAlice, 404, "not_found"},
		{"fail unknown job", http.MethodPost, jobsPath + "no-such-job/fail", workerKey, forAlice, 404, "not_found"},
		{"complete", http.MethodPost, jobsPath + "job-a/complete", workerKey, forAlice, 200, ""},
		{"complete again", http.MethodPost, jobsPath + "job-a/complete", workerKey, forAlice, 200, ""},
		{"fail a completed job", http.MethodPost, jobsPath + "job-a/fail", workerKey, forAlice, 409, "job_finished"},
		{"spend b", http.MethodPost, spendPath, alice, `{"amount":3,"job_id":"job/b"}`, 201, ""},
		{"fail b (escaped slash)", http.MethodPost, jobsPath + "job%2Fb/fail", workerKey, aliceFails("timeout"), 200, ""},
		{"complete a failed job", http.MethodPost, jobsPath + "job%2Fb/complete", workerKey, forAlice, 409, "job_finished"},
		{"fail with long reason", http.MethodPost, jobsPath + "job%2Fb/fail", workerKey, aliceFails(strings.Repeat("r", 256)), 422, "validation_failed"},
		{"fail with invalid UTF-8 id", http.MethodPost, jobsPath + "job%FF/fail", workerKey, forAlice, 422, "validation_failed"},
	} {
		rec := e.call(t, tc.method, tc.path, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
	}
	require.Equal(t, 6, e.creditBalance(t, "user_alice"), "10 - 4 (job-a) - 3 (job/b) + 3 (job/b refunded)")
	require.Equal(t, 1, e.creditBalance(t, "user_bob"), "5 - 4 (bob's own job-a)")
	require.Zero(t, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE job_id = 'job-big'`), "a 402 writes nothing")
	var actions []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT action FROM audit_logs WHERE action LIKE 'credits.%' ORDER BY created_at`).Scan(&actions).Error)
	require.Equal(t, []string{"credits.spent", "credits.spent", "credits.job_completed", "credits.spent", "credits.job_failed"}, actions)
}

type movementJSON struct {
	ID     string `json:"id"`
	Delta  int    `json:"delta"`
	Kind   string `json:"kind"`
	JobID  string `json:"job_id"`
	Reason string `json:"reason"`
}

func TestCreditsSpendIsIdempotent(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_a", 10)
	tok := e.token(t, "user_a")
	type spendBody struct {
		Movement   movementJSON `json:"movement"`
		Balance    int          `json:"balance"`
		Idempotent bool         `json:"idempotent"`
	}
	rec := e.call(t, http.MethodPost, spendPath, tok, `{"amount":7,"job_id":"job-1","reason":"summarise"}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	first := decodeJSON[spendBody](t, rec.Body.Bytes())
	require.Equal(t, movementJSON{ID: first.Movement.ID, Delta: -7, Kind: "deduct", JobID: "job-1", Reason: "summarise"}, first.Movement)
	require.Contains(t, rec.Body.String(), `"created_at":"`)
	require.Equal(t, 3, first.Balance)
	require.False(t, first.Idempotent)

	// The balance (3) no longer covers 7: a retry must still get the original, not a 402.
	rec = e.call(t, http.MethodPost, spendPath, tok, `{"amount":7,"job_id":"job-1","reason":"summarise"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	again := decodeJSON[spendBody](t, rec.Body.Bytes())
	require.Equal(t, spendBody{Movement: first.Movement, Balance: 3, Idempotent: true}, again)
	require.Equal(t, 3, e.creditBalance(t, "user_a"), "charged once")
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = 'credits.spent'`))
}

func TestCreditsFailRefundsOnce(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_a", 10)
	tok := e.token(t, "user_a")
	fail := `{"user_id":"` + e.userID(t, "user_a") + `","reason":"provider 503"}`
	rec := e.call(t, http.MethodPost, spendPath, tok, `{"amount":4,"job_id":"job-1"}`)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	type failBody struct {
		JobID      string       `json:"job_id"`
		Status     string       `json:"status"`
		Refund     movementJSON `json:"refund"`
		Balance    int          `json:"balance"`
		Idempotent bool         `json:"idempotent"`
	}
	var first failBody
	for i := range 3 {
		rec = e.call(t, http.MethodPost, jobsPath+"job-1/fail", workerKey, fail)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		got := decodeJSON[failBody](t, rec.Body.Bytes())
		if i == 0 {
			first = got
			require.Equal(t, failBody{JobID: "job-1", Status: "failed", Balance: 10, Refund: movementJSON{
				ID: got.Refund.ID, Delta: 4, Kind: "refund", JobID: "job-1", Reason: "provider 503"}}, got)
			continue
		}
		first.Idempotent = true
		require.Equal(t, first, got, "call %d", i+1)
	}
	require.Equal(t, 10, e.creditBalance(t, "user_a"))
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE job_id = 'job-1' AND kind = 'refund'`))
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = 'credits.job_failed'`))

	rec = e.call(t, http.MethodPost, jobsPath+"job-1/complete", workerKey, fail)
	require.Equal(t, http.StatusConflict, rec.Code)
}

// Ten clients spending 3 credits each at once on a balance of 10, through the whole HTTP stack: exactly
// three succeed and nothing overdraws.
func TestCreditsConcurrentSpendsNeverOverdraw(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.seedCredits(t, "user_a", 10)
	tok := e.token(t, "user_a")
	const n = 10
	codes := make([]int, n)
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			body := `{"amount":3,"job_id":"job-` + string(rune('a'+i)) + `"}`
			ready.Done()
			<-start
			codes[i] = e.call(t, http.MethodPost, spendPath, tok, body).Code
		})
	}
	ready.Wait()
	close(start)
	done.Wait()
	byCode := map[int]int{}
	for _, c := range codes {
		byCode[c]++
	}
	require.Equal(t, map[int]int{http.StatusCreated: 3, http.StatusPaymentRequired: 7}, byCode)
	require.Equal(t, 1, e.creditBalance(t, "user_a"))
	require.Equal(t, 3, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'deduct'`))
	require.Equal(t, 3, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = 'credits.spent'`))
}
