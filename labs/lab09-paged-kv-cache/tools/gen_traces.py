#!/usr/bin/env python3
"""Writes lab 09's request traces, traces/{chat,parallel,mix}.trace, from stated distributions
(standard library only, fixed seeds: running it again gives the same files). The benchmark
replays the committed files; this script says where they come from. Run from anywhere:
    python3 labs/lab09-paged-kv-cache/tools/gen_traces.py

Lengths are in tokens. Arrivals are a Poisson process: exponential gaps between requests, in
scheduler steps (one step = one decoded token per running sequence). Every request fits the
model's context, MAX_LEN = 4096 tokens (Llama-2's): prompt + each output <= MAX_LEN.
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "traces")
MAX_LEN = 4096


def lognormal(rng, median, sigma, lo, hi):
    """A lognormal length with the given median and log-space sigma, clipped to [lo, hi]."""
    return max(lo, min(hi, int(round(rng.lognormvariate(math.log(median), sigma)))))


def arrivals(rng, n, rate):
    """n Poisson arrival steps at `rate` requests per step."""
    t, out = 0.0, []
    for _ in range(n):
        out.append(int(t))
        t += rng.expovariate(rate)
    return out


def chat(rng):
    n, rate, system = 400, 0.5, 768
    rows = []
    for i, at in enumerate(arrivals(rng, n, rate)):
        user = lognormal(rng, 96, 0.8, 8, 1024)
        out = lognormal(rng, 192, 0.7, 8, 1024)
        rows.append((i, at, 1, system, system + user, [out]))
    about = ("chat: every prompt starts with the same 768-token system prompt; user turns "
             "lognormal (median 96, sigma 0.8, 8..1024), replies lognormal (median 192, sigma "
             "0.7, 8..1024); n = 1; Poisson arrivals, 0.5 per step")
    return about, rows


def parallel(rng):
    n, rate, samples = 150, 0.08, 4
    rows = []
    for i, at in enumerate(arrivals(rng, n, rate)):
        prompt = lognormal(rng, 384, 0.6, 16, 1536)
        outs = [lognormal(rng, 128, 0.6, 8, 768) for _ in range(samples)]
        rows.append((i, at, 0, 0, prompt, outs))
    about = ("parallel: parallel sampling, n = 4 samples per prompt; prompts lognormal (median "
             "384, sigma 0.6, 16..1536), each sample's output lognormal (median 128, sigma 0.6, "
             "8..768); Poisson arrivals, 0.08 per step")
    return about, rows


def mix(rng):
    n, rate = 250, 0.25
    rows = []
    for i, at in enumerate(arrivals(rng, n, rate)):
        if rng.random() < 0.15:
            prompt = rng.randint(1536, 3584)
            out = lognormal(rng, 256, 0.5, 16, MAX_LEN - prompt)
        else:
            prompt = lognormal(rng, 256, 0.8, 8, 2048)
            out = lognormal(rng, 192, 0.7, 8, 1024)
        rows.append((i, at, 0, 0, prompt, [out]))
    about = ("mix: long-context mix; 85% short requests (prompt lognormal median 256, sigma "
             "0.8, 8..2048; output lognormal median 192, sigma 0.7, 8..1024), 15% long (prompt "
             "uniform 1536..3584, output lognormal median 256, sigma 0.5, up to the 4096-token "
             "context); n = 1; Poisson arrivals, 0.25 per step")
    return about, rows


def write(name, about, rows, seed):
    path = os.path.join(OUT, name + ".trace")
    tokens = sum(r[4] + sum(r[5]) for r in rows)
    with open(path, "w") as f:
        f.write("# about: %s\n" % about)
        f.write("# made by tools/gen_traces.py, seed %d: %d requests, %d prompt + output tokens\n"
                % (seed, len(rows), tokens))
        f.write("# id arrival prefix_id prefix_len prompt_len n out_len...\n")
        for r in rows:
            assert all(r[4] + o <= MAX_LEN for o in r[5]), r
            f.write("%d %d %d %d %d %d %s\n" % (r[0], r[1], r[2], r[3], r[4], len(r[5]),
                                                " ".join(str(o) for o in r[5])))


def main():
    os.makedirs(OUT, exist_ok=True)
    for seed, (name, make) in enumerate((("chat", chat), ("parallel", parallel), ("mix", mix)),
                                        start=9001):
        about, rows = make(random.Random(seed))
        write(name, about, rows, seed)


if __name__ == "__main__":
    main()
