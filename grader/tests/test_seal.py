"""The sealed records' kinds have one definition on each side, and the two agree: common/harness/mm_seal.h
(MM_SEAL_DONE, MM_SEAL_SKIP, MM_SEAL_REPORT) and grader/confinement/seal.py (DONE, SKIP, REPORT). Records
written by the C harness read back in Python as the marks the grader scores (grader/grading/checkrun.py)."""
import os
import re
import shutil
import subprocess
from types import SimpleNamespace

import pytest

from conftest import ROOT
from grader.grading import checkrun
from grader.confinement import sandbox, seal
from grader.rules.results import SKIPPED

HEADER = os.path.join(ROOT, "common", "harness", "mm_seal.h")
# Writes one record of each test kind on the grader's channel, as common/harness/mm_ck_main.c does.
WRITER_C = r"""
#include "mm_seal.h"
int main(void)
{
    if (mm_seal_init() != 1)
        return 2;
    return mm_seal_record(MM_SEAL_DONE, "t_done", "") || mm_seal_record(MM_SEAL_SKIP, "t_skip",
           "needs a CUDA GPU") || mm_seal_record(MM_SEAL_DONE, "t_skip", "");
}
"""


def header_kinds() -> dict[str, bytes]:
    """mm_seal.h's MM_SEAL_<KIND> "word" macros: KIND -> word."""
    text = open(HEADER).read()
    return {k: v.encode() for k, v in re.findall(r'#define MM_SEAL_([A-Z]+) "([^"]*)"', text)}


def test_c_and_python_name_the_same_kinds():
    assert header_kinds() == {"DONE": seal.DONE, "SKIP": seal.SKIP, "REPORT": seal.REPORT}


def sealed(key: bytes, kind: bytes, name: bytes, text: bytes) -> bytes:
    return b" ".join([kind, name, seal._mac(key, kind, name, text).encode(), text]) + b"\n"


def test_records_read_marks_and_count_forgeries():
    key = os.urandom(32)
    data = (sealed(key, seal.DONE, b"t_done", b"") + sealed(key, seal.SKIP, b"t_skip", b"no GPU") +
            sealed(key, seal.DONE, b"t_skip", b"") + b"DONE t_forged 00 \n" +
            sealed(key, b"PASS", b"t_other", b""))
    recs = seal.records(key, seal.Received(data))
    assert recs.marks == {"t_done": seal.Mark(), "t_skip": seal.Mark(True, "no GPU")}
    assert len(recs.forged) == 2, recs.forged


def test_a_skip_mark_is_scored_as_skipped_with_its_reason():
    lab = SimpleNamespace(id="01")
    test = SimpleNamespace(name="t_skip", points=2.0, hidden=False)
    item = checkrun._item(lab, test, {"t_skip": ("success", "Passed")},
                          {"t_skip": seal.Mark(True, "needs a CUDA GPU")}, None)
    assert (item.status, item.output, item.score) == (SKIPPED, "needs a CUDA GPU", 0)


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler")
def test_records_the_harness_writes_read_back(tmp_path):
    """mm_seal.c's records, with mm_seal.h's kinds, through the grader's channel and reader."""
    src = tmp_path / "writer.c"
    src.write_text(WRITER_C)
    prog = tmp_path / "writer"
    common = os.path.join(ROOT, "common", "harness")
    subprocess.run(["cc", "-std=gnu11", "-I", common, "-I", os.path.dirname(common), "-o",
                    str(prog), str(src),
                    os.path.join(common, "mm_seal.c"), "-lcrypto"], check=True)
    channel = seal.Channel()
    with sandbox.rundir("seal-writer", str(prog)) as run_dir:
        try:
            res = sandbox.run([os.path.join(run_dir, "writer")], sandbox.Limits(timeout_s=30),
                              cwd=run_dir, env=sandbox.base_env(run_dir, **seal.ENV),
                              fds=channel.fds)
        finally:
            got = channel.received()
    assert res.ok, res.stdout + res.stderr
    recs = seal.records(channel.key, got)
    assert recs.marks == {"t_done": seal.Mark(), "t_skip": seal.Mark(True, "needs a CUDA GPU")}
    assert recs.forged == []
