"""analyze(): timelines, rules, incidents and health over the frame -> Report."""
from __future__ import annotations

import fnmatch
import os
import re

import numpy as np
import pandas as pd

from . import __version__
from .config import Config, load_config
from .errors import InputError
from .envdata import EnvData, held_measurements, iter_env_data
from .frame import COLUMNS, KEY_COLUMNS
from .health import env_health, unknown_health
from .incidents import SEVERITY_RANK, apply_cooldown, drop_explained
from .ingest import Ingest, RunInfo
from .lessons import judged_tracks, lesson_tracks, stage_timeline
from .model import DataIssue
from .profiles import all_profiles, level_of
from .report import Report, RunReport
from .rules import RULES, rule_settings
from .stats import median
from .graduation import inferred_timeline, sibling_climbs
from .levels import (ceiling_reaches, run_noise_reference, run_rate_ceilings, run_rate_top, run_reference,
                     shared_ceilings)
from .rules.regression import regression_signal
from .timeline import (Interval, compare_with_curriculum_state, explicit_timeline, force_final_state,
                       read_curriculum_state, saved_state)

# metric names read as lower-is-better when neither config nor profile says (whole words of the name)
LOWER_IS_BETTER = re.compile(r"(?:^|[^a-z])(loss|error|err|regret|perplexity|ppl|mse|mae|rmse|cost|wer|cer)"
                             r"(?:$|[^a-z])", re.IGNORECASE)


