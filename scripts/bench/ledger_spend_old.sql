-- L1's and L2's "before": one spend as the server sent it before balance rows and buckets (commit 2c0feb9,
-- credits' lockUser, deductSQL and balance), for bench user :u (random in :lo..:hi): the user row's lock, a
-- deduct whose condition sums the user's whole history, the audit row, the balance summed again. Written
-- by hand from that commit (its statements no longer exist in the tree); the users read and the audit
-- row are ledger_spend.sql's. Run on the current schema, where it writes deducts without allocations:
-- scripts/bench-ledger.sh gives it users of its own and removes them before the ledger's checks.
\set u random(:lo, :hi)
\set rb random(1, 9000000000)
SELECT * FROM "users" WHERE id = md5('bench-user-' || :u)::uuid LIMIT (1);
BEGIN;
SELECT id FROM users WHERE id = md5('bench-user-' || :u)::uuid FOR NO KEY UPDATE;
INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, expires_at)
SELECT md5('bench-user-' || :u)::uuid::uuid, (-1)::integer, 'deduct', ('pg-' || :client_id || '-' || :rb), 'bench'::text, now() + make_interval(secs => (900)::float8)
 WHERE (SELECT COALESCE(SUM(delta), 0) FROM credit_transactions WHERE user_id = md5('bench-user-' || :u)::uuid) >= (1) ON CONFLICT ON CONSTRAINT uq_credit_transactions_user_job_kind DO NOTHING RETURNING id, user_id, delta, kind, job_id, reason, created_at, expires_at;
INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details, ip)
		VALUES (E'worker\x3a66bffd2a', 'credits.spent', md5('bench-user-' || :u)::uuid, 'credit_job', ('pg-' || :client_id || '-' || :rb), CAST((E'{"amount"\x3a1,"movement_id"\x3a"' || gen_random_uuid()::text || '"}') AS jsonb), CAST('127.0.0.1' AS inet));
SELECT COALESCE(SUM(delta), 0) FROM credit_transactions WHERE user_id = md5('bench-user-' || :u)::uuid;
COMMIT;
