#!/usr/bin/env bash
# The load benchmark of `make bench` (docs/benchmarks.md). It starts a throwaway Postgres cluster (fsync and
# default durability on), runs the real server on it, drives it with bin/loadgen at each sender count for
# new events and for duplicates, and runs pgbench on the same database with the same client counts on two
# scripts: the minimal SQL of one delivery and the server's own statement list (scripts/bench/*.sql). It
# prints one side-by-side table, the server's peak RSS and PASS/FAIL per target.
#
# Traffic goes to 127.0.0.1 only, every phase is bounded in time (and loadgen in count too), and the server
# and the cluster are stopped and removed on exit. Exit status: 0 when everything ran, even if a target is
# missed (the verdicts say so); non-zero when something broke (cluster or server did not start, a delivery
# was refused, pgbench aborted).
#
#   BENCH_SECONDS=8 (measured seconds per phase)  BENCH_WARMUP=1s  BENCH_SENDERS="1 8 32"
#   BENCH_MAX=200000 (loadgen's hard bound per run)  BENCH_PG_PORT=54440  BENCH_PORT=18090 (first ports tried)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

secs=${BENCH_SECONDS:-8}
warmup=${BENCH_WARMUP:-1s}
senders=${BENCH_SENDERS:-"1 8 32"}
max_deliveries=${BENCH_MAX:-200000}
db_max_conns=40
dbname=fabrica_bench

log() { echo "bench: $*" >&2; }
die() { log "$*"; exit 1; }
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# free_port prints the first port from $1 up that nothing on 127.0.0.1 accepts connections on.
free_port() {
  local p
  for p in $(seq "$1" $(($1 + 50))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  die "no free port in $1..$(($1 + 50))"
}

bindir=$(scripts/ensure-postgres.sh)
# /tmp, not $TMPDIR: as root the cluster runs as postgres, which must be able to reach its data directory.
work=$(mktemp -d /tmp/fabrica-bench.XXXXXX)
chmod 755 "$work"
data=$work/pg
server_pid=""

cleanup() {
  local code=$?
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -s "$data/PG_VERSION" ]; then
    # A throwaway cluster: no shutdown checkpoint needed.
    as_owner "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sql() { "$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }

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
      -c max_wal_size=4GB -c checkpoint_timeout=30min" start >/dev/null; then
    cat "$data/server.log" >&2
    die "postgres did not start"
  fi
  pm_pid=$(head -n 1 "$data/postmaster.pid")
  sql "postgres://postgres@127.0.0.1:$pg_port/postgres" -c "CREATE DATABASE $dbname"
  db_url="postgres://postgres@127.0.0.1:$pg_port/$dbname?sslmode=disable"
  log "postgres $(sql "$db_url" -c 'SHOW server_version') on 127.0.0.1:$pg_port," \
    "fsync=$(sql "$db_url" -c 'SHOW fsync') synchronous_commit=$(sql "$db_url" -c 'SHOW synchronous_commit')"
}

# start_server migrates and serves from $work, so a developer's .env cannot change what is measured.
start_server() {
  make --no-print-directory build >/dev/null
  go build -o bin/loadgen ./backend/cmd/loadgen
  if ! (cd "$work" && DATABASE_URL=$db_url APP_ENV=development "$root/bin/fabrica" migrate up) >"$work/migrate.log" 2>&1; then
    cat "$work/migrate.log" >&2
    die "migrate up failed"
  fi
  http_port=$(free_port "${BENCH_PORT:-18090}")
  base=http://127.0.0.1:$http_port
  # LOG_LEVEL=warn: a request line per delivery at info would measure the logger. SERVE_WORKERS=false:
  # welcome-email jobs are inserted but not worked; this measures ingest.
  (cd "$work" && exec env -u CLERK_WEBHOOK_SECRET APP_ENV=development PORT="$http_port" DATABASE_URL="$db_url" \
    LOG_LEVEL=warn SERVE_WORKERS=false DB_MAX_CONNS=$db_max_conns "$root/bin/fabrica" serve) >"$work/server.log" 2>&1 &
  server_pid=$!
  if ! bin/loadgen -mode ready -url "$base" -wait-ready 60s; then
    tail -n 30 "$work/server.log" >&2
    die "the server did not become ready"
  fi
  log "server pid $server_pid on $base (DB_MAX_CONNS=$db_max_conns, GOMAXPROCS=${GOMAXPROCS:-$(nproc)})"
  # pgbench's ledger rows need users; one per client, so no two clients share the row the foreign key
  # check locks (the server never does either: one new user per event).
  sql "$db_url" -c "INSERT INTO users (id, clerk_user_id, email)
    SELECT CAST('00000000-0000-4000-8000-' || (100000000000 + g) AS uuid), 'user_pgbench_' || g, 'pgbench_' || g || '@bench.test'
      FROM generate_series(0, 1023) g"
}

