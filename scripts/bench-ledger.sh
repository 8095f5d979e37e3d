#!/usr/bin/env bash
# The ledger benchmark of `make bench` (docs/benchmarks.md, *The credit ledger*), in the method of
# scripts/bench.sh: a throwaway Postgres cluster (default durability), the real server driven through HTTP
# by bin/loadgen's credit modes with a worker key, and pgbench on the same database running what the
# server sends for a spend (scripts/bench/ledger_spend.sql, generated from the statements the server sent
# by app's TestLedgerBenchScript), round trip for round trip, in the same run. Rounds interleave every
# phase; verdicts are on the median of the rounds.
#
#   L1  spend p50, one client alternating between a user with BENCH_HISTORY movements and one
#       with none: the first's / the second's                                                  <= 1.2
#       (the server, pgbench, and pgbench on the ledger's statements before balance rows,
#       scripts/bench/ledger_spend_old.sql, side by side)
#   L2  one hot user, 16 spenders: spends/s / pgbench's at 16 clients                          >= 0.8
#   L3  random users of BENCH_USERS, 32 spenders: spends/s / pgbench's at 32 clients           >= 0.8,
#       and p99 / p50                                                                          <= 3
#   L4  GET /api/v1/billing/credits p50, alternating: the user with BENCH_HISTORY movements /
#       one with none                                                                          <= 1.2
#       (and / one with 100, whose first page is as full)
#   L5  the expire-credits task on BENCH_DUE due buckets, run until none is left, while
#       BENCH_L5_SENDERS spend: spend p99 during the task / without it                         <= 2
#   Migration: BENCH_MIGRATE_ROWS movements at migration 00020, then `fabrica migrate up` (00021
#       carries them over) and the ledger's checks (bin/ledgerverify), each timed.
#
#   BENCH_SECONDS=8 BENCH_WARMUP=1s BENCH_ROUNDS=3 BENCH_USERS=10000 BENCH_HISTORY=1000000
#   BENCH_DUE=1000000 BENCH_L5_SENDERS=8 BENCH_L5_LIMIT=1200 (seconds) BENCH_MIGRATE_ROWS=10000000
#   BENCH_PG_PORT=54520 BENCH_PORT=18220 BENCH_DB_MAX_CONNS=40 BENCH_MAX=400000
# BENCH_DUE=0 skips L5, BENCH_MIGRATE_ROWS=0 the migration. Traffic goes to 127.0.0.1 only; every phase is
# bounded in time and count; the server and the cluster are removed on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The helpers every load benchmark shares (log is each script's own: its prefix).
. scripts/bench-lib.sh
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

secs=${BENCH_SECONDS:-8}
warmup=${BENCH_WARMUP:-1s}
rounds=${BENCH_ROUNDS:-3}
users=${BENCH_USERS:-10000}
history=${BENCH_HISTORY:-1000000}
due=${BENCH_DUE:-1000000}
l5_senders=${BENCH_L5_SENDERS:-8}
l5_limit=${BENCH_L5_LIMIT:-1200}
mig_rows=${BENCH_MIGRATE_ROWS:-10000000}
max_requests=${BENCH_MAX:-400000}
db_max_conns=${BENCH_DB_MAX_CONNS:-40}
worker_key=bench-worker-key-0123456789abcdef0123456789
dbname=fabrica_bench
migdb=fabrica_migrate

# Bench users are md5('bench-user-' || n)::uuid (loadgen's BenchUserID), Clerk id user_bench_<n>.
# 1..users spend in L3 and L5; the rest have one role each. L1's users with no history are fresh every
# round and side, so none has the rows of an earlier phase.
hot=100001 full=100002 zero=100003 old_full=100004 old_hot=100005 page=100006
empty() { echo $((100100 + 10 * $1 + $2)); } # ROUND SIDE (0 server, 1 pgbench, 2 old statements)

log() { echo "bench-ledger: $*" >&2; }

bindir=$(scripts/ensure-postgres.sh)
work=$(mktemp -d /tmp/fabrica-bench-ledger.XXXXXX)
chmod 755 "$work"
data=$work/pg
server_pid="" bg_pids=()
cleanup() {
  local code=$? p
  for p in "${bg_pids[@]}"; do stop_pid "$p"; done
  stop_pid "$server_pid"
  if [ -s "$data/PG_VERSION" ]; then as_owner "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t_start=$SECONDS
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
log "$(nproc) cores, load $(loadavg); ${secs}s per phase, $rounds rounds"

# The cluster: scripts/bench.sh's settings (fsync, synchronous_commit and full_page_writes on; a
# CHECKPOINT before each phase instead of timed ones inside it).
pg_port=$(free_port "${BENCH_PG_PORT:-54520}")
mkdir -p "$data"
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$data"; fi
chmod 700 "$data"
as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C --no-instructions >/dev/null
as_owner "$bindir/pg_ctl" -D "$data" -w -t 60 -l "$data/server.log" -o "-c listen_addresses=127.0.0.1 -p $pg_port \
  -c unix_socket_directories='' -c shared_buffers=128MB -c max_connections=200 -c max_wal_size=8GB \
  -c checkpoint_timeout=30min" start >/dev/null || { cat "$data/server.log" >&2; die "postgres did not start"; }
pm_pid=$(head -n 1 "$data/postmaster.pid")
sql "postgres://postgres@127.0.0.1:$pg_port/postgres" -c "CREATE DATABASE $dbname"
db_url="postgres://postgres@127.0.0.1:$pg_port/$dbname?sslmode=disable"

make --no-print-directory build >/dev/null
go build -o bin/loadgen ./backend/cmd/loadgen
go build -o bin/ledgerverify ./backend/cmd/ledgerverify
fabrica() { (cd "$work" && env APP_ENV=development DATABASE_URL="${url:-$db_url}" LOG_LEVEL=warn "$root/bin/fabrica" "$@"); }
fabrica migrate up >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; die "migrate up failed"; }

