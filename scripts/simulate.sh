#!/usr/bin/env bash
# `make simulate`: the scenario library (scenarios/*.yaml, docs/simulate.md) against a development server of
# its own on a fresh database: orderly, then under chaos with three seeds (each run's outcome must equal the
# orderly one's), then `fabrica verify` when the build has it. Nothing needs to be running first, and it
# does not touch `make run`'s cluster, port or .env: the server runs in a scratch directory (no .env there)
# on its own Postgres cluster and port, and everything stops at the end.
#   SIMULATE_PORT (18090), SIMULATE_DB_PORT (54339), SIMULATE_SEEDS ("1 2 3"), SIMULATE_SCENARIOS (all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
port=${SIMULATE_PORT:-18090}
db_port=${SIMULATE_DB_PORT:-54339}
seeds=${SIMULATE_SEEDS:-1 2 3}
scenarios=${SIMULATE_SCENARIOS:-all}
started=$SECONDS

make --no-print-directory build >/dev/null
bin="$root/bin/fabrica"
# A scratch directory the postgres user can reach (initdb runs as postgres when we are root).
tmp=$(mktemp -d /var/tmp/fabrica-simulate.XXXXXX)
chmod 755 "$tmp"
export DEV_DB_PORT=$db_port DEV_DB_DIR=$tmp/pg DEV_DB_NAME=fabrica_simulate
server=""
cleanup() {
  local code=$?
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" && wait "$server" 2>/dev/null || true
  fi
  "$root/scripts/dev-db.sh" stop >/dev/null 2>&1 || true
  if [ "$code" -ne 0 ] && [ -s "$tmp/server.log" ]; then
    echo "simulate: the server's last log lines ($tmp/server.log):" >&2
    tail -n 30 "$tmp/server.log" >&2
  else
    rm -rf "$tmp"
  fi
  exit "$code"
}
trap cleanup EXIT

DATABASE_URL=$(scripts/dev-db.sh start 2>/dev/null)
export DATABASE_URL APP_ENV=development PORT=$port
# Development defaults, with the API rate limit off (one operator reads every step's outcome) and a session
# key of its own; TIERS_FILE unset: the shipped tiers file.
export RATE_LIMIT_PER_MINUTE=0 DEV_SESSION_KEY_FILE=$tmp/dev-session-key.pem LOG_LEVEL=warn
cd "$tmp"
"$bin" migrate up >/dev/null 2>&1
"$bin" serve >"$tmp/server.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then break; fi
  kill -0 "$server" 2>/dev/null || { echo "simulate: the server exited early" >&2; exit 1; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null || { echo "simulate: the server is not ready after 60s" >&2; exit 1; }
echo "simulate: server on :$port, database on :$db_port (ready after $((SECONDS - started))s)"

url="http://127.0.0.1:$port"
step_start=$SECONDS
"$bin" simulate $scenarios --dir "$root/scenarios" --url "$url" --out "$tmp/orderly"
timings=("$(printf '%4ds  orderly' $((SECONDS - step_start)))")
for seed in $seeds; do
  step_start=$SECONDS
  "$bin" simulate $scenarios --dir "$root/scenarios" --url "$url" --chaos --seed "$seed" --against "$tmp/orderly"
  timings+=("$(printf '%4ds  chaos, seed %s' $((SECONDS - step_start)) "$seed")")
done
# fabrica verify checks the whole database's invariants (ledger, tiers, grants). Each scenario plays in its
# own stretch of simulated time, so the clock ends wherever the last one left it, before the end of some
# other scenario's periods: the invariants are judged once every period is over, with the clock moved past
# all of them (the move runs the jobs that came due: the downgrades, the expiries, the refunds).
step_start=$SECONDS
"$bin" dev clock set 2040-01-01T00:00:00Z --url "$url" >/dev/null
"$bin" verify
timings+=("$(printf '%4ds  fabrica verify (the clock past every scenario)' $((SECONDS - step_start)))")
printf 'simulate: %s\n' "${timings[@]}"
echo "simulate: passed in $((SECONDS - started))s"
