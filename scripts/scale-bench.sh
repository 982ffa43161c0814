#!/usr/bin/env bash
# scale-bench.sh BIN SRC WORK NODES... — peak memory and throughput of
# `corpus stats` and `eval` (all eight baselines) at corpus scale.
#
# For each NODES target, SRC (a corpus folder, e.g. the demo corpus) is
# replicated with the hidden `corpus replicate` command into WORK/NODES, with
# every copy in the test split, until it holds at least NODES nodes. Then
# `corpus stats` and `eval --split test` run under /usr/bin/time -v, and one
# Markdown row per command is printed: nodes, wall seconds, nodes per wall
# second, CPU seconds (user + system: on a shared machine the steadier
# figure), peak resident memory. Logs are kept in WORK. EVAL_FLAGS adds eval
# flags.
#   scripts/scale-bench.sh bin/triage out/demo/corpus /tmp/scale 200000 2000000
set -euo pipefail
BIN=${1:?usage: scale-bench.sh BIN SRC WORK NODES...}
SRC=${2:?source corpus folder}
WORK=${3:?work folder}
shift 3
[ $# -gt 0 ] || { echo "no NODES targets" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) is required" >&2; exit 2; }
mkdir -p "$WORK"

json() { /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
src_nodes=$("$BIN" corpus stats --json "$SRC" | json "['nodes']")
[ "$src_nodes" -gt 0 ] || { echo "$SRC has no nodes" >&2; exit 1; }

# measure NAME LOG NODES CMD...: runs CMD under GNU time, output to
# WORK/LOG-NODES.log; prints the row.
measure() {
  local name=$1 nodes=$3 log="$WORK/$2-$3.log"
  shift 3
  /usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
  local wall cpu rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log.time")
  cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s+=$2} END {print s}' "$log.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$log.time")
  printf '| %s | %d | %.1f | %.0f | %.1f | %s |\n' "$name" "$nodes" "$wall" "$(echo "$nodes / $wall" | bc -l)" "$cpu" "$rss"
}

echo "source $SRC: $src_nodes nodes; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | nodes | wall s | nodes/s | CPU s | peak RSS MB |"
echo "|---|---|---|---|---|---|"
for target in "$@"; do
  copies=$(( (target + src_nodes - 1) / src_nodes ))
  dir="$WORK/$target"
  if [ ! -e "$dir/part-00000.parquet" ]; then
    "$BIN" corpus replicate --copies "$copies" --shards $(( copies < 32 ? copies : 32 )) \
      --split test --out "$dir" "$SRC" >"$WORK/replicate-$target.log" 2>&1 ||
      { cat "$WORK/replicate-$target.log" >&2; exit 1; }
  fi
  nodes=$(( copies * src_nodes ))
  measure "corpus stats" stats "$nodes" "$BIN" corpus stats "$dir"
  # shellcheck disable=SC2086
  measure "eval (8 baselines)" eval "$nodes" "$BIN" eval --corpus "$dir" --split test ${EVAL_FLAGS:-}
done
