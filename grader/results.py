"""One graded item (a unit test or a performance metric) and its possible outcomes."""
from __future__ import annotations

from dataclasses import dataclass

PASSED, FAILED, PARTIAL, SKIPPED = "passed", "failed", "partial", "skipped"


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
