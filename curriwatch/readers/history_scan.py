"""Compiled walk of W&B history records (wandb_internal.proto), so big runs skip per-item Python.

Record{history = 2} -> HistoryRecord{item = 1, step = 2 (HistoryStep{num = 1})} -> HistoryItem{key = 1,
nested_key = 2, value_json = 16}. A record in exactly this shape (items with one key part and a
value_json; the parts of a nested key joined with ".") is FAST: `history_points` turns it into points (exact number parsing, `_step` and
`_timestamp` axes, rows) as `wandb_offline._read_records` does with protobuf. Anything else in a
history record (typed value fields, no value_json, another record type beside it) makes
it SLOW: the batch is decoded with protobuf. Run and metric records are META (decoded with
protobuf for the run's identity and step axes); every other record (summaries, the half of a
run's bytes, telemetry, ...) is OTHER and skipped by its field headers, as both paths do.
"""
from __future__ import annotations

import numpy as np

from .event_scan import _intern, _skip_field, _varint, crc_tables
from .native import entry, jit

OTHER, FAST, SLOW, META = 0, 1, 2, 3


@jit
def _len_field(buf, p, end):
    """(start, end) of a length-delimited value at p, (-1, -1) when malformed."""
    n, q = _varint(buf, p, end)
    if q < 0 or n > np.uint64(end - q):
        return -1, -1
    return q, q + np.int64(n)


@jit
def _history(buf, s, e, rec, kind, has_step, step, item_count, item_rec, key_slot, val_start, val_end,
             table, slots, arena, joined):
    """Items of the HistoryRecord at [s, e) appended from `item_count`; the new count, or -1 if SLOW.
    A key of several parts (`nested_key`, a nested dict) is joined with "." in `joined`, as
    `".".join(item.nested_key)`, and interned from there."""
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
            size = 0  # bytes of the joined key in `joined`
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
                    if parts == 2:  # a second part: the key is joined from here on
                        if k1 - k0 > len(joined):
                            return -1
                        _copy(buf, k0, joined, 0, k1 - k0)
                        size = k1 - k0
                    if parts >= 2:
                        if size + 1 + d - c > len(joined):
                            return -1
                        joined[size] = 46  # "."
                        _copy(buf, c, joined, size + 1, d - c)
                        size += 1 + d - c
                    k0, k1 = c, d
                elif ifield == 1:
                    if parts == 0:
                        k0, k1 = c, d
                else:
                    v0, v1 = c, d
                q = d
            if k0 < 0 or v0 < 0:  # no key or no value_json: protobuf decides
                return -1
            slot = _intern(joined, 0, size, table, slots, arena) if parts > 1 else _intern(buf, k0, k1, table,
                                                                                            slots, arena)
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


@jit
def _record_type(field):
    """True for the field numbers of Record's `record_type` oneof (wandb_internal.proto, wandb 0.31)."""
    return (2 <= field <= 13) or field == 17 or field == 18 or (20 <= field <= 27) or field == 100


@jit
def _scan_history(buf, starts, ends, kind, has_step, step, item_rec, key_slot, val_start, val_end, table, slots,
                  arena, joined):
    """Classify every record payload [starts[i], ends[i]) of `buf`; returns the number of items."""
    items = 0
    for r in range(len(starts)):
        s, e = starts[r], ends[r]
        has_step[r] = 0
        history = meta = others = slow = False
        p = s
        while p < e:
            key, p = _varint(buf, p, e)
            if p < 0:
                slow = True
                break
            field, wire = np.int64(key >> np.uint64(3)), np.int64(key & np.uint64(7))
            if field == 2:
                history = True
                a, b = _len_field(buf, p, e) if wire == 2 else (-1, -1)
                n = -1 if a < 0 or others else _history(buf, a, b, r, kind, has_step, step, items, item_rec,
                                                        key_slot, val_start, val_end, table, slots, arena, joined)
                if n < 0:
                    slow = True
                    break
                items = n
                p = b
                continue
            meta = meta or field == 12 or field == 17
            others = others or _record_type(field)
            p = _skip_field(buf, p, e, wire)
            if p < 0:
                slow = True
                break
        if slow or (history and others):  # protobuf decides (the last record type on the wire wins)
            kind[r] = SLOW
            has_step[r] = 0
            while items > 0 and item_rec[items - 1] == r:  # drop the items it had already added
                items -= 1
        else:
            kind[r] = FAST if history else (META if meta else OTHER)
    return items


