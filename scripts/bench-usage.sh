#!/usr/bin/env bash
# The usage benchmark of `make bench` (docs/benchmarks.md, U1-U4), in the method of scripts/bench.sh: a
# throwaway Postgres cluster (default durability), the real server driven by bin/loadgen's usage modes
# through HTTP, and pgbench running the statements the server sends (scripts/bench/usage_*.sql, generated
# from them) on the same database, round trip for round trip, in the same run. Rounds interleave every
# phase; verdicts are on the median of the rounds.
#
#   U1  single events, random users of BENCH_USERS, 32 senders: events/s / pgbench's        >= 0.8
#   U2  batches of 100 events, 32 senders: events/s / pgbench's batches' events/s           >= 0.8
#   U3  one hot user, a block counter, 16 senders: rate / pgbench's                          >= 0.8,
#       and a limit of BENCH_HOT_LIMIT units never exceeded (counted: counter, events, answers)
#   U4  GET /api/v1/entitlements p50 with BENCH_USAGE_FILL events stored / with none          <= 1.2
#
#   BENCH_SECONDS=8 BENCH_WARMUP=1s BENCH_ROUNDS=3 BENCH_USERS=10000 BENCH_USAGE_FILL=10000000
#   BENCH_HOT_LIMIT=2000 BENCH_PG_PORT=54490 BENCH_PORT=18190 BENCH_DB_MAX_CONNS=40 BENCH_MAX=400000
# Traffic goes to 127.0.0.1 only; every phase is bounded; the server and cluster are removed on exit.
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
fill=${BENCH_USAGE_FILL:-10000000}
hot_limit=${BENCH_HOT_LIMIT:-2000}
max_requests=${BENCH_MAX:-400000}
db_max_conns=${BENCH_DB_MAX_CONNS:-40}
worker_key=bench-worker-key-0123456789abcdef0123456789
dbname=fabrica_bench

log() { echo "bench-usage: $*" >&2; }

