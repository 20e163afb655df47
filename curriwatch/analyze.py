"""analyze(): timelines, rules, incidents and health over the frame -> Report."""
from __future__ import annotations

import os

import pandas as pd

from . import __version__
from .config import Config, load_config
from .envdata import iter_env_data
from .health import env_health
from .incidents import SEVERITY_RANK, apply_cooldown
from .ingest import Ingest, RunInfo
from .report import Report, RunReport
from .rules import RULES, rule_settings
from .rules.regression import regression_signal
from .timeline import compare_with_curriculum_state, explicit_timeline, inferred_timeline, read_curriculum_state


def analyze(data: Ingest | pd.DataFrame, config: Config | str | os.PathLike | None = None, *,
            performance_metric: str | None = None) -> Report:
    """Replay the curriculum over the frame: per env a state timeline, every rule's incidents
    (cooldown applied), and health; per run and overall a status. `data` is what `load` returned,
    or a bare frame (then `performance_metric`, the config's, or "reward" names the metric)."""
    if isinstance(data, Ingest):
        ingest = data
        if config is None and ingest.config is not None:
            config = ingest.config
    else:
        ingest = Ingest("", data, [RunInfo(str(r), "frame", "", None) for r in data["run"].cat.categories
                                   if (data["run"] == r).any()])
    if not isinstance(config, Config):
        config = load_config(config)
    perf = {info.name: performance_metric or config["performance_metric"] or info.performance_metric or "reward"
            for info in ingest.runs}
    runs = {info.name: RunReport(info.name, info.source, info.profile, info.step_range,
                                 data_issues=list(info.issues), performance_metric=perf[info.name])
            for info in ingest.runs}
    enabled = config["health_monitoring"]["enabled"]
    active_rules = [r for name, r in RULES.items() if enabled and config["rules"][name]["enabled"]]
    settings = {r.name: rule_settings(config, r.name) for r in active_rules}
    regression_settings = rule_settings(config, "graduated_regression")["regression"]
    grad = config["graduation"]
    cooldown = config["health_monitoring"]["warning_cooldown"]
    finals: dict[str, dict[str, str]] = {}
    for env in iter_env_data(ingest.frame, perf):
        _timeline(env, grad)
        incidents = []
        for rule in active_rules:
            incidents += rule.func(env, settings[rule.name])
        incidents = apply_cooldown(incidents, cooldown)
        sig = regression_signal(env, regression_settings)
        report = runs[env.run]
        report.environments.append(env_health(env, incidents, sig["baseline"] if sig else None))
        report.timeline += [(env.env_id, iv) for iv in env.timeline]
        report.state_sources.add("logged" if env.explicit_states else "inferred")
        report.warnings += incidents
        finals.setdefault(env.run, {})[env.env_id] = env.current_state
        if report.step_range is None:
            report.step_range = (env.run_first_step, env.run_last_step)
    for info in ingest.runs:
        report = runs[info.name]
        report.warnings.sort(key=lambda w: (-SEVERITY_RANK[w.severity], w.first_step, w.env_id, w.type))
        if info.path and os.path.isdir(info.path):
            saved, issue = read_curriculum_state(info.path)
            if issue:
                report.data_issues.append(issue)
            if saved and info.name in finals:
                report.data_issues += compare_with_curriculum_state(finals[info.name], saved, info.name)
    return Report(ingest.logdir, list(runs.values()), __version__, list(ingest.issues))


def _timeline(env, grad: dict) -> None:
    if env.state is not None and len(env.state):
        env.timeline, env.transitions = explicit_timeline(env.state.steps, env.state.values,
                                                          env.run_first_step, env.run_last_step)
        env.explicit_states = True
        env.graduation_step = next((iv.start_step for iv in env.timeline if iv.state == "graduated"), None)
    else:
        env.timeline, env.graduation_step = inferred_timeline(env.train.steps, env.train.values,
                                                              env.run_first_step, env.run_last_step, grad)