def _powers_of_five() -> tuple[np.ndarray, np.ndarray]:
    """5^q for q in [-342, 308] as 128-bit significands (high, low words), rounded as the
    Eisel-Lemire algorithm needs: truncated for q >= 0, rounded up for q < 0 (fast_float's table)."""
    hi, lo = [], []
    for q in range(-342, 309):
        if q < 0:
            power5 = 5 ** -q
            z = power5.bit_length()  # the least z with 2**z >= 5**-q (never a power of two)
            c = 2 ** (z + 127 if q >= -27 else 2 * z + 128) // power5 + 1
            c >>= max(0, c.bit_length() - 128)
        else:
            c = 5 ** q
            c = c << (128 - c.bit_length()) if c.bit_length() < 128 else c >> (c.bit_length() - 128)
        hi.append(c >> 64)
        lo.append(c & (2 ** 64 - 1))
    return np.array(hi, np.uint64), np.array(lo, np.uint64)


POW5_HI, POW5_LO = _powers_of_five()
_NAN_BITS, _INF_BITS, _SIGN = 0x7FF8000000000000, 0x7FF0000000000000, 1 << 63
_INFINITY = np.frombuffer(b"Infinity", np.uint8)


@jit
def _mul128(a, b):
    """(low, high) 64-bit words of the 128-bit product a * b (uint64 operands)."""
    m, s = np.uint64(0xFFFFFFFF), np.uint64(32)
    a0, a1, b0, b1 = a & m, a >> s, b & m, b >> s
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s) + (p01 & m) + (p10 & m)
    return (p00 & m) | (mid << s), p11 + (p01 >> s) + (p10 >> s) + (mid >> s)


@jit
def _leading_zeros(w):
    n = 0
    for bits in (32, 16, 8, 4, 2, 1):
        if w >> np.uint64(64 - bits) == np.uint64(0):
            n += bits
            w = w << np.uint64(bits)
    return n


@jit
def _eisel_lemire(w, q):
    """Bits of the double nearest w * 10**q (w < 10**19 a uint64), rounded half to even as
    float() rounds, by the Eisel-Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per
    Second", 2021, sections 5-6); (0, 0) in the rare cases it cannot decide (float() then does)."""
    one = np.uint64(1)
    if w == np.uint64(0) or q < -342:
        return np.uint64(0), 1
    if q > 308:
        return np.uint64(_INF_BITS), 1
    lz = _leading_zeros(w)
    w = w << np.uint64(lz)
    lo, hi = _mul128(w, POW5_HI[q + 342])
    if hi & np.uint64(0x1FF) == np.uint64(0x1FF):  # the first word may not hold 55 exact bits
        _lo2, hi2 = _mul128(w, POW5_LO[q + 342])
        lo = lo + hi2
        if hi2 > lo:
            hi = hi + one
    if lo == np.uint64(0xFFFFFFFFFFFFFFFF) and (q < -27 or q > 55):
        return np.uint64(0), 0
    upper = np.int64(hi >> np.uint64(63))
    shift = np.uint64(upper + 9)
    mantissa = hi >> shift
    power2 = (((q * (152170 + 65536)) >> 16) + 63) + upper - lz + 1023
    if power2 <= 0:  # subnormal
        if -power2 + 1 >= 64:
            return np.uint64(0), 1
        mantissa = mantissa >> np.uint64(-power2 + 1)
        mantissa = (mantissa + (mantissa & one)) >> one
        power2 = 1 if mantissa >= (one << np.uint64(52)) else 0
        return mantissa | (np.uint64(power2) << np.uint64(52)), 1
    if (lo <= one and -4 <= q <= 23 and mantissa & np.uint64(3) == one
            and (mantissa << shift) == hi):  # exactly halfway: round to even, down
        mantissa = mantissa & ~one
    mantissa = (mantissa + (mantissa & one)) >> one
    if mantissa >= (np.uint64(2) << np.uint64(52)):
        mantissa = one << np.uint64(52)
        power2 += 1
    mantissa = mantissa & ~(one << np.uint64(52))
    if power2 >= 0x7FF:
        return np.uint64(_INF_BITS), 1
    return mantissa | (np.uint64(power2) << np.uint64(52)), 1


