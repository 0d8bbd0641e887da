"""The grader's end of the sealed channel (common/harness/mm_seal.h): a fresh key per run, handed to the
program on fd 4 and read by its harness before any code under test runs; results come back on
fd 3, each record or report with an HMAC-SHA256 under that key. Whatever else arrives on fd 3 (the
code under test can write there too) is counted as forged and never believed."""
from __future__ import annotations

import hashlib
import hmac
import os
import threading
from dataclasses import dataclass, field

RESULT_FD, KEY_FD = 3, 4
# The kinds of record, the first word of each: common/harness/mm_seal.h's MM_SEAL_DONE, MM_SEAL_SKIP and
# MM_SEAL_REPORT (grader/tests/test_seal.py checks that the two agree).
DONE, SKIP, REPORT = b"DONE", b"SKIP", b"REPORT"
CAP_BYTES = 8 * 1024 * 1024     # more than any report; the rest is dropped and flagged
ENV = {"MLMEM_SEAL": "1"}


def _mac(key: bytes, *parts: bytes) -> str:
    return hmac.new(key, b"\0".join(parts), hashlib.sha256).hexdigest()


@dataclass
class Received:
    """What a run sent on the channel: the data, and whether it overflowed CAP_BYTES."""
    data: bytes = b""
    overflow: bool = False


class Channel:
    """One run's channel. fds: what sandbox.run passes ({3: result writer, 4: key reader});
    received() after the run: everything that came back."""

    def __init__(self):
        self.key = os.urandom(32)
        key_r, key_w = os.pipe()
        os.write(key_w, self.key)
        os.close(key_w)
        self._r, self._w = os.pipe()
        self.fds = {RESULT_FD: self._w, KEY_FD: key_r}
        self._got = Received()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        chunks, size = [], 0
        while chunk := os.read(self._r, 65536):
            if size + len(chunk) > CAP_BYTES:
                self._got.overflow = True
                continue
            chunks.append(chunk)
            size += len(chunk)
        self._got.data = b"".join(chunks)

    def received(self) -> Received:
        """Closes the grader's copies of the program's ends and returns what came back (after the
        run: every writer is gone)."""
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}
        self._thread.join(timeout=30)
        os.close(self._r)
        return self._got


@dataclass(frozen=True)
class Mark:
    """A test's sealed record: it reached its end (skipped False), or it skipped itself (MM_SKIP:
    this machine cannot run it) and why."""
    skipped: bool = False
    why: str = ""


@dataclass
class Records:
    """Test records: name -> its Mark (a test with none neither ended nor skipped), and the lines
    that carried no valid seal (forged or damaged)."""
    marks: dict[str, Mark] = field(default_factory=dict)
    forged: list[str] = field(default_factory=list)


def records(key: bytes, got: Received) -> Records:
    """The sealed DONE/SKIP records of a test program's run, "<kind> <test> <mac> <text>" each
    (common/harness/mm_seal.h): the one reader of them. A SKIP outweighs a DONE of the same test."""
    out = Records()
    for raw in got.data.split(b"\n"):
        if not raw:
            continue
        kind, _, rest = raw.partition(b" ")
        name, _, rest = rest.partition(b" ")
        mac, _, text = rest.partition(b" ")
        if kind not in (DONE, SKIP) or not hmac.compare_digest(
                mac, _mac(key, kind, name, text).encode()):
            out.forged.append(raw[:120].decode("utf-8", "replace"))
            continue
        n = name.decode("utf-8", "replace")
        if kind == SKIP:
            out.marks[n] = Mark(skipped=True, why=text.decode("utf-8", "replace"))
        else:
            out.marks.setdefault(n, Mark())
    if got.overflow:
        out.forged.append(f"more than {CAP_BYTES} bytes on the result channel")
    return out


def report(key: bytes, got: Received) -> tuple[bytes | None, str]:
    """A benchmark's report: (its bytes, '') when the channel holds exactly one sealed report
    and nothing else, else (None, what was wrong)."""
    head, nl, rest = got.data.partition(b"\n")
    parts = head.split(b" ")
    if not got.data:
        return None, "no report reached the grader"
    if len(parts) != 3 or parts[0] != REPORT or not parts[1].isdigit() or not nl:
        return None, "the result channel held something other than the benchmark's report"
    body = rest[:int(parts[1])]
    if len(body) != int(parts[1]) or not hmac.compare_digest(
            parts[2], _mac(key, REPORT, body).encode()):
        return None, "the benchmark's report did not carry the grader's seal"
    if len(rest) > len(body) or got.overflow:
        return None, "more than the benchmark's report reached the result channel"
    return body, ""
