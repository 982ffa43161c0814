#!/usr/bin/env bash
# Side by side: corpus build of bundled shard 3/28 (--roots 1) with an old
# binary (wall-clock limits) and this one (CPU limits), started at the same
# moment so both see the same machine load; prints nodes/s and the share of
# run time spent in runs that timed out, for each.
#
#   scripts/cpu-limits-build.sh OLD_BINARY NEW_BINARY [WORKDIR]
set -euo pipefail
old=${1:?old binary}; new=${2:?new binary}; dir=${3:-$(mktemp -d)}
mkdir -p "$dir"; rm -rf "$dir/old" "$dir/new"
args=(corpus build --tasks bundled --shard 3/28 --roots 1 --workers 2 --no-progress --json)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$old" "${args[@]}" --out "$dir/old" >"$dir/old.json" 2>"$dir/old.err" &
po=$!
"$new" "${args[@]}" --out "$dir/new" >"$dir/new.json" 2>"$dir/new.err" &
pn=$!
wait "$po" "$pn"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
for side in ("old", "new"):
    r = json.load(open(f"{d}/{side}.json"))
    t = r["time"]
    ex = t["execute"]
    total = sum(v["seconds"] for v in ex.values())
    to = ex.get("timeout", {"runs": 0, "seconds": 0})
    runs = sum(v["runs"] for v in ex.values())
    print(f"{side}: {t['nodes']} nodes in {t['wall_seconds']:.0f} s = {t['nodes'] / t['wall_seconds']:.2f} nodes/s; "
          f"timeouts {to['runs']} of {runs} runs, {to['seconds']:.0f} of {total:.0f} s of run time ({100 * to['seconds'] / max(total, 1e-9):.1f} %)")
PY
