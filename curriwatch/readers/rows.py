"""Rows of named values (CSV rows, JSON objects) appended to a RawRun, one history row each."""
from __future__ import annotations

import csv
import math
import os
from pathlib import PurePosixPath

from ..model import DataIssue, RawRun, RunSource

# step columns of training loggers' CSV files (readers/csvlog.py), the env's own counters first: SB3, baselines,
# garage/dowel, rl-starter-files, then generic names
LOGGER_STEP_KEYS = ("time/total_timesteps", "misc/total_timesteps", "total_timesteps", "TimestepsSoFar",
                    "TotalEnvSteps", "frames", "num_frames", "env_steps", "timesteps", "global_step", "step", "steps",
                    "epoch")


def shown_path(source: RunSource, path: str) -> str:
    """A file of a run as shown in data issues: relative to the logdir where possible."""
    if path == source.path:  # a run that is one file (a ROLL stdout log)
        return source.name
    if "://" in path and path.startswith(source.path.rstrip("/") + "/"):
        rel = path[len(source.path.rstrip("/")) + 1:]
        return f"{source.name}/{rel}" if source.name not in (".", "") else rel
    if source.files and path in source.files and os.path.isdir(source.path):
        rel = PurePosixPath(os.path.relpath(path, source.path)).as_posix()
        return f"{source.name}/{rel}" if source.name not in (".", "") and rel != "." else (
            rel if rel != "." else source.name)
    return path


def flatten(obj: dict, prefix: str = "", sep: str = "/", out: dict | None = None, depth: int = 0) -> dict:
    """Nested dicts flattened with `sep` (Ray's flatten_dict); nesting deeper than 64 is cut."""
    out = {} if out is None else out
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and depth < 64:
            flatten(value, name + sep, sep, out, depth + 1)
        else:
            out[name] = value
    return out


def number(value) -> float | None:
    """A JSON/CSV value as a float, or None when it is not a number (bools count as 0/1)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an integer too large for a float
            return math.copysign(math.inf, value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            return None
    return None


class RowSink:
    """Appends the rows of one file to a RawRun; counts values that were not numbers per key.

    Rows sharing a step are distinct observations (several batches logged under one step). A job
    resumed from a checkpoint appends to the same file and logs its steps again: a row whose step is
    below an earlier row's (since the last restart) begins a restart, as does `restart_key` (a
    counter the framework starts again when a job is restored) not rising. So does a later file.
    """

    def __init__(self, raw: RawRun, step_keys: tuple[str, ...] = (), wall_key: str | None = None,
                 skip: frozenset[str] = frozenset(), restart_key: str | None = None):
        self.raw = raw
        self.skip = skip  # bookkeeping keys: used for step / wall time, not kept as points
        self.step_keys = step_keys
        self.wall_key = wall_key
        self.restart_key = restart_key
        self.top: int | None = None  # the largest step since the last restart
        self.counter: float | None = None  # the last value of restart_key
        raw.restart()
        self.codes: dict[str, int] = {}
        self.non_numeric: dict[str, int] = {}
        rows = raw.row
        self.next_row = max(rows[-1] + 1 if rows else 0, raw.text_points[-1][2] + 1 if raw.text_points else 0)

    def add(self, values: dict, step: int | None = None, wall: float | None = None) -> None:
        """One row: `values` maps key -> raw value (None or "" = not logged in this row); `step` and `wall` (its
        wall time) where the reader knows them outside `values`, else from the sink's step and wall keys."""
        row = self.next_row
        self.next_row += 1
        nums: list[tuple[str, float]] = []
        texts: list[tuple[str, str]] = []
        for key, value in values.items():
            if value is None or value == "" or (key in self.skip and key != self.wall_key
                                                and key != self.restart_key and key not in self.step_keys):
                continue
            val = number(value)
            if val is None:
                if isinstance(value, str):
                    texts.append((key, value))
                self.non_numeric[key] = self.non_numeric.get(key, 0) + 1
                continue
            nums.append((key, val))
        found = dict(nums)
        if step is None:
            for key in self.step_keys:
                val = found.get(key)
                if val is not None and math.isfinite(val) and abs(val) < 2**62:
                    step = int(val)
                    break
        if step is None:
            step = row
        self._check_restart(step, found.get(self.restart_key) if self.restart_key else None)
        if wall is None:
            wall = found.get(self.wall_key, math.nan) if self.wall_key else math.nan
        raw, codes = self.raw, self.codes
        if self.skip:
            nums = [(k, v) for k, v in nums if k not in self.skip]
        for key, val in nums:
            code = codes.get(key)
            if code is None:
                code = codes[key] = raw.code_for(key)
            raw.tag_code.append(code)
            raw.step.append(step)
            raw.value.append(val)
            raw.wall_time.append(wall)
            raw.row.append(row)
        raw.text_points.extend((key, step, row, text) for key, text in texts)

    def _check_restart(self, step: int, counter: float | None) -> None:
        restarted = self.top is not None and step < self.top
        if counter is not None:
            restarted |= self.counter is not None and counter <= self.counter
            self.counter = counter
        if restarted:
            self.raw.restart()
        self.top = step if restarted or self.top is None else max(self.top, step)

    def close(self) -> None:
        """The file is read: its values that were not numbers are counted on the run."""
        self.raw.count_non_numeric(self.non_numeric)
        self.non_numeric = {}


