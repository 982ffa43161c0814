#!/usr/bin/env bash
# score-bench.sh -- scoring throughput of a Qwen3-0.6B-shaped priority model on the GPU machine,
# next to PyTorch on the same H200 (docs/training.md: 160 edges/s eager, 322 with torch.compile).
#
# Build here (the device has no Go; cgo links only libc), carry the binary, one call:
#   CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o bin/triage ./cmd/triage
#   device run: command "bash scripts/device/score-bench.sh bin/triage", carry ["bin"], timeout_s 540
#
# Model: random weights, bf16, rank-8 LoRA on q/k/v/o, head over 5 bins; 1024 tokens per edge
# (849-token parent prefix + 175-token edit). Packed mode scores k = 3 edits per parent in one
# 1408-token row (counted as 3 edges); unpacked mode one 1024-token row per edge.
# Target: packed >= 650 edges/s (2x compiled PyTorch).
# Env: PYTHON (default python3), ROWS (sequences per call, default 16), PARENTS (default 64), REPS (default 5).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$(readlink -f "${1:-$HERE/../../bin/triage}")
PY=${PYTHON:-python3}
ROWS=${ROWS:-16}; PARENTS=${PARENTS:-64}; REPS=${REPS:-5}
OUTDIR=${OUT:-$(mktemp -d)}
export GOMLX_NO_AUTO_INSTALL=1 GOPJRT_CUDA_CHECKS=0 TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}

echo "== host"; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -2
ls -la "$BIN" || { echo "FATAL: no binary $BIN (build it here and carry bin/)"; exit 1; }

echo "== jax PJRT CUDA plugin"
PLUGIN_DIR=$("$PY" -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.dirname(p.__file__))' 2>/dev/null || true)
PLUGIN=""
[ -n "$PLUGIN_DIR" ] && PLUGIN=$(ls "$PLUGIN_DIR"/xla_cuda_plugin.so 2>/dev/null || ls "$PLUGIN_DIR"/*.so 2>/dev/null | head -1)
[ -z "$PLUGIN" ] && PLUGIN=$(find / -xdev -name 'xla_cuda_plugin.so' 2>/dev/null | head -1)
[ -z "$PLUGIN" ] && { echo "FATAL: no PJRT CUDA plugin found"; exit 1; }
PLUGIN=$(readlink -f "$PLUGIN"); echo "PLUGIN=$PLUGIN"

run() { # backend rows label
  echo "== $3: --backend $1 --rows $2"
  ( time "$BIN" bench score --backend "$1" --arch 0.6b --dtype bf16 --tokens-per-edge 1024 --edit-tokens 175 \
      --k 3 --parents "$PARENTS" --rows "$2" --reps "$REPS" --json ) >"$OUTDIR/score-$3.json" 2>"$OUTDIR/score-$3.log"
  local rc=$?
  cat "$OUTDIR/score-$3.json"; tail -20 "$OUTDIR/score-$3.log"
  return $rc
}

run "xla:$PLUGIN" "$ROWS" abs; RC=$?
if [ $RC != 0 ]; then
  # Fallback: xla:cuda through a symlink named pjrt_c_api_cuda_plugin.so at the same depth as the real
  # file, next to a link to site-packages/nvidia (glibc does not follow links when expanding $ORIGIN).
  REAL_DIR=$(dirname "$PLUGIN"); SITE=$(cd "$REAL_DIR/../.." && pwd); REL=${REAL_DIR#"$SITE"/}
  TMPD=$(mktemp -d); mkdir -p "$TMPD/site/$REL"
  ln -s "$PLUGIN" "$TMPD/site/$REL/pjrt_c_api_cuda_plugin.so"
  [ -d "$SITE/nvidia" ] && ln -s "$SITE/nvidia" "$TMPD/site/nvidia"
  export PJRT_PLUGIN_LIBRARY_PATH="$TMPD/site/$REL"
  run xla:cuda "$((ROWS / 2))" cuda; RC=$?
fi

echo "== summary (edges/s; PyTorch 2.11 on this H200: eager 160, torch.compile 322; target packed >= 650)"
for f in "$OUTDIR"/score-*.json; do
  "$PY" - "$f" <<'PYEOF' 2>/dev/null || cat "$f"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    e = r["edges_per_sec"]
    print(f'{r["mode"]:>9}: {e:8.1f} edges/s  ({e/160:.2f}x eager, {e/322:.2f}x compiled)  '
          f'{r["tokens_per_sec"]:.0f} tok/s, rows of {r["row_tokens"]}, warm-up {r["warmup_seconds"]:.1f} s')
PYEOF
done
exit $RC
