"""From a logdir (or online W&B runs) to the frame: discover, read, profile, build."""
from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .config import Config, load_config
from .discover import discover
from .errors import ConfigError, InputError
from .frame import FrameBuilder, RunPoints, map_run
from .model import DataIssue, RawRun, RunSource
from .parallel import imap_runs
from .profiles import Profile, all_profiles, compile_user_regex, detect_profile
from .remote import is_url
from .readers import READERS, read_run


@dataclass
class RunMember:
    """One source read into a run: a run group (rollout workers, env processes, a resumed run)
    has several; every point of the run came from one member's files."""

    name: str
    source: str
    path: str
    files: tuple[str, ...] = ()
    profile: str | None = None
    run_id: str | None = None
    points_read: int = 0


@dataclass
class RunInfo:
    """What ingest learned about one run: its source, profile, counts and data issues."""

    name: str
    source: str
    path: str
    profile: str | None
    profile_counts: dict[str, int] = field(default_factory=dict)
    performance_metric: str | None = None
    points_read: int = 0
    points_in_frame: int = 0
    points_per_split: dict[str, int] = field(default_factory=dict)
    tags: int = 0
    unclaimed_tags: list[str] = field(default_factory=list)
    step_range: tuple[int, int] | None = None
    envs: list[str] = field(default_factory=list)
    issues: list[DataIssue] = field(default_factory=list)
    members: list[RunMember] = field(default_factory=list)
    group: str | None = None  # why members were grouped: "wandb group X", "run id prefix X", ...
    observations_combined: int = 0  # points merged into another of the same key and step


@dataclass
class Ingest:
    """The result of `load`: the frame, per-run info (with data issues) and logdir-level issues."""

    logdir: str
    frame: pd.DataFrame
    runs: list[RunInfo]
    issues: list[DataIssue] = field(default_factory=list)
    config: Config | None = None

    def run(self, name: str) -> RunInfo:
        for info in self.runs:
            if info.name == name:
                return info
        raise KeyError(name)

    @property
    def all_issues(self) -> list[DataIssue]:
        return self.issues + [i for r in self.runs for i in r.issues]


Progress = Callable[[int, int, str], None]  # (done, total, run name)


def resolve_profile(name: str | None, config: Config) -> Profile | None:
    """The profile named by `--profile` / config, or None for auto-detection."""
    name = name or config["profile"]
    if name is None:
        return None
    profiles = all_profiles(config.user_profiles)
    if name not in profiles:
        raise ConfigError(f"unknown profile {name!r} (known: {', '.join(profiles)})")
    return profiles[name]


def load(
    logdir: str | os.PathLike | None = None,
    profile: str | None = None,
    *,
    config: Config | str | os.PathLike | None = None,
    reader: str = "native",
    wandb_runs: Iterable[str] = (),
    progress: Progress | None = None,
    group: str | None = None,
) -> Ingest:
    """Read every run under `logdir` (and each online `ENTITY/PROJECT/RUN_ID`) into one frame.

    `group`: a regex; sources whose name (or W&B run id / name) it matches with the same value
    (its `group` named group, else the whole match) are one run. W&B groups, Marin rollout
    workers (`{id}-rollout-{i}`) and offline resumes of one run id are grouped without it.
    Raises InputError when nothing at all could be read; anything partly readable is read and
    what was not becomes a DataIssue on its run (or on the Ingest for folder-level problems).
    """
    plan = plan_sources(logdir, profile, config, reader, wandb_runs, group)
    sources, config = plan.sources, plan.config
    results: list[SourceResult] = list(imap_runs(
        _ingest_one, sources, reader, plan.forced, plan.profiles, names=[s.name for s in sources],
        sizes=[_size(s) for s in sources], progress=progress))
    builder = FrameBuilder()
    infos = []
    for members, grouped in group_sources(results, plan.grouper):
        info = _merge_infos(members, grouped, config)
        for origin, result in enumerate(members):
            if result.points is not None:
                builder.add(info.name, result.points, _origin(members, origin))
            result.points = None
        infos.append(info)
    frame, duplicates, combined, interleaved = builder.build()
    _fill_stats(frame, infos, duplicates, combined, interleaved)
    if frame.empty and all(info.points_read == 0 for info in infos):
        first = next((i for info in infos for i in info.issues), None)
        raise nothing_readable(len(infos), logdir, first or (plan.issues[0] if plan.issues else None))
    return Ingest(plan.root, frame, infos, plan.issues, config)


