"""`make new-lab N=09 SLUG=topic`: the scaffold of a new lab, which `make test` accepts as it is.

It writes labs/labNN-slug/ (lab.toml, a header, a skeleton source that compiles and fails its one
test, the test, a benchmark with one timed metric, the handout's sections with TODO markers,
hints.md, answers.md), solutions/labNN-slug/ (the reference that passes, variants.toml with one
naive variant that scores zero on the metric, the staff answers) and slides/labNN-slug.md with a
placeholder figure, slides/figures/labNN-slug.svg. The example exercise (sum a row-major matrix in
the order it lies in memory, timed against a column-order walk) is there to be replaced: every
place a course fills in says TODO. docs/instructor-guide.md, "Adding your own lab", walks through
it. The templates are files under grader/templates/newlab/: tree/ mirrors what is written (a
{{NAME}} mark in a path or a text is replaced, nothing else is), questions.md holds the handout's
questions (one per paragraph) and staff-answer.md the staff's answer to each."""
from __future__ import annotations

import argparse
import os
import re
import sys

from ..rules.config import ConfigError
from ..rules.labs import ROOT

SLUG_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
MAX_SLUG = 40


def number(n: str) -> str:
    """n ("9", "09") as the lab's two digits; raises ConfigError unless it is 1 to 99."""
    if not re.fullmatch(r"\d{1,2}", n or "") or int(n) == 0:
        raise ConfigError(f"bad lab number '{n}': give 1 to 99 (N=09)")
    return n.zfill(2)


def check_slug(slug: str) -> str:
    """slug, checked: lower-case words of letters and digits joined by single hyphens, starting
    with a letter (it names the folder and, with '-' as '_', the C functions). Raises
    ConfigError saying what is wrong."""
    if not slug:
        raise ConfigError("missing slug: give the lab's topic in a few words (SLUG=kv-cache)")
    if not SLUG_RE.match(slug) or len(slug) > MAX_SLUG:
        raise ConfigError(
            f"bad slug '{slug}': use lower-case letters, digits and single hyphens, starting "
            f"with a letter, at most {MAX_SLUG} characters (e.g. SLUG=kv-cache)")
    if re.match(r"lab\d", slug):
        raise ConfigError(f"bad slug '{slug}': give the topic alone (SLUG=kv-cache, not "
                          "lab09-kv-cache): the folder's labNN- comes from N")
    if slug == "mm" or slug.startswith("mm-"):
        raise ConfigError(f"bad slug '{slug}': mm_ is the prefix of the shared helpers in "
                          "common/, and the lab's C names begin with the slug")
    return slug


def _taken(root: str, num: str, slug: str) -> tuple[list[str], list[str]]:
    """(what has lab number num, what has the slug): lab, solution and deck paths under root."""
    by_num, by_slug = [], []
    for sub, suffix in (("labs", ""), ("solutions", ""), ("slides", ".md")):
        folder = os.path.join(root, sub)
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            m = re.fullmatch(r"lab(\d\d)-(.+)" + re.escape(suffix), name)
            if m and m.group(1) == num:
                by_num.append(f"{sub}/{name}")
            elif m and m.group(2) == slug:
                by_slug.append(f"{sub}/{name}")
    return by_num, by_slug


def check(root: str, n: str, slug: str) -> tuple[str, str]:
    """(the two-digit number, the slug), after refusing a bad number or slug, and a number or a
    slug that a lab, a solution or a deck under root already has (ConfigError)."""
    num, slug = number(n), check_slug(slug)
    by_num, by_slug = _taken(root, num, slug)
    if by_num:
        raise ConfigError(f"lab {num} exists already ({', '.join(by_num)}): pick another N")
    if by_slug:
        raise ConfigError(f"the slug '{slug}' is taken ({', '.join(by_slug)}): pick another "
                          "SLUG")
    return num, slug


def names(num: str, slug: str, title: str | None = None) -> dict[str, str]:
    """The values of the templates' {{NAME}} marks."""
    ident = slug.replace("-", "_")
    return {"N": num, "SLUG": slug, "LAB": f"lab{num}-{slug}", "ID": ident,
            "GUARD": ident.upper() + "_H",
            "TITLE": title or slug.replace("-", " ").capitalize()}