# The ledger, as the ledger's own statements leave it (`make bench` checks it with bin/ledgerverify at the
# end). Every spending user has one promotional bucket of 10^9 credits that never expires.
users_sql() { echo "INSERT INTO users (id, clerk_user_id, email, email_verified)
  SELECT md5('bench-user-' || g)::uuid, 'user_bench_' || g, 'bench' || g || '@bench.test', true FROM ($1) s(g)"; }
grant_sql() { # SET: a grant, its bucket, its allocation and the balance row of each user in SET
  echo "INSERT INTO credit_transactions (id, user_id, delta, kind, job_id, reason, created_at)
  SELECT md5('grant-' || g)::uuid, md5('bench-user-' || g)::uuid, 1000000000, 'grant', 'bench-grant', 'bench', now() - interval '400 days' FROM ($1) s(g);
INSERT INTO credit_buckets (id, user_id, category, amount, remaining, grant_id, created_at)
  SELECT md5('bucket-' || g)::uuid, md5('bench-user-' || g)::uuid, 'promotional', 1000000000, 1000000000, md5('grant-' || g)::uuid,
         now() - interval '400 days' FROM ($1) s(g);
INSERT INTO credit_allocations (movement_id, bucket_id, delta) SELECT md5('grant-' || g)::uuid, md5('bucket-' || g)::uuid, 1000000000 FROM ($1) s(g);
INSERT INTO credit_balances (user_id, balance) SELECT md5('bench-user-' || g)::uuid, 1000000000 FROM ($1) s(g);"
}
# history_sql USER PREFIX ALLOCATED [N]: a year of USER's jobs before now, N (BENCH_HISTORY) movements in all
# with the grant: deducts of 1 credit, each but the last followed by its task_completed marker (the last, still
# running, has a deadline a day ahead, so the reconciler and verify leave it be). ALLOCATED true: the
# ledger as it is (each deduct allocated to the user's bucket, the bucket and balance row in step); false:
# movements as the ledger before buckets wrote them (L1's old statements read only those).
history_sql() {
  local u=$1 p=$2 alloc=$3 n=${4:-$history} span="interval '365 days'"
  local d=$((n / 2)) m=$((n - 1 - n / 2))
  echo "INSERT INTO credit_transactions (id, user_id, delta, kind, job_id, reason, expires_at, created_at, allocated)
  SELECT md5('$p-' || k)::uuid, md5('bench-user-$u')::uuid, -1, 'deduct', '$p-' || k, 'bench',
         CASE WHEN k = $d THEN now() + interval '1 day' ELSE t + interval '15 minutes' END, t, $alloc
    FROM generate_series(1, $d) k, LATERAL (SELECT now() - $span + k * ($span / ($d + 1)) AS t) x;
INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at, allocated)
  SELECT md5('bench-user-$u')::uuid, 0, 'task_completed', '$p-' || k, '', t + interval '1 minute', $alloc
    FROM generate_series(1, $m) k, LATERAL (SELECT now() - $span + k * ($span / ($d + 1)) AS t) x;"
  if [ "$alloc" = true ]; then
    echo "INSERT INTO credit_allocations (movement_id, bucket_id, delta)
  SELECT md5('$p-' || k)::uuid, md5('bucket-$u')::uuid, -1 FROM generate_series(1, $d) k;
UPDATE credit_buckets SET remaining = remaining - $d WHERE id = md5('bucket-$u')::uuid;
UPDATE credit_balances SET balance = balance - $d WHERE user_id = md5('bench-user-$u')::uuid;"
  fi
}
# due_sql: BENCH_DUE allowance buckets of 100 credits, ten per user for bench users 1..BENCH_DUE/10 (the
# spenders among them), all past their expiry (an hour or two ago, a second apart, so a batch of the job
# holds buckets of as many users): a month boundary's worth of allowances to write off.
due_sql() {
  local u="md5('bench-user-' || (1 + (g - 1) / 10))::uuid"
  if [ $((due / 10)) -gt "$users" ]; then users_sql "SELECT generate_series($((users + 1)), $((due / 10)))"; echo ";"; fi
  echo "INSERT INTO credit_transactions (id, user_id, delta, kind, job_id, reason, created_at)
  SELECT md5('due-' || g)::uuid, $u, 100, 'grant', 'due-' || g, 'bench allowance', now() - interval '40 days'
    FROM generate_series(1, $due) g;
INSERT INTO credit_buckets (id, user_id, category, amount, remaining, expires_at, source, grant_id, created_at)
  SELECT md5('duebk-' || g)::uuid, $u, 'allowance', 100, 100, now() - interval '2 hours' + (g % 3600) * interval '1 second',
         'sub_bench', md5('due-' || g)::uuid, now() - interval '40 days'
    FROM generate_series(1, $due) g;
INSERT INTO credit_allocations (movement_id, bucket_id, delta) SELECT md5('due-' || g)::uuid, md5('duebk-' || g)::uuid, 100
    FROM generate_series(1, $due) g;
INSERT INTO credit_balances AS c (user_id, balance, next_expiry_at)
  SELECT user_id, sum(remaining), min(expires_at) FROM credit_buckets WHERE source = 'sub_bench' GROUP BY user_id
  ON CONFLICT (user_id) DO UPDATE SET balance = c.balance + EXCLUDED.balance, next_expiry_at = LEAST(c.next_expiry_at, EXCLUDED.next_expiry_at);"
}
new_users="SELECT generate_series(1, $users) UNION ALL VALUES ($hot), ($full), ($zero), ($old_full), ($old_hot), ($page)"
for r in $(seq "$rounds"); do new_users+=", ($(empty "$r" 0)), ($(empty "$r" 1)), ($(empty "$r" 2))"; done
spenders="SELECT generate_series(1, $users) UNION ALL VALUES ($hot), ($full), ($page)"
for r in $(seq "$rounds"); do spenders+=", ($(empty "$r" 0)), ($(empty "$r" 1))"; done
olds="VALUES ($old_full), ($old_hot)"
for r in $(seq "$rounds"); do olds+=", ($(empty "$r" 2))"; done
log "filling: $users spenders, $history movements for user $full (and as before buckets for user $old_full)..."
t0=$SECONDS
sql "$db_url" -c "SET synchronous_commit = off" -c "$(users_sql "$new_users")" -c "$(grant_sql "$spenders")" \
  -c "INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at, allocated)
        SELECT md5('bench-user-' || g)::uuid, 1000000000, 'grant', 'bench-grant', 'bench', now() - interval '400 days', false FROM ($olds) s(g)" \
  -c "$(history_sql "$full" hist true)" -c "$(history_sql "$old_full" oldhist false)" -c "$(history_sql "$page" page true 100)"
