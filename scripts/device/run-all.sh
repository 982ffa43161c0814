#!/usr/bin/env bash
# run-all.sh [BIN] -- both prepared GPU checks in one device call (scoring, then training), each
# under its own time limit so one that hangs leaves the other its time; logs and JSON under $OUT.
# Build here, carry bin/, one call:
#   CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o bin/triage ./cmd/triage
#   device run: command "bash scripts/device/run-all.sh bin/triage", carry ["bin"], timeout_s 560
# Env: SCORE_S (default 200), TRAIN_S (default 300), and those of score-bench.sh and train-bench.sh.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${1:-bin/triage}
export OUT=${OUT:-$(mktemp -d)}
export PYTHONUNBUFFERED=1
timeout "${SCORE_S:-200}" bash "$HERE/score-bench.sh" "$BIN" 2>&1 | tee "$OUT/score.log"
echo "== score-bench exit ${PIPESTATUS[0]}"
timeout "${TRAIN_S:-300}" bash "$HERE/train-bench.sh" "$BIN" 2>&1 | tee "$OUT/train.log"
echo "== train-bench exit ${PIPESTATUS[0]}"
