/* Lab 05's double-buffered pipeline as a student writes it, run on the emulated device: chunks go
 * host -> device slot -> transform kernel -> host, on 2 streams through 3 slots. Before a chunk
 * reuses a slot, its stream waits for the event recorded when the slot's previous chunk was
 * copied out. With that wait the output is right in race mode for every seed; without it, race
 * mode makes it wrong for most seeds, and the emulator reports the stream that raced. */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "emu_test.h"
#include "mm_check.h"

#define SLOTS 3
#define STREAMS 2
#define CHUNKS 32
#define WORDS 2048 /* per chunk */
#define ROUNDS 3
#define SEEDS 20
#define LCG_A 1664525u
#define LCG_C 1013904223u

static uint32_t transform_word(uint32_t x)
{
    for (unsigned r = 0; r < ROUNDS; r++)
        x = x * LCG_A + LCG_C;
    return x;
}

typedef struct {
    const uint32_t *in;
    uint32_t *out;
    size_t n;
} transform_arg_t;

/* The transform kernel's host version: out[i] = transform(in[i]). */
static int transform(void *arg)
{
    const transform_arg_t *a = arg;
    const uint32_t *in = mm_emu_view(a->in, a->n * sizeof *in);
    uint32_t *out = mm_emu_view(a->out, a->n * sizeof *out);
    if (!in || !out)
        return 1;
    for (size_t i = 0; i < a->n; i++)
        out[i] = transform_word(in[i]);
    return 0;
}

/* The kernel's launcher, as lab 05's pt_launch_transform would be on the emulator. */
static cudaError_t launch_transform(const uint32_t *in, uint32_t *out, size_t n, cudaStream_t s)
{
    transform_arg_t a = { in, out, n };
    mm_emu_span_t spans[2] = { { in, n * sizeof *in, 0 }, { out, n * sizeof *out, 1 } };
    mm_emu_kernel_t k = { transform, &a, sizeof a, spans, 2, 0 };
    return mm_emu_launch_kernel(s, &k);
}

typedef struct {
    cudaStream_t stream[STREAMS];
    uint32_t *slot[SLOTS];
    cudaEvent_t slot_free[SLOTS]; /* recorded after each copy out of the slot */
} pipe_t;

static cudaError_t pipe_open(pipe_t *p)
{
    cudaError_t e = cudaSuccess;
    memset(p, 0, sizeof *p);
    for (int k = 0; k < SLOTS && e == cudaSuccess; k++) {
        e = cudaMalloc((void **)&p->slot[k], WORDS * sizeof(uint32_t));
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&p->slot_free[k], cudaEventDisableTiming);
    }
    for (int s = 0; s < STREAMS && e == cudaSuccess; s++)
        e = cudaStreamCreateWithFlags(&p->stream[s], cudaStreamNonBlocking);
    return e;
}

static void pipe_close(pipe_t *p)
{
    for (int s = 0; s < STREAMS; s++)
        if (p->stream[s])
            cudaStreamDestroy(p->stream[s]);
    for (int k = 0; k < SLOTS; k++) {
        if (p->slot_free[k])
            cudaEventDestroy(p->slot_free[k]);
        cudaFree(p->slot[k]);
    }
}

/* Chunk i: wait until its slot is free (if asked), copy in, transform in place, copy out, mark
 * the slot free. */
static cudaError_t issue(pipe_t *p, const uint32_t *src, uint32_t *dst, size_t i, int wait)
{
    cudaStream_t s = p->stream[i % STREAMS];
    uint32_t *buf = p->slot[i % SLOTS];
    size_t bytes = WORDS * sizeof *buf;
    cudaError_t e = cudaSuccess;
    if (wait && i >= SLOTS)
        e = cudaStreamWaitEvent(s, p->slot_free[i % SLOTS], 0);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(buf, src + i * WORDS, bytes, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = launch_transform(buf, buf, WORDS, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dst + i * WORDS, buf, bytes, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaEventRecord(p->slot_free[i % SLOTS], s);
    return e;
}

/* What one run of the pipeline gave. */
typedef struct {
    int wrong;        /* words of dst that are not the transform of src */
    unsigned races;   /* races the emulator found */
    char report[600]; /* the first one */
    int racer;        /* mm_emu_stream_id of the second stream, the one that reuses slot 0 */
} outcome_t;

/* Runs the pipeline in race mode with `seed`, in page-locked buffers, as a student would. */
static outcome_t run_pipeline(uint64_t seed, int wait)
{
    outcome_t o = { 0 };
    uint32_t *src = NULL, *dst = NULL;
    pipe_t p;
    et_race_mode(seed);
    ck_assert_int_eq(cudaHostAlloc((void **)&src, CHUNKS * WORDS * sizeof *src, 0), 0);
    ck_assert_int_eq(cudaHostAlloc((void **)&dst, CHUNKS * WORDS * sizeof *dst, 0), 0);
    for (size_t i = 0; i < CHUNKS * WORDS; i++)
        src[i] = (uint32_t)(i * 2654435761u);
    ck_assert_int_eq(pipe_open(&p), cudaSuccess);
    for (size_t i = 0; i < CHUNKS; i++)
        ck_assert_int_eq(issue(&p, src, dst, i, wait), cudaSuccess);
    for (int s = 0; s < STREAMS; s++)
        ck_assert_int_eq(cudaStreamSynchronize(p.stream[s]), cudaSuccess);
    for (size_t i = 0; i < CHUNKS * WORDS; i++)
        o.wrong += dst[i] != transform_word(src[i]);
    o.racer = mm_emu_stream_id(p.stream[1]);
    o.races = mm_emu_race_report(o.report, sizeof o.report);
    pipe_close(&p);
    mm_emu_shutdown();
    return o;
}

MM_TEST_F(test_pipeline_right_in_race_mode, &et_pipeline)
{
    uint64_t base = mm_test_seed();
    for (uint64_t k = 0; k < SEEDS; k++) {
        outcome_t o = run_pipeline(base + k, 1);
        ck_assert_msg(o.wrong == 0 && o.races == 0, "race seed %llu: %d words wrong, %u races "
                      "(%s)", (unsigned long long)(base + k), o.wrong, o.races, o.report);
    }
}
MM_END_TEST

MM_TEST_F(test_pipeline_without_slot_wait_races, &et_pipeline)
{
    uint64_t base = mm_test_seed();
    int wrong_runs = 0;
    char want[100];
    for (uint64_t k = 0; k < SEEDS; k++) {
        outcome_t o = run_pipeline(base + k, 0);
        wrong_runs += o.wrong > 0;
        snprintf(want, sizeof want, "stream %d's cudaMemcpyAsync host-to-device writes", o.racer);
        ck_assert_msg(o.races > 0 && strstr(o.report, want) &&
                      strstr(o.report, "stream 1's cudaMemcpyAsync device-to-host, reading"),
                      "race seed %llu: %u races, report: %s", (unsigned long long)(base + k),
                      o.races, o.report);
    }
    ck_assert_msg(wrong_runs >= SEEDS * 17 / 20, "race mode made the output wrong in only %d "
                  "of %d runs (here: 99%%; without race mode, 50 to 75%%)", wrong_runs, SEEDS);
}
MM_END_TEST
