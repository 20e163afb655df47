"""lesson_regression: a lesson curriculum falls back to an earlier lesson."""
from __future__ import annotations

from ..envdata import EnvData
from ..incidents import Incident
from ..lessons import lesson_tracks
from . import register

# ML-Agents never moves a lesson back (EnvironmentParameterManager.update_lessons only adds one,
# mlagents 0.28.0 environment_parameter_manager.py:156-180), but it sets every parameter to lesson 0
# unless it restores a saved lesson (environment_parameter_manager.py:36-43). A `--resume` whose
# run_logs/training_status.json is missing (training_status.py:70-81 only warns) keeps the step and
# the event files (clear_past_data=not resume, plugins/stats_writer.py:31-35) and logs lesson 0 again.
RESET_NOTE = ("ML-Agents starts every lesson at 0 when a resumed run finds no "
              "run_logs/training_status.json")


@register("lesson_regression", "a lesson index falls back to an earlier lesson (resolved once the lesson it "
          "fell from is reached again); parameters falling back at one step are one incident")
def lesson_regression(env: EnvData, s: dict) -> list[Incident]:
    by_step: dict[int, list] = {}
    for track in lesson_tracks(env):
        for f in track.fallbacks():
            by_step.setdefault(f.step, []).append((track, f))
    out = []
    for step, falls in sorted(by_step.items()):
        regained = [f.regained_at_step for _t, f in falls]
        resolved = all(r is not None for r in regained)
        parts = [f"{t.parameter} from {f.from_lesson} to {f.to_lesson}"
                 + (f" (lesson {f.from_lesson} again at step {f.regained_at_step})" if f.regained_at_step is not None
                    else f" (still at lesson {t.current_lesson} at the end of the run)") for t, f in falls]
        out.append(Incident(
            "lesson_regression", env.env_id, "warning", step,
            max(regained) if resolved else max(env.run_last_step, step), resolved,
            f"lesson fell back at step {step}: " + "; ".join(parts),
            {"parameter": falls[0][0].parameter, "parameters": [t.parameter for t, _f in falls],
             "fallbacks": [{"parameter": t.parameter, "from_lesson": f.from_lesson, "to_lesson": f.to_lesson,
                            "regained_at_step": f.regained_at_step} for t, f in falls],
             **({"note": RESET_NOTE} if any(f.to_lesson == 0 for _t, f in falls) else {})}))
    return out
