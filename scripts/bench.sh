#!/usr/bin/env bash
# The load benchmark of `make bench` (docs/benchmarks.md): targets T1-T6, each a ratio or a
# per-delivery cost measured in this one run. It starts a throwaway Postgres cluster (fsync and default
# durability on), runs the real server on it and drives it with bin/loadgen, and runs pgbench on the same
# database with the same client count on the SQL the server sends (scripts/bench/*.sql). Three rounds,
# interleaved (each round runs every phase once, so a slow minute of the machine hits every side alike);
# every verdict is on the median of the three rounds. Then the same with the server behind PgBouncer
# (scripts/pgbouncer.sh, when present) and again with BENCH_FILL claims and archive rows already present.
#
# Traffic goes to 127.0.0.1 only, every phase is bounded in time (and loadgen in count too), and the
# servers and the cluster are stopped and removed on exit. Exit status: 0 when everything ran, even if a
# target is missed (the verdicts say so); non-zero when something broke (cluster or server did not start,
# a delivery was refused, pgbench aborted).
#
#   BENCH_SECONDS=8 (measured seconds per phase)  BENCH_WARMUP=1s  BENCH_SENDERS=32  BENCH_ROUNDS=3
#   BENCH_FILL=10000000 (rows per table for T5; 0 skips T5)  BENCH_PGBOUNCER=skip (no PgBouncer row)
#   BENCH_MAX=400000 (loadgen's hard bound per run)  BENCH_PG_PORT=54440  BENCH_PORT=18090 (first ports tried)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The helpers every load benchmark shares (log is each script's own: its prefix).
. scripts/bench-lib.sh
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

secs=${BENCH_SECONDS:-8}
warmup=${BENCH_WARMUP:-1s}
n=${BENCH_SENDERS:-32}
rounds=${BENCH_ROUNDS:-3}
fill=${BENCH_FILL:-10000000}
max_deliveries=${BENCH_MAX:-400000}
db_max_conns=${BENCH_DB_MAX_CONNS:-40}
dbname=fabrica_bench

log() { echo "bench: $*" >&2; }

bindir=$(scripts/ensure-postgres.sh)
# /tmp, not $TMPDIR: as root the cluster runs as postgres, which must be able to reach its data directory.
work=$(mktemp -d /tmp/fabrica-bench.XXXXXX)
chmod 755 "$work"
data=$work/pg
server_pid=""
pooled_pid=""
pgbouncer_started=""

cleanup() {
  local code=$?
  stop_pid "$server_pid"
  stop_pid "$pooled_pid"
  if [ -n "$pgbouncer_started" ]; then PGBOUNCER_DIR="$work/pgbouncer" scripts/pgbouncer.sh stop >/dev/null 2>&1 || true; fi
  if [ -s "$data/PG_VERSION" ]; then
    # A throwaway cluster: no shutdown checkpoint needed.
    as_owner "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_cluster() {
  pg_port=$(free_port "${BENCH_PG_PORT:-54440}")
  mkdir -p "$data"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$data"; fi
  chmod 700 "$data"
  as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C --no-instructions >/dev/null
  # Durability stays at the defaults (fsync, synchronous_commit, full_page_writes on). The checkpoint
  # settings only keep a timed or size-triggered checkpoint from landing inside one phase and not the
  # others: each phase starts right after an explicit CHECKPOINT instead.
  if ! as_owner "$bindir/pg_ctl" -D "$data" -w -t 60 -l "$data/server.log" -o "-c listen_addresses=127.0.0.1 \
      -p $pg_port -c unix_socket_directories='' -c shared_buffers=128MB -c max_connections=200 \
      -c max_wal_size=8GB -c checkpoint_timeout=30min" start >/dev/null; then
    cat "$data/server.log" >&2
    die "postgres did not start"
  fi
  pm_pid=$(head -n 1 "$data/postmaster.pid")
  sql "postgres://postgres@127.0.0.1:$pg_port/postgres" -c "CREATE DATABASE $dbname"
  db_url="postgres://postgres@127.0.0.1:$pg_port/$dbname?sslmode=disable"
  log "postgres $(sql "$db_url" -c 'SHOW server_version') on 127.0.0.1:$pg_port," \
    "fsync=$(sql "$db_url" -c 'SHOW fsync') synchronous_commit=$(sql "$db_url" -c 'SHOW synchronous_commit')"
}

