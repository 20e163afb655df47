"""TFRecord framing of TensorBoard event files, CRC-checked, tolerant of damage.

A record is: u64 length, u32 masked crc32c(length bytes), payload, u32 masked crc32c(payload).
"""
from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass, field

import crc32c
import numpy as np

from .fast_events import read_le

_HEADER = struct.Struct("<QI")


def masked_crc32c(data) -> int:
    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


@dataclass
class FramingReport:
    """What framing met besides good records; offsets are byte offsets into the file."""

    bad_payload_crc: list[int] = field(default_factory=list)
    stop_offset: int | None = None  # where reading stopped early, if it did
    stop_reason: str = ""  # "incomplete_tail" | "corrupt_record"


def frame_records(data: bytes, report: FramingReport) -> tuple[np.ndarray, np.ndarray]:
    """Payload (start, end) byte offsets of every intact record, in file order.

    A record whose payload CRC fails is skipped (its length was intact, so reading goes on);
    a length whose CRC fails ends reading (nothing after it can be framed), as does a record
    running past the end of the data. Lengths are checked against the data size before any
    slice is taken, so a length claiming gigabytes allocates nothing.
    """
    n = len(data)
    pos = 0
    offsets = array("q")  # 8 bytes a record, where a list would hold ~36
    append = offsets.append
    unpack = _HEADER.unpack_from
    crc = crc32c.crc32c
    header_crc: dict[int, int] = {}  # length -> its masked CRC: files reuse few lengths
    while pos < n:
        if pos + 12 > n:
            report.stop_offset, report.stop_reason = pos, "incomplete_tail"
            break
        length, length_crc = unpack(data, pos)
        if header_crc.get(length) != length_crc:
            c = crc(data[pos : pos + 8])
            if (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF != length_crc:
                report.stop_offset, report.stop_reason = pos, "corrupt_record"
                break
            header_crc[length] = length_crc
        end = pos + 12 + length
        if end + 4 > n:
            report.stop_offset, report.stop_reason = pos, "incomplete_tail"
            break
        append(pos)
        pos = end + 4
    if not offsets:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    buf = np.frombuffer(data, np.uint8)
    records = np.frombuffer(offsets, np.int64)
    starts = records + 12
    ends = starts + read_le(buf, records, "<u8").astype(np.int64)
    stored = read_le(buf, ends, "<u4").astype(np.uint64)
    computed = np.fromiter((crc(data[a:b]) for a, b in zip(starts.tolist(), ends.tolist())),
                           np.uint64, len(starts))
    masked = (((computed >> 15) | (computed << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    good = masked == stored
    if not good.all():
        report.bad_payload_crc.extend(records[~good].tolist())
    return starts[good], ends[good]
