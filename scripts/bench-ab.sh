#!/usr/bin/env bash
# scripts/bench-ab.sh REV: the server at git revision REV against the working tree's, in one run
# (docs/benchmarks.md, "Before and after"). The machine's speed drifts, so absolute costs (CPU per
# delivery) compare only within one run: both servers run at once on one throwaway cluster, each on its
# own database migrated by its own binary, and the same bin/loadgen drives them in interleaved rounds
# (new, dup, bare; 32 senders; a CHECKPOINT before every phase). Prints one row per round, version and
# mode: deliveries/s, latency, and CPU per delivery of the server, Postgres and loadgen (from /proc).
#
# Traffic goes to 127.0.0.1 only, each phase is bounded in time and count, and the cluster and the
# servers are removed on exit. Not part of make bench (it builds a second binary).
#
#   AB_ROUNDS=3  AB_SECONDS=8  AB_SENDERS=32  AB_PG_PORT=54460  AB_PORT=18301 (and the next one)
set -euo pipefail
rev=${1:?usage: scripts/bench-ab.sh REV (a git revision to compare with the working tree)}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
rounds=${AB_ROUNDS:-3} secs=${AB_SECONDS:-8} n=${AB_SENDERS:-32} pg_port=${AB_PG_PORT:-54460} port=${AB_PORT:-18301}

as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
bindir=$(scripts/ensure-postgres.sh)
work=$(mktemp -d /tmp/fabrica-ab.XXXXXX)
chmod 755 "$work"
data=$work/pg
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  if [ -s "$data/PG_VERSION" ]; then as_owner "$bindir/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true; fi
  git -C "$root" worktree remove --force "$work/src" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The two binaries: REV's from a temporary worktree, the working tree's from make build.
git worktree add --detach "$work/src" "$rev" >/dev/null 2>&1
(cd "$work/src" && CGO_ENABLED=0 go build -trimpath -o "$work/fabrica-rev" ./backend/cmd/fabrica)
make --no-print-directory build >/dev/null
go build -o bin/loadgen ./backend/cmd/loadgen

mkdir -p "$data"
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$data"; fi
chmod 700 "$data"
as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C --no-instructions >/dev/null
as_owner "$bindir/pg_ctl" -D "$data" -w -l "$data/server.log" -o "-c listen_addresses=127.0.0.1 -p $pg_port \
  -c unix_socket_directories='' -c shared_buffers=128MB -c max_connections=200 -c max_wal_size=8GB \
  -c checkpoint_timeout=30min" start >/dev/null
pm=$(head -n 1 "$data/postmaster.pid")
sql() { "$bindir/psql" -X -q -A -t -v ON_ERROR_STOP=1 "postgres://postgres@127.0.0.1:$pg_port/$1" "${@:2}"; }
sql postgres -c "CREATE DATABASE ab_rev" -c "CREATE DATABASE ab_tree"

declare -A bin=([rev]=$work/fabrica-rev [tree]=$root/bin/fabrica) http spid
http[rev]=$port
http[tree]=$((port + 1))
for v in rev tree; do
  url="postgres://postgres@127.0.0.1:$pg_port/ab_$v?sslmode=disable"
  (cd "$work" && DATABASE_URL=$url APP_ENV=development "${bin[$v]}" migrate up) >"$work/migrate-$v.log" 2>&1
  (cd "$work" && exec env -u CLERK_WEBHOOK_SECRET APP_ENV=development PORT="${http[$v]}" DATABASE_URL="$url" \
    LOG_LEVEL=warn SERVE_WORKERS=false DB_MAX_CONNS=40 "${bin[$v]}" serve) >>"$work/server-$v.log" 2>&1 &
  spid[$v]=$!
  pids+=("$!")
  bin/loadgen -mode ready -url "http://127.0.0.1:${http[$v]}" -wait-ready 60s
  # The warmup and ANALYZE of scripts/bench.sh: a live database has planner statistics.
  bin/loadgen -url "http://127.0.0.1:${http[$v]}" -mode new -senders 8 -duration 2s -warmup 0s -max 20000 >/dev/null
  sql "ab_$v" -c "VACUUM ANALYZE"
done

ticks() { awk -v c="${2:-0}" '{sub(/^.*\) /, ""); print $12 + $13 + (c ? $14 + $15 : 0)}' "/proc/$1/stat"; }
pg_ticks() {
  local t p
  t=$(ticks "$pm" 1)
  for p in $(ps -o pid= --ppid "$pm"); do t=$((t + $(ticks "$p" 2>/dev/null || echo 0))); done
  echo "$t"
}
field() { sed -E "s/.*\"$1\":([-0-9.e+]+).*/\1/" <<<"$2"; }
hz=$(getconf CLK_TCK)

echo "$rev (rev) against the working tree (tree), $n senders, ${secs} s per phase; CPU in ms per delivery"
echo
echo "| round | version | mode | deliveries/s | p50 ms | p99 ms | server CPU | postgres CPU | loadgen CPU |"
echo "|--:|---|---|--:|--:|--:|--:|--:|--:|"
for r in $(seq "$rounds"); do
  for mode in new dup bare; do
    for v in rev tree; do
      sql "ab_$v" -c CHECKPOINT
      s0=$(ticks "${spid[$v]}") p0=$(pg_ticks) c0=$(ticks $$ 1)
      out=$(bin/loadgen -url "http://127.0.0.1:${http[$v]}" -mode "$mode" -senders "$n" -duration "${secs}s" -warmup 1s -max 400000 2>/dev/null) ||
        { tail -n 20 "$work/server-$v.log" >&2; echo "loadgen -mode $mode against $v failed" >&2; exit 1; }
      s1=$(ticks "${spid[$v]}") p1=$(pg_ticks) c1=$(ticks $$ 1)
      awk -v r="$r" -v v="$v" -v m="$mode" -v rate="$(field per_sec "$out")" -v p50="$(field p50_ms "$out")" \
        -v p99="$(field p99_ms "$out")" -v n="$(field sent "$out")" -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v c=$((c1 - c0)) -v hz="$hz" \
        'BEGIN { ms = 1000 / hz / n; printf "| %s | %s | %s | %.1f | %.2f | %.2f | %.3f | %.3f | %.3f |\n", r, v, m, rate, p50, p99, s * ms, p * ms, c * ms }'
    done
  done
done
echo
echo "peak RSS: rev $(awk '/^VmHWM/ {printf "%d MB", $2 / 1024}' "/proc/${spid[rev]}/status"), tree $(awk '/^VmHWM/ {printf "%d MB", $2 / 1024}' "/proc/${spid[tree]}/status")"
