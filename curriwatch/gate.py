"""The CI gate: does anything in a report reach the --fail-on level, or escape judgement?"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .incidents import SEVERITY_RANK
from .report import Report


class FailOn(str, Enum):
    critical = "critical"
    warning = "warning"
    never = "never"


@dataclass(frozen=True)
class GateVerdict:
    failed: bool
    exit_code: int  # 0 pass, 1 fail
    message: str  # one line


def gate_failures(report: Report, fail_on: FailOn | str) -> int:
    """How many incidents (resolved or not: a finished run is judged on all it went through) are
    at or above the level; 0 for `never`."""
    level = FailOn(fail_on)
    if level is FailOn.never:
        return 0
    floor = SEVERITY_RANK[level.value]
    return sum(1 for run in report.runs for w in run.warnings if SEVERITY_RANK[w.severity] >= floor)


def gate_verdict(report: Report, fail_on: FailOn | str, allow_unknown: bool = False) -> GateVerdict:
    """Fail (exit 1) on incidents at or above `fail_on`, and when anything could not be judged
    (status `unknown`) unless `allow_unknown`; never pass when nothing at all was judged.
    `--fail-on never` never fails."""
    level = FailOn(fail_on)
    if level is FailOn.never:
        return GateVerdict(False, 0, "gate off (--fail-on never)")
    failures = gate_failures(report, level)
    if failures:
        return GateVerdict(True, 1, f"gate failed: {failures} incident(s) at or above {level.value}")
    runs = report.runs
    judged = [e for r in runs for e in r.environments if e.health_status != "unknown"]
    if not judged:
        return GateVerdict(True, 1, f"gate failed: nothing was judged ({report.overall_reason or 'no environments'})")
    unknown = report.unknown_counts()
    if unknown["runs"] or unknown["environments"]:
        bad = next((r for r in runs if r.health_status == "unknown"), None) or \
            next(r for r in runs if any(e.health_status == "unknown" for e in r.environments))
        env = next((e for e in bad.environments if e.health_status == "unknown"), None)
        reason = bad.status_reason or (f"{env.env_id}: {env.status_reason}" if env else "")
        what = f"{unknown['runs']} run(s) and {unknown['environments']} environment(s) could not be judged " \
               f"(e.g. {bad.run}: {reason})"
        if allow_unknown:
            return GateVerdict(False, 0, f"gate passed with unknowns allowed: {what}")
        return GateVerdict(True, 1, f"gate failed: {what}; pass --allow-unknown to accept")
    return GateVerdict(False, 0, "gate passed")