def analyze(data: Ingest | pd.DataFrame, config: Config | str | os.PathLike | None = None, *,
            performance_metric: str | None = None, state_file: str | os.PathLike | None = None) -> Report:
    """Replay the curriculum over the frame: per env a state timeline, every rule's incidents
    (cooldown applied), and health; per run and overall a status, `unknown` with its reason where
    nothing could be judged. `data` is what `load` returned, or a bare frame (then
    `performance_metric`, the config's, or "reward" names the metric). `state_file`: a Marin
    `curriculum_state.json` for every run instead of the one found beside the logs."""
    if isinstance(data, Ingest):
        ingest = data
        if config is None and ingest.config is not None:
            config = ingest.config
    else:
        data = _as_frame(data)
        ingest = Ingest("", data, [RunInfo(str(r), "frame", "", None) for r in data["run"].cat.categories
                                   if (data["run"] == r).any()])
    if not isinstance(config, Config):
        config = load_config(config)
    perf = {info.name: performance_metric or config["performance_metric"] or info.performance_metric or "reward"
            for info in ingest.runs}
    runs = {info.name: RunReport(info.name, info.source, info.profile, info.step_range,
                                 data_issues=list(info.issues), performance_metric=perf[info.name])
            for info in ingest.runs}
    saved = {info.name: _saved_state(info, ingest.logdir, state_file, runs[info.name]) for info in ingest.runs}
    sign_of = _direction(config, {info.name: info for info in ingest.runs}, perf)
    profiles = all_profiles(config.user_profiles)
    profile_of = {info.name: profiles.get(info.profile or "") for info in ingest.runs}
    max_levels = _last_values(ingest.frame, {p.max_level_metric for p in profile_of.values()
                                             if p is not None and p.max_level_metric})
    base = {name: rule_settings(config, name) for name in RULES}
    finals: dict[str, dict[str, str]] = {}
    errors: dict[str, str] = {}
    for run_envs in _by_run(iter_env_data(ingest.frame, perf, sign_of), runs, errors):
        run = run_envs[0].run
        profile = profile_of.get(run)
        held = _held_values(run_envs)
        if held:
            runs[run].data_issues.append(DataIssue("held_values", run, held))
        holders = level_holders(run_envs, profile.level_metric if profile else None)
        for env_id, levels in holders.items():
            runs[run].data_issues.append(DataIssue(
                "level_holder", run,
                f"env {env_id!r} holds levels ({', '.join(levels[:8])}{', ...' if len(levels) > 8 else ''}), each "
                f"judged as an env; its own {perf[run]!r} is the rate over whichever level it trains, "
                "an aggregate of theirs, and is not judged"))
        last = _last_levels(run, holders, max_levels, profile.max_level_metric if profile else None)
        run_envs = [e for e in run_envs if e.env_id not in holders]
        top = run_rate_top(run_envs)
        for env in run_envs:  # before any series is fitted (fits are cached, and run_reference fits them)
            env.cache["rolling_mean_splits"] = profile.rolling_mean_splits if profile else ()
            env.cache["last_level"] = env.env_id in last
            env.cache["run_top"] = top
        references = run_reference(run_envs)
        ceilings = shared_ceilings(run_envs)
        reaches = ceiling_reaches(run_envs, ceilings)
        rate_ceilings = run_rate_ceilings(run_envs)
        noise_refs = run_noise_reference(run_envs)
        climbs = sibling_climbs(run_envs)
        stops = any(_training_stopped(e) is not None for e in run_envs)
        for env, thinned in zip(run_envs, _replays(run_envs)):
            env.cache["replayed_from"] = thinned
        failed: set[int] = set()
        for k, env in enumerate(run_envs):  # first every env's timeline: rules may read the run's
            env.cache["reference"] = references[k]
            env.cache["ceiling"] = ceilings[k]
            env.cache["rate_ceiling"] = rate_ceilings[k]
            env.cache["ceiling_reach"] = reaches[k]
            env.cache["noise_reference"] = noise_refs[k]
            env.cache["sibling_climb"] = climbs[k]
            env.cache["alone"] = len(run_envs) == 1
            env.cache["curriculum_stops"] = stops and not _last_task(env, run_envs)
            if not _guarded(env, runs, errors, lambda: _prepare_env(env, config, runs[env.run], saved.get(env.run))):
                failed.add(k)
        spans = [iv_start_to_graduation(e) for k, e in enumerate(run_envs) if k not in failed]
        spans = [d for d in spans if d is not None]
        for k, env in enumerate(run_envs):
            report = runs[env.run]
            env.cache["run_graduation_span"] = float(np.median(spans)) if spans else None
            if k not in failed:
                _guarded(env, runs, errors, lambda: _judge_env(env, config, base, report))
            finals.setdefault(env.run, {})[env.env_id] = env.current_state
            if report.step_range is None:
                report.step_range = (env.run_first_step, env.run_last_step)
    for info in ingest.runs:
        report = runs[info.name]
        if info.name in errors:
            report.data_issues.append(DataIssue("analysis_error", info.name,
                                                f"analysis failed: {errors[info.name][:300]}"))
        report.warnings.sort(key=lambda w: (-SEVERITY_RANK[w.severity], w.first_step, w.env_id, w.type))
        state = saved[info.name]
        if state and info.name in finals:
            explicit = {e: s for e, s in finals[info.name].items() if e in report.explicit_envs}
            report.data_issues += compare_with_curriculum_state(explicit, state, info.name)
        report.status_reason = _run_reason(info, report, errors.get(info.name))
    return Report(ingest.logdir, list(runs.values()), __version__, list(ingest.issues))


def level_holders(envs: list[EnvData], level_metric: str | None) -> dict[str, list[str]]:
    """Envs whose levels are envs of their own (`{env}/level_{L}`, their states read from the env's
    `level_metric`, as Atropos' infinimath logs them): env id -> its level env ids, by level. Such an env's
    own performance series is the rate over its current level — it falls at every advance by design — so
    its levels are judged instead of it."""
    if not level_metric:
        return {}
    by_id = {e.env_id: e for e in envs}
    out: dict[str, list[tuple[int, str]]] = {}
    for e in envs:
        hit = level_of(e.env_id)
        if hit and hit[0] in by_id:
            out.setdefault(hit[0], []).append((hit[1], e.env_id))
    return {p: [env_id for _, env_id in sorted(levels)] for p, levels in out.items()
            if level_metric in by_id[p].other_metrics}


def _last_values(frame: pd.DataFrame, metrics: set[str]) -> dict[tuple[str, str, str], float]:
    """(run, env, metric) -> the metric's last finite value, for these metrics (read once for all runs)."""
    if not metrics:
        return {}
    rows = frame[frame["metric"].isin(metrics) & np.isfinite(frame["value"])]
    last = rows.groupby(["run", "env_id", "metric"], observed=True, sort=False)["value"].last()
    return {(str(r), str(e), str(m)): float(v) for (r, e, m), v in last.items()}


