#!/usr/bin/env bash
# Mutation testing of one package tree with gremlins (a Go tool dependency; docs/testing.md):
#   scripts/mutate.sh ./backend/internal/billing/... [more `gremlins unleash` flags]
# prints the mutants the tests did not kill (lived, not covered, timed out) and the totals, and writes
# every mutant's status to build/mutate/<package>.json.
#
# gremlins runs the tree's tests once with coverage, then, per mutant, copies the module to a temp
# directory, applies the mutant there and runs `go test` of the mutated package. Left alone, every one of
# those test binaries would start its own Postgres cluster (pgtest), and a binary killed on a timeout or by
# a mutant's panic never stops its cluster: a run would leave dozens behind. So the run gets one
# throwaway cluster (TEST_DATABASE_URL: pgtest then gives each binary its own template and each test its
# own database there), and whatever a killed binary left in it goes when the run ends.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pkg=${1:?usage: scripts/mutate.sh ./backend/internal/<package>/... [gremlins unleash flags]}
shift
dir=${pkg%/...}
dir=${dir#./}
if [ ! -d "$root/$dir" ]; then
  echo "mutate: $pkg: no directory $dir" >&2
  exit 2
fi
name=$(basename "$dir")

as_owner() {
  # From /: the postgres user may not be allowed into the caller's working directory.
  if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

bindir=$("$root/scripts/ensure-postgres.sh")
# A short path: the socket's path must fit in 107 bytes.
tmp=$(mktemp -d /tmp/fmut.XXXXXX)
stop_cluster() {
  as_owner "$bindir/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap stop_cluster EXIT
# Interrupted (Ctrl-C, a kill): exit through the EXIT trap too, so the cluster never outlives the run.
trap 'exit 130' INT
trap 'exit 143' TERM
[ "$(id -u)" -eq 0 ] && chown postgres "$tmp"
as_owner "$bindir/initdb" -D "$tmp/data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync --no-instructions >/dev/null
# Two workers, each test binary with up to 40 connections per parallel test: room for all of them.
as_owner "$bindir/pg_ctl" -D "$tmp/data" -w -t 60 -l "$tmp/log" -o "-k $tmp -c listen_addresses='' \
  -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=600 -c shared_buffers=128MB" start >/dev/null
export TEST_DATABASE_URL="postgres://postgres@/postgres?host=$tmp&port=5432&sslmode=disable"
# gremlins times each mutant's tests out at the coverage run's duration × the coefficient: that run must
# never come from the test cache. The coefficient is generous because a mutant's run recompiles the
# package and links its test binary, which the coverage run of a small package hardly shows.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"

# gremlins' copies of the module go in the same directory, removed with it even when gremlins is killed.
mkdir -p "$tmp/work" "$root/build/mutate"
cd "$root"
start=$SECONDS
TMPDIR=$tmp/work go tool gremlins unleash --invert-logical --invert-loopctrl \
  --timeout-coefficient "${MUTATE_TIMEOUT_COEFFICIENT:-6}" --workers "${MUTATE_WORKERS:-0}" \
  --output-statuses lct --output "build/mutate/$name.json" "$@" "$root/$dir"
echo "mutate: $pkg took $((SECONDS - start))s; every mutant's status: build/mutate/$name.json"
