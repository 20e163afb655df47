"""State timelines: each env's locked → active → graduated intervals, explicit or inferred."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .model import DataIssue
from .stats import range_regression, window_sums

STATES = ("locked", "active", "graduated")


@dataclass(frozen=True)
class Interval:
    """A span of one state: from start_step up to end_step (the next interval's start, or the
    run's last step for the last one)."""

    state: str
    start_step: int
    end_step: int


@dataclass(frozen=True)
class Transition:
    """An explicit state change that should not happen (backwards, or to an unknown value)."""

    step: int
    from_state: str | None
    to_value: float
    kind: str  # "backwards" | "unknown_value"


def _intervals(change_steps: list[int], states: list[str], last_step: int) -> list[Interval]:
    out = []
    for i, (start, state) in enumerate(zip(change_steps, states)):
        end = change_steps[i + 1] if i + 1 < len(change_steps) else max(last_step, start)
        out.append(Interval(state, int(start), int(end)))
    return out


def explicit_timeline(steps: np.ndarray, values: np.ndarray, first_step: int, last_step: int
                      ) -> tuple[list[Interval], list[Transition]]:
    """Timeline from a logged state series (0/1/2); odd values and backward moves are reported.

    Before the first state point the env counts as locked. A backward move is kept in the timeline
    (it is what the run logged) and reported as a Transition.
    """
    problems: list[Transition] = []
    known = np.isin(values, (0.0, 1.0, 2.0))
    for s, v in zip(steps[~known], values[~known]):
        problems.append(Transition(int(s), None, float(v), "unknown_value"))
    steps, codes = steps[known], values[known].astype(int)
    change_steps, states = [], []
    if len(steps) == 0 or steps[0] > first_step:
        change_steps.append(first_step)
        states.append("locked")
    prev = 0 if not states else None
    for s, c in zip(steps.tolist(), codes.tolist()):
        state = STATES[c]
        if states and states[-1] == state:
            continue
        if prev is not None and c < prev:
            problems.append(Transition(int(s), states[-1] if states else None, float(c), "backwards"))
        change_steps.append(s)
        states.append(state)
        prev = c
    return _intervals(change_steps, states, last_step), problems


def graduation_index(values: np.ndarray, stop_threshold: float, window: int, plateau_threshold: float,
                     ema_alpha: float = 0.1) -> int | None:
    """Index of the first point where training performance has graduated by Marin's criterion.

    At point j, over the last `window` points: EMA-smoothed performance (`ema_alpha`) ≥ stop_threshold,
    and the window has plateaued: |slope| / mean(|x|) < plateau_threshold, std / mean(|x|) < 0.1 and
    the regression's p-value > 0.1 (no significant trend).
    """
    n = len(values)
    if n < window:
        return None
    smoothed = pd.Series(values).ewm(alpha=ema_alpha, adjust=False).mean().to_numpy()
    x = np.arange(n, dtype=np.float64)
    hi = np.arange(window, n + 1)
    lo = hi - window
    _cnt, _mean, slope, p, std = range_regression(window_sums(x, values), lo, hi)
    abs_mean = pd.Series(np.abs(values)).rolling(window).mean().to_numpy()[window - 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        plateau = (np.abs(slope) / abs_mean < plateau_threshold) & (std / abs_mean < 0.1) & (p > 0.1)
    ok = plateau & (smoothed[window - 1:] >= stop_threshold)
    hits = np.flatnonzero(ok)
    return int(hits[0] + window - 1) if len(hits) else None


def inferred_timeline(train_steps: np.ndarray, train_values: np.ndarray, first_step: int, last_step: int,
                      graduation: dict) -> tuple[list[Interval], int | None]:
    """Locked until the first training point, then active, graduated where the criterion holds."""
    if len(train_steps) == 0:
        return [Interval("locked", first_step, last_step)], None
    change_steps, states = [], []
    start = int(train_steps[0])
    if start > first_step:
        change_steps.append(first_step)
        states.append("locked")
    change_steps.append(start)
    states.append("active")
    j = graduation_index(train_values, graduation["stop_threshold"], graduation["plateau_window"],
                         graduation["plateau_threshold"], graduation["ema_alpha"])
    grad = None
    if j is not None:
        grad = int(train_steps[j])
        if grad > start:
            change_steps.append(grad)
            states.append("graduated")
        else:
            states[-1] = "graduated"
    return _intervals(change_steps, states, last_step), grad


def read_curriculum_state(run_path: str) -> tuple[dict | None, DataIssue | None]:
    """Marin's `curriculum_state.json` in the run folder or its parent, if there is one."""
    for folder in (run_path, os.path.dirname(run_path)):
        path = os.path.join(folder, "curriculum_state.json")
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as f:
                    state = json.load(f)
                return {"unlocked": set(state.get("unlocked", [])), "graduated": set(state.get("graduated", [])),
                        "path": path}, None
            except (OSError, ValueError, AttributeError, TypeError) as err:
                return None, DataIssue("unreadable_file", path, f"cannot read curriculum_state.json: {err}")
    return None, None


def compare_with_curriculum_state(final_states: dict[str, str], saved: dict, run: str) -> list[DataIssue]:
    """Envs whose final timeline state disagrees with Marin's saved unlocked/graduated sets."""
    issues = []
    for env, state in sorted(final_states.items()):
        expected = ("graduated" if env in saved["graduated"]
                    else "active" if env in saved["unlocked"] else "locked")
        if expected != state:
            issues.append(DataIssue(
                "state_mismatch", run,
                f"env {env!r}: the timeline ends {state} but curriculum_state.json says {expected}"))
    return issues
