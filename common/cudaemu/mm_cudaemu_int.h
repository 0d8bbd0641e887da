/* Internals shared by the emulator's files (mm_cudaemu*.c); not for labs, which see only
 * mm_cuda_api.h. One global lock guards the emulator's state; each engine has its own lock,
 * taken by a stream's worker while it runs a work item, never while holding the global one. */
#ifndef MM_CUDAEMU_INT_H
#define MM_CUDAEMU_INT_H
#include <pthread.h>
#include <stdint.h>
#include "mm_cuda_api.h"
#include "mm_rng.h"

#define EMU_SLOTS MM_EMU_MAX_STREAMS /* slot 0: the legacy default stream */
#define EMU_HISTORY 32    /* accesses remembered per tracked allocation, for the race checks */
#define EMU_QUARANTINE 64 /* freed device ranges kept reserved before their addresses return, */
#define EMU_QUARANTINE_BYTES ((size_t)1 << 30) /* at most this much address space in all */
#define EMU_GRANULE 512   /* device memory is counted against the capacity in these units */

/* A vector clock: for each stream slot, the last of its work items known to come before. */
typedef uint64_t emu_vc_t[EMU_SLOTS];

typedef enum { EMU_DEVICE, EMU_PINNED, EMU_REGISTERED } emu_kind_t;
typedef enum { EMU_ENG_H2D, EMU_ENG_D2H, EMU_ENG_COMPUTE, EMU_ENGINES } emu_engine_t;
#define EMU_ENG_NONE EMU_ENGINES /* work that takes no engine (records, waits, host copies) */
typedef enum { EMU_OP_COPY, EMU_OP_MEMSET, EMU_OP_KERNEL, EMU_OP_RECORD, EMU_OP_WAIT } emu_op_t;

/* One remembered access to a tracked allocation. */
typedef struct {
    unsigned slot;    /* the stream slot that made it */
    uint64_t seq;     /* its work item's number in that slot */
    size_t off, len;  /* bytes [off, off + len) of the allocation */
    int write;
    const char *what; /* the operation, for the report (a static string) */
} emu_access_t;

/* Device memory, a cudaHostAlloc block or a registered range. */
typedef struct emu_alloc {
    struct emu_alloc *next;
    emu_kind_t kind;
    char *base;         /* the address the program sees */
    char *view;         /* where the emulator reads and writes it (base, but for device memory) */
    size_t size;        /* bytes asked for */
    size_t mapped;      /* device: bytes mapped at base and at view */
    unsigned flags;     /* cudaHostAlloc or cudaHostRegister flags */
    emu_access_t hist[EMU_HISTORY];
    unsigned n_hist;    /* accesses ever noted (the latest EMU_HISTORY are in hist) */
} emu_alloc_t;

/* A point in a stream's work (an event's record): reached when the stream gets there. */
typedef struct {
    unsigned refs;  /* the event, the record item and each wait item hold one */
    int done;
    uint64_t vtime; /* the model's time when reached */
    emu_vc_t vc;    /* what comes before it */
} emu_mark_t;

/* A work item in a stream's queue. */
typedef struct emu_item {
    struct emu_item *next;
    emu_op_t op;
    emu_engine_t engine;
    uint64_t seq;             /* its number in its slot (1, 2, ...) */
    uint64_t issue_ns;        /* the model's time when the host queued it: set by emu_push,
                                 unless the call set it when it began (before staging) */
    double cost_ns;           /* copies, memsets: modelled duration */
    char *dst;                /* copies, memsets: emulator addresses */
    const char *src;
    size_t bytes;
    int value;
    void *owned;              /* freed after the item ran: a staging buffer, kernel arguments */
    mm_emu_fn_t fn;           /* kernels */
    void *arg;
    double model_ns;
    int failed;               /* the kernel returned non-zero */
    emu_mark_t *mark;         /* records: the mark reached; waits: the mark waited for */
} emu_item_t;

struct CUstream_st {
    unsigned slot, flags;
    pthread_t thread;
    emu_item_t *head, *tail;
    int stop;       /* set by cudaStreamDestroy once the queue is empty */
    emu_vc_t vc;    /* what comes before the next item queued here */
    uint64_t vtime; /* worker only: the model's time its last item ended */
    mm_rng_t rng;   /* worker only: race-mode delays, drawn from rng_seed */
    uint64_t rng_seed;
    int rng_ready;
};

struct CUevent_st {
    struct CUevent_st *next; /* the list of live events */
    unsigned flags;
    emu_mark_t *mark;        /* its latest record, NULL if never recorded */
};

/* An engine: its lock is held by the worker running an item on it. */
typedef struct {
    pthread_mutex_t lock;
    uint64_t vfree; /* under lock: the model's time the engine is free from */
} emu_engine_state_t;

extern emu_engine_state_t emu_engine[EMU_ENGINES];

