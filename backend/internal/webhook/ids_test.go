package webhook_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// Claims and archive rows get UUIDv7 ids, which start with the time: each insert lands at the right edge
// of the id index (docs/benchmarks.md, T5). A v4 id would change no answer, only the cost of every insert,
// so the ids' version is what is checked, on every path that writes a row: processed, skipped, failed.
func TestClaimAndArchiveIDsAreUUIDv7(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.behave = func(_ context.Context, n int64) error {
		if n == 2 {
			return errors.New("handler says no")
		}
		return nil
	}
	ctx := context.Background()
	_, err := f.ingest(ctx, "evt_ok", "effect.happened")
	require.NoError(t, err)
	_, err = f.ingest(ctx, "evt_ok", "effect.happened") // skipped
	require.NoError(t, err)
	_, err = f.ingest(ctx, "evt_fails", "effect.happened") // failed, archived by recordFailure
	require.Error(t, err)

	var ids []uuid.UUID
	require.NoError(t, f.db.Raw(`SELECT id FROM webhook_events UNION ALL SELECT id FROM processed_webhook_events`).Scan(&ids).Error)
	require.Len(t, ids, 4, "three archive rows (processed, skipped, failed) and one claim")
	for _, id := range ids {
		require.Equal(t, uuid.Version(7), id.Version(), "id %s", id)
	}
}
