"""Compiled walk of W&B history records (wandb_internal.proto), so big runs skip per-item Python.

Record{history = 2} -> HistoryRecord{item = 1, step = 2 (HistoryStep{num = 1})} -> HistoryItem{key = 1,
nested_key = 2, value_json = 16}. A record in exactly this shape (items with one key part and a
value_json) is FAST: its items are handed back as byte ranges, keys interned. Anything else in a
history record (a key of several parts, typed value fields) makes it SLOW: `wandb_offline.py`
decodes it with protobuf as before. Other records are OTHER and skipped.
"""
from __future__ import annotations

import numpy as np

from .event_scan import _intern, _skip_field, _varint, crc_tables, njit, numba

OTHER, FAST, SLOW = 0, 1, 2


@njit
def _len_field(buf, p, end):
    """(start, end) of a length-delimited value at p, (-1, -1) when malformed."""
    n, q = _varint(buf, p, end)
    if q < 0 or n > np.uint64(end - q):
        return -1, -1
    return q, q + np.int64(n)


@njit
def _history(buf, s, e, rec, kind, has_step, step, item_count, item_rec, key_slot, val_start, val_end,
             table, slots, arena):
    """Items of the HistoryRecord at [s, e) appended from `item_count`; the new count, or -1 if SLOW."""
    p = s
    n = item_count
    while p < e:
        key, p = _varint(buf, p, e)
        if p < 0:
            return -1
        field, wire = key >> np.uint64(3), np.int64(key & np.uint64(7))
        if field == 1 and wire == 2:  # item
            a, b = _len_field(buf, p, e)
            if a < 0 or n >= len(item_rec):
                return -1
            k0 = k1 = v0 = v1 = -1
            parts = 0
            q = a
            while q < b:
                ikey, q = _varint(buf, q, b)
                if q < 0:
                    return -1
                ifield, iwire = ikey >> np.uint64(3), np.int64(ikey & np.uint64(7))
                if iwire != 2 or ifield not in (1, 2, 16):
                    return -1
                c, d = _len_field(buf, q, b)
                if c < 0:
                    return -1
                if ifield == 2:
                    parts += 1
                    k0, k1 = c, d
                elif ifield == 1:
                    if parts == 0:
                        k0, k1 = c, d
                else:
                    v0, v1 = c, d
                q = d
            if parts > 1 or k0 < 0 or v0 < 0:  # joined keys, or no value_json: protobuf decides
                return -1
            slot = _intern(buf, k0, k1, table, slots, arena)
            if slot < 0:
                return -1
            item_rec[n], key_slot[n], val_start[n], val_end[n] = rec, slot, v0, v1
            n += 1
            p = b
        elif field == 2 and wire == 2:  # step
            a, b = _len_field(buf, p, e)
            if a < 0:
                return -1
            has_step[rec] = 1
            step[rec] = 0
            q = a
            while q < b:
                skey, q = _varint(buf, q, b)
                if q < 0:
                    return -1
                if skey == 8:  # num, varint
                    v, q = _varint(buf, q, b)
                    if q < 0:
                        return -1
                    step[rec] = np.int64(v)
                else:
                    q = _skip_field(buf, q, b, np.int64(skey & np.uint64(7)))
                    if q < 0:
                        return -1
            p = b
        else:
            p = _skip_field(buf, p, e, wire)
            if p < 0:
                return -1
    return n


@njit
def scan_history(buf, starts, ends, kind, has_step, step, item_rec, key_slot, val_start, val_end, table, slots,
                 arena):
    """Classify every record payload [starts[i], ends[i]) of `buf`; returns the number of items."""
    items = 0
    for r in range(len(starts)):
        s, e = starts[r], ends[r]
        kind[r] = OTHER
        has_step[r] = 0
        p = s
        while p < e:
            key, p = _varint(buf, p, e)
            if p < 0:
                kind[r] = SLOW
                break
            field, wire = key >> np.uint64(3), np.int64(key & np.uint64(7))
            if field == 2 and wire == 2:
                a, b = _len_field(buf, p, e)
                n = -1 if a < 0 else _history(buf, a, b, r, kind, has_step, step, items, item_rec, key_slot,
                                              val_start, val_end, table, slots, arena)
                if n < 0:
                    kind[r] = SLOW
                    has_step[r] = 0
                    break
                kind[r] = FAST
                items = n
                p = b
            else:
                p = _skip_field(buf, p, e, wire)
                if p < 0:
                    kind[r] = SLOW
                    break
        if kind[r] == SLOW:  # drop the items a SLOW record had already added
            while items > 0 and item_rec[items - 1] == r:
                items -= 1
    return items