bindir=$(scripts/ensure-postgres.sh)
work=$(mktemp -d /tmp/fabrica-bench-usage.XXXXXX)
chmod 755 "$work"
data=$work/pg
server_pid=""
cleanup() {
  local code=$?
  stop_pid "$server_pid"
  if [ -s "$data/PG_VERSION" ]; then as_owner "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The cluster and the server: the settings of scripts/bench.sh (fsync, synchronous_commit and
# full_page_writes on; a CHECKPOINT before each phase instead of timed ones inside it).
pg_port=$(free_port "${BENCH_PG_PORT:-54490}")
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
(cd "$work" && DATABASE_URL=$db_url APP_ENV=development "$root/bin/fabrica" migrate up) >"$work/migrate.log" 2>&1 ||
  { cat "$work/migrate.log" >&2; die "migrate up failed"; }
cat >"$work/tiers.yaml" <<EOF
tiers:
  - name: free
    features:
      api_calls: {limit: 1000000000, per: month}   # U1, U2: a block counter no run reaches
      hot_calls: {limit: 1000000000, per: month}   # U3's rate
      hot_limit: {limit: $hot_limit, per: month}   # U3's limit, reached
  - name: pro
    paddle_price_ids: [pri_bench]
EOF
# The bench users (ids md5('bench-user-' || n), as loadgen's BenchUserID), on the free tier.
sql "$db_url" -c "INSERT INTO users (id, clerk_user_id, email, email_verified)
  SELECT md5('bench-user-' || g)::uuid, 'user_bench_' || g, 'bench' || g || '@bench.test', true FROM generate_series(1, $users) g"
http_port=$(free_port "${BENCH_PORT:-18190}")
(cd "$work" && exec env APP_ENV=development PORT="$http_port" DATABASE_URL="$db_url" LOG_LEVEL=warn SERVE_WORKERS=false \
  DB_MAX_CONNS="$db_max_conns" RATE_LIMIT_PER_MINUTE=0 TIERS_FILE="$work/tiers.yaml" WORKER_API_KEYS="$worker_key" "$root/bin/fabrica" serve) \
  >>"$work/server.log" 2>&1 &
server_pid=$!
bin/loadgen -mode ready -url "http://127.0.0.1:$http_port" -wait-ready 60s || { tail -n 30 "$work/server.log" >&2; die "server not ready"; }
# The session of U4: bench user 1 (whose Clerk id the dev token names), through the dev key the server uses.
token=$(cd "$work" && APP_ENV=development "$root/bin/fabrica" dev token --user user_bench_1 --email bench1@bench.test --ttl 3h)
log "postgres on 127.0.0.1:$pg_port, server pid $server_pid on 127.0.0.1:$http_port; $users users; ${secs}s per phase, $rounds rounds"

# CPU per request or transaction, as scripts/bench.sh counts it (postgres / server; other = the rest).
stat_ticks() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || s=""; awk -v c="${2:-0}" '{sub(/^.*\) /, ""); n = $12 + $13 + (c ? $14 + $15 : 0)} END {print n + 0}' <<<"$s"; }
pg_ticks() { local t p; t=$(stat_ticks "$pm_pid" 1); for p in $(ps -o pid= --ppid "$pm_pid"); do t=$((t + $(stat_ticks "$p"))); done; echo "$t"; }
cpu_mark() { read -r m_busy m_total <<<"$(machine_ticks)"; m_pg=$(pg_ticks) m_srv=$(stat_ticks "$server_pid") m_cli=$(stat_ticks $$ 1); }
cpu_spent() { # EVENTS: "postgres_ms server_ms client_ms other_pct" per event since cpu_mark
  local busy total
  read -r busy total <<<"$(machine_ticks)"
  awk -v n="$1" -v hz="$(getconf CLK_TCK)" -v pg=$(($(pg_ticks) - m_pg)) -v srv=$(($(stat_ticks "$server_pid") - m_srv)) \
    -v cli=$(($(stat_ticks $$ 1) - m_cli)) -v busy=$((busy - m_busy)) -v total=$((total - m_total)) 'BEGIN {
      ms = 1000 / hz / (n > 0 ? n : 1); other = busy - pg - srv - cli
      printf "%.3f %.3f %.3f %.0f", pg * ms, srv * ms, cli * ms, (other > 0 ? 100 * other / total : 0) }'
}
times() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a * b }'; }

declare -A rate cpu p50 p99
# server KEY MODE SENDERS EVENTS_PER_REQUEST [FLAGS...]: one loadgen phase after a CHECKPOINT; rate[KEY]
# is events per second.
server() {
  local key=$1 mode=$2 senders=$3 per=$4 out
  shift 4
  sql "$db_url" -c CHECKPOINT
  cpu_mark
  out=$(bin/loadgen -url "http://127.0.0.1:$http_port" -mode "$mode" -senders "$senders" -duration "${secs}s" -warmup "$warmup" \
    -max "$max_requests" -worker-key "$worker_key" -users "$users" -token "$token" "$@") ||
    { tail -n 20 "$work/server.log" >&2; die "loadgen -mode $mode failed"; }
  rate[$key]=$(times "$(field per_sec "$out")" "$per")
  p50[$key]=$(field p50_ms "$out") p99[$key]=$(field p99_ms "$out")
  cpu[$key]=$(cpu_spent "$(($(field sent "$out") * per))")
  last=$out
}
# pgbench KEY SCRIPT CLIENTS EVENTS_PER_TRANSACTION: rate[KEY] is events per second.
pgb() {
  local key=$1 script=$2 clients=$3 per=$4 out tps txns
  sql "$db_url" -c CHECKPOINT
  cpu_mark
  # pgbench runs with generic plans, as the server's statements settle on them after five runs
  # (TestRecordingStatementsSettleOnGenericPlans): pgbench binds its variables inside expressions (md5 of
  # a number for a user's uuid), which keeps Postgres's plan cache planning each execution anew; measured,
  # that cut pgbench's batch of 100 to a quarter of its rate.
  out=$(cd "$work" && PGOPTIONS="-c plan_cache_mode=force_generic_plan" "$bindir/pgbench" -n -M prepared -c "$clients" -j 2 -T "$secs" -D stride=$((users / per)) -D hot=1 \
    -f "$root/scripts/bench/$script.sql" "$db_url" 2>&1) && ! grep -q aborted <<<"$out" || { echo "$out" >&2; die "pgbench $script failed"; }
  tps=$(awk '/^tps = / {printf "%.1f", $3}' <<<"$out")
  txns=$(awk -F': ' '/^number of transactions actually processed/ {print $2}' <<<"$out")
  rate[$key]=$(times "$tps" "$per")
  cpu[$key]=$(cpu_spent "$((txns * per))")
}

