"""One compiled pass over a mapped event file: framing, both CRC32Cs, the common scalar layout.

Compiled by `native.py` (numba once, then its machine code loaded from a cache); without it, or
for small files, `tensorboard.py` uses the numpy path (`tfrecord.frame_records` + `fast_events`),
which keeps the same promises. The same functions run as plain Python where only a few records
need them (`classify` on the records the numpy path leaves to protobuf).

Record kinds written by `scan`: BAD_CRC (payload CRC failed, skipped and reported), SCALAR (the
tensorboardX/torch `add_scalar` layout, decoded here), PROTOBUF (may hold a scalar in another
layout, or is a SessionLog: left to the protobuf decoder), NO_SCALAR (no summary, or a summary
whose values are only images, histograms, audio or tensors too big to be one number: skipped
without decoding).
"""
from __future__ import annotations

import numpy as np

from .native import entry, jit

BAD_CRC, SCALAR, PROTOBUF, NO_SCALAR = 0, 1, 2, 3
TAIL, CORRUPT = 1, 2  # stop reasons
MAX_SCALAR_TENSOR = 4096  # bytes: a one-element numeric TensorProto is a few dozen


def crc_tables(poly: int) -> np.ndarray:
    """Lookup tables for slicing-by-8 of a reflected CRC32 polynomial (0x82F63B78 CRC32C, 0xEDB88320
    zlib): row k advances k more bytes."""
    tables = np.zeros((8, 256), np.int64)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        tables[0, i] = c
    for k in range(1, 8):
        tables[k] = (tables[k - 1] >> 8) ^ tables[0][tables[k - 1] & 0xFF]
    return tables


CRC_TABLE = crc_tables(0x82F63B78)  # CRC32C (Castagnoli)


@jit
def _masked_crc(buf, start, end, t):
    """TFRecord's masked CRC32C of buf[start:end], eight bytes a step."""
    c = np.int64(0xFFFFFFFF)
    i = start
    while i + 8 <= end:
        one = c ^ _u32(buf, i)
        two = _u32(buf, i + 4)
        c = (t[7, one & 0xFF] ^ t[6, (one >> 8) & 0xFF] ^ t[5, (one >> 16) & 0xFF] ^ t[4, one >> 24]
             ^ t[3, two & 0xFF] ^ t[2, (two >> 8) & 0xFF] ^ t[1, (two >> 16) & 0xFF] ^ t[0, two >> 24])
        i += 8
    while i < end:
        c = t[0, (c ^ buf[i]) & 0xFF] ^ (c >> 8)
        i += 1
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


@jit
def _u32(buf, p):
    return np.int64(buf[p]) | (np.int64(buf[p + 1]) << 8) | (np.int64(buf[p + 2]) << 16) | (
        np.int64(buf[p + 3]) << 24)


@jit
def _u64(buf, p):
    return np.uint64(_u32(buf, p)) | (np.uint64(_u32(buf, p + 4)) << np.uint64(32))


@jit
def _varint(buf, p, end):
    """(value, position after); position -1 when malformed or past `end`."""
    value = np.uint64(0)
    shift = np.uint64(0)
    while p < end and shift < 64:
        b = buf[p]
        value |= np.uint64(b & 0x7F) << shift
        p += 1
        if b < 0x80:
            return value, p
        shift += np.uint64(7)
    return value, -1


@jit
def _skip_field(buf, p, end, wire):
    """Position after a field's value of wire type `wire`, -1 when malformed."""
    if wire == 0:
        return _varint(buf, p, end)[1]
    if wire == 1:
        return p + 8 if p + 8 <= end else -1
    if wire == 5:
        return p + 4 if p + 4 <= end else -1
    if wire == 2:
        n, q = _varint(buf, p, end)
        if q < 0 or n > np.uint64(end - q):
            return -1
        return q + np.int64(n)
    return -1


@entry("i8(u1[:], i8, i8)")
def classify(buf, start, end):
    """PROTOBUF when the Event may hold a scalar (or is malformed: protobuf then judges), else NO_SCALAR."""
    p = start
    while p < end:
        key, p = _varint(buf, p, end)
        if p < 0:
            return PROTOBUF
        field, wire = key >> np.uint64(3), np.int64(key & np.uint64(7))
        if field == 5 and wire == 2:  # Event.summary
            n, p = _varint(buf, p, end)
            if p < 0 or n > np.uint64(end - p):
                return PROTOBUF
            if _summary_may_hold_scalar(buf, p, p + np.int64(n)):
                return PROTOBUF
            p += np.int64(n)
        elif field == 7:  # Event.session_log: a START is TensorBoard's restart marker
            return PROTOBUF
        else:
            p = _skip_field(buf, p, end, wire)
            if p < 0:
                return PROTOBUF
    return NO_SCALAR


