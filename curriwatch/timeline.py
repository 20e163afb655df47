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


MIN_PLATEAU_POINTS = 8  # a plateau test needs a few points whatever the window's span
PLATEAU_SPREAD = 0.25  # ... and a plateau's points stay within this x the env's range (sd): no swinging
LEVEL_SHARE = 0.8  # without stop_threshold, a plateau counts once it is in the top 20 % of the env's range
RATE_SHARE = 0.7  # ... and, for rates in [0, 1] (whose range reaches 1), above start + 0.7 x (1 - start)
MIN_RANGE_NOISE = 3.0  # ... and only if that range exceeds 3 x the point noise (a flat env never graduates)


def noise_sd(values: np.ndarray) -> float:
    """Point noise as a standard deviation: median |change between neighbours| / 0.954, which
    trends, level shifts and a minority of jumps do not move."""
    if len(values) < 3:
        return 0.0
    return float(np.median(np.abs(np.diff(values)))) / 0.9539


def units_of(steps: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
    """The trainer's own axis: cumulative rollouts where every point carries a count, else steps."""
    if counts is not None and len(counts) and np.isfinite(counts).all() and (counts > 0).all():
        return np.cumsum(counts, dtype=np.float64)
    return steps.astype(np.float64)


def start_level(values: np.ndarray) -> float:
    """The level an env starts from: median of its first points (a tenth of them, 3 to 20)."""
    k = int(min(max(3, len(values) // 10), 20, len(values)))
    return float(np.median(values[:k]))


def best_level(values: np.ndarray) -> float | None:
    """The best level an env's series reached: its highest mean over MIN_PLATEAU_POINTS points."""
    if len(values) < MIN_PLATEAU_POINTS:
        return None
    c = np.concatenate([[0.0], np.cumsum(values)])
    return float(np.max(c[MIN_PLATEAU_POINTS:] - c[:-MIN_PLATEAU_POINTS]) / MIN_PLATEAU_POINTS)


def graduation_index(steps: np.ndarray, values: np.ndarray, counts: np.ndarray | None, graduation: dict,
                     sign: int = 1, reference_top: float | None = None) -> int | None:
    """Index of the first point where performance (oriented: higher is better) has graduated.

    Over the trailing `plateau_window` in the trainer's units (rollouts when counts are logged, else
    steps; at least MIN_PLATEAU_POINTS points): the window has plateaued — its fitted change across
    the window is under `plateau_threshold` x the env's range and its sd under PLATEAU_SPREAD x the
    range — at a level that is high enough:
    EMA-smoothed performance >= `stop_threshold` when one is set (in the metric's own units), else a
    window mean in the top (1 - LEVEL_SHARE) of the env's own range (start level to its best window),
    where the range must exceed MIN_RANGE_NOISE x the point noise; a rate (all values in [0, 1], higher
    is better) must also be above start + RATE_SHARE x (1 - start). `reference_top`: the level the
    run's other envs reach (on a shared scale); the range then reaches at least up to it.
    """
    n = len(values)
    if n < MIN_PLATEAU_POINTS:
        return None
    units = units_of(steps, counts)
    idx = np.arange(n)
    lo = np.searchsorted(units, units - float(graduation["plateau_window"]), "right")
    lo = np.minimum(lo, idx - MIN_PLATEAU_POINTS + 1)
    valid = lo >= 0
    lo = np.maximum(lo, 0)
    x = units - units[0]
    _cnt, mean, slope, _p, std = range_regression(window_sums(x, values), lo, idx + 1)
    valid &= np.isfinite(mean)
    if not valid.any():
        return None
    start = start_level(values)
    top = float(np.max(mean[valid]))
    if reference_top is not None:
        top = max(top, reference_top)
    rng = top - start
    with np.errstate(invalid="ignore"):
        change = np.abs(np.nan_to_num(slope) * (x - x[lo]))
    if rng <= MIN_RANGE_NOISE * noise_sd(values) or rng <= 0:
        if graduation["stop_threshold"] is None:
            return None
        rng = max(rng, abs(top), 1e-12)
    flat = (change <= graduation["plateau_threshold"] * rng) & (std <= PLATEAU_SPREAD * rng)
    if graduation["stop_threshold"] is not None:
        smoothed = pd.Series(values).ewm(alpha=graduation["ema_alpha"], adjust=False).mean().to_numpy()
        high = smoothed >= sign * graduation["stop_threshold"]
    else:
        high = mean >= start + LEVEL_SHARE * rng
        if sign == 1 and values.min() >= 0 and values.max() <= 1:
            high &= mean >= start + RATE_SHARE * (1 - start)
    hits = np.flatnonzero(valid & flat & high)
    return int(hits[0]) if len(hits) else None


def inferred_timeline(steps: np.ndarray, values: np.ndarray, counts: np.ndarray | None, first_step: int,
                      last_step: int, graduation: dict, sign: int = 1, stopped_at: int | None = None,
                      reference_top: float | None = None) -> tuple[list[Interval], int | None]:
    """Locked until the env's first point, then active, graduated where the criterion holds.

    `stopped_at`: the step where the curriculum stopped training the env while its evals went on
    (Marin stops sampling a graduated lesson the moment it graduates): graduated there."""
    if len(steps) == 0:
        return [Interval("locked", first_step, last_step)], None
    change_steps, states = [], []
    start = int(steps[0])
    if start > first_step:
        change_steps.append(first_step)
        states.append("locked")
    change_steps.append(start)
    states.append("active")
    j = graduation_index(steps, values, counts, graduation, sign, reference_top)
    grad = int(steps[j]) if j is not None else None
    if stopped_at is not None:  # the curriculum's own decision beats the inferred one
        grad = int(stopped_at)
    if grad is not None:
        if grad > start:
            change_steps.append(grad)
            states.append("graduated")
        else:
            states[-1] = "graduated"
    return _intervals(change_steps, states, last_step), grad


def force_final_state(timeline: list[Interval], graduation_step: int | None, expected: str, at_step: int,
                      last_step: int) -> tuple[list[Interval], int | None]:
    """The timeline made to end in the state the trainer saved: a graduated env graduates at
    `at_step` (its inferred graduation, else its last training step) unless it already did; an
    env saved as active or locked loses its inferred graduation."""
    if expected == "graduated" and graduation_step is not None:
        return timeline, graduation_step
    kept = [iv for iv in timeline if iv.state != "graduated" and (expected != "graduated" or iv.start_step < at_step)]
    steps, states = [iv.start_step for iv in kept], [iv.state for iv in kept]
    if expected == "graduated":
        steps, states = steps + [at_step], states + ["graduated"]
    elif not kept:
        steps, states = [timeline[0].start_step if timeline else at_step], ["active"]
    return _intervals(steps, states, last_step), (at_step if expected == "graduated" else None)


STATE_FILE = "curriculum_state.json"
MAX_STATE_FILE = 64 << 20  # bytes: a state file larger than this is not read
CHECKPOINT_DEPTH = 3  # folders searched below a `checkpoints/` folder


def find_curriculum_state(run_path: str, logdir: str, run_ids: tuple[str, ...] = ()) -> str | None:
    """Marin's `curriculum_state.json` for a run: in the run folder, its parents up to the logdir,
    or a `checkpoints/` tree next to any of them (`{checkpoint base}/{run id}/curriculum_state.json`,
    the folder named by the run's id or name; a tree holding one state file only is taken as is)."""
    folders = []
    folder = os.path.abspath(run_path)
    top = os.path.abspath(logdir) if logdir else folder
    while True:
        folders.append(folder)
        parent = os.path.dirname(folder)
        if folder == top or parent == folder or not folder.startswith(top):
            break
        folder = parent
    for folder in folders:
        path = os.path.join(folder, STATE_FILE)
        if os.path.isfile(path):
            return path
    for folder in folders:
        base = os.path.join(folder, "checkpoints")
        if not os.path.isdir(base):
            continue
        for rid in run_ids:
            path = os.path.join(base, rid, STATE_FILE)
            if rid and os.path.isfile(path):
                return path
        found = []
        for root, dirs, files in os.walk(base):
            if root[len(base):].count(os.sep) >= CHECKPOINT_DEPTH:
                dirs[:] = []
            if STATE_FILE in files:
                found.append(os.path.join(root, STATE_FILE))
            if len(found) > 1:
                break
        if len(found) == 1:
            return found[0]
    return None


def read_curriculum_state(run_path: str, logdir: str = "", run_ids: tuple[str, ...] = (),
                          path: str | None = None) -> tuple[dict | None, DataIssue | None]:
    """Marin's saved curriculum state (unlocked / graduated lessons) for a run, if there is one:
    the file given, else one found by `find_curriculum_state`."""
    path = path or find_curriculum_state(run_path, logdir, run_ids)
    if path is None:
        return None, None
    try:
        if os.path.getsize(path) > MAX_STATE_FILE:
            return None, DataIssue("unreadable_file", path, f"{STATE_FILE} is larger than {MAX_STATE_FILE} bytes")
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
        unlocked, graduated = state.get("unlocked", []), state.get("graduated", [])
        if not all(isinstance(x, list) and all(isinstance(e, str) for e in x) for x in (unlocked, graduated)):
            raise ValueError("`unlocked` and `graduated` must be lists of lesson names")
        return {"unlocked": set(unlocked), "graduated": set(graduated), "path": path}, None
    except (OSError, ValueError, AttributeError, TypeError, RecursionError) as err:
        return None, DataIssue("unreadable_file", path, f"cannot read {STATE_FILE}: {err}")


def saved_state(env: str, saved: dict) -> str:
    return "graduated" if env in saved["graduated"] else "active" if env in saved["unlocked"] else "locked"


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
