/* Lab 07 tests: shared set-up and patterns (see support.h). */
#include "support.h"
#include <check.h>
#include <errno.h>
#include <string.h>
#include "host.h"
#include "mm_check.h"

void td_open_cfg(td_t *t, const ca_simdev_config_t *cfg)
{
    ca_backend_t be;
    memset(t, 0, sizeof *t);
    ck_assert_msg(ca_simdev_create(&t->dev, cfg) == 0, "could not create the simulated device");
    ca_simdev_backend(t->dev, &be);
    t->id = host_attach(&be);
    ck_assert_msg(t->id >= 0, "too many simulated devices at once");
    MM_ASSERT_OK(host_backend(t->id, 0, &t->be));
    MM_ASSERT_OK(ca_create(&t->a, t->be));
    ck_assert_msg(t->a != NULL, "ca_create returned 0 but no allocator");
}

void td_open(td_t *t, size_t capacity)
{
    ca_simdev_config_t cfg = { capacity, 0, 1 };
    td_open_cfg(t, &cfg);
}

void td_close(td_t *t)
{
    if (t->a)
        ca_destroy(t->a);
    host_detach(t->id);
    ca_simdev_destroy(t->dev);
    memset(t, 0, sizeof *t);
}

ca_simdev_stats_t td_dev(const td_t *t)
{
    ca_simdev_stats_t s;
    ca_simdev_stats(t->dev, &s);
    return s;
}

ca_stats_t td_stats(const td_t *t)
{
    ca_stats_t s;
    memset(&s, 0xff, sizeof s);
    MM_ASSERT_OK(ca_get_stats(t->a, &s));
    return s;
}

void *td_alloc(td_t *t, size_t size, ca_stream_t stream)
{
    void *p = NULL;
    int rc = ca_alloc(t->a, size, stream, &p);
    ck_assert_msg(rc == 0, "ca_alloc(%zu bytes, stream %u) returned %d (%s)", size, stream, rc,
                  strerror(-rc));
    ck_assert_msg((uintptr_t)p % CA_MIN_BLOCK == 0, "ca_alloc(%zu) = %p: not 512-byte aligned",
                  size, p);
    ck_assert_msg(ca_simdev_owns(t->dev, p, size),
                  "ca_alloc(%zu) = %p: not inside a segment the device handed out", size, p);
    return p;
}

void td_free(td_t *t, void *p)
{
    MM_ASSERT_OK(ca_free(t->a, p));
}

void td_reuse_each_size(ca_allocator_t *a, const size_t *size, int n, td_raw_calls_t raw_calls,
                        const void *dev)
{
    for (int i = 0; i < n; i++) {
        void *p = NULL;
        unsigned long long before = raw_calls(dev);
        MM_ASSERT_OK(ca_alloc(a, size[i], 0, &p));
        unsigned long long after = raw_calls(dev);
        MM_ASSERT_OK(ca_free(a, p));
        if (after != before)
            ck_abort_msg("size %zu (block %d of %d) again, alone, after all were freed: its own "
                         "segment is free, yet the allocator called the back end", size[i], i, n);
    }
}

#define EDGE (16 * KIB)

static unsigned char pattern(uint32_t tag, size_t i)
{
    uint64_t x = (uint64_t)tag * 0x9E3779B97F4A7C15ull + i / 8;
    return (unsigned char)((x ^ (x >> 29)) >> (8 * (i % 8)));
}

static void fill_range(unsigned char *p, size_t from, size_t to, uint32_t tag)
{
    for (size_t i = from; i < to; i++)
        p[i] = pattern(tag, i);
}

static int check_range(const unsigned char *p, size_t from, size_t to, uint32_t tag)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != pattern(tag, i))
            return 0;
    return 1;
}

/* The patterns are written into the harness's own device memory, never before the device has
 * said that the block lies in a region it handed out. */
static void assert_device(const td_t *t, const void *p, size_t n)
{
    ck_assert_msg(ca_simdev_owns(t->dev, p, n), "%p (%zu bytes): not inside a segment the device "
                  "handed out", p, n);
}

void td_fill(const td_t *t, void *p, size_t n, uint32_t tag)
{
    assert_device(t, p, n);
    if (n <= 4 * EDGE) {
        fill_range(p, 0, n, tag);
        return;
    }
    fill_range(p, 0, EDGE, tag);
    fill_range(p, n - EDGE, n, tag);
}

int td_intact(const td_t *t, const void *p, size_t n, uint32_t tag)
{
    assert_device(t, p, n);
    if (n <= 4 * EDGE)
        return check_range(p, 0, n, tag);
    return check_range(p, 0, EDGE, tag) && check_range(p, n - EDGE, n, tag);
}
