#!/usr/bin/env python3
"""Makes both ends of a lab's call boundary from its calls.toml (common/mm_call_abi.h):
  gen-calls.py CALLS.toml HARNESS.c STUDENT.c HEADER.h...
HARNESS.c: a stub per [[call]] with the API function's own name and signature, for the trusted
test program and benchmark (common/harness/mm_call.h). STUDENT.c: the table the student's process
serves (common/student/mm_serve.h), each entry unpacking the arguments and calling the student's
function; each [[workload]] `name` serves the lab's own `serve_<name>` (labs/labNN/serve/).

calls.toml:
  [[call]]
  decl = "int cl_sweep(const size_t *distance, size_t n, uint64_t iters, double *ns)"
  distance = "in:n"        # every pointer parameter says how it crosses:
  ns = "out:n"             #   in:N / out:N / inout:N  N elements (a C expression over the
                           #     parameters) copied into shared memory before the call and/or
                           #     back after it; void * counts bytes; a pointer into memory
                           #     already shared (mm_shared_alloc) is passed with no copy
                           #   str     a NUL-terminated string, copied in
                           #   handle  the pointer's value as it is (the student's own memory,
                           #     or an opaque handle): never read by the harness
                           #   shared  must already be NULL or in shared memory (mm_shared_alloc)
  returns = "handle"       # a pointer result: handle (its value, as it is); required
  [[workload]]
  name = "bump"            # int serve_bump(const void *in, size_t, void *out, size_t)
"""
import re
import sys

try:
    import tomllib
except ModuleNotFoundError:   # Python 3.10
    import tomli as tomllib

MODES = ("in", "out", "inout", "str", "handle", "shared")


class SpecError(Exception):
    pass


def parse_decl(decl: str):
    """(return type, name, [(type, name)]) of a C prototype without function pointers."""
    m = re.fullmatch(r"\s*(.+?)\s*\b([A-Za-z_]\w*)\s*\((.*)\)\s*;?\s*", decl, re.S)
    if not m:
        raise SpecError(f"not a C prototype: {decl!r}")
    ret, name, plist = m.group(1), m.group(2), m.group(3).strip()
    params = []
    if plist and plist != "void":
        for p in plist.split(","):
            pm = re.fullmatch(r"\s*(.+?)\s*\b([A-Za-z_]\w*)\s*", p)
            if not pm or "(" in p:
                raise SpecError(f"{name}: parameter {p.strip()!r} is not 'type name' (function "
                                "pointers need a workload)")
            params.append((pm.group(1), pm.group(2)))
    return ret, name, params


def pointee_size(ptype: str, pname: str) -> str:
    base = ptype.replace("const", "").replace("volatile", "").strip()
    return "1" if re.fullmatch(r"void\s*\*", base) else f"sizeof *{pname}"


def harness_stub(call: dict) -> str:
    ret, name, params = parse_decl(call["decl"])
    plist = ", ".join(f"{t} {n}" for t, n in params) or "void"
    body = [f"    mm_call_frame_t f_;", f"    mm_call_begin(&f_, \"{name}\");"]
    for t, n in params:
        mode = call.get(n)
        if "*" not in t:
            if mode:
                raise SpecError(f"{name}: {n} is not a pointer, yet says {mode!r}")
            body.append(f"    mm_call_arg(&f_, &{n}, sizeof {n});")
            continue
        if not mode:
            raise SpecError(f"{name}: pointer parameter {n} needs a mode ({', '.join(MODES)})")
        kind, _, count = mode.partition(":")
        if kind not in MODES or (kind in ("in", "out", "inout")) != bool(count):
            raise SpecError(f"{name}: {n} = {mode!r}: expected in:N, out:N, inout:N, str, "
                            "handle or shared")
        if kind == "handle":
            body.append(f"    {{ const void *v_ = {n}; mm_call_arg(&f_, &v_, sizeof v_); }}")
        elif kind == "shared":
            body.append(f"    mm_call_shared(&f_, {n});")
        elif kind == "str":
            body.append(f"    mm_call_ptr(&f_, {n}, {n} ? strlen({n}) + 1 : 0, 1, 0);")
        else:
            size = f"(size_t)({count}) * {pointee_size(t, n)}"
            body.append(f"    mm_call_ptr(&f_, {n}, {n} ? {size} : 0, {int(kind != 'out')}, "
                        f"{int(kind != 'in')});")
    if "*" in ret and call.get("returns") != "handle":
        raise SpecError(f"{name}: a pointer result needs returns = \"handle\"")
    if ret == "void":
        body.append("    mm_call_run(&f_, NULL, 0);")
    else:
        body += [f"    {ret} r_;", "    mm_call_run(&f_, &r_, sizeof r_);", "    return r_;"]
    return f"{ret} {name}({plist})\n{{\n" + "\n".join(body) + "\n}\n"


