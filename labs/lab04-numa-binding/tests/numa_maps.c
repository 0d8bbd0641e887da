/* Lab 04 harness: where the pages of a range of your process are, from its /proc files (see
 * numa_maps.h). */
#include "numa_maps.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mm_proc.h"

typedef struct {
    uintptr_t lo, hi;
} span_t;

typedef struct {
    span_t *v;
    size_t n, cap;
} spans_t;

static int spans_add(spans_t *s, uintptr_t lo, uintptr_t hi)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        span_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (span_t){ lo, hi };
    return 0;
}

static FILE *open_proc(pid_t pid, const char *what, int *rc)
{
    FILE *f = mm_proc_fopen(pid, what);
    if (!f && *rc == 0)
        *rc = -errno;
    return f;
}

/* The mappings of process pid that overlap [lo, hi), in address order, into *out. 0 or -errno. */
static int overlapping(pid_t pid, uintptr_t lo, uintptr_t hi, spans_t *out)
{
    int rc = 0;
    FILE *f = open_proc(pid, "maps", &rc);
    char *line = NULL;
    size_t cap = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < hi && b > lo)
            rc = spans_add(out, a, b);
    }
    if (rc == 0 && ferror(f))
        rc = -EIO;
    free(line);
    if (f)
        fclose(f);
    return rc;
}

/* Adds a numa_maps line's counts ("N<node>=<pages>", in pages of kernelpagesize_kB) to *s. */
static void add_counts(char *line, int node, size_t page, nm_seen_t *s)
{
    size_t on = 0, off = 0, kb = page / 1024;
    char *save = NULL;
    for (char *t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
        int n;
        size_t c;
        if (sscanf(t, "N%d=%zu", &n, &c) == 2)
            *(n == node ? &on : &off) += c;
        else
            sscanf(t, "kernelpagesize_kB=%zu", &kb);
    }
    s->on_node += on * kb * 1024 / page;
    s->elsewhere += off * kb * 1024 / page;
}

/* Adds numa_maps' counts of the mappings m (in address order) to *s. 0; -EAGAIN when one of
 * them has no line there (the mappings changed since maps was read); -errno. */
static int count_nodes(pid_t pid, const spans_t *m, int node, size_t page, nm_seen_t *s)
{
    int rc = 0;
    FILE *f = open_proc(pid, "numa_maps", &rc);
    char *line = NULL;
    size_t cap = 0, i = 0;
    while (rc == 0 && i < m->n && getline(&line, &cap, f) > 0) {
        unsigned long start;
        if (sscanf(line, "%lx", &start) != 1 || start > m->v[i].lo)
            rc = -EAGAIN;
        else if (start == m->v[i].lo) {
            add_counts(line, node, page, s);
            i++;
        }
    }
    if (rc == 0 && i < m->n)
        rc = ferror(f) ? -EIO : -EAGAIN;
    free(line);
    if (f)
        fclose(f);
    return rc;
}

/* s->present for the pages [lo, hi), and s->around for the rest of the mappings m (up to
 * NM_AROUND_MAX pages read, the nearest first; the others counted as present). 0 or -errno. */
static int count_present(pid_t pid, uintptr_t lo, uintptr_t hi, const spans_t *m, size_t page,
                         nm_seen_t *s)
{
    size_t before = m->n && m->v[0].lo < lo ? (lo - m->v[0].lo) / page : 0;
    size_t after = m->n && m->v[m->n - 1].hi > hi ? (m->v[m->n - 1].hi - hi) / page : 0;
    size_t rb = before < NM_AROUND_MAX ? before : NM_AROUND_MAX;
    size_t ra = after < NM_AROUND_MAX - rb ? after : NM_AROUND_MAX - rb;
    int fd = mm_proc_open(pid, "pagemap", O_RDONLY);
    if (fd < 0)
        return fd;
    long in = mm_proc_present(fd, lo / page, (hi - lo) / page);
    long b = in < 0 ? in : mm_proc_present(fd, lo / page - rb, rb);
    long a = b < 0 ? b : mm_proc_present(fd, hi / page, ra);
    close(fd);
    if (a < 0)
        return (int)a;
    s->present = (size_t)in;
    s->around = (size_t)b + (size_t)a + (before - rb) + (after - ra);
    return 0;
}

/* One reading of maps, numa_maps and pagemap. 0, -EAGAIN or -errno. */
static int read_once(pid_t pid, uintptr_t lo, uintptr_t hi, int node, size_t page, nm_seen_t *s)
{
    spans_t m = { 0 };
    *s = (nm_seen_t){ .pages = (hi - lo) / page };
    int rc = overlapping(pid, lo, hi, &m);
    if (rc == 0)
        rc = count_nodes(pid, &m, node, page, s);
    if (rc == 0)
        rc = count_present(pid, lo, hi, &m, page, s);
    free(m.v);
    return rc;
}

int nm_read(pid_t pid, const void *addr, size_t bytes, int node, nm_seen_t *out)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)addr;
    if (pid <= 0 || !addr || lo % page || bytes == 0 || bytes > (UINTPTR_MAX - lo) / 2 ||
        node < 0 || !out)
        return -EINVAL;
    uintptr_t hi = lo + (bytes + page - 1) / page * page;
    int rc = -EAGAIN;
    for (int tries = 0; tries < 3 && rc == -EAGAIN; tries++)
        rc = read_once(pid, lo, hi, node, page, out);
    return rc;
}

size_t nm_proven(const nm_seen_t *s)
{
    return s->on_node > s->around ? s->on_node - s->around : 0;
}
