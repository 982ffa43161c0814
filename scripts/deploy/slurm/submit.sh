#!/bin/bash
# Submits the build array, the merge after every array task succeeded, and
# the training after the merge; prints the three job ids. Run it again
# after a cancelled or failed array task: the new array skips the shards
# already built (--resume) and the merge and training follow it.
#
# Environment, each optional (docs/deploy.md, "Slurm"):
#   DATA              shared folder (default ./data); TRIAGE, SANDBOX_LIMITS,
#                     PJRT_PLUGIN, BASE: see the scripts
#   PARTITION         partition of all three jobs
#   ARRAY             the build array's range (corpus-build.sbatch: 0-7)
#   BUILD_CPUS        CPUs (and sandbox workers) per array task (4)
#   BUILD_MEM_PER_CPU memory per CPU of an array task (2G)
#   MERGE_MEM         memory of the merge (4G)
#   GPUS              GPUs of the training (1); 0 trains the small model on CPU
#   TRAIN_CPUS        CPUs of the training (8)
#   TRAIN_MEM         memory of the training (64G)
#   SBATCH_FLAGS      more sbatch options for all three jobs, split into words
#   corpus size: TASKS, K, DEPTH, ROOTS and BUILD_FLAGS (corpus-build.sbatch)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# SBATCH_FLAGS is split into words on purpose.
# shellcheck disable=SC2206
common=(--parsable --export=ALL ${SBATCH_FLAGS:-})
if [ -n "${PARTITION:-}" ]; then common+=(--partition="$PARTITION"); fi

build_opts=()
if [ -n "${ARRAY:-}" ]; then build_opts+=(--array="$ARRAY"); fi
if [ -n "${BUILD_CPUS:-}" ]; then build_opts+=(--cpus-per-task="$BUILD_CPUS"); fi
if [ -n "${BUILD_MEM_PER_CPU:-}" ]; then build_opts+=(--mem-per-cpu="$BUILD_MEM_PER_CPU"); fi

merge_opts=()
if [ -n "${MERGE_MEM:-}" ]; then merge_opts+=(--mem="$MERGE_MEM"); fi

train_opts=()
case "${GPUS:-}" in
  "") ;;
  0) train_opts+=(--gres=none) ;;
  *) train_opts+=(--gres="gpu:$GPUS") ;;
esac
if [ -n "${TRAIN_CPUS:-}" ]; then train_opts+=(--cpus-per-task="$TRAIN_CPUS"); fi
if [ -n "${TRAIN_MEM:-}" ]; then train_opts+=(--mem="$TRAIN_MEM"); fi

build=$(sbatch "${common[@]}" "${build_opts[@]}" "$HERE/corpus-build.sbatch")
merge=$(sbatch "${common[@]}" "${merge_opts[@]}" --dependency="afterok:${build%%;*}" "$HERE/corpus-merge.sbatch")
train=$(sbatch "${common[@]}" "${train_opts[@]}" --dependency="afterok:${merge%%;*}" "$HERE/train.sbatch")
echo "build ${build%%;*} merge ${merge%%;*} train ${train%%;*}"
