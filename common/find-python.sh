#!/usr/bin/env bash
# Prints the path of a Python 3.11+, or a 3.10 with tomli (Ubuntu 22.04: python3-tomli), that can
# import pytest (the grader's needs); the `python3` first on PATH may be a private build without
# Debian's packages, so Debian's is tried too.
# Exits 1 (printing nothing) when none is found.
for py in "${MLMEM_PYTHON:-}" python3 /usr/bin/python3 python3.13 python3.12 python3.11; do
  [ -n "$py" ] || continue
  p=$(command -v "$py" 2>/dev/null) || continue
  if "$p" -c 'import sys, pytest
try:
    import tomllib
except ImportError:
    import tomli
sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "$p"
    exit 0
  fi
done
exit 1
