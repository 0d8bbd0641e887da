#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image: installs the Debian/Ubuntu
# packages mlmem needs and builds the hardware probe. (Made by `make gradescope`.)
set -euo pipefail
cd "${AUTOGRADER_ROOT:-/autograder}/source/mlmem"
bash common/setup-deps.sh     # the list for this distribution (Ubuntu 22.04 is Gradescope's default)
make -s build/tools/hwinfo
build/tools/hwinfo
