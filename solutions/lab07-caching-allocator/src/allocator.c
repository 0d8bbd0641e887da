/* Lab 07, parts C and D (reference): the caching allocator and its checker (see allocator.h).
 * Every block is in exactly one place: its pool's free set, the live map, or the pending list
 * (waiting for events). Each pool's set always has room for every block of the pool, so
 * returning a block never fails. */
#include "allocator.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "blockset.h"
#include "ptrmap.h"

typedef struct {
    ca_event_t ev;
    ca_block_t *block;
} pending_t;

struct ca_allocator {
    ca_backend_t be;
    ca_blockset_t pool[2];   /* free blocks, by pool */
    size_t nblocks[2];       /* all blocks of each pool, wherever they are */
    ca_ptrmap_t live;        /* address -> allocated block */
    pending_t *pending;      /* one entry per outstanding event */
    size_t npending, cap_pending;
    ca_stats_t st;
};

static void stat_up(ca_stat_t *s, uint64_t n)
{
    s->current += n;
    if (s->current > s->peak)
        s->peak = s->current;
}

static void stat_down(ca_stat_t *s, uint64_t n)
{
    s->current -= n;
}

static int kind(ca_pool_t pool)
{
    return pool == CA_POOL_SMALL ? CA_STAT_SMALL : CA_STAT_LARGE;
}

static void bytes_up(ca_stat_t *arr, ca_pool_t pool, size_t n)
{
    stat_up(&arr[CA_STAT_ALL], n);
    stat_up(&arr[kind(pool)], n);
}

static void bytes_down(ca_stat_t *arr, ca_pool_t pool, size_t n)
{
    stat_down(&arr[CA_STAT_ALL], n);
    stat_down(&arr[kind(pool)], n);
}

