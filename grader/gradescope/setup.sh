#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image: installs the Debian/Ubuntu
# packages mlmem needs and builds the hardware probe. (Made by `make gradescope`.)
set -euo pipefail
cd "${AUTOGRADER_ROOT:-/autograder}/source/mlmem"
bash common/setup-deps.sh build-essential make git check libnuma-dev libhwloc-dev hwloc numactl libseccomp-dev libssl-dev bubblewrap \
  pkg-config python3 python3-pytest
make -s build/tools/hwinfo
build/tools/hwinfo
