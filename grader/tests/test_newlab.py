"""`make new-lab N=NN SLUG=topic` (grader/classtools/newlab.py): a bad or taken number or slug is refused
with a clear message and nothing written; a scaffold generated into a copy of the repository
passes, in that copy, the checks `make test` runs on every lab: lab.toml names its one test, the
skeleton builds without warnings (gcc and clang) and fails it, the reference gets full marks
(under ASan too), the naive variant scores zero on the metric, the handout follows the convention
and the deck shows a self-contained figure. Never written into this repository's labs/.

Cost: under a minute on an idle 2-core machine (the lab's builds, ASan included, and three
gradings, two with a benchmark of about a second), plus any wait for the bench lock."""
import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from grader.classtools import newlab
from grader.rules.config import ConfigError
from test_slides import images

LOCK = "/tmp/mlmem-bench.lock"
SLUG = "scaffold-selftest"
# What a copy needs to build, grade and check labs: no build/, no caches, no Marp.
COPIED = ["Makefile", "grader", "common", "labs", "solutions", "slides"]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "node_modules")


def free_number(root) -> str:
    """The highest lab number nothing in root uses (the copy mirrors this repository)."""
    used = {name[3:5] for sub in ("labs", "solutions", "slides")
            for name in os.listdir(os.path.join(root, sub)) if re.match(r"lab\d\d-", name)}
    return next(f"{n:02d}" for n in range(99, 0, -1) if f"{n:02d}" not in used)


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """A copy of the repository with a scaffold made by `make new-lab`: (root, number, output)."""
    root = tmp_path_factory.mktemp("newlab") / "mlmem"
    root.mkdir()
    for name in COPIED:
        src, dst = os.path.join(ROOT, name), root / name
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=IGNORED)
        else:
            shutil.copy2(src, dst)
    num = free_number(root)
    res = subprocess.run(["make", "-s", "new-lab", f"N={num}", f"SLUG={SLUG}"], cwd=root,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "MLMEM_PYTHON": sys.executable})
    assert res.returncode == 0, res.stdout + res.stderr
    yield root, num, res.stdout
    shutil.rmtree(root, ignore_errors=True)


def inner_pytest(root: Path, files: list[str], select: str) -> subprocess.CompletedProcess:
    """The grader's own tests of the copy, `files`, those whose id contains `select`."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-k", select, *files], cwd=root / "grader" / "tests",
                          capture_output=True, text=True, timeout=600)


def test_it_writes_the_lab_the_solution_and_the_deck(copy):
    root, num, out = copy
    lab = f"lab{num}-{SLUG}"
    written = set(re.findall(r"^  wrote (\S+)$", out, re.M))
    assert written == set(newlab.files(newlab.names(num, SLUG))), out
    assert {p.split("/")[0] for p in written} == {"labs", "solutions", "slides"}
    assert all(lab in p for p in written), written
    for rel in (f"labs/{lab}/README.md", f"labs/{lab}/lab.toml", f"slides/{lab}.md",
                f"solutions/{lab}/answers.md"):
        assert "TODO(course)" in (root / rel).read_text(), f"{rel} marks nothing to fill in"
    assert not os.path.exists(os.path.join(ROOT, "labs", lab)), "written into the real labs/"


def test_the_deck_shows_its_figure(copy):
    root, num, _ = copy
    deck = root / "slides" / f"lab{num}-{SLUG}.md"
    assert f"figures/lab{num}-{SLUG}.svg" in images(deck)


@pytest.mark.slow
def test_make_test_checks_accept_it(copy):
    """The per-lab checks of make test that need no benchmark, run in the copy for the new
    lab: lab.toml against the sources, the convention, the figure, the strict configuration,
    warning-free builds, ASan, the student object's API, few asserts per test."""
    root, num, _ = copy
    res = inner_pytest(root, ["test_labs.py", "test_handouts.py", "test_slides.py",
                              "test_config.py", "test_native.py", "test_integrity.py",
                              "test_assert_counts.py"],
                       f"lab{num} and not skeleton_scores and not solution_gets and not naive")
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
    ran = re.search(r"(\d+) passed", res.stdout)
    assert ran and int(ran.group(1)) >= 14, res.stdout[-2000:]


