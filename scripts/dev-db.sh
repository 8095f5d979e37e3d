#!/usr/bin/env bash
# A project-local development Postgres: one cluster under .data/pg, listening on 127.0.0.1 only.
#   scripts/dev-db.sh start   start (or reuse) the cluster, create the database, print its DATABASE_URL
#   scripts/dev-db.sh stop    stop it (the data stays for the next start)
#   scripts/dev-db.sh url     print the DATABASE_URL
# As root the server runs as the postgres user (initdb refuses root); as a normal user it runs as you.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${DEV_DB_PORT:-54329}
dbname=${DEV_DB_NAME:-fabrica}
data=${DEV_DB_DIR:-$root/.data/pg}
url="postgres://postgres@127.0.0.1:$port/$dbname?sslmode=disable"

as_owner() {
  # From /: the postgres user may not be allowed into the caller's working directory.
  if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

log() { echo "dev-db: $*" >&2; }

start() {
  local bindir
  bindir=$("$root/scripts/ensure-postgres.sh")
  mkdir -p "$(dirname "$data")"
  if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$(dirname "$data")"; then
    # The postgres user cannot reach the checkout (a home directory with mode 700, say): keep the data in
    # a per-checkout directory it can own instead.
    data=/var/tmp/fabrica-dev-$(echo "$root" | md5sum | cut -c1-8)/pg
    log "postgres cannot traverse $root; using $data"
  fi
  if [ ! -s "$data/PG_VERSION" ]; then
    log "creating a cluster in $data"
    mkdir -p "$data"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$data"
    chmod 700 "$data"
    as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C --no-instructions >/dev/null
  fi
  if as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    log "reusing the running cluster on 127.0.0.1:$port"
  else
    log "starting postgres on 127.0.0.1:$port"
    as_owner "$bindir/pg_ctl" -D "$data" -w -t 60 -l "$data/server.log" \
      -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=''" start >/dev/null
  fi
  # The cluster trusts every connection it accepts (initdb --auth=trust): whoever started the running one,
  # it must listen on loopback only.
  local listen addr
  listen=$("$bindir/psql" "postgres://postgres@127.0.0.1:$port/postgres" -tAc "SHOW listen_addresses")
  for addr in ${listen//,/ }; do
    case "$addr" in
      127.0.0.1|::1|localhost) ;;
      *) log "the cluster on port $port listens on '$listen', not on loopback only: stop it (scripts/dev-db.sh stop) and start again"
         exit 1 ;;
    esac
  done
  if ! "$bindir/psql" "postgres://postgres@127.0.0.1:$port/postgres" -tAc \
      "SELECT 1 FROM pg_database WHERE datname = '$dbname'" | grep -q 1; then
    "$bindir/psql" "postgres://postgres@127.0.0.1:$port/postgres" -qc "CREATE DATABASE $dbname" >/dev/null
    log "created database $dbname"
  fi
  echo "$url"
}

stop() {
  local bindir
  bindir=$("$root/scripts/ensure-postgres.sh")
  for d in "$data" /var/tmp/fabrica-dev-$(echo "$root" | md5sum | cut -c1-8)/pg; do
    if [ -s "$d/PG_VERSION" ] && as_owner "$bindir/pg_ctl" -D "$d" status >/dev/null 2>&1; then
      as_owner "$bindir/pg_ctl" -D "$d" -m fast stop >/dev/null && log "stopped ($d)"
      return 0
    fi
  done
  log "not running"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  url) echo "$url" ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