@dataclass
class Plan:
    """What to read and how: the sources found, logdir-level issues, profiles and grouping."""

    config: Config
    root: str
    sources: list[RunSource]
    issues: list[DataIssue]
    forced: Profile | None
    profiles: dict[str, Profile]
    grouper: object | None


def plan_sources(logdir, profile: str | None, config, reader: str, wandb_runs: Iterable[str],
                 group: str | None) -> Plan:
    """The arguments of `load` checked, the logdir discovered: InputError when there is nothing to read."""
    if not isinstance(config, Config):
        config = load_config(config)
    if reader not in READERS:
        raise ConfigError(f"unknown reader {reader!r} (known: {', '.join(READERS)})")
    forced = resolve_profile(profile, config)
    profiles = all_profiles(config.user_profiles)
    grouper = compile_user_regex("--group", group) if group else None
    sources: list[RunSource] = []
    issues: list[DataIssue] = []
    root = ""
    if logdir is not None:
        user_steps = tuple(dict.fromkeys(k for prof in config.user_profiles.values() for k in prof.step_keys))
        found, issues = discover(logdir, user_steps)
        root = logdir if is_url(logdir) else os.path.abspath(os.fspath(logdir))
        sources.extend(found)
    wandb_runs = list(wandb_runs)
    sources.extend(RunSource(path, "wandb-online", path) for path in wandb_runs)
    if not sources:
        if logdir is None:
            raise InputError("nothing to read: give a LOGDIR or --wandb ENTITY/PROJECT/RUN_ID")
        if issues:
            raise InputError(f"no runs could be read in {logdir}: {issues[0].path}: {issues[0].detail}")
        raise InputError(
            f"no runs found in {logdir}: no TensorBoard event files (events.out.tfevents.*), "
            "W&B run files (run-*.wandb), Ray Tune trials (result.json/progress.csv + params.json), "
            "dcd logs.csv, SwanLab runs (run-*.swanlab), tinker-cookbook or prime-rl metrics.jsonl, MTRL "
            "train.log/eval.log, Acme logs/{label}/logs.csv, MLflow runs (mlruns/, mlflow.db), sacred runs (metrics.json + run.json), TorchRL's scalars/*.csv, a logger's progress.csv, log.csv or metrics.csv "
            "naming a step column (any CSV naming a user profile's step_key), or ROLL stdout logs (metrics_tag: lines)")
    return Plan(config, root, sources, issues, forced, profiles, grouper)


def nothing_readable(runs: int, logdir, first: DataIssue | None) -> InputError:
    why = f": {first.path}: {first.detail}" if first else ""
    return InputError(f"no readable points in {runs} run(s) under {logdir or 'the given runs'}{why}")


@dataclass
class SourceResult:
    """One source read and mapped: its points (None when it could not be read) and its info."""

    source: RunSource
    info: RunInfo
    points: RunPoints | None
    meta: dict = field(default_factory=dict)


def _ingest_one(source: RunSource, reader: str, forced: Profile | None,
                profiles: dict[str, Profile]) -> SourceResult:
    """Read and profile one RunSource. Any unexpected error costs this source only (`read_error`).

    Pure function of its arguments with a picklable result, so sources can be read in parallel.
    """
    info = RunInfo(name=source.name, source=source.source, path=source.path, profile=None)
    try:
        raw = _read(source, reader)
        label = run_label(source, raw.meta)
        chosen, counts = (forced, {}) if forced else detect_profile(raw.tags, profiles, label)
        points, run_issues, stats = map_run(raw, chosen, source.name, label)
    except Exception as err:  # noqa: BLE001 - a reader bug or a hostile file must not end the scan
        info.issues.append(DataIssue(
            "read_error", source.name,
            f"could not be read: {type(err).__name__}: {str(err)[:200]}; its points are not in the frame"))
        return SourceResult(source, info, None)
    info.profile = chosen.name if chosen else None
    info.performance_metric = chosen.performance_for(points.metrics) if chosen else None
    info.profile_counts = counts
    info.points_read, info.tags = stats["points_read"], stats["tags"]
    info.unclaimed_tags = stats["unclaimed_tags"]
    info.issues = raw.issues + run_issues
    if chosen is None and len(raw):
        info.issues.append(DataIssue(
            "no_profile", source.name,
            f"no profile recognises any of its {len(raw.tags)} tag(s); try --profile or a user "
            "profile in the config"))
    return SourceResult(source, info, points, dict(raw.meta))


