/* Lab 11 tests, part B: group_by, batches and collate do what they say, and no path of them (nor
 * of TensorBuf's) leaves a reference behind (sys.gettotalrefcount of the debug interpreter).
 * Every object a case hands your code is made at run time (tu_assert_counted): Python 3.12+ does
 * not count references to immortal objects (small ints, None, literals' strings: PEP 683), so a
 * reference leaked to one of those would go unseen. The cases run in your process; what they
 * left behind is counted there (serve/counting.c). */
#include <stdio.h>
#include "support.h"

/* Every case of the dict `cases` (name -> (a callable with no arguments, None or the exception
 * it must raise), in the namespace) first behaves as its contract says, then leaves no
 * reference behind over many calls. */
static void assert_no_refs_left(const char *cases)
{
    char code[PO_CODE_MAX], expr[64], name[PO_TEXT_MAX], why[PO_TEXT_MAX];
    snprintf(code, sizeof code, "cases_ = list((%s).items())\n", cases);
    tu_ok(code);
    long n = tu_long("len(cases_)");
    for (long i = 0; i < n; i++) {
        snprintf(expr, sizeof expr, "cases_[%ld][0]", i);
        tu_eval(expr, name, sizeof name);
        snprintf(expr, sizeof expr, "harness.behaves(*cases_[%ld][1])", i);
        ck_assert_msg(!tu_eval(expr, why, sizeof why)[0], "%s: %s", name, why);
        snprintf(expr, sizeof expr, "cases_[%ld][1][0]", i);
        long left = tu_refs_left(expr, 50);
        ck_assert_msg(left == 0, "%s: each call leaves %ld reference(s) behind", name, left);
    }
}

MM_TEST(test_group_by_groups)
{
    tu_ok("g = pyobj.group_by(range(10), lambda x: x % 3)\n"
          "assert g == {0: [0, 3, 6, 9], 1: [1, 4, 7], 2: [2, 5, 8]}, g\n"
          "assert type(g) is dict and all(type(v) is list for v in g.values())\n"
          "assert list(g) == [0, 1, 2], 'keys in the order they were first seen'\n"
          "assert pyobj.group_by([], len) == {}\n"
          "def raises(exc, *args):\n"
          "    try:\n"
          "        pyobj.group_by(*args)\n"
          "    except exc:\n"
          "        return\n"
          "    raise AssertionError(f'group_by{args} should raise {exc.__name__}')\n"
          "raises(TypeError, 5, len)\n"
          "raises(TypeError, [[1], [2]], list)\n"
          "raises(ZeroDivisionError, [1, 0], lambda x: 1 // x)\n"
          "raises(TypeError, [1])\n");
}
MM_END_TEST

MM_TEST(test_group_by_refcounts)
{
    tu_ok("words = 'to be or not to be that is'.split()\n"
          "def length(w):\n"
          "    return harness.mortal_ints(len(w))[0]\n"
          "def gen_fails():\n"
          "    yield words[0]\n"
          "    yield words[1]\n"
          "    raise KeyError('the dataset ran dry')\n");
    tu_assert_counted("words + [length(w) for w in words]");
    assert_no_refs_left("{'grouped': (lambda: pyobj.group_by(words, length), None),\n"
                        " 'key raises': (lambda: pyobj.group_by(words, lambda w: 1000 // (len(w) - 3)), ZeroDivisionError),\n"
                        " 'unhashable key': (lambda: pyobj.group_by(words, lambda w: [w]), TypeError),\n"
                        " 'iteration raises': (lambda: pyobj.group_by(gen_fails(), length), KeyError),\n"
                        " 'not iterable': (lambda: pyobj.group_by(object(), length), TypeError),\n"
                        " 'bad arguments': (lambda: pyobj.group_by(words), TypeError)}");
}
MM_END_TEST

MM_TEST(test_batches_yield_tuples)
{
    tu_ok("b = pyobj.batches(range(7), 3)\n"
          "assert iter(b) is b\n"
          "assert list(b) == [(0, 1, 2), (3, 4, 5), (6,)]\n"
          "assert list(b) == [], 'an exhausted iterator stays exhausted'\n"
          "assert list(pyobj.batches(range(7), 3, drop_last=True)) == [(0, 1, 2), (3, 4, 5)]\n"
          "assert list(pyobj.batches(range(6), 3)) == [(0, 1, 2), (3, 4, 5)]\n"
          "assert list(pyobj.batches([], 2)) == []\n"
          "assert gc.is_tracked(pyobj.batches([], 1)), 'batches must be tracked by the GC'\n"
          "for args, exc in (((range(3), 0), ValueError), ((5, 2), TypeError), ((range(3),), TypeError)):\n"
          "    try:\n"
          "        pyobj.batches(*args)\n"
          "        raise AssertionError(f'batches{args} should raise {exc.__name__}')\n"
          "    except exc:\n"
          "        pass\n");
}
MM_END_TEST

