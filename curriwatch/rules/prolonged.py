"""prolonged_training: active for very long without graduating (info)."""
from __future__ import annotations

from ..envdata import EnvData
from ..incidents import Incident
from . import register

PLATEAU_WINDOWS = 2  # an env cannot graduate faster than its plateau test can judge
RUN_SPAN_FACTOR = 2  # ... nor is it prolonged before twice the time the run's graduated envs took


@register("prolonged_training", "active for more than `steps` (default 10 x stagnation_window, and at least "
          "twice the median time the run's graduated envs took) without graduating; never shorter than 2 "
          "plateau windows of the env's own logging")
def prolonged_training(env: EnvData, s: dict) -> list[Incident]:
    limit = s["steps"] or 10 * s["stagnation_window"]
    dt = env.learning.median_interval() or 1.0
    limit_eff = max(limit, int(PLATEAU_WINDOWS * s["graduation"]["plateau_window"] * dt))
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
             **({"note": f"limit raised from {limit} to {limit_eff} steps: {PLATEAU_WINDOWS} plateau windows at "
                         f"one training point per ~{dt:g} steps, or {RUN_SPAN_FACTOR} x the "
                         f"{typical or 0:g} steps the run's graduated envs took"} if limit_eff > limit else {})}))
    return out
