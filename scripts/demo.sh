#!/usr/bin/env bash
# demo.sh BIN OUT — the main job on the embedded default checkpoint:
#   1. validate the bundled task set in the sandbox,
#   2. live best-first search with the learned policy on the bundled test tasks
#      (one root each, budget 16): per task solved or not, expansions, tokens, the fix as a diff,
#   3. build the exhaustive repair-tree corpus of the test split with the offline mutate proposer
#      (k = 3, depth 4; resumable: rerunning continues an interrupted build),
#   4. print its statistics,
#   5. replay the learned policy and every baseline on it: the table, the learned policy paired
#      tree by tree with each baseline, JSON and an HTML report with success curves and a tree
#      viewer that shows the learned policy's ranked frontier,
#   6. the comparison that can rank: the same replay on the shipped slices of every task source's
#      test-split trees (corpus/<source>/test-trees: bundled, MBPP, Exercism, TheAlgorithms; test
#      tasks, which no checkpoint trains or tunes on), with one row per source.
# REx's and UCT's constants come from checkpoints/default/baselines.json, tuned on the validation
# split of the corpus the checkpoint was trained on (make checkpoint); TUNE=1 tunes them here on a
# val-split corpus instead (a few more minutes).
# ROOTS (default 1; 5 is the corpus of docs/results.md) and WORKERS (default: cores) scale the build.
set -euo pipefail
BIN=${1:-bin/triage}
OUT=${2:-out/demo}
ROOTS=${ROOTS:-1}
WORKERS=${WORKERS:-$(nproc)}
TUNE=${TUNE:-0}
PARAMS=checkpoints/default/baselines.json
mkdir -p "$OUT"
SECONDS=0
step() { echo "== [$(printf '%3d' $SECONDS)s] $*" >&2; }

step "1/6 validate the bundled tasks"
"$BIN" tasks validate --tasks bundled --workers "$WORKERS" | tee "$OUT/validate.txt" | tail -n 12

step "2/6 live search: the learned policy (embedded default checkpoint) on the test tasks, budget 16"
rm -rf "$OUT/live"
"$BIN" search --tasks bundled --split test --roots 1 --policy learned --budget 16 \
  --workers "$WORKERS" --out "$OUT/live" --json-file "$OUT/live.json" | tee "$OUT/live.md"

step "3/6 build the test split's corpus into $OUT/corpus (k=3, depth 4, $ROOTS roots per task)"
splits=test
[ "$TUNE" = 1 ] && splits=val,test
build() {
  "$BIN" corpus build --tasks bundled --split "$splits" --proposer mutate --k 3 --depth 4 --roots "$ROOTS" \
    --workers "$WORKERS" --out "$OUT/corpus" "$@"
}
if [ -e "$OUT/corpus/manifest.json" ]; then
  # A folder started with other settings (ROOTS, TUNE, another triage's sandbox harness) is not
  # resumed (exit 2, the setting named): the demo builds it anew.
  build --resume || { [ $? = 2 ] && echo "demo: rebuilding $OUT/corpus from scratch" >&2 && rm -rf "$OUT/corpus" && build; }
else
  build
fi

step "4/6 corpus statistics"
"$BIN" corpus stats "$OUT/corpus"

if [ "$TUNE" = 1 ]; then
  PARAMS=$OUT/tuned.json
  rm -f "$PARAMS"
  "$BIN" tune --corpus "$OUT/corpus" --split val --policy rex --grid 'C=1,5,10,20' --out "$PARAMS"
  "$BIN" tune --corpus "$OUT/corpus" --split val --policy uct --grid 'C=0.5,0.7,0.9' --out "$PARAMS"
fi

step "5/6 replay the learned policy and every baseline on the test split"
"$BIN" eval --corpus "$OUT/corpus" --split test --params "$PARAMS" --paired learned \
  --json-file "$OUT/eval.json" --report "$OUT/eval.html" | tee "$OUT/eval.md"

step "6/6 replay every policy on the shipped test-split trees of every source (a comparison that can rank)"
RANK=corpus/bundled/test-trees,corpus/mbpp/test-trees,corpus/exercism/test-trees,corpus/thealgorithms/test-trees
# sed reads to the end: head would exit after 4 lines, and under pipefail the
# SIGPIPE of a later write would fail the demo (exit 141).
"$BIN" corpus stats ${RANK//,/ } | sed -n '1,4p'
"$BIN" eval --corpus "$RANK" --split test --params "$PARAMS" --paired learned --by-source \
  --json-file "$OUT/rank.json" | tee "$OUT/rank.md"
step "done: report $OUT/eval.html  tables $OUT/eval.md, $OUT/rank.md  live search $OUT/live.md"
