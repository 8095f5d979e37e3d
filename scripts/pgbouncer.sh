#!/usr/bin/env bash
# PgBouncer in transaction pooling mode in front of a Postgres server, listening on 127.0.0.1 only: the
# scale-out topology of docs/scaling.md, the PgBouncer row of `make bench`, and the PgBouncer tests.
#   scripts/pgbouncer.sh start [HOST PORT [DBNAME]]  start (or reuse) it in front of HOST:PORT and print the
#                                                    DATABASE_URL of DBNAME through it; without arguments in
#                                                    front of the dev database (scripts/dev-db.sh start)
#   scripts/pgbouncer.sh stop                        stop it
#   scripts/pgbouncer.sh status                      whether it runs, where, and its pools (exit 1 when not)
#   scripts/pgbouncer.sh url                         print the DATABASE_URL through it
# HOST may be a unix socket directory. The server must let its postgres user in without a password (trust:
# the dev, bench and test clusters). Clients connect as postgres without a password too, on loopback only.
#   PGBOUNCER_DIR        the ini, log and pid file (default .data/pgbouncer, or /var/tmp/fabrica-pgbouncer-*
#                        when the postgres user cannot reach the checkout); one PgBouncer per directory
#   PGBOUNCER_PORT       the first port tried (default 54331); the next free one up is taken
#   PGBOUNCER_POOL_SIZE  server connections per database (default 20): what Postgres sees, however many
#                        clients connect
# As root it runs as the postgres user (PgBouncer refuses root); apps connect with DB_SIMPLE_PROTOCOL=true.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${PGBOUNCER_DIR:-$root/.data/pgbouncer}
# As root PgBouncer runs as postgres, which may not reach the checkout (a home directory or a mktemp clone
# with mode 700): then the default is a per-checkout directory under /var/tmp, as scripts/dev-db.sh does.
if [ -z "${PGBOUNCER_DIR:-}" ] && [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$root"; then
  dir=/var/tmp/fabrica-pgbouncer-$(echo "$root" | md5sum | cut -c1-8)
fi
first_port=${PGBOUNCER_PORT:-54331}
pool_size=${PGBOUNCER_POOL_SIZE:-20}
user=postgres

log() { echo "pgbouncer: $*" >&2; }
die() { log "$*"; exit 1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# running prints the pid of this directory's PgBouncer, or fails. A pid file outlives a killed PgBouncer,
# its pid may be reused, and a dead one lingers as a zombie until reaped: only a live pgbouncer counts.
running() {
  local pid
  pid=$(cat "$dir/pgbouncer.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] || return 1
  case "$(ps -o stat=,comm= -p "$pid" 2>/dev/null)" in
    Z*) return 1 ;;
    *pgbouncer) echo "$pid" ;;
    *) return 1 ;;
  esac
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

write_ini() {
  local host=$1 upstream_port=$2 port=$3
  # trust: the clients are this machine's (listen_addr is loopback) and the server trusts postgres
  # anyway; PgBouncer still wants the user listed in auth_file.
  printf '"%s" ""\n' "$user" >"$dir/userlist.txt"
  cat >"$dir/pgbouncer.ini" <<EOF
; Written by scripts/pgbouncer.sh: regenerated on every start.
[databases]
; Every database name is passed through to the same server: the tests' per-test databases included.
* = host=$host port=$upstream_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
; A server connection serves one transaction, then the next client's. No session state survives a
; transaction: no prepared statements (DB_SIMPLE_PROTOCOL=true), no LISTEN (River polls), no session
; advisory locks (the migration lock is a row in goose_lock).
pool_mode = transaction
; Hand out server connections in turn rather than the most recently used first: each transaction may
; land on any connection (that is the contract), and code that leans on session state fails in the
; tests, not once in a while in production.
server_round_robin = 1
default_pool_size = $pool_size
max_client_conn = 500
; JDBC-style drivers send it at startup; PgBouncer refuses unknown startup parameters otherwise.
ignore_startup_parameters = extra_float_digits
; A client waits this long for a server connection before its query fails, rather than hanging.
query_wait_timeout = 30
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  chmod 644 "$dir/userlist.txt" "$dir/pgbouncer.ini"
}

# launch starts PgBouncer on port and waits until it listens; exit status 2 when the port was taken
# meanwhile. PgBouncer daemonises before it binds, so its own exit status says nothing: the log does.
launch() {
  local port=$1 bin=$2 pid
  : >"$dir/pgbouncer.log"
  [ "$(id -u)" -eq 0 ] && chown "$user" "$dir/pgbouncer.log"
  as_owner "$bin" -d -q "$dir/pgbouncer.ini"
  for _ in $(seq 1 100); do
    if grep -q 'Address already in use' "$dir/pgbouncer.log"; then return 2; fi
    if grep -q FATAL "$dir/pgbouncer.log"; then cat "$dir/pgbouncer.log" >&2; return 1; fi
    if pid=$(running) && grep -q 'process up' "$dir/pgbouncer.log"; then return 0; fi
    sleep 0.1
  done
  cat "$dir/pgbouncer.log" >&2
  return 1
}

start() {
  local host=${1:-} upstream_port=${2:-} dbname=${3:-fabrica} bin port rc
  if [ -z "$host" ]; then
    "$root/scripts/dev-db.sh" start >/dev/null
    host=127.0.0.1 upstream_port=${DEV_DB_PORT:-54329} dbname=${DEV_DB_NAME:-fabrica}
  fi
  [ -n "$upstream_port" ] || die "usage: $0 start [HOST PORT [DBNAME]]"
  if running >/dev/null; then
    [ "$(cat "$dir/upstream")" = "$host:$upstream_port" ] ||
      die "already running in $dir in front of $(cat "$dir/upstream"); stop it first"
    log "reusing the running PgBouncer on 127.0.0.1:$(cat "$dir/port")"
    echo "postgres://$user@127.0.0.1:$(cat "$dir/port")/$dbname?sslmode=disable" | tee "$dir/url"
    return 0
  fi
  bin=$("$root/scripts/ensure-pgbouncer.sh")
  mkdir -p "$dir"
  # Left by a PgBouncer that was killed: the new one would refuse to start beside it.
  rm -f "$dir/pgbouncer.pid"
  if [ "$(id -u)" -eq 0 ]; then
    chown "$user" "$dir"
    runuser -u "$user" -- test -w "$dir" || die "the $user user cannot write $dir: set PGBOUNCER_DIR"
  fi
  port=$first_port
  for _ in $(seq 1 20); do
    while ! port_free "$port"; do port=$((port + 1)); done
    write_ini "$host" "$upstream_port" "$port"
    rc=0; launch "$port" "$bin" || rc=$?
    [ "$rc" -eq 2 ] || break
    port=$((port + 1))
  done
  [ "$rc" -eq 0 ] || die "did not start (log: $dir/pgbouncer.log)"
  echo "$host:$upstream_port" >"$dir/upstream"
  echo "$port" >"$dir/port"
  log "transaction pooling on 127.0.0.1:$port in front of $host:$upstream_port (pool $pool_size per database)"
  echo "postgres://$user@127.0.0.1:$port/$dbname?sslmode=disable" | tee "$dir/url"
}

stop() {
  local pid
  if ! pid=$(running); then log "not running"; return 0; fi
  # SIGTERM: immediate shutdown; clients in a transaction see their connection close.
  kill -TERM "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { log "stopped"; return 0; }
    sleep 0.1
  done
  die "pid $pid did not stop within 10s"
}

status() {
  local pid
  if ! pid=$(running); then log "not running"; return 1; fi
  log "running (pid $pid) on 127.0.0.1:$(cat "$dir/port") in front of $(cat "$dir/upstream")"
  if command -v psql >/dev/null 2>&1; then
    psql -X "postgres://$user@127.0.0.1:$(cat "$dir/port")/pgbouncer?sslmode=disable" -c 'SHOW POOLS' >&2
  fi
}

url() {
  [ -s "$dir/url" ] || die "never started in $dir"
  cat "$dir/url"
}

case "${1:-start}" in
  start) shift || true; start "$@" ;;
  stop) stop ;;
  status) status ;;
  url) url ;;
  *) echo "usage: $0 start [HOST PORT [DBNAME]]|stop|status|url" >&2; exit 2 ;;
esac
