#!/bin/sh
# Links the student's objects (the lab's editable files) into one object that exports only the
# lab's API, so that code under test cannot stand in for the C library, the timer or the harness.
#   student-object.sh OUT.o LABSRC HEADERS.i SAN OBJ...
# HEADERS.i: LABSRC/include/*.h included together and preprocessed with the build's own flags.
# 1. `ld -r` joins the objects: a call from one of the student's files to another still binds.
# 2. The API: every name declared at file scope in LABSRC/include/*.h (in HEADERS.i, only the
#    lines that come from those headers count, the system's are left out; what sits inside
#    (), [] and {} is dropped, and so are parameter names, struct members and the bodies of
#    `static inline` functions, and every `static` or `typedef` declaration), among the names
#    the object defines.
# 3. objcopy --keep-global-symbols: every other name the object defines becomes local. A
#    submission that defines memcpy, clock_gettime, pthread_create or mm_now_ns then changes only
#    its own calls; the benchmark's baseline, the timer and the tests keep the system's.
# Constructors and destructors (.init_array, .ctors, ...) in the student's code are refused
# (they would run before the tests and the benchmark), except in sanitizer builds (SAN set), whose
# instrumentation adds its own and which are never benchmarked.
set -eu
out=$1 labsrc=$2 headers=$3 san=$4
shift 4
: "${LD:=ld}" "${OBJCOPY:=objcopy}" "${NM:=nm}" "${READELF:=readelf}"
tmp=$out.tmp
trap 'rm -f "$tmp" "$tmp.api" "$tmp.defs"' EXIT

if [ -z "$san" ]; then
    for o in "$@"; do
        s=$("$READELF" -SW "$o" | sed -n 's/^ *\[ *[0-9]*\] *\([^ ]*\) .*/\1/p' |
            grep -E '^\.(init_array|fini_array|preinit_array|ctors|dtors)' | head -n 1) || true
        if [ -n "$s" ]; then
            src=${o##*/obj/}
            src=${src%.o}.c
            echo "$src: error: constructors and destructors (__attribute__((constructor)), a $s section)" \
                 "are not allowed in your code: they would run before the tests and the" \
                 "benchmark; call your set-up from your functions instead" >&2
            exit 1
        fi
    done
fi

"$LD" -r -d -o "$tmp" "$@"

inc=$labsrc/include
inc_abs=$(cd "$inc" 2>/dev/null && pwd) || inc_abs=$inc
awk -v a="$inc_abs/" -v b="$inc/" '
    /^# [0-9]+ "/ { f = $0; sub(/^# [0-9]+ "/, "", f); sub(/".*$/, "", f); mine = index(f, a) == 1 || index(f, b) == 1; next }
    /^#/ { next }
    mine { print }' "$headers" |
awk '
    # Strings and characters out; then one pass over the characters: keep only what is at
    # depth 0 of (), [] and {}, and end a declaration at ";" or at a "}" that closes depth 0.
    { gsub(/"([^"\\]|\\.)*"/, " "); gsub(/'"'"'([^'"'"'\\]|\\.)*'"'"'/, " "); text = text " " $0 }
    END {
        d = 0; stmt = ""
        for (i = 1; i <= length(text); i++) {
            c = substr(text, i, 1)
            if (c == "(" || c == "[" || c == "{") { if (d == 0) stmt = stmt " "; d++; continue }
            if (c == ")" || c == "]" || c == "}") {
                d--
                if (d == 0 && c == "}") { emit(stmt); stmt = "" }
                continue
            }
            if (d > 0) continue
            if (c == ";") { emit(stmt); stmt = ""; continue }
            stmt = stmt c
        }
        emit(stmt)
    }
    function emit(s,   n, w, k) {
        n = split(s, w, /[^A-Za-z0-9_]+/)
        for (k = 1; k <= n; k++)
            if (w[k] == "static" || w[k] == "typedef") return
        for (k = 1; k <= n; k++)
            if (w[k] ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print w[k]
    }' | sort -u > "$tmp.api"

"$NM" -g --defined-only "$tmp" | awk 'NF >= 3 { print $3 }' | sort -u > "$tmp.defs"
comm -12 "$tmp.api" "$tmp.defs" > "$out.api"
"$OBJCOPY" --keep-global-symbols="$out.api" "$tmp" "$out"
