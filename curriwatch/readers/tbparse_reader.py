"""TensorBoard through tbparse: the reference reader (`--reader tbparse`) and the tests' oracle.

Slow, and it inherits TensorBoard's own reading: a silent purge after restarts and a stop at the
first damaged record of a file. So that nothing is lost silently, every event file is first framed
by the native reader: files that are not regular readable files (FIFOs, devices, dangling links)
become `unreadable_file` issues and are never handed to tbparse, and a damaged file gets the
native issue plus one saying that tbparse read nothing after the damage. tbparse reads the others
through links in a private temporary folder, never the logdir itself.
"""
from __future__ import annotations

import math
import os
import re
import tempfile

from ..model import DataIssue, RawRun, RunSource
from .tensorboard import _display, _read_event_file, _subfolder_tagger


def read_tbparse(source: RunSource) -> RawRun:
    raw = RawRun(source)
    readable: list[str] = []
    for path in source.files:
        check = RawRun(source)
        shown = _display(path, source)
        _read_event_file(check, path, lambda tag: tag, shown)
        raw.issues.extend(check.issues)
        if any(i.kind == "unreadable_file" for i in check.issues):
            continue
        readable.append(path)
        damage = [int(m.group(1)) for i in check.issues if i.kind in ("bad_crc", "corrupt_record")
                  for m in [re.search(r"byte (\d+)", i.detail)] if m]
        if damage:
            raw.issues.append(DataIssue(
                "corrupt_record", shown,
                f"the tbparse reader stops at a file's first damaged record (byte {min(damage)}): points "
                "after it were not read; the native reader reads on past damage"))
    if readable:
        with tempfile.TemporaryDirectory(prefix="curriwatch-tbparse-") as tmp:
            for path in readable:  # the same layout, so subfolder tags stay the same
                link = os.path.join(tmp, os.path.relpath(path, source.path))
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink(os.path.realpath(path), link)
            _read_points(raw, tmp, [os.path.relpath(p, source.path).replace(os.sep, "/") for p in readable])
    return raw


def _read_points(raw: RawRun, folder: str, order: list[str]) -> None:
    """tbparse's points, file by file in reading order: each later file is a later stretch."""
    from tbparse import SummaryReader

    reader = SummaryReader(folder, extra_columns={"wall_time", "dir_name", "file_name"},
                           event_types={"scalars", "tensors"})
    per_file: dict[str, list[tuple[str, int, float, float]]] = {}
    for frame in (reader.scalars, reader.tensors):
        if frame is None or frame.empty:
            continue
        for dir_name, file_name, tag, step, value, wall in zip(
            frame.get("dir_name", [""] * len(frame)), frame["file_name"], frame["tag"], frame["step"],
            frame["value"], frame["wall_time"],
        ):
            try:
                val = float(value)
            except (TypeError, ValueError):
                continue
            sub = dir_name.replace(os.sep, "/") if dir_name else "."
            rel = f"{sub}/{file_name}" if sub != "." else file_name
            wall = float(wall) if not math.isnan(wall) else math.nan
            per_file.setdefault(rel, []).append((_subfolder_tagger(sub)(tag), int(step), val, wall))
    for rel in order:
        points = per_file.get(rel, [])
        points.sort(key=lambda p: p[3] if p[3] == p[3] else math.inf)  # write order (tbparse sorts by tag)
        raw.restart()
        for tag, step, val, wall in points:
            raw.tag_code.append(raw.code_for(tag))
            raw.step.append(step)
            raw.value.append(val)
            raw.wall_time.append(wall)
