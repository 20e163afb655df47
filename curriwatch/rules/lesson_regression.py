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
          "fell from is reached again)")
def lesson_regression(env: EnvData, s: dict) -> list[Incident]:
    out = []
    for track in lesson_tracks(env):
        for f in track.fallbacks():
            regained = f.regained_at_step
            out.append(Incident(
                "lesson_regression", env.env_id, "warning", f.step,
                regained if regained is not None else max(env.run_last_step, f.step), regained is not None,
                f"lesson of {track.parameter} fell back from {f.from_lesson} to {f.to_lesson} at step {f.step}"
                + (f", reached lesson {f.from_lesson} again at step {regained}" if regained is not None
                   else f", still at lesson {track.current_lesson} at the end of the run"),
                {"parameter": track.parameter, "from_lesson": f.from_lesson, "to_lesson": f.to_lesson,
                 "regained_at_step": regained, **({"note": RESET_NOTE} if f.to_lesson == 0 else {})}))
    return out
