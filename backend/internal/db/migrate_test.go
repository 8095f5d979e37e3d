package db_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// schemaSnapshot describes the public schema: columns with types and defaults, every constraint's
// definition and every index's definition, sorted, so two snapshots compare as strings. goose's own
// tables (its versions and its lock) are goose's, not the migrations'.
func schemaSnapshot(t *testing.T, d *pgtest.DB) string {
	t.Helper()
	var rows []string
	err := d.Gorm.Raw(`
		SELECT 'col ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
		  FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT IN ('goose_db_version', 'goose_lock')
		UNION ALL
		SELECT 'con ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
		  FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text NOT IN ('goose_db_version', 'goose_lock')
		UNION ALL
		SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT IN ('goose_db_version', 'goose_lock')
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

// The migration that closed the hole "users reporting their own job outcomes" (00010, docs/security.md): deducts
// written before it get the old fixed window as their deadline, job ids become per user, and going back down refuses a
// ledger the old constraint cannot hold.
func TestMigrationScopesJobsPerUserAndBackfillsDeadlines(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	m, err := db.NewMigrator(d.SQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	_, err = m.DownTo(ctx, 9)
	require.NoError(t, err)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO users (clerk_user_id) VALUES ('user_a'), ('user_b')`).Error)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id, created_at)
		SELECT id, -3, 'deduct', 'job-1', '2026-01-02 03:04:05+00' FROM users WHERE clerk_user_id = 'user_a'`).Error)

	_, err = m.Up(ctx)
	require.NoError(t, err)
	var deadline string
	require.NoError(t, d.Gorm.Raw(`SELECT to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
		FROM credit_transactions WHERE job_id = 'job-1'`).Scan(&deadline).Error)
	require.Equal(t, "2026-01-02 03:09:05", deadline, "created_at + 5 minutes")
	err = d.Gorm.Exec(`UPDATE credit_transactions SET reason = 'x'`).Error
	require.ErrorContains(t, err, "append-only", "the trigger is back on")

	require.NoError(t, d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id, expires_at)
		SELECT id, -1, 'deduct', 'job-1', now() FROM users WHERE clerk_user_id = 'user_b'`).Error, "another user's job-1")
	err = d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id)
		SELECT id, -1, 'deduct', 'job-2' FROM users WHERE clerk_user_id = 'user_b'`).Error
	require.ErrorIs(t, err, gorm.ErrCheckConstraintViolated, "a deduct without a deadline")
	_, err = m.DownTo(ctx, 9)
	require.ErrorContains(t, err, "uq_credit_transactions_job_kind", "down cannot merge two users' jobs")
}

// The archive's rebuild (00013: raw bodies, sources, monthly partitions) keeps every existing row, on a copy
// with data: old months get partitions, a malformed row gets its text back, a replay row is marked and
// keeps its link, and the table is usable for new rows afterwards.
func TestArchiveMigrationKeepsRowsAcrossPartitions(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	m, err := db.NewMigrator(d.SQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	_, err = m.DownTo(ctx, 12)
	require.NoError(t, err)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO webhook_events (id, provider, event_id, event_type, payload, signature,
		processing_status, error_message, created_at, replay_of) VALUES
		('00000000-0000-4000-8000-000000000001', 'paddle', 'evt_a', 'subscription.created', '{"event_id":"evt_a","n":1}', 'ts=1;h1=ab', 'failed', 'boom', '2026-03-15 10:00:00+00', NULL),
		('00000000-0000-4000-8000-000000000002', 'paddle', 'evt_a', 'subscription.created', '{"event_id":"evt_a","n":1}', NULL, 'processed', NULL, '2026-05-02 10:00:00+00', '00000000-0000-4000-8000-000000000001'),
		('00000000-0000-4000-8000-000000000003', 'clerk', 'msg_b', 'user.created', '"{\"type\": trunc"', NULL, 'failed', 'malformed', now(), NULL)`).Error)

	_, err = m.Up(ctx)
	require.NoError(t, err)
	var rows []struct {
		ID, Source, Body, Partition string
		ReplayOf                    *string
	}
	require.NoError(t, d.Gorm.Raw(`SELECT id::text, source, convert_from(body, 'UTF8') AS body, tableoid::regclass::text AS partition,
		replay_of::text FROM webhook_events ORDER BY id`).Scan(&rows).Error)
	require.Len(t, rows, 3)
	require.Equal(t, "webhook_events_y2026m03", rows[0].Partition)
	require.JSONEq(t, `{"event_id":"evt_a","n":1}`, rows[0].Body)
	require.Equal(t, "webhook", rows[0].Source)
	require.Equal(t, "webhook_events_y2026m05", rows[1].Partition)
	require.Equal(t, "replay", rows[1].Source)
	require.Equal(t, "00000000-0000-4000-8000-000000000001", *rows[1].ReplayOf)
	require.Equal(t, `{"type": trunc`, rows[2].Body, "a malformed row gets its text back")

	var parts int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM pg_inherits WHERE inhparent = 'webhook_events'::regclass`).Scan(&parts).Error)
	require.GreaterOrEqual(t, parts, 4+2, "March through three months ahead of now")
	require.NoError(t, d.Gorm.Exec(`INSERT INTO webhook_events (provider, event_id, event_type, body, processing_status)
		VALUES ('paddle', 'evt_new', 't', '\x00ff'::bytea, 'failed')`).Error, "any bytes are storable now")

	_, err = m.DownTo(ctx, 12)
	require.NoError(t, err, "down copies the rows back, a body jsonb cannot hold as a JSON string")
	var back int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM webhook_events`).Scan(&back).Error)
	require.Equal(t, 4, back)
}

