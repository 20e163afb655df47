"""Small pieces every renderer shares: ordering, number formatting, sparklines, run selection."""
from __future__ import annotations

import fnmatch

from ..incidents import SEVERITY_RANK
from ..report import STATUS_RANK, Report, RunReport

SPARK = "▁▂▃▄▅▆▇█"


def fmt(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def sparkline(values: list[float]) -> str:
    """Unicode bars: on a 0..1 scale for rates (so a steady 0.95 reads as high), else scaled to
    the series' own min..max."""
    vals = [v for v in values if v == v and abs(v) != float("inf")]
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    if lo >= 0 and hi <= 1:
        lo, hi = 0.0, 1.0
    span = hi - lo or 1.0
    return "".join(SPARK[min(len(SPARK) - 1, int((v - lo) / span * (len(SPARK) - 1) + 0.5))] for v in vals)


def runs_worst_first(report: Report) -> list[RunReport]:
    return sorted(report.runs, key=lambda r: (-STATUS_RANK[r.health_status], r.run))


def incidents_worst_first(run: RunReport):
    return sorted(run.warnings, key=lambda w: (-SEVERITY_RANK[w.severity], w.resolved, w.first_step, w.env_id))


def severity_counts(run: RunReport) -> dict[str, int]:
    counts = {"critical": 0, "warning": 0, "info": 0}
    for w in run.warnings:
        counts[w.severity] += 1
    return counts


def select_runs(report: Report, pattern: str | None) -> Report:
    """Only the runs whose name matches the glob `pattern` (or contains it)."""
    if not pattern:
        return report
    keep = [r for r in report.runs if fnmatch.fnmatch(r.run, pattern) or pattern in r.run]
    return Report(report.logdir, keep, report.curriwatch_version, report.issues)


def steps_text(w) -> str:
    end = "resolved" if w.resolved else "ongoing"
    span = f"{w.first_step}" if w.first_step == w.last_step else f"{w.first_step}..{w.last_step}"
    return f"{span} ({end})"


def run_facts(run: RunReport) -> str:
    """source · profile · steps · performance metric · where the states came from."""
    steps = f"steps {run.step_range[0]}..{run.step_range[1]}" if run.step_range else "no steps"
    states = "/".join(sorted(run.state_sources)) or "-"
    return (f"{run.source} · {run.profile or 'no'} profile · {steps} · metric {run.performance_metric or '-'}"
            f" · states {states}")
