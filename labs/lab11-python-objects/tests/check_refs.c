/* Lab 11 tests, part B: group_by, batches and collate do what they say, and no path of them (nor
 * of TensorBuf's) leaves a reference behind (sys.gettotalrefcount of the debug interpreter).
 * Every object a case hands your code is made at run time (tu_assert_counted): Python 3.12+ does
 * not count references to immortal objects (small ints, None, literals' strings: PEP 683), so a
 * reference leaked to one of those would go unseen. The cases run in your process; what they
 * left behind is counted there (serve/counting.c), which is that process's word, so it can only
 * fail a test: what passes one is the kernel's count. Each case runs again many times on fresh
 * objects of 64 KiB (tu_assert_nothing_kept), and the harness reads your process's resident
 * memory from /proc: a reference leaked to one of them, or to anything that holds one, keeps
 * memory no code in your process can hide without giving it back. What group_by, batches and
 * collate return for inputs drawn from the test's seed, and which exception a case raises, come
 * back as values the harness compares with its own answers. */
#include <stdio.h>
#include "support.h"

/* A case: a callable with no arguments (Python, in the namespace), and the exception it must
 * raise ("" if it must return; class names joined by '|' where any will do). */
typedef struct {
    const char *name, *fn, *raises;
} case_t;

/* Every case first behaves as its contract says (the harness compares the exception it raised,
 * if any, with the one the case names), then leaves no reference behind over many calls. */
static void assert_no_refs_left(const case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tu_expect_raises(cases[i].name, cases[i].raises, "%s", cases[i].fn);
        long left = tu_refs_left(cases[i].fn, 50);
        ck_assert_msg(left == 0, "%s: each call leaves %ld reference(s) behind", cases[i].name,
                      left);
    }
}
#define NO_REFS_LEFT(...) do { \
        static const case_t cases_[] = { __VA_ARGS__ }; \
        assert_no_refs_left(cases_, sizeof cases_ / sizeof cases_[0]); \
    } while (0)

/* The same paths on fresh big objects: a callable of `big` (support.h, tu_kept_kib). */
typedef struct {
    const char *name, *fn;
} big_case_t;

static void assert_nothing_kept(const big_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tu_assert_nothing_kept(cases[i].name, cases[i].fn);
}
#define NOTHING_KEPT(...) do { \
        static const big_case_t cases_[] = { __VA_ARGS__ }; \
        assert_nothing_kept(cases_, sizeof cases_ / sizeof cases_[0]); \
    } while (0)

/* A key function made for each call, holding a big() (its default), that gives each item a
 * harness.BigKey: equal for items of the same first byte, each holding a big() of its own. */
#define BIG_KEY "lambda w, pad=big(7): harness.BigKey(w, big)"

/* Floats in a TensorBuf a case makes: 256 KiB, written, so a leaked one shows past the heap's
 * free space (64 calls: 16 MiB). */
#define BIG_TB_FLOATS 65536

/* Appends "[v[0], ..., v[n - 1]]". */
static void cat_list(tu_text_t *t, const long *v, long n)
{
    tu_cat(t, "[");
    for (long i = 0; i < n; i++)
        tu_cat(t, "%s%ld", i ? ", " : "", v[i]);
    tu_cat(t, "]");
}

/* n ints of lo..hi drawn from r, into v, and as a Python list into t. */
static void pick_ints(mm_rng_t *r, long *v, long n, long lo, long hi, tu_text_t *t)
{
    for (long i = 0; i < n; i++)
        v[i] = lo + (long)mm_rng_range(r, 0, (uint64_t)(hi - lo));
    t->n = 0;
    cat_list(t, v, n);
}

