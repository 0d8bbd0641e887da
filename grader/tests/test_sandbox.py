"""The sandbox contains what student code can do, and says what happened."""
import os
import time

from grader.confinement import sandbox


def run(script, **kw):
    d = os.path.join("/tmp", f"mlmem-sbx-{os.getpid()}")
    os.makedirs(d, exist_ok=True)
    return sandbox.run(["sh", "-c", script], sandbox.Limits(**kw), cwd=d)


def test_exit_status_and_output():
    r = run("echo hello; echo oops >&2; exit 3", timeout_s=10)
    assert r.returncode == 3 and r.stdout == "hello\n" and r.stderr == "oops\n"
    assert r.verdict() == "exit status 3"


def test_crash_is_named():
    r = run("kill -SEGV $$", timeout_s=10)
    assert r.signal == 11 and "SIGSEGV" in r.verdict()


def test_timeout_kills_escaped_children():
    r = run("setsid sleep 300 & sleep 300", timeout_s=1)
    assert r.timed_out and "timed out" in r.verdict()
    time.sleep(0.3)
    if os.geteuid() == 0:
        assert sandbox.live_processes(sandbox.sandbox_uid()) == []


def test_output_flood_is_capped():
    r = run("yes | head -c 20000000", timeout_s=30, output_bytes=4096)
    assert len(r.stdout) == 4096 and r.dropped_bytes == 20000000 - 4096


def test_memory_limit():
    r = run("exec python3 -c 'bytearray(8 * 1024**3)'", timeout_s=30, address_space_mb=1024)
    assert r.returncode != 0 and "MemoryError" in r.stderr


def test_process_limit():
    r = run("i=0; while [ $i -lt 3000 ]; do sleep 30 & i=$((i+1)); done; echo all", timeout_s=20,
            nproc=64)
    assert "all" not in r.stdout and not r.timed_out, r   # refused, not left to the clock
