#!/usr/bin/env bash
# Re-downloads the embedded disposable-email blocklist from its npm package (see
# backend/internal/disposable/data/README.md): scripts/update-disposable-domains.sh [version]
set -euo pipefail
pkg=disposable-email-domains-js
version=${1:-1.26.0}
dest=$(cd "$(dirname "$0")/../backend/internal/disposable/data" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null && tar xzf ./*.tgz)
list="$tmp/package/dist/dict/disposable_email_blocklist.json"
test -s "$list" || { echo "no $list in $pkg@$version" >&2; exit 1; }
license=$(node -p "require('$tmp/package/package.json').license")
cp "$list" "$dest/disposable_domains.json"
cp "$tmp/package/LICENSE" "$dest/LICENSE"
count=$(node -p "require('$dest/disposable_domains.json').length")
echo "$pkg@$version: $count domains, license $license, sha256 $(sha256sum "$dest/disposable_domains.json" | cut -d' ' -f1)"
echo "now update the version, count and sha256 in $dest/README.md, review the diff and run the tests"
