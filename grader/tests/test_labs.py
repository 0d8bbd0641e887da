"""For every lab: the skeleton builds and scores zero on correctness; the reference gets full
marks on everything this machine can grade; each naive variant loses exactly the performance
it claims to; lab.toml names exactly the tests that exist."""
import os
import re

import pytest

from conftest import ROOT, grade
from grader import labs, variants

SLUGS = labs.slugs()


@pytest.mark.parametrize("slug", SLUGS)
def test_lab_toml_matches_test_sources(slug):
    lab = labs.load(slug)
    declared = []  # every MM_TEST(name) / MM_TEST_F(name, fixture): each registers one test
    for f in sorted(os.listdir(os.path.join(lab.path, "tests"))):
        if f.endswith(".c"):
            with open(os.path.join(lab.path, "tests", f)) as fh:
                declared += re.findall(r"^MM_TEST(?:_F)?\((\w+)[,)]", fh.read(), re.M)
    twice = sorted({n for n in declared if declared.count(n) > 1})
    assert twice == [], f"tests declared more than once: {twice}"
    assert set(declared) == {t.name for t in lab.tests}, "lab.toml and tests/*.c disagree"
    for rel in lab.editable:
        assert os.path.isfile(os.path.join(lab.path, rel)), f"skeleton lacks {rel}"
        assert os.path.isfile(os.path.join(ROOT, "solutions", slug, rel)), f"solution lacks {rel}"


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_skeleton_scores_zero_correctness(slug, tmp_path):
    lab = labs.load(slug)
    g = grade("labs", lab.id, str(tmp_path))
    assert g.returncode == 0
    tests = g.tests(lab.id)
    assert len(tests) == len(lab.tests)
    passed = [n for n, t in tests.items() if t.get("status") == "passed"]
    assert passed == [], f"the untouched skeleton passes {passed}"
    assert sum(t["score"] for t in tests.values()) == 0
    assert all(t["score"] == 0 for t in g.metrics(lab.id).values())


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_solution_gets_full_marks(slug, tmp_path):
    lab = labs.load(slug)
    g = grade("solutions", lab.id, str(tmp_path))
    assert g.returncode == 0
    bad = {n: t["output"] for n, t in g.items(lab.id).items()
           if t.get("status", "skipped") != "passed" and not t["output"].startswith("SKIPPED")}
    assert bad == {}, f"the reference loses points: {bad}"
    unmeasured = g.results["extra_data"]["skipped_points"]
    assert g.results["score"] == g.results["max_score"] - unmeasured > 0


def _variant_cases():
    return [(s, n) for s in SLUGS for n in variants.declared(s)]


@pytest.mark.slow
@pytest.mark.parametrize("slug,name", _variant_cases())
def test_naive_variant_gets_no_performance_credit(slug, name, make_variant, tmp_path):
    lab = labs.load(slug)
    spec = variants.declared(slug)[name]
    sub = make_variant(slug, spec["patch"])
    g = grade(sub, lab.id, str(tmp_path / "out"))
    metrics = g.metrics(lab.id)
    for m in spec["metrics_zero"]:
        entry = metrics[m]
        if entry["output"].startswith("SKIPPED"):
            continue
        assert entry["score"] == 0, f"{name} scores {entry['score']} on {m}: {entry['output']}"