POW10 = np.array([10.0 ** k for k in range(23)])  # exact doubles


@njit
def _fast_number(buf, a, b, pow10):
    """(value, 1) for a JSON number the Clinger fast path converts exactly (at most 2^53 as an
    integer significand, decimal exponent within +-22: one correctly rounded operation), NaN and
    +-Infinity; (0, 0) for anything else."""
    p = a
    neg = False
    if p < b and buf[p] == 45:
        neg = True
        p += 1
    if b - p == 3 and buf[p] == 78 and buf[p + 1] == 97 and buf[p + 2] == 78 and not neg:  # NaN
        return np.nan, 1
    if b - p == 8 and buf[p] == 73:  # Infinity
        word = "Infinity"
        for k in range(8):
            if buf[p + k] != ord(word[k]):
                return 0.0, 0
        return (-np.inf if neg else np.inf), 1
    m = np.uint64(0)
    digits = 0
    exp = 0
    seen = 0
    while p < b and 48 <= buf[p] <= 57:
        if digits > 0 or buf[p] != 48:
            digits += 1
        m = m * np.uint64(10) + np.uint64(buf[p] - 48)
        seen += 1
        p += 1
        if digits > 17:
            return 0.0, 0
    if seen == 0:
        return 0.0, 0
    if p < b and buf[p] == 46:
        p += 1
        frac = 0
        while p < b and 48 <= buf[p] <= 57:
            if digits > 0 or buf[p] != 48:
                digits += 1
            m = m * np.uint64(10) + np.uint64(buf[p] - 48)
            exp -= 1
            frac += 1
            p += 1
            if digits > 17:
                return 0.0, 0
        if frac == 0:
            return 0.0, 0
    if p < b and (buf[p] == 101 or buf[p] == 69):
        p += 1
        eneg = False
        if p < b and (buf[p] == 43 or buf[p] == 45):
            eneg = buf[p] == 45
            p += 1
        e = 0
        edigits = 0
        while p < b and 48 <= buf[p] <= 57:
            e = e * 10 + (buf[p] - 48)
            edigits += 1
            p += 1
            if edigits > 4:
                return 0.0, 0
        if edigits == 0:
            return 0.0, 0
        exp += -e if eneg else e
    if p != b or m > np.uint64(9007199254740992) or exp < -22 or exp > 22:
        return 0.0, 0
    v = np.float64(m)
    v = v * pow10[exp] if exp >= 0 else v / pow10[-exp]
    return (-v if neg else v), 1


@njit
def gather_numbers(buf, val_start, val_end, out, numeric, values, pow10):
    """Values converted in one pass: numeric[i] = 1 with values[i] set where the fast path converts
    exactly; 2 where the bytes (copied to a fixed-width row of `out`) look like a number numpy must
    convert; 0 for anything else (strings, objects: float() and json decide)."""
    width = out.shape[1]
    for i in range(len(val_start)):
        a, b = val_start[i], val_end[i]
        numeric[i] = 0
        v, ok = _fast_number(buf, a, b, pow10)
        if ok:
            values[i] = v
            numeric[i] = 1
            continue
        m = b - a
        if m == 0 or m > width:
            continue
        c = buf[a]
        if not ((48 <= c <= 57) or c == 45 or c == 78 or c == 73):  # digit, '-', 'N', 'I'
            continue
        for k in range(m):
            out[i, k] = buf[a + k]
        for k in range(m, width):
            out[i, k] = 0
        numeric[i] = 2


CRC32_TABLE = crc_tables(0xEDB88320)  # zlib CRC32
SEEDS = np.array([0] + [__import__("zlib").crc32(bytes([t])) for t in (1, 2, 3, 4)], np.int64)
BLOCK = 32 * 1024
# damage codes of frame_log; messages in wandb_offline.py
ZEROS, UNKNOWN_TYPE, PAST_BLOCK, BAD_CHUNK_CRC, UNFINISHED, ORPHAN = 1, 2, 3, 4, 5, 6


