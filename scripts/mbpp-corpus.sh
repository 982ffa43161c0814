#!/usr/bin/env bash
# mbpp-corpus.sh [BIN] [OUT] -- build the MBPP corpora (docs/corpus.md): the embedded MBPP tasks
# (--tasks mbpp), one injected root per task, mutate proposer, k 3, depth 4, seed 1, at nice 19:
#   OUT/trainval  every train and val task, one build in shards of 16 tasks;
#   OUT/test      the test split in shards of 20 tasks, shard i built by slice i/25:
#                 slices 0..TEST_SLICES-1 (default 15: shards 0-14, the first 300 test tasks);
#                 TEST_SLICES=25 builds the whole split.
#   OUT/trial     (PARTS=trial) the first 4 train/val tasks, to check a setup in a minute.
# Resumable: run it again (same binary, same tasks) and every part continues where it stopped;
# finished shards are kept. Env: PARTS (default "trainval test"), TEST_SLICES, WORKERS (sandbox
# workers, default 0 = one per CPU), BUILD_FLAGS (more corpus build flags, e.g.
# "--test-timeout-harness-factor 0" to resume a corpus started with whole-count CPU limits).
set -euo pipefail
BIN=${1:-bin/triage}
OUT=${2:-out/mbpp}
PARTS=${PARTS:-trainval test}
TEST_SLICES=${TEST_SLICES:-15}
WORKERS=${WORKERS:-0}
build=(nice -n 19 "$BIN" corpus build --tasks mbpp --proposer mutate --k 3 --depth 4 --roots 1 --seed 1
  --workers "$WORKERS" --resume --no-progress ${BUILD_FLAGS:-})
for part in $PARTS; do
  case $part in
  trainval)
    echo "== train and val tasks into $OUT/trainval" >&2
    "${build[@]}" --split train,val --tasks-per-shard 16 --out "$OUT/trainval"
    ;;
  test)
    for ((i = 0; i < TEST_SLICES; i++)); do
      echo "== test tasks, slice $i/25 (tasks $((20 * i))-$((20 * i + 19))) into $OUT/test" >&2
      "${build[@]}" --split test --tasks-per-shard 20 --shard "$i/25" --out "$OUT/test"
    done
    ;;
  trial)
    echo "== trial: 4 train/val tasks into $OUT/trial" >&2
    "${build[@]}" --split train,val --tasks-per-shard 4 --shard 0/1000 --out "$OUT/trial"
    ;;
  *)
    echo "mbpp-corpus.sh: unknown part $part (want trainval, test or trial)" >&2
    exit 2
    ;;
  esac
done
