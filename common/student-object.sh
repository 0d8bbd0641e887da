#!/bin/sh
# Links the student's objects (the lab's editable files) into one object that exports only the
# lab's API and reaches only the lab's API and the C library, so that code under test can neither
# stand in for the C library, the timer or the harness nor call the harness.
#   student-object.sh OUT.o LABSRC HEADERS.i SAN CUDA LDLIBS OBJ...
# HEADERS.i: LABSRC/include/*.h included together and preprocessed with the build's own flags.
# SAN: the sanitizer build's name, or "". CUDA: 1 for a lab with CUDA code, or "". LDLIBS: the
# libraries the lab's lab.mk links (its LAB_LDLIBS: "-lfoo -lbar"), or "". The build
# (common/lab-build.mk) passes what it knows: this script reads neither lab.toml nor lab.mk.
# 1. `ld -r` joins the objects: a call from one of the student's files to another still binds.
# 2. The API: every name declared at file scope in LABSRC/include/*.h (in HEADERS.i, only the
#    lines that come from those headers count, the system's are left out; what sits inside
#    (), [] and {} is dropped, and so are parameter names, struct members and the bodies of
#    `static inline` functions, and every `static` or `typedef` declaration), among the names
#    the object defines.
# 3. What the object may use from outside (its undefined names): the names of 2 before that
#    intersection, the names the common library's headers declare (common/*.h, not its folders
#    such as the CUDA emulator's, as HEADERS.i and the student's files include them: their -MMD
#    dependency files name them), the names the shared libraries
#    every program links define (libc, libm and libmvec, libpthread, libdl, librt, libgcc_s,
#    libnuma, libhwloc: common/flags.mk's LDLIBS; and LDLIBS, the lab's own), libgcc's
#    helpers, the compiler's glue (__stack_chk_fail, __tls_get_addr, __aarch64_* atomics, ...),
#    cuda* in a lab that uses CUDA (CUDA=1) and __asan_*, __ubsan_*, ... in sanitizer builds.
#    Never the harness's (mm_test_*, mm_bench_*, mm_ck_*, mm_seal_*, the call boundary's
#    mm_call_*, mm_shared_*, mm_peek ...): a call to mm_test_reached_end would mark a test
#    finished that is not.
# 4. No way around the C library: no syscall, sysenter, `int $0x80` or svc instruction, and no
#    executable section but .text* (code placed in .data by inline assembly, an executable stack).
# 5. objcopy --keep-global-symbols: every other name the object defines becomes local. A
#    submission that defines memcpy, clock_gettime, pthread_create or mm_now_ns then changes only
#    its own calls; the benchmark's baseline, the timer and the tests keep the system's.
# Indirect functions (IFUNC symbols, IRELATIVE relocations) are refused: their resolvers run in
# the dynamic loader before main.
# Constructors and destructors (.init_array, .ctors, ...) in the student's code are refused
# (they would run before the tests and the benchmark), except in sanitizer builds (SAN set), whose
# instrumentation adds its own and which are never benchmarked.
# A refusal is one line on stderr (`src/x.c: error: ...`) and exit status 1.
set -eu
out=$1 labsrc=$2 headers=$3 san=$4 cuda=$5 lab_ldlibs=$6
shift 6
: "${LD:=ld}" "${OBJCOPY:=objcopy}" "${READELF:=readelf}" "${OBJDUMP:=objdump}" "${CC:=cc}"
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$out.tmp
trap 'rm -f "$tmp" "$tmp.api" "$tmp.defs" "$tmp.common" "$tmp.allowed" "$tmp.undef" "$tmp.err"' EXIT
HARNESS='^(mm_(test|bench|ck|seal|call|shared|student|serve)_|_?mm_test|mm_(peek|poke)$)'

# refuse OBJ WHY: the build's one error line, naming the student's file that OBJ was built from
# (OBJ "": "student code").
refuse() {
    src="student code"
    if [ -n "$1" ]; then
        src=${1##*/obj/}; src=${src%.o}
        case $src in *-emu) src=${src%-emu} ;; *) src=$src.c ;; esac
    fi
    echo "$src: error: $2" >&2
    exit 1
}

# first_obj CMD...: the first of the student's objects for which `CMD OBJ` succeeds, or "".
first_obj() {
    for o in $objs; do
        if "$@" "$o"; then echo "$o"; return; fi
    done
}