def fill(template: str, values: dict[str, str]) -> str:
    """template with each {{NAME}} replaced (KeyError on a mark values lacks: a template bug)."""
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: values[m.group(1)], template)


TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "templates",
                         "newlab")


def _read(*parts: str) -> str:
    with open(os.path.join(TEMPLATES, *parts)) as f:
        return f.read()


def _tree() -> dict[str, str]:
    """Template path (with marks) -> template text, for every file of templates/newlab/tree/."""
    root, out = os.path.join(TEMPLATES, "tree"), {}
    for d, _, names_here in os.walk(root):
        for name in names_here:
            with open(os.path.join(d, name)) as f:
                out[os.path.relpath(os.path.join(d, name), root)] = f.read()
    return out


def files(values: dict[str, str]) -> dict[str, str]:
    """Relative path -> text of every file of the scaffold."""
    qs = [fill(q, values) for q in _read("questions.md").strip().split("\n\n")]
    staff_answer = fill(_read("staff-answer.md"), values)
    questions = "\n\n".join(f"**Q{i}.** {q}" for i, q in enumerate(qs, 1))
    after = {  # what follows a template's own text, by template path
        "labs/{{LAB}}/answers.md": "".join(f"## Q{i}. {q}\n\n_Your answer:_\n\n\n\n"
                                           for i, q in enumerate(qs, 1)),
        "solutions/{{LAB}}/answers.md": "".join(f"## Q{i}. {q}\n\n{staff_answer}\n"
                                                for i, q in enumerate(qs, 1))}
    out = {}
    for path, text in _tree().items():
        text = text.replace("{{QUESTIONS}}", questions) + after.get(path, "")
        out[fill(path, values)] = fill(text, values).rstrip("\n") + "\n"
    return out


def create(n: str, slug: str, root: str = ROOT, title: str | None = None) -> list[str]:
    """Writes the scaffold of lab n (slug) under root; returns the paths written, relative to
    root. Raises ConfigError, writing nothing, on a bad or taken number or slug, or a file that
    is there already."""
    num, slug = check(root, n, slug)
    if title is not None and (not title.strip() or re.search(r'["\\\x00-\x1f]', title)):
        raise ConfigError(f"bad title {title!r}: one line of text without '\"' or '\\' "
                          "(it goes into lab.toml as it is)")
    out = files(names(num, slug, title))
    there = [p for p in out if os.path.exists(os.path.join(root, p))]
    if there:
        raise ConfigError(f"{', '.join(there)} exists already; nothing written")
    for rel, text in out.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return sorted(out)


NEXT_STEPS = """
lab {num} is in labs/{lab}/; its reference in solutions/{lab}/; its deck in slides/{lab}.md.
As it stands it is an example (sum a matrix in memory order) that `make test` accepts:
  make lab{num}                               the skeleton: builds, fails its one test
  make grade LAB={num} SUBMISSION=solutions   the reference: full marks
Then make it yours: every place to fill in says TODO (grep -rn TODO labs/{lab} solutions/{lab}
slides/{lab}.md). docs/instructor-guide.md, "Adding your own lab", walks through it."""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m grader.classtools.newlab",
                                description="Writes the scaffold of a new lab (make new-lab).")
    p.add_argument("--n", required=True, help="the lab's number, 1 to 99 (09)")
    p.add_argument("--slug", required=True, help="its topic: lower-case words joined by "
                   "hyphens (kv-cache); the folder is labNN-<slug>")
    p.add_argument("--title", help="the handout's title (default: from the slug)")
    p.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    try:
        written = create(a.n, a.slug, a.root, a.title)
    except ConfigError as e:
        print(f"mlmem: new-lab: {e}", file=sys.stderr)
        return 2
    for rel in written:
        print(f"  wrote {rel}")
    lab = written[0].split("/")[1]
    print(NEXT_STEPS.format(num=lab[3:5], lab=lab))
    return 0


if __name__ == "__main__":
    sys.exit(main())
