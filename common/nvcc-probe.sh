#!/bin/sh
# Whether nvcc compiles a small kernel for the given architectures (common/flags.mk's NVCC):
# prints "ok", or nvcc's first error line. nvcc refuses host compilers newer than it knows, and a
# toolkit may lack an architecture.
#   nvcc-probe.sh NVCC KEEP [nvcc arguments...]
# KEEP (a file, or empty for none) holds the last answer beside what it was asked of: nvcc's and
# the host compiler's files (size, time) and the arguments. The same question again is answered
# from it, so that a build with nothing to do runs no compiler (the probe takes a second or more).
nvcc=$1 keep=$2
shift 2
key="$nvcc $* $(stat -Lc %s.%Y "$nvcc" $(command -v g++ c++ 2>/dev/null) 2>/dev/null | tr '\n' ' ')"
if [ -n "$keep" ] && [ -f "$keep" ] && [ "$(head -n 1 "$keep")" = "$key" ]; then
    tail -n +2 "$keep"
    exit 0
fi
d=$(mktemp -d) || exit 1
printf '__global__ void k(int *p) { *p = 1; }\n' > "$d/p.cu"
if "$nvcc" "$@" -Xcompiler -fPIC -c "$d/p.cu" -o "$d/p.o" > "$d/log" 2>&1; then
    answer=ok
else
    answer=$(grep -m1 -i error "$d/log" || head -n 1 "$d/log")
fi
rm -rf "$d"
if [ -n "$keep" ] && mkdir -p "$(dirname "$keep")"; then
    printf '%s\n%s\n' "$key" "$answer" > "$keep.$$" && mv -f "$keep.$$" "$keep"
fi
printf '%s\n' "$answer"
