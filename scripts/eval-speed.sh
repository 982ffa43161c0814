#!/usr/bin/env bash
# eval-speed.sh CORPUS SPLIT REPS BIN... -- the time of `triage eval` with one policy at a time,
# for every policy, each binary and policy REPS times in turn (interleaved, so a change in the
# machine's load reaches every one alike). Prints per binary and policy the least wall time and
# the least CPU time (user + system) of its runs, then the learned policy's ratio to the slowest
# baseline. Example: scripts/eval-speed.sh out/demo test 5 /tmp/old/bin/triage bin/triage
set -euo pipefail
corpus=$1 split=$2 reps=$3
shift 3
policies=(learned hybrid uct rex abmcts bgmcts passrate bfs dfs random)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < reps; r++)); do
  for b in "$@"; do
    for p in "${policies[@]}"; do
      /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$b" eval --corpus "$corpus" --split "$split" \
        --policies "$p" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
      echo "$b $p $(cat "$tmp/t")" >>"$tmp/all"
    done
  done
done
awk '
  { k = $1 " " $2; w = $3; c = $4 + $5
    if (!(k in mw) || w < mw[k]) mw[k] = w
    if (!(k in mc) || c < mc[k]) mc[k] = c
    bins[$1] = 1 }
  END {
    printf "%-40s %-9s %9s %9s\n", "binary", "policy", "wall s", "cpu s"
    for (k in mw) { split(k, a, " "); printf "%-40s %-9s %9.2f %9.2f\n", a[1], a[2], mw[k], mc[k] | "sort" }
    close("sort")
    for (b in bins) {
      sw = 0; sc = 0
      for (k in mw) { split(k, a, " "); if (a[1] == b && a[2] != "learned" && a[2] != "hybrid") {
        if (mw[k] > sw) sw = mw[k]; if (mc[k] > sc) sc = mc[k] } }
      printf "%s: learned / slowest baseline: %.2f× wall, %.2f× cpu\n", b, mw[b " learned"] / sw, mc[b " learned"] / sc
    }
  }' "$tmp/all"
