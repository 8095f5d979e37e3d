package db_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// schemaSnapshot describes the public schema: columns with types and defaults, every constraint's
// definition and every index's definition, sorted, so two snapshots compare as strings.
func schemaSnapshot(t *testing.T, d *pgtest.DB) string {
	t.Helper()
	var rows []string
	err := d.Gorm.Raw(`
		SELECT 'col ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
		  FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'goose_db_version'
		UNION ALL
		SELECT 'con ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
		  FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text <> 'goose_db_version'
		UNION ALL
		SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> 'goose_db_version'
		UNION ALL
		SELECT 'trg ' || tgname FROM pg_trigger WHERE NOT tgisinternal
		ORDER BY 1`).Scan(&rows).Error
	require.NoError(t, err)
	return strings.Join(rows, "\n")
}

func TestMigrationsRoundTrip(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	m, err := db.NewMigrator(d.SQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)

	before := schemaSnapshot(t, d)
	require.Contains(t, before, "uq_processed_webhook_events_provider_event_id UNIQUE (provider, event_id)")

	n, err := m.DownTo(ctx, 0)
	require.NoError(t, err)
	require.Positive(t, n)
	require.Empty(t, schemaSnapshot(t, d), "down to zero leaves no table, index or trigger behind")

	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, before, schemaSnapshot(t, d))

	pending, err := m.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, pending)
	require.Contains(t, before, "river_job", "River's queue tables come with migrate up")
}

// The hole: readiness compared the schema version for equality, so once a rolling deploy's release step had
// migrated, every instance still on the old build answered 503, and a rolled-back build never became ready.
func TestReadyWhileSchemaIsAheadOfTheBuild(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	m, err := db.NewMigrator(d.SQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)

	// A newer release's migration, applied by its release step.
	require.NoError(t, d.Gorm.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)`).Error)
	pending, err := m.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, pending, "an older build on a newer schema is ready")

	// Behind is still not ready.
	require.NoError(t, d.Gorm.Exec(`DELETE FROM goose_db_version WHERE version_id = 99999`).Error)
	require.NoError(t, m.Down(ctx))
	pending, err = m.Pending(ctx)
	require.NoError(t, err)
	require.Contains(t, pending, "this build expects")
}

func TestEveryForeignKeyIsIndexed(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	// A foreign key without an index on its columns makes every delete of the parent scan the child.
	var unindexed []string
	err := d.Gorm.Raw(`
		SELECT c.conrelid::regclass || '.' || c.conname
		  FROM pg_constraint c
		 WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
		   AND NOT EXISTS (
		       SELECT 1 FROM pg_index i
		        WHERE i.indrelid = c.conrelid
		          AND (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] = c.conkey)`).Scan(&unindexed).Error
	require.NoError(t, err)
	require.Empty(t, unindexed)
}

func TestTranslateDuplicate(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	insert := func() error {
		return db.Translate(d.Gorm.Exec(
			`INSERT INTO processed_webhook_events (provider, event_id, event_type) VALUES ('paddle', 'evt_1', 'x')`).Error)
	}
	require.NoError(t, insert())
	require.ErrorIs(t, insert(), db.ErrDuplicate)
	// Raw(...).Scan is not translated by GORM; Translate still recognises the Postgres code.
	var ids []string
	err := d.Gorm.Raw(`INSERT INTO processed_webhook_events (provider, event_id, event_type) VALUES ('paddle', 'evt_1', 'x') RETURNING id`).Scan(&ids).Error
	require.ErrorIs(t, db.Translate(err), db.ErrDuplicate)
}

func TestCreditLedgerIsAppendOnly(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO users (clerk_user_id) VALUES ('user_1')`).Error)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id)
		SELECT id, 5, 'grant', 'g1' FROM users`).Error)
	err := d.Gorm.Exec(`UPDATE credit_transactions SET delta = 500`).Error
	require.ErrorContains(t, err, "append-only")
	// The sign of a movement is fixed by its kind.
	err = d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id)
		SELECT id, 5, 'deduct', 'd1' FROM users`).Error
	require.ErrorIs(t, err, gorm.ErrCheckConstraintViolated)
}
