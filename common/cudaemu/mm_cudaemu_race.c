/* The emulator's race checks and race mode (see mm_cuda_api.h). Happens-before with vector
 * clocks, as ThreadSanitizer does for threads: each stream counts its work items; a stream's
 * clock says, for every stream, the last item known to come before its next one (through event
 * waits, the legacy default stream's ordering, and what the host saw finish before queuing).
 * Two accesses to the same bytes, one a write, from streams that do not order them, race. */
#include <stdio.h>
#include <time.h>
#include "mm_cudaemu_int.h"

void emu_vc_merge(emu_vc_t into, const emu_vc_t from)
{
    for (unsigned i = 0; i < EMU_SLOTS; i++)
        if (from[i] > into[i])
            into[i] = from[i];
}

/* Whether `now` (made with clock vc) and the earlier access `then` race. */
static int conflict(const emu_access_t *then, const emu_access_t *now, const emu_vc_t vc)
{
    return then->slot != now->slot && (then->write || now->write) &&
           then->off < now->off + now->len && now->off < then->off + then->len &&
           vc[then->slot] < then->seq;
}

static const char *stream_name(unsigned slot, char *buf, size_t n)
{
    if (slot == 0)
        return "the default stream";
    snprintf(buf, n, "stream %u", slot);
    return buf;
}

static const char *kind_name(emu_kind_t k)
{
    return k == EMU_DEVICE ? "device buffer"
           : k == EMU_PINNED ? "page-locked host buffer (cudaHostAlloc)"
                             : "registered host buffer (cudaHostRegister)";
}

/* Keeps the first race's description; counts every one. */
static void report(const emu_alloc_t *a, const emu_access_t *now, const emu_access_t *then)
{
    char s1[32], s2[32];
    if (emu.races++ > 0)
        return;
    snprintf(emu.race, sizeof emu.race,
             "%s's %s %s bytes [%zu, %zu) of %s %p (%zu bytes) while %s's %s, %s bytes "
             "[%zu, %zu), may not have finished: nothing orders them (a cudaStreamWaitEvent "
             "on an event recorded after it, or a synchronization, is missing)",
             stream_name(now->slot, s1, sizeof s1), now->what, now->write ? "writes" : "reads",
             now->off, now->off + now->len, kind_name(a->kind), (void *)a->base, a->size,
             stream_name(then->slot, s2, sizeof s2), then->what,
             then->write ? "writing" : "reading", then->off, then->off + then->len);
}

void emu_race_note(const struct CUstream_st *s, emu_alloc_t *a, size_t off, size_t len,
                   int write, const char *what)
{
    emu_access_t now = { s->slot, s->vc[s->slot], off, len, write, what };
    unsigned n = a->n_hist < EMU_HISTORY ? a->n_hist : EMU_HISTORY;
    for (unsigned k = 1; k <= n; k++) { /* the latest first: the likeliest culprit */
        const emu_access_t *then = &a->hist[(a->n_hist - k) % EMU_HISTORY];
        if (conflict(then, &now, s->vc)) {
            report(a, &now, then);
            break;
        }
    }
    a->hist[a->n_hist++ % EMU_HISTORY] = now;
}

unsigned mm_emu_race_report(char *buf, size_t n)
{
    emu_lock();
    unsigned races = emu.races;
    if (buf && n > 0)
        snprintf(buf, n, "%s", emu.race);
    emu_unlock();
    return races;
}

int mm_emu_stream_id(cudaStream_t h)
{
    struct CUstream_st *s = NULL;
    emu_lock();
    int id = emu.ready && emu_stream_of(h, &s) == cudaSuccess ? (int)s->slot : -1;
    emu_unlock();
    return id;
}

void emu_race_delay(struct CUstream_st *s, uint64_t seed, unsigned max_us)
{
    if (!s->rng_ready || s->rng_seed != seed) {
        s->rng = mm_rng_new(seed ^ (0x9E3779B97F4A7C15ull * (s->slot + 1)));
        s->rng_seed = seed;
        s->rng_ready = 1;
    }
    /* Mostly short delays; one item in four stalls its stream for up to max_us, which lets
     * the other streams run ahead. */
    uint64_t cap = mm_rng_range(&s->rng, 0, 3) == 0 ? max_us : max_us / 10;
    uint64_t us = mm_rng_range(&s->rng, 0, cap);
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    if (us > 0)
        nanosleep(&ts, NULL);
}
