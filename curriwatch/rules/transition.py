"""unexpected_transition: states going backwards or unknown, and collapse right after graduation."""
from __future__ import annotations

from ..envdata import EnvData
from ..incidents import Incident
from . import register


@register("unexpected_transition", "an explicit state goes backwards or takes an unknown value (a collapse "
          "right after graduation is one graduated_regression with evidence rapid: true)")
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
    return out
