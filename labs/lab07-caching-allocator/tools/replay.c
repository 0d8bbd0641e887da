/* Lab 07: `build/labs/lab07-caching-allocator/replay` replays the GPT-2 training trace on your
 * allocator over a simulated 16 GiB device and prints, step by step, the raw calls it made and
 * where its memory went: the numbers behind "reserved but unallocated". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "allocator.h"
#include "simdev.h"
#include "trace.h"

#define STEPS 5
#define MIB (1024.0 * 1024.0)

static double mib(uint64_t b)
{
    return (double)b / MIB;
}

static void print_step(const char *name, const ca_allocator_t *a, const ca_simdev_t *d,
                       uint64_t calls)
{
    ca_stats_t s;
    ca_simdev_stats_t ds;
    ca_get_stats(a, &s);
    ca_simdev_stats(d, &ds);
    printf("%-7s %9llu %10.0f %10.0f %10.0f %12.0f %9llu\n", name, (unsigned long long)calls,
           mib(s.allocated_bytes[CA_STAT_ALL].peak), mib(s.reserved_bytes[CA_STAT_ALL].peak),
           mib(s.allocated_bytes[CA_STAT_ALL].current), mib(s.reserved_bytes[CA_STAT_ALL].current),
           (unsigned long long)s.segments.current);
}

static int run(const ca_trace_t *t, ca_allocator_t *a, ca_simdev_t *d, void **slots)
{
    printf("%-7s %9s %10s %10s %10s %12s %9s\n", "phase", "raw calls", "peak alloc",
           "peak resv", "alloc now", "reserved now", "segments");
    for (unsigned k = 0; k <= t->nsteps; k++) {
        ca_simdev_stats_t before, after;
        ca_simdev_stats(d, &before);
        ca_reset_peak_stats(a);
        size_t bad = 0;
        int rc = ca_trace_replay(t, t->step_begin[k], t->step_begin[k + 1], a, slots, &bad);
        if (rc != 0) {
            printf("op %zu failed: %s\n", bad, strerror(-rc));
            return 1;
        }
        ca_simdev_stats(d, &after);
        char name[16];
        snprintf(name, sizeof name, k ? "step %u" : "setup", k);
        print_step(name, a, d, after.alloc_calls + after.free_calls - before.alloc_calls -
                                   before.free_calls);
    }
    return 0;
}

int main(void)
{
    ca_trace_t t;
    ca_simdev_config_t cfg = { (size_t)16 << 30, 0, 0 };
    ca_simdev_t *d = NULL;
    ca_allocator_t *a = NULL;
    ca_backend_t be;
    if (ca_trace_transformer(&t, &CA_GPT2_SMALL, STEPS) != 0 || ca_simdev_create(&d, &cfg) != 0)
        return 2;
    ca_simdev_backend(d, &be);
    void **slots = calloc(t.nslots, sizeof *slots);
    int rc = ca_create(&a, &be);
    if (rc != 0 || !slots) {
        printf("ca_create failed: %s\n", strerror(rc ? -rc : ENOMEM));
        return 1;
    }
    printf("GPT-2 small, batch 4 x 512, fp32 + Adam: %zu trace ops per step (%zu in step 1, "
           "which creates Adam's states), parameters %.0f MiB, live tensors peak at %.0f MiB\n"
           "(sizes in MiB; peaks per phase)\n", t.step_begin[STEPS + 1] - t.step_begin[STEPS],
           t.step_begin[2] - t.step_begin[1], mib(t.param_bytes), mib(t.peak_live));
    rc = run(&t, a, d, slots);
    ca_simdev_stats_t ds;
    ca_simdev_stats(d, &ds);
    printf("device: peak %.0f MiB held; reserved beyond the live tensors' peak: %.0f MiB\n",
           mib(ds.peak_bytes), mib(ds.peak_bytes) - mib(t.peak_live));
    ca_stats_t s;
    if (rc == 0 && ca_get_stats(a, &s) == 0)
        printf("now, between steps: %.0f MiB allocated, %.0f MiB reserved (small pool %.1f of "
               "%.1f, large pool %.0f of %.0f)\n", mib(s.allocated_bytes[CA_STAT_ALL].current),
               mib(s.reserved_bytes[CA_STAT_ALL].current),
               mib(s.allocated_bytes[CA_STAT_SMALL].current),
               mib(s.reserved_bytes[CA_STAT_SMALL].current),
               mib(s.allocated_bytes[CA_STAT_LARGE].current),
               mib(s.reserved_bytes[CA_STAT_LARGE].current));
    ca_destroy(a);
    ca_simdev_destroy(d);
    free(slots);
    ca_trace_free(&t);
    return rc;
}
