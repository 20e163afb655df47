"""Health rules: a plain registry of named functions, each (EnvData, settings) -> [Incident].

A rule reads one env's series and timeline and returns incidents; `analyze` applies the cooldown,
collects every rule's incidents into one table, and the renderers read that table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..envdata import EnvData
from ..incidents import Incident

RuleFunc = Callable[[EnvData, dict], list[Incident]]


@dataclass(frozen=True)
class Rule:
    name: str
    func: RuleFunc
    description: str


RULES: dict[str, Rule] = {}


def register(name: str, description: str):
    def deco(func: RuleFunc) -> RuleFunc:
        RULES[name] = Rule(name, func, description)
        return func

    return deco


def rule_settings(config, name: str) -> dict:
    """One rule's settings: its own block plus the shared keys. `regression` holds the
    graduated_regression settings, which unexpected_transition and health also use."""
    vol = config["rules"]["performance_volatility"]
    shared = {**config["health_monitoring"], "critical_regression_threshold": config["critical_regression_threshold"],
              "graduation": config["graduation"],
              "window_min_points": config["rules"]["training_stagnation"]["min_points"],
              "rapid_regression_window": config["rules"]["unexpected_transition"]["rapid_regression_window"],
              # falls that recover this fast are performance_volatility's dips, not regressions
              "dip_points": vol["dip_points"] if vol["enabled"] else 0}
    return {**shared, **config["rules"][name],
            "regression": {**shared, **config["rules"]["graduated_regression"]}}


def judged_window(stagnation_window: int, min_points: int, interval: float | None) -> float:
    """The stagnation window in steps, widened to hold `min_points` points of a series logged every
    `interval` steps (sparse logging, or steps counted in large units)."""
    return max(float(stagnation_window), min_points * (interval or 1.0))


from . import regression, stagnation, volatility, transition, prolonged, eval_gap  # noqa: E402,F401
from . import lesson_regression, lesson_collapse  # noqa: E402,F401
