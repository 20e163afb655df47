"""Per-environment health: the fields of design.md's JSON contract."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .envdata import EnvData
from .incidents import SEVERITY_RANK, Incident
from .stats import significant_trend, trailing_median

TREND_POINTS = 20  # the trend looks at this many latest performance points
TREND_MIN_CHANGE = 0.05  # relative change over those points that counts as a trend
SPARK_BINS = 24
CHART_BUCKETS = 400  # per series in the HTML charts


@dataclass
class EnvHealth:
    env_id: str
    current_state: str
    current_train_performance: float | None
    current_eval_performance: float | None
    peak_performance: float | None
    performance_trend: str
    time_in_current_state: int
    total_training_steps: int
    health_status: str
    warnings: list[str] = field(default_factory=list)
    graduation_step: int | None = None
    graduation_baseline: float | None = None
    status_reason: str | None = None  # why the env could not be judged; None unless unknown
    sparkline: list[float] = field(default_factory=list, repr=False)  # drawing only, not in JSON
    chart: dict = field(default_factory=dict, repr=False)  # drawing only: decimated series, full counts
    lessons: list | None = None  # lesson envs only: one curriwatch.lessons.LessonTrack per parameter

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("sparkline", "chart", "lessons")}
        if self.lessons is not None:  # optional: absent for envs without lessons
            out["lessons"] = [t.to_dict() for t in self.lessons]
        return out


def status_of(incidents: list[Incident]) -> str:
    """critical: an unresolved critical incident; warning: an unresolved warning or any past
    critical; else healthy. Info incidents never change the status."""
    worst = "healthy"
    for inc in incidents:
        level = inc.severity if not inc.resolved else ("warning" if inc.severity == "critical" else None)
        if level in ("warning", "critical") and (worst == "healthy" or SEVERITY_RANK[level] > SEVERITY_RANK[worst]):
            worst = level
    return worst


def performance_trend(steps: np.ndarray, values: np.ndarray) -> str:
    """improving | stable | regressing over the latest TREND_POINTS points (oriented: higher is
    better), when significant and more than TREND_MIN_CHANGE of their spread or level."""
    steps, values = steps[-TREND_POINTS:], values[-TREND_POINTS:]
    slope = significant_trend(steps, values)
    if np.isnan(slope):
        return "stable"
    scale = float(np.mean(np.abs(values))) or 1.0
    change = slope * float(steps[-1] - steps[0]) / scale
    if change > TREND_MIN_CHANGE:
        return "improving"
    if change < -TREND_MIN_CHANGE:
        return "regressing"
    return "stable"


def env_health(env: EnvData, incidents: list[Incident], regression: dict | None) -> EnvHealth:
    """The health fields of one judged env, in the metric's own units. `peak_performance` is the
    best of the smoothed series and every current value shown; the trend is never `stable` beside an
    unresolved critical regression."""
    perf = env.performance
    last = lambda s: env.show(float(s.values[-1])) if len(s) else None  # noqa: E731
    best = [float(np.max(trailing_median(perf.values, 3)))] if len(perf) else []
    best += [float(s.values[-1]) for s in (env.train, env.eval) if len(s)]
    peak = env.show(max(best)) if best else None
    current = env.timeline[-1] if env.timeline else None
    active = sum(iv.end_step - iv.start_step for iv in env.timeline if iv.state == "active")
    types = list(dict.fromkeys(i.type for i in incidents))
    trend_ = performance_trend(perf.steps, perf.values)
    if trend_ == "stable" and any(i.severity == "critical" and not i.resolved and i.type == "graduated_regression"
                                  for i in incidents):
        trend_ = "regressing"
    baseline = env.show(regression["baseline"]) if regression else None
    shown = perf.values if env.sign == 1 else -perf.values
    return EnvHealth(
        env_id=env.env_id, current_state=env.current_state,
        current_train_performance=last(env.train), current_eval_performance=last(env.eval),
        peak_performance=peak, performance_trend=trend_,
        time_in_current_state=int(env.run_last_step - current.start_step) if current else 0,
        total_training_steps=int(active), health_status=status_of(incidents), warnings=types,
        graduation_step=env.graduation_step, graduation_baseline=baseline,
        sparkline=binned_means(shown, SPARK_BINS),
        chart={"train": decimate(env.train.steps, env.train.values * env.sign, CHART_BUCKETS),
               "eval": decimate(env.eval.steps, env.eval.values * env.sign, CHART_BUCKETS),
               "points": {"train": len(env.train), "eval": len(env.eval)},
               "levels": chart_levels(env, regression)},
    )


def chart_levels(env: EnvData, regression: dict | None) -> dict:
    """Drawing only (the HTML charts' reference lines): the start and held levels and the two
    regression thresholds in the metric's own units, as graduated_regression judges them
    (start + share x gain, with the env's effective shares). Empty without a learned gain."""
    if not regression:
        return {}
    start, held = float(regression["start"]), float(regression["baseline"])
    out = {"start": env.show(start), "baseline": env.show(held)}
    for name, key in (("warning", "regression_threshold"), ("critical", "critical_regression_threshold")):
        share = env.settings.get(key)
        if share is not None:
            out[name], out[f"{name}_share"] = env.show(start + float(share) * (held - start)), float(share)
    return out


def unknown_health(env_id: str, reason: str, state: str = "locked") -> EnvHealth:
    """An env that could not be judged: status `unknown` and why."""
    return EnvHealth(env_id=env_id, current_state=state, current_train_performance=None,
                     current_eval_performance=None, peak_performance=None, performance_trend="stable",
                     time_in_current_state=0, total_training_steps=0, health_status="unknown",
                     status_reason=reason, chart={"train": ([], []), "eval": ([], []),
                                                  "points": {"train": 0, "eval": 0}})


def decimate(steps: np.ndarray, values: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """At most 2 x `buckets` points for drawing: each bucket's lowest and highest point, in step
    order, so spikes and dips stay visible. Analysis never sees this. Arrays (int64 steps, float64
    values): they travel from worker processes and into the saved result at memory speed."""
    n = len(values)
    if n <= 2 * buckets:
        return steps.astype(np.int64), values.astype(np.float64)
    index = np.arange(n)
    starts = np.searchsorted((index * buckets) // n, np.arange(buckets))  # bucket k: starts[k] ..
    sizes = np.diff(np.append(starts, n))
    lowest = values == np.repeat(np.minimum.reduceat(values, starts), sizes)
    highest = values == np.repeat(np.maximum.reduceat(values, starts), sizes)
    first_low = np.minimum.reduceat(np.where(lowest, index, n), starts)  # a tie: the first lowest,
    last_high = np.maximum.reduceat(np.where(highest, index, -1), starts)  # ... the last highest
    idx = np.unique(np.concatenate([first_low, last_high]))
    return steps[idx].astype(np.int64), values[idx].astype(np.float64)


def binned_means(values: np.ndarray, bins: int) -> list[float]:
    """Means of `bins` equal slices of the series: a picture of its shape, for drawing only."""
    if len(values) == 0:
        return []
    if len(values) <= bins:
        return values.astype(float).tolist()
    n = len(values)
    # np.array_split's slices: the first n % bins are one longer
    size, extra = divmod(n, bins)
    starts = np.arange(bins) * size + np.minimum(np.arange(bins), extra)
    return (np.add.reduceat(values.astype(np.float64), starts) / np.diff(np.append(starts, n))).tolist()
