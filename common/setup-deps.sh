#!/usr/bin/env bash
# Installs the Debian packages mlmem needs, once, before the first build.
# Root: apt-get. Otherwise sudo without a password prompt if it can. Otherwise it prints one clear
# message naming the packages and the command, and fails. Usage: setup-deps.sh [--check] [pkg...]
set -u
PKGS=(check libnuma-dev libhwloc-dev hwloc numactl pkg-config python3 python3-pytest
      python3-matplotlib libseccomp-dev libssl-dev bubblewrap)
[ $# -gt 0 ] && [ "$1" != --check ] && PKGS=("$@")

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "${1:-}" = --check ] && { echo "missing: ${missing[*]}"; exit 1; }

if ! command -v apt-get >/dev/null 2>&1; then
  echo "mlmem: please install the equivalents of these Debian packages: ${missing[*]}" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "mlmem: missing packages: ${missing[*]}" >&2
  echo "mlmem: install them with:  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "mlmem: installing ${missing[*]} (once)" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
  { "${as_root[@]}" apt-get update -q >/dev/null 2>&1 &&
    "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; } ||
  { echo "mlmem: apt-get could not install: ${missing[*]}" >&2; exit 1; }