@jit
def _summary_may_hold_scalar(buf, p, end):
    while p < end:
        key, p = _varint(buf, p, end)
        if p < 0:
            return True
        field, wire = key >> np.uint64(3), np.int64(key & np.uint64(7))
        if field == 1 and wire == 2:  # Summary.value
            n, p = _varint(buf, p, end)
            if p < 0 or n > np.uint64(end - p):
                return True
            q, vend = p, p + np.int64(n)
            while q < vend:
                vkey, q = _varint(buf, q, vend)
                if q < 0:
                    return True
                vfield, vwire = vkey >> np.uint64(3), np.int64(vkey & np.uint64(7))
                if vfield == 2:  # simple_value
                    return True
                if vfield == 8 and vwire == 2:  # tensor: small enough to be one number?
                    m, r = _varint(buf, q, vend)
                    if r < 0 or m <= np.uint64(MAX_SCALAR_TENSOR):
                        return True
                q = _skip_field(buf, q, vend, vwire)
                if q < 0:
                    return True
            p = vend
        else:
            p = _skip_field(buf, p, end, wire)
            if p < 0:
                return True
    return False


@jit
def _simple_scalar(buf, s, e, i, wall, step, value):
    """Decode `09 wall [10 step] 2a L 0a L 0a L tag 15 f32` at payload [s, e) into row i.

    Returns the tag's start (its end is e - 5), or -1 when the record has another layout."""
    if e - s < 16 or buf[s] != 0x09:
        return -1
    p = s + 9
    st = np.uint64(0)
    if buf[p] == 0x10:
        st, p = _varint(buf, p + 1, e)
        if p < 0:
            return -1
    for level in range(2):  # summary, then its one value: each must run exactly to the record's end
        if p >= e or buf[p] != (0x2A if level == 0 else 0x0A):
            return -1
        n, p = _varint(buf, p + 1, e)
        if p < 0 or np.int64(n) != e - p:
            return -1
    if p >= e or buf[p] != 0x0A:
        return -1
    n, p = _varint(buf, p + 1, e)
    if p < 0 or n > np.uint64(e - p) or p + np.int64(n) + 5 != e or buf[p + np.int64(n)] != 0x15:
        return -1
    wall[i] = _u64(buf, s + 1)
    step[i] = st
    value[i] = _u32(buf, e - 4)
    return p


@jit
def _intern(buf, a, b, table, slots, arena):
    """The slot of tag bytes buf[a:b] (slots are numbered in first-seen order), -1 when full.

    `table` maps hash positions to slot + 1; `slots` rows are (start, end, hash) of each slot's
    bytes, kept in `arena` (so they outlive `buf`); row 0 holds (slots used, arena bytes used)."""
    h = np.uint64(0xCBF29CE484222325)
    for k in range(a, b):
        h = (h ^ np.uint64(buf[k])) * np.uint64(0x100000001B3)
    mask = len(table) - 1
    j = np.int64(h & np.uint64(mask))
    while True:
        slot = table[j] - 1
        if slot < 0:
            break
        if slots[slot + 1, 2] == np.int64(h) and slots[slot + 1, 1] - slots[slot + 1, 0] == b - a:
            c, same = slots[slot + 1, 0], True
            for k in range(b - a):
                if arena[c + k] != buf[a + k]:
                    same = False
                    break
            if same:
                return slot
        j = (j + 1) & mask
    count, used = slots[0, 0], slots[0, 1]
    if count + 1 >= len(slots) or 2 * count >= len(table) or used + (b - a) > len(arena):
        return -1
    for k in range(b - a):
        arena[used + k] = buf[a + k]
    table[j] = count + 1
    slots[count + 1, 0], slots[count + 1, 1], slots[count + 1, 2] = used, used + (b - a), np.int64(h)
    slots[0, 0], slots[0, 1] = count + 1, used + (b - a)
    return count


@entry("i8(u1[:], i8, i8, i8[:,:], i8[:], i8[:,:], u1[:], i8[:], u1[:], u8[:], u8[:], u4[:], i8[:], i8[:])")
def scan(buf, pos, stop_at, crc_table, table, slots, arena, record, kind, wall, step, value, tag_slot, ret):
    """Frame and classify records from `pos` until the output arrays are full, `stop_at` is passed
    or the data ends.

    Returns the records written; ret[0] the position to go on from, ret[1] the stop reason
    (0, TAIL or CORRUPT)."""
    n = len(buf)
    cap = len(record)
    count = 0
    last_len = np.uint64(0xFFFFFFFFFFFFFFFF)
    last_len_crc = np.int64(-1)
    ret[1] = 0
    while pos < n and count < cap and pos < stop_at:
        if pos + 12 > n:
            ret[1] = TAIL
            break
        length = _u64(buf, pos)
        length_crc = _u32(buf, pos + 8)
        if length != last_len or length_crc != last_len_crc:
            if _masked_crc(buf, pos, pos + 8, crc_table) != length_crc:
                ret[1] = CORRUPT
                break
            last_len, last_len_crc = length, length_crc
        room = n - pos - 16
        if room < 0 or length > np.uint64(room):
            ret[1] = TAIL
            break
        s = pos + 12
        e = s + np.int64(length)
        record[count] = pos
        kind[count] = PROTOBUF
        if _masked_crc(buf, s, e, crc_table) != _u32(buf, e):
            kind[count] = BAD_CRC
        else:
            tag = _simple_scalar(buf, s, e, count, wall, step, value)
            if tag >= 0:
                tag_slot[count] = _intern(buf, tag, e - 5, table, slots, arena)
                if tag_slot[count] >= 0:  # else a full table: protobuf decodes it
                    kind[count] = SCALAR
            else:
                kind[count] = classify(buf, s, e)
        count += 1
        pos = e + 4
    ret[0] = pos
    return count
