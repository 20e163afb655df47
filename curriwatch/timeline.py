"""State timelines: each env's locked → active → graduated intervals from logged states, the
saved curriculum state file, and the helpers inferred timelines share (graduation.py infers)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from .model import DataIssue

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


def intervals(change_steps: list[int], states: list[str], last_step: int) -> list[Interval]:
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
    return intervals(change_steps, states, last_step), problems


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
    return intervals(steps, states, last_step), (at_step if expected == "graduated" else None)


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
