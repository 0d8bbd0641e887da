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

    @property
    def counted(self) -> bool:
        """Skipped items (hardware this machine lacks) count neither for nor against."""
        return self.status != SKIPPED