@jit
def _number(buf, a, b):
    """(bits of float(buf[a:b]), 1) for a JSON number (at most 19 significant digits), NaN and
    +-Infinity; (0, 2) for a JSON number it cannot round exactly (more digits, a huge exponent, the
    rare undecided case: float() converts it); (0, 0) for anything else (strings, objects, other
    spellings: float() and json decide)."""
    p = a
    neg = p < b and buf[p] == 45
    if neg:
        p += 1
    sign = np.uint64(_SIGN) if neg else np.uint64(0)
    if b - p == 3 and buf[p] == 78 and buf[p + 1] == 97 and buf[p + 2] == 78:  # NaN
        return np.uint64(_NAN_BITS), 0 if neg else 1  # float('-NaN') has its sign bit set
    if b - p == 8 and buf[p] == 73:  # Infinity
        for k in range(8):
            if buf[p + k] != _INFINITY[k]:
                return np.uint64(0), 0
        return np.uint64(_INF_BITS) | sign, 1
    w = np.uint64(0)
    digits = 0
    exp = 0
    seen = 0
    number = 1
    while p < b and 48 <= buf[p] <= 57:
        if digits > 0 or buf[p] != 48:
            digits += 1
            w = w * np.uint64(10) + np.uint64(buf[p] - 48)
        seen += 1
        p += 1
    if seen == 0:
        return np.uint64(0), 0
    if p < b and buf[p] == 46:
        p += 1
        frac = 0
        while p < b and 48 <= buf[p] <= 57:
            if digits > 0 or buf[p] != 48:
                digits += 1
                w = w * np.uint64(10) + np.uint64(buf[p] - 48)
            exp -= 1
            frac += 1
            p += 1
        if frac == 0:
            return np.uint64(0), 0
    if digits > 19:  # w overflowed: float() rounds the full digit string
        number = 2
    if p < b and (buf[p] == 101 or buf[p] == 69):
        p += 1
        eneg = False
        if p < b and (buf[p] == 43 or buf[p] == 45):
            eneg = buf[p] == 45
            p += 1
        e = 0
        edigits = 0
        while p < b and 48 <= buf[p] <= 57:
            if edigits < 4:
                e = e * 10 + (buf[p] - 48)
            else:
                number = 2
            edigits += 1
            p += 1
        if edigits == 0:
            return np.uint64(0), 0
        exp += -e if eneg else e
    if p != b:
        return np.uint64(0), 0
    if number == 2:
        return np.uint64(0), 2
    bits, ok = _eisel_lemire(w, exp)
    return bits | sign, 1 if ok else 2


@entry("i8(u1[:], i8[:], i8[:], u8[:], u1[:])")
def parse_numbers(buf, val_start, val_end, bits, numeric):
    """`_number` of every value: numeric[i] its code, bits[i] the float64 bits where it is 1.
    Returns how many were converted exactly."""
    parsed = 0
    for i in range(len(val_start)):
        v, ok = _number(buf, val_start[i], val_end[i])
        bits[i] = v
        numeric[i] = ok
        parsed += ok == 1
    return parsed


AXIS_STEP, AXIS_TIMESTAMP = 1, 2
_STEP_KEY, _TIMESTAMP_KEY = np.frombuffer(b"_step", np.uint8), np.frombuffer(b"_timestamp", np.uint8)
# history_points status: why a batch must be decoded by protobuf instead
SLOW_RECORD, UNDECIDED_AXIS, BAD_KEY = 1, 2, 3


@jit
def _same(arena, a, b, word):
    if b - a != len(word):
        return False
    for k in range(b - a):
        if arena[a + k] != word[k]:
            return False
    return True


@jit
def _axis(slot, slots, arena, axis):
    """1 for the key `_step`, 2 for `_timestamp`, else 0 (kept per slot)."""
    if axis[slot] < 0:
        a, b = slots[slot + 1, 0], slots[slot + 1, 1]
        axis[slot] = AXIS_STEP if _same(arena, a, b, _STEP_KEY) else (
            AXIS_TIMESTAMP if _same(arena, a, b, _TIMESTAMP_KEY) else 0)
    return axis[slot]


