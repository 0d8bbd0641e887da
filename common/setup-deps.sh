#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages mlmem needs, once, before the first build: a bare machine's
# compiler toolchain included. Root: apt-get. Otherwise sudo without a password prompt if it can.
# Otherwise it prints one clear message naming the packages and the command, and fails.
# Usage: setup-deps.sh [--test] [--check]     the packages to build and grade (+ make test's)
#        setup-deps.sh --list [--test] [DIST] print them for DIST (debian:13, ubuntu:24.04, ...)
#                                             or, without DIST, for this machine's distribution
#        setup-deps.sh [--check] pkg...       those packages
set -u

# The packages, as data: "<set> <distribution> <packages...>". A machine's list is every line of
# its set(s) whose distribution is * or its own. Sets: build (make labNN, make grade, make deps)
# and test (make test adds it). gcc's sanitizer run-times (libasan, libubsan, libtsan) come with
# gcc; clang's are a package of their own, named after the version `clang` stands for there, and
# only Recommended by clang (never installed with --no-install-recommends).
PACKAGES='
build *           gcc g++ libc6-dev binutils make
build *           check libnuma-dev libhwloc-dev hwloc numactl pkg-config
build *           python3 python3-pytest python3-matplotlib libseccomp-dev libssl-dev bubblewrap
build *           python3-dev python3-dbg python3-numpy similarity-tester
build ubuntu:22.04 python3-tomli
test  *           clang python3-pytest-xdist
test  debian:12   libclang-rt-14-dev
test  debian:13   libclang-rt-19-dev
test  ubuntu:24.04 libclang-rt-18-dev
'
# similarity-tester: `make batch`'s similarity check (sim_c).
# python3-dbg and python3-numpy: lab 11 embeds the debug interpreter (its C API headers, the
# reference counts of sys.gettotalrefcount) and imports NumPy there.
# ubuntu:22.04's Python is 3.10, without tomllib: the grader reads TOML with tomli there. It needs
# no test line: its clang-14 keeps the run-times in libclang-common-14-dev, which clang-14
# Depends on. Codenames, for derivatives that name the release they follow (Linux Mint's
# UBUNTU_CODENAME, Raspberry Pi OS's VERSION_CODENAME).
CODENAMES='bookworm=debian:12 trixie=debian:13 jammy=ubuntu:22.04 noble=ubuntu:24.04'

# Prints this machine's distribution as ID:VERSION_ID when PACKAGES knows it by that name or by
# its codename, else ID:VERSION_ID as it stands. MLMEM_OS_RELEASE replaces /etc/os-release (tests).
this_dist() {
  local f=${MLMEM_OS_RELEASE:-/etc/os-release} ID='' VERSION_ID='' VERSION_CODENAME=''
  local UBUNTU_CODENAME='' DEBIAN_CODENAME='' c kv
  # shellcheck disable=SC1090
  [ -r "$f" ] && . "$f"
  for c in "$UBUNTU_CODENAME" "$DEBIAN_CODENAME" "$VERSION_CODENAME"; do
    for kv in $CODENAMES; do
      [ -n "$c" ] && [ "${kv%%=*}" = "$c" ] && { echo "${kv#*=}"; return; }
    done
  done
  echo "${ID:-unknown}:${VERSION_ID:-}"
}

known_dist() { grep -qE "^(build|test) +$1 " <<<"$PACKAGES"; }

# The clang sanitizer run-time of a distribution PACKAGES does not know: libclang-rt-N-dev for the
# clang-N that `clang` depends on, when apt knows that package (nothing otherwise).
clang_rt_guess() {
  local v
  v=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -1)
  [ -n "$v" ] && apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1 && echo "libclang-rt-$v-dev"
}

# Prints the packages of the sets given ($2...) for distribution $1, one line.
list_for() {
  local dist=$1 set f rt pkgs=()
  shift
  for set in "$@"; do
    while read -ra f; do
      [ "${f[0]:-}" = "$set" ] && { [ "${f[1]}" = '*' ] || [ "${f[1]}" = "$dist" ]; } &&
        pkgs+=("${f[@]:2}")
    done <<<"$PACKAGES"
    [ "$set" = test ] && ! known_dist "$dist" && rt=$(clang_rt_guess) && pkgs+=("$rt")
  done
  echo "${pkgs[*]}"
}

sets=(build) mode=install args=()
for a in "$@"; do
  case $a in
    --test) sets=(build test) ;;
    --check) mode=check ;;
    --list) mode=list ;;
    -*) echo "setup-deps.sh: unknown option $a (see the usage at the top of the script)" >&2; exit 2 ;;
    *) args+=("$a") ;;
  esac
done

if [ $mode = list ]; then
  dist=${args[0]:-$(this_dist)}
  for kv in $CODENAMES; do [ "${kv%%=*}" = "$dist" ] && dist=${kv#*=}; done
  if [ ${#args[@]} -gt 0 ] && ! known_dist "$dist"; then
    echo "setup-deps.sh: no package list for '$dist'; known: ${CODENAMES//=/ = }" >&2; exit 2
  fi
  list_for "$dist" "${sets[@]}"
  exit 0
fi
if [ ${#args[@]} -gt 0 ]; then PKGS=("${args[@]}"); else read -ra PKGS <<<"$(list_for "$(this_dist)" "${sets[@]}")"; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ $mode = check ] && { echo "missing: ${missing[*]}"; exit 1; }

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

# apt's own progress is shown (a line a package unpacked and set up): on a bare Debian this takes
# minutes (the Dockerfile's image build: about 11 minutes on 2 vCPUs, a 1.8 GB image), not a hang.
echo "mlmem: installing ${#missing[@]} packages, once: ${missing[*]}" >&2
echo "mlmem: (on a bare system several minutes; apt-get's progress follows)" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" 2>&1 |
  sed -u -n 's/^\(Setting up\|Unpacking\|E:\) /  apt: &/p' >&2
[ "${PIPESTATUS[0]}" -eq 0 ] ||
  { echo "mlmem: refreshing apt's package lists, then installing again" >&2 &&
    "${as_root[@]}" apt-get update -q >/dev/null 2>&1 &&
    "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; } ||
  { echo "mlmem: apt-get could not install: ${missing[*]}" >&2; exit 1; }