_ATROPOS_RUN_NAME = re.compile(r"^(?P<env>.+)-\d{4}-\d{2}-\d{2}-[a-z0-9]{6}$")  # base.py:1270-1272
_ROLLOUT_WORKER = re.compile(r"^(?P<group>.+)-rollout-\d+$")  # Marin: one W&B run per rollout worker


def run_label(source: RunSource, meta: dict) -> str:
    """The run's own name, for profiles whose env is the run (Atropos process mode)."""
    name = meta.get("name") or meta.get("run_id")
    if name:
        m = _ATROPOS_RUN_NAME.match(name)
        return m.group("env") if m else name
    return os.path.basename(source.path.rstrip("/\\")) or source.name


def group_sources(results: list[SourceResult], grouper=None) -> list[tuple[list[SourceResult], tuple | None]]:
    """Sources of one experiment together, in reading order, with (label, why) for real groups."""
    groups: dict[tuple, list[SourceResult]] = {}
    why: dict[tuple, tuple[str, str] | None] = {}
    # Folders of one W&B run id where only one records the group: slime's driver inits the run with its group and
    # logs nothing, its rollout manager and actor log the rows under the same id without one (THUDM/slime@624b824
    # slime/observability/wandb_utils.py:22-79, :123-176). The id's group is every folder's.
    id_groups = {_run_id_key(r): r.meta["group"] for r in results if r.meta.get("group") and _run_id_key(r)}
    for result in results:
        key, reason = _group_key(result, grouper, id_groups.get(_run_id_key(result)))
        groups.setdefault(key, []).append(result)
        why.setdefault(key, reason)
    for key in [k for k in groups if k[0] == "wandb-group" and _replicas(groups[k])]:
        members = groups.pop(key)
        for result in members:
            result.info.issues.append(DataIssue(
                "replica_runs", result.source.name,
                f"W&B group {key[1]}: its {len(members)} runs log the same envs, each at least half of its own (seeds "
                f"of one config, not parts of one experiment): read as runs of their own"))
            own, reason = _group_key(result, None, None, ignore_group=True)
            groups.setdefault(own, []).append(result)
            why.setdefault(own, reason)
    return [(members, why[key] if len(members) > 1 else None) for key, members in groups.items()]


def _replicas(members: list[SourceResult]) -> bool:
    """Whether a W&B group's members are replicas of one config rather than parts of one experiment: two or more
    W&B runs (offline resumes of one id count once) that each share at least half of their envs with every other
    (a seed that stopped early, or unlocked fewer lessons, logged fewer). Atropos' env processes, one W&B run an env
    in one group, log an env each; seeds in the group their trainer names after the config log the same ones
    (TD-MPC2 names each run by its seed in the group `{task}-{exp_name}`: nicklashansen/tdmpc2@1967a0f
    tdmpc2/common/logger.py, cfg_to_group and Logger.__init__'s wandb.init; BenchMARL's task name; PufferLib's default
    `debug`), and averaging them point by point hid one seed's fall in the others."""
    workers = {m.group("group") if (m := _ROLLOUT_WORKER.match(r.meta.get("run_id") or "")) else None for r in members}
    if len(workers) == 1 and None not in workers:
        return False  # Marin's rollout workers of one run, whatever group they record: one run's observations
    envs: dict[str, frozenset] = {}
    for result in members:
        if result.points is None or not result.meta.get("run_id"):
            return False
        run_envs = frozenset(result.points.envs[int(e)] for e in np.unique(result.points.env))
        envs[result.meta["run_id"]] = envs.get(result.meta["run_id"], frozenset()) | run_envs
    sets = list(envs.values())
    return len(sets) >= 2 and all(sets) and all(
        2 * len(a & b) >= max(len(a), len(b)) for i, a in enumerate(sets) for b in sets[i + 1:])


