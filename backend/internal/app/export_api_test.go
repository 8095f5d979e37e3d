package app

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeSizes records how the handler wrote its body: how many writes, and the largest.
type writeSizes struct {
	*httptest.ResponseRecorder
	writes, largest int
}

func (w *writeSizes) Write(b []byte) (int, error) {
	w.writes++
	w.largest = max(w.largest, len(b))
	return w.ResponseRecorder.Write(b)
}

// A user with a long history gets their export streamed: written in bounded pieces as it is read, never
// built whole in memory and sent in one write (which is what a long history made of every export: memory
// in proportion to the user's rows, per request). The document is still complete and valid JSON.
func TestExportIsStreamedInBoundedWrites(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	unverified(e.db, "3000 ledger rows planted by hand, past the ledger's balance row and buckets, to make a long export fast")
	e.subscribe(t, "user_long", "active", "pro")
	const rows = 3000
	require.NoError(t, e.db.Gorm.Exec(`WITH u AS (SELECT id FROM users WHERE clerk_user_id = 'user_long'),
		c AS (INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
		      SELECT u.id, 1, 'grant', 'grant:' || i, 'a reason long enough to weigh something' FROM u, generate_series(1, ?) i)
		INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details)
		SELECT 'system', 'email.sent', u.id, 'broadcast_run', i::text, '{"template":"announcement","kind":"marketing"}'
		FROM u, generate_series(1, ?) i`, rows, rows).Error)

	req := httptest.NewRequest(http.MethodGet, exportPath, nil)
	req.Header.Set("Authorization", "Bearer "+e.token(t, "user_long"))
	w := &writeSizes{ResponseRecorder: httptest.NewRecorder()}
	e.app.Echo().ServeHTTP(w, req)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	var out struct {
		Subscriptions      []json.RawMessage `json:"subscriptions"`
		CreditTransactions []json.RawMessage `json:"credit_transactions"`
		Feedback           []json.RawMessage `json:"feedback"`
		AuditLogs          []json.RawMessage `json:"audit_logs"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
	require.Len(t, out.Subscriptions, 1)
	require.Len(t, out.CreditTransactions, rows)
	require.NotNil(t, out.Feedback, "an empty section is [], not missing")
	require.Empty(t, out.Feedback)
	require.Len(t, out.AuditLogs, rows)
	require.Greater(t, w.Body.Len(), 1<<20, "a history worth streaming")
	require.LessOrEqual(t, w.largest, 64<<10, "no write larger than a buffer (%d writes)", w.writes)
	require.Greater(t, w.writes, 10)
}
