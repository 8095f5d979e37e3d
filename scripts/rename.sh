#!/usr/bin/env bash
# Makes the project yours: `make rename MODULE=github.com/acme/app NAME=Acme`.
#
# Rewrites, in every tracked text file except LICENSE: the Go module path (go.mod, every import, the
# import-rules test), and the product's name in its three spellings (Title, lower, UPPER: templates, the
# console, docs, .env.example, metrics names, the binary and its command directory, scripts). Files and
# directories whose path holds the name are moved. CHANGELOG.md starts afresh, its first line saying where
# the project came from. Run it once, on a clean checkout, before your own first commit; it prints what it
# did and refuses to run over uncommitted changes (git diff shows the result, git checkout . undoes it).
#
# The current names are read from the tree, not written here, so the script renames a renamed project too:
# the module path from go.mod, the name from the command directory that holds serve.go.
set -euo pipefail
cd "$(dirname "$0")/.."

module=${MODULE:-${1:-}}
name=${NAME:-${2:-}}
if [ -z "$module" ] || [ -z "$name" ]; then
  echo "usage: make rename MODULE=github.com/acme/app NAME=Acme" >&2
  exit 2
fi
if ! [[ $module =~ ^[a-z0-9][a-z0-9._~/-]*[a-z0-9]$ ]] || [[ $module == */ ]]; then
  echo "rename: MODULE=$module is not a Go module path (lower case, like github.com/acme/app)" >&2
  exit 2
fi
if ! [[ $name =~ ^[A-Z][A-Za-z0-9]{1,30}$ ]]; then
  echo "rename: NAME=$name must be one word starting with a capital letter (Acme): it names the binary too" >&2
  exit 2
fi
if [ -n "$(git status --porcelain)" ]; then
  echo "rename: the working tree has uncommitted changes; commit or stash them first" >&2
  exit 2
fi

old_module=$(awk '/^module /{print $2; exit}' go.mod)
serve=$(git ls-files 'backend/cmd/*/serve.go' | head -n 1)
old_lower=$(basename "$(dirname "$serve")")
if [ -z "$old_module" ] || [ -z "$old_lower" ]; then
  echo "rename: cannot find the module path in go.mod or the command directory holding serve.go" >&2
  exit 1
fi
old_title="$(tr '[:lower:]' '[:upper:]' <<<"${old_lower:0:1}")${old_lower:1}"
old_upper=$(tr '[:lower:]' '[:upper:]' <<<"$old_lower")
new_lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
new_upper=$(tr '[:lower:]' '[:upper:]' <<<"$name")
if [ "$old_module" = "$module" ] && [ "$old_lower" = "$new_lower" ]; then
  echo "rename: the project is already $module ($name)"
  exit 0
fi
echo "rename: $old_module ($old_title) -> $module ($name)"

# Text files only (grep -I skips binary ones: screenshots, fonts); the LICENSE keeps its copyright line.
mapfile -t files < <(git ls-files -z | xargs -0 grep -Il -e "$old_module" -e "$old_lower" -e "$old_title" -e "$old_upper" 2>/dev/null |
  grep -v -x -e LICENSE -e CHANGELOG.md || true)
# The module path first (it holds the lower-case name), then the three spellings of the name.
OLD_MODULE=$old_module NEW_MODULE=$module OLD_T=$old_title OLD_L=$old_lower OLD_U=$old_upper \
NEW_T=$name NEW_L=$new_lower NEW_U=$new_upper \
  perl -pi -e 's/\Q$ENV{OLD_MODULE}\E/$ENV{NEW_MODULE}/g; s/\Q$ENV{OLD_T}\E/$ENV{NEW_T}/g;
               s/\Q$ENV{OLD_U}\E/$ENV{NEW_U}/g; s/\Q$ENV{OLD_L}\E/$ENV{NEW_L}/g' "${files[@]}"
echo "rename: rewrote ${#files[@]} files"

# Paths whose last element holds the name, deepest first, so what a directory contains moves before it.
moved=0
while IFS= read -r path; do
  dir=$(dirname "$path") base=$(basename "$path")
  new_base=${base//$old_lower/$new_lower}
  git mv "$path" "$dir/${new_base//$old_title/$name}"
  moved=$((moved + 1))
done < <({ git ls-files; git ls-files | xargs -n1 dirname; } | sort -u |
  awk -F/ -v l="$old_lower" -v t="$old_title" 'index($NF, l) || index($NF, t) {print NF "\t" $0}' |
  sort -t"$(printf '\t')" -k1,1nr | cut -f2-)
echo "rename: moved $moved paths"

cat >CHANGELOG.md <<EOF
Started from $old_module ($old_title) on $(date -u +%Y-%m-%d).

# Changelog

All notable changes to this project are recorded here ([Keep a Changelog](https://keepachangelog.com/)).

## [Unreleased]
EOF

gofmt -w backend migrations docs 2>/dev/null || true
echo "rename: done; next: go build ./... && make test, then commit"