MM_TEST(test_group_by_groups)
{
    mm_rng_t r = MM_RNG();
    long n = (long)mm_rng_range(&r, 5, 30), k = (long)mm_rng_range(&r, 2, 6);
    long xs[30] = { 0 };
    tu_text_t list, want = { .n = 0 };
    pick_ints(&r, xs, n, 0, 999, &list);
    tu_run("xs = %s\ng = pyobj.group_by(xs, lambda x: x %% %ld)\n", list.s, k);
    long keys[6], nkeys = 0;
    for (long i = 0; i < n; i++) { /* the keys in the order they were first seen */
        long j = 0;
        while (j < nkeys && keys[j] != xs[i] % k)
            j++;
        if (j == nkeys)
            keys[nkeys++] = xs[i] % k;
    }
    tu_cat(&want, "{");
    for (long j = 0; j < nkeys; j++) {
        tu_cat(&want, "%s%ld: [", j ? ", " : "", keys[j]);
        for (long i = 0, first = 1; i < n; i++)
            if (xs[i] % k == keys[j]) {
                tu_cat(&want, "%s%ld", first ? "" : ", ", xs[i]);
                first = 0;
            }
        tu_cat(&want, "]");
    }
    tu_cat(&want, "}");
    tu_expect(want.s, "g");
    tu_expect("(True, [True])", "(type(g) is dict, sorted({type(v) is list for v in g.values()}))");
    tu_expect("{}", "pyobj.group_by([], len)");
    long a = (long)mm_rng_range(&r, 1, 99), b = (long)mm_rng_range(&r, 1, 99);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.group_by(%ld, len)", a);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.group_by([[%ld], [%ld]], list)", a, b);
    tu_expect_raises(NULL, "ZeroDivisionError", "lambda: pyobj.group_by([%ld, 0, %ld], "
                     "lambda x: 1 // x)", a, b);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.group_by([%ld])", a);
}
MM_END_TEST

MM_TEST(test_group_by_refcounts)
{
    tu_run("words = 'to be or not to be that is'.split()\n"
          "def length(w):\n"
          "    return harness.mortal_ints(len(w))[0]\n"
          "def gen_fails():\n"
          "    yield words[0]\n"
          "    yield words[1]\n"
          "    raise KeyError('the dataset ran dry')\n");
    tu_assert_counted("words + [length(w) for w in words]");
    NO_REFS_LEFT({ "grouped",
          "lambda: pyobj.group_by(words, length)",
          "" },
        { "key raises",
          "lambda: pyobj.group_by(words, lambda w: 1000 // (len(w) - 3))",
          "ZeroDivisionError" },
        { "unhashable key",
          "lambda: pyobj.group_by(words, lambda w: [w])",
          "TypeError" },
        { "iteration raises",
          "lambda: pyobj.group_by(gen_fails(), length)",
          "KeyError" },
        { "not iterable",
          "lambda: pyobj.group_by(object(), length)",
          "TypeError" },
        { "bad arguments",
          "lambda: pyobj.group_by(words)",
          "TypeError" });
    tu_run("def big_gen(big):\n"
           "    yield big(1)\n"
           "    yield big(2)\n"
           "    raise KeyError(big(3))\n");
    NOTHING_KEPT({ "grouped", "lambda big: pyobj.group_by([big(i % 3) for i in range(6)], "
                   BIG_KEY ")" },
        { "key raises", "lambda big: pyobj.group_by([big(1), big(2)], "
          "lambda w, pad=big(7): pad[len(w) // (w[0] - w[0])])" },
        { "unhashable key", "lambda big: pyobj.group_by([big(1), big(2)], "
          "lambda w, pad=big(7): [w, pad])" },
        { "iteration raises", "lambda big: pyobj.group_by(big_gen(big), " BIG_KEY ")" },
        { "not iterable", "lambda big: pyobj.group_by(lambda pad=big(1): pad, " BIG_KEY ")" },
        { "bad arguments", "lambda big: pyobj.group_by([big(1)])" });
}
MM_END_TEST

/* Python's repr of the batches of k of v[0..n): a list of tuples, the last one short unless
 * drop_last drops it. */
static void cat_batches(tu_text_t *t, const long *v, long n, long k, int drop_last)
{
    t->n = 0;
    tu_cat(t, "[");
    for (long i = 0; i < n; i += k) {
        long m = n - i < k ? n - i : k;
        if (m < k && drop_last)
            break;
        tu_cat(t, "%s", i ? ", " : "");
        tu_cat_tuple(t, v + i, (int)m);
    }
    tu_cat(t, "]");
}

