"""tinker-cookbook's `metrics.jsonl`: one JSON object per `log_metrics` call, `{"step": N, ...}`.

tinker-cookbook's JsonLogger is always on (tinker_cookbook/utils/ml_log.py:552-553) and appends
each `log_metrics(metrics, step)` (ml_log.py:203-205) as `json.dumps({"step": step, **metrics})`
plus a newline to `{log_path}/metrics.jsonl` (stores/training_store.py:256-272); json.dumps writes
bare NaN. Next to it: config.json, checkpoints.jsonl, timing_spans.jsonl, logs.log, and with W&B
configured the same dicts in `{log_path}/wandb/run-*/` (ml_log.py:317-332), which are not read
again. A resumed run starts again at its last checkpoint's batch (rl/train.py:1929-1931) and appends
to the same file: its steps go back, which is a restart. In async mode the evaluation loop logs its
own line at the step it evaluated (rl/train.py:1287), possibly after later training lines.

prime-rl's FileMonitor writes the same shape (PrimeIntellect-ai/prime-rl@559b4477 src/prime_rl/monitors/
file.py:38-40: `{"step": step, "time": ..., **metrics}`), but its orchestrator puts `metrics["step"] =
float(batch.step)` into the metrics (src/prime_rl/orchestrator/orchestrator.py:937), which overrides the int:
`"step": 50.0`. A whole-number float is that step.
"""
from __future__ import annotations

import json
import math
import os

from ..model import DataIssue, RawRun, RunSource
from .lines import iter_json_objects, open_regular
from .rows import RowSink, flatten, shown_path, text_files

METRICS_FILE = "metrics.jsonl"
SNIFF_BYTES = 1024 * 1024


def detect_tinker(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A log_path: `metrics.jsonl` whose first line is a JSON object with a `step`."""
    if METRICS_FILE not in filenames:
        return []
    path = os.path.join(folder, METRICS_FILE)
    first = first_json_object(path, SNIFF_BYTES)
    return [("", (path,))] if first is not None and "step" in first else []


def first_json_object(path: str, sniff: int) -> dict | None:
    """The JSON object on a file's first line (read from its first `sniff` bytes), or None."""
    try:
        with open_regular(path) as f:
            head = f.read(sniff)
    except OSError:
        return None
    try:
        first = json.loads(head.split(b"\n", 1)[0])
    except (ValueError, RecursionError):
        return None
    return first if isinstance(first, dict) else None


def read_tinker(source: RunSource) -> RawRun:
    raw = RawRun(source)
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        no_step = 0
        for _lineno, obj in iter_json_objects(f, report):
            step = whole_step(obj.pop("step", None))
            if step is None:
                no_step += 1
                continue
            sink.add(flatten(obj), step)
        missing_steps(raw, source, path, no_step)
    return raw


def missing_steps(raw: RawRun, source: RunSource, path: str, count: int) -> None:
    """A `missing_step_key` issue for the `count` lines of a JSON-lines file that held no step."""
    if count:
        raw.issues.append(DataIssue("missing_step_key", shown_path(source, path), (
            f"{count} line(s) have no whole-number `step` (logged with step=None) and are not in the frame")))


def whole_step(step) -> int | None:
    """A line's step: an int, or a float holding a whole number (prime-rl's `50.0`); None otherwise."""
    if isinstance(step, float) and math.isfinite(step) and step.is_integer():
        step = int(step)
    if not isinstance(step, int) or isinstance(step, bool) or abs(step) >= 2**62:
        return None
    return step
