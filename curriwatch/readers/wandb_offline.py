"""W&B offline run reader (`run-*.wandb`, wandb 0.17-0.31): history rows, no SDK reader needed."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np
from pathlib import PurePosixPath

from ..model import DataIssue, RawRun, RunSource
from . import history_scan, native
from .files import mapped, undecodable_issue, unreadable
from .leveldb_log import LogReport, check_header, damage_issues, iter_log_records

AXIS_KEYS = ("_step", "_timestamp")  # read as step / wall_time, not as points
_INT64 = 2.0 ** 63


_RECORD: list = []


def _record_class():
    """wandb's `Record` message class. Built from the descriptors wandb ships (its generated
    `wandb/proto/v{N}/*_pb2.py`, the same schema) in a private descriptor pool: importing
    `wandb.proto` imports the whole wandb package (~0.9 s). That import is the fallback."""
    if not _RECORD:
        try:
            _RECORD.append(_record_from_descriptors())
        except Exception:  # noqa: BLE001 - another wandb layout: its own module knows
            from wandb.proto import wandb_internal_pb2

            _RECORD.append(wandb_internal_pb2.Record)
    return _RECORD[0]


def _record_from_descriptors():
    import ast
    import importlib.util
    import re

    import google.protobuf
    from google.protobuf import descriptor_pool, empty_pb2, message_factory, struct_pb2, timestamp_pb2

    spec = importlib.util.find_spec("wandb")  # finds the package without running it
    folder = os.path.join(spec.submodule_search_locations[0], "proto", f"v{google.protobuf.__version__.split('.')[0]}")
    pool = descriptor_pool.DescriptorPool()
    for module in (empty_pb2, struct_pb2, timestamp_pb2):  # what wandb_internal.proto imports from google
        pool.AddSerializedFile(module.DESCRIPTOR.serialized_pb)
    for name in ("wandb_base_pb2.py", "wandb_telemetry_pb2.py", "wandb_internal_pb2.py"):  # dependencies first
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            found = re.search(r"AddSerializedFile\((b'(?:[^'\\]|\\.)*')\)", f.read())
        pool.AddSerializedFile(ast.literal_eval(found.group(1)))  # a bytes literal: data, never code
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("wandb_internal.Record"))


def read_wandb_offline(source: RunSource) -> RawRun:
    """Read the history of a W&B offline run folder (one or more `run-*.wandb` files)."""
    raw = RawRun(source)
    for path in source.files:
        raw.restart()  # a later file (a resumed run) rewriting a step is a restart
        rel = PurePosixPath(os.path.relpath(path, source.path)).as_posix()
        shown = f"{source.name}/{rel}" if source.name != "." else rel
        _read_file(raw, path, shown)
    return raw


COMPILED_FROM = 0  # bytes: the compiled kernels load in ~45 ms, less than protobuf takes for a small run
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
            kernels = _kernels(len(data))
            if kernels is None:
                _read_records(raw, iter_log_records(data, report), row, state)
            else:
                compiled = _Compiled(kernels)
                for offsets, buf, starts, ends in _frame_compiled(data, kernels, report):
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


def _kernels(size: int):
    """The compiled kernels for a file of `size` bytes (big files, or any once they are loaded)."""
    if COMPILED_FROM >= 1 << 62 or (size < COMPILED_FROM and not native.loaded()):
        return None
    return native.kernels()


_DAMAGE = {  # history_scan.frame_log codes -> leveldb_log.iter_log_records' words
    1: "zero-filled bytes where a chunk was expected", 2: "chunk with unknown type {}",
    3: "chunk length {} runs past its block", 4: "chunk failed its CRC check",
    5: "record begun here was never finished", 6: "continuation chunk without a record start",
}
_PAYLOAD_BYTES = 8 << 20  # payload bytes per compiled batch


def _frame_compiled(data, kernels, report: LogReport):
    """`iter_log_records` compiled, in batches: (record offsets, payload buffer, starts, ends)."""
    hs = history_scan
    d = np.frombuffer(data, np.uint8)
    out = np.empty(2 * _PAYLOAD_BYTES, np.uint8)
    rec = [np.empty(_BATCH, np.int64) for _ in range(3)]
    damage = np.zeros((256, 4), np.int64)
    state = np.array([0, 0, -1, 0, 0], np.int64)
    pos = 7
    while pos < len(d):
        state[0] = 0
        count = kernels.frame_log(d, pos, _PAYLOAD_BYTES, hs.CRC32_TABLE, hs.SEEDS, out, *rec, damage, state)
        nxt = int(state[4])
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
        if not _may_hold_data(payload):  # summaries, telemetry, ...: skipped by their field headers
            continue
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


_DATA_FIELDS = frozenset((2, 12, 17))  # Record.history, Record.metric, Record.run


def _may_hold_data(payload: bytes) -> bool:
    """False for a record whose top-level fields are well framed and none of history, metric or
    run (what `history_scan` calls OTHER): nothing in it is read, so it is not decoded."""
    p, n = 0, len(payload)
    while p < n:
        key, p = _varint(payload, p, n)
        if p < 0:
            return True
        wire = key & 7
        if key >> 3 in _DATA_FIELDS:
            return True
        if wire == 0:
            _, p = _varint(payload, p, n)
        elif wire == 1:
            p = p + 8 if p + 8 <= n else -1
        elif wire == 5:
            p = p + 4 if p + 4 <= n else -1
        elif wire == 2:
            length, p = _varint(payload, p, n)
            p = p + length if p >= 0 and length <= n - p else -1
        else:
            return True
        if p < 0:
            return True
    return False


def _varint(data: bytes, p: int, end: int) -> tuple[int, int]:
    """(value, position after); position -1 when malformed (as event_scan._varint)."""
    value = shift = 0
    while p < end and shift < 64:
        b = data[p]
        value |= (b & 0x7F) << shift
        p += 1
        if b < 0x80:
            return value & 0xFFFFFFFFFFFFFFFF, p
        shift += 7
    return value, -1


def _non_numeric(key: str, text: str, row_texts: list, non_numeric: dict) -> None:
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, str):
        row_texts.append((key, obj))
    non_numeric[key] = non_numeric.get(key, 0) + 1


class _Compiled:
    """History records turned into points by the compiled kernel; Python only for what is rare
    (values that are not plain numbers, run and metric records, keys met for the first time)."""

    def __init__(self, kernels):
        self.kernels = kernels
        self.table = np.zeros(1 << 16, np.int64)
        self.slots = np.zeros(((1 << 15) + 1, 3), np.int64)
        self.arena = np.empty(4 << 20, np.uint8)  # the keys' bytes
        self.joined = np.empty(1 << 16, np.uint8)  # a nested key while its parts are joined
        self.keys: list[str | None] = []  # per slot (None: not UTF-8)
        self.axis = np.full(1 << 15, -1, np.int8)  # per slot: 1 `_step`, 2 `_timestamp`, 0 other
        self.slot_bad = np.zeros(1 << 15, np.uint8)  # per slot: its key is not UTF-8
        self.slot_code = np.full(1 << 15, -1, np.int64)  # per slot: the run's tag code
        self.new_slots = np.zeros(1 << 15, np.int64)
        self.ret = np.zeros(3, np.int64)
        self.scratch: dict[str, np.ndarray] = {}

    def _arrays(self, n: int, cap: int) -> dict[str, np.ndarray]:
        """Per-record (n) and per-item (cap) work arrays, reused from batch to batch."""
        out = {}
        for name, dtype, size in (("kind", np.uint8, n), ("rec_bad", np.uint8, n), ("step", np.int64, n),
                                  ("item_rec", np.int64, cap), ("key_slot", np.int64, cap),
                                  ("val_start", np.int64, cap), ("val_end", np.int64, cap),
                                  ("bits", np.uint64, cap), ("code", np.uint8, cap), ("p_item", np.int64, cap),
                                  ("p_step", np.int64, cap), ("p_value", np.uint64, cap),
                                  ("p_wall", np.uint64, cap), ("p_row", np.int64, cap), ("p_code", np.uint8, cap)):
            have = self.scratch.get(name)
            if have is None or len(have) < size:
                have = self.scratch[name] = np.empty(max(size, 2 * len(have) if have is not None else 0), dtype)
            out[name] = have[:size]
        return out

    def read(self, raw: RawRun, offsets, buf, starts, ends, row: int, state: _FileState) -> int | None:
        """Points of a batch of records (payload i at buf[starts[i]:ends[i]]); the next row, or None
        when the batch needs protobuf (nothing is kept from it then)."""
        hs = history_scan
        n = len(offsets)
        w = self._arrays(n, max(1, int(ends[-1] - starts[0]) // 4 + 1))
        before = int(self.slots[0, 0])
        points = self.kernels.history_points(
            buf, starts, ends, w["kind"], w["rec_bad"], w["step"], w["item_rec"], w["key_slot"], w["val_start"],
            w["val_end"], w["bits"], w["code"], self.table, self.slots, self.arena, self.joined, self.axis, self.slot_bad,
            self.slot_code, row, w["p_item"], w["p_step"], w["p_value"], w["p_wall"], w["p_row"], w["p_code"],
            self.new_slots, self.ret)
        fresh, rows, status = self.ret.tolist()
        bad_key = False
        for slot in range(before, int(self.slots[0, 0])):  # keys met for the first time
            a, b = int(self.slots[slot + 1, 0]), int(self.slots[slot + 1, 1])
            try:
                key = self.arena[a:b].tobytes().decode("utf-8")
            except UnicodeDecodeError:  # protobuf rejects it: it must judge the records holding it
                key = None
                self.slot_bad[slot] = 1
                bad_key = True
            self.keys.append(key)
        item = w["p_item"][:points]
        slots = w["key_slot"][item]
        pcode = w["p_code"][:points]
        values = w["p_value"][:points].view(np.float64)
        rare = np.flatnonzero(pcode != 1)
        texts: list[tuple[int, str]] = []  # (point, text) of values that are not numbers
        if not status and not bad_key and len(rare):
            for i in rare.tolist():
                k = int(item[i])
                try:
                    texts.append((i, buf[w["val_start"][k]:w["val_end"][k]].tobytes().decode("utf-8")))
                except UnicodeDecodeError:  # protobuf rejects the record
                    bad_key = True
                    break
        if status or bad_key:
            self.slot_code[self.new_slots[:fresh]] = -1
            return None
        kind = w["kind"]
        parse = _record_class().FromString
        for i in np.flatnonzero(kind == hs.META).tolist():  # run identity and define_metric axes
            try:
                _read_meta(raw.meta, parse(buf[starts[i]:ends[i]].tobytes()))
            except Exception:  # noqa: BLE001 - protobuf judges it; an undecodable non-history record is no point lost
                state.undecodable.append(int(offsets[i]))
        state.bad_steps.extend(offsets[w["rec_bad"].view(bool)].tolist())
        order = self.new_slots[:fresh]
        if texts:  # values float() converts, or strings and other JSON (kept apart, counted)
            keep = np.ones(points, bool)
            values = values.copy()
            text_points = []
            for i, text in texts:
                try:
                    val = float(text)
                except ValueError:
                    keep[i] = False
                    row_texts: list = []
                    _non_numeric(self.keys[slots[i]], text, row_texts, state.non_numeric)
                    if pcode[i] != 3:
                        text_points += [(k, int(w["p_step"][i]), int(w["p_row"][i]), t) for k, t in row_texts]
                    continue
                if pcode[i] == 3:
                    keep[i] = False
                else:
                    values[i] = val
            raw.text_points.extend(text_points)
            if not keep.all():
                slots, values = slots[keep], values[keep]
            marked = self.slot_code[slots] < 0  # new slots in first-seen order of the points that stay
            uniq, first = np.unique(slots[marked], return_index=True)
            self.slot_code[order] = -1
            order = uniq[np.argsort(first, kind="stable")]
        else:
            keep = None
        for slot in order.tolist():
            key = self.keys[slot]
            code = state.codes.get(key)
            self.slot_code[slot] = code if code is not None else state.codes.setdefault(key, raw.code_for(key))
        sel = slice(None) if keep is None else keep
        raw.tag_code.frombytes(self.slot_code[slots].astype(f"i{raw.tag_code.itemsize}").tobytes())
        raw.step.frombytes(w["p_step"][:points][sel].tobytes())
        raw.value.frombytes(values.tobytes())
        raw.wall_time.frombytes(w["p_wall"][:points][sel].tobytes())
        raw.row.frombytes(w["p_row"][:points][sel].tobytes())
        return row + rows


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
    raw.count_non_numeric(non_numeric)
    if undecodable:
        raw.issues.append(undecodable_issue(shown, undecodable))
    raw.issues += damage_issues(shown, size, report)