# serve URL PORT [ENV...] starts a server from $work (so a developer's .env cannot change what is measured)
# and prints its pid. LOG_LEVEL=warn: a request line per delivery at info would measure the logger.
# SERVE_WORKERS=false: welcome-email jobs are inserted but not worked; this measures ingest.
serve() {
  local url=$1 port=$2
  shift 2
  (cd "$work" && exec env -u CLERK_WEBHOOK_SECRET APP_ENV=development PORT="$port" DATABASE_URL="$url" \
    LOG_LEVEL=warn SERVE_WORKERS=false DB_MAX_CONNS=$db_max_conns "$@" "$root/bin/fabrica" serve) >>"$work/server-$port.log" 2>&1 &
  echo $!
}

wait_ready() {
  if ! bin/loadgen -mode ready -url "http://127.0.0.1:$1" -wait-ready 60s; then
    tail -n 30 "$work/server-$1.log" >&2
    die "the server on port $1 did not become ready"
  fi
}

start_server() {
  make --no-print-directory build >/dev/null
  go build -o bin/loadgen ./backend/cmd/loadgen
  if ! (cd "$work" && DATABASE_URL=$db_url APP_ENV=development "$root/bin/fabrica" migrate up) >"$work/migrate.log" 2>&1; then
    cat "$work/migrate.log" >&2
    die "migrate up failed"
  fi
  http_port=$(free_port "${BENCH_PORT:-18090}")
  server_pid=$(serve "$db_url" "$http_port")
  wait_ready "$http_port"
  log "server pid $server_pid on 127.0.0.1:$http_port (DB_MAX_CONNS=$db_max_conns, GOMAXPROCS=${GOMAXPROCS:-$(nproc)})"
}

checkpoint() { sql "$db_url" -c CHECKPOINT; }

# run_loadgen PORT MODE prints loadgen's JSON line; its human line goes to stderr as progress.
run_loadgen() {
  local out
  if ! out=$(bin/loadgen -url "http://127.0.0.1:$1" -mode "$2" -senders "$n" -duration "${secs}s" -warmup "$warmup" -max "$max_deliveries"); then
    tail -n 20 "$work/server-$1.log" >&2
    die "loadgen -mode $2 against port $1 failed"
  fi
  echo "$out"
}

# run_pgbench SCRIPT URL PROTOCOL prints "tps p50_ms p99_ms transactions"; the percentiles come from
# pgbench's per-transaction log.
run_pgbench() {
  local name=$1 url=$2 proto=$3 dir out tps txns pct
  dir=$(mktemp -d "$work/pgbench-$name.XXXX")
  if ! out=$(cd "$dir" && "$bindir/pgbench" -n -M "$proto" -c "$n" -j "$((n < 2 ? n : 2))" -T "$secs" -l \
      -f "$root/scripts/bench/$name.sql" "$url" 2>&1) || grep -q aborted <<<"$out"; then
    echo "$out" >&2
    die "pgbench $name -c $n failed"
  fi
  tps=$(awk '/^tps = / {printf "%.1f", $3}' <<<"$out")
  txns=$(awk -F': ' '/^number of transactions actually processed/ {print $2}' <<<"$out")
  # Log lines: client_id transaction_no latency_us script_no epoch_s epoch_us.
  pct=$(cat "$dir"/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR] = $1}
    function rank(p,  i) { i = int(p * NR); if (i < p * NR) i++; return a[i > 0 ? i : 1] / 1000 }
    END { printf "%.2f %.2f", rank(0.50), rank(0.99) }')
  log "pgbench $name ($proto) clients=$n  $tps tps  p50 ${pct% *} ms  p99 ${pct#* } ms"
  echo "$tps $pct $txns"
}

# CPU accounting. The machine is CPU-bound and may be shared, so each phase records the CPU time per
# delivery of Postgres (the postmaster, its live children and the ones it has reaped), the measured server
# and the client (loadgen or pgbench: reaped children of this shell), and the share of the machine that
# went to anything else meanwhile (PgBouncer, in its row, counts as other).
stat_ticks() { # PID [1]: utime+stime (+ reaped children's with 1), in clock ticks
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || s=""
  awk -v c="${2:-0}" '{sub(/^.*\) /, ""); n = $12 + $13 + (c ? $14 + $15 : 0)} END {print n + 0}' <<<"$s"
}
pg_ticks() {
  local t p
  t=$(stat_ticks "$pm_pid" 1)
  for p in $(ps -o pid= --ppid "$pm_pid"); do t=$((t + $(stat_ticks "$p"))); done
  echo "$t"
}
cpu_mark() {
  read -r m_busy m_total <<<"$(machine_ticks)"
  m_pg=$(pg_ticks) m_srv=$(stat_ticks "$1") m_cli=$(stat_ticks $$ 1)
}
# cpu_spent PID TXNS prints "postgres_ms server_ms client_ms other_pct" since cpu_mark, per transaction.
cpu_spent() {
  local busy total
  read -r busy total <<<"$(machine_ticks)"
  awk -v n="$2" -v hz="$(getconf CLK_TCK)" -v pg=$(($(pg_ticks) - m_pg)) -v srv=$(($(stat_ticks "$1") - m_srv)) \
    -v cli=$(($(stat_ticks $$ 1) - m_cli)) -v busy=$((busy - m_busy)) -v total=$((total - m_total)) 'BEGIN {
      ms = 1000 / hz / (n > 0 ? n : 1); other = busy - pg - srv - cli
      printf "%.3f %.3f %.3f %.0f", pg * ms, srv * ms, cli * ms, (other > 0 ? 100 * other / total : 0) }'
}

