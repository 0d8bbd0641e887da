"""Files copied into the programs (MM_EMBED, common/mm_embed.h): every blob of every lab holds
exactly the bytes of its file, in a position-independent and in a fixed-address executable.
(On aarch64 a PIE once saw every blob as the start of .rodata: lab 04's servers all read as the
first XML file, with a length of SIZE_MAX.)"""
import glob
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

DUMP = os.path.join(ROOT, "common", "selftest", "embed_dump.c")
EMBED = re.compile(r"^MM_EMBED\(\s*\w+\s*,", re.M)


def _embedding_sources():
    """(lab folder, source relative to it, number of blobs) for each lab source using MM_EMBED."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "labs", "*", "src", "*.c"))):
        n = len(EMBED.findall(open(path, encoding="utf-8").read()))
        if n:
            lab = os.path.dirname(os.path.dirname(path))
            found.append((lab, os.path.relpath(path, lab), n))
    return found


def _fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def _compilers():
    return [cc for cc in ("gcc", "clang") if shutil.which(cc)]


def test_labs_embed_files():
    """The test below would pass vacuously if no lab used the helper."""
    labs = {os.path.basename(lab) for lab, _, _ in _embedding_sources()}
    assert {"lab04-numa-binding", "lab09-paged-kv-cache"} <= labs, labs


@pytest.mark.parametrize("cc", _compilers())
@pytest.mark.parametrize("pie", ["pie", "no-pie"])
@pytest.mark.parametrize("lab,src,count", _embedding_sources(),
                         ids=lambda v: os.path.basename(v) if isinstance(v, str) else str(v))
def test_embedded_blob_is_the_file(lab, src, count, pie, cc, tmp_path):
    pic = "-fPIE" if pie == "pie" else "-fno-pie"
    obj = tmp_path / "obj" / (os.path.splitext(src)[0] + ".o")
    # The lab's own make fragment compiles the object, with the -D that names its data folder.
    subprocess.run(["make", "-s", "-f", "common/lab-build.mk", f"LABSRC={lab}", f"OUT={tmp_path}",
                    f"CC={cc} {pic} -ffunction-sections", str(obj)], cwd=ROOT, check=True)
    exe = tmp_path / "embed_dump"
    # The dump reads only the blobs: --gc-sections drops the lab's functions (compiled one per
    # section) and with them their calls into the rest of the lab.
    subprocess.run([cc, f"-{pie}", pic, "-std=gnu11", "-O2", "-I", os.path.join(ROOT, "common"),
                    "-Wl,--gc-sections", "-o", str(exe), DUMP, str(obj), "-pthread"], check=True)
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == count, f"{count} MM_EMBED in {src}, the program lists:\n{res.stdout}"
    for line in lines:
        length, digest, path = line.split(" ", 2)
        data = open(path, "rb").read()
        assert (int(length), int(digest, 16)) == (len(data), _fnv1a(data)), \
            f"{path}: embedded {length} bytes (FNV {digest}), the file has {len(data)}"
