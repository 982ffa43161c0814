#!/usr/bin/env bash
# corpora.sh [BIN] [OUT] -- the corpora of the leave-one-source-out judge (docs/corpus.md,
# docs/cross-dataset.md): every embedded task source, mutate proposer, k 3, depth 4, seed 1:
#   OUT/bundled        all 139 tasks, 4 injected roots each (556 trees)
#   OUT/mbpp-trainval  MBPP's 472 train and val tasks, one root each (MBPP is large already)
#   OUT/mbpp-test      MBPP's first 300 test tasks, one root each (slices 0..14 of 25, as
#                      scripts/mbpp-corpus.sh lays them out)
#   OUT/exercism       all 132 tasks, 4 roots each (528 trees)
#   OUT/thealgorithms  a quarter of the 1,278 tasks (every 4th shard of 16 tasks: 320 tasks from
#                      every directory of the repository), 3 roots each (960 trees)
# Enough for each held-out source to score at least 150 trees with a fix and each training union
# to hold over 500. Resumable: run it again with the same binary and each part continues where it
# stopped (a build by a binary whose sandbox harness differs is refused: keep the binary that
# started OUT). Env: PARTS (default: every part above, in that order), WORKERS (default 0: one
# per CPU), NICE (default 10), BUILD_FLAGS (more corpus build flags).
set -euo pipefail
BIN=${1:-bin/triage}
OUT=${2:-out/corpora}
PARTS=${PARTS:-bundled mbpp-trainval exercism thealgorithms mbpp-test}
build=(nice -n "${NICE:-10}" "$BIN" corpus build --proposer mutate --k 3 --depth 4 --seed 1
  --workers "${WORKERS:-0}" --resume --no-progress ${BUILD_FLAGS:-})
for part in $PARTS; do
  echo "== $(date -u +%FT%TZ) $part into $OUT/$part" >&2
  case $part in
  bundled) "${build[@]}" --tasks bundled --roots 4 --tasks-per-shard 16 --out "$OUT/$part" ;;
  exercism) "${build[@]}" --tasks exercism --roots 4 --tasks-per-shard 16 --out "$OUT/$part" ;;
  thealgorithms) "${build[@]}" --tasks thealgorithms --roots 3 --tasks-per-shard 16 --shard 0/4 --out "$OUT/$part" ;;
  mbpp-trainval) "${build[@]}" --tasks mbpp --roots 1 --split train,val --tasks-per-shard 16 --out "$OUT/$part" ;;
  mbpp-test)
    for i in $(seq 0 14); do
      "${build[@]}" --tasks mbpp --roots 1 --split test --tasks-per-shard 20 --shard "$i/25" --out "$OUT/$part"
    done
    ;;
  *)
    echo "corpora.sh: unknown part $part (want bundled, mbpp-trainval, mbpp-test, exercism or thealgorithms)" >&2
    exit 2
    ;;
  esac
done
echo "== $(date -u +%FT%TZ) done: $BIN corpus stats $OUT/*" >&2
