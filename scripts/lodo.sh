#!/usr/bin/env bash
# lodo.sh [BIN] [OUT] -- the cross-dataset judge (docs/cross-dataset.md) on the two task sources:
# train on the bundled tasks' corpora and score on MBPP's, and the other way round, three training
# seeds, every baseline and the hybrid tuned on the training source's val split.
#   BUNDLED  comma list of bundled corpus folders (default out/corpora/bundled)
#   MBPP     comma list of MBPP corpus folders (default out/mbpp/trainval,out/mbpp/test:
#            scripts/mbpp-corpus.sh's parts; folders that do not exist are left out)
#   SEEDS    training seeds (default 1,2,3)
#   ALL_SPLITS=1  score every split of the held-out source, not only its test split (what a source
#            whose test split is not built yet needs; nothing of the held-out source is trained or
#            tuned on either way)
#   TRAIN_FLAGS  more flags of cv (training options, e.g. "--no-program --no-edit-text")
# Writes OUT/lodo.json, OUT/lodo.md and the checkpoints under OUT/.
set -euo pipefail
BIN=${1:-bin/triage}
OUT=${2:-out/lodo}
BUNDLED=${BUNDLED:-out/corpora/bundled}
MBPP=${MBPP:-out/mbpp/trainval,out/mbpp/test}
SEEDS=${SEEDS:-1,2,3}
ALL_SPLITS=${ALL_SPLITS:-0}

# existing DIRS keeps the folders of a comma list that hold a corpus.
existing() {
  local out=() d
  IFS=, read -ra ds <<<"$1"
  for d in "${ds[@]}"; do
    if ls "$d"/manifest*.json >/dev/null 2>&1; then out+=("$d"); fi
  done
  (IFS=,; echo "${out[*]}")
}
b=$(existing "$BUNDLED")
m=$(existing "$MBPP")
if [ -z "$b" ] || [ -z "$m" ]; then
  echo "lodo.sh: need corpora of both sources (bundled: '$BUNDLED' → '$b'; mbpp: '$MBPP' → '$m')" >&2
  exit 2
fi
args=(cv --lodo --corpus "bundled=$b" --corpus "mbpp=$m" --train-seeds "$SEEDS" --no-progress
  --out "$OUT" --json-file "$OUT/lodo.json")
[ "$ALL_SPLITS" = 1 ] && args+=(--all-splits)
# shellcheck disable=SC2206 # TRAIN_FLAGS is a list of flags
[ -n "${TRAIN_FLAGS:-}" ] && args+=(${TRAIN_FLAGS})
mkdir -p "$OUT"
for d in ${b//,/ } ${m//,/ }; do "$BIN" corpus stats "$d" | sed -n '1,12p' | sed "s|^|$d: |"; done >"$OUT/corpora.txt"
echo "== $BIN ${args[*]}" >&2
"$BIN" "${args[@]}" | tee "$OUT/lodo.md"
