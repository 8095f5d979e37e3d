#!/usr/bin/env bash
# `make run`: bring the service up with no set-up. Without a DATABASE_URL (in the environment or .env) it
# starts the project-local cluster, then applies migrations and serves with development defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The binary fails closed (production) without APP_ENV; this script is the development path.
export APP_ENV=${APP_ENV:-development}

if [ -z "${DATABASE_URL:-}" ] && ! grep -qs '^DATABASE_URL=.' .env; then
  DATABASE_URL=$(scripts/dev-db.sh start)
  export DATABASE_URL
fi
./bin/fabrica migrate up
exec ./bin/fabrica serve
