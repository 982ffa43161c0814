#!/usr/bin/env bash
# diagnose.sh [BIN] -- where the GPU path spends its time: the tiny shape scored and trained on the
# GPU (seconds when the path works), then one small 0.6B scoring call with the process's CPU and
# the GPU's utilisation sampled every 10 s (XLA compiling shows as CPU busy with the GPU idle).
set -u
BIN=$(readlink -f "${1:-bin/triage}")
OUTDIR=${OUT:-$(mktemp -d)}
export GOMLX_NO_AUTO_INSTALL=1 GOPJRT_CUDA_CHECKS=0 TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-1}
P=$(python3 -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.dirname(p.__file__))')/xla_cuda_plugin.so
echo "== tiny score"; ( time timeout 60 "$BIN" bench score --backend "xla:$P" --arch tiny --parents 4 --reps 2 ) 2>&1 | grep -v '^\s*$' | tail -6
echo "== tiny train"; ( time timeout 60 "$BIN" bench train --backend "xla:$P" --arch tiny --steps 3 --batch 8 --seq 256 ) 2>&1 | grep -v '^\s*$' | tail -6
echo "== 0.6b score, unpacked, 2 rows"
timeout "${BIG_S:-110}" "$BIN" bench score --backend "xla:$P" --arch 0.6b --dtype bf16 --parents 2 --rows 2 --reps 1 \
  --modes unpacked >"$OUTDIR/big.txt" 2>"$OUTDIR/big.log" &
TPID=$!
sleep 1
PID=$(pgrep -P $TPID | head -1) # triage itself, not timeout
for i in $(seq 1 20); do
  sleep 10
  kill -0 $PID 2>/dev/null || break
  cpu=$(ps -o %cpu=,rss=,nlwp= -p $PID 2>/dev/null)
  gpu=$(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null)
  echo "t=$((i * 10))s triage cpu%,rss_kb,threads: $cpu | gpu util, mem: $gpu"
done
wait $TPID; echo "== exit $?"; cat "$OUTDIR/big.txt"; grep -v 'Source Location\|external/xla\|^$' "$OUTDIR/big.log" | tail -8