# A minute of production gives the planner statistics; a fresh database has none.
bin/loadgen -url "http://127.0.0.1:$http_port" -mode usage -senders 8 -duration 2s -warmup 0s -max 20000 -worker-key "$worker_key" -users "$users" >/dev/null
sql "$db_url" -c "VACUUM ANALYZE"
# U4's baseline: the entitlements read before anything but the warmup's events is stored.
server u4zero entitlements 16 1
zero_events=$(sql "$db_url" -c "SELECT count(*) FROM usage_events")

for r in $(seq "$rounds"); do
  server "u1,$r" usage 32 1
  pgb "pg1,$r" usage_single 32 1
  server "u2,$r" usage-batch 32 100 -batch 100
  pgb "pg2,$r" usage_batch 32 100
  server "u3,$r" usage-hot 16 1 -feature hot_calls -hot-user 1
  pgb "pg3,$r" usage_hot 16 1
  server "u4,$r" entitlements 16 1
  log "round $r: U1 ${rate[u1,$r]}/${rate[pg1,$r]}  U2 ${rate[u2,$r]}/${rate[pg2,$r]}  U3 ${rate[u3,$r]}/${rate[pg3,$r]}  U4 p50 ${p50[u4,$r]} ms"
done

# U3's limit: 16 senders race one user's hot_limit counter well past its limit.
hot_id=$(sql "$db_url" -c "SELECT md5('bench-user-1')::uuid")
server hotlimit usage-hot 16 1 -feature hot_limit -hot-user 1
hot_recorded=$(field recorded "$last") hot_refused=$(sed -nE 's/.*"refused":([0-9]+).*/\1/p' <<<"$last")
hot_used=$(sql "$db_url" -c "SELECT coalesce(sum(used), 0) FROM usage_counters WHERE user_id = '$hot_id' AND feature = 'hot_limit'")
hot_events=$(sql "$db_url" -c "SELECT coalesce(sum(quantity), 0) FROM usage_events WHERE user_id = '$hot_id' AND feature = 'hot_limit'")

# U4 with the events stored: BENCH_USAGE_FILL events over the bench users (bench user 1 among them),
# spread over the current and the previous month's partitions.
if [ "$fill" -gt 0 ]; then
  log "filling $fill usage events..."
  t0=$SECONDS
  sql "$db_url" -c "SET synchronous_commit = off" -c "INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
    SELECT md5('fill-' || g)::uuid, md5('bench-user-' || (1 + g % $users))::uuid, 'api_calls', 'usage', 1, 'fill-' || g,
           date_trunc('month', now()), now() - (g % 3000000) * interval '1 second', now() - (g % 3000000) * interval '1 second'
      FROM generate_series(1, $fill) g"
  sql "$db_url" -c "VACUUM ANALYZE usage_events"
  stored=$(sql "$db_url" -c "SELECT count(*) FROM usage_events")
  log "filled in $((SECONDS - t0)) s: $stored events, $(sql "$db_url" -c "SELECT pg_size_pretty(sum(pg_total_relation_size(inhrelid))) FROM pg_inherits WHERE inhparent = 'usage_events'::regclass")"
  for r in $(seq "$rounds"); do server "u4f,$r" entitlements 16 1; done
fi

