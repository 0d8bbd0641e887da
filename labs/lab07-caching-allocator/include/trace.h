/* Lab 07: the allocation trace of a transformer's training steps (src/trace.c, provided: do not
 * edit), generated deterministically from the model's shape, and its replay on an allocator or
 * straight on a back end (one raw call per tensor: the no-caching baseline). */
#ifndef CA_TRACE_H
#define CA_TRACE_H
#include <stddef.h>
#include <stdint.h>
#include "allocator.h"
#include "backend.h"

#define CA_TRACE_MAX_STEPS 16

typedef enum {
    CA_OP_ALLOC = 0, /* tensor `id` is created: `size` bytes on `stream` */
    CA_OP_FREE = 1,  /* tensor `id` is freed */
    CA_OP_USE = 2    /* tensor `id` is also used on `stream` (record_stream) */
} ca_op_kind_t;

typedef struct {
    uint8_t kind;   /* ca_op_kind_t */
    uint8_t stream;
    uint32_t id;    /* tensor number, 0 .. nslots-1 */
    uint64_t size;
} ca_op_t;

/* A GPT-2-style decoder, trained in fp32 with Adam: sizes in elements, 4 bytes each. */
typedef struct {
    unsigned layers, batch, seq, hidden, heads, vocab;
} ca_model_t;

typedef struct {
    ca_op_t *ops;
    size_t nops;
    size_t nslots;      /* tensors created over the whole trace */
    unsigned nsteps;
    /* ops [step_begin[0], step_begin[1]) create the parameters; step k (1..nsteps) is
     * [step_begin[k], step_begin[k + 1]) */
    size_t step_begin[CA_TRACE_MAX_STEPS + 2];
    uint64_t peak_live;   /* the most bytes live at once (as requested, unrounded) */
    size_t peak_op;       /* the op after which that peak is first reached */
    uint64_t param_bytes; /* parameters; gradients and each Adam state have the same size */
} ca_trace_t;

/* GPT-2 small with a 4 x 512 batch: the workload the benchmark replays. */
extern const ca_model_t CA_GPT2_SMALL;

/* Generates the trace of setup + `steps` training steps (1..CA_TRACE_MAX_STEPS): forward with
 * the tensors autograd saves, backward freeing them in reverse, gradients (set to None after
 * each step, as torch's zero_grad does), Adam states created at the first optimizer step, and
 * each batch's input copied on stream 1 and used on stream 0. Returns 0; -EINVAL; -ENOMEM.
 * Free with ca_trace_free. */
int ca_trace_transformer(ca_trace_t *t, const ca_model_t *m, unsigned steps);

/* Frees the trace's ops; NULL is ignored. */
void ca_trace_free(ca_trace_t *t);

/* Replays ops [begin, end) on allocator a: ALLOC -> ca_alloc into slots[id], FREE -> ca_free,
 * USE -> ca_record_stream. slots has t->nslots entries. Returns 0 or the first error (then
 * *failed_op is that op's index, if failed_op is not NULL). */
int ca_trace_replay(const ca_trace_t *t, size_t begin, size_t end, ca_allocator_t *a,
                    void **slots, size_t *failed_op);

/* The same straight on a back end: raw_alloc of the size rounded up to 512 bytes per ALLOC,
 * raw_free per FREE (what a program without a caching allocator does). */
int ca_trace_replay_raw(const ca_trace_t *t, size_t begin, size_t end, const ca_backend_t *be,
                        void **slots, size_t *failed_op);

#endif
