package app

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// Every test database an App was built on passes `fabrica verify` when its test ends: each API test leaves
// behind the state its requests and webhooks made, and the whole suite proves the invariants on all of
// them (docs/operations.md, *Verify*).
var endChecks = struct {
	sync.Mutex
	dbs  map[*pgtest.DB]bool // registered: several Apps on one database verify it once
	skip map[*pgtest.DB]string
}{dbs: map[*pgtest.DB]bool{}, skip: map[*pgtest.DB]string{}}

// verifyAtEnd registers the check of d for when t ends. It is registered after the App's Close, so it runs
// before it (cleanups run last-registered first), and after whatever the test registered later (its
// workers' drain). Benchmarks are left alone.
func verifyAtEnd(tb testing.TB, a *App, d *pgtest.DB) {
	t, ok := tb.(*testing.T)
	if !ok {
		return
	}
	endChecks.Lock()
	defer endChecks.Unlock()
	if endChecks.dbs[d] {
		return
	}
	endChecks.dbs[d] = true
	t.Cleanup(func() {
		endChecks.Lock()
		reason, skip := endChecks.skip[d]
		delete(endChecks.dbs, d)
		delete(endChecks.skip, d)
		endChecks.Unlock()
		if skip || t.Failed() {
			if skip {
				t.Logf("verify skipped: %s", reason)
			}
			return
		}
		rep, err := a.Verify(context.Background(), nil, verify.Scope{})
		if err != nil {
			t.Errorf("verify at the end of the test: %v", err)
			return
		}
		if rep.Violations() > 0 {
			t.Errorf("verify at the end of the test: %d violation(s):\n%s", rep.Violations(), rep)
		}
		t.Logf("verify: %d checks in %s", len(rep.Results), rep.Took)
	})
}

// unverified exempts d from the check at the end of the test, saying why (a test that drops its database,
// or plants a violation on purpose).
func unverified(d *pgtest.DB, reason string) {
	endChecks.Lock()
	defer endChecks.Unlock()
	endChecks.skip[d] = reason
}

// claimProcessed gives every archive row planted as processed the claim the pipeline commits with it.
func claimProcessed(t *testing.T, d *pgtest.DB) {
	t.Helper()
	require.NoError(t, d.Gorm.Exec(`INSERT INTO processed_webhook_events (provider, event_id, event_type, processed_at)
		SELECT provider, event_id, event_type, created_at FROM webhook_events WHERE processing_status = 'processed'`).Error)
}
