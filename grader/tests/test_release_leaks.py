"""`make release`'s leak check on token sequences: a solution expression quoted inside a sentence
of a handout or a hint (backquotes, Typeset operators, a line break in the middle) is caught; a
sentence that describes the step in words, an expression the skeleton or the headers already
show, and a counting loop are not."""
import os
import random

from conftest import ROOT
from grader.classtools import leaks, release

SOLUTION = """#include <stdlib.h>
/* not this: width = (count * 3 + pad) / align, a comment is no code */
int acc_create(acc_t **out, unsigned n, size_t line)
{
    if (!out || n == 0 || line < 8)
        return -EINVAL;
    a->stride = (sizeof(cl_stats_t) + line - 1) / line * line;
    for (size_t i = 0; i < n; i++)
        a->part[i] = 0;
    return blocks_init(a, n, line);
}
"""
SKELETON = """int acc_create(acc_t **out, unsigned n, size_t line)
{
    if (!out || n == 0 || line < 8)
        return -EINVAL;
    /* YOUR CODE HERE */
    return -ENOSYS;
}
"""
HEADER = "int blocks_init(acc_t *a, unsigned n, size_t line);\n"


def _wanted():
    return leaks.solution_windows({"lab99-x/src/acc.c": SOLUTION},
                                    {"lab99-x/src/acc.c": SKELETON}, [HEADER])


def test_a_quote_inside_a_sentence_is_caught():
    wanted = _wanted()
    assert all(len(w) == leaks.WINDOW for w in wanted)
    text = ("# Hints\n\n### Level 3\n\nPart B. Round up: `stride = (sizeof(cl_stats_t) + line "
            "−\n  1) / line * line`, then allocate.\n")
    hits = leaks.quoted(text, wanted)
    assert len(hits) == 1, hits
    line, srcs, q = hits[0]
    assert line == 5 and srcs == ["lab99-x/src/acc.c:7"]
    assert q.startswith("stride = ( sizeof ( cl_stats_t ) + line - 1 )")


def test_literals_compare_by_value():
    wanted = leaks.solution_windows({"a.c": "r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;\n"},
                                      {}, [])
    assert leaks.quoted("bf16 is `(u + 32767 + ((u >> 16) & 1)) >> 16`.", wanted)


def test_innocent_text_is_not_caught():
    wanted = _wanted()
    innocent = [
        # the step in words, with the same names
        "Round the stride up to a whole number of lines: take the size of cl_stats_t, add line "
        "minus one, divide by line and multiply by line again.",
        # what the skeleton and the header already show
        "The contract: `if (!out || n == 0 || line < 8) return -EINVAL;` and "
        "`blocks_init(a, n, line)` is declared in the header.",
        # a counting loop and a call's argument list are idioms, not answers
        "`for (size_t i = 0; i < n; i++)` visits every worker.",
        # the comment of the solution is not its code
        "Do not write `width = (count * 3 + pad) / align`.",
    ]
    for text in innocent:
        assert leaks.quoted(text, wanted) == [], text


def test_planted_quote_in_a_tree_of_this_repository(tmp_path):
    """On this repository's solutions: a window of a real solution line, planted in a sentence of
    a handout copy, is found with its source; the same handout without it is clean."""
    wanted = leaks.distinctive_windows(release.tree_files())
    assert wanted, "the solutions have distinctive expressions"
    rng = random.Random(12)
    window, srcs = rng.choice(sorted(wanted.items()))
    lab = srcs[0].split("/")[1]
    doc = tmp_path / "labs" / lab / "hints.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("### Level 1 — a nudge\n\nThink about the lines.\n")
    assert leaks.token_leaks(str(tmp_path), wanted) == []
    doc.write_text("### Level 3 — almost there\n\nWrite `" + " ".join(window) +
                   "` and you are done.\n")
    found = leaks.token_leaks(str(tmp_path), wanted)
    assert len(found) == 1 and found[0].startswith(f"labs/{lab}/hints.md:3 <- {srcs[0]}"), found


def test_the_student_trees_code_quotes_no_solution(tmp_path):
    """No false alarm on the code students get: skeletons, headers, tests, baselines, common/
    and the grader quote no solution window (documents are reported by `make release`)."""
    wanted = leaks.distinctive_windows(release.tree_files())
    hits = []
    for f in release.tree_files():
        if f.endswith(leaks.PUBLIC_CODE) or f.startswith("labs/") and f.endswith((".c", ".h")):
            with open(os.path.join(ROOT, f), errors="replace") as fh:
                hits += [f"{f}:{line} <- {s[0]}: {q}" for line, s, q in
                         leaks.quoted(fh.read(), wanted)]
    assert hits == []


def test_the_release_check_reads_a_build_failure_from_its_cause(tmp_path, monkeypatch):
    """grade_check finds a lab that does not build by its items' cause, not by their words."""
    import json
    import subprocess
    tests = [{"name": "lab01 / a", "score": 0, "max_score": 1, "status": "failed",
              "extra_data": {"lab": "01", "cause": "not-built"}, "output": "words\nmore"},
             {"name": "lab01 / b", "score": 0, "max_score": 1, "status": "failed",
              "extra_data": {"lab": "01", "cause": ""},
              "output": "does not compile: the test's own words"},
             {"name": "lab01 / c", "score": 1, "max_score": 1, "status": "passed",
              "extra_data": {"lab": "01", "cause": ""}, "output": "passed"}]

    def grader(cmd, **kw):
        out = cmd[cmd.index("--out") + 1]
        os.makedirs(out)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({"tests": tests}, f)
        return subprocess.CompletedProcess(cmd, 0, "", "")
    monkeypatch.setattr(release.subprocess, "run", grader)
    (tmp_path / "tree").mkdir()
    problems = release.grade_check(str(tmp_path / "tree"), out=lambda _: None)
    assert problems == ["lab01 / a: words", "lab01 / c: the skeleton passes it"]