// The bucket ledger (00021) carries an existing ledger over: each grant becomes a bucket (a subscription
// month's an allowance, the rest promotional), what was consumed since is taken from them in burn order,
// a balance below zero becomes debt, and every ledger check holds right after.
func TestLedgerMigrationCarriesExistingLedgersOver(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	ctx := context.Background()
	m, err := db.NewMigrator(d.SQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	_, err = m.DownTo(ctx, 20)
	require.NoError(t, err)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO users (clerk_user_id) VALUES ('user_a'), ('user_b'), ('user_c')`).Error)
	require.NoError(t, d.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id, expires_at, created_at)
		SELECT u.id, v.delta, v.kind, v.job_id, CASE WHEN v.kind = 'deduct' THEN now() END, v.at::timestamptz
		  FROM (VALUES
		    ('user_a', 25, 'grant', 'signup:user_a', '2026-01-01'),
		    ('user_a', 1000, 'grant', 'grant:sub_a:2026-01-01T00:00:00Z', '2026-01-02'),
		    ('user_a', -100, 'deduct', 'job-1', '2026-01-03'),
		    ('user_a', -40, 'deduct', 'job-2', '2026-01-04'),
		    ('user_a', 40, 'refund', 'job-2', '2026-01-05'),
		    ('user_b', 25, 'grant', 'signup:user_b', '2026-01-01'),
		    ('user_b', -10, 'deduct', 'job-1', '2026-01-02'),
		    ('user_b', 10, 'reconciler_refund', 'job-1', '2026-01-03'),
		    ('user_b', -30, 'deduct', 'job-2', '2026-01-04'),
		    ('user_b', -10, 'recharge', 'job-1', '2026-01-05'),
		    ('user_b', 0, 'task_completed', 'job-1', '2026-01-05')
		  ) AS v(clerk, delta, kind, job_id, at) JOIN users u ON u.clerk_user_id = v.clerk`).Error)

	_, err = m.Up(ctx)
	require.NoError(t, err)
	var rows []struct {
		Clerk     string
		Balance   int
		Category  string
		Remaining int
	}
	require.NoError(t, d.Gorm.Raw(`SELECT u.clerk_user_id AS clerk, c.balance, b.category, b.remaining
		FROM users u JOIN credit_balances c ON c.user_id = u.id JOIN credit_buckets b ON b.user_id = u.id
		ORDER BY 1, 3`).Scan(&rows).Error)
	require.Equal(t, []struct {
		Clerk     string
		Balance   int
		Category  string
		Remaining int
	}{
		// user_a consumed 100: the promotional 25 first, then 75 of the allowance.
		{"user_a", 925, "allowance", 925}, {"user_a", 925, "promotional", 0},
		// user_b consumed 40 of 25: the rest is debt.
		{"user_b", -15, "debt", -15}, {"user_b", -15, "promotional", 0},
	}, rows)
	var balances int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM credit_balances`).Scan(&balances).Error)
	require.Equal(t, 2, balances, "user_c has no movement, so no balance row")
	rep, err := verify.Run(ctx, d.Gorm, credits.Checks(), verify.Scope{})
	require.NoError(t, err)
	for _, r := range rep.Results {
		require.Empty(t, r.Violations, r.Check.Name)
	}
}
