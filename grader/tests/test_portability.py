"""The container path's cheap checks: .devcontainer/devcontainer.json as Codespaces and VS Code
read it (JSON with comments), the Dockerfile it names, and `make portability`'s table."""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import sys

import pytest

from conftest import ROOT

DEVCONTAINER = os.path.join(ROOT, ".devcontainer", "devcontainer.json")


def load_jsonc(text: str) -> dict:
    """JSON with // and /* */ comments and trailing commas, as the Dev Containers spec allows."""
    out, i, in_str = [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            i = text.find("\n", i) - 1 if "\n" in text[i:] else len(text)
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 1
        else:
            out.append(c)
        i += 1
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", "".join(out)))


@functools.cache
def portability():
    """tools/portability.py as a module (it is a script, outside the grader package)."""
    spec = importlib.util.spec_from_file_location("portability",
                                                  os.path.join(ROOT, "tools", "portability.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["portability"] = mod
    spec.loader.exec_module(mod)
    return mod


def devcontainer() -> dict:
    with open(DEVCONTAINER) as f:
        return load_jsonc(f.read())


def test_jsonc_reader_keeps_slashes_in_strings():
    assert load_jsonc('{"a": "x//y", // c\n "b": [1,], /* d */}') == {"a": "x//y", "b": [1]}


def test_devcontainer_has_the_keys_codespaces_needs():
    dc = devcontainer()
    assert {"name", "build", "runArgs", "hostRequirements", "postCreateCommand"} <= dc.keys()
    dockerfile = os.path.normpath(os.path.join(ROOT, ".devcontainer", dc["build"]["dockerfile"]))
    assert os.path.isfile(dockerfile), "the Dockerfile the dev container builds from"
    assert os.path.normpath(os.path.join(ROOT, ".devcontainer", dc["build"]["context"])) == ROOT


def test_devcontainer_grants_lab04s_calls_and_nothing_broader():
    args = devcontainer()["runArgs"]
    assert "--cap-add=SYS_NICE" in args, "lab 04's memory-policy calls"
    assert "seccomp=unconfined" in args, "move_pages: Docker's default profile refuses it"
    assert [a for a in args if a.startswith("--cap-add")] == ["--cap-add=SYS_NICE"]
    text = " ".join(args)
    assert "--privileged" not in text and "apparmor" not in text and "systempaths" not in text


def test_devcontainer_asks_for_two_cpus():
    assert devcontainer()["hostRequirements"]["cpus"] >= 2, "lab 01's false sharing needs 2 cores"


def test_devcontainer_sets_up_with_the_projects_target():
    assert devcontainer()["postCreateCommand"] == "make deps"


def test_dockerfile_base_can_be_replaced():
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        text = f.read()
    assert re.search(r"^ARG BASE=debian:12$", text, re.M)
    assert re.search(r"^FROM \$\{BASE:-debian:12\}$", text, re.M)
    assert "common/setup-deps.sh" in text


def _of(lab: str, cause: str = "") -> dict:
    """A results.json tests[] entry's extra_data: its lab and cause."""
    return {"extra_data": {"lab": lab, "cause": cause}}


def test_split_results_separates_tests_metrics_and_skips():
    res = {"output": "", "extra_data": {"not_measured": [
        {"name": "lab04 / performance: bw", "points": 5}]},
        "tests": [{"name": "lab04 / test_a", "score": 2, "max_score": 2, **_of("04")},
                  {"name": "lab04 / test_b", "score": 0, "max_score": 3, **_of("04"),
                   "output": "skipped: this machine refuses move_pages"},
                  {"name": "lab04 / performance: plan", "score": 12, "max_score": 12,
                   **_of("04")},
                  {"name": "lab04 / performance: bw", "score": 0, "max_score": 5, **_of("04")},
                  {"name": "lab03 / test_c", "score": 1, "max_score": 1,
                   **_of("03", "not-built")}]}
    tests, metrics, built = portability().split_results(res, "04")
    assert tests == (2, 5, 3) and metrics == (12, 17, 5) and built


@pytest.mark.parametrize("cause, built", [("not-built", False), ("no-submission", False),
                                          ("compiler-crash", True), ("stopped", True)])
def test_whether_a_lab_built_is_read_from_its_items_causes(cause, built):
    res = {"output": "lab 04: build failed",     # Gradescope's words: not what is read
           "tests": [{"name": "lab04 / t", "score": 0, "max_score": 2, **_of("04", cause)}]}
    assert portability().split_results(res, "04")[2] == built


def test_table_has_one_row_per_run():
    p = portability()
    cells = [p.Cell("debian12-amd64", "lab 04", "ok", (47, 60, 13), (12, 30, 18), 6),
             p.Cell("debian12-arm64", "lab 10", "FAIL", None, None, None, "cc: not found")]
    rows = p.render(cells).splitlines()
    assert len(rows) == 4
    assert "| debian12-amd64 | lab 04 | ok | 47/60 (13 skipped) | 12/30 (18 skipped) | 6 |" in rows[2]
    assert rows[3].startswith("| debian12-arm64 | lab 10 | FAIL | - | - |")
    assert "2026-01-01" in p.page(rows[2:], "2026-01-01", "x86_64")


def test_a_run_replaces_its_rows_and_keeps_the_others(tmp_path):
    p = portability()
    earlier = p.page(["| debian12-amd64 | lab 01 | ok | 40/40 | 30/30 | 9 |  |",
                      "| debian12-amd64 | lab 12 | FAIL | - | - | 3 | old |",
                      "| container-amd64 | lab 01 | ok | 40/40 | 0/30 (30 skipped) | 5 |  |"],
                     "2026-01-01", "x86_64") + "\n## Notes by platform\n\n| not | a row |\n"
    path = tmp_path / "portability.md"
    path.write_text(earlier)
    rows = p.merged(p.earlier_rows(str(path)),
                    [p.Cell("debian12-amd64", "lab 12", "ok", (50, 50, 0), (40, 52, 12), 8),
                     p.Cell("debian12-amd64", "quick start", "ok", (0, 40, 0), (0, 30, 0), 9),
                     p.Cell("debian12-arm64", "lab 12", "ok", (50, 50, 0), (40, 52, 12), 59)])
    assert [r.split("|")[1:3] for r in rows] == [
        [" debian12-amd64 ", " quick start "], [" debian12-amd64 ", " lab 01 "],
        [" debian12-amd64 ", " lab 12 "], [" container-amd64 ", " lab 01 "],
        [" debian12-arm64 ", " lab 12 "]]
    assert "| 50/50 | 40/52 (12 skipped) | 8 |" in rows[2] and "old" not in "".join(rows)
    assert p.earlier_rows(str(tmp_path / "none.md")) == []


def test_a_platform_redone_wholly_keeps_its_place():
    p = portability()
    earlier = ["| debian12-amd64 | lab 01 | ok | 40/40 | 30/30 | 9 |  |",
               "| container-amd64 | quick start | ok | 0/40 | 0/30 | 4 |  |",
               "| container-amd64 | lab 04 | ok | 47/60 (13 skipped) | 12/30 (18 skipped) | 14 | old |",
               "| debian13-amd64 | lab 01 | ok | 40/40 | 30/30 | 7 |  |"]
    rows = p.merged(earlier, [p.Cell("container-amd64", "quick start", "ok", (0, 40, 0),
                                     (0, 30, 0), 14),
                              p.Cell("container-amd64", "lab 04", "ok", (60, 60, 0),
                                     (12, 30, 18), 15),
                              p.Cell("debian12-arm64", "lab 05", "ok", (58, 58, 0),
                                     (12, 30, 18), 218)])
    assert [r.split("|")[1:3] for r in rows] == [
        [" debian12-amd64 ", " lab 01 "], [" container-amd64 ", " quick start "],
        [" container-amd64 ", " lab 04 "], [" debian13-amd64 ", " lab 01 "],
        [" debian12-arm64 ", " lab 05 "]]
    assert "old" not in "".join(rows)


def test_a_new_table_keeps_the_notes(tmp_path):
    p = portability()
    page = tmp_path / "portability.md"
    page.write_text("# old table\n\n| a |\n\n## Notes by platform\n\nkeep me\n")
    assert p.kept_notes(str(page)) == "\n## Notes by platform\n\nkeep me\n"
    assert p.kept_notes(str(tmp_path / "none.md")) == ""