MM_TEST(test_batches_refcounts)
{
    tu_ok("def source(n, fail_at=None):\n"
          "    for i in range(n):\n"
          "        if i == fail_at:\n"
          "            raise IndexError('sample missing')\n"
          "        yield [i]\n"
          "def cycle():\n"
          "    box = []\n"
          "    b = pyobj.batches(box, 2)\n"
          "    box.append(b)\n");
    tu_assert_counted("source(10)");
    assert_no_refs_left("{'all batches': (lambda: list(pyobj.batches(source(10), 3)), None),\n"
                        " 'drop last': (lambda: list(pyobj.batches(source(10), 3, True)), None),\n"
                        " 'dropped early': (lambda: next(pyobj.batches(source(10), 4)), None),\n"
                        " 'source raises mid-batch': (lambda: list(pyobj.batches(source(10, 5), 3)), IndexError),\n"
                        " 'n < 1': (lambda: pyobj.batches(source(3), 0), ValueError),\n"
                        " 'a cycle through the iterator (the GC must see it)': (cycle, None)}");
}
MM_END_TEST

MM_TEST(test_collate_stacks)
{
    tu_ok("xs = [np.random.default_rng(i).random((3, 4), dtype=np.float32) for i in range(5)]\n"
          "out = pyobj.collate(xs)\n"
          "assert type(out) is pyobj.TensorBuf and out.base is None\n"
          "assert (out.shape, out.format) == ((5, 3, 4), 'f'), (out.shape, out.format)\n"
          "assert (np.asarray(out) == np.stack(xs)).all()\n"
          "ts = [pyobj.TensorBuf((2,), 'q') for _ in range(3)]\n"
          "np.asarray(ts[1])[:] = [7, 8]\n"
          "assert np.asarray(pyobj.collate(tuple(ts))).tolist() == [[0, 0], [7, 8], [0, 0]]\n"
          "assert all(t.exports == 0 for t in ts), 'collate must release every buffer'\n"
          "assert np.asarray(pyobj.collate([b'ab', b'cd'])).tolist() == [[97, 98], [99, 100]]\n"
          "def raises(excs, samples):\n"
          "    try:\n"
          "        pyobj.collate(samples)\n"
          "    except excs:\n"
          "        return\n"
          "    raise AssertionError(f'collate should raise {excs}')\n"
          "raises(ValueError, [])\n"
          "raises(TypeError, iter(xs))\n"
          "raises(TypeError, [xs[0], 3])\n"
          "raises(ValueError, [xs[0], xs[1][:2]])\n"
          "raises(ValueError, [xs[0], xs[1].astype(np.float64)])\n"
          "raises((ValueError, BufferError), [xs[0], np.ones((4, 6), np.float32)[:, ::2]])\n"
          "raises(ValueError, [ts[0], ts[1], np.zeros(2, np.int32)])\n"
          "assert all(t.exports == 0 for t in ts), 'collate must release every buffer on errors too'\n");
}
MM_END_TEST

MM_TEST(test_collate_refcounts)
{
    /* CPython's own exporters: NumPy is built without the debug interpreter's counting, so its
     * references would not add up. Every size is above 256, the samples' count in 'many
     * samples' too: the collated shape's ints are then counted on every Python. */
    tu_ok("import array\n"
          "xs = [array.array('f', [i] * 260) for i in range(6)]\n"
          "ts = [pyobj.TensorBuf(harness.mortal_ints(2, 3)) for i in range(4)]\n"
          "raw = [bytes([97 + i]) * 260 for i in range(2)]\n");
    tu_assert_counted("xs + ts + raw");
    assert_no_refs_left("{'array samples': (lambda: pyobj.collate(xs), None),\n"
                        " 'many samples': (lambda: pyobj.collate(xs[:1] * 300), None),\n"
                        " 'TensorBuf samples': (lambda: pyobj.collate(tuple(ts)), None),\n"
                        " 'bytes and memoryviews': (lambda: pyobj.collate([raw[0], memoryview(raw[1])]), None),\n"
                        " 'a shape differs': (lambda: pyobj.collate(xs[:3] + [array.array('f', [0])]), ValueError),\n"
                        " 'a format differs': (lambda: pyobj.collate(ts[:2] + [pyobj.TensorBuf(harness.mortal_ints(2, 3), 'i')]), ValueError),\n"
                        " 'a strided sample': (lambda: pyobj.collate([ts[0], ts[1].transpose()]), (ValueError, BufferError)),\n"
                        " 'not a buffer': (lambda: pyobj.collate(xs[:2] + [object()]), TypeError),\n"
                        " 'no samples': (lambda: pyobj.collate([]), ValueError),\n"
                        " 'not a list': (lambda: pyobj.collate(iter(xs)), TypeError)}");
}
MM_END_TEST

MM_TEST(test_tensorbuf_refcounts)
{
    /* Shapes of ints above 256 (harness.mortal_ints(4, 5) is (261, 262)): a reference leaked to
     * a dimension is counted on every Python. */
    tu_ok("shape = harness.mortal_ints\n"
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
    assert_no_refs_left("{'made, exported, viewed, resized, freed': (life, None),\n"
                        " 'resize refused': (exported, BufferError),\n"
                        " 'bad shape': (lambda: pyobj.TensorBuf(shape(2) + (object(),)), TypeError),\n"
                        " 'bad format': (lambda: pyobj.TensorBuf(shape(2), 'z'), ValueError),\n"
                        " 'bad resize': (lambda: pyobj.TensorBuf(shape(2)).resize(list(shape(-1))), ValueError)}");
}
MM_END_TEST
