/* Lab 12: the kernel emulator's counts for access patterns whose answer is known by hand (one
 * JSON object a line: the probe, its parameter, the counts). grader/tests/test_lab12_kemu.py
 * checks them against the hand-computed figures of README.md, section 2.5. */
#include <stdio.h>
#include <stdlib.h>
#include "kemu.h"
#include "probes.h"

typedef struct {
    int stride, mode;
    void *in, *out;
} probe_args_t;

static void load_f32(void *p)
{
    probe_args_t *a = p;
    probe_load_f32(a->in, a->out, a->stride);
}

static void load_f64(void *p)
{
    probe_args_t *a = p;
    probe_load_f64(a->in, a->out, a->stride);
}

static void shared(void *p)
{
    probe_args_t *a = p;
    probe_shared(a->out, a->stride);
}

static void shuffle(void *p)
{
    probe_args_t *a = p;
    probe_shuffle(a->out, a->mode);
}

static void shuffle_undefined(void *p)
{
    probe_args_t *a = p;
    probe_shuffle_undefined(a->out, a->mode);
}

static void print(const char *name, int param, int rc, const kemu_stats_t *st, const int *sums)
{
    printf("{\"probe\": \"%s\", \"param\": %d, \"rc\": %d, \"gld_requests\": %llu, "
           "\"gld_sectors\": %llu, \"gst_requests\": %llu, \"gst_sectors\": %llu, "
           "\"sld_requests\": %llu, \"sld_wavefronts\": %llu, \"sst_requests\": %llu, "
           "\"sst_wavefronts\": %llu, \"dram_bytes\": %llu, \"barriers\": %llu, "
           "\"shuffles\": %llu, \"faults\": %llu, \"sum0\": %d, \"sum1\": %d, "
           "\"error\": \"%s\"}\n",
           name, param, rc, (unsigned long long)st->gld.requests,
           (unsigned long long)st->gld.sectors, (unsigned long long)st->gst.requests,
           (unsigned long long)st->gst.sectors, (unsigned long long)st->sld.requests,
           (unsigned long long)st->sld.wavefronts, (unsigned long long)st->sst.requests,
           (unsigned long long)st->sst.wavefronts, (unsigned long long)st->dram_bytes,
           (unsigned long long)st->barriers, (unsigned long long)st->shuffles,
           (unsigned long long)st->faults, sums ? sums[0] : 0, sums ? sums[1] : 0, st->error);
}

/* One probe run: `threads` threads in one block over in (in_bytes) and out (out_bytes). */
static void run(const char *name, void (*body)(void *), probe_args_t *a, size_t in_bytes,
                size_t out_bytes, unsigned threads, int param, int sums)
{
    kemu_span_t spans[2] = {{a->in, in_bytes, 0}, {a->out, out_bytes, 1}};
    kemu_launch_t l = {{1, 1, 1}, {threads, 1, 1}, body, a, spans, a->in ? 2 : 1, NULL};
    if (!a->in)
        spans[0] = spans[1];
    kemu_stats_t st;
    int rc = kemu_run(&l, &st);
    print(name, param, rc, &st, sums ? (const int *)a->out : NULL);
}

int main(void)
{
    static double in[32 * 33 + 8], out[64];
    static const int strides[] = {0, 1, 2, 4, 8, 16, 32, 33};
    for (size_t i = 0; i < sizeof strides / sizeof *strides; i++) {
        probe_args_t f = {strides[i], 0, in, out}, m = {strides[i], 0, (float *)in + 1, out};
        run("load_f32", load_f32, &f, sizeof in, sizeof out, 32, strides[i], 0);
        run("load_f64", load_f64, &f, sizeof in, sizeof out, 32, strides[i], 0);
        run("shared", shared, &(probe_args_t){strides[i], 0, NULL, out}, 0, sizeof out, 32,
            strides[i], 0);
        if (strides[i] == 1)
            run("load_f32_misaligned", load_f32, &m, sizeof in - 4, sizeof out, 32, 1, 0);
    }
    run("shuffle_xor", shuffle, &(probe_args_t){0, 1, NULL, out}, 0, sizeof out, 64, 1, 1);
    run("shuffle_down", shuffle, &(probe_args_t){0, 0, NULL, out}, 0, sizeof out, 64, 0, 1);
    for (int how = 1; how <= 2; how++)
        run("shuffle_undefined", shuffle_undefined, &(probe_args_t){0, how, NULL, out}, 0,
            sizeof out, 32, how, 0);
    return 0;
}
