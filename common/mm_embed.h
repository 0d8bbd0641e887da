/* Data files copied into a program at build time (a lab's shipped topologies, traces): one
 * helper every lab uses, correct on x86-64 and aarch64, in position-independent and fixed-address
 * executables, with gcc and clang.
 *
 * MM_EMBED(sym, "path") at file scope makes `sym` the file's bytes followed by one NUL, and
 * MM_EMBED_LEN(sym) their count (without the NUL). The assembler's .incbin reads the file, so a
 * lab's lab.mk names it as a prerequisite of the object (make rebuilds when it changes).
 *
 * Why the symbols are global, hidden, typed and sized: C code refers to `sym` through an extern
 * declaration. A plain assembler label is a local symbol with no type or size; a PIE compiled for
 * aarch64 reaches an extern through the GOT, and a GOT entry against a local label in a merged
 * section resolved to the start of .rodata (every blob was the first one, its length garbage).
 * A .globl + .hidden label with an object type and a size is an ordinary definition the linker
 * resolves exactly, and the hidden extern lets the compiler address it directly (PC-relative, no
 * GOT) on every target. Each blob also records { name, start, end } in the section mm_embed, so a
 * test can list every blob a program holds (tools: common/selftest/embed_dump.c).
 */
#ifndef MM_EMBED_H
#define MM_EMBED_H
#include <stddef.h>

/* One embedded file as the program sees it; `path` is the name MM_EMBED was given. */
typedef struct {
    const char *path;
    const char *start;
    const char *end; /* one past the NUL that follows the bytes */
} mm_embed_t;

#define MM_EMBED_STR_(x) #x
#define MM_EMBED_STR(x) MM_EMBED_STR_(x)

/* Defines `sym` (the bytes of the file at `path`, a string literal, then a NUL) and sym##_end
 * (one past the NUL). Use once per blob at file scope; `sym` must be unique in the program. */
#define MM_EMBED(sym, path)                                                                \
    __asm__(".pushsection .rodata." #sym ", \"a\", %progbits\n"                            \
            ".globl " #sym "\n.hidden " #sym "\n.type " #sym ", %object\n"                 \
            ".balign 16\n" #sym ":\n"                                                      \
            ".incbin \"" path "\"\n"                                                       \
            ".byte 0\n"                                                                    \
            ".size " #sym ", . - " #sym "\n"                                               \
            ".globl " #sym "_end\n.hidden " #sym "_end\n" #sym "_end:\n"                   \
            ".popsection\n");                                                              \
    extern const char sym[] __attribute__((visibility("hidden")));                         \
    extern const char sym##_end[] __attribute__((visibility("hidden")));                   \
    static const mm_embed_t sym##_entry__ __attribute__((used, section("mm_embed"),        \
                                                         aligned(sizeof(void *)))) = {     \
        path, sym, sym##_end                                                               \
    }

/* The number of bytes of the file embedded as `sym` (without the NUL MM_EMBED adds). */
#define MM_EMBED_LEN(sym) ((size_t)(sym##_end - sym) - 1)

#endif