checkpoint() { sql "$db_url" -c CHECKPOINT; }

# run_loadgen MODE N prints loadgen's JSON line; its human line goes to stderr as progress.
run_loadgen() {
  local out
  if ! out=$(bin/loadgen -url "$base" -mode "$1" -senders "$2" -duration "${secs}s" -warmup "$warmup" -max "$max_deliveries"); then
    tail -n 20 "$work/server.log" >&2
    die "loadgen -mode $1 -senders $2 failed"
  fi
  kill -0 "$server_pid" 2>/dev/null || die "the server exited"
  echo "$out"
}

# run_pgbench SCRIPT N prints "tps p50_ms p99_ms transactions"; the percentiles come from pgbench's
# per-transaction log.
run_pgbench() {
  local name=$1 n=$2 dir="$work/pgbench-$1-$2" out tps txns pct
  mkdir -p "$dir"
  if ! out=$(cd "$dir" && "$bindir/pgbench" -n -M prepared -c "$n" -j "$((n < 2 ? n : 2))" -T "$secs" -l \
      -f "$root/scripts/bench/$name.sql" "$db_url" 2>&1) || grep -q aborted <<<"$out"; then
    echo "$out" >&2
    die "pgbench $name -c $n failed"
  fi
  tps=$(awk '/^tps = / {printf "%.1f", $3}' <<<"$out")
  txns=$(awk -F': ' '/^number of transactions actually processed/ {print $2}' <<<"$out")
  # Log lines: client_id transaction_no latency_us script_no epoch_s epoch_us.
  pct=$(cat "$dir"/pgbench_log.* | awk '{print $3}' | sort -n | awk '{a[NR] = $1}
    function rank(p,  i) { i = int(p * NR); if (i < p * NR) i++; return a[i > 0 ? i : 1] / 1000 }
    END { printf "%.2f %.2f", rank(0.50), rank(0.99) }')
  log "pgbench $name clients=$n  $tps tps  p50 ${pct% *} ms  p99 ${pct#* } ms"
  echo "$tps $pct $txns"
}

# CPU accounting. The machine is CPU-bound and may be shared, so each phase records the CPU time per
# delivery of Postgres (the postmaster, its live children and the ones it has reaped), the server and
# the client (loadgen or pgbench: reaped children of this shell), and the share of the machine that
# went to anything else meanwhile.
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
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }
cpu_mark() {
  read -r m_busy m_total <<<"$(machine_ticks)"
  m_pg=$(pg_ticks) m_srv=$(stat_ticks "$server_pid") m_cli=$(stat_ticks $$ 1)
}
# cpu_spent TXNS prints "postgres_ms server_ms client_ms other_pct" since cpu_mark, per transaction.
cpu_spent() {
  local busy total
  read -r busy total <<<"$(machine_ticks)"
  awk -v n="$1" -v hz="$(getconf CLK_TCK)" -v pg=$(($(pg_ticks) - m_pg)) -v srv=$(($(stat_ticks "$server_pid") - m_srv)) \
    -v cli=$(($(stat_ticks $$ 1) - m_cli)) -v busy=$((busy - m_busy)) -v total=$((total - m_total)) 'BEGIN {
      ms = 1000 / hz / (n > 0 ? n : 1); other = busy - pg - srv - cli
      printf "%.2f %.2f %.2f %.0f", pg * ms, srv * ms, cli * ms, (other > 0 ? 100 * other / total : 0) }'
}

# field KEY JSON reads a number out of loadgen's flat JSON line.
field() { sed -E "s/.*\"$1\":([-0-9.e+]+).*/\1/" <<<"$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# measure KIND N CMD... runs one phase after a checkpoint (so none lands inside it) and keeps its output in
# res[KIND,N] and its CPU per delivery in cpu[KIND,N].
declare -A res cpu
measure() {
  local kind=$1 n=$2 txns
  shift 2
  checkpoint
  cpu_mark
  res[$kind,$n]=$("$@")
  case $kind in
    new | dup) txns=$(field sent "${res[$kind,$n]}") ;;
    *) txns=${res[$kind,$n]##* } ;;
  esac
  cpu[$kind,$n]=$(cpu_spent "$txns")
}

