/* Lab 09: the default block hash and the token generators. Not yours to edit: the tests, the
 * benchmark and your code all call these. */
#include <stdint.h>
#include "kvcache.h"
#include "scheduler.h"
#include "trace.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_u32(uint64_t h, uint32_t v)
{
    for (int k = 0; k < 4; k++, v >>= 8)
        h = (h ^ (v & 0xffu)) * FNV_PRIME;
    return h;
}

uint64_t kv_hash_default(uint64_t parent, const kv_token_t *tokens, uint32_t n)
{
    uint64_t h = fnv_u32(fnv_u32(FNV_OFFSET, (uint32_t)parent), (uint32_t)(parent >> 32));
    for (uint32_t i = 0; i < n; i++)
        h = fnv_u32(h, (uint32_t)tokens[i]);
    return h;
}

/* A 32-bit mix of three numbers (the finaliser of MurmurHash3, applied twice). */
static uint32_t mix3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9e3779b1u ^ b * 0x85ebca6bu ^ c * 0xc2b2ae35u;
    for (int k = 0; k < 2; k++) {
        h ^= h >> 16;
        h *= 0x85ebca6bu;
        h ^= h >> 13;
        h *= 0xc2b2ae35u;
        h ^= h >> 16;
        h += 0x27d4eb2fu;
    }
    return h;
}

/* A vocabulary of 32000 tokens, as Llama-2's. */
#define VOCAB 32000u

kv_token_t kv_gen_token(uint32_t request, uint32_t s, uint32_t k)
{
    return (kv_token_t)(mix3(request, s + 1u, k) % VOCAB);
}

kv_token_t kv_prefix_token(uint32_t p, uint32_t i)
{
    return (kv_token_t)(mix3(p, 0xfffffff0u, i) % VOCAB);
}

kv_token_t kv_own_token(uint32_t r, uint32_t i)
{
    return (kv_token_t)(mix3(r, 0xffffff00u, i) % VOCAB);
}
