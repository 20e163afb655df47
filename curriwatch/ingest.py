"""From a logdir (or online W&B runs) to the frame: discover, read, profile, build."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pandas as pd

from .config import Config, load_config
from .discover import discover
from .errors import ConfigError, InputError
from .frame import FrameBuilder
from .model import DataIssue, RawRun, RunSource
from .profiles import Profile, all_profiles, detect_profile
from .remote import is_url
from .readers import READERS, read_run


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
) -> Ingest:
    """Read every run under `logdir` (and each online `ENTITY/PROJECT/RUN_ID`) into one frame.

    Raises InputError when nothing at all could be read; anything partly readable is read and
    what was not becomes a DataIssue on its run (or on the Ingest for folder-level problems).
    """
    if not isinstance(config, Config):
        config = load_config(config)
    if reader not in READERS:
        raise ConfigError(f"unknown reader {reader!r} (known: {', '.join(READERS)})")
    forced = resolve_profile(profile, config)
    profiles = all_profiles(config.user_profiles)
    sources: list[RunSource] = []
    issues: list[DataIssue] = []
    root = ""
    if logdir is not None:
        found, issues = discover(logdir)
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
            "dcd logs.csv, SwanLab runs (run-*.swanlab) or ROLL stdout logs (metrics_tag: lines)")

    builder = FrameBuilder()
    infos: list[RunInfo] = []
    for done, source in enumerate(sources):
        if progress:
            progress(done, len(sources), source.name)
        raw = _read(source, reader)
        chosen, counts = (forced, {}) if forced else detect_profile(raw.tags, profiles)
        run_issues, stats = builder.add(raw, chosen, source.name)
        perf = config["performance_metric"] or (chosen.performance_metric if chosen else None)
        infos.append(RunInfo(
            name=source.name, source=source.source, path=source.path,
            profile=chosen.name if chosen else None, profile_counts=counts, performance_metric=perf,
            points_read=stats["points_read"], tags=stats["tags"], unclaimed_tags=stats["unclaimed_tags"],
            issues=raw.issues + run_issues,
        ))
        if chosen is None and len(raw):
            infos[-1].issues.append(DataIssue(
                "no_profile", source.name,
                f"no profile recognises any of its {len(raw.tags)} tag(s); try --profile or a user "
                "profile in the config"))
        del raw
    if progress:
        progress(len(sources), len(sources), "")
    frame, duplicates = builder.build()
    _fill_stats(frame, infos, duplicates)
    if frame.empty and all(info.points_read == 0 for info in infos):
        first = next((i for info in infos for i in info.issues), None) or (issues[0] if issues else None)
        why = f": {first.path}: {first.detail}" if first else ""
        raise InputError(f"no readable points in {len(infos)} run(s) under {logdir or 'the given runs'}{why}")
    return Ingest(root, frame, infos, issues, config)



def _read(source: RunSource, reader: str) -> RawRun:
    if source.source == "wandb-online":
        from .readers.wandb_online import read_wandb_online

        return read_wandb_online(source)
    return read_run(source, reader)


def _fill_stats(frame: pd.DataFrame, infos: list[RunInfo], duplicates: dict[str, int]) -> None:
    if not frame.empty:
        grouped = frame.groupby("run", observed=True)
        sizes = grouped.size()
        steps = grouped["step"].agg(["min", "max"])
        per_split = frame.groupby(["run", "split"], observed=True).size()
        envs = frame.groupby("run", observed=True)["env_id"].unique()
    for info in infos:
        if not frame.empty and info.name in sizes.index:
            info.points_in_frame = int(sizes[info.name])
            info.step_range = (int(steps.loc[info.name, "min"]), int(steps.loc[info.name, "max"]))
            info.points_per_split = {str(s): int(c) for s, c in per_split[info.name].items()}
            info.envs = sorted(str(e) for e in envs[info.name])
        if duplicates.get(info.name):
            info.issues.append(DataIssue(
                "duplicate_points", info.name,
                f"{duplicates[info.name]} point(s) were written more than once for the same key and "
                "step (restart or resumed run); the last write was kept"))
