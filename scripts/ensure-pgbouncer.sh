#!/usr/bin/env bash
# Prints the path of the pgbouncer binary, installing Debian's pgbouncer package first when it is missing
# and we are root. Debian puts it in /usr/sbin, which is off a normal user's PATH.
set -euo pipefail

find_pgbouncer() {
  if [ -n "${PGBOUNCER_BIN:-}" ] && [ -x "$PGBOUNCER_BIN" ]; then echo "$PGBOUNCER_BIN"; return 0; fi
  if command -v pgbouncer >/dev/null 2>&1; then command -v pgbouncer; return 0; fi
  if [ -x /usr/sbin/pgbouncer ]; then echo /usr/sbin/pgbouncer; return 0; fi
  return 1
}

if bin=$(find_pgbouncer); then echo "$bin"; exit 0; fi

if [ "$(id -u)" -ne 0 ]; then
  echo "pgbouncer not found. Install it (Debian/Ubuntu: sudo apt-get install pgbouncer) or set PGBOUNCER_BIN." >&2
  exit 1
fi
echo "Installing PgBouncer (apt-get install pgbouncer)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq pgbouncer >&2
find_pgbouncer
