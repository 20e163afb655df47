"""ROLL's stdout tracker from a saved log: `... metrics_tag: {"step": N, "metrics": {...}}` lines.

ROLL's StdoutTracker.log does `logger.info(f"metrics_tag: {json.dumps({'step': step, 'metrics':
values})}")` (alibaba/ROLL roll/utils/tracking.py:161), after stripping `@tag` key suffixes (:40-52);
json.dumps writes bare NaN/Infinity. The logger prefixes `[%(asctime)s] [%(filename)s (%(lineno)d)]
[%(levelname)s] [WORKER RANK / WORLD][PID n] ` (roll/utils/logging.py:58-63) and its file handler
writes `{ROLL_LOG_DIR}/log_rank_{WORKER}_{RANK}_{WORLD}.log` (:29-31). Keys then go through the
`roll` profile like the TensorBoard/W&B trackers' keys.

A file counts as a ROLL stdout log when its name ends in .log, .txt, .out or .stdout (or starts
with `log_rank_`) and `metrics_tag: {` occurs in its first 8 MiB; each such file is one run.
"""
from __future__ import annotations

import json
import os

from ..model import RawRun, RunSource
from .lines import iter_lines, open_regular
from .rows import RowSink, flatten, text_files

MARKER = "metrics_tag: "
SNIFF_BYTES = 8 * 1024 * 1024
LOG_SUFFIXES = (".log", ".txt", ".out", ".stdout")


def _is_candidate(name: str) -> bool:
    return name.endswith(LOG_SUFFIXES) or name.startswith("log_rank_")


def sniff(path: str) -> bool:
    """Whether the file's first 8 MiB hold a metrics_tag line."""
    try:
        with open_regular(path) as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return False
    return b"metrics_tag: {" in head


def detect_roll_stdout(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Each ROLL stdout log in the folder is its own run, named by its file."""
    return [(name, (os.path.join(folder, name),)) for name in sorted(filenames)
            if _is_candidate(name) and sniff(os.path.join(folder, name))]


def read_roll_stdout(source: RunSource) -> RawRun:
    raw = RawRun(source)
    decoder = json.JSONDecoder()
    for _path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        for lineno, _offset, text in iter_lines(f, report):
            at = text.find(MARKER)
            if at < 0:
                continue
            try:
                obj, _end = decoder.raw_decode(text, at + len(MARKER))
            except ValueError as err:
                report.bad.append((lineno, f"metrics_tag JSON does not parse ({getattr(err, 'msg', err)})"))
                continue
            except RecursionError:
                report.bad.append((lineno, "metrics_tag JSON nested too deeply"))
                continue
            metrics = obj.get("metrics") if isinstance(obj, dict) else None
            if not isinstance(metrics, dict):
                report.bad.append((lineno, "metrics_tag JSON has no `metrics` object"))
                continue
            step = obj.get("step")
            ok = isinstance(step, int) and not isinstance(step, bool) and abs(step) < 2**62
            sink.add(flatten(metrics), step if ok else None)
    return raw
