"""unexpected_transition: states going backwards or unknown, and collapse right after graduation."""
from __future__ import annotations

from ..envdata import EnvData
from ..incidents import Incident
from . import register
from .regression import regression_signal, regression_spans


@register("unexpected_transition", "an explicit state goes backwards or takes an unknown value, or a "
          "regression starts within rapid_regression_window steps of graduation")
def unexpected_transition(env: EnvData, s: dict) -> list[Incident]:
    out = []
    for t in env.transitions:
        if t.kind == "backwards":
            msg = f"state went backwards from {t.from_state} to {('locked', 'active', 'graduated')[int(t.to_value)]}"
        else:
            msg = f"state series holds {t.to_value:g}, not one of 0 (locked), 1 (active), 2 (graduated)"
        out.append(Incident("unexpected_transition", env.env_id, "warning", t.step, t.step, True,
                            f"{msg} at step {t.step}",
                            {"kind": t.kind, "from_state": t.from_state, "value": t.to_value}))
    sig = regression_signal(env, s["regression"])
    for span in regression_spans(env, s["regression"]):
        onset = int(sig["steps"][span["onset"]])
        since = onset - sig["graduation_step"]
        if since <= s["rapid_regression_window"]:
            out.append(Incident(
                "unexpected_transition", env.env_id, "critical" if span["critical"] else "warning",
                onset, int(sig["steps"][span["last"]]), span["resolved"],
                f"regressed {since} steps after graduating at step {sig['graduation_step']}",
                {"kind": "rapid_regression", "graduation_step": sig["graduation_step"],
                 "steps_after_graduation": since, "window": s["rapid_regression_window"]}))
    return out
