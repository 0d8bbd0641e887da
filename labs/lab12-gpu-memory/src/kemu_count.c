/* Lab 12: the counting rules of a request (kemu_trace.h), shared by the emulator's recorder
 * (kemu_rec.c) and the harness's trace checker (kemu_check.c). Pure: no state. Provided: not
 * yours to edit. */
#include "kemu_trace.h"

/* Sorts u[0..m) ascending: insertion sort, linear on the nearly sorted addresses of most
 * requests (m is at most 5 x KEMU_WARP). */
static void sort_units(uintptr_t *u, size_t m)
{
    for (size_t i = 1; i < m; i++) {
        uintptr_t x = u[i];
        size_t j = i;
        for (; j > 0 && u[j - 1] > x; j--)
            u[j] = u[j - 1];
        u[j] = x;
    }
}

/* The distinct units (addr / unit) the n accesses touch, sorted into u; their number. Each
 * access's size is taken as 1..16 bytes. */
static size_t units(const uintptr_t *addr, const uint8_t *size, unsigned n, unsigned unit,
                    uintptr_t *u)
{
    size_t m = 0;
    for (unsigned i = 0; i < n && i < KEMU_WARP; i++) {
        unsigned sz = size[i] < 1 ? 1 : size[i] > 16 ? 16 : size[i];
        for (uintptr_t x = addr[i] / unit; x <= (addr[i] + sz - 1) / unit; x++)
            u[m++] = x;
    }
    sort_units(u, m);
    size_t d = 0;
    for (size_t i = 0; i < m; i++)
        if (d == 0 || u[i] != u[d - 1])
            u[d++] = u[i];
    return d;
}

size_t kemu_request_sectors(const uintptr_t *addr, const uint8_t *size, unsigned n,
                            uintptr_t *s)
{
    return units(addr, size, n, KEMU_SECTOR, s);
}

uint64_t kemu_request_wavefronts(const uintptr_t *addr, const uint8_t *size, unsigned n)
{
    uintptr_t w[KEMU_WARP * 5];
    unsigned per_bank[KEMU_BANKS] = {0}, most = 0;
    size_t d = units(addr, size, n, KEMU_BANK_BYTES, w);
    for (size_t i = 0; i < d; i++) {
        unsigned b = (unsigned)(w[i] % KEMU_BANKS);
        if (++per_bank[b] > most)
            most = per_bank[b];
    }
    size_t passes = (d * KEMU_BANK_BYTES + KEMU_WARP * KEMU_BANK_BYTES - 1) /
                    (KEMU_WARP * KEMU_BANK_BYTES);
    return most > passes ? most : passes;
}

size_t kemu_trace_bytes(size_t events)
{
    return sizeof(kemu_trace_t) + events * sizeof(kemu_event_t);
}
