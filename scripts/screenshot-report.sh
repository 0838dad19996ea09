#!/usr/bin/env bash
# Renders a run's index.html in headless Chromium and saves a PNG, to check
# by eye that the report reads well offline.
#   scripts/screenshot-report.sh out/bulk-20mbps [shot.png]
# Needs Debian's chromium (apt-get install -y chromium).
set -euo pipefail
dir=$(cd "$1" && pwd)
out=${2:-$dir/report-screenshot.png}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size=1280,3000 \
  --screenshot="$out" "file://$dir/index.html" 2>/dev/null
echo "$out"
