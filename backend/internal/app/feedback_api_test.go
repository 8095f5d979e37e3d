package app

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
)

const feedbackPath = "/api/v1/feedback"

func TestFeedbackAPI(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	a, boss := e.token(t, "user_a"), e.adminToken(t)
	e.runAccount(t, []accountCase{
		{"no session", http.MethodPost, feedbackPath, "", `{"message":"hi"}`, http.StatusUnauthorized, "unauthorized", ""},
		{"empty message", http.MethodPost, feedbackPath, a, `{"message":"  "}`, http.StatusUnprocessableEntity, "validation_failed", ": message"},
		{"bad fields", http.MethodPost, feedbackPath, a, `{"message":"` + strings.Repeat("m", 4001) + `","page":"` + strings.Repeat("p", 2049) +
			`","rating":6}`, http.StatusUnprocessableEntity, "validation_failed", ": message, page, rating"},
		{"rating not a number", http.MethodPost, feedbackPath, a, `{"message":"x","rating":"5"}`, http.StatusBadRequest, "bad_request", ""},
		{"too large", http.MethodPost, feedbackPath, a, `{"message":"` + strings.Repeat("m", 17*1024) + `"}`, http.StatusRequestEntityTooLarge, "payload_too_large", ""},
		{"first", http.MethodPost, feedbackPath, a, `{"message":"Love it.\nBut the export is slow.","page":"/settings","rating":4}`, http.StatusCreated, "", `"id":"`},
		{"minimal", http.MethodPost, feedbackPath, a, `{"message":"second"}`, http.StatusCreated, "", ""},
		{"not for users", http.MethodGet, adminAPI + "/feedback", a, "", http.StatusForbidden, "forbidden", ""},
		{"export has it", http.MethodGet, exportPath, a, "", http.StatusOK, "",
			`"feedback":[{"message":"Love it.\nBut the export is slow.","page":"/settings","rating":4,"created_at":"`},
	})
	for i := range 3 {
		e.call(t, http.MethodPost, feedbackPath, boss, `{"message":"boss `+string(rune('0'+i))+`"}`)
	}
	ids := walk(t, e, boss, "/feedback?", 2)
	require.Len(t, ids, 5)
	rec := e.call(t, http.MethodGet, adminAPI+"/feedback?limit=1", boss, "")
	require.Contains(t, rec.Body.String(), `"message":"boss 2"`, "newest first")
	require.Equal(t, int64(5), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = ?`, feedback.ActionSubmitted))
	require.Zero(t, e.count(t, `SELECT count(*) FROM audit_logs WHERE action = ? AND details::text LIKE '%Love%'`, feedback.ActionSubmitted),
		"the audit row never carries the text")

	// The author's erasure keeps the message and forgets who wrote it.
	require.NoError(t, e.db.Gorm.Exec(`DELETE FROM users WHERE clerk_user_id = 'user_a'`).Error)
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM feedback WHERE user_id IS NULL`))
	require.Equal(t, ids, walk(t, e, boss, "/feedback?", 10))
}

// Feedback has a budget of its own, below the API's: ten an hour per user.
func TestFeedbackIsRateLimited(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	a, b := e.token(t, "user_a"), e.token(t, "user_b")
	var codes []int
	for range 11 {
		codes = append(codes, e.call(t, http.MethodPost, feedbackPath, a, `{"message":"again"}`).Code)
	}
	require.Equal(t, 10, len(slices.DeleteFunc(slices.Clone(codes), func(c int) bool { return c != http.StatusCreated })))
	rec := e.call(t, http.MethodPost, feedbackPath, a, `{"message":"again"}`)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "360", rec.Header().Get("Retry-After"), "ten an hour: one every six minutes")
	require.Equal(t, http.StatusCreated, e.call(t, http.MethodPost, feedbackPath, b, `{"message":"mine"}`).Code, "per user")
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, mePath, a, "").Code, "the rest of the API is not affected")
}