# measure KEY PID CMD... runs one phase after a checkpoint (so none lands inside it) and keeps its output
# in res[KEY] and its CPU per delivery (PID is the server measured) in cpu[KEY].
declare -A res cpu
measure() {
  local key=$1 pid=$2 txns
  shift 2
  checkpoint
  cpu_mark "$pid"
  res[$key]=$("$@")
  kill -0 "$pid" 2>/dev/null || die "the server exited"
  case $key in
    *pg*) txns=${res[$key]##* } ;; # pgbench phases: pgbare, pgfull, pbpgfull
    *) txns=$(field sent "${res[$key]}") ;;
  esac
  cpu[$key]=$(cpu_spent "$pid" "$txns")
}

# rate KEY: deliveries/s or tps of a phase; cpu_of KEY I: the I-th field of its CPU line (1 postgres,
# 2 server, 3 client, 4 other %).
rate() { case $1 in *pg*) echo "${res[$1]%% *}" ;; *) field per_sec "${res[$1]}" ;; esac; }

# round SUFFIX R: one interleaved round on the direct server: bare, pgbench-bare, new, pgbench-full, dup.
round() {
  local s=$1 r=$2
  measure "bare$s,$r" "$server_pid" run_loadgen "$http_port" bare
  measure "pgbare$s,$r" "$server_pid" run_pgbench delivery_bare "$db_url" prepared
  measure "new$s,$r" "$server_pid" run_loadgen "$http_port" new
  measure "pgfull$s,$r" "$server_pid" run_pgbench delivery_full "$db_url" prepared
  if [ -z "$s" ]; then measure "dup,$r" "$server_pid" run_loadgen "$http_port" dup; fi
}

# fill_tables ROWS puts ROWS claims and ROWS archive rows in, as a year of deliveries would have: event ids
# in time order (Svix and Paddle ids sort by time), archive rows in the current month's partition, the one
# deliveries go to. The two tables fill at once, one session each (two cores); bulk load only, so
# synchronous_commit is off for it.
fill_tables() {
  log "filling $1 claims and $1 archive rows..."
  local t0=$SECONDS p1 p2
  sql "$db_url" -c "SET synchronous_commit = off" -c "INSERT INTO processed_webhook_events (provider, event_id, event_type, processed_at)
    SELECT 'clerk', 'msg_fill_' || lpad(g::text, 10, '0'), 'user.created', now() - interval '1 minute'
      FROM generate_series(1, $1) g" &
  p1=$!
  sql "$db_url" -c "SET synchronous_commit = off" -c "INSERT INTO webhook_events (provider, event_id, event_type, source, body, signature, processing_status, created_at)
    SELECT 'clerk', 'msg_fill_' || lpad(g::text, 10, '0'), 'user.created', 'webhook',
           convert_to('{\"type\":\"user.created\",\"object\":\"event\",\"data\":{\"id\":\"user_fill_' || g || '\",\"object\":\"user\"}}', 'UTF8'),
           'v1,ZXhhbXBsZS1zaWduYXR1cmUtb2YtZm9ydHktZm91ci1ieXQ=', 'processed', now() - interval '1 minute'
      FROM generate_series(1, $1) g" &
  p2=$!
  wait "$p1" || die "filling the claims failed"
  wait "$p2" || die "filling the archive failed"
  sql "$db_url" -c "VACUUM ANALYZE processed_webhook_events, webhook_events"
  log "filled in $((SECONDS - t0)) s: claims $(sql "$db_url" -c "SELECT pg_size_pretty(pg_total_relation_size('processed_webhook_events'))")," \
    "archive $(sql "$db_url" -c "SELECT pg_size_pretty(sum(pg_total_relation_size(inhrelid))) FROM pg_inherits WHERE inhparent = 'webhook_events'::regclass")"
}

t_start=$SECONDS
log "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg);" \
  "${secs}s per phase (loadgen after a $warmup warmup), $n senders, $rounds rounds"
