"""eval_gap: an env's eval data stops while the run goes on (the post-graduation blind spot)."""
from __future__ import annotations

import numpy as np

from ..envdata import PAUSE_INTERVALS, EnvData
from ..incidents import Incident
from . import register


@register("eval_gap", "no eval point for more than factor x evaluation_frequency steps (or x the env's "
          "own eval interval when that is longer) while the run goes on; stretches where the whole run logged "
          "nothing for longer than that interval (a jump of the step counter, a pause) do not count")
def eval_gap(env: EnvData, s: dict) -> list[Incident]:
    steps = env.eval.steps
    if len(steps) == 0:
        return []
    own = env.eval.median_interval() or 0.0
    every = max(float(s["evaluation_frequency"]), own)
    limit = s["factor"] * every
    # gaps between evals, and from the last eval to the end of the run
    ends = np.append(steps[1:], env.run_last_step)
    gaps = ends - steps
    out = []
    for i in np.flatnonzero(gaps > limit).tolist():
        if gaps[i] - _run_paused(env, int(steps[i]), int(ends[i]), every) <= limit:
            continue  # the whole run logged nothing for most of it (a jump of the step counter, a pause): no blind spot
        start = int(steps[i])
        state = _state_at(env, start)
        ongoing = i == len(steps) - 1
        severity = "warning" if state == "graduated" else "info"
        out.append(Incident(
            # since the first eval that did not come; judged once the gap passed its limit
            "eval_gap", env.env_id, severity, int(start + (own or every)), int(ends[i]), not ongoing,
            f"no eval for {int(gaps[i])} steps after step {start} ({state} env"
            + (", the run went on" if ongoing else f", resumed at step {int(ends[i])}") + ")",
            {"last_eval_step": start, "gap_steps": int(gaps[i]), "limit_steps": int(limit),
             "detected_at_step": int(start + limit),
             "eval_interval": every, "state": state}))
    return out


def _run_paused(env: EnvData, a: int, b: int, every: float) -> int:
    """Steps between a and b in which the run logged nothing at all for longer than the env's eval interval
    `every` (and PAUSE_INTERVALS x the run's median gap between logged steps — any env, metric or split):
    no eval could have come there."""
    if env.run_logged_steps is None:
        return 0
    logged = env.run_logged_steps()
    if len(logged) < 3:
        return 0
    pause = max(PAUSE_INTERVALS * float(np.median(np.diff(logged))), every)
    inside = np.clip(logged, a, b)
    gaps = np.diff(inside)
    return int(np.sum(gaps[gaps > pause]))


def _state_at(env: EnvData, step: int) -> str:
    state = "locked"
    for iv in env.timeline:
        if iv.start_step <= step:
            state = iv.state
    return state