sql "$db_url" -c "VACUUM ANALYZE"
log "filled in $((SECONDS - t0)) s: $(sql "$db_url" -c "SELECT count(*) FROM credit_transactions") movements," \
  "$(sql "$db_url" -c "SELECT count(*) FROM credit_transactions WHERE user_id = md5('bench-user-$full')::uuid") of them user $full's," \
  "$(sql "$db_url" -c "SELECT pg_size_pretty(pg_database_size('$dbname'))")"

# The server: scripts/bench.sh's settings; no workers, so nothing expires or reconciles until L5 says so.
http_port=$(free_port "${BENCH_PORT:-18220}")
(cd "$work" && exec env APP_ENV=development PORT="$http_port" DATABASE_URL="$db_url" LOG_LEVEL=warn SERVE_WORKERS=false \
  DB_MAX_CONNS="$db_max_conns" RATE_LIMIT_PER_MINUTE=0 WORKER_API_KEYS="$worker_key" "$root/bin/fabrica" serve) \
  >>"$work/server.log" 2>&1 &
server_pid=$!
bin/loadgen -mode ready -url "http://127.0.0.1:$http_port" -wait-ready 60s || { tail -n 30 "$work/server.log" >&2; die "server not ready"; }
token() { fabrica dev token --user "user_bench_$1" --email "bench$1@bench.test" --ttl 6h; }
token_full=$(token "$full") token_zero=$(token "$zero") token_page=$(token "$page")
log "postgres on 127.0.0.1:$pg_port, server pid $server_pid on 127.0.0.1:$http_port"

# CPU per request or transaction, as scripts/bench.sh counts it (postgres / server / client; other = the
# rest of the machine, neighbours and steal).
stat_ticks() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || s=""; awk -v c="${2:-0}" '{sub(/^.*\) /, ""); n = $12 + $13 + (c ? $14 + $15 : 0)} END {print n + 0}' <<<"$s"; }
pg_ticks() { local t p; t=$(stat_ticks "$pm_pid" 1); for p in $(ps -o pid= --ppid "$pm_pid"); do t=$((t + $(stat_ticks "$p"))); done; echo "$t"; }
cpu_mark() { read -r m_busy m_total <<<"$(machine_ticks)"; m_pg=$(pg_ticks) m_srv=$(stat_ticks "$server_pid") m_cli=$(stat_ticks $$ 1); }
cpu_spent() { # N: "postgres_ms server_ms client_ms other_pct" per request since cpu_mark
  local busy total
  read -r busy total <<<"$(machine_ticks)"
  awk -v n="$1" -v hz="$(getconf CLK_TCK)" -v pg=$(($(pg_ticks) - m_pg)) -v srv=$(($(stat_ticks "$server_pid") - m_srv)) \
    -v cli=$(($(stat_ticks $$ 1) - m_cli)) -v busy=$((busy - m_busy)) -v total=$((total - m_total)) 'BEGIN {
      ms = 1000 / hz / (n > 0 ? n : 1); other = busy - pg - srv - cli
      printf "%.3f %.3f %.3f %.0f", pg * ms, srv * ms, cli * ms, (other > 0 ? 100 * other / total : 0) }'
}

