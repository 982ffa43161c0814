#!/usr/bin/env bash
# checkpoint.sh BIN [CORPORA] -- remake checkpoints/default, the embedded default checkpoint, from
# every embedded task source:
#   1. build the judge's corpora (scripts/corpora.sh into $CORPORA, default out/corpora; resumable:
#      rerunning continues an interrupted build): bundled and Exercism with 4 roots per task, a
#      quarter of TheAlgorithms with 3, MBPP's train and val tasks with 1, all k 3, depth 4, seed 1;
#      skipped when CORPORA names several folders (a comma list of corpora built before, used as
#      given),
#   2. train the CPU model (--arch small) on their train splits, seed 1, choosing the checkpoint by
#      E[T] on their val splits and recording (never using) the test splits' E[T], with the inputs
#      and loss the leave-one-source-out judge chose on its training sources' val splits
#      (docs/results.md, "Generalization: leave one source out"); CKPT_TRAIN_FLAGS replaces them,
#   3. tune REx's and UCT's constants on the same val splits (baselines.json, used by make demo),
#   4. copy the checkpoint into checkpoints/default/ (rebuild the binary to embed it).
# The checkpoint records the commit of BIN, every option and the corpora's manifest hashes.
set -euo pipefail
BIN=${1:-bin/triage}
CORPUS=${2:-out/corpora}
OUT=${CKPT_OUT:-out/checkpoint}
DEST=checkpoints/default
if [[ "$CORPUS" != *,* ]]; then
  echo "== 1/4 build the judge's corpora into $CORPUS (scripts/corpora.sh)" >&2
  PARTS="bundled mbpp-trainval exercism thealgorithms" "$(dirname "$0")/corpora.sh" "$BIN" "$CORPUS"
  CORPUS=$CORPUS/bundled,$CORPUS/mbpp-trainval,$CORPUS/exercism,$CORPUS/thealgorithms
else
  echo "== 1/4 corpora given: $CORPUS" >&2
fi
echo "== 2/4 train the CPU model into $OUT" >&2
rm -rf "$OUT"
TRAIN_FLAGS=${CKPT_TRAIN_FLAGS---siblings --prior --no-length --rank-weight 0.5}
# shellcheck disable=SC2086 # TRAIN_FLAGS is a list of flags
"$BIN" train --corpus "$CORPUS" --arch small --seed 1 --record-test $TRAIN_FLAGS --out "$OUT"
echo "== 3/4 tune the baselines' constants on the val split, over the judge's grids" >&2
rm -f "$OUT/baselines.json"
"$BIN" tune --corpus "$CORPUS" --split val --policy rex --grid 'C=1,5,10,20' --out "$OUT/baselines.json"
"$BIN" tune --corpus "$CORPUS" --split val --policy uct --grid 'C=0.3,0.5,0.7,0.9,1.4' --out "$OUT/baselines.json"
"$BIN" tune --corpus "$CORPUS" --split val --policy abmcts --grid 'beta=0,1' --out "$OUT/baselines.json"
"$BIN" tune --corpus "$CORPUS" --split val --policy bgmcts --grid 'exploration_weight=0.5,1,2,4' --out "$OUT/baselines.json"
echo "== 4/4 install it as $DEST" >&2
find "$DEST" -maxdepth 1 -type f ! -name README.md -delete
cp "$OUT/checkpoint.json" "$OUT/weights.safetensors" "$OUT/training.svg" "$OUT/metrics.jsonl" "$OUT/baselines.json" "$DEST/"
du -sh "$DEST" >&2
echo "$DEST updated; 'make build' embeds it" >&2
