"""A build of a tree built before redoes only what changed (grader/grading/build.py): the
student's compile is kept for the same inputs, the stage keeps the times of unchanged files,
and any change to an editable file is compiled again, whether it breaks the build or not."""
import os

import pytest

from grader.grading import build
from grader.rules import labs

SLUG = "lab09-paged-kv-cache"
EDITED = "src/kvcache.c"


def _times(built: build.Built) -> tuple[int, int]:
    """The student object's and the test program's modification times, as they are now."""
    return (os.stat(os.path.join(built.out_dir, build.STUDENT_OBJ)).st_mtime_ns,
            os.stat(os.path.join(built.out_dir, "check_lab")).st_mtime_ns)


@pytest.mark.lab("09")
def test_an_unchanged_tree_is_not_built_again_and_a_change_is(make_variant, tmp_path):
    lab = labs.load(SLUG)
    sub = make_variant(SLUG, [])
    tag = f"cache-{os.path.basename(tmp_path)}"
    first = build.build(lab, sub, tag=tag)
    assert first.ok, build.first_errors(first.log)
    made = _times(first)   # one build folder for the tag: its files' times, now
    again = build.build(lab, sub, tag=tag)
    assert again.ok and _times(again) == made, "an unchanged tree was built again"

    path = os.path.join(sub, SLUG, EDITED)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text + "\n#error the edit reached the compiler\n")
    broken = build.build(lab, sub, tag=tag)
    assert not broken.ok and "the edit reached the compiler" in broken.log, broken.log

    with open(path, "w") as f:
        f.write(text + "\n/* an edit that changes nothing compiled */\n")
    fixed = build.build(lab, sub, tag=tag)
    assert fixed.ok, build.first_errors(fixed.log)
    assert _times(fixed)[0] != made[0], "the edited file was not compiled again"
