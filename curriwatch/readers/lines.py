"""Text log files read line by line: streamed, bounded line length, damage counted per line."""
from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..model import DataIssue
from .files import incomplete_tail_issue

MAX_LINE = 16 * 1024 * 1024  # a longer line is skipped as a data issue, never held in memory
CHUNK = 1024 * 1024


@dataclass
class LineReport:
    """What went wrong while splitting a file into lines (1-based line numbers)."""

    too_long: list[int] = field(default_factory=list)
    not_utf8: list[int] = field(default_factory=list)
    bad: list[tuple[int, str]] = field(default_factory=list)  # (line, why) filled by the caller
    incomplete_tail: int | None = None  # byte offset of a last line without its newline
    size: int = 0

    def issues(self, shown: str, what: str = "line") -> list[DataIssue]:
        out = []
        if self.too_long:
            out.append(DataIssue("corrupt_record", shown, (
                f"{len(self.too_long)} {what}(s) longer than {MAX_LINE // (1024 * 1024)} MiB were skipped "
                f"(first at line {self.too_long[0]})")))
        if self.not_utf8:
            out.append(DataIssue("corrupt_record", shown, (
                f"{len(self.not_utf8)} {what}(s) are not valid UTF-8 and were skipped "
                f"(first at line {self.not_utf8[0]})")))
        if self.bad:
            line, why = self.bad[0]
            out.append(DataIssue("corrupt_record", shown, (
                f"{len(self.bad)} {what}(s) could not be parsed and were skipped "
                f"(first at line {line}: {why})")))
        if self.incomplete_tail is not None:
            out.append(incomplete_tail_issue(shown, self.incomplete_tail, self.size))
        return out


def open_regular(path: str):
    """A binary file opened read-only and non-blocking; refused unless it is a regular file.

    URLs (gs://, s3://, memory://, ...) are opened through fsspec, which reads them in blocks."""
    if "://" in path:
        from ..remote import is_url, open_binary

        if is_url(path):
            return open_binary(path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def iter_lines(f, report: LineReport, size: int | None = None) -> Iterator[tuple[int, int, str]]:
    """(line number, byte offset, text without the line end) for every complete line of `f`.

    Reads at most `size` bytes (the size when opened: a file still being written is a snapshot).
    A last line without its newline is an incomplete tail (not yielded: its last value may be cut).
    """
    if size is None:
        try:
            size = os.fstat(f.fileno()).st_size
        except (OSError, AttributeError, ValueError):
            size = getattr(f, "size", None)
    report.size = size if size is not None else 0
    remaining = size if size is not None else -1
    pending = bytearray()
    pending_start = 0
    skipping = False  # inside a line already known to be too long
    lineno = 0
    offset = 0
    while remaining != 0:
        chunk = f.read(CHUNK if remaining < 0 else min(CHUNK, remaining))
        if not chunk:
            break
        if remaining > 0:
            remaining -= len(chunk)
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                if not skipping:
                    pending += chunk[start:]
                    if len(pending) > MAX_LINE:
                        skipping = True
                        pending.clear()
                offset += len(chunk) - start
                break
            piece = chunk[start:nl]
            lineno += 1
            line_start = pending_start if (pending or skipping) else offset
            offset += nl + 1 - start
            start = nl + 1
            if skipping or len(pending) + len(piece) > MAX_LINE:
                report.too_long.append(lineno)
            else:
                data = bytes(pending + piece) if pending else piece
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    report.not_utf8.append(lineno)
                else:
                    yield lineno, line_start, text.rstrip("\r")
            pending.clear()
            skipping = False
            pending_start = offset
        if not pending and not skipping:
            pending_start = offset
    report.size = max(report.size, offset)
    if pending or skipping:
        report.incomplete_tail = pending_start


def iter_json_objects(f, report: LineReport) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every line of `f` holding one JSON object; blank lines are skipped,
    other lines counted as bad lines of `report`."""
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
        yield lineno, obj


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
