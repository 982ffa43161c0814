#!/usr/bin/env bash
# measure-build.sh BIN OUT [corpus build flags...] -- the figures that size a
# cluster build on this node type: CPU per node built (so nodes per core per
# hour), the build process's peak RSS, and each sandbox worker's peak memory
# (the largest memory.max_usage_in_bytes / memory.peak of the worker cgroups,
# sampled every 0.5 s). Then the build's time breakdown (corpus stats).
#   scripts/deploy/measure-build.sh bin/triage out/measure --tasks bundled --split test --roots 1 --depth 3 --workers 2
set -euo pipefail
BIN=$1 OUT=$2; shift 2
rm -rf "$OUT" "$OUT".summary.json "$OUT".time.txt "$OUT".worker-peak; mkdir -p "$(dirname "$OUT")"
peak=0
sample() {
  while :; do
    for f in /sys/fs/cgroup/memory/triage-sandbox/*/w*/memory.max_usage_in_bytes \
             /sys/fs/cgroup/triage-sandbox/*/w*/memory.peak; do
      [ -r "$f" ] || continue
      v=$(cat "$f" 2>/dev/null || echo 0)
      [ "$v" -gt "$peak" ] 2>/dev/null && peak=$v && echo "$peak" > "$OUT.worker-peak"
    done
    sleep 0.5
  done
}
sample & SAMPLER=$!
trap 'kill $SAMPLER 2>/dev/null || true' EXIT
/usr/bin/time -v "$BIN" corpus build --out "$OUT" --no-progress --json "$@" > "$OUT.summary.json" 2> "$OUT.time.txt"
kill $SAMPLER 2>/dev/null || true
echo "== summary";     cat "$OUT.summary.json"
echo "== build process"; grep -E "Maximum resident|Elapsed|User time|System time" "$OUT.time.txt"
echo "== worker peak memory (bytes)"; cat "$OUT.worker-peak" 2>/dev/null || echo "no worker cgroup seen (limits off?)"
echo "== corpus stats"; "$BIN" corpus stats "$OUT"