MM_TEST(test_batches_yield_tuples)
{
    mm_rng_t r = MM_RNG();
    long n = (long)mm_rng_range(&r, 1, 20), k = (long)mm_rng_range(&r, 2, 5);
    long xs[20] = { 0 }, seq[20];
    tu_text_t list, want;
    pick_ints(&r, xs, n, 0, 999, &list);
    tu_run("xs = %s\nb = pyobj.batches(xs, %ld)\n", list.s, k);
    tu_expect("True", "iter(b) is b");
    cat_batches(&want, xs, n, k, 0);
    tu_expect(want.s, "list(b)");
    tu_expect("[]", "list(b)"); /* an exhausted iterator stays exhausted */
    cat_batches(&want, xs, n, k, 1);
    tu_expect(want.s, "list(pyobj.batches(xs, %ld, drop_last=True))", k);
    long whole = k * (long)mm_rng_range(&r, 1, 4);
    for (long i = 0; i < whole; i++)
        seq[i] = i;
    cat_batches(&want, seq, whole, k, 0);
    tu_expect(want.s, "list(pyobj.batches(range(%ld), %ld))", whole, k);
    tu_expect("[]", "list(pyobj.batches([], %ld))", k);
    tu_expect("True", "gc.is_tracked(pyobj.batches([], 1))");
    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.batches(range(3), %ld)",
                     -(long)mm_rng_range(&r, 0, 3));
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.batches(%ld, 2)", n);
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.batches(range(3))");
}
MM_END_TEST

MM_TEST(test_batches_refcounts)
{
    tu_run("def source(n, fail_at=None):\n"
          "    for i in range(n):\n"
          "        if i == fail_at:\n"
          "            raise IndexError('sample missing')\n"
          "        yield [i]\n"
          "def cycle():\n"
          "    box = []\n"
          "    b = pyobj.batches(box, 2)\n"
          "    box.append(b)\n");
    tu_assert_counted("source(10)");
    NO_REFS_LEFT({ "all batches",
          "lambda: list(pyobj.batches(source(10), 3))",
          "" },
        { "drop last",
          "lambda: list(pyobj.batches(source(10), 3, True))",
          "" },
        { "dropped early",
          "lambda: next(pyobj.batches(source(10), 4))",
          "" },
        { "source raises mid-batch",
          "lambda: list(pyobj.batches(source(10, 5), 3))",
          "IndexError" },
        { "n < 1",
          "lambda: pyobj.batches(source(3), 0)",
          "ValueError" },
        { "a cycle through the iterator (the GC must see it)",
          "cycle",
          "" });
    tu_run("def big_source(pad, big, n, fail_at=None):\n"
           "    for i in range(n):\n"
           "        if i == fail_at:\n"
           "            raise IndexError(big(9))\n"
           "        yield [big(i)]\n"
           "def big_cycle(big):\n"
           "    box = [big(1)]\n"
           "    b = pyobj.batches(box, 2)\n"
           "    box.append(b)\n");
    NOTHING_KEPT({ "all batches",
          "lambda big: list(pyobj.batches(big_source(big(8), big, 10), 3))" },
        { "drop last", "lambda big: list(pyobj.batches(big_source(big(8), big, 10), 3, True))" },
        { "dropped early", "lambda big: next(pyobj.batches(big_source(big(8), big, 10), 4))" },
        { "source raises mid-batch",
          "lambda big: list(pyobj.batches(big_source(big(8), big, 10, 5), 3))" },
        { "n < 1", "lambda big: pyobj.batches(big_source(big(8), big, 3), 0)" },
        { "a cycle through the iterator (the GC must see it)", "big_cycle" });
}
MM_END_TEST