def _run_id_key(result: SourceResult) -> tuple[str, str] | None:
    """A W&B source's run id within its folder (offline folders of one id are one run), else None."""
    if result.source.source != "wandb" or not result.meta.get("run_id"):
        return None
    return os.path.dirname(result.source.path), result.meta["run_id"]


def _group_key(result: SourceResult, grouper, id_group: str | None = None,
               ignore_group: bool = False) -> tuple[tuple, tuple[str, str] | None]:
    """(grouping key, (group label, why)) of one source; the key is unique when it has no group. `id_group`: the
    W&B group another folder of the same run id records; `ignore_group`: its W&B group aside (replicas)."""
    meta, source = result.meta, result.source
    ids = [x for x in (meta.get("run_id"), meta.get("name")) if x]
    if grouper is not None:
        for text in (source.name, *ids):
            m = grouper.match(text)
            if m is not None:
                value = m.groupdict().get("group") or m.group(0)
                return ("pattern", value), (value, f"matched by --group: {value}")
    group = None if ignore_group else meta.get("group") or id_group
    if group:
        return ("wandb-group", group), (group, f"W&B group {group}")
    for text in ids:
        m = _ROLLOUT_WORKER.match(text)
        if m:
            value = m.group("group")
            return ("rollout", value), (value, f"Marin rollout workers {value}-rollout-*")
    if result.info.profile == "mlagents" and source.source == "tensorboard":
        # one `mlagents-learn` run trains every behavior of results/{run_id}, each logged in its own folder:
        # TensorboardWriter writes to "{base_dir}/{category}", base_dir the run's write_path, category the
        # behavior (ml-agents mlagents/trainers/stats.py, TensorboardWriter._maybe_create_summary_writer;
        # learn.py run_training). The behaviors are the envs of that one run.
        parent = os.path.dirname(source.path.rstrip("/\\"))
        label = os.path.basename(parent) or source.name
        return ("mlagents", parent), (label, f"ML-Agents run {label}: one folder per behavior")
    if source.source == "wandb" and meta.get("run_id"):  # offline resumes: one id, several folders
        run_id = meta["run_id"]
        return ("resume", os.path.dirname(source.path), run_id), (None, f"W&B run {run_id}, resumed")
    return ("source", source.name, source.source), None


def _origin(members: list[SourceResult], index: int) -> int:
    """Members that are one W&B run (a resume) share an origin: their overlap is duplicates."""
    run_id = members[index].meta.get("run_id")
    if run_id is None:
        return index
    for i, member in enumerate(members):
        if member.meta.get("run_id") == run_id:
            return i
    return index


def _merge_infos(members: list[SourceResult], grouped: tuple | None, config: Config) -> RunInfo:
    """One RunInfo for a run (a single source, or a group of them, named `{common folder}/{label}`;
    a resumed run keeps its first folder's name)."""
    infos = [m.info for m in members]
    first = infos[0]
    profiles = list(dict.fromkeys(i.profile for i in infos if i.profile))
    if len(members) == 1:
        info = first
    else:
        label, why = grouped
        names = [m.source.name for m in members]
        dirs = [posixpath.dirname(n.removesuffix(" [wandb]")) for n in names]
        parent = posixpath.commonpath(dirs) if all(dirs) else ""
        if label is None or why.startswith("matched by --group"):
            name = label or first.name
        else:
            name = f"{parent}/{label}" if parent not in ("", ".") and posixpath.basename(parent) != label \
                else parent or label
        paths = [m.source.path for m in members]
        info = RunInfo(
            name=name,
            source="+".join(dict.fromkeys(i.source for i in infos)),
            path=os.path.commonpath(paths) if all(os.path.isabs(p) for p in paths) else paths[0],
            profile="+".join(profiles) or None,
            points_read=sum(i.points_read for i in infos), tags=sum(i.tags for i in infos),
            unclaimed_tags=sorted({t for i in infos for t in i.unclaimed_tags}),
            issues=[issue for i in infos for issue in i.issues], group=why,
        )
        for i in infos:
            for name, count in i.profile_counts.items():
                info.profile_counts[name] = info.profile_counts.get(name, 0) + count
    info.members = [RunMember(m.source.name, m.source.source, m.source.path, m.source.files, m.info.profile,
                              m.meta.get("run_id"), m.info.points_read) for m in members]
    chosen = all_profiles(config.user_profiles).get(profiles[0]) if profiles else None
    resolved = next((i.performance_metric for i in infos if i.profile == profiles[0]), None) if profiles else None
    info.performance_metric = config["performance_metric"] or resolved or (chosen.performance_metric if chosen else None)
    return info



