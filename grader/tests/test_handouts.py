"""Every lab follows the handout convention: README.md opens with "## 0. Before you start"
(the four bold items in order, the done-box naming `make handin`), has "## Questions" (3 to 6,
the same text as the headings of labs/<lab>/answers.md, one for one), staff answers with the
same headings in solutions/<lab>/answers.md, "## Optional challenges" with at least one item, and
its hints in labs/<lab>/hints.md (levels 1, 2, 3; none left in README.md). Each failure lists
everything missing. `python3 grader/tests/test_handouts.py` prints the state of every lab."""
from __future__ import annotations

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Every lab folder: a new lab follows the convention from its first commit.
DONE: set[str] = {d for d in os.listdir(os.path.join(ROOT, "labs"))
                  if os.path.isfile(os.path.join(ROOT, "labs", d, "lab.toml"))}

BOLD_ITEMS = ["You will learn", "You should know", "Time", "Done when"]


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def section(text: str, title: str) -> str | None:
    """The body of the '## [N. ]<title>' section, up to the next '## ' heading, or None."""
    m = re.search(rf"^## +(?:\d+\.\s*)?{title}\s*$", text, re.M)
    if not m:
        return None
    rest = text[m.end():]
    end = re.search(r"^## ", rest, re.M)
    return rest[:end.start()] if end else rest


def _norm(s: str) -> str:
    return " ".join(s.split())


def readme_questions(body: str) -> list[tuple[str, str]]:
    """(number, text) of the '**Qn.** text' paragraphs or list items ('1. **Q1.** text') of a
    Questions section, each up to the next question or a blank line."""
    out = []
    q = r"^(?:\d+\.\s+)?\*\*Q(\d+)\.\*\*"
    for m in re.finditer(q + r"\s*(.*?)(?=" + q.replace("(\\d+)", "\\d+") + r"|\n\s*\n|\Z)",
                         body, re.M | re.S):
        out.append((m.group(1), _norm(m.group(2))))
    return out


def answer_sections(text: str) -> list[tuple[str, str, str]]:
    """(number, heading text, body) of the '## Qn. heading' sections of an answers.md."""
    parts = re.split(r"^## +Q(\d+)\.[ \t]*(.*)$", text, flags=re.M)
    return [(parts[i], _norm(parts[i + 1]), parts[i + 2]) for i in range(1, len(parts), 3)]


def _answer_text(body: str) -> str:
    return re.sub(r"_Your answer:_", "", body).strip()


