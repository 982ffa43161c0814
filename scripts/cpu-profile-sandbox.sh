#!/usr/bin/env bash
# Where the sandbox's CPU goes, as the kernel sees it: `perf record` samples
# every CPU while `bench sandbox` runs its executor (after the workers'
# start-up), and scripts/perf-classify.py sorts each sample of the
# worker's processes (python3: the workers, the fork server, each run's
# judge and program process) by its call chain: copy-on-write and other
# page faults, a process's exit (the teardown of its memory), fork (the
# copy of the page tables), the other system calls, and Python's own code.
# Shares, not speeds: comparable between days and VMs. Needs perf and the
# right to sample the whole machine (root, or perf_event_paranoid <= -1).
#
#   scripts/cpu-profile-sandbox.sh BINARY [SECONDS] [WORKDIR]
set -euo pipefail
bin=${1:?triage binary}; secs=${2:-10}; dir=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { echo "perf not found (apt-get install linux-perf)" >&2; exit 2; }
mkdir -p "$dir"
# Enough runs to outlast the sampling; the per-process pytest half of the
# benchmark never starts (killed first).
"$bin" bench sandbox --runs 100000 --workers 1 --json >"$dir/bench.json" 2>"$dir/bench.err" &
pb=$!
trap 'kill "$pb" 2>/dev/null || true' EXIT
# The workers' start-up is over once the first runs are reported.
for _ in $(seq 60); do
    grep -q "executor: " "$dir/bench.err" 2>/dev/null && break
    sleep 1
done
perf record -a -g -o "$dir/perf.data" -- sleep "$secs" 2>"$dir/perf.err" >/dev/null
kill "$pb" 2>/dev/null || true
wait "$pb" 2>/dev/null || true
perf script -i "$dir/perf.data" --comm python3 -F comm,ip,sym 2>/dev/null | /usr/bin/python3 "$here/perf-classify.py"