/* The emulator's state; all under emu_lock() unless marked. */
typedef struct {
    int ready;                           /* set up (emu_begin does it on first use) */
    mm_emu_config_t cfg;
    int configured;                      /* cfg holds the settings (else: read them first) */
    uint64_t t0;                         /* mm_now_ns() at set-up: the model's time 0 */
    struct CUstream_st *stream[EMU_SLOTS];
    uint64_t queued[EMU_SLOTS], done[EMU_SLOTS]; /* items queued and finished, per slot */
    emu_vc_t host_vc;                    /* what the host knows has finished */
    emu_alloc_t *allocs;
    size_t device_used;                  /* bytes counted against the capacity */
    void *quarantine[EMU_QUARANTINE];    /* a ring, oldest at quarantine_head */
    size_t quarantine_len[EMU_QUARANTINE];
    unsigned quarantine_head, quarantine_count;
    size_t quarantine_bytes;
    struct CUevent_st *events;
    cudaError_t sticky;                  /* a failed kernel's error, for every later call */
    unsigned races;
    char race[512];                      /* the first race's description */
} emu_t;

extern emu_t emu;

/* mm_cudaemu.c: the lock, set-up, errors, the clock. */
void emu_lock(void);
void emu_unlock(void);
/* Takes the lock and sets up on first use; returns the error every call must fail with now
 * (no device, a sticky error, a failed set-up), else cudaSuccess. The lock is held either way. */
cudaError_t emu_begin(void);
/* Releases the lock, keeps e as the calling thread's last error if it is one, returns e. */
cudaError_t emu_end(cudaError_t e);
/* Waits on the state-changed condition (lock held); emu_changed wakes every waiter. */
void emu_wait(void);
void emu_changed(void);
/* The model's clock as it reads now in real time: nanoseconds since set-up. */
uint64_t emu_clock_ns(void);

/* mm_cudaemu_stream.c: streams, their workers, the engines. */
/* The stream for handle s (NULL and cudaStreamLegacy: the legacy default stream) into *out.
 * cudaErrorInvalidResourceHandle: not a live stream. */
cudaError_t emu_stream_of(cudaStream_t s, struct CUstream_st **out);
/* Starts a stream in `slot`; 0 or -1 (no memory or no thread). */
int emu_stream_start(unsigned slot, unsigned flags);
/* A zeroed item for `op` on `engine`, or NULL (no memory). */
emu_item_t *emu_item_new(emu_op_t op, emu_engine_t engine);
/* Queues `it` on s, ordered after what the host knows to have finished and, as the legacy
 * default stream requires, after other streams' work; sets it->seq. cudaErrorMemoryAllocation
 * (it is then not queued). */
cudaError_t emu_enqueue(struct CUstream_st *s, emu_item_t *it);
/* Queues `it` on s as it is (no implicit ordering); sets it->seq. */
void emu_push(struct CUstream_st *s, emu_item_t *it);
/* Waits until slot's item `seq` is done, then adds what precedes it (vc) to the host's
 * knowledge; returns the sticky error, if any. */
cudaError_t emu_wait_done(unsigned slot, uint64_t seq, const emu_vc_t vc);
/* Waits for every stream's queued work; the host then knows it finished. */
cudaError_t emu_sync_all(void);
/* Stops and frees every stream (lock held; it is released while joining). */
void emu_streams_teardown(void);

/* mm_cudaemu_event.c: marks and events. */
/* Queues a record item on s, returning its mark with one reference for the caller, or NULL
 * (no memory). `implicit`: 1 to order it as any work (emu_enqueue), 0 to add it as is. */
emu_mark_t *emu_record(struct CUstream_st *s, int implicit);
/* Queues on s a wait for mark m (taking its own reference); cudaErrorMemoryAllocation. */
cudaError_t emu_wait_mark(struct CUstream_st *s, emu_mark_t *m, int implicit);
/* Drops one reference to m (NULL allowed); frees it with the last. */
void emu_mark_put(emu_mark_t *m);
void emu_events_teardown(void);

/* mm_cudaemu_mem.c: the allocation table. */
/* The allocation holding all of [p, p + n) (n >= 1), of kind `kind` (EMU_PINNED matches
 * registered ranges too); NULL if none. */
emu_alloc_t *emu_find(const void *p, size_t n, emu_kind_t kind);
/* Whether any part of [p, p + n) is device memory. */
int emu_touches_device(const void *p, size_t n);
void emu_mem_teardown(void);

/* mm_cudaemu_race.c: happens-before checks and race-mode delays. */
void emu_vc_merge(emu_vc_t into, const emu_vc_t from);
/* Checks the access [off, off + len) of allocation a by the item just queued on s against the
 * remembered accesses of other streams, keeps the first race, then remembers this one. */
void emu_race_note(const struct CUstream_st *s, emu_alloc_t *a, size_t off, size_t len,
                   int write, const char *what);
/* Worker only, without the lock: sleeps a random while, at most max_us microseconds, drawn from
 * s's generator seeded from `seed` and s's slot (race mode). */
void emu_race_delay(struct CUstream_st *s, uint64_t seed, unsigned max_us);

#endif