@pytest.mark.slow
def test_skeleton_fails_reference_passes_naive_loses_the_metric(copy):
    """test_labs.py's gradings of the new lab, in the copy, under the bench lock."""
    root, num, _ = copy
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        res = inner_pytest(root, ["test_labs.py"], f"lab{num}")
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
    # the four gradings (skeleton, reference, naive variant, ...) and the per-lab checks, none
    # skipped: test_labs.py grows per-lab tests, so the count is a floor
    ran = re.search(r"(\d+) passed", res.stdout)
    assert ran and int(ran.group(1)) >= 4 and "skipped" not in res.stdout, res.stdout[-2000:]


# ---- refusals, on an empty tree -------------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    for sub in ("labs/lab03-strides", "solutions/lab03-strides", "slides"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "slides" / "lab05-decks.md").write_text("---\n")
    return tmp_path


@pytest.mark.parametrize("n,slug,why", [
    ("03", "topic", "lab 03 exists already (labs/lab03-strides, solutions/lab03-strides)"),
    ("3", "topic", "lab 03 exists already"),
    ("05", "topic", "lab 05 exists already (slides/lab05-decks.md)"),
    ("09", "strides", "the slug 'strides' is taken (labs/lab03-strides, solutions/lab03-strides)"),
    ("0", "topic", "bad lab number '0'"),
    ("100", "topic", "bad lab number '100'"),
    ("x9", "topic", "bad lab number 'x9'"),
    ("09", "", "missing slug"),
    ("09", "Topic", "bad slug 'Topic'"),
    ("09", "kv_cache", "bad slug 'kv_cache'"),
    ("09", "kv--cache", "bad slug 'kv--cache'"),
    ("09", "9lives", "bad slug '9lives'"),
    ("09", "topic-", "bad slug 'topic-'"),
    ("09", "a" * 41, "at most 40 characters"),
    ("09", "lab09-topic", "give the topic alone"),
    ("09", "mm-pool", "mm_ is the prefix of the shared helpers"),
])
def test_refused_with_a_clear_error_and_nothing_written(tree, n, slug, why):
    before = sorted(str(p) for p in tree.rglob("*"))
    with pytest.raises(ConfigError) as e:
        newlab.create(n, slug, str(tree))
    assert why in str(e.value), str(e.value)
    assert sorted(str(p) for p in tree.rglob("*")) == before


@pytest.mark.parametrize("title", ['The "KV" cache', "two\nlines", " "])
def test_a_title_toml_cannot_hold_is_refused(tree, title):
    with pytest.raises(ConfigError, match="bad title"):
        newlab.create("9", "topic", str(tree), title)
    assert not (tree / "labs" / "lab09-topic").exists()


def test_a_file_in_the_way_stops_it_before_writing(tree):
    (tree / "slides" / "figures").mkdir()
    (tree / "slides" / "figures" / "lab09-topic.svg").write_text("<svg/>")
    with pytest.raises(ConfigError, match="slides/figures/lab09-topic.svg exists already"):
        newlab.create("9", "topic", str(tree))
    assert not (tree / "labs" / "lab09-topic").exists()


def test_the_command_line_exits_2_with_the_message(tree, capsys):
    assert newlab.main(["--n", "03", "--slug", "topic", "--root", str(tree)]) == 2
    assert "mlmem: new-lab: lab 03 exists already" in capsys.readouterr().err
    assert newlab.main(["--n", "9", "--slug", "kv-cache", "--title", "Paged KV cache",
                        "--root", str(tree)]) == 0
    readme = (tree / "labs" / "lab09-kv-cache" / "README.md").read_text()
    assert readme.startswith("# Lab 09 — Paged KV cache\n")
    assert "int kv_cache_sum(" in (tree / "labs/lab09-kv-cache/include/kv_cache.h").read_text()


def test_every_template_mark_is_filled():
    for rel, text in newlab.files(newlab.names("42", "some-topic")).items():
        assert "{{" not in text and "}}" not in text, rel