int ca_create(ca_allocator_t **out, const ca_backend_t *be)
{
    if (!out || !be || !be->raw_alloc || !be->raw_free || !be->record_event ||
        !be->query_event || !be->release_event || !be->synchronize)
        return -EINVAL;
    ca_allocator_t *a = calloc(1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->be = *be;
    ca_blockset_init(&a->pool[CA_POOL_SMALL]);
    ca_blockset_init(&a->pool[CA_POOL_LARGE]);
    ca_ptrmap_init(&a->live);
    *out = a;
    return 0;
}

/* Absorbs free neighbour src into dst (PyTorch's try_merge_blocks). */
static void merge(ca_allocator_t *a, ca_block_t *dst, ca_block_t *src)
{
    if (!src || src->allocated || src->pending_events)
        return;
    ca_blockset_erase(&a->pool[src->pool], src);
    if (src == dst->prev) {
        dst->addr = src->addr;
        dst->prev = src->prev;
        if (dst->prev)
            dst->prev->next = dst;
    } else {
        dst->next = src->next;
        if (dst->next)
            dst->next->prev = dst;
    }
    dst->size += src->size;
    a->nblocks[src->pool]--;
    free(src);
}

/* A freed block with no events to wait for goes back to its pool, merged with free neighbours. */
static void free_block(ca_allocator_t *a, ca_block_t *b)
{
    bytes_down(a->st.active_bytes, b->pool, b->size);
    b->stream_uses = 0;
    merge(a, b, b->prev);
    merge(a, b, b->next);
    ca_blockset_insert(&a->pool[b->pool], b); /* cannot fail: room for every block */
}

int ca_process_events(ca_allocator_t *a)
{
    if (!a)
        return -EINVAL;
    size_t keep = 0;
    int rc = 0;
    for (size_t i = 0; i < a->npending; i++) {
        pending_t p = a->pending[i];
        int done = rc ? 0 : a->be.query_event(a->be.ctx, p.ev);
        if (done <= 0) {
            rc = done < 0 ? done : rc;
            a->pending[keep++] = p;
            continue;
        }
        a->be.release_event(a->be.ctx, p.ev);
        if (--p.block->pending_events == 0)
            free_block(a, p.block);
    }
    a->npending = keep;
    return rc;
}

/* Returns every entirely free segment of one pool to the back end. */
static int release_pool(ca_allocator_t *a, ca_blockset_t *set)
{
    for (size_t i = set->n; i-- > 0;) {
        ca_block_t *b = set->v[i];
        if (b->prev || b->next)
            continue;
        a->st.raw_frees++;
        int rc = a->be.raw_free(a->be.ctx, (void *)b->addr);
        if (rc != 0)
            return rc;
        ca_blockset_erase(set, b);
        bytes_down(a->st.reserved_bytes, b->pool, b->size);
        stat_down(&a->st.segments, 1);
        a->nblocks[b->pool]--;
        free(b);
    }
    return 0;
}

/* PyTorch's release_cached_blocks: wait for the device, then free every unused segment. */
static int release_cached(ca_allocator_t *a)
{
    int rc = a->be.synchronize(a->be.ctx);
    if (rc == 0)
        rc = ca_process_events(a);
    for (int p = 0; p < 2 && rc == 0; p++)
        rc = release_pool(a, &a->pool[p]);
    return rc;
}

static int raw_alloc(ca_allocator_t *a, size_t size, void **p)
{
    a->st.raw_allocs++;
    return a->be.raw_alloc(a->be.ctx, size, p);
}

/* A new segment for `rounded` bytes, as one free block not yet in any set. When the device is
 * full: release the cached segments and retry once. */
static int new_segment(ca_allocator_t *a, ca_pool_t pool, ca_stream_t stream, size_t rounded,
                       ca_block_t **out)
{
    size_t size = ca_segment_size(rounded);
    ca_block_t *b = calloc(1, sizeof *b);
    void *p = NULL;
    if (!b)
        return -ENOMEM;
    int rc = raw_alloc(a, size, &p);
    if (rc == -ENOMEM && (rc = release_cached(a)) == 0) {
        a->st.num_alloc_retries++;
        rc = raw_alloc(a, size, &p);
    }
    if (rc != 0) {
        a->st.num_ooms += rc == -ENOMEM;
        free(b);
        return rc;
    }
    *b = (ca_block_t){ .addr = (uintptr_t)p, .size = size, .stream = stream, .pool = pool };
    bytes_up(a->st.reserved_bytes, pool, size);
    stat_up(&a->st.segments, 1);
    a->nblocks[pool]++;
    *out = b;
    return 0;
}

/* Cuts b down to `rounded` bytes; the rest becomes a free block right after it. */
static void split(ca_allocator_t *a, ca_block_t *b, ca_block_t *rest, size_t rounded)
{
    *rest = (ca_block_t){ .addr = b->addr + rounded, .size = b->size - rounded,
                          .stream = b->stream, .pool = b->pool, .prev = b, .next = b->next };
    if (b->next)
        b->next->prev = rest;
    b->next = rest;
    b->size = rounded;
    a->nblocks[b->pool]++;
    ca_blockset_insert(&a->pool[b->pool], rest);
}

/* Hands out free block b (in no set) for `rounded` bytes. On -ENOMEM nothing changed. */
static int take(ca_allocator_t *a, ca_block_t *b, size_t rounded)
{
    ca_block_t *rest = NULL;
    if (ca_should_split(b->pool, b->size, rounded) && !(rest = malloc(sizeof *rest)))
        return -ENOMEM;
    if (ca_ptrmap_put(&a->live, b->addr, b) != 0) {
        free(rest);
        return -ENOMEM;
    }
    if (rest)
        split(a, b, rest, rounded);
    b->allocated = true;
    bytes_up(a->st.allocated_bytes, b->pool, b->size);
    bytes_up(a->st.active_bytes, b->pool, b->size);
    stat_up(&a->st.allocations, 1);
    return 0;
}

int ca_alloc(ca_allocator_t *a, size_t size, ca_stream_t stream, void **out)
{
    if (!a || !out || stream >= CA_MAX_STREAMS)
        return -EINVAL;
    if (size == 0) {
        *out = NULL;
        return 0;
    }
    size_t rounded = ca_round_size(size);
    if (rounded == 0) {
        a->st.num_ooms++;
        return -ENOMEM;
    }
    ca_pool_t pool = ca_pool_for(rounded);
    ca_blockset_t *set = &a->pool[pool];
    int rc = ca_process_events(a);
    if (rc == 0 && ca_blockset_reserve(set, a->nblocks[pool] + 2) != 0)
        rc = -ENOMEM; /* room for a new segment and a split */
    if (rc != 0)
        return rc;
    ca_block_t *b = ca_blockset_best_fit(set, stream, rounded);
    if (b)
        ca_blockset_erase(set, b);
    else if ((rc = new_segment(a, pool, stream, rounded, &b)) != 0)
        return rc;
    if ((rc = take(a, b, rounded)) != 0) {
        ca_blockset_insert(set, b);
        return rc;
    }
    *out = (void *)b->addr;
    return 0;
}

static int reserve_pending(ca_allocator_t *a, size_t extra)
{
    if (a->npending + extra <= a->cap_pending)
        return 0;
    size_t cap = a->cap_pending ? 2 * a->cap_pending : 64;
    while (cap < a->npending + extra)
        cap *= 2;
    pending_t *v = realloc(a->pending, cap * sizeof *v);
    if (!v)
        return -ENOMEM;
    a->pending = v;
    a->cap_pending = cap;
    return 0;
}

/* One event on every other stream that used b; on failure none stays recorded. */
static int record_events(ca_allocator_t *a, ca_block_t *b, unsigned *n)
{
    size_t first = a->npending;
    int rc = reserve_pending(a, (size_t)__builtin_popcountll(b->stream_uses));
    for (ca_stream_t s = 0; s < CA_MAX_STREAMS && rc == 0; s++) {
        ca_event_t ev;
        if (!(b->stream_uses >> s & 1))
            continue;
        rc = a->be.record_event(a->be.ctx, s, &ev);
        if (rc == 0)
            a->pending[a->npending++] = (pending_t){ ev, b };
    }
    while (rc != 0 && a->npending > first)
        a->be.release_event(a->be.ctx, a->pending[--a->npending].ev);
    *n = (unsigned)(a->npending - first);
    return rc;
}

int ca_free(ca_allocator_t *a, void *ptr)
{
    if (!a)
        return -EINVAL;
    if (!ptr)
        return 0;
    ca_block_t *b = ca_ptrmap_get(&a->live, (uintptr_t)ptr);
    if (!b)
        return -EINVAL;
    unsigned events = 0;
    int rc = record_events(a, b, &events);
    if (rc != 0)
        return rc;
    ca_ptrmap_remove(&a->live, b->addr);
    b->allocated = false;
    bytes_down(a->st.allocated_bytes, b->pool, b->size);
    stat_down(&a->st.allocations, 1);
    b->pending_events = events;
    if (events == 0)
        free_block(a, b);
    return 0;
}

int ca_record_stream(ca_allocator_t *a, void *ptr, ca_stream_t stream)
{
    if (!a || stream >= CA_MAX_STREAMS)
        return -EINVAL;
    ca_block_t *b = ca_ptrmap_get(&a->live, (uintptr_t)ptr);
    if (!b)
        return -EINVAL;
    if (stream != b->stream)
        b->stream_uses |= (uint64_t)1 << stream;
    return 0;
}

int ca_empty_cache(ca_allocator_t *a)
{
    return a ? release_cached(a) : -EINVAL;
}

int ca_get_stats(const ca_allocator_t *a, ca_stats_t *out)
{
    if (!a || !out)
        return -EINVAL;
    *out = a->st;
    return 0;
}

void ca_reset_peak_stats(ca_allocator_t *a)
{
    if (!a)
        return;
    for (int k = 0; k < CA_STAT_KINDS; k++) {
        a->st.allocated_bytes[k].peak = a->st.allocated_bytes[k].current;
        a->st.active_bytes[k].peak = a->st.active_bytes[k].current;
        a->st.reserved_bytes[k].peak = a->st.reserved_bytes[k].current;
    }
    a->st.allocations.peak = a->st.allocations.current;
    a->st.segments.peak = a->st.segments.current;
}

size_t ca_block_size(const ca_allocator_t *a, const void *ptr)
{
    const ca_block_t *b = a ? ca_ptrmap_get(&a->live, (uintptr_t)ptr) : NULL;
    return b ? b->size : 0;
}

/* Puts every block into its pool's set (live and pending ones too), so each is freed once. */
static void gather_all(ca_allocator_t *a)
{
    for (size_t i = 0; i < a->npending; i++) {
        ca_block_t *b = a->pending[i].block;
        a->be.release_event(a->be.ctx, a->pending[i].ev);
        if (--b->pending_events == 0)
            ca_blockset_insert(&a->pool[b->pool], b);
    }
    a->npending = 0;
    size_t cursor = 0;
    ca_block_t *b;
    while ((b = ca_ptrmap_next(&a->live, &cursor)) != NULL)
        ca_blockset_insert(&a->pool[b->pool], b);
}

void ca_destroy(ca_allocator_t *a)
{
    if (!a)
        return;
    gather_all(a);
    for (int p = 0; p < 2; p++) {
        ca_blockset_t *set = &a->pool[p];
        for (size_t i = 0; i < set->n; i++)
            if (!set->v[i]->prev)
                a->be.raw_free(a->be.ctx, (void *)set->v[i]->addr);
        for (size_t i = 0; i < set->n; i++)
            free(set->v[i]);
        ca_blockset_destroy(set);
    }
    ca_ptrmap_destroy(&a->live);
    free(a->pending);
    free(a);
}

/* ---- Part D: the checker. It gathers every block the three places name, sorted by header
 * address, then walks each segment from its first block and compares. ---- */

enum { IN_FREE = 1, IN_LIVE = 2, IN_PENDING = 4 };

typedef struct {
    const ca_block_t *b;
    unsigned places;  /* IN_* bits */
    unsigned events;  /* entries in the pending list */
    unsigned visited; /* reached along its segment's links */
    bool twice;       /* named twice, other than by two events of one pending block */
} seen_t;

typedef struct {
    seen_t *v;
    size_t n;
} seen_set_t;

static int cmp_seen(const void *x, const void *y)
{
    uintptr_t p = (uintptr_t)((const seen_t *)x)->b, q = (uintptr_t)((const seen_t *)y)->b;
    return (p > q) - (p < q);
}

static seen_t *find_seen(const seen_set_t *s, const ca_block_t *b)
{
    seen_t key = { .b = b };
    return b ? bsearch(&key, s->v, s->n, sizeof *s->v, cmp_seen) : NULL;
}

/* Every block of the three places, once each, with where it was found. */
static int gather_seen(const ca_allocator_t *a, seen_set_t *s)
{
    size_t n = a->pool[0].n + a->pool[1].n + a->live.n + a->npending, k = 0, cursor = 0;
    s->v = calloc(n ? n : 1, sizeof *s->v);
    if (!s->v)
        return -ENOMEM;
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < a->pool[p].n; i++)
            s->v[k++] = (seen_t){ .b = a->pool[p].v[i], .places = IN_FREE };
    const ca_block_t *b;
    while ((b = ca_ptrmap_next(&a->live, &cursor)) != NULL)
        s->v[k++] = (seen_t){ .b = b, .places = IN_LIVE };
    for (size_t i = 0; i < a->npending; i++)
        s->v[k++] = (seen_t){ .b = a->pending[i].block, .places = IN_PENDING, .events = 1 };
    qsort(s->v, n, sizeof *s->v, cmp_seen);
    s->n = 0;
    for (size_t i = 0; i < n; i++) {
        seen_t *last = s->n ? &s->v[s->n - 1] : NULL;
        if (last && last->b == s->v[i].b) {
            /* several events of one pending block are fine; any other repeat is not */
            last->twice |= (last->places | s->v[i].places) != IN_PENDING;
            last->places |= s->v[i].places;
            last->events += s->v[i].events;
        } else {
            s->v[s->n++] = s->v[i];
        }
    }
    return 0;
}

