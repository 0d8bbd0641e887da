/* Hostile prologue: look for the staff's seed and the hidden tests in this process: its
 * environment and its own program file. The names looked for are put together at run time, so
 * that this code does not hold them itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hostile_scan(const char *path, const char *head, const char *tail)
{
    char want[64];
    snprintf(want, sizeof want, "%s%s", head, tail);
    FILE *f = fopen(path, "rb");
    char buf[1 << 16];
    size_t n, found = 0, len = strlen(want);
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) /* a name across two reads: missed */
        for (size_t i = 0; i + len <= n && !found; i++)
            found = memcmp(buf + i, want, len) == 0;
    if (f)
        fclose(f);
    fprintf(stderr, "hostile: %s in %s: %s\n", want, path, found ? "found" : "absent");
}

static void hostile(void)
{
    hostile_scan("/proc/self/environ", "MLMEM_", "SEED");
    hostile_scan("/proc/self/environ", "MLMEM_", "STAFF_SEED");
    hostile_scan("/proc/self/exe", "test_", "hidden");
}
