/* Lists every file a program holds through MM_EMBED (common/mm_embed.h): one line per blob,
 * "<length> <FNV-1a 64 of the bytes, hex> <path>", and checks each blob ends with its NUL.
 * Linked with a lab's objects by grader/tests/test_embed.py, which compares with the files. */
#include "mm_embed.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

extern const mm_embed_t __start_mm_embed[], __stop_mm_embed[];

/* FNV-1a, 64 bits, of n bytes at p. */
static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t k = 0; k < n; k++)
        h = (h ^ (unsigned char)p[k]) * 0x100000001b3ULL;
    return h;
}

int main(void)
{
    int bad = 0;
    for (const mm_embed_t *e = __start_mm_embed; e < __stop_mm_embed; e++) {
        size_t n = (size_t)(e->end - e->start) - 1;
        if (e->end <= e->start || e->end[-1] != '\0') {
            printf("BAD %s: no NUL after the bytes\n", e->path);
            bad = 1;
            continue;
        }
        printf("%zu %016" PRIx64 " %s\n", n, fnv1a(e->start, n), e->path);
    }
    return bad;
}
