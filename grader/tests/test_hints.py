"""`make hint`: the levels come from labs/<lab>/hints.md one at a time, the message names the
file, and a lab not yet migrated falls back to its handout's Hints section."""
import subprocess
import sys

from conftest import ROOT
from grader.reports import hints
from grader.rules import labs

HINTS = """# Lab 99 — hints

Ask for the next level only when stuck.

### Level 1 — a nudge

Look at the line size.

### Level 2 — the shape

One slot per line.

### Level 3 — almost there

Round the stride up to a whole line.
"""

README = """# Lab 99

## 6. Hints

Run `make hint LAB=99`.

### Level 1 — a nudge

old nudge

### Level 2 — the shape

old shape

## 7. Pitfalls

none
"""


def _lab(tmp_path, monkeypatch, readme=README, hints_md=None):
    d = tmp_path / "lab99-x"
    d.mkdir()
    (d / "lab.toml").write_text('[lab]\ntitle="x"\neditable=[]\n')
    (d / "README.md").write_text(readme)
    if hints_md is not None:
        (d / "hints.md").write_text(hints_md)
    monkeypatch.setattr(labs, "LABS_DIR", str(tmp_path))
    return labs.load("lab99-x")


def test_levels_come_from_hints_md_one_at_a_time(tmp_path, monkeypatch):
    lab = _lab(tmp_path, monkeypatch, hints_md=HINTS)
    assert [b.splitlines()[0] for b in hints.file_levels(HINTS)] == [
        "### Level 1 — a nudge", "### Level 2 — the shape", "### Level 3 — almost there"]
    one = hints.show(lab, 1)
    assert "labs/lab99-x/hints.md" in one and "level 1 of 3" in one
    assert "Look at the line size." in one and "One slot per line" not in one
    assert "old nudge" not in one, "hints.md wins over the handout"
    assert "make hint LAB=99 LEVEL=2" in one
    three = hints.show(lab, 3)
    assert "Round the stride" in three and "LEVEL=4" not in three
    assert "Ask for the next level" not in three, "the file's intro is no level"
    assert "levels 1 to 3" in hints.show(lab, 4) and "hints.md" in hints.show(lab, 4)


def test_handout_levels_are_not_read(tmp_path, monkeypatch):
    lab = _lab(tmp_path, monkeypatch)  # levels only in README.md: they are not hints any more
    assert "no hints yet" in hints.show(lab, 1) and "old nudge" not in hints.show(lab, 1)


def test_no_levels_names_the_file(tmp_path, monkeypatch):
    lab = _lab(tmp_path, monkeypatch, hints_md="# Lab 99 — hints\n\nnothing yet\n")
    assert "no hints yet" in hints.show(lab, 1) and "labs/lab99-x/hints.md" in hints.show(lab, 1)


def test_make_hint_on_a_real_lab():
    slug = labs.slugs()[0]
    proc = subprocess.run([sys.executable, "-m", "grader", "hint", "--lab", slug[3:5]],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "### Level 1" in proc.stdout and "### Level 2" not in proc.stdout
    assert f"labs/{slug}/" in proc.stdout