@jit
def _int64_of(bits):
    """(int(x), 1) for the double with these bits when it is a whole number in the int64 range,
    else (0, 0) (NaN, infinities, fractions, beyond int64): `wandb_offline._step_value` on bits."""
    one = np.uint64(1)
    e = np.int64((bits >> np.uint64(52)) & np.uint64(0x7FF)) - 1023
    neg = bits >> np.uint64(63) == one
    if bits & ~(one << np.uint64(63)) == np.uint64(0):
        return 0, 1
    if e == 1024 or e < 0:
        return 0, 0
    if e >= 63:  # only -2**63 is in range
        return (-9223372036854775807 - 1, 1) if neg and e == 63 and bits & ((one << np.uint64(52)) - one) == \
            np.uint64(0) else (0, 0)
    m = (bits & ((one << np.uint64(52)) - one)) | (one << np.uint64(52))
    if e <= 52:
        if m & ((one << np.uint64(52 - e)) - one) != np.uint64(0):
            return 0, 0
        n = np.int64(m >> np.uint64(52 - e))
    else:
        n = np.int64(m << np.uint64(e - 52))
    return (-n if neg else n), 1


@entry("i8(u1[:], i8[:], i8[:], u1[:], u1[:], i8[:], i8[:], i8[:], i8[:], i8[:], u8[:], u1[:], i8[:], i8[:,:], "
       "u1[:], u1[:], i1[:], u1[:], i8[:], i8, i8[:], i8[:], u8[:], u8[:], i8[:], u1[:], i8[:], i8[:])")
def history_points(buf, starts, ends, kind, rec_bad, step, item_rec, key_slot, val_start, val_end, bits, code,
                   table, slots, arena, joined, axis, slot_bad, slot_code, row, p_item, p_step, p_value, p_wall,
                   p_row, p_code, new_slots, ret):
    """The points of a batch of record payloads [starts[i], ends[i]) of `buf`, as
    `wandb_offline._read_records` reads them record by record with protobuf.

    Keys are interned (`table`, `slots`, `arena`; `joined` holds a key of several parts while it
    is joined; `axis` per slot, -1 until known). A point i is
    the item p_item[i] with its step, value and wall time (float64 bits), row and p_code: 1 a
    number converted exactly, 2 a number float() must convert, 0 a value float() or json must
    judge, 3 the same in a record whose `_step` is bad (counted as not numeric, never a point).
    new_slots: slots whose first point is here (slot_code -1 -> -2), in first-seen order.
    Returns the points; ret = [new slots, rows used, status (0, SLOW_RECORD, UNDECIDED_AXIS, BAD_KEY)];
    with a status nothing is marked and the batch goes to protobuf."""
    n_rec = len(starts)
    has_step = rec_bad  # the record flags double as has_step until the rows are walked
    items = _scan_history(buf, starts, ends, kind, has_step, step, item_rec, key_slot, val_start, val_end,
                          table, slots, arena, joined)
    ret[0], ret[1], ret[2] = 0, 0, 0
    for r in range(n_rec):
        if kind[r] == SLOW:
            ret[2] = SLOW_RECORD
            return 0
    for i in range(items):
        v, c = _number(buf, val_start[i], val_end[i])
        bits[i] = v
        code[i] = c
    points = 0
    fresh = 0
    j = 0
    for r in range(n_rec):
        if kind[r] != FAST:
            rec_bad[r] = 0
            continue
        k = j
        while k < items and item_rec[k] == r:
            k += 1
        known = has_step[r] == 1
        st = step[r]
        bad = False
        wall = np.uint64(_NAN_BITS)
        status = 0
        for i in range(j, k):
            s = key_slot[i]
            if slot_bad[s]:
                status = BAD_KEY
                break
            ax = _axis(s, slots, arena, axis)
            if ax == AXIS_TIMESTAMP:
                if code[i] != 1:
                    status = UNDECIDED_AXIS
                    break
                wall = bits[i]
            elif ax == AXIS_STEP and not known:
                if code[i] != 1:
                    status = UNDECIDED_AXIS
                    break
                n, ok = _int64_of(bits[i])
                if ok:
                    st, known, bad = n, True, False
                else:
                    bad = True
        if status:
            for f in range(fresh):  # undo the marks: protobuf reads this batch
                slot_code[new_slots[f]] = -1
            ret[2] = status
            return 0
        if not known:
            st = row
        rec_bad[r] = 1 if bad else 0
        for i in range(j, k):
            if axis[key_slot[i]] != 0:
                continue
            c = code[i]
            if bad:
                if c != 0:
                    continue
                c = 3
            s = key_slot[i]
            if c == 1 and slot_code[s] == -1:
                slot_code[s] = -2
                new_slots[fresh] = s
                fresh += 1
            p_item[points], p_step[points], p_value[points], p_wall[points] = i, st, bits[i], wall
            p_row[points], p_code[points] = row, c
            points += 1
        row += 1
        ret[1] += 1
        j = k
    ret[0] = fresh
    return points