start_cluster
start_server
# A live database has planner statistics; a freshly migrated one has none, and until autovacuum's first
# ANALYZE (a minute or more away) a generic plan may pick a partial index over the primary key and scan
# the users table per sign-up. A short unmeasured warmup, then ANALYZE, as a minute of production would.
bin/loadgen -url "http://127.0.0.1:$http_port" -mode new -senders 8 -duration 2s -warmup 0s -max 20000 >/dev/null
bin/loadgen -url "http://127.0.0.1:$http_port" -mode bare -senders 8 -duration 1s -warmup 0s -max 20000 >/dev/null
sql "$db_url" -c "VACUUM ANALYZE"
for r in $(seq "$rounds"); do round "" "$r"; done

# PgBouncer: a second server through it (DB_SIMPLE_PROTOCOL, as behind any transaction pooler), pgbench
# through it too (extended protocol with unnamed statements: PgBouncer 1.18 cannot route named prepared
# statements). One round.
pooled=""
if [ "${BENCH_PGBOUNCER:-}" != skip ] && [ -x scripts/pgbouncer.sh ]; then
  if pgb_url=$(PGBOUNCER_DIR="$work/pgbouncer" scripts/pgbouncer.sh start 127.0.0.1 "$pg_port" "$dbname" 2>"$work/pgbouncer.log"); then
    pgbouncer_started=1
    pooled_port=$(free_port $((http_port + 1)))
    pooled_pid=$(serve "$pgb_url" "$pooled_port" DB_SIMPLE_PROTOCOL=true)
    wait_ready "$pooled_port"
    measure "pbnew" "$pooled_pid" run_loadgen "$pooled_port" new
    measure "pbpgfull" "$pooled_pid" run_pgbench delivery_full "$pgb_url" extended
    measure "pbdup" "$pooled_pid" run_loadgen "$pooled_port" dup
    stop_pid "$pooled_pid"
    pooled=1
  else
    cat "$work/pgbouncer.log" >&2
    log "pgbouncer did not start: no PgBouncer row"
  fi
fi

if [ "$fill" -gt 0 ]; then
  fill_tables "$fill"
  for r in $(seq "$rounds"); do round f "$r"; done
fi
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$server_pid/status")
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status")

# Per-round values, then their medians.
declare -A med
collect() { # NAME EXPR-FUNCTION: med[NAME] is the median over rounds of "FUNCTION R"
  local name=$1 fn=$2 vals="" r
  for r in $(seq "$rounds"); do vals+=" $($fn "$r")"; done
  med[$name]=$(median "$vals")
}
t1() { ratio "$(rate "bare,$1")" "$(rate "pgbare,$1")"; }
t2() { ratio "$(rate "new,$1")" "$(rate "pgfull,$1")"; }
t1f() { ratio "$(rate "baref,$1")" "$(rate "pgbaref,$1")"; }
t2f() { ratio "$(rate "newf,$1")" "$(rate "pgfullf,$1")"; }
srv_new() { cpu_of "new,$1" 2; }
srv_dup() { cpu_of "dup,$1" 2; }
tail4() { ratio "$(field p99_ms "${res[new,$1]}")" "$(field p50_ms "${res[new,$1]}")"; }
bare_rate() { rate "bare,$1"; }
new_rate() { rate "new,$1"; }
baref_rate() { rate "baref,$1"; }
newf_rate() { rate "newf,$1"; }
collect t1 t1
collect t2 t2
collect srv_new srv_new
collect srv_dup srv_dup
collect t4 tail4
collect bare bare_rate
collect new new_rate
if [ "$fill" -gt 0 ]; then
  collect t1f t1f
  collect t2f t2f
  collect baref baref_rate
  collect newf newf_rate
fi

other_max() { local k m=0 o; for k in "$@"; do o=$(cpu_of "$k" 4); [ "$o" -gt "$m" ] && m=$o; done; echo "$m"; }

