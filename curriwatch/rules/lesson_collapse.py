"""lesson_reward_collapse: the reward falls after a lesson advance and does not come back."""
from __future__ import annotations

from ..envdata import EnvData
from ..incidents import Incident
from ..lessons import collapse_facts, judged_tracks
from . import register


@register("lesson_reward_collapse", "after an advance to a harder lesson the smoothed reward stays below "
          "regression_threshold (0.85) of the gain the lesson before had learned for longer than the "
          "recovery window (recovery_factor x the time that lesson took); critical when at the window's "
          "end it keeps less than critical_regression_threshold (0.70); a normal dip that recovers is silent")
def lesson_reward_collapse(env: EnvData, s: dict) -> list[Incident]:
    out = []
    for track in judged_tracks(env, s):
        for adv in track.advances:
            if adv.verdict != "collapsed":
                continue
            facts = collapse_facts(env, adv, s)
            kept = facts["kept_at_window_end"]
            severity = "critical" if kept < s["critical_regression_threshold"] else "warning"
            recovered = adv.recovered_at_step
            out.append(Incident(
                "lesson_reward_collapse", env.env_id, severity, facts["first_step"], facts["last_step"],
                recovered is not None,
                f"reward fell after {track.parameter} advanced from lesson {adv.from_lesson} to {adv.to_lesson} at "
                f"step {adv.step} and did not come back: {adv.window_steps} steps later it is "
                f"{facts['reward_at_window_end']:.4g}, keeping {kept:.0%} of the gain from {adv.start_reward:.4g} to "
                f"the {adv.held_reward:.4g} held before the advance (recovery needs "
                f"{s['regression_threshold']:.0%} within the window)"
                + (f"; back at step {recovered}" if recovered is not None else "; not recovered by the end of the run"),
                {"parameter": track.parameter, "advance_step": adv.step, "from_lesson": adv.from_lesson,
                 "to_lesson": adv.to_lesson, "held_reward": adv.held_reward, "start_reward": adv.start_reward,
                 "lowest_reward": adv.lowest_reward, "reward_at_window_end": facts["reward_at_window_end"],
                 "kept_at_window_end": round(kept, 4), "window_steps": adv.window_steps,
                 "recovery_threshold": s["regression_threshold"],
                 "critical_threshold": s["critical_regression_threshold"], "recovered_at_step": recovered,
                 "detected_at_step": adv.step + adv.window_steps}))
    return out