def _size(source: RunSource) -> int:
    total = 0
    for path in source.files:
        try:
            total += os.stat(path).st_size
        except OSError:
            pass
    return total


def _read(source: RunSource, reader: str) -> RawRun:
    if source.source == "wandb-online":
        from .readers.wandb_online import read_wandb_online

        return read_wandb_online(source)
    return read_run(source, reader)


def run_frame(members: list[SourceResult], grouped: tuple | None, config: Config) -> tuple[pd.DataFrame, RunInfo]:
    """The frame and RunInfo of one run (a source, or a group of them), as `load` builds them for
    every run at once; the members' points are released."""
    info = _merge_infos(members, grouped, config)
    builder = FrameBuilder()
    for origin, result in enumerate(members):
        if result.points is not None:
            builder.add(info.name, result.points, _origin(members, origin))
        result.points = None
    frame, duplicates, combined, interleaved = builder.build()
    _fill_stats(frame, [info], duplicates, combined, interleaved)
    return frame, info


def _fill_stats(frame: pd.DataFrame, infos: list[RunInfo], duplicates: dict[str, int],
                combined: dict[str, int], interleaved: dict[str, int]) -> None:
    one = len(infos) == 1 and not frame.empty and list(frame["run"].cat.categories) == [infos[0].name]
    if one:
        _fill_one(frame, infos[0])
    elif not frame.empty:  # several runs: one pandas pass over all of them
        grouped = frame.groupby("run", observed=True)
        sizes = grouped.size()
        steps = grouped["step"].agg(["min", "max"])
        per_split = frame.groupby(["run", "split"], observed=True).size()
        envs = frame.groupby("run", observed=True)["env_id"].unique()
    for info in infos:
        if not one and not frame.empty and info.name in sizes.index:
            info.points_in_frame = int(sizes[info.name])
            info.step_range = (int(steps.loc[info.name, "min"]), int(steps.loc[info.name, "max"]))
            info.points_per_split = {str(s): int(c) for s, c in per_split[info.name].items()}
            info.envs = sorted(str(e) for e in envs[info.name])
        info.observations_combined = combined.get(info.name, 0)
        for kind, counts, says in ((
                "duplicate_points", duplicates,
                "were written again for the same key and step by a restart (a later file, a TensorBoard SessionLog "
                "START, a resumed job's or W&B run's rows); the last write was kept"), (
                "interleaved_restart", interleaved,
                "of an earlier stretch (before a restart, or an earlier file) lie at or after the step a later "
                "stretch of the same key went back to, and were not written again: both are kept, interleaved "
                "(TensorBoard would drop the earlier ones)")):
            if counts.get(info.name):
                info.issues.append(DataIssue(kind, info.name, f"{counts[info.name]} point(s) {says}"))


def _fill_one(frame: pd.DataFrame, info: RunInfo) -> None:
    """`_fill_stats` of a frame holding one run, with numpy (a sweep pays this per run)."""
    step = frame["step"].to_numpy()
    info.points_in_frame = len(frame)
    info.step_range = (int(step.min()), int(step.max()))
    split, env = frame["split"].cat, frame["env_id"].cat
    counts = np.bincount(split.codes.to_numpy(), minlength=len(split.categories))
    info.points_per_split = {str(name): int(n) for name, n in zip(split.categories, counts) if n}
    present = np.bincount(env.codes.to_numpy(), minlength=len(env.categories)) > 0
    info.envs = sorted(str(name) for name, seen in zip(env.categories, present) if seen)
