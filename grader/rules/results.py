"""One graded item (a unit test or a performance metric) and its possible outcomes, and the
notes a grading run keeps beside its items."""
from __future__ import annotations

from dataclasses import dataclass

PASSED, FAILED, PARTIAL, SKIPPED = "passed", "failed", "partial", "skipped"


class Cause:
    """Item.cause: who wrote an item's message. OWN: the test's or the benchmark's own words (a
    hidden test's are withheld from students); any other value: the grader's words on how the
    item ended, shown for hidden tests too (they reveal nothing of the test)."""
    OWN = ""
    NO_SUBMISSION = "no-submission"    # the submission has no files for this lab
    NOT_BUILT = "not-built"            # the lab does not compile
    COMPILER_CRASH = "compiler-crash"  # the compiler itself crashed building the lab
    STOPPED = "stopped"                # the test program ended or was stopped before the test
                                       # reported (crash, time limit, no progress)
    EXITED_EARLY = "exited-early"      # the test ended without failing, before its end (exit())


@dataclass
class Item:
    lab: str                 # "01"
    kind: str                # "test" or "metric"
    name: str
    max_score: float
    score: float = 0.0
    status: str = FAILED
    output: str = ""         # why: the failure message, the measured value, the skip reason
    value: float | None = None
    cause: str = Cause.OWN   # who wrote output: the item's own words or the grader's (Cause)
    # Filled in from lab.toml when the grading run records the item (grade.Grading.record):
    title: str = ""          # a metric's title: what it measures, in words
    hidden: bool = False     # an instructor-only test: report.py withholds its failure message
    visibility: str = ""     # when Gradescope shows it ('' : visible, hidden tests after_published)
    higher_is_better: bool | None = None  # a metric's direction (the leaderboard's order)
    lasting: bool = False    # skipped for hardware this machine lacks: measuring again won't help

    @property
    def measured(self) -> bool:
        """A skipped item (hardware this machine lacks, an effect this run could not show) is
        not yet measured: its points stay in the maximum, unearned, until a run measures it."""
        return self.status != SKIPPED


@dataclass
class Note:
    """A line for people beside the items (a test not in lab.toml, output dropped, a build that
    failed): results.json keeps it as data (extra_data.notes) and, for Gradescope, as a line of
    its top-level output."""
    lab: str                 # "01"; "" for a note on the whole run (isolation)
    text: str                # may run over several lines (compiler errors)

    def line(self) -> str:
        """The note as results.json's output shows it: "lab 01: text", or the text alone."""
        return f"lab {self.lab}: {self.text}" if self.lab else self.text
