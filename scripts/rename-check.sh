#!/usr/bin/env bash
# Proves `make rename` leaves a working project: a scratch clone of this checkout's HEAD is renamed to
# example.com/acme/app (Acme), git grep must find neither the old module path nor the old name outside the
# CHANGELOG's first line and the LICENSE, and the renamed project's test suite must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
old_module=$(awk '/^module /{print $2; exit}' go.mod)
old_name=$(basename "$(dirname "$(git ls-files 'backend/cmd/*/serve.go' | head -n 1)")")
dir=$(mktemp -d "${TMPDIR:-/tmp}/rename-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
git clone -q . "$dir"
cd "$dir"
make --no-print-directory rename MODULE=example.com/acme/app NAME=Acme
left=$(git grep -n -i -e "$old_module" -e "$old_name" -- . ':!LICENSE' ':!CHANGELOG.md' || true)
first=$(sed -n '2,$p' CHANGELOG.md | grep -i -c -e "$old_name" || true)
if [ -n "$left" ] || [ "$first" != 0 ]; then
  echo "rename-check: the old names are still here:" >&2
  echo "$left" | head -n 20 >&2
  exit 1
fi
echo "rename-check: no trace of $old_module or $old_name left; running the renamed project's tests"
make --no-print-directory test
