#!/bin/sh
# Refuses a student's CUDA file (an editable src/x.cu) whose code could differ between the two
# compilers that build it: a lab's kernel emulator (g++, for the graded counts) and nvcc (for a
# GPU). Such a file could score the emulator's counts and run other code on a GPU, so it may use:
#   - the directives #include "HEADER" (the lab's API headers named on the command line; not
#     the emulator's own, which defines names nvcc lacks), #include <stdint.h> or <stddef.h>
#     (types only) and #pragma unroll [N]; no other directive (#if, #ifdef, #define, ...),
#     written with # or the digraph %:;
#   - no name that begins and ends with two underscores (the compilers' predefined macros:
#     __CUDA_ARCH__, __CUDACC__, __SANITIZE_THREAD__, __OPTIMIZE__, ...), except CUDA's
#     qualifiers __global__, __device__, __shared__, __host__, __restrict__, __forceinline__;
#   - no attribute that turns the emulator's instrumentation off for a function
#     (no_sanitize, no_sanitize_thread, disable_sanitizer_instrumentation,
#     no_instrument_function), which would leave its accesses out of the counted trace;
#   - no line continuation (a backslash ending a line), trigraph or raw string literal, which
#     would let text read as a comment or a string here be code to a compiler.
# What it cannot see (telling the emulator apart at run time) is in docs/grading.md.
#   student-cu.sh FILE NAME HEADER...   (NAME: how errors name the file, e.g. src/kernels.cu)
# Exit status 0, or 1 with one line on stderr: `NAME:LINE: error: ...`.
set -eu
LC_ALL=C
export LC_ALL
file=$1 name=$2
shift 2
awk -v name="$name" -v headers=" $* " '
function fail(line, why) {
    printf "%s:%d: error: %s (a kernel file compiles the same for nvcc and the kernel emulator: see the lab'"'"'s README)\n", name, line, why > "/dev/stderr"
    bad = 1
    exit 1
}
function ident_end() {
    if (id ~ /^__.*__$/ && id !~ /^__(global|device|shared|host|restrict|forceinline)__$/)
        fail(idline, "the name " id " is reserved to the compilers (a predefined macro differs between nvcc and the emulator)")
    if (id ~ /^(no_sanitize(_[a-z]+)?|disable_sanitizer_instrumentation|no_instrument_function)$/)
        fail(idline, "the attribute " id " would hide accesses from the emulator, which counts them")
    id = ""
}
function directive_end(   d) {
    d = dtext
    gsub(/[ \t]+/, " ", d); sub(/^ /, "", d); sub(/ $/, "", d)
    if ((d ~ /^include "[A-Za-z0-9_.]+"$/ && index(headers, " " substr(d, 10, length(d) - 10) " ")) ||
        d ~ /^include <(stdint|stddef)\.h>$/ ||
        d ~ /^pragma unroll( [0-9]+)?$/)
        { indir = 0; return }
    split(d, w, /[^A-Za-z_]/)
    fail(dline, "the directive #" (w[1] == "" ? d : w[1]) " is not allowed: only #include of the lab header" (headers ~ / .* .* / ? "s" : "") headers "or of <stdint.h> or <stddef.h>, and #pragma unroll")
}
/\\[ \t]*$/ { fail(NR, "a line continuation (a backslash at the end of a line)") }
/\?\?[=\/'"'"'()!<>-]/ { fail(NR, "a trigraph (??x)") }
{ text = text $0 "\n" }
END {
    if (bad) exit 1
    st = "code"; bol = 1; line = 1; n = length(text)
    for (i = 1; i <= n; i++) {
        c = substr(text, i, 1); c2 = substr(text, i, 2)
        if (st == "code") {
            if (c ~ /[A-Za-z0-9_]/) {
                if (id == "") idline = line
                id = id c
                bol = 0
                if (indir) dtext = dtext c
                continue
            }
            if (c == "\"" && id ~ /R$/) fail(line, "a raw string literal")
            if (id != "") ident_end()
            if (c2 == "/*") { st = "block"; i++; if (indir) dtext = dtext " "; continue }
            if (c2 == "//") { st = "line"; i++; continue }
            if (c == "\n") { if (indir) directive_end(); bol = 1; line++; continue }
            if (bol && (c == "#" || c2 == "%:")) {
                indir = 1; dline = line; dtext = ""; bol = 0
                if (c2 == "%:") i++
                continue
            }
            if (c == "\"") st = "string"
            else if (c == "'"'"'") st = "char"
            if (c !~ /[ \t\f\v\r]/) bol = 0
            if (indir) dtext = dtext c
        } else if (st == "block") {
            if (c == "\n") line++
            else if (c2 == "*/") { st = "code"; i++ }
        } else if (st == "line") {
            if (c == "\n") { st = "code"; i--; }
        } else {
            if (indir) dtext = dtext c
            if (c == "\\") { if (indir) dtext = dtext substr(text, i + 1, 1); i++; continue }
            if (c == "\n") { line++; st = "code"; continue }
            if ((st == "string" && c == "\"") || (st == "char" && c == "'"'"'")) st = "code"
        }
    }
    if (id != "") ident_end()
    if (indir) directive_end()
}' "$file"
