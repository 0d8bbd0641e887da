/* Lab 02: the kernel whose speed you predict (src/walk.c; given, not yours to edit), and the
 * page allocator your pointer chase uses too.
 *
 * A graph-sampling DataLoader walks a graph at random: each step reads the current node's record,
 * which says where the neighbour tables are, and jumps to a random neighbour. Popularity is
 * skewed, like in real graphs: most jumps land on a small hot set of nodes, some on a warm set,
 * a few on the long cold tail. The nodes live in three tiers (64-byte records); a step picks the
 * hot tier with probability hot16/16, the warm one with warm16/16, else the cold one, and a
 * uniformly random node in it. The address of each load comes from the load before it, so the
 * loads cannot overlap: the time per step is the latency of that load. */
#ifndef EL_WALK_H
#define EL_WALK_H
#include <stddef.h>
#include <stdint.h>

/* `bytes` bytes (rounded up to 2 MiB), aligned to 2 MiB and zero-filled, with transparent huge
 * pages requested (madvise MADV_HUGEPAGE) so that TLB misses blur the cache levels less. Returns
 * NULL (errno set) for bytes == 0 or when out of memory. Free with el_pages_free. */
void *el_pages_alloc(size_t bytes);
/* Frees what el_pages_alloc returned; NULL is ignored. */
void el_pages_free(void *p);

/* For tests: from now on, el_pages_free(p) calls fn(p, arg) just before it frees a block (not
 * for NULL), so that a test can look at what a function left in its pages -- how your chase
 * linked its nodes, say. fn == NULL turns that off. One hook for the whole program; not for
 * use from several threads at once. */
typedef void el_pages_hook_t(const void *p, void *arg);
void el_pages_on_free(el_pages_hook_t *fn, void *arg);

#define EL_WALK_NODE 64 /* bytes per node record: one line */
#define EL_WALK_LOAD 8  /* bytes read per step */

typedef struct el_walk el_walk_t;

typedef struct {
    unsigned hot16, warm16; /* jumps out of 16 into the hot / warm tier; the rest go cold */
} el_walk_mix_t;

#define EL_WALK_MAX_TIER ((size_t)1 << 30)

/* Creates the three tiers (each a power of two from EL_WALK_NODE to EL_WALK_MAX_TIER bytes), all
 * in one el_pages_alloc buffer: hot first, then warm, then cold. Returns 0; -EINVAL; -ENOMEM. */
int el_walk_create(el_walk_t **out, size_t hot_bytes, size_t warm_bytes, size_t cold_bytes);

/* Writes the address of the load of each of the first `steps` steps of the walk from `seed`
 * (the walk starts at the first hot node). Returns 0; -EINVAL (NULLs, hot16 + warm16 > 16). */
int el_walk_trace(const el_walk_t *w, el_walk_mix_t mix, uint64_t seed, size_t steps,
                  uint64_t *addr);

/* Runs the same walk: `warmup` steps untimed, then `steps` steps timed in batches; writes the
 * median over batches of the time per step (ns). steps >= EL_WALK_BATCH. Returns 0; -EINVAL. */
#define EL_WALK_BATCH 4096
int el_walk_time(const el_walk_t *w, el_walk_mix_t mix, uint64_t seed, size_t warmup,
                 size_t steps, double *ns);

/* Frees the walk; NULL is ignored. */
void el_walk_destroy(el_walk_t *w);

#endif
