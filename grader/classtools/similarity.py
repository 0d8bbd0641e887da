"""A batch's similarity check with a tool made for it: Debian's similarity-tester (`sim_c`, which
compares C token streams, so renamed variables do not hide a copy). Per lab, each student's
editable files are joined into one file with the skeleton's lines taken out (code every student
was handed is not evidence), sim_c compares every pair, and the pairs at or above THRESHOLD
percent are flagged. Writes <out>/similarity.json (the pairs, the flagged ones, the tool) and
similarity.txt (sim_c's report); where sim_c is absent it says so and goes on. Never changes a
grade: it is for the staff to read."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

from . import batch
from ..rules.labs import Lab

THRESHOLD = 50           # percent of a file made of another's material: flagged from here
TOOL = "sim_c"
LINE = re.compile(r"^(\S+) consists for (\d+) % of (\S+) material$")


def _skeleton_lines(lab: Lab) -> set[str]:
    """Every non-blank line of the lab's skeleton editable files, stripped."""
    out: set[str] = set()
    for rel in lab.editable:
        try:
            with open(os.path.join(lab.path, rel), errors="replace") as f:
                out |= {ln.strip() for ln in f if ln.strip()}
        except OSError:
            continue
    return out


def _student_file(tree: str, lab: Lab, skeleton: set[str], dest: str) -> bool:
    """dest: the student's editable files of lab joined, less the skeleton's lines; False when
    nothing of theirs is left."""
    kept = []
    for rel in lab.editable:
        try:
            with open(os.path.join(tree, lab.slug, rel), errors="replace") as f:
                kept += [ln for ln in f if ln.strip() and ln.strip() not in skeleton]
        except OSError:
            continue
    if not kept:
        return False
    with open(dest, "w") as f:
        f.writelines(kept)
    return True


def pairs(report_text: str) -> list[dict]:
    """sim_c -p's lines "a consists for N % of b material" as {a, b, percent}, the two files'
    names without folder or extension, each pair once with the larger of its two figures."""
    best: dict[tuple, int] = {}
    for ln in report_text.splitlines():
        m = LINE.match(ln.strip())
        if m:
            a, b = (os.path.splitext(os.path.basename(x))[0] for x in (m.group(1), m.group(3)))
            key = tuple(sorted((a, b)))
            best[key] = max(best.get(key, 0), int(m.group(2)))
    return [{"a": a, "b": b, "percent": v} for (a, b), v in
            sorted(best.items(), key=lambda kv: -kv[1])]


def check(out_dir: str, threshold: int = THRESHOLD, out=print) -> dict:
    """Runs the check on the batch in out_dir (see the module's words); its result as written
    to similarity.json."""
    p = batch.load_plan(out_dir)
    result = {"tool": TOOL, "threshold_pct": threshold, "labs": {}}
    if not shutil.which(TOOL):
        result.update(tool=None, note=f"{TOOL} (Debian's similarity-tester) is not installed: "
                                      "no similarity check (apt install similarity-tester)")
    else:
        texts = [_lab(p, lab, threshold, result) for lab in p.chosen]
        with open(os.path.join(out_dir, "similarity.txt"), "w") as f:
            f.write("\n".join(texts))
    with open(os.path.join(out_dir, "similarity.json"), "w") as f:
        json.dump(result, f, indent=2)
    flagged = [f"lab {k}: {x['a']} ~ {x['b']} {x['percent']}%"
               for k, v in result["labs"].items() for x in v["flagged"]]
    out("similarity: " + (result.get("note") or (", ".join(flagged) or "no pair flagged") +
                          f" (at least {threshold}%; similarity.txt)"))
    return result


def _lab(p: batch.Plan, lab: Lab, threshold: int, result: dict) -> str:
    """One lab's comparison: its entry in result["labs"]; sim_c's report."""
    work = os.path.join(p.out_dir, "similarity", lab.id)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    skeleton = _skeleton_lines(lab)
    files = [os.path.join(work, f"{s}.c") for s in p.todo
             if _student_file(p.trees[s], lab, skeleton, os.path.join(work, f"{s}.c"))]
    text = ""
    if len(files) > 1:
        proc = subprocess.run([TOOL, "-p", "-e", "-s", "-t1", *files], capture_output=True,
                              text=True, timeout=600)
        text = proc.stdout
    found = pairs(text)
    result["labs"][lab.id] = {"pairs": found, "flagged": [x for x in found
                                                         if x["percent"] >= threshold]}
    return f"== lab {lab.id} ==\n{text}"
