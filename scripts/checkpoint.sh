#!/usr/bin/env bash
# checkpoint.sh BIN [CORPUS] -- remake checkpoints/default, the embedded default checkpoint, from
# both task sources:
#   1. build the corpora (resumable: rerunning continues an interrupted build): the bundled tasks,
#      5 roots per task, into $CORPUS (default out/full), and MBPP's train and val tasks, one root
#      each, into $MBPP_OUT/trainval (scripts/mbpp-corpus.sh; default out/mbpp); both k 3, depth 4,
#      seed 1, the default (CPU-time) limits; skipped when CORPUS names several folders (a comma
#      list of corpora built before, used as given),
#   2. train the CPU model (--arch small) on their train splits, seed 1, choosing the checkpoint by
#      E[T] on their val splits and recording (never using) the test splits' E[T]; it reads the
#      parent's numbers only (pass rate, failed fraction, depth, program length, budget left:
#      --no-program --no-edit-text --no-parent-text), the inputs that transferred across task
#      sources under the cross-dataset judge (docs/results.md, "Generalization: leave one source
#      out"); CKPT_TRAIN_FLAGS replaces those flags (CKPT_TRAIN_FLAGS= reads every input),
#   3. tune REx's and UCT's constants on the same val splits (baselines.json, used by make demo),
#   4. copy the checkpoint into checkpoints/default/ (rebuild the binary to embed it).
# The checkpoint records the commit of BIN, every option and the corpora's manifest hashes.
set -euo pipefail
BIN=${1:-bin/triage}
CORPUS=${2:-out/full}
OUT=${CKPT_OUT:-out/checkpoint}
DEST=checkpoints/default
MBPP_OUT=${MBPP_OUT:-out/mbpp}
if [[ "$CORPUS" != *,* ]]; then
  resume=()
  [ -e "$CORPUS/manifest.json" ] && resume=(--resume)
  echo "== 1/4 build the bundled corpus into $CORPUS (k=3, depth 4, 5 roots per task)" >&2
  "$BIN" corpus build --tasks bundled --proposer mutate --k 3 --depth 4 --roots 5 --seed 1 --out "$CORPUS" "${resume[@]}"
  echo "== 1/4 build MBPP's train and val corpus into $MBPP_OUT/trainval" >&2
  PARTS=trainval "$(dirname "$0")/mbpp-corpus.sh" "$BIN" "$MBPP_OUT"
  CORPUS=$CORPUS,$MBPP_OUT/trainval
else
  echo "== 1/4 corpora given: $CORPUS" >&2
fi
echo "== 2/4 train the CPU model into $OUT" >&2
rm -rf "$OUT"
TRAIN_FLAGS=${CKPT_TRAIN_FLAGS---no-program --no-edit-text --no-parent-text}
# shellcheck disable=SC2086 # TRAIN_FLAGS is a list of flags
"$BIN" train --corpus "$CORPUS" --arch small --seed 1 --record-test $TRAIN_FLAGS --out "$OUT"
echo "== 3/4 tune the baselines' constants on the val split" >&2
rm -f "$OUT/baselines.json"
"$BIN" tune --corpus "$CORPUS" --split val --policy rex --grid 'C=1,5,10,20' --out "$OUT/baselines.json"
"$BIN" tune --corpus "$CORPUS" --split val --policy uct --grid 'C=0.5,0.7,0.9' --out "$OUT/baselines.json"
echo "== 4/4 install it as $DEST" >&2
find "$DEST" -maxdepth 1 -type f ! -name README.md -delete
cp "$OUT/checkpoint.json" "$OUT/weights.safetensors" "$OUT/training.svg" "$OUT/metrics.jsonl" "$OUT/baselines.json" "$DEST/"
du -sh "$DEST" >&2
echo "$DEST updated; 'make build' embeds it" >&2