MM_TEST(test_collate_stacks)
{
    mm_rng_t r = MM_RNG();
    long k = (long)mm_rng_range(&r, 2, 5), rows = (long)mm_rng_range(&r, 2, 4);
    long cols = (long)mm_rng_range(&r, 2, 4);
    tu_text_t code = { .n = 0 }, want = { .n = 0 };
    static float vals[5 * 16];
    tu_cat(&code, "[");
    for (long i = 0; i < k * rows * cols; i++) { /* quarters: float32 holds them exactly */
        vals[i] = (float)((double)mm_rng_range(&r, 0, 4000) / 4.0 - 500.0);
        tu_cat(&code, "%s%.2f", i % (rows * cols) ? ", " : i ? "], [" : "[", (double)vals[i]);
    }
    tu_cat(&code, "]]");
    tu_run("xs = [np.array(v, np.float32).reshape(%ld, %ld) for v in %s]\n"
           "out = pyobj.collate(xs)\n", rows, cols, code.s);
    tu_cat(&want, "(True, None, (%ld, %ld, %ld), 'f')", k, rows, cols);
    tu_expect(want.s, "(type(out) is pyobj.TensorBuf, out.base, out.shape, out.format)");
    want.n = 0;
    tu_cat(&want, "'");
    tu_cat_hex(&want, vals, (size_t)(k * rows * cols) * sizeof(float));
    tu_cat(&want, "'");
    tu_expect(want.s, "bytes(memoryview(out)).hex()");

    long m = (long)mm_rng_range(&r, 2, 4), len = (long)mm_rng_range(&r, 1, 4), v[4] = { 0 };
    long which = (long)mm_rng_range(&r, 0, (uint64_t)m - 1);
    pick_ints(&r, v, len, -1000, 1000, &code);
    tu_run("ts = [pyobj.TensorBuf((%ld,), 'q') for _ in range(%ld)]\nnp.asarray(ts[%ld])[:] = %s\n",
           len, m, which, code.s);
    want.n = 0;
    tu_cat(&want, "[");
    for (long i = 0; i < m; i++) {
        tu_cat(&want, "%s[", i ? ", " : "");
        for (long j = 0; j < len; j++)
            tu_cat(&want, "%s%ld", j ? ", " : "", i == which ? v[j] : 0);
        tu_cat(&want, "]");
    }
    tu_cat(&want, "]");
    tu_expect(want.s, "np.asarray(pyobj.collate(tuple(ts))).tolist()");
    want.n = 0;
    long zeros[4] = { 0 };
    cat_list(&want, zeros, m);
    tu_expect(want.s, "[t.exports for t in ts]"); /* collate released every buffer */

    char s0[8], s1[8];
    long blen = (long)mm_rng_range(&r, 1, 6);
    tu_text_t rows_of = { .n = 0 };
    for (long i = 0; i < blen; i++) {
        s0[i] = (char)mm_rng_range(&r, 'a', 'z');
        s1[i] = (char)mm_rng_range(&r, 'a', 'z');
    }
    s0[blen] = s1[blen] = 0;
    tu_cat(&rows_of, "[[");
    for (long i = 0; i < 2 * blen; i++)
        tu_cat(&rows_of, "%s%d", i == blen ? "], [" : i ? ", " : "",
               i < blen ? s0[i] : s1[i - blen]);
    tu_cat(&rows_of, "]]");
    tu_expect(rows_of.s, "np.asarray(pyobj.collate([b'%s', b'%s'])).tolist()", s0, s1);

    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.collate([])");
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.collate(iter(xs))");
    tu_expect_raises(NULL, "TypeError", "lambda: pyobj.collate([xs[0], %ld])", len);
    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.collate([xs[0], xs[1][:%ld]])",
                     (long)mm_rng_range(&r, 1, (uint64_t)rows - 1));
    tu_expect_raises(NULL, "ValueError",
                     "lambda: pyobj.collate([xs[0], xs[1].astype(np.float64)])");
    tu_expect_raises(NULL, "ValueError|BufferError", "lambda: pyobj.collate([xs[0], "
                     "np.ones((%ld, %ld), np.float32)[:, ::2]])", rows, 2 * cols);
    tu_expect_raises(NULL, "ValueError", "lambda: pyobj.collate([ts[0], ts[1], np.zeros(%ld, "
                     "np.int32)])", len);
    tu_expect(want.s, "[t.exports for t in ts]"); /* and on errors too */
}
MM_END_TEST

