"""The grader's settings from the environment, read and checked in one place: every MLMEM_*
variable the grader itself reads. (The C harness reads its own: MLMEM_SEED in the test program,
MLMEM_CONFINE, MLMEM_SEAL and MLMEM_BENCH_SERIES from the grader, MLMEM_CUDA and MLMEM_CUDA_RACE in
the CUDA shim.)

`current()` reads the environment each time it is called, so a test may set a variable and the
next call sees it; `python3 -m grader` calls it before any work, so that a bad value is an error
(ConfigError, naming the variable and what it must be) before anything is built or graded."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from .config import ConfigError

DEFAULT_SANDBOX_UID = 64987
CUDA_MODES = ("", "real", "emulate")


@dataclass(frozen=True)
class Settings:
    test_timeout_s: float | None = None   # MLMEM_TEST_TIMEOUT_S: every lab's test time limit
    bench_timeout_s: float | None = None  # MLMEM_BENCH_TIMEOUT_S: every benchmark's time limit
    cuda: str = ""                        # MLMEM_CUDA: "" (a GPU where usable), real, emulate
    no_namespaces: bool = False           # MLMEM_NO_NAMESPACES=1: never bubblewrap
    sandbox_uid: int = DEFAULT_SANDBOX_UID  # MLMEM_SANDBOX_UID: the first of the sandbox uids
    thresholds: str | None = None         # MLMEM_THRESHOLDS: the thresholds file (calibrate's)
    reference: str | None = None          # MLMEM_REFERENCE: the reference solutions' tree
    seed: str | None = None               # MLMEM_SEED: the randomized tests' seed
    staff_seed: str | None = None         # MLMEM_STAFF_SEED (old name MLMEM_SECRET_SEED)
    hidden_tests: str | None = None       # MLMEM_HIDDEN_TESTS: instructor-only tests' folder


def _seconds(env: Mapping[str, str], name: str) -> float | None:
    text = env.get(name) or ""
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"{name} must be a number of seconds above 0, not {text!r}")
    return value


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str:
    text = env.get(name) or ""
    if text not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(a for a in allowed if a)} "
                          f"(or unset), not {text!r}")
    return text


def _uid(env: Mapping[str, str]) -> int:
    text = env.get("MLMEM_SANDBOX_UID") or ""
    if not text:
        return DEFAULT_SANDBOX_UID
    if not text.isdigit() or not 1000 <= int(text) <= 2**31 - 100:
        raise ConfigError(f"MLMEM_SANDBOX_UID must be a uid from 1000 on that no account uses, "
                          f"not {text!r}")
    return int(text)


def _staff_seed(env: Mapping[str, str], warn) -> str | None:
    seed = env.get("MLMEM_STAFF_SEED")
    if not seed and env.get("MLMEM_SECRET_SEED"):
        warn("mlmem: MLMEM_SECRET_SEED is now called MLMEM_STAFF_SEED; the old name will go")
        seed = env["MLMEM_SECRET_SEED"]
    return seed or None


def from_env(env: Mapping[str, str], warn=lambda line: None) -> Settings:
    """The settings `env` gives; raises ConfigError on a value the grader cannot use. warn:
    where a line about an old name goes."""
    return Settings(test_timeout_s=_seconds(env, "MLMEM_TEST_TIMEOUT_S"),
                    bench_timeout_s=_seconds(env, "MLMEM_BENCH_TIMEOUT_S"),
                    cuda=_choice(env, "MLMEM_CUDA", CUDA_MODES),
                    no_namespaces=env.get("MLMEM_NO_NAMESPACES") == "1",
                    sandbox_uid=_uid(env),
                    thresholds=env.get("MLMEM_THRESHOLDS") or None,
                    reference=env.get("MLMEM_REFERENCE") or None,
                    seed=env.get("MLMEM_SEED") or None,
                    staff_seed=_staff_seed(env, warn),
                    hidden_tests=env.get("MLMEM_HIDDEN_TESTS") or None)


def current(warn=lambda line: None) -> Settings:
    """The settings of this process's environment as it is now (warn: see from_env)."""
    return from_env(os.environ, warn)
