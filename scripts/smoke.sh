#!/usr/bin/env bash
# End-to-end smoke test of the README's `make run` path on this machine: build, start (or reuse) the local
# cluster, migrate, serve, wait for /health/ready, SIGTERM and expect exit 0; then a second start that
# reuses the cluster; then `make run-pooled` (three servers and a worker through PgBouncer); then `fabrica
# verify` on the database all of that left; then a migrate down-to-zero/up round trip through the binary.
# Bounded in time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export APP_ENV=${APP_ENV:-development}
port=${SMOKE_PORT:-18080}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

command -v curl >/dev/null || { [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl >&2; }
make --no-print-directory build >/dev/null

# try_it runs the README's "Try it in one minute" against the running server, verbatim but for the port.
try_it() {
  local base="http://127.0.0.1:$port" token out
  token=$(bin/fabrica dev token)
  out=$(curl -fsS -H "Authorization: Bearer $token" "$base/api/v1/account/me")
  grep -q '"email":"dev@fabrica.test"' <<<"$out" || { echo "smoke: /me: $out" >&2; exit 1; }
  bin/fabrica trigger paddle subscription.created --user user_dev --tier pro --event-id evt_try_1 --url "$base" >/dev/null
  out=$(curl -fsS -H "Authorization: Bearer $token" "$base/api/v1/billing/credits")
  grep -q '"balance":1000' <<<"$out" || { echo "smoke: credits: $out" >&2; exit 1; }
  out=$(bin/fabrica trigger paddle subscription.created --user user_dev --tier pro --event-id evt_try_1 --url "$base")
  grep -q '"idempotent":true' <<<"$out" || { echo "smoke: replay: $out" >&2; exit 1; }
  out=$(curl -fsS -H "Authorization: Bearer $token" "$base/api/v1/billing/credits")
  grep -q '"balance":1000' <<<"$out" || { echo "smoke: credits after the replay: $out" >&2; exit 1; }
  echo "smoke: try-it: dev token, /me, a triggered subscription's 1000 credits, the replay a duplicate"
  bin/fabrica seed --url "$base" >/dev/null
  out=$(bin/fabrica seed --url "$base")
  if grep -v '^seeded: ' <<<"$out" | grep -qv 'already'; then echo "smoke: the second seed sent something: $out" >&2; exit 1; fi
  admin=$(bin/fabrica dev token --admin)
  out=$(curl -fsS -H "Authorization: Bearer $admin" "$base/api/v1/admin/webhook-events?status=failed")
  grep -q '"event_id":"evt_seed_unknown_price"' <<<"$out" || { echo "smoke: seed's failed delivery: $out" >&2; exit 1; }
  out=$(curl -fsS -H "Authorization: Bearer $admin" "$base/api/v1/admin/users?query=fabrica.test")
  grep -q '"email":"canceled@fabrica.test"' <<<"$out" || { echo "smoke: seed's users: $out" >&2; exit 1; }
  # Captured first: grep -q closing the pipe early would fail curl under pipefail.
  out=$(curl -fsS "$base/openapi.yaml")
  grep -q '^openapi: 3.1.0' <<<"$out" || { echo "smoke: /openapi.yaml" >&2; exit 1; }
  out=$(curl -fsS "$base/docs")
  grep -q 'swagger-ui-bundle.js' <<<"$out" || { echo "smoke: /docs: $out" >&2; exit 1; }
  echo "smoke: try-it: seed twice (the second changes nothing), its failed delivery and users; /openapi.yaml, /docs"
}

serve_once() {
  local started=$SECONDS pid code
  PORT=$port scripts/run-dev.sh >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$pid" 2>/dev/null; then cat "$log"; echo "smoke: server exited early" >&2; exit 1; fi
    sleep 0.5
  done
  curl -fsS "http://127.0.0.1:$port/health/ready" || { cat "$log"; echo "smoke: not ready in 60s" >&2; exit 1; }
  echo
  echo "smoke: ready after $((SECONDS - started))s"
  # Development listens on loopback only (its secrets and dev tokens are public).
  grep -q "addr=127.0.0.1:$port" "$log" || { cat "$log"; echo "smoke: development is not listening on 127.0.0.1 only" >&2; exit 1; }
  [ "${1:-}" = try ] && try_it
  kill -TERM "$pid"
  code=0; wait "$pid" || code=$?
  if [ "$code" -ne 0 ]; then cat "$log"; echo "smoke: serve exited $code after SIGTERM" >&2; exit 1; fi
  echo "smoke: SIGTERM drained, exit 0"
}

# The boot guard: production with a missing secret exits non-zero and names the variable.
if out=$(APP_ENV=production DATABASE_URL=postgres://x@127.0.0.1/x ./bin/fabrica serve 2>&1); then
  echo "smoke: production without secrets started" >&2; exit 1
fi
echo "$out" | grep -q PADDLE_WEBHOOK_SECRET || { echo "smoke: guard message: $out" >&2; exit 1; }
echo "smoke: boot guard refused: $out"
# Fail closed: with APP_ENV unset the binary is production and refuses the dev secrets.
if out=$(env -u APP_ENV DATABASE_URL=postgres://x@127.0.0.1/x ./bin/fabrica serve 2>&1); then
  echo "smoke: no APP_ENV started with dev secrets" >&2; exit 1
fi
echo "$out" | grep -q PADDLE_WEBHOOK_SECRET || { echo "smoke: default-env guard message: $out" >&2; exit 1; }
echo "smoke: unset APP_ENV is production: refused"
# APP_ENV=test outside go test gets the boot guard too: no development secrets for a process.
if out=$(APP_ENV=test DATABASE_URL=postgres://x@127.0.0.1/x ./bin/fabrica serve 2>&1); then
  echo "smoke: APP_ENV=test started with dev secrets" >&2; exit 1
fi
echo "$out" | grep -q PADDLE_WEBHOOK_SECRET || { echo "smoke: test-env guard message: $out" >&2; exit 1; }
echo "smoke: APP_ENV=test: refused"

# make run-pooled: three servers and a worker through PgBouncer. One new event sent to each server is
# processed by the first and a duplicate at the other two; SIGTERM drains all four with exit 0.
pooled_once() {
  local first=${SMOKE_POOLED_PORT:-18081} id="msg_pooled_$$_$RANDOM" pid p out code want got
  POOLED_PORT=$first scripts/run-pooled.sh >"$log" 2>&1 &
  pid=$!
  # A failure stops the topology too: nothing of it outlives the smoke test.
  # (|| true: a caller's "|| pooled_fail" does not shield the function's own commands from set -e, and the
  # topology may be gone already.)
  pooled_fail() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; cat "$log"; echo "smoke: run-pooled: $*" >&2; exit 1; }
  for _ in $(seq 1 120); do
    grep -q 'run-pooled: ready' "$log" && break
    kill -0 "$pid" 2>/dev/null || pooled_fail "exited early"
    sleep 0.5
  done
  grep -q 'run-pooled: ready' "$log" || pooled_fail "not ready in 60s"
  for p in "$first" $((first + 1)) $((first + 2)); do
    out=$(bin/fabrica trigger clerk user.created --user "user_$id" --event-id "$id" --url "http://127.0.0.1:$p")
    want=true; [ "$p" = "$first" ] && want=false
    got=false; grep -q '"idempotent":true' <<<"$out" && got=true
    if ! grep -q '^200 ' <<<"$out" || [ "$got" != "$want" ]; then pooled_fail ":$p answered $out"; fi
  done
  kill -TERM "$pid"
  code=0; wait "$pid" || code=$?
  if [ "$code" -ne 0 ]; then cat "$log"; echo "smoke: run-pooled exited $code after SIGTERM" >&2; exit 1; fi
  echo "smoke: run-pooled: 3 servers + a worker through PgBouncer, one event once, SIGTERM drained, exit 0"
}

serve_once try
serve_once
pooled_once

DATABASE_URL=$(scripts/dev-db.sh url)
export DATABASE_URL
listen=$("$(scripts/ensure-postgres.sh)/psql" "$DATABASE_URL" -tAc 'SHOW listen_addresses')
[ "$listen" = 127.0.0.1 ] || { echo "smoke: the dev database listens on '$listen'" >&2; exit 1; }
echo "smoke: development serves and its database listens on 127.0.0.1 only"
# Every consistency check on what the runs above left behind (docs/operations.md, Verify): exit 0 or stop.
./bin/fabrica verify
./bin/fabrica migrate down --to 0
./bin/fabrica migrate up
make --no-print-directory migrate-status
make --no-print-directory help >/dev/null
# The operator commands run against the same database.
./bin/fabrica jobs list
./bin/fabrica jobs run expire-subscriptions
./bin/fabrica purge-archive --older-than 2160h
scripts/dev-db.sh stop
echo "smoke: ok"
