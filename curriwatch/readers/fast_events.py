"""Vectorised decoding of the common scalar event layout, so big files skip per-record protobuf.

tensorboardX and torch write each `add_scalar` as one Event serialised (fields in number order) as

    09 <f64 wall_time> [10 <varint step>] 2a <len> 0a <len> 0a <len> <tag bytes> 15 <f32 value>

i.e. Event{wall_time, step, summary{value{tag, simple_value}}}; step is absent when 0. Records that
match this exactly (every length consistent with the record's end) are decoded here with numpy;
every other record is left to the protobuf decoder. Gathers are clipped to the buffer, so damaged
lengths can never read outside it.
"""
from __future__ import annotations

import numpy as np

CHUNK = 1 << 18  # records per vectorised pass, bounds the temporary arrays
_SHIFTS = (7 * np.arange(10, dtype=np.uint64)).astype(np.uint64)
_TEN = np.arange(10)


def _gather(buf: np.ndarray, pos: np.ndarray, width: int) -> np.ndarray:
    """buf[pos + k] for k < width as an (n, width) uint8 array, positions clipped to the buffer."""
    out = np.empty((len(pos), width), np.uint8)
    last = len(buf) - 1
    for k in range(width):
        out[:, k] = buf[np.minimum(pos + k, last)]
    return out


def read_le(buf: np.ndarray, pos: np.ndarray, dtype: str) -> np.ndarray:
    """Little-endian numbers of `dtype` (e.g. "<u8", "<f4") stored at byte offsets `pos`."""
    width = np.dtype(dtype).itemsize
    return np.ascontiguousarray(_gather(buf, pos, width)).view(dtype)[:, 0]


def _varint(buf: np.ndarray, pos: np.ndarray, ok: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Varints of at most `width` bytes at `pos`: (value as uint64, position after).

    Clears `ok` where the varint is longer (such records go to the protobuf decoder instead)."""
    raw = _gather(buf, pos, width)
    last = raw < 0x80
    ok &= last.any(axis=1)
    length = last.argmax(axis=1) + 1
    parts = (raw & 0x7F).astype(np.uint64) << _SHIFTS[:width]
    parts[_TEN[:width] >= length[:, None]] = 0
    return np.bitwise_or.reduce(parts, axis=1), pos + length


def decode_simple_scalars(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """For records (payload offsets) matching the layout: (mask, wall, step, value, tag_start, tag_end)."""
    n = len(starts)
    ok = np.zeros(n, bool)
    wall = np.zeros(n)
    step = np.zeros(n, np.int64)
    value = np.zeros(n)
    tag_start = np.zeros(n, np.int64)
    tag_end = np.zeros(n, np.int64)
    last = len(buf) - 1
    for lo in range(0, n, CHUNK):
        s, e = starts[lo : lo + CHUNK], ends[lo : lo + CHUNK]
        k = (e - s) >= 16
        k &= buf[np.minimum(s, last)] == 0x09
        w = read_le(buf, s + 1, "<f8")
        p = s + 9
        has_step = buf[np.minimum(p, last)] == 0x10
        st, after = _varint(buf, p + 1, k, 10)
        st = np.where(has_step, st, 0).view(np.int64)
        p = np.where(has_step, after, p)
        k &= buf[np.minimum(p, last)] == 0x2A
        length, p = _varint(buf, p + 1, k, 3)
        k &= p + length.astype(np.int64) == e
        k &= buf[np.minimum(p, last)] == 0x0A
        length, p = _varint(buf, p + 1, k, 3)
        k &= p + length.astype(np.int64) == e
        k &= buf[np.minimum(p, last)] == 0x0A
        length, p = _varint(buf, p + 1, k, 3)
        ts = p
        p = p + length.astype(np.int64)
        k &= (p >= ts) & (p + 5 == e)
        k &= buf[np.clip(p, 0, last)] == 0x15
        v = read_le(buf, p + 1, "<f4").astype(np.float64)
        sl = slice(lo, lo + len(s))
        ok[sl], wall[sl], step[sl], value[sl], tag_start[sl], tag_end[sl] = k, w, st, v, ts, p
    return ok, wall, step, value, tag_start, tag_end
