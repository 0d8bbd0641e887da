/* Lab 09 tests, Part D: the scheduler step: first-come-first-served admission under the block
 * budget and the watermark, decoding, preemption of the request admitted last, parallel
 * sampling, and random workloads that must run to completion. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm_call.h"
#include "scheduler.h"
#include "support.h"

static kv_sched_t *open_sched(kv_cache_t *c, uint32_t max_seqs)
{
    kv_sched_t *s = NULL;
    kv_sched_config_t cfg = { max_seqs };
    MM_ASSERT_OK(kv_sched_create(&s, c, &cfg));
    return s;
}

static kv_step_t step(kv_sched_t *s)
{
    kv_step_t st;
    memset(&st, 0xab, sizeof st);
    int rc = kv_sched_step(s, &st);
    MM_CHECK(rc == 0, "kv_sched_step returned %d (%s), expected 0", rc, strerror(-rc));
    return st;
}

/* Asserts a step's counts: admitted, preempted, finished, decoded, running seqs, waiting. */
static void expect_step(kv_step_t st, uint32_t adm, uint32_t pre, uint32_t fin, uint64_t dec,
                        uint32_t seqs, uint32_t waiting, const char *what)
{
    ck_assert_msg(st.admitted == adm && st.preempted == pre && st.finished == fin &&
                  st.decoded == dec && st.running_seqs == seqs && st.waiting == waiting,
                  "%s: admitted %u, preempted %u, finished %u, decoded %llu, running seqs %u, "
                  "waiting %u; expected %u, %u, %u, %llu, %u, %u", what, st.admitted,
                  st.preempted, st.finished, (unsigned long long)st.decoded, st.running_seqs,
                  st.waiting, adm, pre, fin, (unsigned long long)dec, seqs, waiting);
}

static kv_request_t req(uint32_t id, uint32_t n, const kv_token_t *p, uint32_t plen,
                        uint32_t out)
{
    kv_request_t r = { .id = id, .n = n, .prompt_len = plen, .prompt = p };
    for (uint32_t k = 0; k < n; k++)
        r.out_len[k] = out;
    return r;
}

/* kv_sched_submit of a copy of r, and of its prompt, in shared memory (the scheduler keeps the
 * pointers; the test's own copy stays as it is). Returns what kv_sched_submit returned. */
static int submit(kv_sched_t *s, const kv_request_t *r)
{
    kv_request_t *sr = mm_shared_alloc(sizeof *sr);
    *sr = *r;
    if (r->prompt) {
        kv_token_t *p = mm_shared_alloc((r->prompt_len + 1) * sizeof *p);
        memcpy(p, r->prompt, r->prompt_len * sizeof *p);
        sr->prompt = p;
    }
    return kv_sched_submit(s, sr);
}

/* submit() of r[0..n), in order, each of which must be accepted. */
static void submit_all(kv_sched_t *s, const kv_request_t *r, int n)
{
    for (int k = 0; k < n; k++)
        MM_ASSERT_OK(submit(s, &r[k]));
}

/* step(), adding the tokens it decoded to *decoded. */
static kv_step_t step_sum(kv_sched_t *s, uint64_t *decoded)
{
    kv_step_t st = step(s);
    *decoded += st.decoded;
    return st;
}