# declared FLAT DIR [DIR2] < preprocessed C: the names declared at file scope in the lines that
# come from files under DIR or DIR2 (FLAT=1: files directly in them only), one a line, sorted.
declared() {
    awk -v flat="$1" -v a="$2/" -v b="${3:-$2}/" '
        function under(f, d) {
            return index(f, d) == 1 && !(flat && index(substr(f, length(d) + 1), "/"))
        }
        /^# [0-9]+ "/ {
            f = $0; sub(/^# [0-9]+ "/, "", f); sub(/".*$/, "", f); mine = under(f, a) || under(f, b); next
        }
        /^#/ { next }
        mine { print }' |
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
        }' | sort -u
}

# The common library's headers that HEADERS.i or the student's files include, preprocessed.
common_headers() {
    cat "$headers"
    set --
    for o in $objs; do
        if [ -f "${o%.o}.d" ]; then set -- "$@" "${o%.o}.d"; fi
    done
    [ $# -gt 0 ] || return 0
    # shellcheck disable=SC1003,SC2020
    hs=$(cat "$@" | tr ' \\' '\n\n' | sed 's/:$//' |
         awk -v d="$root/common/" 'index($0, d) == 1 && !index(substr($0, length(d) + 1), "/")' |
         sort -u)
    [ -n "$hs" ] || return 0
    # shellcheck disable=SC2086
    printf '#include "%s"\n' $hs |
        $CC -E -D_GNU_SOURCE -I"$root/common" -I"$labsrc/include" -x c - 2> "$tmp.err" ||
        refuse "" "the common headers your files include do not preprocess: $(head -n 1 "$tmp.err")"
}

# The names the shared libraries every program links define, and libgcc's (readelf reads the
# archive of libgcc ten times faster than nm).
library_names() {
    # shellcheck disable=SC2020
    lab_libs=$(printf '%s\n' "$lab_ldlibs" | tr ' \t' '\n\n' | sed -n 's/^-l\(..*\)$/lib\1.so/p')
    # shellcheck disable=SC2046,SC2086
    set -- $(lib_paths libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2 librt.so.1 \
             libgcc_s.so.1 libnuma.so libhwloc.so $lab_libs)
    {
        "$READELF" -W --dyn-syms "$@"
        "$READELF" -sW "$($CC -print-libgcc-file-name)"
    } 2>/dev/null | symbols defined
}

# lib_paths FILE...: where the compiler's link finds each FILE (as -print-file-name=FILE does,
# in one run of the compiler), one a line; those it does not find are left out.
lib_paths() {
    dirs=$($CC -print-search-dirs | sed -n 's/^libraries: =//p')
    for l in "$@"; do
        IFS=:
        for d in $dirs; do
            if [ -f "$d/$l" ]; then echo "$d/$l"; break; fi
        done
        unset IFS
    done
}

# symbols defined|undefined < readelf -s: the global and weak names defined / used, versions
# dropped.
symbols() {
    awk -v want="$1" '
        # Num: Value Size Type Bind Vis [[VARIANT_PCS]] Ndx Name[@version] [(version index)]
        { n = NF; if ($n ~ /^\([0-9]+\)$/) n-- }
        n >= 8 && ($5 == "GLOBAL" || $5 == "WEAK") && ($(n - 1) == "UND") == (want == "undefined") {
            s = $n; sub(/@.*/, "", s); print s
        }'
}

# allowed: every name the student's object may use from outside, sorted (see 3. above).
allowed() {
    {
        cat "$tmp.api"
        declared 1 "$root/common" < "$tmp.common"
        library_names
        printf '%s\n' __stack_chk_fail __stack_chk_guard _GLOBAL_OFFSET_TABLE_ __tls_get_addr \
            __dso_handle __gcc_personality_v0
    } | grep -Ev "$HARNESS" | sort -u
}

# The executable sections are .text*, and no instruction enters the kernel.
check_code() {
    x=$("$READELF" -SW "$tmp" | executable | grep -Ev '^\.text($|\.)' | head -n 1) || true
    if [ -n "$x" ]; then
        why="your code puts machine code in section $x (inline assembly or a section attribute):"
        why="$why only .text sections may hold code"
        if [ "$x" = .note.GNU-stack ]; then
            why="your code needs an executable stack (a nested function whose address is taken):"
            why="$why move the nested function out to file scope"
        fi
        refuse "$(first_obj has_section "$x")" "$why"
    fi
    i=$("$OBJDUMP" -d --no-show-raw-insn "$tmp" | kernel_entry | head -n 1) || true
    if [ -n "$i" ]; then
        why="your code holds the instruction \`$i\` (inline assembly): it enters the kernel around"
        why="$why the C library; call the C library instead (read, write, syscall(), ...)"
        refuse "$(first_obj has_insn "$i")" "$why"
    fi
}

# executable < readelf -SW: the names of the sections with the X flag.
executable() {
    sed -n 's/^ *\[ *[0-9]*\] *//p' |
        awk 'NF == 10 && $7 ~ /X/ { print $1 }'
}

# kernel_entry < objdump -d: the system-call instructions (x86-64 syscall, sysenter, int $0x80;
# aarch64 svc), prefixes and operands dropped.
kernel_entry() {
    awk -F '\t' '/^ *[0-9a-f]+:\t/ {
        s = " " $2 " " $3 " "; gsub(/[ \t]+/, " ", s)
        if (match(s, / (syscall|sysenter|svc) /) || match(s, / int \$0x80 /)) {
            s = substr(s, RSTART + 1, RLENGTH - 2); print s
        }
    }'
}

