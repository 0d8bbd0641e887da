"""Lab 11, part D (provided): why freeing most small objects need not give memory back.
Makes a million small ints (pymalloc serves them from pools inside arenas), frees all but one
in `KEEP`, then the rest, and prints after each step the resident memory (VmRSS) and pymalloc's
own count of its arenas (sys._debugmallocstats). Run it with the interpreter you study:
    python3 labs/lab11-python-objects/tools/arenas.py [KEEP]        (default 64)"""
import os
import re
import sys
import tempfile

N = 1_000_000


def rss_mib():
    with open("/proc/self/status") as f:
        kib = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    return kib / 1024


def malloc_stats():
    """pymalloc's figures from sys._debugmallocstats (it writes to the C stderr): a dict."""
    with tempfile.TemporaryFile(mode="w+") as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read()
    stats = {}
    for key in ("arenas allocated current", "arenas reclaimed", "arenas highwater mark"):
        m = re.search(r"# " + key + r"\s*=\s*([\d,]+)", text)
        stats[key] = int(m.group(1).replace(",", "")) if m else -1
    m = re.search(r"(\d+) arenas \* (\d+) bytes/arena", text)
    stats["arena bytes"] = int(m.group(2)) if m else -1
    return stats


def show(step):
    s = malloc_stats()
    print(f"{step:<44} RSS {rss_mib():7.1f} MiB   arenas {s['arenas allocated current']:5d} "
          f"(of {s['arena bytes'] // 1024} KiB each; reclaimed so far {s['arenas reclaimed']})")


def main():
    keep_every = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    print(f"Python {sys.version.split()[0]}, {N} ints, keeping 1 in {keep_every}")
    show("start")
    xs = [i * 7 + 1_000_000 for i in range(N)]
    show(f"{N} ints alive")
    kept = xs[::keep_every]
    del xs
    show(f"all freed but 1 in {keep_every} ({len(kept)} ints)")
    del kept
    show("all freed")


if __name__ == "__main__":
    main()
