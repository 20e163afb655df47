"""facebookresearch/dcd FileWriter folders: `logs.csv` with its column list in `fields.csv`.

dcd's FileWriter.log (util/filewriter.py:203-228) appends new keys to `fieldnames`, writes the whole
list to fields.csv each time it grows (:215-216), writes `# {fields}` as the first line of logs.csv
only at tick 0 (:219-220), and writes every row with a csv.DictWriter sharing that growing list
(:187, :228): later rows have more cells than the `#` header, so the true header is the LAST line of
fields.csv. Keys missing from a row are empty cells. Step = `steps` (the runners' total env steps,
envs/runners/adversarial_runner.py:860), else `_tick`; wall time = `_time`.
"""
from __future__ import annotations

import csv
import os

from ..model import DataIssue, RawRun, RunSource
from .files import unreadable
from .lines import LineReport, iter_lines, open_regular
from .rows import RowSink, shown_path, text_files

STEP_KEYS = ("steps", "_tick")
LOGS_FILE, FIELDS_FILE = "logs.csv", "fields.csv"


def detect_dcd(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A FileWriter folder: logs.csv whose first line is `# _tick,...`, or next to fields.csv."""
    names = set(filenames)
    if LOGS_FILE not in names:
        return []
    logs = os.path.join(folder, LOGS_FILE)
    if FIELDS_FILE not in names:
        try:
            with open_regular(logs) as f:
                if not f.read(8).startswith(b"# _tick"):
                    return []
        except OSError:
            return []
    files = [logs] + ([os.path.join(folder, FIELDS_FILE)] if FIELDS_FILE in names else [])
    return [("", tuple(files))]


def _cells(text: str) -> list[str]:
    return next(csv.reader([text]), [])


def read_dcd(source: RunSource) -> RawRun:
    raw = RawRun(source)
    logs = source.files[0]
    header = _fields_header(raw, source, source.files[1]) if len(source.files) > 1 else None
    longer = 0
    for _path, f, sink, report in text_files(raw, [logs], lambda: RowSink(raw, STEP_KEYS, wall_key="_time"), "row"):
        for lineno, _offset, text in iter_lines(f, report):
            if not text.strip():
                continue
            if text.startswith("#"):
                if header is None:
                    header = _cells(text[1:].lstrip())
                continue
            try:
                cells = _cells(text)
            except csv.Error as err:
                report.bad.append((lineno, f"not CSV ({err})"))
                continue
            if header is None:
                report.bad.append((lineno, "no header (`# _tick,...` line or fields.csv) before it"))
                continue
            if len(cells) > len(header):
                longer += 1
                if not report.bad or report.bad[-1][0] != lineno:
                    report.bad.append((lineno, f"{len(cells)} cells for {len(header)} known columns"))
                continue
            sink.add(dict(zip(header, cells)))
    if longer and len(source.files) == 1:
        raw.issues.append(DataIssue("missing_file", shown_path(source, logs), (
            f"{longer} row(s) have more cells than the `#` header and fields.csv is missing, so "
            "their column names are unknown")))
    return raw


def _fields_header(raw: RawRun, source: RunSource, path: str) -> list[str] | None:
    """The last non-empty line of fields.csv: the column list of the newest rows."""
    shown = shown_path(source, path)
    report = LineReport()
    last = None
    try:
        with open_regular(path) as f:
            for _lineno, _offset, text in iter_lines(f, report):
                if text.strip():
                    last = text
    except OSError as err:
        raw.issues.append(unreadable(shown, err))
        return None
    raw.issues.extend(report.issues(shown))
    try:
        return _cells(last) if last is not None else None
    except csv.Error:
        raw.issues.append(DataIssue("corrupt_record", shown, "its last line is not CSV"))
        return None
