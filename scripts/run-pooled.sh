#!/usr/bin/env bash
# `make run-pooled`: the scale-out topology of docs/scaling.md ("PgBouncer") on this machine. The dev
# database, PgBouncer in transaction pooling in front of it (scripts/pgbouncer.sh), the release step, three
# `fabrica serve` on 127.0.0.1:8081-8083 and one `fabrica worker`, all through PgBouncer with
# DB_SIMPLE_PROTOCOL=true (River polls). Ctrl-C or SIGTERM stops the four processes, then PgBouncer; the
# dev database keeps running (`make db-stop`). Exits non-zero when a process fails to start or to drain.
#   POOLED_PORT=8081  the first serve port (the next two follow)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export APP_ENV=${APP_ENV:-development}
first=${POOLED_PORT:-8081}

log() { echo "run-pooled: $*" >&2; }

DATABASE_URL=$(scripts/pgbouncer.sh start)
# SERVE_WORKERS=false: the worker process works the jobs, as in a deploy that scales them apart.
export DATABASE_URL DB_SIMPLE_PROTOCOL=true SERVE_WORKERS=false
./bin/fabrica migrate up

pids=()
names=()
status=0
stopping=""
# stop sends SIGTERM to every process, waits for each (they drain within SHUTDOWN_TIMEOUT) and stops
# PgBouncer last, so no drain loses its database.
stop() {
  local rc i
  [ -n "$stopping" ] && return
  stopping=1
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for i in "${!pids[@]}"; do
    rc=0; wait "${pids[$i]}" || rc=$?
    log "${names[$i]} exited $rc"
    [ "$rc" -eq 0 ] || status=1
  done
  scripts/pgbouncer.sh stop
  exit "$status"
}
trap stop INT TERM
trap 'status=$?; stop' EXIT

# start NAME CMD...: runs CMD in the background with its lines prefixed by NAME.
start() {
  local name=$1
  shift
  "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
  pids+=($!)
  names+=("$name")
}
for i in 0 1 2; do
  start "serve:$((first + i))" env PORT=$((first + i)) ./bin/fabrica serve
done
start worker ./bin/fabrica worker

for i in 0 1 2; do
  port=$((first + i))
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break
    kill -0 "${pids[$i]}" 2>/dev/null || { log "serve on :$port exited"; exit 1; }
    sleep 0.5
  done
  curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null || { log "serve on :$port not ready in 60s"; exit 1; }
done
log "ready: http://127.0.0.1:$first, :$((first + 1)), :$((first + 2)) and a worker, through $DATABASE_URL (Ctrl-C stops)"
# Until a signal, or until one of them exits on its own (then the rest are stopped too).
wait -n "${pids[@]}" || true
log "a process exited by itself"
status=1
stop
