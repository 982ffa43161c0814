#!/usr/bin/env bash
# check.sh REPORT.html — open a triage HTML report in headless Chromium and
# fail unless its script rendered (body data-render="ok") with no script
# error. Needs Debian's chromium (apt-get install -y chromium).
set -euo pipefail
report=${1:?usage: check.sh REPORT.html}
chrome=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chrome" ] || { echo "check.sh: chromium not found (apt-get install -y chromium)" >&2; exit 2; }
[ -f "$report" ] || { echo "check.sh: no such file: $report" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
dom=$(timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --virtual-time-budget=5000 --dump-dom "file://$(realpath "$report")" 2>"$profile/stderr") || {
  echo "check.sh: chromium failed:" >&2; cat "$profile/stderr" >&2; exit 1; }
if ! grep -q 'data-render="ok"' <<<"$dom"; then
  echo "check.sh: the report did not render:" >&2
  grep -o '<div id="js-error"[^<]*</div>' <<<"$dom" >&2 || true
  grep -i 'console\|error' "$profile/stderr" >&2 || true
  exit 1
fi
echo "check.sh: $report rendered with no script errors"
