package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// adjust posts an operator's credit adjustment for the user, with key as its Idempotency-Key ("": none).
func (e *apiEnv) adjust(t *testing.T, token, userID, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	hdr := http.Header{}
	if key != "" {
		hdr.Set("Idempotency-Key", key)
	}
	return e.call(t, http.MethodPost, adminAPI+"/users/"+userID+"/credits", token, body, hdr)
}

// ledgerIsConsistent runs `fabrica verify ledger`'s checks: balances, buckets and allocations agree with
// the movements.
func (e *apiEnv) ledgerIsConsistent(t *testing.T) {
	t.Helper()
	rep, err := verify.Run(t.Context(), e.db.Gorm, credits.Checks(), verify.Scope{})
	require.NoError(t, err)
	for _, r := range rep.Results {
		require.Empty(t, r.Violations, r.Check.Name)
	}
}

type adjustBody struct {
	Movement struct {
		ID     string `json:"id"`
		Delta  int    `json:"delta"`
		Kind   string `json:"kind"`
		JobID  string `json:"job_id"`
		Reason string `json:"reason"`
	} `json:"movement"`
	Balance    int  `json:"balance"`
	Idempotent bool `json:"idempotent"`
}

// An operator grants and takes back credits: only operators, only with an Idempotency-Key, once per key,
// never below zero, audited once; the user view shows the buckets in burn order and the history pages.
func TestAdminCreditAdjustments(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss, stranger := e.adminToken(t), e.token(t, "user_stranger")
	e.seedCredits(t, "user_carol", 100)
	carol := e.userID(t, "user_carol")
	grant := `{"amount":50,"reason":"goodwill: the outage","expires_in":86400,"priority":10}`

	for _, tc := range []struct {
		name, token, user, key, body string
		wantStatus                   int
		wantCode                     string
	}{
		{"non-admin refused", stranger, carol, "k-stranger", grant, http.StatusForbidden, "forbidden"},
		{"no key", boss, carol, "", grant, http.StatusBadRequest, "bad_request"},
		{"key with a space", boss, carol, "two words", grant, http.StatusBadRequest, "bad_request"},
		{"key too long", boss, carol, strings.Repeat("k", 101), grant, http.StatusBadRequest, "bad_request"},
		{"malformed JSON", boss, carol, "k-json", `{"amount":`, http.StatusBadRequest, "bad_request"},
		{"unknown user", boss, unknownID, "k-unknown", grant, http.StatusNotFound, "not_found"},
		{"unknown user, correction", boss, unknownID, "k-unknown-fix", `{"amount":-5,"reason":"x"}`, http.StatusNotFound, "not_found"},
		{"malformed user id", boss, "42", "k-42", grant, http.StatusNotFound, "not_found"},
		{"zero amount", boss, carol, "k-zero", `{"amount":0,"reason":"x"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"amount beyond int32", boss, carol, "k-huge", `{"amount":2147483648,"reason":"x"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"no reason", boss, carol, "k-noreason", `{"amount":5}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"blank reason", boss, carol, "k-blank", `{"amount":5,"reason":"  "}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"reason too long", boss, carol, "k-long", `{"amount":5,"reason":"` + strings.Repeat("r", 256) + `"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"allowance refused", boss, carol, "k-allow", `{"amount":5,"reason":"x","category":"allowance"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"unknown category", boss, carol, "k-gift", `{"amount":5,"reason":"x","category":"gift"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"priority out of range", boss, carol, "k-prio", `{"amount":5,"reason":"x","priority":101}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"expiry too short", boss, carol, "k-short", `{"amount":5,"reason":"x","expires_in":59}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"expiry too long", boss, carol, "k-far", `{"amount":5,"reason":"x","expires_in":315360001}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"correction naming a bucket", boss, carol, "k-fixcat", `{"amount":-5,"reason":"x","category":"purchased"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"grant", boss, carol, "g-1", grant, http.StatusCreated, ""},
		{"the same key again", boss, carol, "g-1", grant, http.StatusOK, ""},
		{"the same key, another amount", boss, carol, "g-1", `{"amount":60,"reason":"goodwill: the outage"}`, http.StatusConflict, "job_conflict"},
		{"the same key, taking back", boss, carol, "g-1", `{"amount":-50,"reason":"oops"}`, http.StatusConflict, "job_conflict"},
		{"purchased grant", boss, carol, "g-2", `{"amount":7,"reason":"invoice 2026-14","category":"purchased"}`, http.StatusCreated, ""},
		{"correction", boss, carol, "c-1", `{"amount":-30,"reason":"double grant"}`, http.StatusCreated, ""},
		{"the correction's key as a grant", boss, carol, "c-1", `{"amount":30,"reason":"double grant"}`, http.StatusConflict, "job_conflict"},
		{"correction below zero", boss, carol, "c-2", `{"amount":-1000,"reason":"too much"}`, http.StatusPaymentRequired, "insufficient_credits"},
	} {
		rec := e.adjust(t, tc.token, tc.user, tc.key, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
	}
	require.Contains(t, e.adjust(t, boss, carol, "", grant).Body.String(), "Idempotency-Key header is required")

	// The replay answers the original movement and writes nothing.
	first := decodeBody[adjustBody](t, e.adjust(t, boss, carol, "g-1", grant))
	require.True(t, first.Idempotent)
	require.Equal(t, 50, first.Movement.Delta)
	require.Equal(t, credits.KindGrant, first.Movement.Kind)
	require.Equal(t, credits.OperatorKeyPrefix+"g-1", first.Movement.JobID)
	require.Equal(t, 127, first.Balance, "100 + 50 + 7 - 30")
	require.Equal(t, 127, e.creditBalance(t, "user_carol"))
	require.Equal(t, 3, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE starts_with(job_id, 'operator:')`),
		"g-1, g-2 and c-1, each once; nothing from a refusal")
	require.Equal(t, 2, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = ? AND actor = 'admin:boss@example.com'
		AND user_id = ?`, credits.ActionGranted, carol))
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = ? AND details->>'reason' = 'double grant'`,
		credits.ActionCorrected))
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.unauthorized'`), "the stranger, once")

	// The user view: the buckets in burn order (priority 10 first, then the soonest expiry...), summing to
	// the balance; the correction took its 30 from the operator's priority-10 bucket.
	detail := decodeBody[struct {
		Ledger struct {
			Balance int `json:"balance"`
			Buckets []struct {
				Category  string     `json:"category"`
				Priority  int        `json:"priority"`
				Amount    int        `json:"amount"`
				Remaining int        `json:"remaining"`
				Source    string     `json:"source"`
				ExpiresAt *time.Time `json:"expires_at"`
			} `json:"buckets"`
		} `json:"ledger"`
	}](t, e.call(t, http.MethodGet, adminAPI+"/users/"+carol, boss, ""))
	require.Equal(t, 127, detail.Ledger.Balance)
	type row struct {
		Category          string
		Priority          int
		Amount, Remaining int
		Source            string
	}
	var got []row
	sum := 0
	for _, b := range detail.Ledger.Buckets {
		got = append(got, row{b.Category, b.Priority, b.Amount, b.Remaining, b.Source})
		sum += b.Remaining
	}
	require.Equal(t, []row{{"promotional", 10, 50, 20, "operator"}, {"promotional", 50, 100, 100, ""},
		{"purchased", 50, 7, 7, "operator"}}, got, "burn order: priority, then expiry, then promotional before purchased")
	require.Equal(t, 127, sum)
	require.WithinDuration(t, time.Now().Add(24*time.Hour), *detail.Ledger.Buckets[0].ExpiresAt, time.Minute)

	// The history pages through every bucket, newest first.
	history := walkItems(t, e, boss, "/users/"+carol+"/credit-buckets", 2)
	require.Len(t, history, 3)
	require.Equal(t, "purchased", history[0]["category"])
	require.Equal(t, http.StatusNotFound, e.call(t, http.MethodGet, adminAPI+"/users/"+unknownID+"/credit-buckets", boss, "").Code)
	require.Equal(t, http.StatusForbidden, e.call(t, http.MethodGet, adminAPI+"/users/"+carol+"/credit-buckets", stranger, "").Code)
	e.ledgerIsConsistent(t)
}

// Ten identical requests with one key at once: exactly one movement, one audit row, and every answer the
// same movement. Grants on a user with no ledger yet (the balance row is created under the race),
// corrections on one with credits, and a key sent as a grant and as a correction at once, which still
// names one adjustment.
func TestAdminCreditAdjustmentsRacingOneKey(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	e.seedCredits(t, "user_erin", 100)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, email) VALUES ('user_dan', 'dan@example.com')`).Error)
	dan, erin := e.userID(t, "user_dan"), e.userID(t, "user_erin")
	const n = 10

	for _, tc := range []struct {
		name, user, key string
		body            func(i int) string
		wantBalance     int
	}{
		{"grants", dan, "burst", func(int) string { return `{"amount":40,"reason":"welcome back"}` }, 40},
		{"corrections", erin, "burst-fix", func(int) string { return `{"amount":-15,"reason":"double charge"}` }, 85},
		{"both signs", erin, "burst-mixed", func(i int) string {
			if i%2 == 0 {
				return `{"amount":5,"reason":"either"}`
			}
			return `{"amount":-5,"reason":"either"}`
		}, -1},
	} {
		before := e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action IN (?, ?)`, credits.ActionGranted, credits.ActionCorrected)
		recs := concurrently(n, func(i int) *httptest.ResponseRecorder { return e.adjust(t, boss, tc.user, tc.key, tc.body(i)) })
		codes, ids := map[int]int{}, map[string]bool{}
		for _, rec := range recs {
			codes[rec.Code]++
			if rec.Code < 300 {
				ids[decodeBody[adjustBody](t, rec).Movement.ID] = true
			}
		}
		require.Equal(t, 1, codes[http.StatusCreated], "%s: %v", tc.name, codes)
		require.Len(t, ids, 1, "%s: every success answers the one movement", tc.name)
		require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM credit_transactions WHERE job_id = ?`, credits.OperatorKeyPrefix+tc.key), tc.name)
		require.Equal(t, before+1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action IN (?, ?)`,
			credits.ActionGranted, credits.ActionCorrected), tc.name)
		if tc.wantBalance >= 0 {
			require.Equal(t, n-1, codes[http.StatusOK], tc.name)
			var clerk string
			require.NoError(t, e.db.Gorm.Raw(`SELECT clerk_user_id FROM users WHERE id = ?`, tc.user).Scan(&clerk).Error)
			require.Equal(t, tc.wantBalance, e.creditBalance(t, clerk), tc.name)
		} else {
			// The half of the other sign is refused as a conflict; the same sign's replays are 200.
			require.Equal(t, n/2, codes[http.StatusConflict], "%s: %v", tc.name, codes)
		}
	}
	e.ledgerIsConsistent(t)
}
