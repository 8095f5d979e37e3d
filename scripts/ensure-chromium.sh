#!/usr/bin/env bash
# Prints the path of Debian's Chromium, installing the chromium and chromium-driver packages first when it
# is missing and we are root. The browser tests (make test-browser) drive it headless through chromedp.
set -euo pipefail

if path=$(command -v chromium); then echo "$path"; exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium not found. Install it (Debian/Ubuntu: sudo apt-get install chromium chromium-driver)." >&2
  exit 1
fi
echo "Installing Chromium (apt-get install chromium chromium-driver)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq chromium chromium-driver >&2
command -v chromium
