"""The CI gate: does anything in a report reach the --fail-on level?"""
from __future__ import annotations

from enum import Enum

from .incidents import SEVERITY_RANK
from .report import Report


class FailOn(str, Enum):
    critical = "critical"
    warning = "warning"
    never = "never"


def gate_failures(report: Report, fail_on: FailOn | str) -> int:
    """How many incidents (resolved or not: a finished run is judged on all it went through) are
    at or above the level; 0 for `never`."""
    level = FailOn(fail_on)
    if level is FailOn.never:
        return 0
    floor = SEVERITY_RANK[level.value]
    return sum(1 for run in report.runs for w in run.warnings if SEVERITY_RANK[w.severity] >= floor)