/* One segment from its first block: links, tiling, alignment; blocks in no place are lost. */
static int walk_segment(seen_set_t *s, const ca_block_t *head, int *lost)
{
    for (const ca_block_t *b = head; b; b = b->next) {
        seen_t *e = find_seen(s, b);
        if (e && e->visited++)
            return -EFAULT;
        *lost |= e == NULL;
        if (b->size == 0 || b->size % CA_MIN_BLOCK || b->addr % CA_MIN_BLOCK)
            return -EFAULT;
        const ca_block_t *n = b->next;
        if (n && (n->prev != b || n->addr != b->addr + b->size || n->stream != b->stream ||
                  n->pool != b->pool))
            return -EFAULT;
    }
    return 0;
}

static int check_segments(seen_set_t *s)
{
    int lost = 0;
    for (size_t i = 0; i < s->n; i++) {
        int rc = s->v[i].b->prev ? 0 : walk_segment(s, s->v[i].b, &lost);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!s->v[i].visited)
            return -EFAULT; /* its links never lead back to a segment's first block */
    return lost ? -ENOENT : 0;
}

static int check_places(const seen_set_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const seen_t *e = &s->v[i];
        const ca_block_t *b = e->b;
        bool ok = false;
        if (e->twice)
            return -EEXIST;
        if (e->places == IN_FREE)
            ok = !b->allocated && b->pending_events == 0;
        else if (e->places == IN_LIVE)
            ok = b->allocated && b->pending_events == 0;
        else if (e->places == IN_PENDING)
            ok = !b->allocated && b->pending_events == e->events;
        if (!ok)
            return -EEXIST;
    }
    return 0;
}

