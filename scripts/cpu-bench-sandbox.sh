#!/usr/bin/env bash
# Side by side: `bench sandbox` of an old binary and of this one, started at
# the same moment so both see the same machine load; prints each one's CPU
# per suite, its ratio, the verdict mismatches against per-process pytest,
# and this binary's CPU per suite by phase.
#
#   scripts/cpu-bench-sandbox.sh OLD_BINARY NEW_BINARY [RUNS] [WORKDIR]
set -euo pipefail
old=${1:?old binary}; new=${2:?new binary}; runs=${3:-220}; dir=${4:-$(mktemp -d)}
mkdir -p "$dir"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$old" bench sandbox --runs "$runs" --workers 1 --json >"$dir/old.json" 2>"$dir/old.err" &
po=$!
"$new" bench sandbox --runs "$runs" --workers 1 --json >"$dir/new.json" 2>"$dir/new.err" &
pn=$!
wait "$po" "$pn"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
r = {s: json.load(open(f"{d}/{s}.json")) for s in ("old", "new")}
for s, x in r.items():
    print(f"{s}: executor {x['executor_cpu_ms_per_suite']:.1f} ms CPU per suite, per-process pytest "
          f"{x['pytest_cpu_ms_per_suite']:.1f} ms, mismatches {x['verdict_mismatches']}, statuses {x['executor_statuses']}")
print(f"new / old executor CPU per suite: {r['new']['executor_cpu_ms_per_suite'] / r['old']['executor_cpu_ms_per_suite']:.2f}")
print(f"each against its own per-process pytest: old {r['old']['executor_cpu_ms_per_suite'] / r['old']['pytest_cpu_ms_per_suite']:.2f}, "
      f"new {r['new']['executor_cpu_ms_per_suite'] / r['new']['pytest_cpu_ms_per_suite']:.2f}")
for ph in r["new"].get("executor_cpu_ms_per_suite_by_phase", []):
    print(f"  {ph['phase']:15s} {ph['ms_per_suite']:7.2f} ms")
PY