CRC32_TABLE = crc_tables(0xEDB88320)  # zlib CRC32
SEEDS = np.array([0] + [__import__("zlib").crc32(bytes([t])) for t in (1, 2, 3, 4)], np.int64)
BLOCK = 32 * 1024
# damage codes of frame_log; messages in wandb_offline.py
ZEROS, UNKNOWN_TYPE, PAST_BLOCK, BAD_CHUNK_CRC, UNFINISHED, ORPHAN = 1, 2, 3, 4, 5, 6


@jit
def _copy(src, at, dst, to, n):
    """dst[to:to + n] = src[at:at + n], as one memcpy: unsigned indices leave out numba's negative
    index handling, which kept the loop from being one (10x slower)."""
    at, to = np.uint64(at), np.uint64(to)
    for k in range(np.uint64(n)):
        dst[to + k] = src[at + k]


@jit
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


@jit
def _u32le(buf, p):
    return np.int64(buf[p]) | (np.int64(buf[p + 1]) << 8) | (np.int64(buf[p + 2]) << 16) | (
        np.int64(buf[p + 3]) << 24)


@entry("i8(u1[:], i8, i8, i8[:,:], i8[:], u1[:], i8[:], i8[:], i8[:], i8[:,:], i8[:])")
def frame_log(data, pos, limit, t, seeds, out, rec_offset, rec_start, rec_end, damage, state):
    """`leveldb_log.iter_log_records` compiled: payloads copied into `out`, (offset, start, end) per
    record. Stops at a record boundary once `limit` payload bytes or the record arrays are used.

    damage rows: (at, code, extra, pending_at or -1); state: [damage rows, skipped bytes,
    incomplete tail or -1, stopped for room (1), position to go on from]. Returns the records."""
    n = len(data)
    count = 0
    used = 0
    pending = False
    pending_at = 0
    pending_used = 0
    state[3] = 0
    while pos < n:
        if not pending and (used >= limit or count >= len(rec_offset) or state[0] >= len(damage) - 2):
            state[4] = pos
            return count
        block_left = BLOCK - pos % BLOCK
        if block_left < 7:
            pos += block_left
            continue
        if pos + 7 > n:
            for k in range(pos, n):
                if data[k] != 0:
                    state[2] = pos
                    break
            state[4] = n
            return count
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
            state[4] = n
            return count
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
                state[4] = pos
                return count
            if kind == 1:
                _copy(data, pos + 7, out, used, length)
                rec_offset[count], rec_start[count], rec_end[count] = pos, used, used + length
                count += 1
                used += length
            else:
                pending, pending_at, pending_used = True, pos, used
                _copy(data, pos + 7, out, used, length)
                used += length
        elif not pending:
            row = state[0]
            damage[row, 0], damage[row, 1], damage[row, 2], damage[row, 3] = pos, ORPHAN, 0, -1
            state[0] += 1
        else:
            if used + length > len(out):
                state[3] = 1
                state[4] = pending_at
                return count
            _copy(data, pos + 7, out, used, length)
            used += length
            if kind == 4:
                rec_offset[count], rec_start[count], rec_end[count] = pending_at, pending_used, used
                count += 1
                pending = False
        pos = end
    if pending:
        state[2] = pending_at
    state[4] = pos
    return count