# No code chosen by the dynamic loader: an IFUNC symbol's resolver runs inside the loader, before
# main and before any confinement, and an IRELATIVE relocation is how a static one gets there.
check_ifunc() {
    f=$("$READELF" -sW "$tmp" | awk '$4 == "IFUNC" { print $NF; exit }') || true
    r=$("$READELF" -rW "$tmp" | grep -m 1 -E 'R_[A-Z0-9_]*IRELATIVE') || true
    if [ -n "$f$r" ]; then
        why="your code defines an indirect function (IFUNC${f:+ $f}: __attribute__((ifunc)) or"
        why="$why a gnu_indirect_function symbol), whose resolver would run in the dynamic loader"
        why="$why before any of the lab's code: pick the implementation inside your function instead"
        refuse "$(first_obj has_ifunc x)" "$why"
    fi
}

has_ifunc() {
    "$READELF" -sW "$2" | awk '$4 == "IFUNC" { f = 1 } END { exit !f }' ||
        "$READELF" -rW "$2" | grep -q -E 'R_[A-Z0-9_]*IRELATIVE'
}
has_section() { "$READELF" -SW "$2" | executable | grep -qxF "$1"; }
has_insn() { "$OBJDUMP" -d --no-show-raw-insn "$2" | kernel_entry | grep -qxF "$1"; }
uses() { "$READELF" -sW "$2" | symbols undefined | grep -qxF "$1"; }

# Every name the object uses from outside is allowed.
check_references() {
    "$READELF" -sW "$tmp" | symbols undefined | sort -u > "$tmp.undef"
    common_headers > "$tmp.common"
    allowed > "$tmp.allowed"
    bad=$(comm -23 "$tmp.undef" "$tmp.allowed" | awk -v san="$san" -v cuda="$cuda" '
        /^__aarch64_/ { next }
        san != "" && /^__(asan|ubsan|tsan|sanitizer|lsan)_/ { next }
        cuda == 1 && /^_?_?cuda/ { next }
        { print }')
    [ -z "$bad" ] && return 0
    first=$(echo "$bad" | head -n 1)
    n=$(echo "$bad" | wc -l)
    names=$(echo "$bad" | awk -v n="$n" '
        NR <= 3 { s = s (NR == 1 ? "" : NR == n ? " and " : ", ") $0 }
        END { print s (n > 3 ? " and " n - 3 " more" : "") }')
    if [ "$n" -gt 1 ]; then which="which are"; else which="which is"; fi
    why="your code uses $names, $which neither part of the lab's API nor of the C library:"
    if echo "$bad" | grep -Eq "$HARNESS"; then
        why="$why the grader's own functions are off limits"
    else
        why="$why a function of your own must be defined in one of your files"
    fi
    refuse "$(first_obj uses "$first")" "$why"
}

objs=$*
if [ -z "$san" ]; then
    for o in "$@"; do
        s=$("$READELF" -SW "$o" | sed -n 's/^ *\[ *[0-9]*\] *\([^ ]*\) .*/\1/p' |
            grep -E '^\.(init_array|fini_array|preinit_array|ctors|dtors)' | head -n 1) || true
        if [ -n "$s" ]; then
            refuse "$o" "constructors and destructors (__attribute__((constructor)), a $s section) are not allowed in your code: they would run before the tests and the benchmark; call your set-up from your functions instead"
        fi
    done
fi

"$LD" -r -d -o "$tmp" "$@"

inc=$labsrc/include
inc_abs=$(cd "$inc" 2>/dev/null && pwd) || inc_abs=$inc
declared 0 "$inc_abs" "$inc" < "$headers" > "$tmp.api"

check_code
check_ifunc
check_references

"$READELF" -sW "$tmp" | symbols defined | sort -u > "$tmp.defs"
comm -12 "$tmp.api" "$tmp.defs" > "$out.api"
"$OBJCOPY" --keep-global-symbols="$out.api" "$tmp" "$out"