MM_TEST(test_sched_bad_args)
{
    kv_cache_t *c = open_cache(8, 4, false, KV_HASH_DEFAULT);
    kv_sched_t *s = (kv_sched_t *)&c;
    kv_sched_config_t ok = { 4 }, zero = { 0 };
    MM_ASSERT_ERR(kv_sched_create(NULL, c, &ok), -EINVAL);
    MM_ASSERT_ERR(kv_sched_create(&s, NULL, &ok), -EINVAL);
    MM_ASSERT_ERR(kv_sched_create(&s, c, NULL), -EINVAL);
    MM_ASSERT_ERR(kv_sched_create(&s, c, &zero), -EINVAL);
    ck_assert_msg(s == (kv_sched_t *)&c, "a failed kv_sched_create must leave *out untouched");
    s = open_sched(c, 4);
    kv_token_t p[4] = { 1, 2, 3, 4 };
    kv_request_t good = req(1, 2, p, 4, 3), bad[7];
    for (int k = 0; k < 7; k++)
        bad[k] = good;
    bad[0].n = 0;
    bad[1].n = KV_MAX_SAMPLES + 1;
    bad[2].n = 5; /* above max_seqs */
    bad[3].prompt = NULL;
    bad[4].prompt_len = 0;
    bad[5].out_len[1] = 0;
    bad[6].out_len[0] = KV_MAX_SEQ_LEN;
    for (int k = 0; k < 7; k++)
        MM_CHECK(submit(s, &bad[k]) == -EINVAL, "bad request %d was accepted", k);
    MM_ASSERT_ERR(submit(NULL, &good), -EINVAL);
    MM_ASSERT_ERR(kv_sched_submit(s, NULL), -EINVAL);
    MM_ASSERT_ERR(kv_sched_step(NULL, NULL), -EINVAL);
    ck_assert_msg(kv_sched_idle(NULL), "kv_sched_idle(NULL): true (no scheduler, nothing to do)");
    ck_assert_msg(kv_sched_idle(s), "nothing accepted: idle");
    MM_ASSERT_OK(submit(s, &good));
    ck_assert_msg(!kv_sched_idle(s), "a waiting request: not idle");
    kv_sched_destroy(s);
    kv_sched_destroy(NULL);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_sched_admits_fcfs_under_budget)
{
    kv_cache_t *c = open_cache(20, 4, false, KV_HASH_DEFAULT); /* watermark: 20 * 1% = 0 blocks */
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t p[32];
    iota(p, 32, 1);
    kv_request_t r[4] = { req(0, 1, p, 30, 1), req(1, 1, p, 30, 1), req(2, 1, p, 20, 1),
                          req(3, 1, p, 1, 1) };
    submit_all(s, r, 4);
    expect_step(step(s), 2, 0, 0, 0, 2, 2,
                "step 1: 8 + 8 blocks fit in 20; the third needs 5 of the 4 left, and the "
                "fourth waits behind it (no skipping)");
    expect_counts(c, 4, 0, 16, "after step 1");
    expect_step(step(s), 2, 0, 2, 2, 2, 0,
                "step 2: both decode their one token and finish; then the other two are "
                "admitted");
    expect_step(step(s), 0, 0, 2, 2, 0, 0, "step 3: the last two finish");
    ck_assert_msg(kv_sched_idle(s), "all done: idle");
    expect_counts(c, 20, 0, 0, "every block back");
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_sched_watermark)
{
    kv_token_t p[800];
    iota(p, 800, 1);
    kv_request_t r = req(0, 1, p, 796, 1); /* 199 blocks of 4 */
    uint32_t nb[3] = { 199, 200, 201 }, admitted[3] = { 0, 0, 1 };
    for (int k = 0; k < 3; k++) { /* watermark: 1, 2, 2 blocks */
        kv_cache_t *c = open_cache(nb[k], 4, false, KV_HASH_DEFAULT);
        kv_sched_t *s = open_sched(c, 8);
        MM_ASSERT_OK(submit(s, &r));
        kv_step_t st = step(s);
        MM_CHECK(st.admitted == admitted[k], "%u blocks, watermark %u%% of them: a prompt of "
                 "199 blocks is %sadmitted", nb[k], KV_SCHED_WATERMARK_PCT,
                 admitted[k] ? "" : "not ");
        kv_sched_destroy(s);
        kv_destroy(c);
    }
}
MM_END_TEST

