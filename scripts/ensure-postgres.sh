#!/usr/bin/env bash
# Prints the directory of the PostgreSQL server binaries (initdb, pg_ctl, postgres), installing Debian's
# postgresql package first when they are missing and we are root. Debian keeps them off PATH.
set -euo pipefail

find_bindir() {
  if [ -n "${PG_BINDIR:-}" ] && [ -x "$PG_BINDIR/initdb" ]; then echo "$PG_BINDIR"; return 0; fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

if bindir=$(find_bindir); then echo "$bindir"; exit 0; fi

if [ "$(id -u)" -ne 0 ]; then
  echo "PostgreSQL server binaries not found. Install them (Debian/Ubuntu: sudo apt-get install postgresql)" >&2
  echo "or set PG_BINDIR, or point DATABASE_URL / TEST_DATABASE_URL at a running server." >&2
  exit 1
fi
echo "Installing PostgreSQL (apt-get install postgresql)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq postgresql >&2
find_bindir
