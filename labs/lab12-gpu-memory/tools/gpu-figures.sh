#!/bin/sh
# Lab 12: the figures of its GPU-timed metrics (gpu_*_vs_copy), for the handout's "Calibration"
# table and lab.toml's thresholds, on a machine with a CUDA GPU and nvcc. Prints the GPU, its
# driver and clocks, then the reference and each naive variant (solutions/.../variants.toml)
# graded RUNS times by `python3 -m grader calibrate --dry-run`: min/median/max of every metric,
# on the absolute ramp and as a fraction of the reference. Writes nothing.
#   sh labs/lab12-gpu-memory/tools/gpu-figures.sh [RUNS]     (default 5; about 1 min a run)
# Exits 1, saying why, where no GPU is usable or no nvcc builds the kernels.
set -eu
runs=${1:-5}
cd "$(dirname "$0")/../../.."
py=$(bash common/find-python.sh) || { echo "gpu-figures: no Python with pytest" >&2; exit 1; }
"$py" - <<'PY' || exit 1
import sys
from grader.grading import hw
f = hw.facts()
if f.get("cuda_devices", 0) < 1:
    sys.exit(f"gpu-figures: no usable GPU here ({f.get('cuda_status', 'none found')})")
PY
nvcc=$(make -s --no-print-directory -f common/flags.mk --eval 'x: ; @echo $(NVCC)' x)
[ -n "$nvcc" ] || { echo "gpu-figures: no working nvcc (set CUDA_HOME)" >&2; exit 1; }
echo "nvcc: $("$nvcc" --version | tail -n 1)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
  --format=csv 2>/dev/null || echo "(no nvidia-smi)"
exec "$py" -m grader calibrate --lab 12 --runs "$runs" --dry-run