declare -A rate p50 p99 cpu load
# server KEY MODE SENDERS [FLAGS...]: one loadgen phase after a CHECKPOINT. A paired run (-pair-user,
# -pair-token) keeps its pair's latencies under KEY/pair.
server() {
  local key=$1 mode=$2 senders=$3 out
  shift 3
  sql "$db_url" -c CHECKPOINT
  cpu_mark
  out=$(bin/loadgen -url "http://127.0.0.1:$http_port" -mode "$mode" -senders "$senders" -duration "${secs}s" -warmup "$warmup" \
    -max "$max_requests" -worker-key "$worker_key" -users "$users" "$@") ||
    { tail -n 20 "$work/server.log" >&2; die "loadgen -mode $mode failed"; }
  rate[$key]=$(field per_sec "$out") p50[$key]=$(field p50_ms "$out") p99[$key]=$(field p99_ms "$out")
  if grep -q pair_p50_ms <<<"$out"; then p50[$key/pair]=$(field pair_p50_ms "$out") p99[$key/pair]=$(field pair_p99_ms "$out"); fi
  cpu[$key]=$(cpu_spent "$(field sent "$out")") load[$key]=$(loadavg)
}
# pgb KEY SCRIPT CLIENTS LO HI [PAIR_LO PAIR_HI]: pgbench on bench users LO..HI; p50 and p99 from its
# per-transaction log. With a pair, a copy of the script on users PAIR_LO..PAIR_HI runs beside it (pgbench
# picks one of the two for each transaction, at random), and the pair's latencies go under KEY/pair.
pgb() {
  local key=$1 script=$2 clients=$3 lo=$4 hi=$5 dir out txns files
  sql "$db_url" -c CHECKPOINT
  dir=$(mktemp -d "$work/pgbench.XXXX")
  files=(-f "$root/scripts/bench/$script.sql")
  if [ $# -gt 5 ]; then
    sed 's/random(:lo, :hi)/random(:plo, :phi)/' "$root/scripts/bench/$script.sql" >"$dir/pair.sql"
    files=(-f "$root/scripts/bench/$script.sql@1" -f "$dir/pair.sql@1" -D plo="$6" -D phi="$7")
  fi
  cpu_mark
  # Generic plans, as the server's statements settle on them (pgx prepares them; after five runs Postgres
  # keeps the generic plan): pgbench binds its variables inside expressions (md5 of a number for a user's
  # uuid), which would otherwise keep Postgres planning each execution anew (scripts/bench-usage.sh).
  out=$(cd "$dir" && PGOPTIONS="-c plan_cache_mode=force_generic_plan" "$bindir/pgbench" -n -M prepared -c "$clients" \
    -j "$((clients < 2 ? clients : 2))" -T "$secs" -l -D lo="$lo" -D hi="$hi" "${files[@]}" "$db_url" 2>&1) &&
    ! grep -q aborted <<<"$out" || { echo "$out" >&2; die "pgbench $script failed"; }
  rate[$key]=$(awk '/^tps = / {printf "%.1f", $3}' <<<"$out")
  txns=$(awk -F': ' '/^number of transactions actually processed/ {print $2}' <<<"$out")
  # Log lines: client_id transaction_no latency_us script_no epoch_s epoch_us.
  pct() { cat "$dir"/pgbench_log.* | awk -v s="$1" '$4 == s {print $3}' | sort -n | awk '{a[NR] = $1}
    function rank(p,  i) { i = int(p * NR); if (i < p * NR) i++; return a[i > 0 ? i : 1] / 1000 }
    END { printf "%.2f %.2f\n", rank(0.50), rank(0.99) }'; }
  read -r "p50[$key]" "p99[$key]" < <(pct 0)
  if [ $# -gt 5 ]; then read -r "p50[$key/pair]" "p99[$key/pair]" < <(pct 1); fi
  cpu[$key]=$(cpu_spent "$txns") load[$key]=$(loadavg)
  rm -rf "$dir"
}

# A minute of production gives the planner statistics and the pool its prepared statements.
bin/loadgen -url "http://127.0.0.1:$http_port" -mode spend -senders 8 -duration 2s -warmup 0s -max 20000 -worker-key "$worker_key" -users "$users" >/dev/null
sql "$db_url" -c "VACUUM ANALYZE"

for r in $(seq "$rounds"); do
  # L1 and L4 compare two users request by request (paired runs), so both see the same busy seconds.
  server "s1,$r" spend-hot 1 -hot-user "$full" -pair-user "$(empty "$r" 0)"
  pgb "p1,$r" ledger_spend 1 "$full" "$full" "$(empty "$r" 1)" "$(empty "$r" 1)"
  pgb "o1,$r" ledger_spend_old 1 "$old_full" "$old_full" "$(empty "$r" 2)" "$(empty "$r" 2)"
  server "s2,$r" spend-hot 16 -hot-user "$hot"
  pgb "p2,$r" ledger_spend 16 "$hot" "$hot"
  pgb "o2,$r" ledger_spend_old 16 "$old_hot" "$old_hot"
  server "s3,$r" spend 32
  pgb "p3,$r" ledger_spend 32 1 "$users"
  server "r4,$r" credits 1 -token "$token_full" -pair-token "$token_zero"
  server "r4p,$r" credits 1 -token "$token_full" -pair-token "$token_page"
  log "round $r: L1 server ${p50[s1,$r]}/${p50[s1,$r/pair]} ms, pgbench ${p50[p1,$r]}/${p50[p1,$r/pair]}," \
    "old ${p50[o1,$r]}/${p50[o1,$r/pair]}; L2 ${rate[s2,$r]}/${rate[p2,$r]} (old ${rate[o2,$r]}); L3 ${rate[s3,$r]}/${rate[p3,$r]};" \
    "L4 ${p50[r4,$r]}/${p50[r4,$r/pair]} ms (100: ${p50[r4p,$r/pair]})"
done
old_rows() { sql "$db_url" -c "SELECT count(*) FROM credit_transactions WHERE user_id = md5('bench-user-$1')::uuid"; }
old_none_rows=$(old_rows "$(empty "$rounds" 2)") old_hot_rows=$(old_rows "$old_hot")

# L5: BENCH_L5_SENDERS spend for random users of 1..users, first with nothing due, then while the
# expire-credits task writes off BENCH_DUE due buckets of users 1..BENCH_DUE/10 (the spenders among them),
# then with nothing due again. The task runs as the schedule runs it (`fabrica jobs run`: one ExpireDue
# run, at most 200 batches of 1,000 buckets, each batch one transaction locking only its own users and
# skipping any a spend holds), back to back until a run writes nothing off. A spender whose buckets are
# still due writes them off itself first (the spend's slow path), or waits for the batch that holds its
# user. Postgres logs the task's statements with their durations (log_min_duration_statement=0 for its
# URL only).
if [ "$due" -gt 0 ]; then
  server "l5before" spend "$l5_senders"
  log "L5: filling $due due buckets..."
  t0=$SECONDS
  sql "$db_url" -c "SET synchronous_commit = off" -c "$(due_sql)"
  sql "$db_url" -c "VACUUM ANALYZE"
  due_fill_secs=$((SECONDS - t0))
  log "L5: expiring $due buckets while $l5_senders spend..."
  sql "$db_url" -c CHECKPOINT
  cpu_mark
  bin/loadgen -url "http://127.0.0.1:$http_port" -mode spend -senders "$l5_senders" -duration "${l5_limit}s" -warmup "$warmup" \
    -max 100000000 -worker-key "$worker_key" -users "$users" >"$work/l5.json" 2>"$work/l5.err" &
  l5_pid=$!
  bg_pids+=("$l5_pid")
  sleep "${warmup%s}"
  job_url="$db_url&options=-c%20log_min_duration_statement%3D0"
  job_t0=$(date +%s.%N) job_runs=0 job_buckets=0 job_credits=0 l5_done=""
  logline=$(wc -l <"$data/server.log")
  while [ "$job_runs" -lt $((due / 200000 + 20)) ]; do # a run writes off at most 200,000
    out=$(url=$job_url fabrica jobs run expire-credits) || die "jobs run expire-credits failed: $out"
    job_runs=$((job_runs + 1))
    n=$(sed -nE 's/.*buckets:([0-9]+).*/\1/p' <<<"$out") c=$(sed -nE 's/.*credits:([0-9]+).*/\1/p' <<<"$out")
    job_buckets=$((job_buckets + n)) job_credits=$((job_credits + c))
    log "  $out"
    if [ "$n" -eq 0 ]; then l5_done=1; break; fi
    kill -0 "$l5_pid" 2>/dev/null || break # the time bound ran out first
  done
  job_secs=$(awk -v a="$job_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  kill -TERM "$l5_pid" 2>/dev/null || true
  wait "$l5_pid" || die "loadgen during L5 failed: $(cat "$work/l5.err")"
  out=$(cat "$work/l5.json")
  rate[l5job]=$(field per_sec "$out") p50[l5job]=$(field p50_ms "$out") p99[l5job]=$(field p99_ms "$out")
  cpu[l5job]=$(cpu_spent "$(field sent "$out")") load[l5job]=$(loadavg)
  # Each batch's write-off (expireSQL, "WITH due AS") and its scan for due buckets, from the task's log lines.
  batch_ms() { { tail -n +"$logline" "$data/server.log" | grep -E "duration: [0-9.]+ ms +(execute [^:]*|statement): $1" || true; } |
    sed -E 's/.*duration: ([0-9.]+) ms.*/\1/' | sort -g | awk '{a[NR] = $1} END {
      if (NR == 0) { print "none"; exit }
      printf "%d batches, p50 %.1f ms, max %.1f ms", NR, a[int((NR + 1) / 2)], a[NR] }'; }
  expire_ms=$(batch_ms "WITH due AS") scan_ms=$(batch_ms "SELECT id::text, user_id::text FROM credit_buckets")
  server "l5after" spend "$l5_senders"
  left_due=$(sql "$db_url" -c "SELECT count(*) FROM credit_buckets WHERE remaining > 0 AND expires_at <= now()")
fi

# The ledger after everything: the old statements' users go (their deducts have no buckets), the rest is
# checked as `fabrica verify ledger` would.
sql "$db_url" -c "DELETE FROM users WHERE id IN (SELECT md5('bench-user-' || g)::uuid FROM ($olds) s(g))"
verify_out=$(DATABASE_URL=$db_url bin/ledgerverify 2>&1) && verify_ok=1 || verify_ok=""

# The migration: a database at 00020 with a ledger of BENCH_MIGRATE_ROWS movements as the ledger before
# buckets wrote them, then 00021 and the checks.
if [ "$mig_rows" -gt 0 ]; then
  stop_pid "$server_pid"
  server_pid=""
  sql "postgres://postgres@127.0.0.1:$pg_port/postgres" -c "CREATE DATABASE $migdb"
  url="postgres://postgres@127.0.0.1:$pg_port/$migdb?sslmode=disable"
  url=$url fabrica migrate up >"$work/migrate-mig.log" 2>&1 && url=$url fabrica migrate down --to 20 >>"$work/migrate-mig.log" 2>&1 ||
    { cat "$work/migrate-mig.log" >&2; die "could not bring $migdb to 00020"; }
  mu=$((mig_rows / 100))                      # users: 100 movements each on average, skewed
  jobs=$(((mig_rows - 3 * mu) * 10 / 21))     # 2.1 movements a job (below), the grants on top
  log "migration: filling $migdb at 00020 with ~$mig_rows movements of $mu users ($jobs jobs)..."
  t0=$SECONDS
  # A job j of user 1 + floor(users * x^2) (x uniform from j's hash: a few heavy users, many light ones) of
  # 1-10 credits, over two years: 15 in 20 complete (deduct, task_completed), 3 fail (deduct, task_failed,
  # refund), 1 is refunded as orphaned (deduct, reconciler_refund), 1 is still running (deduct). Then each
  # user's grants: 25 at sign-up and enough months of 1,000 (grant:sub_<user>:<month>, allowance) to keep
  # them above zero; a user in a thousand ends in debt (a recharge beyond the balance).
  sql "$url" -c "SET synchronous_commit = off" -c "INSERT INTO users (id, clerk_user_id, email, email_verified)
      SELECT md5('mig-user-' || g)::uuid, 'user_mig_' || g, 'mig' || g || '@bench.test', true FROM generate_series(1, $mu) g" \
    -c "INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, expires_at, created_at)
      SELECT u, d, kind, 'job_' || j, reason, CASE WHEN kind = 'deduct' THEN t + interval '15 minutes' END, t + step * interval '1 minute'
        FROM generate_series(1, $jobs) j,
        LATERAL (SELECT md5('mig-user-' || (1 + floor($mu * power((hashint4(j) & 2147483647) / 2147483648.0, 2)))::int)::uuid AS u,
                        now() - interval '730 days' + j * (interval '730 days' / $jobs) AS t, 1 + j % 10 AS a) x,
        LATERAL (VALUES (0, -a, 'deduct', 'image generation'), (1, 0, 'task_completed', ''), (1, 0, 'task_failed', 'worker crashed'),
                        (2, a, 'refund', 'worker crashed'), (1, a, 'reconciler_refund', 'orphaned')) m(step, d, kind, reason)
       WHERE kind = 'deduct' OR (kind = 'task_completed' AND j % 20 < 15) OR (kind IN ('task_failed', 'refund') AND j % 20 BETWEEN 15 AND 17)
          OR (kind = 'reconciler_refund' AND j % 20 = 18)" \
    -c "INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
      SELECT md5('mig-user-' || g)::uuid, 25, 'grant', 'signup:user_mig_' || g, 'sign-up credits', now() - interval '731 days'
        FROM generate_series(1, $mu) g" \
    -c "INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
      SELECT c.user_id, 1000, 'grant', 'grant:sub_' || left(c.user_id::text, 8) || ':' || m, 'monthly credits',
             now() - interval '730 days' + m * interval '1 day'
        FROM (SELECT user_id, -sum(delta) AS consumed FROM credit_transactions GROUP BY user_id) c,
             generate_series(1, greatest(1, ceil((c.consumed - 25) / 1000.0)::int + 1)) m" \
    -c "INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
      SELECT b.user_id, -(b.balance + 3), 'recharge', 'debt_' || b.n, 'completed after the orphan refund', now() - interval '1 day'
        FROM (SELECT user_id, sum(delta) AS balance, row_number() OVER (ORDER BY user_id) AS n FROM credit_transactions GROUP BY user_id) b
       WHERE b.n % 1000 = 7"
  sql "$url" -c "VACUUM ANALYZE"
  mig_fill_secs=$((SECONDS - t0))
  mig_count=$(sql "$url" -c "SELECT count(*) FROM credit_transactions")
  mig_kinds=$(sql "$url" -c "SELECT string_agg(kind || ' ' || n, ', ' ORDER BY n DESC) FROM (SELECT kind, count(*) n FROM credit_transactions GROUP BY kind) k")
  mig_size=$(sql "$url" -c "SELECT pg_size_pretty(pg_total_relation_size('credit_transactions'))")
  log "filled in $mig_fill_secs s: $mig_count movements ($mig_kinds), $mig_size"
  # Every statement of the migration over 200 ms goes to the cluster's log with its duration.
  sql "$url" -c CHECKPOINT
  sql "$url" -c "ALTER DATABASE $migdb SET log_min_duration_statement = 200"
  logline=$(wc -l <"$data/server.log")
  t0=$(date +%s.%N)
  url=$url fabrica migrate up >"$work/migrate-mig.log" 2>&1 || { cat "$work/migrate-mig.log" >&2; die "migrate up on $migdb failed"; }
  mig_secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  mig_slow=$(tail -n +"$logline" "$data/server.log" | grep -E "duration: [0-9.]+ ms" | sed -E 's/.*duration: ([0-9.]+) ms +(statement|execute [^:]*): (.{0,70}).*/\1 ms  \3/' | sort -rg | head -n 8 || true)
  sql "$url" -c "ALTER DATABASE $migdb RESET log_min_duration_statement"
  mig_after=$(sql "$url" -c "SELECT (SELECT count(*) FROM credit_buckets) || ' buckets (' || (SELECT count(*) FROM credit_buckets WHERE category = 'debt') || ' debt), ' ||
    (SELECT count(*) FROM credit_allocations) || ' allocations, ' || (SELECT count(*) FROM credit_balances) || ' balance rows'")
  t0=$(date +%s.%N)
  mig_verify=$(DATABASE_URL=$url bin/ledgerverify 2>&1) && mig_verify_ok=1 || mig_verify_ok=""
  mig_verify_secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
fi

collect() { local vals="" r; for r in $(seq "$rounds"); do vals+=" $($2 "$r")"; done; med[$1]=$(median "$vals"); }
declare -A med
l1s() { ratio "${p50[s1,$1]}" "${p50[s1,$1/pair]}"; }
l1p() { ratio "${p50[p1,$1]}" "${p50[p1,$1/pair]}"; }
l1o() { ratio "${p50[o1,$1]}" "${p50[o1,$1/pair]}"; }
l2() { ratio "${rate[s2,$1]}" "${rate[p2,$1]}"; }
l2o() { ratio "${rate[s2,$1]}" "${rate[o2,$1]}"; }
l3() { ratio "${rate[s3,$1]}" "${rate[p3,$1]}"; }
l3t() { ratio "${p99[s3,$1]}" "${p50[s3,$1]}"; }
l3tp() { ratio "${p99[p3,$1]}" "${p50[p3,$1]}"; }
l4() { ratio "${p50[r4,$1]}" "${p50[r4,$1/pair]}"; }
l4p() { ratio "${p50[r4p,$1]}" "${p50[r4p,$1/pair]}"; }
for f in l1s l1p l1o l2 l2o l3 l3t l3tp l4 l4p; do collect "$f" "$f"; done
other() { local k m=0 o; for k in "$@"; do o=$(cpu_of "$k" 4); [ "$o" -gt "$m" ] && m=$o; done; echo "$m%"; }
c() { echo "$(cpu_of "$1" 1) / $(cpu_of "$1" 2) / $(cpu_of "$1" 3)"; }

echo
echo "Latencies in ms (p50 / p99), rates per second; CPU in ms per spend or read (postgres / server / client);"
echo "other CPU: the largest share of the machine used outside the benchmark in the row's phases; load: /proc/loadavg"
echo "after the round's last phase."
echo
echo "L1 (one client; the user with $history movements / a user with none):"
echo
echo "| round | server full | server none | L1 server | pgbench full | pgbench none | L1 pgbench | old full | old none | old ratio | other CPU | load |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for r in $(seq "$rounds"); do
  echo "| $r | ${p50[s1,$r]} / ${p99[s1,$r]} | ${p50[s1,$r/pair]} / ${p99[s1,$r/pair]} | $(l1s "$r") | ${p50[p1,$r]} / ${p99[p1,$r]}" \
    "| ${p50[p1,$r/pair]} / ${p99[p1,$r/pair]} | $(l1p "$r") | ${p50[o1,$r]} / ${p99[o1,$r]} | ${p50[o1,$r/pair]} / ${p99[o1,$r/pair]} | $(l1o "$r")" \
    "| $(other "s1,$r" "p1,$r" "o1,$r") | ${load[o1,$r]} |"
done
echo "(a fresh user with none every round and side; the old statements' last had $old_none_rows movements at the end, its own spends.)"
echo
echo "L2 (one hot user, 16 spenders) and L3 (random users of $users, 32 spenders):"
echo
echo "| round | L2 server | L2 pgbench | L2 | old pgbench | L2 server p50 / p99 | L3 server | L3 pgbench | L3 | L3 server p50 / p99 | L3 pgbench p50 / p99 | CPU L3 server | CPU L3 pgbench | other CPU | load |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for r in $(seq "$rounds"); do
  echo "| $r | ${rate[s2,$r]} | ${rate[p2,$r]} | $(l2 "$r") | ${rate[o2,$r]} | ${p50[s2,$r]} / ${p99[s2,$r]} | ${rate[s3,$r]} | ${rate[p3,$r]} | $(l3 "$r")" \
    "| ${p50[s3,$r]} / ${p99[s3,$r]} | ${p50[p3,$r]} / ${p99[p3,$r]} | $(c "s3,$r") | $(c "p3,$r") | $(other "s2,$r" "p2,$r" "o2,$r" "s3,$r" "p3,$r") | ${load[p3,$r]} |"
done
echo "(old pgbench: the statements before balance rows on one user; it had $old_hot_rows movements at the end.)"
echo
echo "L4 (GET /api/v1/billing/credits, one client):"
echo
echo "| round | $history p50 / p99 | none p50 / p99 | L4 | $history p50 / p99 | 100 p50 / p99 | $history / 100 | other CPU | load |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for r in $(seq "$rounds"); do
  echo "| $r | ${p50[r4,$r]} / ${p99[r4,$r]} | ${p50[r4,$r/pair]} / ${p99[r4,$r/pair]} | $(l4 "$r") | ${p50[r4p,$r]} / ${p99[r4p,$r]}" \
    "| ${p50[r4p,$r/pair]} / ${p99[r4p,$r/pair]} | $(l4p "$r") | $(other "r4,$r" "r4p,$r") | ${load[r4p,$r]} |"
done
if [ "$due" -gt 0 ]; then
  echo
  echo "L5 ($l5_senders spenders; the task run back to back until a run wrote nothing off):"
  echo
  echo "| phase | spends/s | p50 | p99 | load |"
  echo "|---|--:|--:|--:|--:|"
  for k in l5before l5job l5after; do echo "| $k | ${rate[$k]} | ${p50[$k]} | ${p99[$k]} | ${load[$k]} |"; done
  echo "task: $job_runs runs in $job_secs s, $job_buckets buckets and $job_credits credits written off by it (the spends wrote off" \
    "$((due - job_buckets - left_due)) themselves); $left_due due buckets left. Filling the $due buckets took $due_fill_secs s."
  echo "  write-offs: $expire_ms; due scans: $scan_ms"
fi
echo
echo "ledger checks after the run (the old statements' users removed):"
echo "$verify_out"
if [ "$mig_rows" -gt 0 ]; then
  echo
  echo "migration: $mig_count movements at 00020 ($mig_kinds; $mig_size), filled in $mig_fill_secs s"
  echo "  fabrica migrate up (00021 and later): $mig_secs s -> $mig_after"
  echo "  its statements over 200 ms:"
  sed 's/^/    /' <<<"$mig_slow"
  echo "  ledger checks right after: $mig_verify_secs s"
  sed 's/^/    /' <<<"$mig_verify"
fi
# L5's loadgen is stopped mid-request when the task is done: those requests end "context canceled".
if grep -E 'level=(WARN|ERROR)' "$work/server.log" | grep -qv 'context canceled'; then
  echo "server log: $(grep -E 'level=(WARN|ERROR)' "$work/server.log" | grep -cv 'context canceled') lines at WARN or above" \
    "(slow statements included), besides L5's canceled requests; first:"
  grep -E 'level=(WARN|ERROR)' "$work/server.log" | grep -v 'context canceled' | head -n 3 | cut -c1-300
fi
echo "the run took $((SECONDS - t_start)) s"

echo
echo "Targets, on the median of $rounds rounds:"
echo "$(verdict le "${med[l1s]}" 1.2)  L1 spend p50 with $history movements / with none = ${med[l1s]} through the server, ${med[l1p]} in pgbench (target <= 1.2; the old statements: ${med[l1o]})"
echo "$(verdict ge "${med[l2]}" 0.8)  L2 one hot user, 16 spenders / pgbench = ${med[l2]} (target >= 0.8; server / the old statements in pgbench = ${med[l2o]})"
echo "$(verdict ge "${med[l3]}" 0.8)  L3 random users, 32 spenders / pgbench = ${med[l3]} (target >= 0.8)"
echo "$(verdict le "${med[l3t]}" 3)  L3 p99 / p50 = ${med[l3t]} (target <= 3; pgbench's on the same statements: ${med[l3tp]})"
echo "$(verdict le "${med[l4]}" 1.2)  L4 credits read p50 with $history movements / with none = ${med[l4]} (target <= 1.2; / with 100, a full first page: ${med[l4p]})"
if [ "$due" -gt 0 ]; then
  base99=$(median "${p99[l5before]} ${p99[l5after]}")
  l5=$(ratio "${p99[l5job]}" "$base99")
  l5ok() { [ -n "$l5_done" ] && [ "$left_due" -eq 0 ] && le "$l5" 2; }
  echo "$(verdict l5ok)  L5 spend p99 during the expiry of $due buckets / without = ${p99[l5job]} / $base99 ms = $l5 (target <= 2);" \
    "the task finished: ${l5_done:-no} ($job_runs runs, $job_secs s)"
else
  echo "SKIP  L5 (BENCH_DUE=0)"
fi
echo "$(verdict test -n "$verify_ok")  the ledger's checks after the run"
if [ "$mig_rows" -gt 0 ]; then
  echo "$(verdict test -n "$mig_verify_ok")  migration of $mig_count movements: $mig_secs s; the ledger's checks right after: $mig_verify_secs s"
else
  echo "SKIP  migration (BENCH_MIGRATE_ROWS=0)"
fi