MM_TEST(test_collate_refcounts)
{
    /* CPython's own exporters: NumPy is built without the debug interpreter's counting, so its
     * references would not add up. Every size is above 256, the samples' count in 'many
     * samples' too: the collated shape's ints are then counted on every Python. */
    tu_run("import array\n"
          "xs = [array.array('f', [i] * 260) for i in range(6)]\n"
          "ts = [pyobj.TensorBuf(harness.mortal_ints(2, 3)) for i in range(4)]\n"
          "raw = [bytes([97 + i]) * 260 for i in range(2)]\n");
    tu_assert_counted("xs + ts + raw");
    NO_REFS_LEFT({ "array samples",
          "lambda: pyobj.collate(xs)",
          "" },
        { "many samples",
          "lambda: pyobj.collate(xs[:1] * 300)",
          "" },
        { "TensorBuf samples",
          "lambda: pyobj.collate(tuple(ts))",
          "" },
        { "bytes and memoryviews",
          "lambda: pyobj.collate([raw[0], memoryview(raw[1])])",
          "" },
        { "a shape differs",
          "lambda: pyobj.collate(xs[:3] + [array.array('f', [0])])",
          "ValueError" },
        { "a format differs",
          "lambda: pyobj.collate(ts[:2] + [pyobj.TensorBuf(harness.mortal_ints(2, 3), 'i')])",
          "ValueError" },
        { "a strided sample",
          "lambda: pyobj.collate([ts[0], ts[1].transpose()])",
          "ValueError|BufferError" },
        { "not a buffer",
          "lambda: pyobj.collate(xs[:2] + [object()])",
          "TypeError" },
        { "no samples",
          "lambda: pyobj.collate([])",
          "ValueError" },
        { "not a list",
          "lambda: pyobj.collate(iter(xs))",
          "TypeError" });
    tu_run("def big_tb(big, tag, fmt='f'):\n"
           "    t = pyobj.TensorBuf((%d,), fmt)\n"
           "    np.asarray(t)[...] = tag\n"
           "    return t\n", BIG_TB_FLOATS);
    NOTHING_KEPT({ "bytes samples", "lambda big: pyobj.collate([big(i) for i in range(4)])" },
        { "many samples", "lambda big: pyobj.collate([big(1)] * 20)" },
        { "TensorBuf samples", "lambda big: pyobj.collate((big_tb(big, 1), big_tb(big, 2)))" },
        { "bytes and memoryviews", "lambda big: pyobj.collate([big(1), memoryview(big(2))])" },
        { "a shape differs", "lambda big: pyobj.collate([big(1), big(2), big(3)[:100]])" },
        { "a format differs", "lambda big: pyobj.collate([big_tb(big, 1), big_tb(big, 2, 'i')])" },
        { "a strided sample",
          "lambda big: pyobj.collate([big(1)[:32768], memoryview(big(2))[::2]])" },
        { "not a buffer", "lambda big: pyobj.collate([big(1), lambda pad=big(2): pad])" },
        { "not a list", "lambda big: pyobj.collate(iter([big(1), big(2)]))" });
}
MM_END_TEST

MM_TEST(test_tensorbuf_refcounts)
{
    /* Shapes of ints above 256 (harness.mortal_ints(4, 5) is (261, 262)): a reference leaked to
     * a dimension is counted on every Python. */
    tu_run("shape = harness.mortal_ints\n"
          "def life():\n"
          "    t = pyobj.TensorBuf(shape(4, 5), 'd')\n"
          "    m, v = memoryview(t), t.transpose()\n"
          "    b = memoryview(v)[1:3]\n"
          "    del m, v, b\n"
          "    t.resize(shape(7))\n"
          "    return t\n"
          "def exported():\n"
          "    t = pyobj.TensorBuf(shape(4))\n"
          "    m = memoryview(t)\n"
          "    t.resize(shape(2))\n");
    tu_assert_counted("shape(4, 5, 7, 2, -1)");
    NO_REFS_LEFT({ "made, exported, viewed, resized, freed",
          "life",
          "" },
        { "resize refused",
          "exported",
          "BufferError" },
        { "bad shape",
          "lambda: pyobj.TensorBuf(shape(2) + (object(),))",
          "TypeError" },
        { "bad format",
          "lambda: pyobj.TensorBuf(shape(2), 'z')",
          "ValueError" },
        { "bad resize",
          "lambda: pyobj.TensorBuf(shape(2)).resize(list(shape(-1)))",
          "ValueError" });
    /* TensorBufs of 256 KiB, written through (their bytes are the heap's, not a big()'s). */
    tu_run("def big_life(big):\n"
           "    t = pyobj.TensorBuf((%d,), 'f')\n"
           "    np.asarray(t)[...] = 1\n"
           "    m, v = memoryview(t), t.transpose()\n"
           "    b = memoryview(v)[1:3]\n"
           "    del m, v, b\n"
           "    t.resize((%d,))\n"
           "    np.asarray(t)[...] = 2\n"
           "    return t\n"
           "def big_exported(big):\n"
           "    t = pyobj.TensorBuf((%d,), 'f')\n"
           "    np.asarray(t)[...] = 1\n"
           "    m = memoryview(t)\n"
           "    t.resize((2,))\n", BIG_TB_FLOATS, 2 * BIG_TB_FLOATS, BIG_TB_FLOATS);
    NOTHING_KEPT({ "made, exported, viewed, resized, freed", "big_life" },
        { "resize refused", "big_exported" },
        { "bad shape", "lambda big: pyobj.TensorBuf((2, lambda pad=big(1): pad))" },
        { "bad format",
          "lambda big: pyobj.TensorBuf((2,), harness.padded(harness.BigStr, big, 'z'))" },
        { "bad resize", "lambda big: pyobj.TensorBuf((2,)).resize([2, -1, big(1)])" });
}
MM_END_TEST