log "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg);" \
  "${secs}s per phase (loadgen after a $warmup warmup); senders: $senders"
start_cluster
start_server
for n in $senders; do
  measure new "$n" run_loadgen new "$n"
  measure dup "$n" run_loadgen dup "$n"
  measure min "$n" run_pgbench delivery_min "$n"
  measure full "$n" run_pgbench delivery_full "$n"
done
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$server_pid/status")
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status")

echo
echo "Throughput (deliveries or transactions per second) and latency (ms); other CPU: the largest share of"
echo "the machine used by processes outside the benchmark during the row's four phases."
echo
echo "| senders | new/s | p50 | p99 | dup/s | p50 | p99 | pgbench-min tps | p50 | p99 | pgbench-full tps | p50 | p99 | new/pgbench-min | new/pgbench-full | other CPU |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for n in $senders; do
  read -r min_tps min_p50 min_p99 _ <<<"${res[min,$n]}"
  read -r full_tps full_p50 full_p99 _ <<<"${res[full,$n]}"
  nps=$(field per_sec "${res[new,$n]}")
  other=$(for k in new dup min full; do echo "${cpu[$k,$n]##* }"; done | sort -n | tail -n 1)
  echo "| $n | $nps | $(field p50_ms "${res[new,$n]}") | $(field p99_ms "${res[new,$n]}")" \
    "| $(field per_sec "${res[dup,$n]}") | $(field p50_ms "${res[dup,$n]}") | $(field p99_ms "${res[dup,$n]}")" \
    "| $min_tps | $min_p50 | $min_p99 | $full_tps | $full_p50 | $full_p99" \
    "| $(ratio "$nps" "$min_tps") | $(ratio "$nps" "$full_tps") | $other% |"
done
echo
echo "CPU time per delivery or transaction (ms): postgres / server / client (loadgen or pgbench)."
echo
echo "| senders | new | dup | pgbench-min | pgbench-full |"
echo "|--:|--:|--:|--:|--:|"
for n in $senders; do
  row="| $n |"
  for k in new dup min full; do
    read -r c_pg c_srv c_cli _ <<<"${cpu[$k,$n]}"
    case $k in new | dup) row+=" $c_pg / $c_srv / $c_cli |" ;; *) row+=" $c_pg / - / $c_cli |" ;; esac
  done
  echo "$row"
done
echo
echo "server peak RSS (VmHWM): $((hwm_kb / 1024)) MB (VmRSS at the end: $((rss_kb / 1024)) MB)"
if warns=$(grep -cE 'level=(WARN|ERROR)' "$work/server.log"); then
  echo "server log: $warns lines at WARN or above, first:"
  grep -m 3 -E 'level=(WARN|ERROR)' "$work/server.log"
fi

max_other=$(for k in "${!cpu[@]}"; do echo "${cpu[$k]##* }"; done | sort -n | tail -n 1)
if [ "${max_other:-0}" -gt 10 ]; then
  echo "warning: other processes (or hypervisor steal) took up to $max_other% of the machine during a phase;"
  echo "these numbers measure that neighbour too: rerun on a quiet machine."
fi

echo
verdict() { if "$@"; then printf 'PASS'; else printf 'FAIL'; fi; }
top=$(tr ' ' '\n' <<<"$senders" | sort -n | tail -n 1)
top_new=$(field per_sec "${res[new,$top]}")
top_min=${res[min,$top]%% *}
echo "$(verdict ge "$(ratio "$top_new" "$top_min")" 0.85)  new events at $top senders: $top_new/s is" \
  "$(ratio "$top_new" "$top_min") of pgbench-min's $top_min tps (target >= 0.85)"
for n in $senders; do
  d=$(field per_sec "${res[dup,$n]}") e=$(field per_sec "${res[new,$n]}")
  echo "$(verdict ge "$d" "$e")  duplicates at $n senders: $d/s vs new events $e/s (target: duplicates >= new)"
done
echo "$(verdict test "$hwm_kb" -lt 102400)  server peak RSS $((hwm_kb / 1024)) MB (target < 100 MB)"