def student_entry(call: dict) -> str:
    ret, name, params = parse_decl(call["decl"])
    body = ["    size_t at_ = 0;"]
    for t, n in params:
        body.append(f"    {t} {n};")
        body.append(f"    at_ = (at_ + 7) & ~(size_t)7; memcpy(&{n}, a_ + at_, sizeof {n}); "
                    f"at_ += sizeof {n};")
    args = ", ".join(n for _, n in params)
    if ret == "void":
        body += [f"    {name}({args});", "    (void)r_;"]
    else:
        body += [f"    {ret} v_ = {name}({args});", "    memcpy(r_, &v_, sizeof v_);"]
    if not params:
        body.append("    (void)a_; (void)at_;")
    return (f"static void s_{name}(const unsigned char *a_, unsigned char *r_)\n{{\n" +
            "\n".join(body) + "\n}\n")


def workload_entry(name: str) -> str:
    return (f"int serve_{name}(const void *in, size_t in_len, void *out, size_t out_len);\n"
            f"static void w_{name}(const unsigned char *a_, unsigned char *r_)\n{{\n"
            "    uint64_t w_[4];\n    memcpy(w_, a_, sizeof w_);\n"
            f"    int v_ = serve_{name}((const void *)(uintptr_t)w_[0], (size_t)w_[1], "
            "(void *)(uintptr_t)w_[2], (size_t)w_[3]);\n"
            "    memcpy(r_, &v_, sizeof v_);\n}\n")


def generate(spec: dict, headers: list[str]) -> tuple[str, str]:
    unknown = set(spec) - {"call", "workload"}
    if unknown:
        raise SpecError(f"unknown table(s) {sorted(unknown)}: expected [[call]] and [[workload]]")
    calls, works = spec.get("call", []), [w["name"] for w in spec.get("workload", [])]
    includes = "".join(f'#include "{h}"\n' for h in headers)
    head = ("/* Made by common/gen-calls.py from the lab's calls.toml: do not edit. */\n"
            "#include <stdint.h>\n#include <string.h>\n")
    harness = head + '#include "mm_call.h"\n' + includes + "\n" + "\n".join(
        harness_stub(c) for c in calls)
    names = [parse_decl(c["decl"])[1] for c in calls]
    table = [f'    {{ "{n}", s_{n} }},' for n in names] + [f'    {{ "{w}", w_{w} }},'
                                                          for w in works]
    student = (head + '#include "mm_serve.h"\n' + includes + "\n" +
               "\n".join(student_entry(c) for c in calls) + "\n" +
               "\n".join(workload_entry(w) for w in works) +
               "\nconst mm_serve_entry_t mm_serve_table[] = {\n" + "\n".join(table) +
               "\n    { NULL, NULL },\n};\n"
               f"const size_t mm_serve_table_len = {len(table)};\n")
    return harness, student


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__.splitlines()[1], file=sys.stderr)
        return 2
    spec_path, harness_path, student_path, headers = argv[0], argv[1], argv[2], argv[3:]
    try:
        with open(spec_path, "rb") as f:
            harness, student = generate(tomllib.load(f), [h.rsplit("/", 1)[-1] for h in headers])
    except (SpecError, tomllib.TOMLDecodeError, KeyError) as e:
        print(f"{spec_path}: error: {e}", file=sys.stderr)
        return 1
    for path, text in ((harness_path, harness), (student_path, student)):
        with open(path, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