def check(lab_dir: str, sol_dir: str) -> list[str]:
    """What lab_dir (labs/<slug>) and sol_dir (solutions/<slug>) miss of the convention."""
    slug = os.path.basename(lab_dir)
    lab_id = slug[3:5]
    readme = _read(os.path.join(lab_dir, "README.md"))
    if readme is None:
        return ["README.md: missing"]
    problems = []
    start = section(readme, "Before you start")
    if start is None:
        problems.append("README.md: no '## 0. Before you start' section")
    else:
        found = re.findall(r"^\*\*(" + "|".join(BOLD_ITEMS) + r")\*\*", start, re.M)
        if found != BOLD_ITEMS:
            problems.append(f"README.md, Before you start: the bold items must be "
                            f"{BOLD_ITEMS} in this order; found {found}")
        done = start.split("**Done when**", 1)[-1] if "**Done when**" in start else ""
        if f"make handin LAB={lab_id}" not in done:
            problems.append(f"README.md, Done when: does not name `make handin LAB={lab_id}`")
    questions = section(readme, "Questions")
    asked = readme_questions(questions) if questions is not None else []
    if questions is None:
        problems.append("README.md: no '## Questions' section")
    elif not 3 <= len(asked) <= 6:
        problems.append(f"README.md, Questions: {len(asked)} '**Qn.**' questions, need 3 to 6")
    elif [n for n, _ in asked] != [str(i) for i in range(1, len(asked) + 1)]:
        problems.append(f"README.md, Questions: numbered {[n for n, _ in asked]}, not 1..n")
    for name, where in (("labs", lab_dir), ("solutions", sol_dir)):
        text = _read(os.path.join(where, "answers.md"))
        rel = f"{name}/{slug}/answers.md"
        if text is None:
            problems.append(f"{rel}: missing")
            continue
        got = answer_sections(text)
        if [(n, t) for n, t, _ in got] != asked:
            want = {n: t for n, t in asked}
            have = {n: t for n, t, _ in got}
            for n in sorted(set(want) | set(have), key=int):
                if want.get(n) != have.get(n):
                    problems.append(f"{rel}: Q{n} " + (
                        "is not in the handout" if n not in want else
                        "is missing" if n not in have else
                        f"differs from the handout: '{have[n][:60]}...' vs '{want[n][:60]}...'"))
        if name == "solutions":
            empty = [f"Q{n}" for n, _, body in got if not _answer_text(body)]
            if empty:
                problems.append(f"{rel}: no model answer for {', '.join(empty)}")
        elif not re.match(rf"# Lab {lab_id} — your answers", text):
            problems.append(f"{rel}: the title must be '# Lab {lab_id} — your answers'")
    challenges = section(readme, "Optional challenges")
    if challenges is None:
        problems.append("README.md: no '## Optional challenges' section")
    elif not re.search(r"^(\s*[-*] |\s*\d+\. |### )", challenges, re.M):
        problems.append("README.md, Optional challenges: no item (a bullet, a numbered item or "
                        "a ### heading)")
    hints = _read(os.path.join(lab_dir, "hints.md"))
    if hints is None:
        problems.append(f"labs/{slug}/hints.md: missing")
    else:
        levels = re.findall(r"^### Level (\d+)", hints, re.M)
        if levels != ["1", "2", "3"]:
            problems.append(f"labs/{slug}/hints.md: levels {levels}, need 1, 2, 3 "
                            "('### Level k — ...')")
    if re.search(r"^### Level \d", readme, re.M):
        problems.append("README.md: still has '### Level' hint blocks (they go to hints.md)")
    return problems


def _dirs(slug: str) -> tuple[str, str]:
    return os.path.join(ROOT, "labs", slug), os.path.join(ROOT, "solutions", slug)


@pytest.mark.parametrize("slug", sorted(DONE))
def test_handout_follows_the_convention(slug):
    problems = check(*_dirs(slug))
    assert not problems, f"{slug} misses:\n  " + "\n  ".join(problems)


def test_the_instructor_guides_lab_table_has_every_lab():
    """docs/instructor-guide.md's table of what each lab needs has a row per lab folder."""
    guide = _read(os.path.join(ROOT, "docs", "instructor-guide.md")) or ""
    rows = set(re.findall(r"^\| (\d\d) \| ", guide, re.M))
    missing = sorted(d[3:5] for d in DONE if d[3:5] not in rows)
    assert not missing, f"labs without a row in the instructor guide's table: {missing}"


def test_every_lab_is_checked():
    assert len(DONE) >= 8, sorted(DONE)


# ---- the check itself, on a fixture lab ----------------------------------------------------

QS = ["Why is your knee where it is?", "What fraction of a step is fill and drain?",
      "How far apart are your partials, in bytes?"]
README = """# Lab 99 — x

## 0. Before you start

**You will learn**

- a thing: `test_a`, question Q1.

**You should know** C.

**Time** 6–9 hours: 1 h reading.

**Done when**

> - [ ] `make grade LAB=99` passes every test.
> - [ ] `make handin LAB=99` made the archive.

## 5. Questions

Answer in `labs/lab99-x/answers.md`.

{questions}

## 6. Optional challenges

- **Faster.** Measure it: aim for 2x.

## 7. Hints

`make hint LAB=99` gives level 1.
"""


