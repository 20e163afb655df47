"""The Report: one object every renderer reads (per run: env health, timeline, incidents, data
issues; plus a summary). `to_dict()` is schema_version 1 of design.md."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from .health import EnvHealth
from .incidents import SEVERITIES, SEVERITY_RANK, Incident
from .model import DataIssue
from .timeline import Interval

SCHEMA_VERSION = 1
STATUS_RANK = {"healthy": 0, "unknown": 1, "warning": 2, "critical": 3}  # "worst of" order


@dataclass
class RunReport:
    run: str
    source: str
    profile: str | None
    step_range: tuple[int, int] | None
    environments: list[EnvHealth] = field(default_factory=list)
    timeline: list[tuple[str, Interval]] = field(default_factory=list)  # (env_id, interval)
    warnings: list[Incident] = field(default_factory=list)
    data_issues: list[DataIssue] = field(default_factory=list)
    performance_metric: str | None = None
    state_sources: set[str] = field(default_factory=set)  # "logged" / "inferred" / "file": how timelines were made
    status_reason: str | None = None  # why the run is unknown; None unless it is
    explicit_envs: set[str] = field(default_factory=set, repr=False)  # envs with logged states

    @property
    def health_status(self) -> str:
        """The worst env status; `unknown` when the run has no env that could be judged."""
        return max((e.health_status for e in self.environments), key=STATUS_RANK.get, default="unknown")

    def to_dict(self) -> dict:
        return {
            "run": self.run, "source": self.source, "profile": self.profile,
            "step_range": list(self.step_range) if self.step_range else None,
            "health_status": self.health_status,
            "status_reason": self.status_reason if self.health_status == "unknown" else None,
            "environments": [e.to_dict() for e in self.environments],
            "timeline": [{"env_id": env, "state": iv.state, "start_step": iv.start_step, "end_step": iv.end_step}
                         for env, iv in self.timeline],
            "warnings": [w.to_dict() for w in self.warnings],
            "data_issues": [d.to_dict() for d in self.data_issues],
        }


@dataclass
class Report:
    logdir: str
    runs: list[RunReport]
    curriwatch_version: str = ""
    issues: list[DataIssue] = field(default_factory=list)  # logdir-level, not tied to a run
    status_reason: str | None = None  # set by whoever selected the runs, e.g. "no run matches --run X"

    @property
    def health_status(self) -> str:
        """The worst run status; `unknown` when there is no run at all."""
        return max((r.health_status for r in self.runs), key=STATUS_RANK.get, default="unknown")

    @property
    def overall_reason(self) -> str | None:
        """Why the report is unknown (None unless it is)."""
        if self.health_status != "unknown":
            return None
        if not self.runs:
            return self.status_reason or "no runs found"
        bad = [r for r in self.runs if r.health_status == "unknown"]
        return f"{len(bad)} of {len(self.runs)} run(s) could not be judged (e.g. {bad[0].run}: {bad[0].status_reason})"

    def unknown_counts(self) -> dict[str, int]:
        return {"runs": sum(1 for r in self.runs if r.health_status == "unknown"),
                "environments": sum(1 for r in self.runs for e in r.environments if e.health_status == "unknown")}

    def counts(self) -> dict[str, int]:
        counts = {s: 0 for s in SEVERITIES}
        for run in self.runs:
            for w in run.warnings:
                counts[w.severity] += 1
        return {"critical": counts["critical"], "warning": counts["warning"], "info": counts["info"]}

    def incidents(self) -> pd.DataFrame:
        """Every incident of every run in one tidy table (worst first)."""
        rows = [{"run": r.run, **w.to_dict()} for r in self.runs for w in r.warnings]
        frame = pd.DataFrame(rows, columns=["run", "type", "env_id", "severity", "first_step", "last_step",
                                            "resolved", "message", "evidence"])
        if not frame.empty:
            frame["_rank"] = frame.severity.map(SEVERITY_RANK)
            frame = frame.sort_values(["_rank", "run", "first_step"], ascending=[False, True, True],
                                      kind="stable").drop(columns="_rank").reset_index(drop=True)
        return frame

    def to_dict(self) -> dict:
        data = {
            "schema_version": SCHEMA_VERSION, "curriwatch_version": self.curriwatch_version,
            "logdir": self.logdir,
            "summary": {"runs": len(self.runs), "environments": sum(len(r.environments) for r in self.runs),
                        "health_status": self.health_status, "status_reason": self.overall_reason,
                        "unknown": self.unknown_counts(), "warnings": self.counts()},
            "runs": [r.to_dict() for r in self.runs],
        }
        if self.issues:
            data["data_issues"] = [d.to_dict() for d in self.issues]
        return json_safe(data)


_NUMBERS = frozenset((float, int))


def json_safe(value):
    """NaN and infinities become None; numpy scalars become Python numbers; tuples become lists.

    Linear and lean on big reports: a list of plain finite numbers (a chart series) is copied in
    one step, finiteness checked by its sum (a NaN or an infinity makes the sum non-finite)."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is list or kind is tuple:
        types = set(map(type, value))
        if types <= _NUMBERS and (float not in types or math.isfinite(sum(value))):
            return list(value)
        return [json_safe(v) for v in value]
    if kind is dict:
        return {k if type(k) is str else str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