echo
echo "$n senders, ${secs} s per phase. Rates in deliveries or transactions per second, latencies in ms; CPU in ms"
echo "per delivery or transaction (postgres / server); other CPU: the largest share of the machine used by"
echo "processes outside the benchmark during the row's phases."
echo
echo "| round | bare/s | pgbench-bare tps | T1 | new/s | p50 | p99 | pgbench-full tps | T2 | dup/s | CPU bare | CPU new | CPU dup | CPU pgbench-full | other CPU |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
row() { # LABEL SUFFIX R
  local s=$2 r=$3 dupcell="-" dupcpu="-"
  if [ -z "$s" ]; then dupcell=$(rate "dup,$r"); dupcpu="$(cpu_of "dup,$r" 1) / $(cpu_of "dup,$r" 2)"; fi
  echo "| $1 | $(rate "bare$s,$r") | $(rate "pgbare$s,$r") | $(ratio "$(rate "bare$s,$r")" "$(rate "pgbare$s,$r")")" \
    "| $(rate "new$s,$r") | $(field p50_ms "${res[new$s,$r]}") | $(field p99_ms "${res[new$s,$r]}")" \
    "| $(rate "pgfull$s,$r") | $(ratio "$(rate "new$s,$r")" "$(rate "pgfull$s,$r")") | $dupcell" \
    "| $(cpu_of "bare$s,$r" 1) / $(cpu_of "bare$s,$r" 2) | $(cpu_of "new$s,$r" 1) / $(cpu_of "new$s,$r" 2) | $dupcpu" \
    "| $(cpu_of "pgfull$s,$r" 1) | $(other_max "bare$s,$r" "pgbare$s,$r" "new$s,$r" "pgfull$s,$r")% |"
}
for r in $(seq "$rounds"); do row "$r" "" "$r"; done
if [ "$fill" -gt 0 ]; then
  for r in $(seq "$rounds"); do row "$r, $fill rows" f "$r"; done
fi
if [ -n "$pooled" ]; then
  echo
  echo "Through PgBouncer (transaction pooling; server with DB_SIMPLE_PROTOCOL=true, pgbench -M extended), one round:"
  echo
  echo "| new/s | p50 | p99 | pgbench-full tps | new/pgbench-full | dup/s | CPU new | other CPU |"
  echo "|--:|--:|--:|--:|--:|--:|--:|--:|"
  echo "| $(rate pbnew) | $(field p50_ms "${res[pbnew]}") | $(field p99_ms "${res[pbnew]}") | $(rate pbpgfull)" \
    "| $(ratio "$(rate pbnew)" "$(rate pbpgfull)") | $(rate pbdup) | $(cpu_of pbnew 1) / $(cpu_of pbnew 2)" \
    "| $(other_max pbnew pbpgfull pbdup)% |"
fi
echo
echo "server peak RSS (VmHWM): $((hwm_kb / 1024)) MB (VmRSS at the end: $((rss_kb / 1024)) MB); the run took $((SECONDS - t_start)) s"
for f in "$work"/server-*.log; do
  if warns=$(grep -cE 'level=(WARN|ERROR)' "$f"); then
    echo "$(basename "$f"): $warns lines at WARN or above, first:"
    grep -m 3 -E 'level=(WARN|ERROR)' "$f"
  fi
done
max_other=$(for k in "${!cpu[@]}"; do cpu_of "$k" 4; done | sort -n | tail -n 1)
if [ "${max_other:-0}" -gt 10 ]; then
  echo "warning: other processes (or hypervisor steal) took up to $max_other% of the machine during a phase;"
  echo "these numbers measure that neighbour too: rerun on a quiet machine."
fi

echo
echo "Targets, on the median of $rounds rounds:"
echo "$(verdict ge "${med[t1]}" 0.85)  T1 bare ingest / pgbench-bare = ${med[t1]} (target >= 0.85)"
echo "$(verdict ge "${med[t2]}" 0.80)  T2 new user.created / pgbench-full = ${med[t2]} (target >= 0.80)"
echo "$(verdict le "${med[srv_new]}" 0.30)  T3 server CPU per new user.created = ${med[srv_new]} ms (target <= 0.30)"
echo "$(verdict le "${med[srv_dup]}" 0.10)  T3 server CPU per duplicate = ${med[srv_dup]} ms (target <= 0.10)"
echo "$(verdict le "${med[t4]}" 3)  T4 new deliveries p99 / p50 = ${med[t4]} (target <= 3)"
if [ "$fill" -gt 0 ]; then
  keep_bare=$(ratio "${med[baref]}" "${med[bare]}") keep_new=$(ratio "${med[newf]}" "${med[new]}")
  t5() { ge "$keep_bare" 0.90 && ge "$keep_new" 0.90; }
  echo "$(verdict t5)  T5 with $fill claims and archive rows: bare ${med[baref]}/s = $keep_bare of empty, new ${med[newf]}/s =" \
    "$keep_new of empty (target >= 0.90 each); T1 ${med[t1f]}, T2 ${med[t2f]} there"
else
  echo "SKIP  T5 (BENCH_FILL=0)"
fi
echo "$(verdict test "$hwm_kb" -le 102400)  T6 server peak RSS $((hwm_kb / 1024)) MB (target <= 100 MB)"
