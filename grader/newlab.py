"""`make new-lab N=09 SLUG=topic`: the scaffold of a new lab, which `make test` accepts as it is.

It writes labs/labNN-slug/ (lab.toml, a header, a skeleton source that compiles and fails its one
test, the test, a benchmark with one timed metric, the handout's sections with TODO markers,
hints.md, answers.md), solutions/labNN-slug/ (the reference that passes, variants.toml with one
naive variant that scores zero on the metric, the staff answers) and slides/labNN-slug.md with a
placeholder figure, slides/figures/labNN-slug.svg. The example exercise (sum a row-major matrix in
the order it lies in memory, timed against a column-order walk) is there to be replaced: every
place a course fills in says TODO. docs/instructor-guide.md, "Adding your own lab", walks through
it. The templates are the strings below; {{NAME}} marks are replaced, nothing else is."""
from __future__ import annotations

import argparse
import os
import re
import sys

from .config import ConfigError
from .labs import ROOT

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


def files(values: dict[str, str]) -> dict[str, str]:
    """Relative path -> text of every file of the scaffold."""
    lab, sol, ident = f"labs/{values['LAB']}", f"solutions/{values['LAB']}", values["ID"]
    qs = [fill(q, values) for q in QUESTIONS]
    questions = "\n\n".join(f"**Q{i}.** {q}" for i, q in enumerate(qs, 1))
    student = "".join(f"## Q{i}. {q}\n\n_Your answer:_\n\n\n\n" for i, q in enumerate(qs, 1))
    staff = "".join(f"## Q{i}. {q}\n\n{fill(STAFF_ANSWER, values)}\n" for i, q in
                    enumerate(qs, 1))
    out = {
        f"{lab}/lab.toml": LAB_TOML,
        f"{lab}/include/{ident}.h": HEADER,
        f"{lab}/src/{ident}.c": SKELETON,
        f"{lab}/tests/check_{ident}.c": TEST,
        f"{lab}/tests/support.h": SUPPORT_H,
        f"{lab}/tests/support.c": SUPPORT_C,
        f"{lab}/bench/bench_lab{values['N']}.c": BENCH,
        f"{lab}/README.md": README.replace("{{QUESTIONS}}", questions),
        f"{lab}/hints.md": HINTS,
        f"{lab}/answers.md": STUDENT_ANSWERS + student,
        f"{sol}/src/{ident}.c": REFERENCE,
        f"{sol}/variants.toml": VARIANTS,
        f"{sol}/answers.md": STAFF_ANSWERS + staff,
        f"slides/{values['LAB']}.md": DECK,
        f"slides/figures/{values['LAB']}.svg": FIGURE,
    }
    return {path: fill(text, values).rstrip("\n") + "\n" for path, text in out.items()}


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
    p = argparse.ArgumentParser(prog="python3 -m grader.newlab",
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


# ---- the templates ----------------------------------------------------------------------------

LAB_TOML = """\
# Lab {{N}} — {{TITLE}}. Read by the grader (grader/labs.py); every key is checked.
# TODO(course): the example exercise's test and metric; replace them with your lab's.
[lab]
title = "{{TITLE}}"
editable = ["src/{{ID}}.c"]

[limits]
test_timeout_s = 10      # per Check test
bench_timeout_s = 60

# Correctness: one [[tests]] table per MM_TEST in tests/*.c (grader/tests/test_labs.py checks).
[[tests]]
name = "test_sum_matches_oracle"
points = 10

# Performance: what bench/bench_lab{{N}}.c reports. TODO(course): calibrate zero and full
# (`make calibrate LAB={{N}}`), and say in README.md what you measured.
[[metrics]]
name = "sum_speedup"
title = "your sum vs the column-order walk"
points = 10
zero = 1.5
full = 3.0
unit = "x"
"""

HEADER = """\
/* Lab {{N}} — {{TITLE}}: the contract of the code you write (src/{{ID}}.c).
 * TODO(course): the example's one function; declare your lab's API here. Only what this folder's
 * headers declare is visible outside the student's object (common/student-object.sh). */
#ifndef {{GUARD}}
#define {{GUARD}}
#include <stddef.h>

/* The sum of the rows * cols floats of the row-major matrix m (element (i, j) at m[i * cols + j]),
 * added in double precision, into *sum; reads every element once and writes nothing else.
 * Returns 0, or:
 *   -EINVAL: sum is NULL, or m is NULL while rows * cols > 0 (*sum is left as it was). */
int {{ID}}_sum(const float *m, size_t rows, size_t cols, double *sum);

#endif
"""

SKELETON = """\
/* Lab {{N}} — {{TITLE}}: your code. The contract is in include/{{ID}}.h. */
#include <errno.h>
#include "{{ID}}.h"

int {{ID}}_sum(const float *m, size_t rows, size_t cols, double *sum)
{
    /* YOUR CODE HERE: check the arguments, then add every element, visiting them in the order
     * they lie in memory. */
    (void)m;
    (void)rows;
    (void)cols;
    (void)sum;
    return -ENOSYS;
}
"""

REFERENCE = """\
/* Lab {{N}} — {{TITLE}}: the reference. The contract is in include/{{ID}}.h. */
#include <errno.h>
#include "{{ID}}.h"

int {{ID}}_sum(const float *m, size_t rows, size_t cols, double *sum)
{
    if (!sum || (rows > 0 && cols > 0 && !m))
        return -EINVAL;
    double s = 0.0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            s += m[i * cols + j];
    *sum = s;
    return 0;
}
"""

TEST = """\
/* Lab {{N}} tests: {{ID}}_sum against the oracle of tests/support.c. Each MM_TEST registers itself;
 * its points are in lab.toml. TODO(course): your lab's tests. */
#include <errno.h>
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"
#include "{{ID}}.h"

MM_TEST(test_sum_matches_oracle)
{
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 5 }, { 257, 129 }, { 0, 7 } };
    mm_rng_t r = MM_RNG();
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t rows = shapes[k][0], cols = shapes[k][1];
        float *m = tu_matrix(&r, rows, cols);
        double got = -1.0;
        MM_ASSERT_OK({{ID}}_sum(m, rows, cols, &got));
        ck_assert_msg(got == tu_sum(m, rows, cols), "%zu x %zu: sum %.17g, expected %.17g",
                      rows, cols, got, tu_sum(m, rows, cols));
        free(m);
    }
    MM_ASSERT_ERR({{ID}}_sum(NULL, 2, 2, &(double){ 0 }), -EINVAL);
}
MM_END_TEST
"""

SUPPORT_H = """\
/* Lab {{N}} tests: shared helpers and the oracle, which never call the code under test. */
#ifndef TU_SUPPORT_H
#define TU_SUPPORT_H
#include <stddef.h>
#include "mm_rng.h"

/* A rows x cols row-major matrix (at least one float) of whole numbers 0..255, so that any order
 * of adding them gives the same double; free() it. Fails the test if it cannot allocate. */
float *tu_matrix(mm_rng_t *r, size_t rows, size_t cols);

/* The sum of the matrix's elements, one by one. */
double tu_sum(const float *m, size_t rows, size_t cols);

#endif
"""

SUPPORT_C = """\
/* Lab {{N}} tests: shared helpers and the oracle (see support.h). */
#include <stdlib.h>
#include "mm_check.h"
#include "support.h"

float *tu_matrix(mm_rng_t *r, size_t rows, size_t cols)
{
    size_t n = rows * cols;
    float *m = malloc((n ? n : 1) * sizeof *m);
    ck_assert_ptr_nonnull(m);
    for (size_t i = 0; i < n; i++)
        m[i] = (float)mm_rng_range(r, 0, 255);
    return m;
}

double tu_sum(const float *m, size_t rows, size_t cols)
{
    double s = 0.0;
    for (size_t k = 0; k < rows * cols; k++)
        s += m[k];
    return s;
}
"""

BENCH = """\
/* Lab {{N}} benchmark: your {{ID}}_sum against a walk of the same matrix column by column, timed
 * in the same run, round by round (common/mm_bench.h). Prints one JSON object; the grader scores
 * it with lab.toml's thresholds. TODO(course): your lab's metrics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mm_bench.h"
#include "{{ID}}.h"

#define ROWS 2048
#define COLS 2048 /* 16 MiB of floats: more than the caches hold */
#define REPS 11
#define WARMUP 1

typedef struct {
    const float *m;
    double sum;
    int rc;
} sum_case_t;

/* The baseline: element (i, j) after (i - 1, j), a stride of COLS floats, a new line each time. */
static void run_columns(void *p)
{
    sum_case_t *c = p;
    double s = 0.0;
    for (size_t j = 0; j < COLS; j++)
        for (size_t i = 0; i < ROWS; i++)
            s += c->m[i * COLS + j];
    c->sum = s;
    c->rc = 0;
}

static void run_yours(void *p)
{
    sum_case_t *c = p;
    c->rc = {{ID}}_sum(c->m, ROWS, COLS, &c->sum);
}

static void bench_sum(mm_json_t *j, const float *m)
{
    sum_case_t base = { m, 0, 0 }, yours = { m, 0, 0 };
    mm_bench_case_t cb = { "column order", run_columns, &base },
                    cy = { "yours", run_yours, &yours };
    double ratio, t_base, t_yours;
    run_yours(&yours);
    if (yours.rc != 0) {
        mm_bench_failf(j, "sum_speedup", "{{ID}}_sum returned %d (%s)", yours.rc,
                       strerror(yours.rc < 0 ? -yours.rc : EINVAL));
        return;
    }
    if (mm_bench_paired_ratio(&cb, &cy, WARMUP, REPS, &ratio, &t_base, &t_yours) != 0) {
        mm_bench_fail(j, "sum_speedup", "could not time the rounds (out of memory)");
        return;
    }
    if (yours.rc != 0 || yours.sum != base.sum) {
        mm_bench_failf(j, "sum_speedup", "{{ID}}_sum gave %.17g, the column walk %.17g",
                       yours.sum, base.sum);
        return;
    }
    mm_bench_speedup(j, "sum_speedup", ratio, "column order", t_base, t_yours, REPS,
                     "a %d x %d float matrix", ROWS, COLS);
}

int main(void)
{
    mm_json_t j;
    mm_bench_open(&j, "{{N}}");
    float *m = malloc((size_t)ROWS * COLS * sizeof *m);
    if (!m) {
        mm_bench_fail(&j, "sum_speedup", "out of memory for the matrix");
    } else {
        for (size_t k = 0; k < (size_t)ROWS * COLS; k++)
            m[k] = (float)(k % 251);
        bench_sum(&j, m);
    }
    mm_bench_end_metrics(&j);
    mm_json_object(&j, "info");
    mm_json_int(&j, "matrix_mib", (long long)((size_t)ROWS * COLS * sizeof(float) >> 20));
    mm_json_end(&j);
    free(m);
    return 0;
}
"""

VARIANTS = """\
# Naive version of the lab {{N}} reference, for calibration and `make test`: it must pass the
# tests and score zero on the performance it gives up (grader/variants.py).
# TODO(course): a naive version of your reference.
[naive]
description = "the sum walks the matrix column by column: correct, a cache miss per element"
metrics_zero = ["sum_speedup"]
[[naive.patch]]
file = "src/{{ID}}.c"
old = "    for (size_t i = 0; i < rows; i++)\\n        for (size_t j = 0; j < cols; j++)\\n"
new = "    for (size_t j = 0; j < cols; j++)\\n        for (size_t i = 0; i < rows; i++)\\n"
"""

QUESTIONS = [
    "TODO(course): a question on the student's own figures. Example: from your `sum_speedup` "
    "message, how many nanoseconds does one element cost in column order and in yours, and "
    "what does the difference say about a cache miss on this machine?",
    "TODO(course): Example: your matrix is 16 MiB. Which cache level serves your sum, and "
    "which the column walk? Name the figures of `make hwinfo` you used.",
    "TODO(course): Example: at what matrix width would the column walk stop missing on every "
    "element, on your machine? Say how you worked it out.",
]

README = """\
# Lab {{N}} — {{TITLE}}

> TODO(course): the lab in two sentences: what the student measures, fixes and learns.

## 0. Before you start

**You will learn**

- TODO(course): an objective, and what checks it: to visit memory in the order it lies, the
  `test_sum_matches_oracle` test and the `sum_speedup` metric, questions Q1 and Q2.
- TODO(course): another objective: to predict where a strided walk stops paying a miss per
  element, question Q3.

**You should know** TODO(course): C pointers and arrays, row-major layout, what a cache line is
(lab 01).

**Time** TODO(course): an honest range and what it is based on (e.g. "3–5 hours: 1 h reading,
1–2 h for the code, 1 h for the questions; the staff reference is N lines of C").

**Done when**

> - [ ] `make grade LAB={{N}}` shows every unit test passing (10 points).
> - [ ] `sum_speedup` reaches full credit: 3.0x or more (TODO(course): your metrics and their
>   full-credit thresholds from lab.toml).
> - [ ] Every question in `labs/{{LAB}}/answers.md` is answered, with your own figures.
> - [ ] `make handin LAB={{N}}` made the archive.

| | |
|---|---|
| **You edit** | `src/{{ID}}.c`, `answers.md` |
| **You read** | `include/{{ID}}.h` (the contract) |
| **Build + unit tests** | `make lab{{N}}` |
| **Grade** | `make grade LAB={{N}}` |

## 1. The story

TODO(course): the situation in an ML system where this matters, with real numbers.

## 2. Background

TODO(course): what the student needs to know, with figures you measured (say on what machine).

## 3. Your task

Write `{{ID}}_sum` in `src/{{ID}}.c` as `include/{{ID}}.h` describes it: the sum of a row-major
matrix of floats, added in double precision, with the arguments checked.
TODO(course): your lab's parts, one `### Part` each.

## 4. Build, test, look

```sh
make lab{{N}}              # builds labs/{{LAB}}/ and runs the unit tests
make grade LAB={{N}}       # tests and benchmark, scored
```

## 5. Grading

| What | Points | How |
|---|---|---|
| `test_sum_matches_oracle` | 10 | sums of random matrices of several shapes, and a NULL matrix |
| `sum_speedup` | 10 | your sum against a column-order walk of a 2048 × 2048 matrix, same run: 0 points at 1.5x, full at 3.0x |

TODO(course): your tests and metrics, as lab.toml has them.

## 6. Questions

Answer in `labs/{{LAB}}/answers.md` (part of `make handin LAB={{N}}`), with your own figures.

{{QUESTIONS}}

## 7. Optional challenges

- TODO(course): a challenge beyond the contract, with what to measure and what a good result
  looks like. Example: split the sum over two threads; measure `sum_speedup` with one and two
  and explain the difference (a good result: close to 2x on two idle cores, or a reason why not).

## 8. Hints

Run `make hint LAB={{N}}` for level 1; ask for the next level (`make hint LAB={{N}} LEVEL=2`) only
when the one before did not unstick you.

## Calibration (for course staff)

TODO(course): what `make calibrate LAB={{N}} --dry-run` measured for the reference and the naive
variant on your grading machine, and the thresholds you chose from it.
"""

HINTS = """\
# Lab {{N}} — hints

Three levels, each giving away more than the one before. `make hint LAB={{N}}` prints level 1,
`make hint LAB={{N}} LEVEL=2` the next; ask for a level only when the one before did not unstick
you. TODO(course): hints for your lab; level 3 describes the step in words, never the code.

### Level 1 — a nudge

- Which element comes right after element (i, j) in memory: (i, j + 1) or (i + 1, j)?

### Level 2 — the shape

- Two loops, one over rows and one over columns. Which one is inside decides the stride of each
  step; check the arguments before either.

### Level 3 — the step in words

- Keep the column loop inside the row loop, so that each step moves one float on and a cache
  line serves sixteen elements in a row.
"""

STUDENT_ANSWERS = """\
# Lab {{N}} — your answers

This file is part of your submission (`make handin LAB={{N}}`): answer with your own figures.

"""

STAFF_ANSWERS = """\
# Lab {{N}} — answers (staff)

Model answers and grading notes for `labs/{{LAB}}/answers.md`. Staff only: `solutions/` never
reaches the release.

"""

STAFF_ANSWER = """\
**Model answer.** TODO(course): the answer with the figures of the handout's calibration table.

**Grading notes.** TODO(course): what a good student answer must mention.
"""

DECK = """\
---
marp: true
theme: default
paginate: true
title: "Lab {{N}} — {{TITLE}}"
style: |
  section { font-size: 26px; }
  section.figure { padding: 36px 50px 40px 50px; }
  section.figure h2 { margin: 0 0 8px 0; }
  section.figure p { text-align: center; margin: 0; }
---

<!-- _paginate: false -->

# Lab {{N}} — {{TITLE}}

TODO(course): the lab in one line.

*mlmem — memory for machine-learning systems*

---

## The story

TODO(course): the situation, with real numbers (the handout's section 1).

---

<!-- _class: figure -->

## Row order and column order

![w:1100](figures/{{LAB}}.svg)

---

## Your task

- `{{ID}}_sum` in `src/{{ID}}.c`: the sum of a row-major matrix, in memory order
- graded: `test_sum_matches_oracle` (10 points), `sum_speedup` (10 points, full at 3.0x)

TODO(course): your lab's parts and metrics; any correction to the handout goes here too.
"""

FIGURE = """\
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1100 420" width="1100" height="420" font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif">
  <!-- Lab {{N}} placeholder figure (TODO(course): draw your own, e.g. in slides/figures/make_figures.py). -->
  <rect x="0" y="0" width="1100" height="420" fill="#ffffff"/>
  <g font-size="26" fill="#222222">
    <text x="275" y="44" text-anchor="middle">row order: one line serves 16 floats</text>
    <text x="825" y="44" text-anchor="middle">column order: a new line every step</text>
  </g>
  <g fill="#cfe0f5" stroke="#2b6cb0" stroke-width="2">
    <rect x="95" y="80" width="360" height="60"/>
    <rect x="95" y="160" width="360" height="60"/>
    <rect x="95" y="240" width="360" height="60"/>
    <rect x="95" y="320" width="360" height="60"/>
  </g>
  <g fill="#f6d5d1" stroke="#c0392b" stroke-width="2">
    <rect x="645" y="80" width="360" height="60"/>
    <rect x="645" y="160" width="360" height="60"/>
    <rect x="645" y="240" width="360" height="60"/>
    <rect x="645" y="320" width="360" height="60"/>
  </g>
  <g stroke="#2b6cb0" stroke-width="4" fill="none">
    <path d="M 110 110 H 440"/>
    <path d="M 110 190 H 440"/>
    <path d="M 110 270 H 440"/>
    <path d="M 110 350 H 440"/>
  </g>
  <g stroke="#c0392b" stroke-width="4" fill="none">
    <path d="M 670 100 V 360"/>
    <path d="M 730 100 V 360"/>
    <path d="M 790 100 V 360"/>
  </g>
</svg>
"""

if __name__ == "__main__":
    sys.exit(main())
