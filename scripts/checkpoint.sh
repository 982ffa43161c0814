#!/usr/bin/env bash
# checkpoint.sh BIN [CORPUS] -- remake checkpoints/default, the embedded default checkpoint:
#   1. build the bundled corpus, 5 roots per task, default (adaptive) time limits, seed 1
#      (resumable: rerunning continues an interrupted build),
#   2. train the CPU model (--arch small) on its train split, seed 1, choosing the checkpoint by
#      E[T] on the val split and recording (never using) the test split's E[T],
#   3. copy the checkpoint into checkpoints/default/ (rebuild the binary to embed it).
set -euo pipefail
BIN=${1:-bin/triage}
CORPUS=${2:-out/full}
OUT=${CKPT_OUT:-out/checkpoint}
resume=()
[ -e "$CORPUS/manifest.json" ] && resume=(--resume)
echo "== 1/3 build the bundled corpus into $CORPUS (k=3, depth 4, 5 roots per task)" >&2
"$BIN" corpus build --tasks bundled --proposer mutate --k 3 --depth 4 --roots 5 --seed 1 --out "$CORPUS" "${resume[@]}"
echo "== 2/3 train the CPU model into $OUT" >&2
rm -rf "$OUT"
"$BIN" train --corpus "$CORPUS" --arch small --seed 1 --record-test --out "$OUT"
echo "== 3/3 install it as checkpoints/default" >&2
find checkpoints/default -maxdepth 1 -type f ! -name README.md -delete
cp "$OUT/checkpoint.json" "$OUT/weights.safetensors" "$OUT/training.svg" "$OUT/metrics.jsonl" checkpoints/default/
du -sh checkpoints/default >&2
echo "checkpoints/default updated; 'make build' embeds it" >&2
