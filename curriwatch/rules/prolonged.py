"""prolonged_training: active for very long without graduating (info)."""
from __future__ import annotations

from ..envdata import EnvData
from ..incidents import Incident
from . import judged_window, register

WINDOWS = 10  # stagnation windows active without graduating
RUN_SPAN_FACTOR = 2  # ... and at least this many times the median time the run's graduated envs took


def _judged_pace(env: EnvData) -> float | None:
    """The steps between the points a stagnation window widens with: the training points, or the
    evals of an env that logs only evals (as stagnation judges it)."""
    if len(env.train) >= 2:
        return env.train.pace()
    return env.eval.pace() if len(env.eval) >= 2 else None


@register("prolonged_training", "active for more than `steps` (default 10 stagnation windows — stagnation_window "
          "widened to hold min_points points of the env's training logging, or of its evals when it logs only evals — and at least twice the median time the "
          "run's graduated envs took) without graduating; a warning once its progress then stopped (the stall, "
          "begun after the env was overdue, is told in this incident)")
def prolonged_training(env: EnvData, s: dict) -> list[Incident]:
    window = judged_window(s["stagnation_window"], s["window_min_points"], _judged_pace(env))
    limit = s["steps"] or int(WINDOWS * window)
    limit_eff = limit
    typical = env.cache.get("run_graduation_span")
    if not s["steps"] and typical:  # a curriculum whose envs take long to graduate: twice their median
        limit_eff = max(limit_eff, int(RUN_SPAN_FACTOR * typical))
    out = []
    for k, iv in enumerate(env.timeline):
        length = iv.end_step - iv.start_step
        if iv.state != "active" or length <= limit_eff:
            continue
        graduated = k + 1 < len(env.timeline) and env.timeline[k + 1].state == "graduated"
        out.append(Incident(
            "prolonged_training", env.env_id, "info", iv.start_step + limit_eff, iv.end_step, graduated,
            f"active for {length} steps since step {iv.start_step} "
            + ("before graduating" if graduated else "without graduating"),
            {"active_since": iv.start_step, "steps_active": length, "limit_steps": limit_eff,
             "stagnation_window_steps": int(window),
             **({"note": f"limit raised from {limit} to {limit_eff} steps: {RUN_SPAN_FACTOR} x the "
                         f"{typical or 0:g} steps the run's graduated envs took"} if limit_eff > limit else {})}))
    return out