def _last_levels(run: str, holders: dict[str, list[str]], last_values: dict, metric: str | None) -> set[str]:
    """The level envs at their holder's highest level (its `max_level_metric`'s last value): a curriculum
    never advances past it, so it stays active however well it does."""
    out = set()
    for holder, levels in holders.items():
        top = last_values.get((run, holder, metric)) if metric else None
        if top is not None and top.is_integer() and f"{holder}/level_{int(top)}" in levels:
            out.add(f"{holder}/level_{int(top)}")
    return out


def _as_frame(data) -> pd.DataFrame:
    """A bare frame in the frame's shape (frame.py): its key columns categorical, steps integers, values floats,
    wall_time and count NaN where absent, sorted by its key. A frame built by hand (plain strings, another
    order) is read as load's is; one without a key column is an InputError naming it."""
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"analyze needs what load returned or a DataFrame, not {type(data).__name__}")
    missing = [c for c in (*KEY_COLUMNS, "value") if c not in data.columns]
    if missing:
        raise InputError(f"the frame has no column(s) {', '.join(missing)} (columns: run, env_id, split, metric, "
                         "step, value; wall_time and count optional)")
    if _in_frame_shape(data):
        return data  # load's own frame: no copy, no sort
    try:
        out = pd.DataFrame({
            **{c: data[c] if isinstance(data[c].dtype, pd.CategoricalDtype) else data[c].astype(str).astype("category")
               for c in KEY_COLUMNS[:4]},
            "step": data["step"].astype(np.int64), "value": data["value"].astype(np.float64),
            **{c: data[c].astype(np.float64) if c in data.columns else np.full(len(data), np.nan) for c in ("wall_time", "count")}})
    except (TypeError, ValueError) as err:
        raise InputError(f"the frame's step, value, wall_time or count column is not numeric: {err}") from None
    return out.sort_values(KEY_COLUMNS, kind="stable").reset_index(drop=True)


def _in_frame_shape(data: pd.DataFrame) -> bool:
    """Whether a frame already has the frame's dtypes (frame.COLUMNS) and is sorted by its key, as load's is."""
    if not all(c in data.columns for c in COLUMNS) \
            or not all(isinstance(data[c].dtype, pd.CategoricalDtype) for c in KEY_COLUMNS[:4]) \
            or data["step"].dtype != np.int64 or any(data[c].dtype != np.float64 for c in ("value", "wall_time", "count")):
        return False
    # sorted: at each row the first key that changes from the row before goes up (category codes, then step)
    keys = [data[c].cat.codes.to_numpy(np.int64) for c in KEY_COLUMNS[:4]] + [data["step"].to_numpy()]
    settled = np.zeros(max(len(data) - 1, 0), bool)
    for k in keys:
        d = np.diff(k)
        if (d[~settled] < 0).any():
            return False
        settled |= d > 0
    return True


def _held_values(envs: list[EnvData]) -> str | None:
    """Judge every series that logs each value again until the next measurement on its measurements (a
    value held over 25 updates is one evaluation, not 25 observations that agree: as points they have no noise,
    and every evaluation a little lower reads as a fall that lasted), and say so: None where none does."""
    told = []
    for env in envs:
        for split in ("train", "eval"):
            found = held_measurements(getattr(env, split))
            if found is None:
                continue
            series, typical = found
            told.append(f"{env.env_id!r} {split} ({len(getattr(env, split)):,} points, {len(series):,} measurements, "
                        f"each logged ~{typical:g} times)")
            setattr(env, split, series)
    if not told:
        return None
    return ("each value logged again, unchanged, until the next measurement — judged on its measurements (the first "
            f"point showing each value): {'; '.join(told[:6])}{f'; and {len(told) - 6} more' if len(told) > 6 else ''}")


def _by_run(envs, runs: dict, errors: dict):
    """The envs grouped by run (the frame is sorted by run); an error while building them becomes
    an analysis error of every run not yet reached."""
    batch: list[EnvData] = []
    while True:
        try:
            env = next(envs)
        except StopIteration:
            break
        except Exception as err:  # noqa: BLE001
            for name in runs:
                if name not in errors and not runs[name].environments and all(e.run != name for e in batch):
                    errors[name] = f"{type(err).__name__}: {err}"
            break
        if env.run not in runs:
            continue
        if batch and batch[-1].run != env.run:
            yield batch
            batch = []
        batch.append(env)
    if batch:
        yield batch


