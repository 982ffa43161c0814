#!/usr/bin/env bash
# Side by side: corpus build of bundled shard 3/28 (--roots 1) with two or
# more binaries (e.g. wall-clock limits, CPU limits on the whole count, CPU
# limits that charge the program), started at the same moment so all see
# the same machine load; prints nodes/s and the share of run time spent in
# runs that timed out, for each, and each task's limit.
#
#   scripts/cpu-limits-build.sh WORKDIR BINARY...
#
# Then the status agreement on the programs the builds share:
#   go run ./scripts/corpus-verdicts WORKDIR/0 WORKDIR/1 ...
set -euo pipefail
dir=${1:?workdir}; shift
(($# >= 2)) || { echo "want two binaries or more" >&2; exit 2; }
mkdir -p "$dir"
args=(corpus build --tasks bundled --shard 3/28 --roots 1 --workers 2 --no-progress --json)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
pids=()
i=0
for bin in "$@"; do
  rm -rf "${dir:?}/$i"
  "$bin" "${args[@]}" --out "$dir/$i" >"$dir/$i.json" 2>"$dir/$i.err" &
  pids+=($!)
  echo "$i: $bin" >>"$dir/binaries.txt"
  i=$((i + 1))
done
wait "${pids[@]}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$dir" "$@" <<'PY'
import glob, json, statistics, sys
d, bins = sys.argv[1], sys.argv[2:]
for i, b in enumerate(bins):
    r = json.load(open(f"{d}/{i}.json"))
    t = r["time"]
    ex = t["execute"]
    total = sum(v["seconds"] for v in ex.values())
    to = ex.get("timeout", {"runs": 0, "seconds": 0})
    runs = sum(v["runs"] for v in ex.values())
    lim = []
    for m in glob.glob(f"{d}/{i}/manifest*.json"):
        for s in json.load(open(m))["shards"]:
            lim += [x["limit_ms"] for x in s.get("tasks", []) if not x.get("skipped")]
    ls = f"limits {min(lim):.0f}-{statistics.median(lim):.0f}-{max(lim):.0f} ms" if lim else ""
    print(f"{i} {b}: {t['nodes']} nodes in {t['wall_seconds']:.0f} s = {t['nodes'] / t['wall_seconds']:.3f} nodes/s; "
          f"timeouts {to['runs']} of {runs} runs, {to['seconds']:.0f} of {total:.0f} s of run time "
          f"({100 * to['seconds'] / max(total, 1e-9):.1f} %); {ls}")
PY