MM_TEST(test_sched_max_seqs)
{
    kv_cache_t *c = open_cache(64, 4, false, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 4);
    kv_token_t p[4] = { 1, 2, 3, 4 };
    kv_request_t r[2] = { req(0, 4, p, 4, 2), req(1, 1, p, 4, 1) };
    submit_all(s, r, 2);
    expect_step(step(s), 1, 0, 0, 0, 4, 1, "step 1: four samples fill max_seqs = 4");
    expect_step(step(s), 0, 0, 0, 4, 4, 1, "step 2: one token each, still 4 sequences");
    expect_step(step(s), 1, 0, 1, 4, 1, 0, "step 3: the four finish; the next is admitted");
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_sched_preempts_last_admitted)
{
    kv_cache_t *c = open_cache(4, 4, false, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t p[4] = { 1, 2, 3, 4 };
    kv_request_t r[4];
    for (uint32_t k = 0; k < 4; k++) {
        r[k] = req(k, 1, p, 4, 4);
        MM_ASSERT_OK(submit(s, &r[k]));
    }
    expect_step(step(s), 4, 0, 0, 0, 4, 0, "step 1: four one-block prompts fill the 4 blocks");
    expect_step(step(s), 0, 2, 0, 2, 2, 2,
                "step 2: the first needs a block: the last admitted (4th) is preempted; the "
                "second too: the 3rd is preempted");
    for (int k = 3; k <= 4; k++)
        expect_step(step(s), 0, 0, 0, 2, 2, 2, "steps 3-4: two decode into their new blocks");
    expect_step(step(s), 2, 0, 2, 2, 2, 0, "step 5: both finish, the preempted two come back");
    ck_assert_msg(kv_seq_len(c, 0) == 4 && kv_seq_len(c, 1) == 4,
                  "the requeued requests start over from their prompts");
    int steps = 5;
    while (!kv_sched_idle(s) && steps++ < 50)
        step(s);
    ck_assert_msg(steps == 9, "all done after 9 steps (got %d)", steps);
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_sched_preempts_itself)
{
    kv_cache_t *c = open_cache(3, 2, false, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t p[2] = { 1, 2 };
    kv_request_t r[2] = { req(0, 1, p, 2, 3), req(1, 1, p, 2, 3) };
    submit_all(s, r, 2);
    expect_step(step(s), 2, 0, 0, 0, 2, 0, "step 1: both admitted (2 of 3 blocks)");
    expect_step(step(s), 1, 1, 0, 1, 2, 0,
                "step 2: the first takes the last block; the second, admitted last, preempts "
                "itself, and is admitted again into its freed block");
    expect_step(step(s), 1, 1, 0, 1, 2, 0,
                "step 3: the first writes into its second block; the second needs a block "
                "again and preempts itself again");
    expect_step(step(s), 1, 1, 1, 1, 1, 0,
                "step 4: the first needs a block: the second is preempted; the first finishes "
                "(3 tokens); the second is admitted again");
    int steps = 4;
    while (!kv_sched_idle(s) && steps++ < 50)
        step(s);
    ck_assert_msg(steps == 7, "all done after 7 steps (got %d)", steps);
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

/* A preempted request goes back to the HEAD of the waiting queue, ahead of one already waiting. */
MM_TEST(test_sched_requeues_preempted_at_head)
{
    kv_cache_t *c = open_cache(3, 4, false, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t pa[4], pb[4], pc[8];
    iota(pa, 4, 10);
    iota(pb, 4, 20);
    iota(pc, 8, 30);
    kv_request_t r[3] = { req(0, 1, pa, 4, 4), req(1, 1, pb, 4, 4), req(2, 1, pc, 8, 1) };
    submit_all(s, r, 3);
    expect_step(step(s), 2, 0, 0, 0, 2, 1,
                "step 1: A and B take a block each; C needs 2 of the 1 left and waits");
    expect_step(step(s), 1, 1, 0, 1, 2, 1,
                "step 2: A takes the last block; B needs one and preempts itself; B goes back "
                "to the queue's HEAD, ahead of C, and is admitted into its freed block (C, "
                "needing 2 blocks, still waits)");
    expect_tokens(c, 1, pb, 4, "seq 1 after step 2: B again, from its prompt");
    int steps = 2;
    uint32_t finished = 0;
    while (!kv_sched_idle(s) && steps++ < 50)
        finished += step(s).finished;
    ck_assert_msg(finished == 3, "all three finish (got %u in %d steps)", finished, steps);
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

/* want[0..plen) = the prompt, then sample k of request id's first `out` output tokens. */
static void prompt_and_output(kv_token_t *want, const kv_token_t *p, uint32_t plen, uint32_t id,
                              uint32_t k, uint32_t out)
{
    memcpy(want, p, plen * sizeof *p);
    for (uint32_t i = 0; i < out; i++)
        want[plen + i] = kv_gen_token(id, k, i);
}

/* Runs s to the end; returns the steps taken (at most 50) and adds up decoded tokens and
 * preemptions. */
static int run_out(kv_sched_t *s, int steps, uint64_t *decoded, uint32_t *preempted)
{
    while (!kv_sched_idle(s) && steps++ < 50)
        *preempted += step_sum(s, decoded).preempted;
    return steps;
}

/* Recompute keeps the output: the victim comes back as prompt + the tokens it produced, and the
 * full blocks it had filled are found again in the prefix cache. */
MM_TEST(test_sched_recompute_keeps_output)
{
    kv_cache_t *c = open_cache(5, 4, true, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t pa[4], pb[4], want[8];
    iota(pa, 4, 10);
    iota(pb, 4, 20);
    kv_request_t r[2] = { req(0, 1, pa, 4, 8), req(1, 1, pb, 4, 8) };
    uint64_t decoded = 0;
    uint32_t preempted = 0;
    submit_all(s, r, 2);
    for (int k = 1; k <= 5; k++)
        step_sum(s, &decoded); /* A and B: prompt block + 4 tokens in a second block */
    expect_step(step_sum(s, &decoded), 1, 1, 0, 1, 2, 0,
                "step 6: A takes the last free block; B needs one and preempts itself; its two "
                "full blocks wait in the LRU list and it is admitted again at once");
    prompt_and_output(want, pb, 4, 1, 0, 4);
    expect_tokens(c, 1, want, 8, "seq 1 after step 6: B's prompt and the 4 tokens it produced");
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.prefix_hits == 2, "B's re-admission finds both its full blocks in the cache "
                  "(prefix_hits %llu, expected 2)", (unsigned long long)st.prefix_hits);
    int steps = run_out(s, 6, &decoded, &preempted);
    ck_assert_msg(steps == 12 && preempted == 2 && decoded == 16,
                  "B is preempted again at steps 7 and 8, then decodes its last 4 tokens after A "
                  "finishes at step 9: 12 steps, 16 tokens decoded once each (got %d steps, %u "
                  "more preemptions, %llu tokens)", steps, preempted, (unsigned long long)decoded);
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

/* A preempted request with n = 2 comes back as two sequences, prompt + each sample's output,
 * sharing the prompt's full blocks through the prefix cache (no fork). */
MM_TEST(test_sched_readmits_samples_through_prefix_cache)
{
    kv_cache_t *c = open_cache(6, 4, true, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t pa[4], pr[8], want[12];
    iota(pa, 4, 100);
    iota(pr, 8, 200);
    kv_request_t r[2] = { req(0, 1, pa, 4, 5), req(1, 2, pr, 8, 8) };
    uint64_t decoded = 0;
    uint32_t preempted = 0;
    submit_all(s, r, 2);
    for (int k = 1; k <= 5; k++)
        step_sum(s, &decoded); /* blocks: A 0, 3; R's prompt 1, 2; samples 4, 5 */
    expect_step(step_sum(s, &decoded), 1, 1, 1, 1, 2, 0,
                "step 6: A needs a block: R is preempted; A evicts R's sample-0 block 4 and "
                "finishes; R (3 + 3 blocks asked, 6 free + cached) is admitted again");
    TABLE(c, 0, "sample 0 again: the prompt's blocks from the cache, its own output refilled "
          "into the free block", 1, 2, 4);
    TABLE(c, 1, "sample 1 again: the prompt's blocks and its own output block, all from the "
          "cache", 1, 2, 5);
    for (int32_t k = 0; k < 2; k++) {
        prompt_and_output(want, pr, 8, 1, (uint32_t)k, 4);
        expect_tokens(c, k, want, 12, "a re-admitted sample: prompt + its 4 tokens");
    }
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.shared_blocks == 2 && st.prefix_hits == 5,
                  "the prompt's 2 blocks shared by both samples, 5 blocks found in the cache "
                  "(got %u shared, %llu hits)", st.shared_blocks,
                  (unsigned long long)st.prefix_hits);
    int steps = run_out(s, 6, &decoded, &preempted);
    ck_assert_msg(steps == 10 && preempted == 0 && decoded == 21,
                  "R's samples decode their last 4 tokens in steps 7-10: 21 tokens decoded once "
                  "each (got %d steps, %llu tokens)", steps, (unsigned long long)decoded);
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

MM_TEST(test_sched_parallel_sampling_shares_prompt)
{
    kv_cache_t *c = open_cache(64, 4, false, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 64);
    kv_token_t p[11];
    iota(p, 10, 1);
    kv_request_t r = req(7, 4, p, 10, 3);
    MM_ASSERT_OK(submit(s, &r));
    step(s);
    kv_stats_t st = stats_of(c);
    ck_assert_msg(st.seqs == 4 && st.used_blocks == 3 && st.shared_blocks == 3 &&
                  st.logical_blocks == 12,
                  "n = 4 after admission: one prompt (3 blocks) shared by 4 sequences");
    step(s);
    st = stats_of(c);
    ck_assert_msg(st.cow_copies == 3 && st.used_blocks == 6,
                  "each sample's first token: three copies of the shared partial block, the "
                  "last writer has it alone (got %llu copies, %u blocks)",
                  (unsigned long long)st.cow_copies, st.used_blocks);
    for (int32_t k = 0; k < 4; k++) {
        p[10] = kv_gen_token(7, (uint32_t)k, 0);
        expect_tokens(c, k, p, 11, "sample k is sequence k: prompt + its first token");
    }
    kv_sched_destroy(s);
    kv_destroy(c);
}
MM_END_TEST

/* For a failure message: the cache's free and cached blocks, and the most blocks any of the n
 * requests' prompts needs now (kv_blocks_needed), and whose. Returns buf. */
static const char *cache_room(const kv_cache_t *c, const kv_request_t *r, int n, char *buf,
                              size_t cap)
{
    int64_t most = -1;
    int which = -1;
    for (int k = 0; k < n; k++) {
        int64_t need = kv_blocks_needed(c, r[k].prompt, r[k].prompt_len);
        if (need > most) {
            most = need;
            which = k;
        }
    }
    kv_stats_t cs = stats_of(c);
    snprintf(buf, cap, "the cache has %u free + %u cached blocks of %u; any prompt of this test "
             "needs at most %lld of them now (kv_blocks_needed of request %d's)",
             cs.free_blocks, cs.cached_blocks, cs.num_blocks, (long long)most, which);
    return buf;
}

/* Random requests (shared prefixes, n up to 4) on a small cache: every request finishes, the
 * cache ends empty, and decoding does exactly the work asked (preemption repeats none of it). */
MM_TEST(test_sched_random_runs_to_completion)
{
    mm_rng_t rng = MM_RNG();
    enum { NREQ = 120 };
    kv_cache_t *c = open_cache(96, 4, true, KV_HASH_DEFAULT);
    kv_sched_t *s = open_sched(c, 16);
    kv_token_t *tok = calloc(NREQ * 64, sizeof *tok), pre[32];
    kv_request_t *r = calloc(NREQ, sizeof *r);
    uint32_t arrive[NREQ], at = 0;
    uint64_t asked = 0, decoded = 0, finished = 0, preempted = 0;
    ck_assert_msg(tok && r, "test out of memory");
    iota(pre, 32, 1000);
    for (int k = 0; k < NREQ; k++) {
        uint32_t plen = (uint32_t)mm_rng_range(&rng, 1, 64), shared = (uint32_t)mm_rng_range(&rng, 0, 32);
        kv_token_t *p = tok + k * 64;
        for (uint32_t i = 0; i < plen; i++)
            p[i] = i < shared ? pre[i] : (kv_token_t)mm_rng_range(&rng, 0, 31999);
        r[k] = req((uint32_t)k, (uint32_t)mm_rng_range(&rng, 1, 4), p, plen, 1);
        for (uint32_t j = 0; j < r[k].n; j++)
            asked += r[k].out_len[j] = (uint32_t)mm_rng_range(&rng, 1, 64);
        arrive[k] = at += (uint32_t)mm_rng_range(&rng, 0, 3);
    }
    int next = 0, steps = 0;
    char room[300];
    while (next < NREQ || !kv_sched_idle(s)) {
        while (next < NREQ && arrive[next] <= (uint32_t)steps) {
            int rc = submit(s, &r[next++]);
            MM_CHECK(rc == 0, "kv_sched_submit of request %d returned %d", next - 1, rc);
        }
        kv_step_t st = step(s);
        MM_CHECK(st.running_seqs <= 16, "step %d: %u sequences running, max_seqs is 16", steps,
                 st.running_seqs);
        decoded += st.decoded;
        finished += st.finished;
        preempted += st.preempted;
        MM_CHECK(++steps < 100000, "the workload did not finish in 100000 steps. After the last "
                 "step: %u requests waiting, %u running (%u sequences, max_seqs 16); it "
                 "admitted %u, preempted %u, decoded %llu; %llu of %d requests finished; %s; "
                 "the watermark is 0 and n <= 4: with nothing running, the queue's head always "
                 "fits",
                 st.waiting, st.running_reqs, st.running_seqs, st.admitted, st.preempted,
                 (unsigned long long)st.decoded, (unsigned long long)finished, NREQ,
                 cache_room(c, r, NREQ, room, sizeof room));
    }
    ck_assert_msg(finished == NREQ, "%llu requests finished of %d", (unsigned long long)finished,
                  NREQ);
    ck_assert_msg(preempted > 0, "the workload is made to preempt; none happened");
    ck_assert_msg(decoded == asked, "decoded %llu tokens for %llu asked, with %llu preemptions: "
                  "a preempted request keeps its output, so each token is decoded once",
                  (unsigned long long)decoded, (unsigned long long)asked,
                  (unsigned long long)preempted);
    kv_stats_t cs = stats_of(c);
    ck_assert_msg(cs.seqs == 0 && cs.used_blocks == 0, "the cache ends with nothing in use");
    kv_sched_destroy(s);
    kv_destroy(c);
    free(tok);
    free(r);
}
MM_END_TEST