def _guarded(env: EnvData, runs: dict, errors: dict, step) -> bool:
    """Run one step of an env's analysis; an unexpected error makes the env unknown and becomes
    its run's analysis error (the other envs and runs go on)."""
    try:
        step()
        return True
    except Exception as err:  # noqa: BLE001 — one run's failure must not cost the others
        errors.setdefault(env.run, f"env {env.env_id!r}: {type(err).__name__}: {err}")
        runs[env.run].environments.append(unknown_health(env.env_id, "analysis failed: " + errors[env.run][:200]))
        return False


def iv_start_to_graduation(env: EnvData) -> int | None:
    """Steps an env was active before it graduated (None if it never did)."""
    if env.graduation_step is None:
        return None
    active = [iv.start_step for iv in env.timeline if iv.state == "active"]
    return env.graduation_step - active[0] if active else None


def _prepare_env(env: EnvData, config: Config, report: RunReport, saved: dict | None) -> None:
    env.settings = _env_settings(config, env.run, env.env_id)
    fix = _timeline(env, env.settings["graduation"], saved)
    if fix:
        report.data_issues.append(fix)
    report.timeline += [(env.env_id, iv) for iv in env.timeline]
    report.state_sources.add("logged" if env.explicit_states else "lessons" if env.lessons else
                             "file" if saved else "inferred")
    if env.explicit_states:
        report.explicit_envs.add(env.env_id)


def _judge_env(env: EnvData, config: Config, base: dict, report: RunReport) -> None:
    enabled = config["health_monitoring"]["enabled"]
    incidents = []
    for name, rule in RULES.items():
        if enabled and config["rules"][name]["enabled"]:
            incidents += rule.func(env, _rule_settings(base, name, env.settings))
    incidents = drop_explained(apply_cooldown(incidents, _cooldown(env, config["health_monitoring"]["warning_cooldown"])))
    sig = regression_signal(env, _rule_settings(base, "graduated_regression", env.settings)["regression"])
    health = env_health(env, incidents, sig)
    if env.lessons:
        health.lessons = judged_tracks(env, _rule_settings(base, "lesson_reward_collapse", env.settings))
    if not len(env.train) and not len(env.eval) and not (env.explicit_states and env.current_state == "locked"):
        # nothing to judge (an env logged as locked all along is simply locked)
        logs = [*(f"lessons {m}" for m in sorted(env.lessons)[:5]), *env.other_metrics[:5]]
        logged = f" (it logs: {', '.join(logs)})" if logs else ""
        if health.health_status == "healthy":
            health.health_status = "unknown"
            health.status_reason = f"no points of the performance metric {report.performance_metric!r}{logged}"
    elif len(env.train) + len(env.eval) < MIN_JUDGED_POINTS and health.health_status == "healthy" \
            and not (env.explicit_states and env.current_state == "locked"):
        n = len(env.train) + len(env.eval)
        health.health_status = "unknown"
        health.status_reason = (f"only {n} point(s) of the performance metric {report.performance_metric!r}: "
                                "too few to judge")
    elif env.lessons and not any(t.spans for t in lesson_tracks(env)) and health.health_status == "healthy":
        health.health_status = "unknown"
        health.status_reason = (f"its lesson series ({', '.join(sorted(env.lessons)[:5])}) hold no lesson index "
                                "(a whole number from 0)")
    report.environments.append(health)
    report.warnings += incidents


COOLDOWN_POINTS = 4  # the cooldown spans at least this many of the env's logging intervals
MIN_JUDGED_POINTS = 3  # an env with fewer performance points is unknown, not healthy


def _cooldown(env: EnvData, steps: int) -> int:
    """`warning_cooldown` in steps, widened to COOLDOWN_POINTS logging intervals of the env's
    performance series (steps counted in large units, e.g. Tune's timesteps, or sparse evals)."""
    if steps == 0:
        return 0
    interval = env.performance.median_interval() or 0.0
    return int(max(steps, COOLDOWN_POINTS * interval))


