#!/usr/bin/env bash
# demo.sh BIN OUT — the main job on the embedded default:
#   1. validate the bundled task set in the sandbox,
#   2. build its exhaustive repair-tree corpus with the offline mutate proposer
#      (k = 3, depth 4; resumable: rerunning continues an interrupted build),
#   3. print corpus statistics,
#   4. tune REx's and UCT's constants on the validation split,
#   5. replay every baseline search policy on the test split, writing the
#      Markdown table, JSON and an HTML report with success curves and a tree viewer.
# ROOTS (default 1: about 139 trees, minutes on 2 cores; ROOTS=5 builds the README corpus)
# and WORKERS (default: cores) scale the build.
set -euo pipefail
BIN=${1:-bin/triage}
OUT=${2:-out/demo}
ROOTS=${ROOTS:-1}
WORKERS=${WORKERS:-$(nproc)}
mkdir -p "$OUT"

echo "== 1/5 validate the bundled tasks" >&2
"$BIN" tasks validate --tasks bundled --workers "$WORKERS"

echo "== 2/5 build the corpus into $OUT/corpus (k=3, depth 4, $ROOTS roots per task)" >&2
resume=()
[ -e "$OUT/corpus/manifest.json" ] && resume=(--resume)
"$BIN" corpus build --tasks bundled --proposer mutate --k 3 --depth 4 --roots "$ROOTS" \
  --workers "$WORKERS" --out "$OUT/corpus" "${resume[@]}"

echo "== 3/5 corpus statistics" >&2
"$BIN" corpus stats "$OUT/corpus"

echo "== 4/5 tune the papers' hyperparameters on the validation split" >&2
rm -f "$OUT/tuned.json"
"$BIN" tune --corpus "$OUT/corpus" --split val --policy rex --grid 'C=1,5,10,20' --out "$OUT/tuned.json"
"$BIN" tune --corpus "$OUT/corpus" --split val --policy uct --grid 'C=0.5,0.7,0.9' --out "$OUT/tuned.json"

echo "== 5/5 replay every baseline on the test split" >&2
"$BIN" eval --corpus "$OUT/corpus" --split test --params "$OUT/tuned.json" \
  --json "$OUT/eval.json" --report "$OUT/eval.html" | tee "$OUT/eval.md"
echo "report: $OUT/eval.html  table: $OUT/eval.md  json: $OUT/eval.json" >&2
