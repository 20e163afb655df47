"""W&B offline run reader (`run-*.wandb`, wandb 0.17-0.31): history rows, no SDK reader needed."""
from __future__ import annotations

import json
import os
from pathlib import PurePosixPath

from ..model import DataIssue, RawRun, RunSource
from .files import incomplete_tail_issue, read_bytes, undecodable_issue, unreadable
from .leveldb_log import LogReport, check_header, iter_log_records

AXIS_KEYS = ("_step", "_timestamp")  # read as step / wall_time, not as points


def _record_class():
    from wandb.proto import wandb_internal_pb2  # imports wandb: only when a W&B run is read

    return wandb_internal_pb2.Record


def read_wandb_offline(source: RunSource) -> RawRun:
    """Read the history of a W&B offline run folder (one or more `run-*.wandb` files)."""
    raw = RawRun(source)
    for path in source.files:
        rel = PurePosixPath(os.path.relpath(path, source.path)).as_posix()
        shown = f"{source.name}/{rel}" if source.name != "." else rel
        _read_file(raw, path, shown)
    return raw


def _read_file(raw: RawRun, path: str, shown: str) -> None:
    try:
        data = read_bytes(path)
    except OSError as err:
        raw.issues.append(unreadable(shown, err))
        return
    problem = check_header(data, b":W&B")
    if problem:
        raw.issues.append(DataIssue("unreadable_file", shown, f"header at byte 0: {problem}"))
        return
    parse = _record_class().FromString
    report = LogReport()
    code_for = raw.code_for
    tag_code, steps, values, walls, rows = raw.tag_code, raw.step, raw.value, raw.wall_time, raw.row
    codes: dict[str, int] = {}
    non_numeric: dict[str, int] = {}
    undecodable: list[int] = []
    bad_steps: list[int] = []
    row = max(rows[-1] + 1 if rows else 0, raw.text_points[-1][2] + 1 if raw.text_points else 0)
    for offset, payload in iter_log_records(data, report):
        try:
            record = parse(payload)
        except Exception:  # protobuf raises DecodeError, or RuntimeWarning-like errors from upb
            undecodable.append(offset)
            continue
        if not record.HasField("history"):
            continue
        history = record.history
        step = history.step.num if history.HasField("step") else None
        wall = float("nan")
        row_items: list[tuple[str, float]] = []
        row_texts: list[tuple[str, str]] = []
        bad_step = False
        for item in history.item:
            key = ".".join(item.nested_key) if item.nested_key else item.key
            text = item.value_json
            try:
                val = float(text)
            except ValueError:
                val = None
            if key in AXIS_KEYS:
                if val is not None:
                    if key == "_timestamp":
                        wall = val
                    elif step is None:
                        step = _step_value(val)
                        bad_step = step is None
                continue
            if val is None:
                try:
                    obj = json.loads(text)
                except ValueError:
                    obj = None
                if isinstance(obj, str):
                    row_texts.append((key, obj))
                non_numeric[key] = non_numeric.get(key, 0) + 1
                continue
            row_items.append((key, val))
        if bad_step:  # the row's `_step` is no step: the record is lost, not the scan
            bad_steps.append(offset)
            row += 1
            continue
        if step is None:
            step = row
        for key, val in row_items:
            code = codes.get(key)
            if code is None:
                code = codes[key] = code_for(key)
            tag_code.append(code)
            steps.append(step)
            values.append(val)
            walls.append(wall)
            rows.append(row)
        raw.text_points.extend((key, step, row, text) for key, text in row_texts)
        row += 1
    _report_issues(raw, shown, len(data), report, non_numeric, undecodable)
    if bad_steps:
        raw.issues.append(DataIssue(
            "corrupt_record", shown,
            f"{len(bad_steps)} history row(s) whose _step is not a whole number in the int64 range "
            f"were skipped (first at byte {bad_steps[0]})"))


_INT64_MAX = 2**63


def _step_value(val: float) -> int | None:
    """A `_step` item as an int64 step, or None when it is not one (NaN, infinite, huge, fractional)."""
    if not (-_INT64_MAX <= val < _INT64_MAX) or val != int(val):
        return None
    return int(val)


def _report_issues(raw, shown, size, report: LogReport, non_numeric, undecodable) -> None:
    if non_numeric:
        total = sum(non_numeric.values())
        keys = ", ".join(sorted(non_numeric)[:5]) + (" ..." if len(non_numeric) > 5 else "")
        raw.issues.append(DataIssue(
            "non_numeric_values", shown,
            f"{total} history value(s) were not numbers and were skipped (keys: {keys})"))
    if undecodable:
        raw.issues.append(undecodable_issue(shown, undecodable))
    if report.damage:
        first, what = report.damage[0]
        raw.issues.append(DataIssue(
            "corrupt_record", shown,
            f"{len(report.damage)} damaged place(s); first at byte {first}: {what}; "
            f"{report.skipped_bytes} byte(s) skipped up to the next intact block"))
    if report.incomplete_tail is not None:
        raw.issues.append(incomplete_tail_issue(shown, report.incomplete_tail, size))