def _timeline(env: EnvData, grad: dict, saved: dict | None) -> DataIssue | None:
    """The env's timeline: logged states, else inferred (curriculum evidence and the trainer's
    saved state file fix the final state). Returns a data issue when the state file changed it."""
    if env.lessons and not (env.state is not None and len(env.state)):
        env.timeline, env.graduation_step = stage_timeline(env), None  # lessons are stages, not graduation
        return None
    if env.state is not None and len(env.state):
        env.timeline, env.transitions = explicit_timeline(env.state.steps, env.state.values,
                                                          env.run_first_step, env.run_last_step)
        env.explicit_states = True
        env.graduation_step = next((iv.start_step for iv in env.timeline if iv.state == "graduated"), None)
        if env.cache.get("last_level") and env.graduation_step is None and env.timeline[-1].state == "active":
            # the curriculum never advances past its last level, so its states never say it mastered it:
            # its performance does, as for an env whose states are not logged
            final = env.timeline[-1]
            _, g = inferred_timeline(env, grad)
            if g is not None and final.start_step < g < final.end_step:
                env.timeline = env.timeline[:-1] + [Interval("active", final.start_step, g),
                                                    Interval("graduated", g, final.end_step)]
                env.graduation_step = g
        return None
    learn = env.learning
    stopped = _training_stopped(env)
    if stopped is None:
        stopped = env.cache.get("replayed_from")
    to_end = _trained_to_end(env) if stopped is None and env.cache.get("curriculum_stops") else None
    env.timeline, env.graduation_step = inferred_timeline(env, grad, stopped, to_end)
    if not saved:
        return None
    expected, ended = saved_state(env.env_id, saved), env.current_state
    if expected == ended or (expected == "locked" and not len(learn)):
        return None
    at = int(env.train.steps[-1]) if len(env.train) else int(learn.steps[-1]) if len(learn) else env.run_last_step
    env.timeline, env.graduation_step = force_final_state(env.timeline, env.graduation_step, expected, at,
                                                          env.run_last_step)
    return DataIssue("state_from_file", saved["path"],
                     f"env {env.env_id!r}: inferred states ended {ended}; {os.path.basename(saved['path'])} says "
                     f"{expected}" + (f" (graduated at step {env.graduation_step})" if expected == "graduated" else ""))


def _training_stopped(env: EnvData) -> int | None:
    """The last training step of an env whose training rows stopped while its evals and the run's
    training went on — the curriculum stopped sampling it (Marin does so once a lesson graduates)."""
    cadence = _training_cadence(env)
    if cadence is None or not len(env.eval):
        return None
    last, interval, gap = cadence
    # the run's training went on past this env's own cadence (the last lesson to graduate stops only
    # a little before the others' training ends; an eval-only tail after training stops all at once)
    if env.eval.steps[-1] > last + gap and env.run_last_train_step > last + interval:
        return last
    return None


REPLAY_RATIO = 3.0  # a curriculum that replays a graduated env trains it this many times less often ...
REPLAY_GAP = 2.5  # ... every interval of its training since at least this x its dense pace ...
REPLAY_POINTS = 5  # ... for at least this many intervals before and after, to the end of the run's training


def _replayed_from(env: EnvData) -> tuple[int, float] | None:
    """The last dense training step (and the sparse pace after it) of an env whose training thinned out for
    good (REPLAY_RATIO x its pace or more, every interval REPLAY_GAP x) while its evals went on to the end: a
    curriculum that replays graduated envs now and then (against forgetting) trains them far less often once
    they graduate."""
    if not len(env.eval) or env.run_last_train_step is None or (pace := _training_pace(env)) is None:
        return None
    steps, d, dense = pace
    short = np.flatnonzero(d < REPLAY_GAP * dense)
    k = int(short[-1]) + 1 if len(short) else 0
    if k < REPLAY_POINTS or len(d) - k < REPLAY_POINTS or not median(d[k:]) >= REPLAY_RATIO * median(d[:k]):
        return None
    sparse = median(d[k:])
    eval_gap = 3 * max(env.eval.median_interval() or 0.0, sparse)
    if steps[-1] < env.run_last_train_step - 2 * sparse or env.eval.steps[-1] < env.run_last_step - eval_gap \
            or env.eval.steps[-1] <= steps[k]:
        return None
    return int(steps[k]), sparse


