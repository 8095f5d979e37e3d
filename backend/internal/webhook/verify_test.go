package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

const retention = 90 * 24 * time.Hour

// webhookViolations runs the pipeline's checks and returns what each found, by check.
func (f *fixture) webhookViolations(t *testing.T) map[string][]verify.Violation {
	t.Helper()
	rep, err := verify.Run(context.Background(), f.db, webhook.Checks(retention), verify.Scope{})
	require.NoError(t, err)
	out := map[string][]verify.Violation{}
	for _, r := range rep.Results {
		if r.Count > 0 {
			out[r.Check.Name] = r.Violations
		}
	}
	return out
}

// busyArchive delivers one of everything: processed, a duplicate (skipped), an unhandled type (ignored), a
// handler failure (failed, no claim); and five events aged past the retention and purged (claims stay).
func busyArchive(t *testing.T) *fixture {
	t.Helper()
	f := setup(t)
	f.behave = func(_ context.Context, n int64) error {
		if n == 2 {
			return errors.New("boom")
		}
		return nil
	}
	ctx := context.Background()
	for _, d := range []struct{ id, typ string }{{"evt_ok", "effect.happened"}, {"evt_fail", "effect.happened"},
		{"evt_ok", "effect.happened"}, {"evt_other", "other.thing"}} {
		_, err := f.ingest(ctx, d.id, d.typ)
		if d.id != "evt_fail" {
			require.NoError(t, err)
		}
	}
	f.behave = nil
	for i := range 5 {
		_, err := f.ingest(ctx, fmt.Sprintf("evt_old_%d", i), "effect.happened")
		require.NoError(t, err)
	}
	_, err := webhook.EnsurePartitions(ctx, f.db, time.Now().Add(-100*24*time.Hour))
	require.NoError(t, err)
	require.NoError(t, f.db.Exec(`UPDATE webhook_events SET created_at = now() - interval '100 days' WHERE event_id LIKE 'evt_old_%'`).Error)
	require.NoError(t, f.db.Exec(`UPDATE processed_webhook_events SET processed_at = now() - interval '100 days' WHERE event_id LIKE 'evt_old_%'`).Error)
	n, err := webhook.PurgeArchive(ctx, f.db, time.Now().Add(-retention), 100)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	require.Equal(t, counts{effects: 6, claims: 7, processed: 1, skipped: 1, failed: 1, ignored: 1}, f.counts(t))
	require.Empty(t, f.webhookViolations(t), "a purged archive row is no violation: its claim is older than the retention")
	return f
}

func TestWebhookChecksFindPlantedViolations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, plant, check, subject string
	}{
		{"an archive row deleted inside the retention", `DELETE FROM webhook_events WHERE event_id = 'evt_other'`,
			"webhooks.claim_is_archived", "paddle evt_other"},
		{"a claim's row rewritten as skipped", `UPDATE webhook_events SET processing_status = 'skipped' WHERE event_id = 'evt_ok' AND processing_status = 'processed'`,
			"webhooks.claim_is_archived", "paddle evt_ok"},
		{"a claim deleted", `DELETE FROM processed_webhook_events WHERE event_id = 'evt_ok'`,
			"webhooks.archive_is_claimed", "paddle evt_ok"},
		{"next month's partition dropped", "DROP TABLE " + partition(1), "webhooks.archive_partitions", partition(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := busyArchive(t)
			require.NoError(t, f.db.Exec(tc.plant).Error)
			got := f.webhookViolations(t)
			require.Len(t, got, 1, got)
			require.Len(t, got[tc.check], 1, got)
			require.Equal(t, tc.subject, got[tc.check][0].Subject)
		})
	}
}

// partition names the archive partition of the month monthsAhead after the current one.
func partition(monthsAhead int) string {
	now := time.Now().UTC()
	m := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, monthsAhead, 0)
	return fmt.Sprintf("webhook_events_y%04dm%02d", m.Year(), int(m.Month()))
}
