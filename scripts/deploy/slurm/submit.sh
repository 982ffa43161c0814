#!/bin/bash
# Submits the build array, the merge after every array task succeeded, and
# the training after the merge. Environment: DATA (shared folder, default
# ./data), TASKS, TRIAGE, SANDBOX_LIMITS, PJRT_PLUGIN, BASE (see each script).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(sbatch --parsable --export=ALL "$HERE/corpus-build.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency="afterok:${build%%;*}" "$HERE/corpus-merge.sbatch")
train=$(sbatch --parsable --export=ALL --dependency="afterok:${merge%%;*}" "$HERE/train-gpu.sbatch")
echo "build $build, merge $merge, train $train"
