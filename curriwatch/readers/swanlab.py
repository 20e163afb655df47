"""SwanLab offline runs (`swanlog/run-*/run-{id}.swanlab`), decoded without importing swanlab.

Format, as swanlab 0.10's own writer makes it (swanlab/sdk/internal/core_python/store/__init__.py,
DataStoreWriter.open/write/_write_record): header `:SWL` + u16 0xE1D6 + u8 version 2, then the
LevelDB-log framing W&B also uses (32 KiB blocks, crc32 seeded with the chunk type). Each payload
is a `swanlab.record.v1.Record`; scalars are field 13 `ScalarRecord{key=1, step=2, timestamp=4
(google.protobuf.Timestamp), value=5 ScalarValue{number=1 double}}` (swanlab/proto/swanlab/record/v1,
metric/data/v1). The file is memory-mapped, so it is never read into memory as a whole.
"""
from __future__ import annotations

import math
import mmap
import os
import re
import struct

from ..model import DataIssue, RawRun, RunSource
from .files import undecodable_issue, unreadable
from .leveldb_log import LogReport, damage_issues, iter_log_records
from .lines import open_regular
from .rows import shown_path

SWANLAB_FILE = re.compile(r"^run-.+\.swanlab$")
HEADER = b":SWL" + struct.pack("<H", 0xE1D6)
VERSIONS = (2,)
_DOUBLE = struct.Struct("<d")


def detect_swanlab(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    files = sorted(os.path.join(folder, f) for f in filenames if SWANLAB_FILE.match(f))
    return [("", tuple(files))] if files else []


class _Bad(Exception):
    pass


def _varint(buf, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _Bad("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(buf, pos: int, end: int):
    """(field number, wire type, value) of a message; length-delimited values as (start, stop)."""
    while pos < end:
        tag, pos = _varint(buf, pos, end)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(buf, pos, end)
        elif wire == 1:
            if pos + 8 > end:
                raise _Bad("truncated fixed64")
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(buf, pos, end)
            if pos + size > end:
                raise _Bad("length past the message end")
            value, pos = (pos, pos + size), pos + size
        elif wire == 5:
            if pos + 4 > end:
                raise _Bad("truncated fixed32")
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise _Bad(f"wire type {wire}")
        yield number, wire, value


def _scalar(payload: bytes) -> tuple[str, int, float, float] | None:
    """(key, step, value, wall time) of a Record holding a ScalarRecord, else None."""
    for number, wire, value in _fields(payload, 0, len(payload)):
        if number != 13 or wire != 2:
            continue
        key, step, val, wall = None, 0, math.nan, math.nan
        for n, w, v in _fields(payload, *value):
            if n == 1 and w == 2:
                key = payload[v[0]:v[1]].decode("utf-8")
            elif n == 2 and w == 0:
                step = v - (1 << 64) if v >= 1 << 63 else v
            elif n == 4 and w == 2:
                secs = nanos = 0
                for tn, tw, tv in _fields(payload, *v):
                    if tn == 1 and tw == 0:
                        secs = tv
                    elif tn == 2 and tw == 0:
                        nanos = tv
                wall = secs + nanos / 1e9
            elif n == 5 and w == 2:
                val = 0.0  # proto3: an absent double is 0.0
                for vn, vw, vv in _fields(payload, *v):
                    if vn == 1 and vw == 1:
                        val = _DOUBLE.unpack(vv)[0]
        if key is None:
            raise _Bad("scalar without a key")
        return key, step, val, wall
    return None


def read_swanlab(source: RunSource) -> RawRun:
    raw = RawRun(source)
    for path in source.files:
        # swanlab itself refuses a key's repeated or older step within a run (core_python/core.py:276-283
        # in 0.10.3, `try_accept_step`): only a later file (a resumed run) can write a step again
        raw.restart()
        _read_file(raw, path, shown_path(source, path))
    return raw


def _read_file(raw: RawRun, path: str, shown: str) -> None:
    try:
        f = open_regular(path)
    except OSError as err:
        raw.issues.append(unreadable(shown, err))
        return
    with f:
        try:
            size = os.fstat(f.fileno()).st_size
        except (OSError, AttributeError, ValueError):  # a remote file: read in full, no mmap
            data = f.read()
            if len(data) >= 7 and data[:6] == HEADER and data[6] in VERSIONS:
                _read_records(raw, data, shown, len(data))
            else:
                raw.issues.append(DataIssue("unreadable_file", shown,
                                            "header at byte 0: not a SwanLab log file version 2"))
            return
        if size < 7:
            raw.issues.append(DataIssue("unreadable_file", shown,
                                        f"file is {size} bytes, shorter than the 7-byte header"))
            return
        with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as data:
            if data[:6] != HEADER:
                raw.issues.append(DataIssue("unreadable_file", shown,
                                            f"header at byte 0: not a SwanLab log file (bad magic {data[:6]!r})"))
                return
            if data[6] not in VERSIONS:
                raw.issues.append(DataIssue("unreadable_file", shown, f"unknown SwanLab log file version {data[6]}"))
                return
            _read_records(raw, data, shown, size)


def _read_records(raw: RawRun, data, shown: str, size: int) -> None:
    report = LogReport()
    undecodable: list[int] = []
    codes: dict[str, int] = {}
    for offset, payload in iter_log_records(data, report):
        try:
            hit = _scalar(payload)
        except (_Bad, UnicodeDecodeError, struct.error):
            undecodable.append(offset)
            continue
        if hit is None:
            continue
        key, step, val, wall = hit
        if not -(2**62) < step < 2**62:
            undecodable.append(offset)
            continue
        code = codes.get(key)
        if code is None:
            code = codes[key] = raw.code_for(key)
        raw.tag_code.append(code)
        raw.step.append(step)
        raw.value.append(val)
        raw.wall_time.append(wall)
    if undecodable:
        raw.issues.append(undecodable_issue(shown, undecodable))
    raw.issues += damage_issues(shown, size, report)
