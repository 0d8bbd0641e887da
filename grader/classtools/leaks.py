"""What of a solution a student tree gives away (`make release`'s check, grader/classtools/release.py):
whole distinctive lines of solutions/, and runs of WINDOW or more C tokens of one solution line
that the skeleton and the rest of the student tree's code do not have (comments and whitespace
ignored, integer literals by value), so that an expression quoted inside a sentence of a handout
or a hint is caught. Pure functions of the files they are given; nothing here writes."""
from __future__ import annotations

import os
import re

from ..rules import labs
from ..rules.files import read_text
from ..rules.labs import ROOT


def _norm(line: str) -> str:
    return " ".join(line.split())


def _code_lines(path: str) -> set[str]:
    try:
        with open(path, errors="replace") as f:
            return {_norm(l) for l in f}
    except OSError:
        return set()


def _public_code(files: list[str], editable: set[str]) -> set[str]:
    """Every line of the student tree's code files other than the editable skeletons (headers,
    tests, baselines, common/): a solution line found there gives nothing away."""
    lines = set()
    for f in files:
        if f.endswith((".c", ".h", ".cu")) and f not in editable:
            lines |= _code_lines(os.path.join(ROOT, f))
    return lines


def distinctive_lines(tree: list[str]) -> dict[str, str]:
    """Lines of the solutions found neither in the skeleton of the same file nor in the student
    tree's other code (tree: its files, relative to the repository), and long enough to be code written for the answer (normalized line ->
    solution file:line)."""
    all_labs = [labs.load(s) for s in labs.slugs()]
    editable = {f"labs/{lab.slug}/{rel}" for lab in all_labs for rel in lab.editable}
    public = _public_code(tree, editable)
    out = {}
    sol_root = os.path.join(ROOT, "solutions")
    for d, _, files in os.walk(sol_root):
        for f in files:
            if not f.endswith((".c", ".h", ".cu")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, sol_root)
            skeleton = _code_lines(os.path.join(labs.LABS_DIR, rel))
            with open(path, errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    s = _norm(line)
                    if (len(s) >= 24 and s not in skeleton and s not in public and
                            not s.startswith(("/*", "*", "//", "#include"))):
                        out.setdefault(s, f"solutions/{rel}:{n}")
    return out


def text_files(dest: str):
    """(path relative to dest, text) of every file under dest that reads as UTF-8, .git left
    out, in a stable order."""
    for d, dirs, files in os.walk(dest):
        dirs[:] = sorted(x for x in dirs if x != ".git")
        for f in sorted(files):
            path = os.path.join(d, f)
            try:
                with open(path, errors="strict") as fh:
                    yield os.path.relpath(path, dest), fh.read()
            except (OSError, UnicodeDecodeError):
                continue


def leaks(dest: str, wanted: dict[str, str]) -> list[str]:
    """Where distinctive solution lines (`wanted`, from distinctive_lines()) occur in the tree
    at dest ('file:line <- source')."""
    return [f"{rel}:{n} <- {wanted[_norm(line)]}" for rel, text in text_files(dest)
            for n, line in enumerate(text.split("\n"), 1) if _norm(line) in wanted]


# ---- token windows: a solution expression quoted inside prose --------------------------------

WINDOW = 6   # consecutive tokens of one solution line that count as a quote

_TOKEN = re.compile(r"""
    (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<chr>'(?:\\[^\n]{1,3}|[^'\\\n])')
  | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#
           |[][{}();,.<>+\-*/%&|^!~?:=\#])
""", re.X)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# What a handout writes for the ASCII operators (a quoted expression typeset in prose).
_TYPESET = str.maketrans({"\u2212": "-", "\u00d7": "*", "\u2264": "<=", "\u2265": ">=",
                          "\u2260": "!=", "\u2018": "'", "\u2019": "'"})
_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while bool true false NULL""".split())


def _num(text: str) -> str:
    """An integer literal by value (0x10u and 16 are one token); other numbers as written."""
    t = text.lower().rstrip("ul")
    try:
        return str(int(t, 0)) if not re.fullmatch(r"0\d+", t) else str(int(t, 8))
    except ValueError:
        return text.lower().rstrip("f") if "x" not in text.lower() else text.lower()


def tokens(text: str, strip_comments: bool = False) -> list[tuple[str, int]]:
    """C tokens of text with their line numbers (1-based). Anything that is no C token
    (whitespace, backquotes, Markdown, other characters) is skipped, so prose quoting code gives
    the code's tokens. strip_comments: C comments are dropped first (solution files)."""
    text = text.translate(_TYPESET)
    if strip_comments:
        text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n") + " ", text)
    out, line, pos = [], 1, 0
    for m in _TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        tok = _num(m.group(0)) if m.lastgroup == "num" else m.group(0)
        out.append((tok, line))
    return out


def _windows(toks: list[str], n: int = WINDOW) -> set[tuple[str, ...]]:
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def _text_windows(text: str, n: int = WINDOW) -> set[tuple[str, ...]]:
    """Every window of text's tokens, with and without its comments (what a file shows)."""
    return (_windows([t for t, _ in tokens(text)], n) |
            _windows([t for t, _ in tokens(text, strip_comments=True)], n))


_NOT_OPERATORS = frozenset("(){}[],;#")


def _distinctive(window: tuple[str, ...]) -> bool:
    """A window of an expression: at least two names or numbers that are not C keywords and at
    least one operator (not `) ; } else {`, nor a call's argument list `f(a, b, c)`, which the
    headers' prototypes spell out anyway)."""
    names = sum(1 for t in window if (t[0].isalnum() or t[0] == "_") and t not in _KEYWORDS)
    ops = sum(1 for t in window if not (t[0].isalnum() or t[0] in "_\"'" or
                                       t in _NOT_OPERATORS or t == "##"))
    return names >= 2 and ops >= 1


_COUNTING_LOOP = re.compile(r"for \( (?:\w+ )*(\w+) = 0 ; \1 < [^;]+ ; (?:\1 \+\+|\+\+ \1) \)")


def _idiom_spans(toks: list[str]) -> list[tuple[int, int]]:
    """[start, end) token spans of counting-loop headers (`for (size_t i = 0; i < n; i++)`): a
    window inside one is an idiom every C program has, not a solution's expression."""
    text, starts, pos = "", [], 0
    for t in toks:
        starts.append(pos)
        text += t + " "
        pos += len(t) + 1
    spans = []
    for m in _COUNTING_LOOP.finditer(text):
        first = starts.index(m.start())
        spans.append((first, first + len(m.group(0).split())))
    return spans


def solution_windows(solution: dict[str, str], skeleton: dict[str, str], public: list[str],
                     n: int = WINDOW) -> dict[tuple[str, ...], list[str]]:
    """Token windows of the solutions (rel path -> text, comments dropped, one line at a time,
    #include lines left out) found neither in the skeleton of the same file (rel -> text) nor in
    any of the public texts: window -> ['rel:line', ...] (every place it occurs). Pure, so
    fixtures can test it."""
    seen = set()
    for text in public:
        seen |= _text_windows(text, n)
    out: dict[tuple[str, ...], list[str]] = {}
    for rel in sorted(solution):
        mine = seen | _text_windows(skeleton.get(rel, ""), n)
        by_line: dict[int, list[str]] = {}
        for tok, line in tokens(solution[rel], strip_comments=True):
            by_line.setdefault(line, []).append(tok)
        for line, toks in sorted(by_line.items()):
            if toks[:2] == ["#", "include"]:
                continue
            idioms = _idiom_spans(toks)
            for i in range(len(toks) - n + 1):
                w = tuple(toks[i:i + n])
                if (w not in mine and _distinctive(w) and
                        not any(lo <= i and i + n <= hi for lo, hi in idioms)):
                    where = f"{rel}:{line}"
                    if where not in out.setdefault(w, []):
                        out[w].append(where)
    return out


# The student tree's files whose windows give nothing away (code other than the editable
# skeletons: headers, tests, baselines, common/, the grader): documents are what is searched.
PUBLIC_CODE = (".c", ".h", ".cu", ".py", ".sh", ".mk", "Makefile")


def distinctive_windows(tree: list[str], n: int = WINDOW) -> dict[tuple[str, ...], list[str]]:
    """solution_windows() of this repository: solutions/ against labs/ and the student tree's
    other code (tree: its files; window -> ['solutions/<lab>/<file>:line', ...])."""
    all_labs = [labs.load(s) for s in labs.slugs()]
    editable = {f"labs/{lab.slug}/{rel}" for lab in all_labs for rel in lab.editable}
    public = [read_text(os.path.join(ROOT, f)) for f in tree
              if f.endswith(PUBLIC_CODE) and f not in editable]
    sol_root = os.path.join(ROOT, "solutions")
    solution, skeleton = {}, {}
    for d, _, files in os.walk(sol_root):
        for f in files:
            if f.endswith((".c", ".h", ".cu")):
                rel = os.path.relpath(os.path.join(d, f), sol_root)
                solution[rel] = read_text(os.path.join(d, f))
                skeleton[rel] = read_text(os.path.join(labs.LABS_DIR, rel))
    return {w: [f"solutions/{src}" for src in srcs]
            for w, srcs in solution_windows(solution, skeleton, public, n).items()}


def quoted(text: str,
           wanted: dict[tuple[str, ...], list[str]]) -> list[tuple[int, list[str], str]]:
    """Where text quotes a wanted window: (line, its sources, the quoted tokens), one per run of
    overlapping windows (a quote of 10 tokens is one hit, not five)."""
    if not wanted:
        return []
    n = len(next(iter(wanted)))
    toks = tokens(text)
    hits, last_end = [], -1
    for i in range(len(toks) - n + 1):
        w = tuple(t for t, _ in toks[i:i + n])
        src = wanted.get(w)
        if not src:
            continue
        if i <= last_end:
            line, srcs, q = hits[-1]
            hits[-1] = (line, srcs + [x for x in src if x not in srcs],
                        q + " " + " ".join(t for t, _ in toks[last_end + 1:i + n]))
        else:
            hits.append((toks[i][1], list(src), " ".join(w)))
        last_end = i + n - 1
    return hits


def _source(path: str, srcs: list[str]) -> str:
    """The source to name for a quote in path: one of the same lab's solution if there is one."""
    parts = [p.removesuffix(".md") for p in path.split(os.sep)]
    same = [s for s in srcs if any(p.startswith("lab") and f"/{p}/" in s for p in parts)]
    return (same or srcs)[0]


def token_leaks(dest: str, wanted: dict[tuple[str, ...], list[str]]) -> list[str]:
    """Where the tree at dest quotes a distinctive solution window (`wanted`, from
    distinctive_windows(); 'file:line <- source: tokens'), in any text file: handouts, hints,
    slides, comments, code."""
    return [f"{rel}:{line} <- {_source(rel, srcs)}: {q}" for rel, text in text_files(dest)
            for line, srcs, q in quoted(text, wanted)]
