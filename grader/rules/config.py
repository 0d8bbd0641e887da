"""Configuration errors and the strict reading of the course's TOML files (lab.toml,
variants.toml, hidden.toml, the thresholds file), after pypa/build's config validation: every
table has its allowed keys, an unknown key is an error naming the nearest known one, and a value
of the wrong type names the file, the table and the key. A misspelled key never changes a grade
silently."""
from __future__ import annotations

import difflib
import os

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib


class ConfigError(Exception):
    """A configuration the grader cannot use: a course file (lab.toml, variants.toml,
    hidden.toml, the thresholds file) or a setting (a folder, an environment variable). A
    maintainer's error, not a student's; the message names the file, the table and the key.
    `python3 -m grader` prints it and exits with status 2."""


REQUIRED = object()  # get()'s default: the key must be there

_KINDS = {str: "a string", bool: "true or false", int: "an integer", float: "a number",
          dict: "a table", list: "a list of strings"}


def shown(path: str) -> str:
    """path as a message shows it: relative to the current folder when it lies below it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def read(path: str) -> dict:
    """The TOML file at path as a dict. Raises ConfigError naming the file when it cannot be
    read or parsed."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{shown(path)}: {e}") from e


def suggestion(name: str, known) -> str:
    """' (did you mean 'x'?)' for the known name nearest to name (difflib's, else one that
    begins with it: 'numa' -> 'numa_nodes'), else the list of known ones."""
    known = sorted(known)
    close = (difflib.get_close_matches(name, known, n=1, cutoff=0.6) or
             [k for k in known if k.startswith(name)][:1])
    if close:
        return f" (did you mean '{close[0]}'?)"
    return f" (known: {', '.join(known)})" if known else ""


def check_keys(table: dict, allowed, where: str, what: str = "key"):
    """Raises ConfigError on the first key of table not in allowed: '<where>: unknown key 'x'
    (did you mean 'y'?)'. where names the file and the table."""
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{where}: unknown {what} '{key}'{suggestion(key, allowed)}")


def _fits(val, kind) -> bool:
    if isinstance(kind, tuple):
        return any(_fits(val, k) for k in kind)
    if kind in (int, float) and isinstance(val, bool):
        return False
    if kind is float:
        return isinstance(val, (int, float))
    if kind is list:
        return isinstance(val, list) and all(isinstance(x, str) for x in val)
    return isinstance(val, kind)


def get(table: dict, key: str, kind, where: str, default=REQUIRED):
    """table[key] checked against kind (str, bool, int, float: any number, returned as float,
    dict, list: of strings, or a tuple of these), or default where the key is absent. Raises
    ConfigError "<where>: missing 'key'" (no default) or "<where>: 'key' must be ..."."""
    if key not in table:
        if default is REQUIRED:
            raise ConfigError(f"{where}: missing '{key}'")
        return default
    val = table[key]
    if not _fits(val, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        raise ConfigError(f"{where}: '{key}' must be {' or '.join(_KINDS[k] for k in kinds)}, "
                          f"not {val!r}")
    return float(val) if kind is float else val


def tables(table: dict, key: str, where: str) -> list[dict]:
    """The array of tables table[key] ([[key]] in TOML; [] when absent). Raises ConfigError when
    it is something else."""
    val = table.get(key, [])
    if not isinstance(val, list) or not all(isinstance(x, dict) for x in val):
        raise ConfigError(f"{where}: '{key}' must be an array of tables ([[{key}]]), not {val!r}")
    return val


def entry(kind: str, i: int, table: dict) -> str:
    """How a message names the i-th (from 0) [[kind]] table: by its name where it has one."""
    name = table.get("name")
    return f"[[{kind}]] '{name}'" if isinstance(name, str) else f"[[{kind}]] number {i + 1}"
