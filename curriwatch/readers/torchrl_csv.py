"""TorchRL's CSVLogger: `{log_dir}/{exp_name}/scalars/{key}.csv`, one file per key of `step,value` lines.

TorchRL's CSVExperiment (pytorch/rl@ae9719f1 torchrl/record/loggers/csv.py:20-50) creates `scalars/`, `videos/` and
`texts/` in the experiment folder and appends `f"{global_step},{value}"` to `scalars/{name}.csv` for every
`add_scalar` (a name holding `/` is a path of folders), no header. BenchMARL's `loggers: [csv]` writes through it,
its keys' `/` made `_` (facebookresearch/BenchMARL@179a9568 benchmarl/experiment/logger.py:266-272), as do TorchRL's
own examples with `logger.backend=csv`. The experiment folder is the run; a key is its file's path under
`scalars/` without `.csv`. TorchRL's TensorboardLogger writes its event files into the same folder, and its
WandbLogger into `wandb/` beside it (BenchMARL names the W&B run after the experiment): where either copy is, it is
the run and the CSV files are not read again. A job that resumed appends to the same files: a step logged
again is a restart of that key (last write wins, `duplicate_points`).
"""
from __future__ import annotations

import os

from ..discover import TB_FILE
from ..model import RawRun, RunSource
from .files import files_below, too_many_files
from .lines import iter_lines
from .rows import RowSink, csv_header, text_files, whole_numbers_then_value

SCALARS = "scalars"
MAX_FILES = 100_000
SNIFF_BYTES = 4096


def _wandb_copy(folder: str) -> bool:
    """Whether TorchRL's WandbLogger wrote the same experiment beside it: `{log_dir}/wandb/` holding a run whose id
    is the experiment's name (`(offline-)run-{date}-{id}`), as BenchMARL's default `loggers: [csv, wandb]` leaves
    it (benchmarl/experiment/logger.py:64-83: both loggers on one log_dir, the W&B id the experiment's name)."""
    name = os.path.basename(folder.rstrip("/" + os.sep))
    try:
        with os.scandir(os.path.join(os.path.dirname(folder.rstrip("/" + os.sep)), "wandb")) as entries:
            return any(e.name.endswith("-" + name) and e.name.startswith(("offline-run-", "run-")) for e in entries)
    except OSError:
        return False


def detect_torchrl_csv(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """An experiment folder of TorchRL's CSVLogger: a `scalars` folder of `step,value` CSV files, and no other copy
    of it — event files of TorchRL's TensorboardLogger in it, or its WandbLogger's run of the same id beside it."""
    scalars = os.path.join(folder, SCALARS)
    if any(TB_FILE.match(name) for name in filenames) or not os.path.isdir(scalars) or _wandb_copy(folder):
        return []
    files = files_below(scalars, MAX_FILES, ".csv")
    return [("", tuple(files))] if files and whole_numbers_then_value(csv_header(files[0], SNIFF_BYTES), 1) else []


def read_torchrl_csv(source: RunSource) -> RawRun:
    raw = RawRun(source)
    scalars = os.path.join(source.path, SCALARS)
    if len(source.files) >= MAX_FILES:
        raw.issues.append(too_many_files(source.name, MAX_FILES, "scalars/*.csv files"))
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        key = os.path.relpath(path, scalars)[: -len(".csv")].replace(os.sep, "/")
        for lineno, _offset, text in iter_lines(f, report):
            if not text.strip():
                continue
            cells = text.split(",")
            try:
                step = int(cells[0])
            except ValueError:
                step = None
            if len(cells) != 2 or step is None or abs(step) >= 2**62:
                report.bad.append((lineno, "not a `step,value` line"))
                continue
            sink.add({key: cells[1]}, step)
    return raw
