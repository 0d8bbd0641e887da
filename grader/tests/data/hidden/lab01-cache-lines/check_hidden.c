/* An instructor-only test for lab 01 (example of grader --hidden): counters for odd thread
 * counts and large lines, totals exact. Like the lab's own tests it runs in the harness and
 * calls the student's code across the boundary (common/harness/mm_call.h). */
#include "counters.h"
#include "mm_call.h"
#include "mm_check.h"

MM_TEST(test_hidden_totals_odd_sizes)
{
    mm_rng_t r = MM_RNG();
    unsigned n = 3 + 2 * (unsigned)mm_rng_range(&r, 0, 10);
    cl_counters_t *c = NULL;
    MM_ASSERT_OK(cl_counters_create(&c, n, 256));
    uint64_t want = 0;
    for (unsigned t = 0; t < n; t++) {
        uint64_t k = mm_rng_range(&r, 1, 1000);
        uint64_t *slot = cl_counters_slot(c, t), v = 0; /* the student's memory: peek, poke */
        ck_assert_msg(mm_peek(slot, &v, sizeof v) == 0, "slot %u (%p) cannot be read", t,
                      (void *)slot);
        v += k;
        ck_assert(mm_poke(slot, &v, sizeof v) == 0);
        want += k;
    }
    ck_assert_msg(cl_counters_total(c) == want, "total %llu, expected %llu",
                  (unsigned long long)cl_counters_total(c), (unsigned long long)want);
    cl_counters_destroy(c);
}
MM_END_TEST
