"""Per-environment views of the frame: the series the rules and the timeline read."""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .stats import median
from .timeline import Interval, Transition


PAUSE_INTERVALS = 3.0  # an interval this many times the median is a pause in logging, not its pace
LATTICE_SHARE = 0.9  # logging is regular when this share of its intervals are whole multiples of the median ...
LATTICE_TOLERANCE = 0.02  # ... within this share of it

@dataclass(frozen=True)
class Series:
    """One metric of one env: steps (int64, non-decreasing: several observations may share a step),
    finite values (float64, oriented so that higher is better), and each point's observation weight
    (`count`, e.g. Marin's rollouts per point) when the log carries one."""

    steps: np.ndarray
    values: np.ndarray
    counts: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.steps)

    @staticmethod
    def empty() -> "Series":
        return Series(np.zeros(0, np.int64), np.zeros(0))

    def take(self, sel) -> "Series":
        return Series(self.steps[sel], self.values[sel], None if self.counts is None else self.counts[sel])

    def finite(self) -> "Series":
        ok = np.isfinite(self.values)
        return self if ok.all() else self.take(ok)

    def within(self, start: int, end: int, include_end: bool = True) -> "Series":
        lo = np.searchsorted(self.steps, start, "left")
        hi = np.searchsorted(self.steps, end, "right" if include_end else "left")
        return self.take(slice(lo, hi))

    def in_interval(self, timeline: list[Interval], k: int) -> "Series":
        """The points of interval k: from its start up to the next interval's start (the last
        interval keeps its end step)."""
        iv = timeline[k]
        return self.within(iv.start_step, iv.end_step, include_end=k + 1 == len(timeline))

    def in_states(self, timeline: list[Interval], states: tuple[str, ...]) -> "Series":
        """The points that fall in intervals of the given states, in step order."""
        parts = [self.in_interval(timeline, k) for k, iv in enumerate(timeline) if iv.state in states]
        if not parts:
            return self.take(slice(0, 0))
        return Series(np.concatenate([p.steps for p in parts]), np.concatenate([p.values for p in parts]),
                      None if self.counts is None else np.concatenate([p.counts for p in parts]))

    def median_interval(self) -> float | None:
        """Median step between distinct steps (several observations at one step are one logging point)."""
        if len(self.steps) < 2:
            return None
        d = self._gaps()
        return median(d) if len(d) else None

    def _gaps(self) -> np.ndarray:
        """Steps between distinct steps (several observations at one step are one logging point)."""
        d = np.diff(self.steps)
        return d[d > 0]

    def pace(self) -> float | None:
        """The logging interval a window of k points spans k of: for regular logging (nearly every
        interval a whole multiple of the median: a period that logged nothing is a missed point) the
        median; for irregular logging (per finished episode) the mean of the intervals under PAUSE_INTERVALS x
        the median (longer ones are pauses; README's "under 3 x the median")."""
        d = self._gaps().astype(np.float64)
        if not len(d):
            return None
        med = median(d)
        ratio = d / med
        if np.mean(np.abs(ratio - np.round(ratio)) <= LATTICE_TOLERANCE) >= LATTICE_SHARE:
            return med
        return float(np.mean(d[d < PAUSE_INTERVALS * med]))


HELD_MIN_POINTS = 20  # a series this long or longer may hold each value until the next measurement ...
HELD_MIN_RUNS = 5  # ... when this many runs of equal values lie between changes on both sides,
HELD_RUN_POINTS = 3  # their median length is at least this many points,
HELD_REGULAR_SHARE = 0.9  # and this share of them is at least half that long (noise on a lattice repeats a value
# by chance: its runs' lengths spread geometrically, most of them a point or two)


def held_measurements(series: Series) -> tuple[Series, float] | None:
    """A series that logs each value again, unchanged, until the next measurement (Syllabus' learning-progress
    curricula log the last evaluation's rate at every update — RyanNavillus/Syllabus@2d3b9bd
    syllabus/curricula/learning_progress.py:71-105, :175-191 —; a tracker that carries an evaluation's result
    through the rows between evaluations): its measurements, each at the first point that showed it, and the
    typical points a value was held. A run of equal values as long as k typical ones holds k measurements that
    agreed (a never-learner's 0 evaluated again and again), spaced evenly through it. None for a series that
    does not hold its values."""
    n = len(series)
    if n < HELD_MIN_POINTS:
        return None
    v = series.values
    starts = np.concatenate([[0], np.flatnonzero(v[1:] != v[:-1]) + 1])
    lengths = np.diff(np.append(starts, n))
    interior = lengths[1:-1]
    if len(interior) < HELD_MIN_RUNS:
        return None
    typical = float(median(interior))
    if typical < HELD_RUN_POINTS or np.mean(interior >= typical / 2) < HELD_REGULAR_SHARE:
        return None
    per_run = np.maximum(np.rint(lengths / typical), 1).astype(np.int64)
    run_of = np.repeat(np.arange(len(starts)), per_run)
    k = np.arange(len(run_of)) - np.repeat(np.cumsum(per_run) - per_run, per_run)
    idx = starts[run_of] + (k * lengths[run_of]) // per_run[run_of]
    return series.take(idx), typical


