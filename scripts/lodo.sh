#!/usr/bin/env bash
# lodo.sh [BIN] [OUT] -- the judge of a policy on task sources it never trained on
# (docs/cross-dataset.md): each source is held out in turn, a model trains on the union of all the
# others (checkpoint chosen on their val splits, every baseline and the hybrid tuned there), and
# learned, hybrid and the tuned baselines are scored on every split of the held-out source; three
# training seeds, the paired comparison against every baseline with the detectable effect, a pooled
# row over the directions.
#   CORPORA     space list of NAME=DIR[,DIR...], one per source (default: every folder
#               $CORPORA_DIR/<name>[-*] of the four sources that holds a manifest)
#   CORPORA_DIR where the sources' corpora are (default out/corpora; docs/corpus.md builds them)
#   SEEDS       training seeds (default 1,2,3)
#   TEST_ONLY=1 score only the held-out source's test split
#   TRAIN_FLAGS more flags of cv (training options, e.g. "--no-program --no-edit-text")
# Writes OUT/lodo.json, OUT/lodo.md, OUT/corpora.txt and the checkpoints under OUT/.
set -euo pipefail
BIN=${1:-bin/triage}
OUT=${2:-out/lodo}
CORPORA_DIR=${CORPORA_DIR:-out/corpora}
SEEDS=${SEEDS:-1,2,3}

# folders NAME: the comma list of NAME's corpus folders under CORPORA_DIR that hold a manifest.
folders() {
  local out=() d
  for d in "$CORPORA_DIR/$1" "$CORPORA_DIR/$1"-*; do
    if ls "$d"/manifest*.json >/dev/null 2>&1; then out+=("$d"); fi
  done
  (IFS=,; echo "${out[*]}")
}
if [ -z "${CORPORA:-}" ]; then
  CORPORA=""
  for s in bundled mbpp exercism thealgorithms; do
    f=$(folders "$s")
    if [ -n "$f" ]; then CORPORA="$CORPORA $s=$f"; fi
  done
fi
args=(cv --lodo --train-seeds "$SEEDS" --no-progress --out "$OUT" --json-file "$OUT/lodo.json")
n=0
for c in $CORPORA; do args+=(--corpus "$c"); n=$((n + 1)); done
if [ "$n" -lt 2 ]; then
  echo "lodo.sh: need corpora of at least two sources (found: '${CORPORA# }' under $CORPORA_DIR)" >&2
  exit 2
fi
[ "${TEST_ONLY:-0}" = 1 ] || args+=(--all-splits)
# shellcheck disable=SC2206 # TRAIN_FLAGS is a list of flags
[ -n "${TRAIN_FLAGS:-}" ] && args+=(${TRAIN_FLAGS})
mkdir -p "$OUT"
for c in $CORPORA; do
  name=${c%%=*}; dirs=${c#*=}
  echo "== $name"; "$BIN" corpus stats ${dirs//,/ } | sed -n '1,12p'
done >"$OUT/corpora.txt"
echo "== $BIN ${args[*]}" >&2
"$BIN" "${args[@]}" | tee "$OUT/lodo.md"