def text_files(raw: RawRun, paths, make_sink, what: str = "line"):
    """Open each of `paths` of a run's source in turn: yields (path, file, sink, report) for the
    reader to fill; a file that cannot be opened becomes an `unreadable_file` issue, and after each
    file its line report's and row sink's issues are added to the run. Without `make_sink` the sink is None (a
    reader that places the rows of all its files itself)."""
    from .files import unreadable
    from .lines import LineReport, open_regular

    for path in paths:
        shown = shown_path(raw.source, path)
        sink, report = make_sink() if make_sink else None, LineReport()
        try:
            f = open_regular(path)
        except OSError as err:
            raw.issues.append(unreadable(shown, err))
            continue
        with f:
            yield path, f, sink, report
        raw.issues.extend(report.issues(shown, what))
        if sink is not None:
            sink.close()


def iter_csv_cells(f, report):
    """(line number, cells) of every non-blank line of a CSV file; a line that does not parse is a bad line of
    `report` (a lines.LineReport)."""
    from .lines import iter_lines

    for lineno, _offset, text in iter_lines(f, report):
        if not text.strip():
            continue
        try:
            yield lineno, next(csv.reader([text]))
        except csv.Error as err:
            report.bad.append((lineno, f"not CSV ({err})"))


def read_csv_rows(f, sink: RowSink, report) -> None:
    """A CSV file's rows into `sink`, named by its first line (a header written again, as a restarted job
    appends it, is skipped); a row that does not parse or has the wrong number of cells is a bad line of
    `report` (a lines.LineReport)."""
    header: list[str] | None = None
    for lineno, cells in iter_csv_cells(f, report):
        if header is None:
            header = cells
            continue
        if cells == header:  # a restarted trial may write the header again
            continue
        if len(cells) != len(header):
            report.bad.append((lineno, f"{len(cells)} cells for {len(header)} columns"))
            continue
        sink.add(dict(zip(header, cells)))


def csv_header(path: str, limit: int = 64 * 1024) -> list[str]:
    """The first line of a CSV file (within its first `limit` bytes) as column names; [] when it cannot be
    read or parsed."""
    from .lines import open_regular

    try:
        with open_regular(path) as f:
            head = f.read(limit)
    except OSError:
        return []
    line = head.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return []


def whole_numbers_then_value(cells: list[str], whole: int) -> bool:
    """Whether `cells` are `whole` whole numbers and then one number (`step,value`, d3rlpy's `epoch,step,value`):
    the sniff of a headerless metric file's first line."""
    if len(cells) != whole + 1:
        return False
    try:
        [int(c) for c in cells[:whole]], float(cells[whole])
    except ValueError:
        return False
    return True


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
