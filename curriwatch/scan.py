"""`scan()`: `analyze(load(...))` run by run, so a sweep is read, framed and analysed on every core.

Each run is read, framed and analysed in a worker process (`parallel.imap_runs`, or the executor of
`parallel.use_executor`: Dask, Ray); only its RunReport comes back. Sources that may belong to a
run group (W&B groups, Marin rollout workers, resumed W&B runs, `--group`) are read in the workers
too, then grouped here and each group analysed as one run, in a worker. The RunReports are merged
in discovery order: the Report is the one `analyze(load(...))` gives, byte for byte, because the
analysis of a run never looks at another run. No frame of the whole logdir is built.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from .config import Config
from .ingest import (Ingest, Progress, SourceResult, _group_key, _ingest_one, _size, group_sources, nothing_readable,
                     plan_sources, run_frame)
from .model import DataIssue, RunSource
from .parallel import imap_runs
from .report import Report, RunReport

ANALYSIS_BYTES = 1 << 20  # a run's analysis costs about as much as reading this many bytes


@dataclass
class RunOutcome:
    """One analysed run, with what `load` would have checked across runs."""

    report: RunReport
    points_read: int
    points_in_frame: int
    first_issue: DataIssue | None


def scan(logdir: str | os.PathLike | None = None, profile: str | None = None, *,
         config: Config | str | os.PathLike | None = None, reader: str = "native", wandb_runs=(),
         progress: Progress | None = None, group: str | None = None, performance_metric: str | None = None,
         state_file: str | os.PathLike | None = None) -> Report:
    """Read and analyse every run under `logdir` (arguments as `load` and `analyze` take them),
    run by run in worker processes when there are several; the same Report as
    `analyze(load(...))`."""
    plan = plan_sources(logdir, profile, config, reader, wandb_runs, group)
    sources = plan.sources
    keys = [(s.name, s.source) for s in sources]
    alone = [keys.count(k) == 1 for k in keys] if len(set(keys)) < len(keys) else [True] * len(keys)
    settings = (plan.config, plan.root, performance_metric, state_file)
    results = list(imap_runs(
        _read_and_analyse, list(zip(sources, alone)), reader, plan.forced, plan.profiles, plan.grouper, settings,
        names=[s.name for s in sources], sizes=[_size(s) + ANALYSIS_BYTES for s in sources], progress=progress))
    # sources that may be one run with others: grouped as `load` groups them, each group placed
    # where its first member was found
    pending = [r for r in results if isinstance(r, SourceResult)]
    groups = group_sources(pending, plan.grouper)
    first_of = {id(members[0]): k for k, (members, _why) in enumerate(groups)}
    analysed = list(imap_runs(
        _analyse_group, groups, settings, names=[m[0].source.name for m, _why in groups],
        sizes=[sum(_size(r.source) for r in m) + ANALYSIS_BYTES for m, _why in groups], progress=progress))
    outcomes = [r if isinstance(r, RunOutcome) else analysed[first_of[id(r)]]
                for r in results if isinstance(r, RunOutcome) or id(r) in first_of]
    if all(o.points_in_frame == 0 and o.points_read == 0 for o in outcomes):
        first = next((o.first_issue for o in outcomes if o.first_issue), None)
        raise nothing_readable(len(outcomes), logdir, first or (plan.issues[0] if plan.issues else None))
    from . import __version__

    return Report(plan.root, [o.report for o in outcomes], __version__, list(plan.issues))


def _read_and_analyse(item: tuple[RunSource, bool], reader: str, forced, profiles, grouper, settings):
    """Worker: read one source; analyse it when it is a run of its own, else hand it back."""
    source, alone = item
    result = _ingest_one(source, reader, forced, profiles)
    key, _why = _group_key(result, grouper)
    if key[0] != "source" or not alone:
        return result
    return _analyse_run([result], None, settings)


def _analyse_group(group: tuple[list[SourceResult], tuple | None], settings) -> RunOutcome:
    members, why = group
    return _analyse_run(members, why, settings)


def _analyse_run(members: list[SourceResult], why, settings) -> RunOutcome:
    from .analyze import analyze

    config, root, performance_metric, state_file = settings
    frame, info = run_frame(members, why, config)
    first = info.issues[0] if info.issues else None
    report = analyze(Ingest(root, frame, [info], [], config), config, performance_metric=performance_metric,
                     state_file=state_file)
    (run,) = report.runs
    return RunOutcome(run, info.points_read, info.points_in_frame, first)


