"""W&B offline run reader (`run-*.wandb`, wandb 0.17-0.31): history rows, no SDK reader needed."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np
from pathlib import PurePosixPath

from ..model import DataIssue, RawRun, RunSource
from .files import mapped, undecodable_issue, unreadable
from .leveldb_log import LogReport, check_header, damage_issues, iter_log_records

AXIS_KEYS = ("_step", "_timestamp")  # read as step / wall_time, not as points
_INT64 = 2.0 ** 63


def _record_class():
    from wandb.proto import wandb_internal_pb2  # imports wandb: only when a W&B run is read

    return wandb_internal_pb2.Record


def read_wandb_offline(source: RunSource) -> RawRun:
    """Read the history of a W&B offline run folder (one or more `run-*.wandb` files)."""
    raw = RawRun(source)
    for path in source.files:
        raw.restart()  # a later file (a resumed run) rewriting a step is a restart
        rel = PurePosixPath(os.path.relpath(path, source.path)).as_posix()
        shown = f"{source.name}/{rel}" if source.name != "." else rel
        _read_file(raw, path, shown)
    return raw


COMPILED_FROM = 1 << 20  # bytes: smaller files are not worth importing numba for
_BATCH = 2048  # records per compiled pass


@dataclass
class _FileState:
    """What reading one file accumulates besides points."""

    codes: dict = field(default_factory=dict)  # key -> run tag code
    non_numeric: dict = field(default_factory=dict)  # key -> values that were not numbers
    undecodable: list = field(default_factory=list)  # record offsets
    bad_steps: list = field(default_factory=list)  # record offsets


def _read_file(raw: RawRun, path: str, shown: str) -> None:
    try:
        with mapped(path) as (data, _release):
            problem = check_header(data, b":W&B")
            if problem:
                raw.issues.append(DataIssue("unreadable_file", shown, f"header at byte 0: {problem}"))
                return
            report = LogReport()
            state = _FileState()
            row = max(raw.row[-1] + 1 if raw.row else 0, raw.text_points[-1][2] + 1 if raw.text_points else 0)
            hs = _compiled() if len(data) >= COMPILED_FROM else None
            if hs is None:
                _read_records(raw, iter_log_records(data, report), row, state)
            else:
                compiled = _Compiled(hs)
                for offsets, buf, starts, ends in _frame_compiled(data, hs, report):
                    done = compiled.read(raw, offsets, buf, starts, ends, row, state)
                    if done is None:  # a record of another shape in this batch: protobuf reads the batch
                        batch = [(o, buf[a:b].tobytes()) for o, a, b in zip(offsets.tolist(), starts.tolist(),
                                                                            ends.tolist())]
                        done = _read_records(raw, batch, row, state)
                    row = done
            size = len(data)
    except OSError as err:
        raw.issues.append(unreadable(shown, err))
        return
    _report_issues(raw, shown, size, report, state.non_numeric, state.undecodable)
    if state.bad_steps:
        raw.issues.append(DataIssue(
            "bad_step", shown,
            f"{len(state.bad_steps)} history row(s) whose _step is not a whole number in the int64 range "
            f"were skipped (first at byte {state.bad_steps[0]})"))


def _compiled():
    from . import history_scan

    return history_scan if history_scan.numba is not None else None


_DAMAGE = {  # history_scan.frame_log codes -> leveldb_log.iter_log_records' words
    1: "zero-filled bytes where a chunk was expected", 2: "chunk with unknown type {}",
    3: "chunk length {} runs past its block", 4: "chunk failed its CRC check",
    5: "record begun here was never finished", 6: "continuation chunk without a record start",
}
_PAYLOAD_BYTES = 8 << 20  # payload bytes per compiled batch


def _frame_compiled(data, hs, report: LogReport):
    """`iter_log_records` compiled, in batches: (record offsets, payload buffer, starts, ends)."""
    d = np.frombuffer(data, np.uint8)
    out = np.empty(2 * _PAYLOAD_BYTES, np.uint8)
    rec = [np.empty(_BATCH, np.int64) for _ in range(3)]
    damage = np.zeros((256, 4), np.int64)
    state = np.array([0, 0, -1, 0], np.int64)
    pos = 7
    while pos < len(d):
        state[0] = 0
        count, nxt = hs.frame_log(d, pos, _PAYLOAD_BYTES, hs.CRC32_TABLE, hs.SEEDS, out, *rec, damage, state)
        for at, code, extra, pending_at in damage[: state[0]].tolist():
            what = _DAMAGE[code].format(extra)
            if pending_at >= 0:
                what += f"; the record begun at byte {pending_at} is lost with it"
            report.damage.append((at, what))
        if count:
            yield rec[0][:count], out, rec[1][:count], rec[2][:count]
        elif state[3]:  # one record larger than the buffer
            out = np.empty(2 * len(out), np.uint8)
        pos = nxt
    report.skipped_bytes += int(state[1])
    if state[2] >= 0:
        report.incomplete_tail = int(state[2])


def _read_records(raw: RawRun, records, row: int, state: _FileState) -> int:
    """Records decoded by protobuf one by one (small files, and batches the compiled walk declines)."""
    parse = _record_class().FromString
    code_for = raw.code_for
    tag_code, steps, values, walls, rows = raw.tag_code, raw.step, raw.value, raw.wall_time, raw.row
    codes, non_numeric = state.codes, state.non_numeric
    for offset, payload in records:
        try:
            record = parse(payload)
        except Exception:  # protobuf raises DecodeError, or RuntimeWarning-like errors from upb
            state.undecodable.append(offset)
            continue
        if not record.HasField("history"):
            _read_meta(raw.meta, record)
            continue
        history = record.history
        step = history.step.num if history.HasField("step") else None
        wall = float("nan")
        row_items: list[tuple[str, float]] = []
        row_texts: list[tuple[str, str]] = []
        bad_step = False
        for item in history.item:
            key = ".".join(item.nested_key) if item.nested_key else item.key
            text = item.value_json
            try:
                val = float(text)
            except ValueError:
                val = None
            if key in AXIS_KEYS:
                if val is not None:
                    if key == "_timestamp":
                        wall = val
                    elif step is None:
                        step = _step_value(val)
                        bad_step = step is None
                continue
            if val is None:
                _non_numeric(key, text, row_texts, non_numeric)
                continue
            row_items.append((key, val))
        if bad_step:  # the row's `_step` is no step: the record is lost, not the scan
            state.bad_steps.append(offset)
            row += 1
            continue
        if step is None:
            step = row
        for key, val in row_items:
            code = codes.get(key)
            if code is None:
                code = codes[key] = code_for(key)
            tag_code.append(code)
            steps.append(step)
            values.append(val)
            walls.append(wall)
            rows.append(row)
        raw.text_points.extend((key, step, row, text) for key, text in row_texts)
        row += 1
    return row


def _non_numeric(key: str, text: str, row_texts: list, non_numeric: dict) -> None:
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, str):
        row_texts.append((key, obj))
    non_numeric[key] = non_numeric.get(key, 0) + 1


class _Compiled:
    """History records walked by `history_scan`, their items turned into points with numpy."""

    WIDTH = 32  # longest value_json converted in bulk; longer ones are rare and go through float()

    def __init__(self, hs):
        self.hs = hs
        self.table = np.zeros(1 << 16, np.int64)
        self.slots = np.zeros(((1 << 15) + 1, 3), np.int64)
        self.arena = np.empty(4 << 20, np.uint8)  # the keys' bytes
        self.keys: list[str] = []  # per slot
        self.axis = np.zeros(1 << 15, np.int8)  # per slot: 1 `_step`, 2 `_timestamp`
        self.slot_code = np.full(1 << 15, -1, np.int64)

    def read(self, raw: RawRun, offsets, buf, starts, ends, row: int, state: _FileState) -> int | None:
        """Points of a batch of records (payload i at buf[starts[i]:ends[i]]); None when the batch
        needs protobuf."""
        hs = self.hs
        n = len(offsets)
        kind, has_step, step = np.zeros(n, np.uint8), np.zeros(n, np.uint8), np.zeros(n, np.int64)
        cap = max(1, int(ends[-1] - starts[0]) // 4 + 1)
        item_rec, key_slot = np.empty(cap, np.int64), np.empty(cap, np.int64)
        val_start, val_end = np.empty(cap, np.int64), np.empty(cap, np.int64)
        before = int(self.slots[0, 0])
        count = hs.scan_history(buf, starts, ends, kind, has_step, step, item_rec, key_slot, val_start, val_end,
                                self.table, self.slots, self.arena)
        for slot in range(before, int(self.slots[0, 0])):
            a, b = int(self.slots[slot + 1, 0]), int(self.slots[slot + 1, 1])
            try:
                key = self.arena[a:b].tobytes().decode("utf-8")
            except UnicodeDecodeError:  # protobuf rejects it: it must judge the record
                key = None
            self.keys.append(key)
            self.axis[slot] = AXIS_KEYS.index(key) + 1 if key in AXIS_KEYS else 0
        if (kind == hs.SLOW).any():
            return None
        parse = _record_class().FromString
        for i in np.flatnonzero(kind == hs.OTHER).tolist():  # run identity and define_metric axes
            try:
                _read_meta(raw.meta, parse(buf[starts[i]:ends[i]].tobytes()))
            except Exception:  # noqa: BLE001 - protobuf judges it; an undecodable non-history record is no point lost
                state.undecodable.append(int(offsets[i]))
        item_rec, key_slot = item_rec[:count], key_slot[:count]
        if any(self.keys[k] is None for k in np.unique(key_slot).tolist()):
            return None
        # values: one numpy cast for everything shaped like a number, float() for the rest
        raw_vals = np.zeros((count, self.WIDTH), np.uint8)
        numeric = np.zeros(count, np.uint8)
        vals = np.full(count, np.nan)
        hs.gather_numbers(buf, val_start[:count], val_end[:count], raw_vals, numeric, vals, hs.POW10)
        cast = numeric == 2
        numeric = numeric == 1
        try:
            vals[cast] = raw_vals[cast].view(f"S{self.WIDTH}")[:, 0].astype(np.float64)
            numeric |= cast
        except ValueError:  # one odd value: float() judges each of them below
            pass
        texts: dict[int, str] = {}
        for i in np.flatnonzero(~numeric).tolist():
            try:
                text = buf[val_start[i]:val_end[i]].tobytes().decode("utf-8")
            except UnicodeDecodeError:
                return None
            try:
                vals[i] = float(text)
                numeric[i] = True
            except ValueError:
                texts[i] = text
        # rows and axes: each history record is a row; `_step` items stand in for a missing step
        is_history = kind == hs.FAST
        rec_row = row + np.cumsum(is_history) - 1
        axis = self.axis[key_slot]
        wall = np.full(n, np.nan)
        ts = np.flatnonzero((axis == 2) & numeric)
        wall[item_rec[ts]] = vals[ts]  # ascending: the last `_timestamp` of a record wins
        rec_step = np.where(has_step == 1, step, rec_row)
        bad = np.zeros(n, bool)
        st = np.flatnonzero((axis == 1) & numeric & (has_step[item_rec] == 0))
        if len(st):
            recs, first = np.unique(item_rec[st], return_index=True)
            v = vals[st[first]]
            ok = (v >= -2.0**63) & (v < 2.0**63) & (np.floor(v) == v)
            rec_step[recs[ok]] = v[ok].astype(np.int64)
            bad[recs[~ok]] = True
        state.bad_steps.extend(offsets[bad].tolist())
        keep = ~bad[item_rec] & (axis == 0)
        point = np.flatnonzero(keep & numeric)
        # tag codes in first-seen order of points, as the record-by-record loop gives them
        slots = key_slot[point]
        uniq, first = np.unique(slots, return_index=True)
        for k in uniq[np.argsort(first, kind="stable")].tolist():
            if self.slot_code[k] < 0:
                key = self.keys[k]
                code = state.codes.get(key)
                self.slot_code[k] = code if code is not None else state.codes.setdefault(key, raw.code_for(key))
        recs = item_rec[point]
        raw.tag_code.frombytes(self.slot_code[slots].astype(f"i{raw.tag_code.itemsize}").tobytes())
        raw.step.frombytes(rec_step[recs].tobytes())
        raw.value.frombytes(vals[point].tobytes())
        raw.wall_time.frombytes(wall[recs].tobytes())
        raw.row.frombytes(rec_row[recs].astype(np.int64).tobytes())
        for i in sorted(texts):
            if keep[i]:
                row_texts: list = []
                _non_numeric(self.keys[key_slot[i]], texts[i], row_texts, state.non_numeric)
                r = item_rec[i]
                raw.text_points.extend((k, int(rec_step[r]), int(rec_row[r]), t) for k, t in row_texts)
        return row + int(is_history.sum())


_INT64_MAX = 2**63


def _step_value(val: float) -> int | None:
    """A `_step` item as an int64 step, or None when it is not one (NaN, infinite, huge, fractional)."""
    if not (-_INT64_MAX <= val < _INT64_MAX) or val != int(val):
        return None
    return int(val)




def _read_meta(meta: dict, record) -> None:
    """The run's identity and its define_metric step axes (wandb sdk: Record.run / Record.metric)."""
    if record.HasField("run"):
        run = record.run
        meta.setdefault("run_id", run.run_id)
        if run.run_group:
            meta["group"] = run.run_group
        if run.display_name:
            meta["name"] = run.display_name
    elif record.HasField("metric"):
        metric = record.metric
        name = metric.glob_name or metric.name
        if name and metric.step_metric:
            pairs = meta.setdefault("step_metrics", [])
            if (name, metric.step_metric) not in pairs:
                pairs.append((name, metric.step_metric))


def _report_issues(raw, shown, size, report: LogReport, non_numeric, undecodable) -> None:
    if non_numeric:
        total = sum(non_numeric.values())
        keys = ", ".join(sorted(non_numeric)[:5]) + (" ..." if len(non_numeric) > 5 else "")
        raw.issues.append(DataIssue(
            "non_numeric_values", shown,
            f"{total} history value(s) were not numbers and were skipped (keys: {keys})"))
    if undecodable:
        raw.issues.append(undecodable_issue(shown, undecodable))
    raw.issues += damage_issues(shown, size, report)