static int before(const ca_block_t *x, const ca_block_t *y)
{
    if (x->stream != y->stream)
        return x->stream < y->stream;
    if (x->size != y->size)
        return x->size < y->size;
    return x->addr < y->addr;
}

static int check_free_sets(const ca_allocator_t *a, const seen_set_t *s)
{
    for (int p = 0; p < 2; p++) {
        const ca_blockset_t *set = &a->pool[p];
        for (size_t i = 0; i < set->n; i++) {
            const ca_block_t *b = set->v[i];
            const seen_t *n = find_seen(s, b->next);
            if (b->pool != (ca_pool_t)p || (i > 0 && !before(set->v[i - 1], b)) ||
                (n && (n->places & IN_FREE)))
                return -EILSEQ;
        }
    }
    return 0;
}

static int stat_ok(const ca_stat_t *st, uint64_t want)
{
    return st->current == want && st->current <= st->peak;
}

static int check_stats(const ca_allocator_t *a, const seen_set_t *s)
{
    uint64_t alloc[3] = { 0 }, active[3] = { 0 }, reserved[3] = { 0 }, live = 0, segs = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ca_block_t *b = s->v[i].b;
        int k = kind(b->pool);
        if (s->v[i].places != IN_FREE) {
            active[0] += b->size, active[k] += b->size;
        }
        if (s->v[i].places == IN_LIVE) {
            alloc[0] += b->size, alloc[k] += b->size, live++;
        }
        reserved[0] += b->size, reserved[k] += b->size;
        segs += b->prev == NULL;
    }
    const ca_stats_t *st = &a->st;
    for (int k = 0; k < CA_STAT_KINDS; k++)
        if (!stat_ok(&st->allocated_bytes[k], alloc[k]) ||
            !stat_ok(&st->active_bytes[k], active[k]) ||
            !stat_ok(&st->reserved_bytes[k], reserved[k]))
            return -EDOM;
    return stat_ok(&st->allocations, live) && stat_ok(&st->segments, segs) ? 0 : -EDOM;
}

int ca_check(const ca_allocator_t *a)
{
    if (!a)
        return -EINVAL;
    seen_set_t s = { NULL, 0 };
    int rc = gather_seen(a, &s);
    if (rc == 0)
        rc = check_segments(&s);
    if (rc == 0)
        rc = check_places(&s);
    if (rc == 0)
        rc = check_free_sets(a, &s);
    if (rc == 0)
        rc = check_stats(a, &s);
    free(s.v);
    return rc;
}

ca_block_t *ca_test_block(ca_allocator_t *a, const void *addr)
{
    if (!a)
        return NULL;
    ca_block_t *b = ca_ptrmap_get(&a->live, (uintptr_t)addr);
    for (int p = 0; p < 2 && !b; p++)
        for (size_t i = 0; i < a->pool[p].n && !b; i++)
            if (a->pool[p].v[i]->addr == (uintptr_t)addr)
                b = a->pool[p].v[i];
    for (size_t i = 0; i < a->npending && !b; i++)
        if (a->pending[i].block->addr == (uintptr_t)addr)
            b = a->pending[i].block;
    return b;
}
