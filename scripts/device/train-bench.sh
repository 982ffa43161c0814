#!/usr/bin/env bash
# train-bench.sh -- LoRA training throughput of the Qwen3-0.6B-shaped priority model on the GPU
# machine, next to PyTorch + PEFT on the same H200 (docs/training.md): eager 61.9k tok/s at
# batch 32, 63.7k at 64; torch.compile 121k after 111 s (batch 32) / 196 s (batch 64) of
# compilation. Target: >= 180k tokens/s with a first step under 30 s.
#
# Build here (the device has no Go; cgo links only libc), carry the binary, one call:
#   CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o bin/triage ./cmd/triage
#   device run: command "bash scripts/device/train-bench.sh bin/triage", carry ["bin"], timeout_s 540
#
# Model: random weights, bf16 decoder (frozen), rank-8 LoRA on q/k/v/o and the head in float32,
# AdamW, discrete-survival loss, 1024 tokens per example, one scored position per example.
# Peak memory is sampled from nvidia-smi every 0.2 s while a batch size runs.
# Env: PYTHON (default python3), BATCHES (default "32 64"), STEPS (default 10).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$(readlink -f "${1:-$HERE/../../bin/triage}")
PY=${PYTHON:-python3}
BATCHES=${BATCHES:-"32 64"}; STEPS=${STEPS:-10}
OUTDIR=${OUT:-$(mktemp -d)}
export GOMLX_NO_AUTO_INSTALL=1 GOPJRT_CUDA_CHECKS=0 TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}
# Let XLA take most of the card (the default preallocation is 75%).
export XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.92}

echo "== host"; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -2
ls -la "$BIN" || { echo "FATAL: no binary $BIN (build it here and carry bin/)"; exit 1; }

PLUGIN_DIR=$("$PY" -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.dirname(p.__file__))' 2>/dev/null || true)
PLUGIN=""
[ -n "$PLUGIN_DIR" ] && PLUGIN=$(ls "$PLUGIN_DIR"/xla_cuda_plugin.so 2>/dev/null || ls "$PLUGIN_DIR"/*.so 2>/dev/null | head -1)
[ -z "$PLUGIN" ] && PLUGIN=$(find / -xdev -name 'xla_cuda_plugin.so' 2>/dev/null | head -1)
[ -z "$PLUGIN" ] && { echo "FATAL: no PJRT CUDA plugin found"; exit 1; }
PLUGIN=$(readlink -f "$PLUGIN"); echo "PLUGIN=$PLUGIN"

RC=0
for B in $BATCHES; do
  echo "== batch $B"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$OUTDIR/mem-$B.txt" 2>/dev/null &
  MON=$!
  ( time "$BIN" bench train --backend "xla:$PLUGIN" --arch 0.6b --dtype bf16 --batch "$B" --seq 1024 \
      --steps "$STEPS" --json ) >"$OUTDIR/train-$B.json" 2>"$OUTDIR/train-$B.log"
  rc=$?; kill $MON 2>/dev/null; wait $MON 2>/dev/null
  [ $rc != 0 ] && RC=$rc
  PEAK=$(sort -n "$OUTDIR/mem-$B.txt" 2>/dev/null | tail -1)
  echo "peak_mem_mib=${PEAK:-?}"
  cat "$OUTDIR/train-$B.json"; tail -15 "$OUTDIR/train-$B.log"
done

echo "== summary (PyTorch + PEFT on this H200: eager 61.9k/63.7k tok/s at 32/64; compiled 121k; target >= 180k, first step < 30 s)"
for B in $BATCHES; do
  "$PY" - "$OUTDIR/train-$B.json" "$OUTDIR/mem-$B.txt" <<'PYEOF' 2>/dev/null || cat "$OUTDIR/train-$B.json"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    peak = max(int(x) for x in open(sys.argv[2]).read().split() if x.strip().isdigit()) / 1024
except Exception:
    peak = float("nan")
for r in d["results"]:
    t = r["tokens_per_sec"]
    print(f'batch {r["batch"]:>3}: {t:9.0f} tok/s  step {r["step_s"]:.3f} s  first step {r["first_step_s"]:.1f} s  '
          f'MFU {r["mfu"]:.3f}  peak {peak:.1f} GiB  ({t/61900:.2f}x eager@32, {t/121000:.2f}x compiled)')
PYEOF
done
exit $RC
