/* Lab 02, part C: a set-associative cache simulator with LRU replacement (in the spirit of
 * CS:APP's cache lab, except that an access here may cross lines: each line it touches is one
 * lookup). It counts the hits, misses and evictions a trace of loads would cause in a cache of a
 * given geometry: the hit rates part A's formula needs. */
#ifndef EL_CACHESIM_H
#define EL_CACHESIM_H
#include <stddef.h>
#include <stdint.h>

#define EL_MAX_WAYS 64
#define EL_MAX_ACCESS 4096 /* bytes in one simulated load, at most */

typedef struct el_cache el_cache_t;

typedef struct {
    uint64_t hits;      /* lines found in the cache */
    uint64_t misses;    /* lines brought in */
    uint64_t evictions; /* misses that had to throw a valid line out */
} el_cache_stats_t;

/* Creates an empty cache of `sets` sets (a power of two) of `ways` lines each (1..EL_MAX_WAYS),
 * lines of `line` bytes (a power of two). Memory line L = addr / line lives in set L % sets.
 * Free with el_cache_destroy. Returns 0 and sets *out;
 *   -EINVAL: out is NULL or a size is out of range (*out untouched);
 *   -ENOMEM: out of memory (nothing leaked). */
int el_cache_create(el_cache_t **out, size_t sets, size_t ways, size_t line);

/* Simulates a load of `size` bytes at `addr`. Every line the bytes addr .. addr+size-1 touch is
 * looked up once, lowest address first: a hit makes that line the most recently used of its
 * set; a miss brings it in as the most recently used, and if the set is full the least recently
 * used line is evicted first. Returns the number of lines that missed (0: all hit);
 *   -EINVAL: c is NULL, size is 0 or more than EL_MAX_ACCESS, or addr + size - 1 does not fit
 *            in 64 bits (nothing is counted). */
int el_cache_access(el_cache_t *c, uint64_t addr, size_t size);

/* The counts since creation or the last el_cache_reset_stats; all zero for NULL. */
el_cache_stats_t el_cache_stats(const el_cache_t *c);

/* Zeroes the counts; the cache keeps its contents (used after a warm-up). NULL is ignored. */
void el_cache_reset_stats(el_cache_t *c);

/* Frees everything; NULL is ignored. */
void el_cache_destroy(el_cache_t *c);

#endif
