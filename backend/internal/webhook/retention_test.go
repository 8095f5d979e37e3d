package webhook_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// archivePartitions lists the archive's partitions by name.
func (f *fixture) archivePartitions(t *testing.T) []string {
	t.Helper()
	var names []string
	require.NoError(t, f.db.Raw(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'webhook_events'::regclass ORDER BY 1`).Scan(&names).Error)
	return names
}

// EnsurePartitions keeps the month of `now` and the PartitionsAhead months after it ready, creates only
// what is missing, and a second run creates nothing. A table beside them that is not one of ours is left
// alone.
func TestEnsurePartitionsKeepsMonthsAhead(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	require.NoError(t, f.db.Exec(`CREATE TABLE webhook_events_imported PARTITION OF webhook_events
		FOR VALUES FROM ('2001-01-01') TO ('2001-02-01')`).Error)
	at := time.Date(2091, 11, 15, 12, 0, 0, 0, time.UTC) // far past the months the migration made
	n, err := webhook.EnsurePartitions(ctx, f.db, at)
	require.NoError(t, err)
	require.Equal(t, webhook.PartitionsAhead+1, n)
	parts := f.archivePartitions(t)
	for _, want := range []string{"webhook_events_imported", "webhook_events_y2091m11", "webhook_events_y2091m12",
		"webhook_events_y2092m01", "webhook_events_y2092m02"} {
		require.Contains(t, parts, want)
	}
	require.NotContains(t, parts, "webhook_events_y2092m03")

	n, err = webhook.EnsurePartitions(ctx, f.db, at)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = webhook.EnsurePartitions(ctx, f.db, at.AddDate(0, 1, 0))
	require.NoError(t, err)
	require.Equal(t, 1, n, "a month later, one more month")
}

// The purge drops every partition whose whole month is past, and deletes the old rows of the one partly
// expired partition batch by batch until none is left, whatever the batch size.
func TestPurgeDropsExpiredMonthsAndDeletesInBatches(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	month := time.Date(2091, 6, 1, 0, 0, 0, 0, time.UTC) // past every month the migration made
	// March to June, and August to November: the partitions are visited in map order, so five months
	// to keep among the expired ones make a run that stops at the first month it keeps fail every time.
	for _, at := range []time.Time{month.AddDate(0, -3, 0), month.AddDate(0, 2, 0)} {
		_, err := webhook.EnsurePartitions(ctx, f.db, at)
		require.NoError(t, err)
	}
	for i := range 12 {
		_, err := f.ingest(ctx, fmt.Sprintf("evt_%d", i), "effect.happened")
		require.NoError(t, err)
	}
	// Two rows in each of March, April and May; five early in June, one late in June.
	age := func(at time.Time, ids ...int) {
		for _, i := range ids {
			require.NoError(t, f.db.Exec(`UPDATE webhook_events SET created_at = ? WHERE event_id = ?`, at, fmt.Sprintf("evt_%d", i)).Error)
		}
	}
	age(month.AddDate(0, -3, 1), 0, 1)
	age(month.AddDate(0, -2, 1), 2, 3)
	age(month.AddDate(0, -1, 1), 4, 5)
	age(month.Add(time.Hour), 6, 7, 8, 9, 10)
	age(month.AddDate(0, 0, 20), 11)

	n, err := webhook.PurgeArchive(ctx, f.db, month.AddDate(0, 0, 1), 2)
	require.NoError(t, err)
	require.Equal(t, 11, n, "six rows with their three months, then five in batches of 2, 2 and 1")
	require.Equal(t, []string{"webhook_events_y2091m06", "webhook_events_y2091m08", "webhook_events_y2091m09",
		"webhook_events_y2091m10", "webhook_events_y2091m11"}, f.archivePartitions(t), "every month before June dropped")
	var left []string
	require.NoError(t, f.db.Raw(`SELECT event_id FROM webhook_events`).Scan(&left).Error)
	require.Equal(t, []string{"evt_11"}, left)
	require.Equal(t, int64(12), f.counts(t).claims, "claims are never purged")
}
