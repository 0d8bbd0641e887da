/* Lab 04: what the harness (tests/, bench/) and the workloads of serve/serve04.c both know: the
 * inputs and outputs of each workload (calls.toml's [[workload]]), and the benchmark's memory
 * kernels, which run on both sides (the benchmark's own binding in the harness, yours in your
 * process). A pointer or handle field is the student process's own: the harness never reads it.
 * Included by path ("../serve/work04.h"): neither side's include folder has it. */
#ifndef NB_WORK04_H
#define NB_WORK04_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "mm_rng.h"

/* topo: a topology loaded by hwloc itself in the student process (I/O kept as important), for
 * the tests' calls that take another machine's topology. */
enum { NB_SV_SYSTEM = 0, NB_SV_SYNTHETIC = 1, NB_SV_SHIPPED = 2 };
typedef struct {
    int32_t kind;   /* NB_SV_* */
    char text[120]; /* the synthetic description or the shipped topology's name */
} nb_sv_topo_in_t;

/* topo_facts: what a topology says of itself. */
typedef struct {
    int32_t thissystem; /* hwloc_topology_is_thissystem */
} nb_sv_facts_t;

/* obj: a PCI device by bus id, or the index-th core, of topology `topo`. */
typedef struct {
    uint64_t topo;
    int32_t pci;    /* 1: by busid ("bb:dd.f", domain 0); 0: the index-th core */
    uint32_t index;
    char busid[16];
} nb_sv_obj_in_t;

/* bitmap (list -> new bitmap handle) and bitmap_list (handle -> list). */
typedef struct {
    uint64_t handle;
    int32_t null; /* bitmap_list: the handle was NULL */
    char list[1024];
} nb_sv_bitmap_t;

/* pages: in the student process, over `npages` pages of shared memory from addr: no huge
 * pages, then (cpu >= 0) the serving thread pinned to cpu, then page i written (what[i] = 1:
 * every byte) or read (2) or left alone (0). */
#define NB_SV_MAX_PAGES 512
typedef struct {
    uint64_t addr;
    uint32_t npages;
    int32_t cpu;
    uint8_t what[NB_SV_MAX_PAGES];
} nb_sv_pages_in_t;

/* worker_bind: a new thread calls nb_bind_thread(topo, set) and, still alive, asks the harness
 * to look at it (callback "nb.bound", args: its thread id as the student process sees it). */
typedef struct {
    uint64_t topo, set;
} nb_sv_worker_in_t;

/* write_file: `len` bytes of data written to `name` in the student process's working folder;
 * out: the file's absolute path (as that process sees it). remove_file: in, the name (a
 * NUL-terminated string of at most 63 bytes, no '/'): that file removed again. */
typedef struct {
    char name[64];
    uint64_t len;
    char data[];
} nb_sv_file_in_t;

/* The benchmark's memory work. cycle: a pointer-chase cycle built in `buf` (seed); chase: the
 * serving thread binds itself with nb_bind_thread_to_node(topo, node) and takes `steps` steps
 * from `at`; team: `n` threads, each bound by nb_bind_thread(topo, where) (where 0:
 * nb_bind_thread_to_node(topo, node)), read or collate (NB_WORK_*) their slice of the window
 * [buf + win, buf + win + NB_WINDOW). */
enum { NB_WORK_READ = 0, NB_WORK_COLLATE = 1 };
typedef struct {
    uint64_t topo, buf, bytes, seed, at, where, win;
    int32_t node, kind;
    uint32_t steps, n;
} nb_sv_bench_in_t;
typedef struct {
    uint64_t at, sink;
    int32_t failed; /* a bind failed, or a thread could not start */
} nb_sv_bench_out_t;

#define NB_WINDOW ((size_t)256 << 20) /* what one round reads or writes; buffers are multiples */
#define NB_BLOCK 4096                 /* the chase visits 64 lines of a block, blocks at random */
#define NB_LINES (NB_BLOCK / 64)
#define NB_TILE 16384 /* floats of one decoded sample tile: 64 KiB, stays in the worker's cache */
#define NB_MAX_WORKERS 16

/* Line k of the cycle: blocks in the order `perm` gives, each visited once per sweep, at a line
 * that moves on by one each sweep from a start of its own. Every line once in NB_LINES sweeps. */
static inline size_t nb_cycle_line(const uint32_t *perm, size_t blocks, size_t k)
{
    size_t b = perm[k % blocks];
    return b * NB_LINES + (k / blocks + b * 37u) % NB_LINES;
}

/* Builds the chase's cycle through every line of buf[0..bytes) from `seed`'s shuffle of its
 * blocks. Returns 0, or -1 without memory. */
static inline int nb_build_cycle(uint64_t *buf, size_t bytes, uint64_t seed)
{
    size_t blocks = bytes / NB_BLOCK, n = blocks * NB_LINES;
    uint32_t *perm = malloc(blocks * sizeof *perm);
    if (!perm)
        return -1;
    mm_rng_t r = mm_rng_new(seed);
    for (size_t i = 0; i < blocks; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = blocks - 1; i > 0; i--) {
        size_t k = (size_t)mm_rng_range(&r, 0, i);
        uint32_t tmp = perm[i];
        perm[i] = perm[k];
        perm[k] = tmp;
    }
    size_t from = nb_cycle_line(perm, blocks, 0);
    for (size_t k = 1; k <= n; k++) {
        size_t to = nb_cycle_line(perm, blocks, k % n);
        buf[from * 8] = (uint64_t)to * 8;
        from = to;
    }
    free(perm);
    return 0;
}

/* `steps` dependent loads along the cycle from element `at`; returns where it stopped. */
static inline uint64_t nb_chase(const uint64_t *buf, uint64_t at, uint32_t steps)
{
    for (uint32_t s = 0; s < steps; s++)
        at = buf[at];
    return at;
}

/* Worker w's share [lo, hi) of a window, of n workers, counted in elements of `size` bytes. */
static inline void nb_slice(unsigned n, unsigned w, size_t size, size_t *lo, size_t *hi)
{
    size_t all = NB_WINDOW / size;
    *lo = all * w / n;
    *hi = all * (w + 1) / n;
}

/* A reader: the sum of worker w's slice of the window at `win`. */
static inline uint64_t nb_read_slice(const char *win, unsigned n, unsigned w)
{
    size_t lo, hi;
    nb_slice(n, w, sizeof(uint64_t), &lo, &hi);
    const uint64_t *p = (const uint64_t *)(const void *)win;
    uint64_t sum = 0;
    for (size_t i = lo; i < hi; i++)
        sum += p[i];
    return sum;
}

/* The value loader worker w writes at element i of its window. */
static inline float nb_collated(size_t i, unsigned w)
{
    return (float)((i % NB_TILE * 37u + w) % 251u) * 0.5f + 1.0f;
}

/* A loader worker: a decoded sample tile (in its cache) collated into its slice of the batch,
 * which sits on the GPU's node as pinned staging memory does. */
static inline void nb_collate_slice(char *win, unsigned n, unsigned w)
{
    float tile[NB_TILE];
    for (size_t i = 0; i < NB_TILE; i++)
        tile[i] = (float)((i * 37u + w) % 251u);
    size_t lo, hi;
    nb_slice(n, w, sizeof(float), &lo, &hi);
    float *dst = (float *)(void *)win;
    for (size_t i = lo; i < hi; i++)
        dst[i] = tile[i % NB_TILE] * 0.5f + 1.0f;
}

#endif
