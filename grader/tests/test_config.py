"""Configuration is checked strictly: a misspelled key in lab.toml, hidden.toml, variants.toml or
the thresholds file is an error naming the file, the table and the nearest known key; a value of
the wrong type names them too; every configuration error is one exception type (ConfigError),
which `python3 -m grader` turns into exit status 2 with the message on stderr."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from grader import __main__ as cli
from grader.grading import calibrate
from grader.rules import config, hidden, labs, settings, thresholds, variants
from grader.classtools import release
from grader.rules.config import ConfigError

LAB = """\
[lab]
title = "x"
editable = ["src/x.c"]
threaded = false

[limits]
test_timeout_s = 5
bench_timeout_s = 10
address_space_mb = 1024

[[tests]]
name = "test_a"
points = 1

[[metrics]]
name = "m"
points = 2
zero = 1
full = 2
unit = "x"
requires = { cores = 2 }
vs_reference = { zero = 0.3, full = 0.8 }

[[plots]]
series = "s"
x = "a"
y = ["b", "c"]
labels = ["b", "c"]
xlabel = "a"
logx = true
hline = 1
"""


@pytest.fixture
def lab_dir(tmp_path, monkeypatch):
    """write(toml) -> the slug of a lab lab99-x with that lab.toml, in a LABS_DIR of its own."""
    monkeypatch.setattr(labs, "LABS_DIR", str(tmp_path / "labs"))
    monkeypatch.delenv("MLMEM_THRESHOLDS", raising=False)
    monkeypatch.delenv("MLMEM_TEST_TIMEOUT_S", raising=False)

    def write(text: str) -> str:
        d = tmp_path / "labs" / "lab99-x"
        d.mkdir(parents=True, exist_ok=True)
        (d / "lab.toml").write_text(text)
        return "lab99-x"
    return write


def error(fn, *args) -> str:
    with pytest.raises(config.ConfigError) as e:
        fn(*args)
    return str(e.value)


def test_the_fixture_lab_is_valid(lab_dir):
    lab = labs.load(lab_dir(LAB))
    assert lab.test_timeout_s == 5 and lab.address_space_mb == 1024 and not lab.threaded
    assert not lab.cuda and lab.make_vars() == ["EDITABLE=src/x.c", "LAB_CUDA="]
    assert lab.metrics[0].requires == {"cores": 2} and lab.plots[0]["series"] == "s"


@pytest.mark.parametrize("old,new,table,hint", [
    ("[[tests]]", "[[test]]", "the top level", "tests"),
    ('editable = ["src/x.c"]', 'editabel = ["src/x.c"]', "[lab]", "editable"),
    ("threaded = false", "threads = false", "[lab]", "threaded"),
    ("threaded = false", "cudaa = true\nthreaded = false", "[lab]", "cuda"),
    ("bench_timeout_s = 10", "bench_timeout = 10", "[limits]", "bench_timeout_s"),
    ("address_space_mb = 1024", "adress_space_mb = 1024", "[limits]", "address_space_mb"),
    ("points = 1\n", "point = 1\n", "[[tests]] 'test_a'", "points"),
    ("requires = { cores = 2 }", "requirs = { cores = 2 }", "[[metrics]] 'm'", "requires"),
    ("unit = ", "units = ", "[[metrics]] 'm'", "unit"),
    ("full = 0.8", "ful = 0.8", "[[metrics]] 'm'.vs_reference", "full"),
    ("xlabel = ", "xlable = ", "[[plots]] number 1", "xlabel"),
    ("logx = true", "log_x = true", "[[plots]] number 1", "logx"),
])
def test_misspelled_lab_toml_key_is_named_with_a_suggestion(lab_dir, old, new, table, hint):
    assert old in LAB
    msg = error(labs.load, lab_dir(LAB.replace(old, new, 1)))
    bad = new.split(" ")[0].strip("[]")
    assert "lab99-x/lab.toml" in msg and table in msg, msg
    assert f"unknown key '{bad}' (did you mean '{hint}'?)" in msg, msg


@pytest.mark.parametrize("req,why", [
    ("{ cores = 2, cudaa = true }", "unknown hardware requirement 'cudaa' (did you mean 'cuda'?)"),
    ("{ numa = 2 }", "unknown hardware requirement 'numa' (did you mean 'numa_nodes'?)"),
    ("{ gpus = 1 }", "unknown hardware requirement 'gpus' (known: cores, cuda, numa_nodes)"),
    ('{ cores = "2" }', "'cores' must be an integer, not '2'"),
    ("{ cuda = 1 }", "'cuda' must be true or false, not 1"),
    ("{ numa_nodes = 0 }", "'numa_nodes' must be at least 1"),
])
def test_requirements_are_checked(lab_dir, req, why):
    msg = error(labs.load, lab_dir(LAB.replace("{ cores = 2 }", req)))
    assert "[[metrics]] 'm' requires" in msg and why in msg, msg


def test_vs_reference_floor_is_read_and_checked(lab_dir):
    floored = LAB.replace("full = 0.8 }", "full = 0.8, floor = 1 }")
    assert labs.load(lab_dir(floored)).metrics[0].vs_reference["floor"] == 1
    msg = error(labs.load, lab_dir(LAB.replace("full = 0.8 }", "full = 0.8, floor = 1.5 }")))
    assert "floor = 1.5 is better than the metric's own zero (1)" in msg, msg


def test_lab_wide_requirements_are_checked(lab_dir):
    msg = error(labs.load, lab_dir("requires = { core = 2 }\n" + LAB))
    assert "[requires]: unknown hardware requirement 'core' (did you mean 'cores'?)" in msg


@pytest.mark.parametrize("old,new,why", [
    ("points = 1\n", 'points = "1"\n', "[[tests]] 'test_a': 'points' must be a number, not '1'"),
    ('editable = ["src/x.c"]', 'editable = "src/x.c"', "[lab]: 'editable' must be a list of"),
    ("threaded = false", 'threaded = "no"', "[lab]: 'threaded' must be true or false"),
    ("threaded = false", 'threaded = false\ncuda = "yes"', "[lab]: 'cuda' must be true or false"),
    ("test_timeout_s = 5", 'test_timeout_s = "5"', "[limits]: 'test_timeout_s' must be a number"),
    ("address_space_mb = 1024", "address_space_mb = 1.5", "'address_space_mb' must be an integer"),
    ('unit = "x"', "unit = 3", "[[metrics]] 'm': 'unit' must be a string, not 3"),
    ('y = ["b", "c"]', "y = 3", "[[plots]] number 1: 'y' must be a string or a list of strings"),
    ('name = "test_a"\npoints = 1\n', 'name = "t"\npoints = 1\n[[tests]]\nname = "t"\n'
     'points = 2\n', "[[tests]] names given more than once: t"),
])
def test_wrong_type_names_file_table_and_key(lab_dir, old, new, why):
    msg = error(labs.load, lab_dir(LAB.replace(old, new, 1)))
    assert "lab99-x/lab.toml" in msg and why in msg, msg


def test_a_table_of_the_wrong_type_is_named(lab_dir):
    limits = "[limits]\ntest_timeout_s = 5\nbench_timeout_s = 10\naddress_space_mb = 1024\n"
    assert limits in LAB
    msg = error(labs.load, lab_dir("limits = 3\n" + LAB.replace(limits, "")))
    assert "lab99-x/lab.toml: 'limits' must be a table, not 3" in msg, msg


def test_bad_timeout_variable_is_named(lab_dir, monkeypatch):
    monkeypatch.setenv("MLMEM_TEST_TIMEOUT_S", "ten")
    assert "MLMEM_TEST_TIMEOUT_S" in error(labs.load, lab_dir(LAB))


def hidden_dir(tmp_path, text: str) -> str:
    d = tmp_path / "hidden" / "lab99-x"
    d.mkdir(parents=True)
    (d / "hidden.toml").write_text(text)
    (d / "check_more.c").write_text("/* tests */\n")
    return str(tmp_path / "hidden")


@pytest.mark.parametrize("text,why", [
    ('[[tests]]\nname = "test_h"\npoint = 1\n',
     "[[tests]] 'test_h': unknown key 'point' (did you mean 'points'?)"),
    ('[[test]]\nname = "test_h"\npoints = 1\n',
     "the top level: unknown key 'test' (did you mean 'tests'?)"),
    ('[[tests]]\nname = "test_h"\npoints = "x"\n', "'points' must be a number, not 'x'"),
    ('[[tests]]\nname = "test_h"\n', "[[tests]] 'test_h': missing 'points'"),
    ("", "needs [[tests]] with name and points"),
    ('[[tests]]\nname = "test_h"\npoints = 2\nvisibility = "hidden"\n',
     "visibility 'hidden' is for tests without points"),
])
def test_hidden_toml_is_checked(lab_dir, tmp_path, text, why):
    lab = labs.load(lab_dir(LAB))
    msg = error(hidden.extend, lab, hidden_dir(tmp_path, text))
    assert "lab99-x/hidden.toml" in msg and why in msg, msg


def test_a_hidden_folder_without_hidden_toml(lab_dir, tmp_path):
    lab = labs.load(lab_dir(LAB))
    root = hidden_dir(tmp_path, "")
    os.remove(os.path.join(root, "lab99-x", "hidden.toml"))
    assert "no hidden.toml" in error(hidden.extend, lab, root)


def test_hidden_toml_that_reuses_a_published_name(lab_dir, tmp_path):
    lab = labs.load(lab_dir(LAB))
    root = hidden_dir(tmp_path, '[[tests]]\nname = "test_a"\npoints = 1\n')
    assert "reuse published names: test_a" in error(hidden.extend, lab, root)


VARIANTS = """\
[naive]
description = "slow"
metrics_zero = ["m"]
[[naive.patch]]
file = "src/x.c"
old = "fast"
new = "slow"
"""


@pytest.fixture
def variants_file(lab_dir, tmp_path, monkeypatch):
    """write(toml) -> the slug, with solutions/<slug>/variants.toml holding toml."""
    slug = lab_dir(LAB)
    monkeypatch.setattr(variants, "SOLUTIONS", str(tmp_path / "solutions"))

    def write(text: str) -> str:
        (tmp_path / "solutions" / slug).mkdir(parents=True, exist_ok=True)
        (tmp_path / "solutions" / slug / "variants.toml").write_text(text)
        return slug
    return write


def test_the_fixture_variants_are_valid(variants_file):
    assert variants.declared(variants_file(VARIANTS))["naive"]["metrics_zero"] == ["m"]


@pytest.mark.parametrize("old,new,why", [
    ("metrics_zero", "metric_zero", "[naive]: unknown key 'metric_zero' (did you mean "
     "'metrics_zero'?)"),
    ("description", "descripton", "[naive]: unknown key 'descripton' (did you mean "
     "'description'?)"),
    ('new = "slow"', 'nwe = "slow"', "[[naive.patch]] number 1: unknown key 'nwe' (did you mean "
     "'new'?)"),
    ('new = "slow"', 'append = "slow"', "needs old and new, or append, or text"),
    ('file = "src/x.c"', "file = 1", "'file' must be a string, not 1"),
    ('["m"]', '["mm"]', "metrics_zero names 'mm', which lab.toml does not declare (did you "
     "mean 'm'?)"),
    ("[[naive.patch]]", "[[naive.patches]]", "unknown key 'patches' (did you mean 'patch'?)"),
])
def test_variants_toml_is_checked(variants_file, old, new, why):
    msg = error(variants.declared, variants_file(VARIANTS.replace(old, new, 1)))
    assert "lab99-x/variants.toml" in msg and why in msg, msg


def test_a_variant_cannot_give_up_a_metric_worth_no_points(variants_file, lab_dir):
    slug = variants_file(VARIANTS)
    lab_dir(LAB.replace("points = 2", "points = 0", 1))
    msg = error(variants.declared, slug)
    assert "metrics_zero names 'm', which is worth no points" in msg, msg


def test_a_patch_given_in_code_is_checked_too(tmp_path):
    msg = error(variants.make, "lab01-cache-lines", str(tmp_path),
                [{"file": "src/counters.c", "olde": "a", "new": "b"}])
    assert "unknown key 'olde' (did you mean 'old'?)" in msg


@pytest.mark.parametrize("text,why", [
    ("[lab99.m]\nzero = 1\nful = 2\n", "[lab99.m]: unknown key 'ful' (did you mean 'full'?)"),
    ("[lab99.m]\nzero = 1\nfull = 2\nreference = { medain = 3 }\n",
     "[lab99.m] reference: unknown key 'medain' (did you mean 'median'?)"),
    ("[lab99.m]\nzero = 1\nfull = 2\nnote = 3\n", "[lab99.m]: 'note' must be a string, not 3"),
    ("[lab99.mm]\nzero = 1\nfull = 2\n", "[lab99.mm]: lab 99 has no metric 'mm' (did you mean "
     "'m'?)"),
    ("[lab9.m]\nzero = 1\nfull = 2\n", "[lab9] should be a lab's table"),
])
def test_thresholds_file_is_checked(lab_dir, tmp_path, monkeypatch, text, why):
    slug = lab_dir(LAB)
    f = tmp_path / "course-thresholds.toml"
    f.write_text(text)
    monkeypatch.setenv("MLMEM_THRESHOLDS", str(f))
    msg = error(labs.load, slug)
    assert "course-thresholds.toml" in msg and why in msg, msg


def test_a_written_thresholds_file_reads_back(lab_dir, tmp_path, monkeypatch):
    f = tmp_path / "t.toml"
    thresholds.write(str(f), {"lab99": {"m": {"zero": 1.2, "full": 2.5, "reference": [3.0, 3.2],
                                              "naive": [1.0], "note": "n"}}}, "machine")
    monkeypatch.setenv("MLMEM_THRESHOLDS", str(f))
    m = labs.load(lab_dir(LAB)).metrics[0]
    assert (m.zero, m.full) == (1.2, 2.5)


@pytest.mark.parametrize("slug", labs.slugs())
def test_every_lab_toml_and_variants_toml_of_the_repository_passes(slug, monkeypatch):
    monkeypatch.delenv("MLMEM_THRESHOLDS", raising=False)
    lab = labs.load(slug)
    assert lab.tests and lab.editable
    for spec in variants.declared(slug).values():
        assert spec["patch"]


def test_every_hidden_toml_of_the_repository_passes():
    found = []
    for d, _, files in os.walk(ROOT):
        if "hidden.toml" in files and "/build" not in d and "/.git" not in d:
            found.append(hidden.read(os.path.join(d, "hidden.toml")))
    assert found and all(found)


def test_the_old_exception_names_are_the_one_type():
    assert labs.LabError is config.ConfigError and thresholds.ThresholdsError is config.ConfigError


def test_library_errors_are_config_errors(tmp_path, monkeypatch):
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "x").write_text("x")
    assert "is not empty" in error(release.export, str(tmp_path / "dest"))
    (tmp_path / "f.c").write_text("a a\n")
    assert "found 2 times" in error(variants.apply, str(tmp_path / "f.c"), "a", "b")
    monkeypatch.setattr(variants, "SOLUTIONS", str(tmp_path / "none"))
    lab = labs.load("lab01-cache-lines")
    assert "needs the reference solution" in error(calibrate.measure, lab, 1)


def test_no_library_module_exits_the_process():
    """SystemExit belongs to the command line (grader/__main__.py and the modules' own
    `if __name__ == "__main__"` lines), never to the library."""
    grader = os.path.join(ROOT, "grader")
    for name in sorted(os.listdir(grader)):
        if name.endswith(".py") and name != "__main__.py":
            with open(os.path.join(grader, name)) as f:
                text = f.read().split('if __name__ == "__main__":')[0]
            assert not re.search(r"raise SystemExit|sys\.exit\(", text), name


def test_the_command_line_exits_2_with_the_message(lab_dir, capsys):
    lab_dir(LAB.replace("threaded", "threded"))
    assert cli.main(["hint", "--lab", "99"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mlmem: ") and "unknown key 'threded' (did you mean 'threaded'?)" in err


def test_a_missing_folder_exits_2(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", "--lab", "01", "--submission",
                           str(tmp_path / "nowhere")], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "submission folder" in proc.stderr and not proc.stdout


def test_the_staff_seed_and_its_old_name():
    said = []
    assert settings.from_env({}, said.append).staff_seed is None
    assert settings.from_env({"MLMEM_SECRET_SEED": "12"}, said.append).staff_seed == "12"
    assert len(said) == 1 and "now called MLMEM_STAFF_SEED" in said[0]
    both = {"MLMEM_SECRET_SEED": "12", "MLMEM_STAFF_SEED": "34"}
    assert settings.from_env(both, said.append).staff_seed == "34" and len(said) == 1


@pytest.mark.parametrize("name,value", [("MLMEM_TEST_TIMEOUT_S", "ten"),
                                        ("MLMEM_BENCH_TIMEOUT_S", "ten"),
                                        ("MLMEM_BENCH_TIMEOUT_S", "0"),
                                        ("MLMEM_BENCH_TIMEOUT_S", "-5"),
                                        ("MLMEM_TEST_TIMEOUT_S", "nan"),
                                        ("MLMEM_CUDA", "gpu"),
                                        ("MLMEM_SANDBOX_UID", "0"),
                                        ("MLMEM_SANDBOX_UID", "abc")])
def test_a_bad_setting_is_named(name, value):
    with pytest.raises(ConfigError) as e:
        settings.from_env({name: value})
    assert name in str(e.value) and repr(value) in str(e.value)


def test_settings_replace_the_labs_limits(lab_dir, monkeypatch):
    monkeypatch.setenv("MLMEM_TEST_TIMEOUT_S", "3")
    monkeypatch.setenv("MLMEM_BENCH_TIMEOUT_S", "7.5")
    lab = labs.load(lab_dir(LAB))
    assert (lab.test_timeout_s, lab.bench_timeout_s) == (3.0, 7.5)
    monkeypatch.delenv("MLMEM_TEST_TIMEOUT_S")
    monkeypatch.delenv("MLMEM_BENCH_TIMEOUT_S")
    lab = labs.load(lab_dir(LAB))
    assert (lab.test_timeout_s, lab.bench_timeout_s) != (3.0, 7.5)


def test_a_bad_setting_stops_the_grader_before_any_work():
    env = {**os.environ, "MLMEM_BENCH_TIMEOUT_S": "soon"}
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", "--lab", "01"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "MLMEM_BENCH_TIMEOUT_S" in proc.stderr and not proc.stdout


def test_no_make_variable_carries_a_trailing_comment():
    """GNU make keeps the spaces before a comment on an assignment line in the value
    (`Q := @   # x` makes Q "@   "): comments go on the line above."""
    import glob
    files = [os.path.join(ROOT, "Makefile")] + sorted(
        glob.glob(os.path.join(ROOT, "common", "*.mk")) +
        glob.glob(os.path.join(ROOT, "labs", "*", "lab.mk")))
    bad = []
    for path in files:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                code = line.replace("\\#", "")  # make's escaped '#' is no comment
                if not line.startswith(("#", "\t")) and re.match(r"[^#]*?[:?+!]?=[^#]*#", code):
                    bad.append(f"{os.path.relpath(path, ROOT)}:{n}: {line.strip()}")
    assert bad == []


def test_a_failed_package_set_up_is_reported_as_such():
    proc = subprocess.run(["make", "-s", "hint", "LAB=01", "DEPS_OK=false"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "setting up the packages mlmem needs failed" in proc.stderr
    assert "Python" not in proc.stderr, proc.stderr
