"""The batch's similarity check (grader/classtools/similarity.py) with Debian's sim_c: two
students who handed in the same code with renamed variables are flagged; code from the skeleton
is not evidence. Nothing is compiled or graded."""
import os
import re
import shutil

import pytest

from grader.classtools import batch, similarity
from grader.rules import labs, variants

SLUG = "lab03-tensor-strides"


def _class(root):
    ref = os.path.join(variants.SOLUTIONS, SLUG, "src")
    skel = os.path.join(labs.LABS_DIR, SLUG, "src")
    for who, src in (("ann", ref), ("ben", ref), ("cat", skel), ("dan", skel)):
        os.makedirs(root / who)
        for f in ("view.c", "reshape.c", "copy.c"):
            shutil.copy(os.path.join(src, f), root / who / f)
    for f in ("view.c", "copy.c"):   # ben renames ann's variables
        text = (root / "ben" / f).read_text()
        (root / "ben" / f).write_text(re.sub(r"\b(i|n|k|v|out|src|dst)\b", r"\1_renamed", text))
    return root


def test_a_copy_with_renamed_variables_is_flagged_and_the_skeleton_is_not(tmp_path):
    if not shutil.which(similarity.TOOL):
        pytest.skip("sim_c (Debian's similarity-tester) is not installed")
    subs = _class(tmp_path / "subs")
    batch.plan(str(subs), labs.select("03"), str(tmp_path / "out"), 60, [])
    res = similarity.check(str(tmp_path / "out"), out=lambda *_: None)
    flagged = [(x["a"], x["b"]) for x in res["labs"]["03"]["flagged"]]
    assert flagged == [("ann", "ben")], res["labs"]["03"]
    assert res["labs"]["03"]["flagged"][0]["percent"] >= 90


def test_without_sim_c_it_says_so_and_goes_on(tmp_path, monkeypatch):
    subs = _class(tmp_path / "subs")
    batch.plan(str(subs), labs.select("03"), str(tmp_path / "out"), 60, [])
    monkeypatch.setattr(similarity.shutil, "which", lambda _: None)
    said = []
    res = similarity.check(str(tmp_path / "out"), out=said.append)
    assert res["tool"] is None and "not installed" in said[0]


def test_sim_c_report_lines_become_pairs():
    text = ("a/x/ann.c consists for 97 % of a/x/ben.c material\n"
            "a/x/ben.c consists for 99 % of a/x/ann.c material\n"
            "a/x/cat.c consists for 4 % of a/x/ann.c material\n")
    assert similarity.pairs(text) == [{"a": "ann", "b": "ben", "percent": 99},
                                      {"a": "ann", "b": "cat", "percent": 4}]