def _replays(envs: list[EnvData]) -> list[int | None]:
    """Each env's `_replayed_from`, dropped where every sibling trained about then thinned out at the same
    step too (within one of the env's sparse intervals, as a logger that now writes every few iterations
    leaves each env's last dense point anywhere in one): a run that logs less often from some step on is no
    curriculum's decision. An env alone in its run has no siblings to tell."""
    out = []
    for k, env in enumerate(envs):
        found = _replayed_from(env) if len(envs) > 1 else None
        if found is not None:
            step, sparse = found
            verdicts = [v for v in (_thins_at(e, step, sparse) for j, e in enumerate(envs) if j != k) if v is not None]
            out.append(None if verdicts and all(verdicts) else step)
        else:
            out.append(None)
    return out


def _training_pace(env: EnvData) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The env's distinct training steps, the intervals between them and its dense pace (their 10th
    percentile); None with fewer than 2 x REPLAY_POINTS intervals. Cached on the env (siblings ask too)."""
    if "training_pace" not in env.cache:
        steps = np.unique(env.train.steps)
        d = np.diff(steps)
        env.cache["training_pace"] = (steps, d, float(np.percentile(d, 10))) if len(d) >= 2 * REPLAY_POINTS else None
    return env.cache["training_pace"]


def _thins_at(env: EnvData, step: int, near: float) -> bool | None:
    """Whether the env's training thinned out within `near` of `step` (at a last dense step: the interval
    before it at its dense pace, the one after REPLAY_GAP x that, the REPLAY_POINTS intervals after REPLAY_RATIO
    x the ones before); None when it was not trained on both sides."""
    if (pace := _training_pace(env)) is None:
        return None
    steps, d, dense = pace
    lo = int(np.searchsorted(steps, step - near, "left"))
    hi = int(np.searchsorted(steps, step + near, "right"))
    if lo < REPLAY_POINTS or hi + REPLAY_POINTS > len(steps):
        return None
    return any(d[j - 1] < REPLAY_GAP * dense <= d[j]
               and median(d[j: j + REPLAY_POINTS]) >= REPLAY_RATIO * median(d[j - REPLAY_POINTS: j])
               for j in range(lo, hi))


def _trained_to_end(env: EnvData) -> int | None:
    """The last training step of an env trained until the run ended (its training and its evals), or None.
    Training that stopped for every env while evals went on is the last lesson graduating."""
    cadence = _training_cadence(env)
    if cadence is None:
        return None
    last, interval, gap = cadence
    return last if last >= env.run_last_train_step - interval and last >= env.run_last_step - gap else None


def _last_task(env: EnvData, envs: list[EnvData]) -> bool:
    """Whether the env is a sequential curriculum's last task: trained to the run's end, its training begun only
    once every other env's had stopped (within 3 of its training intervals) — one task trained at a time. It has
    no next task to move on to, so it trains on after graduating."""
    if (cadence := _training_cadence(env)) is None or _trained_to_end(env) is None:
        return False
    first, slack = float(env.train.steps[0]), 3 * cadence[1]
    return all(not len(e.train) or float(e.train.steps[-1]) <= first + slack for e in envs if e is not env)


def _training_cadence(env: EnvData) -> tuple[int, float, float] | None:
    """An env's last training step, its training interval (at least 1) and 3 x the longer of that and its
    eval interval; None without training rows or a known end of the run's training."""
    if not len(env.train) or env.run_last_train_step is None:
        return None
    interval = max(env.train.median_interval() or 0.0, 1.0)
    return int(env.train.steps[-1]), interval, 3 * max(interval, env.eval.median_interval() or 0.0)


def _saved_state(info: RunInfo, logdir: str, state_file, report: RunReport) -> dict | None:
    if state_file is None and not (info.path and os.path.isdir(info.path)):
        return None
    ids = tuple(dict.fromkeys([os.path.basename(info.path.rstrip("/")), info.name.rsplit("/", 1)[-1],
                               info.path.rstrip("/").rsplit("-", 1)[-1]])) if info.path else ()
    state, issue = read_curriculum_state(info.path, logdir, ids, os.fspath(state_file) if state_file else None)
    if issue:
        report.data_issues.append(issue)
    return state


