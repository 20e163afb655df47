"""d3rlpy's FileAdapter (its default logger): `d3rlpy_logs/{experiment}_{%Y%m%d%H%M%S}/`, one CSV file a metric.

takuseno/d3rlpy@38c34b6 d3rlpy/logging/file_adapter.py:53-76: `params.json` (the algorithm's config) and, at every
commit, `print(f"{epoch},{step},{value}")` appended to `{name}.csv` — no header; the value is the mean of what was
added since the last commit (logging/logger.py:172-198: losses, `time_*`, each evaluator's score under its key,
fit_online's `rollout_return` and `evaluation`). `watch_model` keeps `{module}_grad.csv` with the header
`epoch,step,min,max,mean,std` (:90-117), read as `{module}_grad/{column}`. The experiment folder is the run
(logging/logger.py:157-165: the experiment name plus a timestamp unless `with_timestamp=False`); the step is the
`step` column (the total number of updates, or of env steps online). Models (`model_{step}.d3`) are not read.
"""
from __future__ import annotations

import os

from ..model import RawRun, RunSource
from .lines import iter_lines
from .rows import RowSink, csv_header, text_files, whole_numbers_then_value

PARAMS = "params.json"
SNIFF_BYTES = 4096
GRAD_HEADER = ["epoch", "step", "min", "max", "mean", "std"]


def detect_d3rlpy(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A FileAdapter folder: `params.json` beside CSV files, at least one of `epoch,step,value` lines."""
    if PARAMS not in filenames:
        return []
    csvs = sorted(n for n in filenames if n.endswith(".csv"))
    paths = tuple(os.path.join(folder, n) for n in csvs)
    if not any(whole_numbers_then_value(csv_header(p, SNIFF_BYTES), 2)  # epoch,step,value
               for p in paths if not p.endswith("_grad.csv")):
        return []
    return [("", paths)]


def read_d3rlpy(source: RunSource) -> RawRun:
    raw = RawRun(source)
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        name = os.path.basename(path)[: -len(".csv")]
        columns = None
        for lineno, _offset, text in iter_lines(f, report):
            if not text.strip():
                continue
            cells = [c.strip() for c in text.split(",")]
            if columns is None and lineno == 1 and cells == GRAD_HEADER:
                columns = GRAD_HEADER
                continue
            width = len(columns) if columns else 3
            try:
                step = int(cells[1]) if len(cells) == width else None
            except ValueError:
                step = None
            if step is None or abs(step) >= 2**62:
                report.bad.append((lineno, "not an `epoch,step,value` line" if columns is None else
                                   "not an `epoch,step,min,max,mean,std` line"))
                continue
            if columns is None:
                sink.add({name: cells[2]}, step)
            else:
                sink.add({f"{name}/{c}": v for c, v in zip(columns[2:], cells[2:])}, step)
    return raw
