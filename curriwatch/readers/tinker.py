"""tinker-cookbook's `metrics.jsonl`: one JSON object per `log_metrics` call, `{"step": N, ...}`.

tinker-cookbook's JsonLogger is always on (tinker_cookbook/utils/ml_log.py:552-553) and appends
each `log_metrics(metrics, step)` (ml_log.py:203-205) as `json.dumps({"step": step, **metrics})`
plus a newline to `{log_path}/metrics.jsonl` (stores/training_store.py:256-272); json.dumps writes
bare NaN. Next to it: config.json, checkpoints.jsonl, timing_spans.jsonl, logs.log, and with W&B
configured the same dicts in `{log_path}/wandb/run-*/` (ml_log.py:317-332), which are not read
again. A resumed run starts again at its last checkpoint's batch (rl/train.py:1929-1931) and appends
to the same file: its steps go back, which is a restart. In async mode the evaluation loop logs its
own line at the step it evaluated (rl/train.py:1287), possibly after later training lines.
"""
from __future__ import annotations

import json
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
    try:
        with open_regular(path) as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return []
    line = head.split(b"\n", 1)[0]
    try:
        first = json.loads(line)
    except (ValueError, RecursionError):
        return []
    return [("", (path,))] if isinstance(first, dict) and "step" in first else []


def read_tinker(source: RunSource) -> RawRun:
    raw = RawRun(source)
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        no_step = 0
        for _lineno, obj in iter_json_objects(f, report):
            step = obj.pop("step", None)
            if not isinstance(step, int) or isinstance(step, bool) or abs(step) >= 2**62:
                no_step += 1
                continue
            sink.add(flatten(obj), step)
        if no_step:
            raw.issues.append(DataIssue("missing_step_key", shown_path(source, path), (
                f"{no_step} line(s) have no whole-number `step` (logged with step=None) and are not "
                "in the frame")))
    return raw