def _direction(config: Config, infos: dict[str, RunInfo], perf: dict[str, str]):
    """sign_of(run, env): -1 where the performance metric is lower-is-better. First match wins:
    an `overrides:` entry for the env, the config's `direction`, the profile's, the metric's name."""
    profiles = all_profiles(config.user_profiles)
    base = {}
    for run, info in infos.items():
        profile = profiles.get(info.profile or "")
        direction = config["direction"] or getattr(profile, "direction", None)
        if direction is None:
            direction = "lower" if LOWER_IS_BETTER.search(perf[run] or "") else "higher"
        base[run] = direction
    entries = [o for o in config["overrides"] if "direction" in o]

    def sign_of(run: str, env: str) -> int:
        direction = base.get(run, "higher")
        for o in entries:
            if fnmatch.fnmatchcase(env, o["env"]) and fnmatch.fnmatchcase(run, o["run"]):
                direction = o["direction"]
        return -1 if direction == "lower" else 1

    return sign_of


def _env_settings(config: Config, run: str, env: str) -> dict:
    """graduation and regression settings for one env, per-env `overrides:` applied in order."""
    out = {"graduation": config["graduation"],
           "regression_threshold": config["health_monitoring"]["regression_threshold"],
           "critical_regression_threshold": config["critical_regression_threshold"], "overridden": False}
    for o in config["overrides"]:
        if fnmatch.fnmatchcase(env, o["env"]) and fnmatch.fnmatchcase(run, o["run"]):
            out["overridden"] = True
            if "graduation" in o:
                out["graduation"] = {**out["graduation"], **o["graduation"]}
            for key in ("regression_threshold", "critical_regression_threshold"):
                if key in o:
                    out[key] = o[key]
    return out


def _rule_settings(base: dict, name: str, env_settings: dict) -> dict:
    """One rule's settings (`base`: every rule's, from the config) with the env's overrides."""
    s = base[name]
    if not env_settings.get("overridden"):
        return s
    extra = {k: env_settings[k] for k in ("graduation", "regression_threshold", "critical_regression_threshold")}
    return {**s, **extra, "regression": {**s["regression"], **extra}}


def _run_reason(info: RunInfo, report: RunReport, error: str | None) -> str | None:
    """Why a run is unknown (None unless it is)."""
    if report.health_status != "unknown":
        return None
    if error and not report.environments:
        return f"analysis failed: {error[:200]}"
    if not report.environments:
        if info.profile is None and info.source != "frame":
            return "no profile recognises its tags (try --profile or a user profile in the config)"
        if not info.points_in_frame and info.source != "frame":
            return "no points were read"
        return "no environments in its logs"
    unknown = [e for e in report.environments if e.health_status == "unknown"]
    if len(unknown) == len(report.environments):
        first = unknown[0].status_reason
        same = all(e.status_reason == first for e in unknown)
        return f"no environment could be judged: {first}" if same else \
            f"no environment could be judged (e.g. {unknown[0].env_id}: {first})"
    return f"{len(unknown)} of {len(report.environments)} environments could not be judged " \
           f"(e.g. {unknown[0].env_id}: {unknown[0].status_reason})"


def unknown_runs(ingest: Ingest, performance_metric: str | None = None) -> dict[str, str]:
    """Before any analysis: the runs that cannot be judged and why (for `doctor`): no profile, no
    points, no envs, or no point of the performance metric (e.g. a misspelt `performance_metric`)."""
    frame = ingest.frame
    out = {}
    for info in ingest.runs:
        rows = frame[frame["run"] == info.name] if len(frame) else frame
        metric = performance_metric or (ingest.config["performance_metric"] if ingest.config else None) \
            or info.performance_metric
        if info.profile is None and not len(rows):
            out[info.name] = "no profile recognises its tags (try --profile or a user profile in the config)"
        elif not len(rows):
            out[info.name] = "no points were read"
        elif metric is not None and not (rows["metric"] == metric).any():
            logged = sorted(set(rows["metric"].astype(str)) - {"state"})[:5]
            out[info.name] = f"no points of the performance metric {metric!r} (it logs: {', '.join(logged)})"
    return out