@dataclass
class EnvData:
    """Everything the rules may read about one env of one run."""

    run: str
    env_id: str
    train: Series
    eval: Series
    state: Series | None
    run_first_step: int
    run_last_step: int
    timeline: list[Interval] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    graduation_step: int | None = None
    explicit_states: bool = False
    cache: dict = field(default_factory=dict)
    sign: int = 1  # +1 when higher is better; -1 when lower is (the series hold -value then)
    settings: dict = field(default_factory=dict)  # this env's effective analysis settings (overrides applied)
    run_last_train_step: int | None = None  # the last training step of any env of the run
    other_metrics: tuple[str, ...] = ()  # metrics the env logged besides the performance metric
    lessons: dict[str, Series] = field(default_factory=dict)  # lesson index series (split state), by metric
    # every step the run logged anything at (any env, metric or split), sorted: computed on first call
    run_logged_steps: Callable[[], np.ndarray] | None = field(default=None, repr=False)
    metric: str = ""  # the performance metric's name

    @property
    def performance(self) -> Series:
        """Eval performance where the env has eval data, else training performance."""
        return self.eval if len(self.eval) else self.train

    @property
    def learning(self) -> Series:
        """The series that shows the env learning: training performance, or eval when only eval is logged."""
        return self.train if len(self.train) else self.eval

    def show(self, value: float) -> float:
        """An oriented value back in the metric's own units."""
        return self.sign * value

    @property
    def current_state(self) -> str:
        return self.timeline[-1].state if self.timeline else "locked"


def group_slices(frame: pd.DataFrame) -> tuple[dict, dict[str, tuple[int, int]]]:
    """Row ranges of every (run, env, split, metric) group, and of every run, in a sorted frame."""
    cols = [frame[c].cat.codes.to_numpy().astype(np.int64) for c in ("run", "env_id", "split", "metric")]
    n = len(frame)
    if n == 0:
        return {}, {}
    change = np.zeros(n, bool)
    change[0] = True
    for c in cols:
        change[1:] |= c[1:] != c[:-1]
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], n)
    cats = [frame[c].cat.categories for c in ("run", "env_id", "split", "metric")]
    groups = {}
    for s, e in zip(starts.tolist(), ends.tolist()):
        key = tuple(str(cats[k][cols[k][s]]) for k in range(4))
        groups[key] = (s, e)
    run_codes = cols[0]
    run_change = np.flatnonzero(np.concatenate([[True], run_codes[1:] != run_codes[:-1]]))
    run_ends = np.append(run_change[1:], n)
    runs = {str(cats[0][run_codes[s]]): (int(s), int(e)) for s, e in zip(run_change, run_ends)}
    return groups, runs


def iter_env_data(frame: pd.DataFrame, perf_metric_of: dict[str, str | None],
                  sign_of=lambda run, env: 1) -> Iterator[EnvData]:
    """EnvData for every (run, env) in the frame, with its performance and state series; values
    are multiplied by `sign_of(run, env)` (-1 for lower-is-better metrics)."""
    groups, runs = group_slices(frame)
    steps = frame["step"].to_numpy()
    values = frame["value"].to_numpy()
    counts = frame["count"].to_numpy(np.float64) if "count" in frame.columns else None

    def series(key, sign=1) -> Series | None:
        if key not in groups:
            return None
        s, e = groups[key]
        c = None
        if counts is not None:
            c = counts[s:e]
            if not (np.isfinite(c).any()):
                c = None
        return Series(steps[s:e], values[s:e] if sign == 1 else -values[s:e], c)

    envs_of_run: dict[str, list[str]] = {}
    metrics_of: dict[tuple[str, str], set[str]] = {}
    lessons_of: dict[tuple[str, str], list[str]] = {}  # state-split metrics other than `state`: lesson indexes
    last_train: dict[str, int] = {}
    for run, env, split, metric in groups:
        envs_of_run.setdefault(run, [])
        if not envs_of_run[run] or envs_of_run[run][-1] != env:
            envs_of_run[run].append(env)
        if split != "state":
            metrics_of.setdefault((run, env), set()).add(metric)
        elif metric != "state":
            lessons_of.setdefault((run, env), []).append(metric)
        if split == "train" and metric == perf_metric_of.get(run):
            end = int(steps[groups[(run, env, split, metric)][1] - 1])
            last_train[run] = max(last_train.get(run, end), end)
    for run, envs in envs_of_run.items():
        s, e = runs[run]
        first, last = int(steps[s:e].min()), int(steps[s:e].max())
        logged = functools.cache(lambda s=s, e=e: np.unique(steps[s:e]))  # computed on first call, then kept
        metric = perf_metric_of.get(run)
        for env in envs:
            sign = sign_of(run, env)
            train = series((run, env, "train", metric), sign) or Series.empty()
            evals = series((run, env, "eval", metric), sign) or Series.empty()
            others = tuple(sorted(metrics_of.get((run, env), set()) - {metric}))
            lessons = {m: series((run, env, "state", m)) for m in lessons_of.get((run, env), ())}
            yield EnvData(run, env, train.finite(), evals.finite(), series((run, env, "state", "state")), first, last,
                          sign=sign, run_last_train_step=last_train.get(run), other_metrics=others, lessons=lessons,
                          run_logged_steps=logged, metric=metric or "")
