package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeLedger answers spends as the server does (201, a new deduct; 200 idempotent for a job id seen
// before) and records whose credits each spend named.
type fakeLedger struct {
	mu    sync.Mutex
	jobs  map[string]bool
	users map[string]int
}

func (f *fakeLedger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/billing/credits" && r.Header.Get("Authorization") == "Bearer tok":
		_, _ = w.Write([]byte(`{"balance":1,"items":[]}`))
		return
	case r.Method != http.MethodPost || r.URL.Path != "/api/v1/credits/spend" || r.Header.Get("Authorization") != "Bearer wk":
		http.Error(w, "refused", http.StatusUnauthorized)
		return
	}
	var req struct {
		UserID string `json:"user_id"`
		Amount int    `json:"amount"`
		JobID  string `json:"job_id"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Amount != 1 || req.JobID == "" {
		http.Error(w, "bad", http.StatusUnprocessableEntity)
		return
	}
	f.mu.Lock()
	dup := f.jobs[req.JobID]
	f.jobs[req.JobID] = true
	f.users[req.UserID]++
	f.mu.Unlock()
	if dup {
		_, _ = w.Write([]byte(`{"idempotent":true}`))
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"idempotent":false}`))
}

func TestRunCreditModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode      string
		wantUsers int
	}{{modeSpend, 0}, {modeSpendHot, 1}, {modeCredits, 0}} {
		f := &fakeLedger{jobs: map[string]bool{}, users: map[string]int{}}
		srv := httptest.NewServer(f)
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"-url", srv.URL, "-mode", tc.mode, "-senders", "4", "-duration", "200ms",
			"-warmup", "0s", "-max", "300", "-worker-key", "wk", "-token", "tok", "-users", "50", "-hot-user", "7"}, &out, &errOut)
		srv.Close()
		require.NoError(t, err, errOut.String())
		var rep report
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
		require.Zero(t, rep.Errors)
		require.Positive(t, rep.Deliveries)
		require.LessOrEqual(t, rep.Sent, int64(300))
		if tc.mode == modeSpendHot {
			require.Equal(t, map[string]int{BenchUserID(7).String(): int(rep.Sent)}, f.users, "every spend for the hot user")
		}
		if tc.mode == modeSpend {
			require.Greater(t, len(f.users), 1, "spends spread over the users")
			require.LessOrEqual(t, len(f.users), 50)
		}
	}
}

func TestSpendFailsUnlessNew(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"idempotent":true}`))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-url", srv.URL, "-mode", modeSpend, "-duration", "50ms", "-warmup", "0s",
		"-max", "3", "-worker-key", "wk"}, &out, &errOut)
	require.ErrorContains(t, err, "200 OK")
}

// A paired run alternates the two users request by request and reports each side's latencies apart.
func TestPairedSpendsAlternate(t *testing.T) {
	t.Parallel()
	f := &fakeLedger{jobs: map[string]bool{}, users: map[string]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-url", srv.URL, "-mode", modeSpendHot, "-senders", "2", "-duration", "200ms",
		"-warmup", "0s", "-max", "200", "-worker-key", "wk", "-hot-user", "7", "-pair-user", "9"}, &out, &errOut)
	require.NoError(t, err, errOut.String())
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Positive(t, rep.Deliveries)
	require.Positive(t, rep.PairDeliveries)
	require.Positive(t, rep.PairP50MS)
	seven, nine := f.users[BenchUserID(7).String()], f.users[BenchUserID(9).String()]
	require.Equal(t, int(rep.Sent), seven+nine)
	require.InDelta(t, seven, nine, 2, "one each in turn, per sender")
}