@njit
def _crc32(buf, start, end, seed, t):
    c = seed ^ 0xFFFFFFFF
    i = start
    while i + 8 <= end:
        one = c ^ _u32le(buf, i)
        two = _u32le(buf, i + 4)
        c = (t[7, one & 0xFF] ^ t[6, (one >> 8) & 0xFF] ^ t[5, (one >> 16) & 0xFF] ^ t[4, one >> 24]
             ^ t[3, two & 0xFF] ^ t[2, (two >> 8) & 0xFF] ^ t[1, (two >> 16) & 0xFF] ^ t[0, two >> 24])
        i += 8
    while i < end:
        c = t[0, (c ^ buf[i]) & 0xFF] ^ (c >> 8)
        i += 1
    return c ^ 0xFFFFFFFF


@njit
def _u32le(buf, p):
    return np.int64(buf[p]) | (np.int64(buf[p + 1]) << 8) | (np.int64(buf[p + 2]) << 16) | (
        np.int64(buf[p + 3]) << 24)


@njit
def frame_log(data, pos, limit, t, seeds, out, rec_offset, rec_start, rec_end, damage, state):
    """`leveldb_log.iter_log_records` compiled: payloads copied into `out`, (offset, start, end) per
    record. Stops at a record boundary once `limit` payload bytes or the record arrays are used.

    damage rows: (at, code, extra, pending_at or -1); state: [damage rows, skipped bytes,
    incomplete tail or -1, stopped for room (1)]. Returns (records, position to go on from)."""
    n = len(data)
    count = 0
    used = 0
    pending = False
    pending_at = 0
    pending_used = 0
    state[3] = 0
    while pos < n:
        if not pending and (used >= limit or count >= len(rec_offset) or state[0] >= len(damage) - 2):
            return count, pos
        block_left = BLOCK - pos % BLOCK
        if block_left < 7:
            pos += block_left
            continue
        if pos + 7 > n:
            for k in range(pos, n):
                if data[k] != 0:
                    state[2] = pos
                    break
            return count, n
        crc = _u32le(data, pos)
        length = np.int64(data[pos + 4]) | (np.int64(data[pos + 5]) << 8)
        kind = np.int64(data[pos + 6])
        end = pos + 7 + length
        code = 0
        extra = 0
        if kind < 1 or kind > 4:
            code = ZEROS if (crc == 0 and length == 0 and kind == 0) else UNKNOWN_TYPE
            extra = kind
        elif 7 + length > block_left:
            code, extra = PAST_BLOCK, length
        elif end > n:
            state[2] = pending_at if pending else pos
            return count, n
        elif _crc32(data, pos + 7, end, seeds[kind], t) != crc:
            code = BAD_CHUNK_CRC
        if code:
            row = state[0]
            damage[row, 0], damage[row, 1], damage[row, 2] = pos, code, extra
            damage[row, 3] = pending_at if pending else -1
            state[0] += 1
            if pending:
                used = pending_used
                pending = False
            nxt = min((pos // BLOCK + 1) * BLOCK, n)
            state[1] += nxt - pos
            pos = nxt
            continue
        if kind == 1 or kind == 2:
            if pending:
                row = state[0]
                damage[row, 0], damage[row, 1], damage[row, 2], damage[row, 3] = pending_at, UNFINISHED, 0, -1
                state[0] += 1
                used = pending_used
                pending = False
            if used + length > len(out):
                state[3] = 1
                return count, pos
            if kind == 1:
                out[used:used + length] = data[pos + 7:end]
                rec_offset[count], rec_start[count], rec_end[count] = pos, used, used + length
                count += 1
                used += length
            else:
                pending, pending_at, pending_used = True, pos, used
                out[used:used + length] = data[pos + 7:end]
                used += length
        elif not pending:
            row = state[0]
            damage[row, 0], damage[row, 1], damage[row, 2], damage[row, 3] = pos, ORPHAN, 0, -1
            state[0] += 1
        else:
            if used + length > len(out):
                state[3] = 1
                return count, pending_at
            out[used:used + length] = data[pos + 7:end]
            used += length
            if kind == 4:
                rec_offset[count], rec_start[count], rec_end[count] = pending_at, pending_used, used
                count += 1
                pending = False
        pos = end
    if pending:
        state[2] = pending_at
    return count, pos
