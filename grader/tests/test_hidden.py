"""Instructor-only tests and a secret seed: hidden tests are built and scored with the lab's own,
their failures show no details, and a secret seed never appears in the output."""
import os

from conftest import ROOT, grade

HIDDEN = os.path.join(ROOT, "grader", "tests", "data", "hidden")
NAME = "test_hidden_totals_odd_sizes"


def test_reference_passes_hidden_test(tmp_path):
    g = grade("solutions", "01", str(tmp_path), extra=["--hidden", HIDDEN, "--parts", "tests"])
    tests = g.tests("01")
    assert tests[NAME]["status"] == "passed" and tests[NAME]["score"] == 3
    assert g.results["extra_data"]["max_score"] == 43 and g.results["score"] == 43


def test_hidden_failure_withholds_details(tmp_path):
    g = grade("labs", "01", str(tmp_path), extra=["--parts", "tests"],
              env={"MLMEM_HIDDEN_TESTS": HIDDEN})
    t = g.tests("01")[NAME]
    assert t["score"] == 0 and "withhold" in t["output"] and "check_hidden" not in t["output"]
    assert t["extra_data"]["cause"] == "", "a failure in the test's own words"


def test_secret_seed_is_never_printed(tmp_path):
    secret = "987654321987"
    g = grade("solutions", "01", str(tmp_path), extra=["--parts", "tests"],
              env={"MLMEM_STAFF_SEED": secret})
    assert "seed set by the course staff" in g.stdout
    assert g.results["extra_data"]["labs"]["01"]["seed"] == \
        "mlmem: seed set by the course staff (secret)"
    with open(os.path.join(tmp_path, "results.json")) as f:
        assert secret not in g.stdout and secret not in f.read()
    assert g.results["score"] == g.results["extra_data"]["max_score"] == 40