collect() { local vals="" r; for r in $(seq "$rounds"); do vals+=" $($2 "$r")"; done; med[$1]=$(median "$vals"); }
declare -A med
u1() { ratio "${rate[u1,$1]}" "${rate[pg1,$1]}"; }
u2() { ratio "${rate[u2,$1]}" "${rate[pg2,$1]}"; }
u3() { ratio "${rate[u3,$1]}" "${rate[pg3,$1]}"; }
u4() { echo "${p50[u4,$1]}"; }
u4f() { echo "${p50[u4f,$1]}"; }
u2rate() { echo "${rate[u2,$1]}"; }
collect u1 u1
collect u2 u2
collect u3 u3
collect u4 u4
collect u2rate u2rate
[ "$fill" -gt 0 ] && collect u4f u4f

echo
echo "Events per second (server through HTTP / pgbench on the same statements), CPU in ms per event (postgres / server / client)."
echo
echo "| round | U1 server | U1 pgbench | U1 | U2 server | U2 pgbench | U2 | U3 server | U3 pgbench | U3 | U4 p50 / p99 ms | CPU U1 server | CPU U1 pgbench | CPU U2 server | CPU U2 pgbench | CPU U3 server | other CPU |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for r in $(seq "$rounds"); do
  other=0
  for k in u1 pg1 u2 pg2 u3 pg3 u4; do o=$(cpu_of "$k,$r" 4); [ "$o" -gt "$other" ] && other=$o; done
  c() { echo "$(cpu_of "$1" 1) / $(cpu_of "$1" 2) / $(cpu_of "$1" 3)"; }
  echo "| $r | ${rate[u1,$r]} | ${rate[pg1,$r]} | $(u1 "$r") | ${rate[u2,$r]} | ${rate[pg2,$r]} | $(u2 "$r") | ${rate[u3,$r]} | ${rate[pg3,$r]} | $(u3 "$r")" \
    "| ${p50[u4,$r]} / ${p99[u4,$r]} | $(c "u1,$r") | $(c "pg1,$r") | $(c "u2,$r") | $(c "pg2,$r") | $(c "u3,$r") | $other% |"
done
echo "U4 with $zero_events events stored (the warmup's): p50 ${p50[u4zero]} ms, p99 ${p99[u4zero]} ms, ${rate[u4zero]}/s"
if [ "$fill" -gt 0 ]; then
  for r in $(seq "$rounds"); do echo "U4 with $stored events stored, round $r: p50 ${p50[u4f,$r]} ms, p99 ${p99[u4f,$r]} ms, ${rate[u4f,$r]}/s"; done
fi
echo "U3 limit: $hot_recorded recorded and $hot_refused refused answers; the counter holds $hot_used, the events sum to $hot_events (limit $hot_limit)"
if grep -qE 'level=(WARN|ERROR)' "$work/server.log"; then
  echo "server log: $(grep -cE 'level=(WARN|ERROR)' "$work/server.log") lines at WARN or above, first:"
  grep -m 3 -E 'level=(WARN|ERROR)' "$work/server.log"
fi

echo
echo "Targets, on the median of $rounds rounds:"
echo "$(verdict ge "${med[u1]}" 0.8)  U1 single events / pgbench = ${med[u1]} (target >= 0.8)"
echo "$(verdict ge "${med[u2]}" 0.8)  U2 batches of 100 / pgbench = ${med[u2]} (target >= 0.8); ${med[u2rate]} events/s (Lago publishes 10,000/s for its Postgres-only mode, on its hardware)"
hot_ok() { [ "$hot_used" -le "$hot_limit" ] && [ "$hot_used" -eq "$hot_events" ] && [ "$hot_used" -eq "$hot_recorded" ]; }
echo "$(verdict ge "${med[u3]}" 0.8)  U3 one hot user / pgbench = ${med[u3]} (target >= 0.8)"
echo "$(verdict hot_ok)  U3 limit never exceeded: counter $hot_used = events $hot_events = recorded answers $hot_recorded <= $hot_limit"
if [ "$fill" -gt 0 ]; then
  flat=$(ratio "${med[u4f]}" "${p50[u4zero]}")
  echo "$(verdict le "$flat" 1.2)  U4 entitlements p50 with $stored events ${med[u4f]} ms / with $zero_events ${p50[u4zero]} ms = $flat (target <= 1.2; in the rounds ${med[u4]} ms)"
else
  echo "SKIP  U4 (BENCH_USAGE_FILL=0)"
fi
