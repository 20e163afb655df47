"""eval_gap: an env's eval data stops while the run goes on (the post-graduation blind spot)."""
from __future__ import annotations

import numpy as np

from ..envdata import EnvData
from ..incidents import Incident
from . import register


@register("eval_gap", "no eval point for more than factor x evaluation_frequency steps (or x the env's "
          "own eval interval when that is longer) while the run goes on")
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


def _state_at(env: EnvData, step: int) -> str:
    state = "locked"
    for iv in env.timeline:
        if iv.start_step <= step:
            state = iv.state
    return state
