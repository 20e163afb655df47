"""LevelDB-log framing as W&B's `.wandb` files use it: 32 KiB blocks of CRC-checked chunks.

File: 7-byte header (magic such as b":W&B", u16 0xBEE1, u8 version 0), then chunks
`u32 crc32(type byte + data) | u16 length | u8 type | data`; types FULL=1 FIRST=2 MIDDLE=3 LAST=4.
Chunks never cross a 32 KiB block boundary (counted from the start of the file); a block tail
shorter than a chunk header is zero padding.
"""
from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..model import DataIssue
from .files import incomplete_tail_issue

BLOCK = 32 * 1024
CHUNK_HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
_HEADER = struct.Struct("<IHB")
_SEED = {t: zlib.crc32(bytes([t])) for t in (FULL, FIRST, MIDDLE, LAST)}


@dataclass
class LogReport:
    """Damage met while framing: (offset, what) pairs, and where an incomplete tail starts."""

    damage: list[tuple[int, str]] = field(default_factory=list)
    skipped_bytes: int = 0
    incomplete_tail: int | None = None


def check_header(data: bytes, magic: bytes) -> str | None:
    """None when `data` starts with a valid file header for `magic`, else what is wrong."""
    if len(data) < 7:
        return f"file is {len(data)} bytes, shorter than the 7-byte header"
    if data[:4] != magic or data[4:6] != b"\xe1\xbe":
        return f"not a {magic.decode(errors='replace')} log file (bad magic {data[:6]!r})"
    if data[6] != 0:
        return f"unknown log file version {data[6]}"
    return None


def iter_log_records(data: bytes, report: LogReport, start: int = 7) -> Iterator[tuple[int, bytes]]:
    """Yield (offset, payload) of every intact record, reassembling FIRST/MIDDLE/LAST chunks.

    Damage (bad CRC, impossible length or type) skips to the next block, where framing can be
    trusted again, and drops the record it was part of; every such case lands in `report`.
    A file that ends inside a chunk sets `report.incomplete_tail`.
    """
    n = len(data)
    pos = start
    pending: list[bytes] | None = None
    pending_at = 0
    unpack = _HEADER.unpack_from
    crc32 = zlib.crc32

    def resync(at: int, what: str) -> int:
        nonlocal pending
        if pending is not None:
            what += f"; the record begun at byte {pending_at} is lost with it"
            pending = None
        report.damage.append((at, what))
        nxt = min((at // BLOCK + 1) * BLOCK, n)
        report.skipped_bytes += nxt - at
        return nxt

    while pos < n:
        block_left = BLOCK - pos % BLOCK
        if block_left < CHUNK_HEADER:
            pos += block_left
            continue
        if pos + CHUNK_HEADER > n:
            if any(data[pos:n]):
                report.incomplete_tail = pos
            return
        crc, length, kind = unpack(data, pos)
        end = pos + CHUNK_HEADER + length
        if kind not in _SEED:
            zero = crc == 0 and length == 0 and kind == 0
            pos = resync(pos, "zero-filled bytes where a chunk was expected" if zero
                         else f"chunk with unknown type {kind}")
            continue
        if CHUNK_HEADER + length > block_left:
            pos = resync(pos, f"chunk length {length} runs past its block")
            continue
        if end > n:
            report.incomplete_tail = pending_at if pending is not None else pos
            return
        chunk = data[pos + CHUNK_HEADER : end]
        if crc32(chunk, _SEED[kind]) != crc:
            pos = resync(pos, "chunk failed its CRC check")
            continue
        if kind == FULL:
            if pending is not None:
                report.damage.append((pending_at, "record begun here was never finished"))
                pending = None
            yield pos, chunk
        elif kind == FIRST:
            if pending is not None:
                report.damage.append((pending_at, "record begun here was never finished"))
            pending, pending_at = [chunk], pos
        elif pending is None:
            report.damage.append((pos, "continuation chunk without a record start"))
        elif kind == MIDDLE:
            pending.append(chunk)
        else:
            pending.append(chunk)
            yield pending_at, b"".join(pending)
            pending = None
        pos = end
    if pending is not None:
        report.incomplete_tail = pending_at


def damage_issues(shown: str, size: int, report: LogReport) -> list[DataIssue]:
    """The data issues of a framing pass: damaged places (resynced at the next block) and an
    incomplete tail."""
    issues = []
    if report.damage:
        first, what = report.damage[0]
        issues.append(DataIssue(
            "corrupt_record", shown,
            f"{len(report.damage)} damaged place(s); first at byte {first}: {what}; "
            f"{report.skipped_bytes} byte(s) skipped up to the next intact block"))
    if report.incomplete_tail is not None:
        issues.append(incomplete_tail_issue(shown, report.incomplete_tail, size))
    return issues
