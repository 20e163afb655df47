"""Per-environment views of the frame: the series the rules and the timeline read."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .timeline import Interval, Transition


@dataclass(frozen=True)
class Series:
    """One metric of one env: steps (int64, increasing) and finite values (float64)."""

    steps: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.steps)

    @staticmethod
    def empty() -> "Series":
        return Series(np.zeros(0, np.int64), np.zeros(0))

    def finite(self) -> "Series":
        ok = np.isfinite(self.values)
        return self if ok.all() else Series(self.steps[ok], self.values[ok])

    def within(self, start: int, end: int, include_end: bool = True) -> "Series":
        lo = np.searchsorted(self.steps, start, "left")
        hi = np.searchsorted(self.steps, end, "right" if include_end else "left")
        return Series(self.steps[lo:hi], self.values[lo:hi])

    def in_interval(self, timeline: list[Interval], k: int) -> "Series":
        """The points of interval k: from its start up to the next interval's start (the last
        interval keeps its end step)."""
        iv = timeline[k]
        return self.within(iv.start_step, iv.end_step, include_end=k + 1 == len(timeline))

    def in_states(self, timeline: list[Interval], states: tuple[str, ...]) -> "Series":
        """The points that fall in intervals of the given states, in step order."""
        parts = [self.in_interval(timeline, k) for k, iv in enumerate(timeline) if iv.state in states]
        if not parts:
            return Series(self.steps[:0], self.values[:0])
        return Series(np.concatenate([p.steps for p in parts]), np.concatenate([p.values for p in parts]))

    def median_interval(self) -> float | None:
        return float(np.median(np.diff(self.steps))) if len(self.steps) > 1 else None


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

    @property
    def performance(self) -> Series:
        """Eval performance where the env has eval data, else training performance."""
        return self.eval if len(self.eval) else self.train

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


def iter_env_data(frame: pd.DataFrame, perf_metric_of: dict[str, str | None]) -> Iterator[EnvData]:
    """EnvData for every (run, env) in the frame, with its performance and state series."""
    groups, runs = group_slices(frame)
    steps = frame["step"].to_numpy()
    values = frame["value"].to_numpy()

    def series(key) -> Series | None:
        if key not in groups:
            return None
        s, e = groups[key]
        return Series(steps[s:e], values[s:e])

    envs_of_run: dict[str, list[str]] = {}
    for run, env, _split, _metric in groups:
        envs_of_run.setdefault(run, [])
        if not envs_of_run[run] or envs_of_run[run][-1] != env:
            envs_of_run[run].append(env)
    for run, envs in envs_of_run.items():
        s, e = runs[run]
        first, last = int(steps[s:e].min()), int(steps[s:e].max())
        metric = perf_metric_of.get(run)
        for env in envs:
            train = series((run, env, "train", metric)) or Series.empty()
            evals = series((run, env, "eval", metric)) or Series.empty()
            yield EnvData(run, env, train.finite(), evals.finite(), series((run, env, "state", "state")), first, last)