def _answers(title: str, qs: list[str], answer: str = "") -> str:
    return title + "\n\nPart of the submission (`make handin LAB=99`).\n\n" + "".join(
        f"## Q{i}. {q}\n\n_Your answer:_\n{answer}\n\n" for i, q in enumerate(qs, 1))


def fixture(tmp_path, qs=QS) -> tuple[str, str]:
    lab, sol = tmp_path / "labs" / "lab99-x", tmp_path / "solutions" / "lab99-x"
    lab.mkdir(parents=True)
    sol.mkdir(parents=True)
    # the handout wraps a question over two lines: the comparison ignores the line breaks
    text = "\n\n".join(f"**Q{i}.** " + q.replace(" is ", "\nis ", 1) for i, q in enumerate(qs, 1))
    text = text.replace("**Q3.**", "3. **Q3.**")   # a numbered list item is a question too
    (lab / "README.md").write_text(README.format(questions=text))
    (lab / "answers.md").write_text(_answers("# Lab 99 — your answers", qs))
    (sol / "answers.md").write_text(_answers("# Lab 99 — staff answers", qs, "It is 42 because."))
    (lab / "hints.md").write_text("# hints\n\n### Level 1 — a\n\nx\n\n### Level 2 — b\n\ny\n\n"
                                  "### Level 3 — c\n\nz\n")
    return str(lab), str(sol)


def test_a_lab_that_follows_the_convention_passes(tmp_path):
    assert check(*fixture(tmp_path)) == []


def test_each_departure_is_named(tmp_path):
    lab, sol = fixture(tmp_path)

    def edit(path, old, new):
        with open(path) as f:
            text = f.read()
        assert old in text, old
        with open(path, "w") as f:
            f.write(text.replace(old, new, 1))

    readme = os.path.join(lab, "README.md")
    edit(readme, "**Time** 6", "**Hours** 6")
    edit(readme, "`make handin LAB=99` made", "the archive is")
    edit(readme, "- **Faster.** Measure it: aim for 2x.", "Nothing yet.")
    edit(readme, "## 7. Hints\n", "## 7. Hints\n\n### Level 1 — a nudge\n\nx\n")
    edit(os.path.join(lab, "answers.md"), "## Q2. What fraction", "## Q2. Which fraction")
    edit(os.path.join(sol, "answers.md"), "_Your answer:_\nIt is 42 because.\n\n## Q3",
         "_Your answer:_\n\n\n## Q3")
    edit(os.path.join(lab, "hints.md"), "### Level 3 — c", "### Level 4 — c")
    problems = "\n".join(check(lab, sol))
    for what in ["the bold items must be", "does not name `make handin LAB=99`",
                 "labs/lab99-x/answers.md: Q2 differs from the handout",
                 "solutions/lab99-x/answers.md: no model answer for Q2",
                 "Optional challenges: no item", "hints.md: levels ['1', '2', '4']",
                 "still has '### Level' hint blocks"]:
        assert what in problems, f"{what!r} not reported in:\n{problems}"
    assert "solutions/lab99-x/answers.md: Q2 differs" not in problems


def test_missing_files_and_question_counts(tmp_path):
    lab, sol = fixture(tmp_path, QS[:2])
    os.remove(os.path.join(sol, "answers.md"))
    os.remove(os.path.join(lab, "hints.md"))
    problems = "\n".join(check(lab, sol))
    assert "2 '**Qn.**' questions, need 3 to 6" in problems
    assert "solutions/lab99-x/answers.md: missing" in problems
    assert "labs/lab99-x/hints.md: missing" in problems


if __name__ == "__main__":
    for slug in sorted(d for d in os.listdir(os.path.join(ROOT, "labs")) if d.startswith("lab")):
        problems = check(*_dirs(slug))
        print(f"{slug}: {'follows the convention' if not problems else 'misses:'}"
              f"{' (in DONE)' if slug in DONE else ''}")
        for p in problems:
            print("  " + p)
    sys.exit(0)
