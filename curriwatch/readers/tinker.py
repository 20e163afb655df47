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
from .files import unreadable
from .lines import LineReport, iter_lines, open_regular
from .rows import RowSink, flatten, shown_path

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
    for path in source.files:
        shown = shown_path(source, path)
        sink = RowSink(raw)
        report = LineReport()
        no_step = 0
        try:
            f = open_regular(path)
        except OSError as err:
            raw.issues.append(unreadable(shown, err))
            continue
        with f:
            for lineno, _offset, text in iter_lines(f, report):
                if not text.strip():
                    continue
                try:
                    obj = json.loads(text)
                except ValueError as err:
                    report.bad.append((lineno, f"not JSON ({err.msg})"))
                    continue
                except RecursionError:
                    report.bad.append((lineno, "JSON nested too deeply"))
                    continue
                if not isinstance(obj, dict):
                    report.bad.append((lineno, "not a JSON object"))
                    continue
                step = obj.pop("step", None)
                if not isinstance(step, int) or isinstance(step, bool) or abs(step) >= 2**62:
                    no_step += 1
                    continue
                sink.add(flatten(obj), step)
        raw.issues.extend(report.issues(shown))
        raw.issues.extend(sink.issues(shown))
        if no_step:
            raw.issues.append(DataIssue("missing_step_key", shown, (
                f"{no_step} line(s) have no whole-number `step` (logged with step=None) and are not "
                "in the frame")))
    return raw
