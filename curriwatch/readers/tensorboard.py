"""Native TensorBoard reader: every scalar of every event file of a run, no sampling."""
from __future__ import annotations

import os
from pathlib import PurePosixPath

import numpy as np
from google.protobuf.message import DecodeError
from tensorboard.compat.proto import types_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog

from ..model import DataIssue, RawRun, RunSource
from . import event_scan, native
from .dreamer import dreamer_task
from .files import RELEASE_EVERY, incomplete_tail_issue, mapped, undecodable_issue, unreadable
from .fast_events import CHUNK, decode_simple_scalars, read_le
from .tfrecord import FramingReport, frame_records
from .tune import PARAMS_FILE, env_from_params

# dtype -> (numpy dtype of tensor_content, name of the repeated field holding values)
_TENSOR_DTYPES = {
    types_pb2.DT_FLOAT: (np.float32, "float_val"),
    types_pb2.DT_DOUBLE: (np.float64, "double_val"),
    types_pb2.DT_HALF: (np.float16, "half_val"),
    types_pb2.DT_BFLOAT16: (None, "half_val"),
    types_pb2.DT_INT8: (np.int8, "int_val"),
    types_pb2.DT_INT16: (np.int16, "int_val"),
    types_pb2.DT_INT32: (np.int32, "int_val"),
    types_pb2.DT_UINT8: (np.uint8, "int_val"),
    types_pb2.DT_UINT16: (np.uint16, "int_val"),
    types_pb2.DT_INT64: (np.int64, "int64_val"),
    types_pb2.DT_UINT32: (np.uint32, "uint32_val"),
    types_pb2.DT_UINT64: (np.uint64, "uint64_val"),
    types_pb2.DT_BOOL: (np.bool_, "bool_val"),
}


def tensor_scalar(tensor) -> float | None:
    """The value of a one-element numeric TensorProto (TF2 / torch new-style scalars), else None."""
    spec = _TENSOR_DTYPES.get(tensor.dtype)
    if spec is None:
        return None
    size = 1
    for dim in tensor.tensor_shape.dim:
        size *= dim.size
    if size != 1:
        return None
    np_dtype, field = spec
    if tensor.tensor_content:
        if np_dtype is None:  # bfloat16: the high half of a float32
            raw = np.frombuffer(tensor.tensor_content, dtype=np.uint16)
            return float((raw.astype(np.uint32) << 16).view(np.float32)[0]) if raw.size == 1 else None
        arr = np.frombuffer(tensor.tensor_content, dtype=np_dtype)
        return float(arr[0]) if arr.size == 1 else None
    vals = getattr(tensor, field)
    if not vals:
        return None
    raw = vals[0]
    if tensor.dtype == types_pb2.DT_HALF:
        return float(np.array([raw], dtype=np.uint16).view(np.float16)[0])
    if tensor.dtype == types_pb2.DT_BFLOAT16:
        return float(np.array([raw << 16], dtype=np.uint32).view(np.float32)[0])
    return float(raw)


def _subfolder_tagger(sub: str):
    """Tag names for event files in a subfolder of the run (add_scalars / add_hparams write those).

    add_scalars("a/b", {"x": ..}) writes tag "a/b" into subfolder "a_b_x" (torch) or "a/b/x"
    (tensorboardX): both become "a/b/x". Anything else is prefixed with the subfolder path, so two
    subfolders never collide.
    """
    if sub == ".":
        return lambda tag: tag

    def tagger(tag: str) -> str:
        flat = tag.replace("/", "_") + "_"
        if "/" not in sub and sub.startswith(flat) and len(sub) > len(flat):
            return f"{tag}/{sub[len(flat):]}"
        if sub.startswith(tag + "/") and len(sub) > len(tag) + 1:
            return sub
        return f"{sub}/{tag}"

    return tagger


def read_tensorboard(source: RunSource, logdir: str | None = None) -> RawRun:
    """Read every scalar point (simple_value and one-element numeric tensors) of a TensorBoard run."""
    raw = RawRun(source)
    params = os.path.join(source.path, PARAMS_FILE)
    if os.path.isfile(params):
        # a Ray Tune trial folder read through its TBXLoggerCallback events (ray/tune/logger/tensorboardx.py
        # writes them into the trial folder, beside JsonLoggerCallback's params.json): the trial's env
        raw.env_hint = env_from_params(raw, source, params)
    else:
        raw.env_hint = dreamer_task(source.path)  # DreamerV3 before 2024 wrote its TensorBoard files into its logdir
    for path in source.files:
        raw.restart()  # a later file rewriting a tag's step is a restart; repeats within a file are not
        sub = PurePosixPath(os.path.relpath(os.path.dirname(path), source.path)).as_posix()
        _read_event_file(raw, path, _subfolder_tagger(sub), _display(path, source))
    return raw


def _display(path: str, source: RunSource) -> str:
    rel = os.path.relpath(path, source.path)
    return f"{source.name}/{PurePosixPath(rel).as_posix()}" if source.name != "." else PurePosixPath(rel).as_posix()


COMPILED_FROM = 256 << 10  # bytes: below this, loading the compiled kernels costs more than it saves
_CAPACITY = 1 << 18  # records per compiled pass: bounds the per-pass arrays (~15 MB)


def _read_event_file(raw: RawRun, path: str, tagger, shown: str) -> None:
    try:
        with mapped(path) as (data, release):
            report = FramingReport()
            undecodable: list[int] = []
            kernels = _kernels(len(data))
            if kernels is not None:
                _read_compiled(raw, data, release, kernels, tagger, report, undecodable)
            else:
                _read_numpy(raw, data, tagger, report, undecodable)
            _report(raw, shown, len(data), report, undecodable)
    except OSError as err:
        raw.issues.append(unreadable(shown, err))


def _kernels(size: int):
    """The compiled kernels for a file of `size` bytes: for big files, or for any file once they
    are loaded in this process (e.g. in a sweep's worker); None without them (CURRIWATCH_NO_JIT)."""
    if COMPILED_FROM >= 1 << 62 or (size < COMPILED_FROM and not native.loaded()):
        return None
    return native.kernels()


_TAG_TABLE = 1 << 16  # distinct tags a file can intern in the compiled pass; more go to protobuf


def _read_compiled(raw: RawRun, data, release, kernels, tagger, report: FramingReport,
                   undecodable: list[int]) -> None:
    es = event_scan
    buf = np.frombuffer(data, np.uint8)
    cap = min(_CAPACITY, len(buf) // 16 + 1)
    cols = {"record": np.int64, "kind": np.uint8, "wall": np.uint64, "step": np.uint64,
            "value": np.uint32, "tag_slot": np.int64}
    out = {name: np.empty(cap, dtype) for name, dtype in cols.items()}
    size = min(_TAG_TABLE, 1 << (len(buf) // 16).bit_length())  # a record takes >= 16 bytes
    table = np.zeros(max(size, 64), np.int64)
    slots = np.zeros((len(table) // 2 + 1, 3), np.int64)  # row 0: counts; then (start, end, hash)
    arena = np.empty(min(4 << 20, len(buf)), np.uint8)  # the tags' bytes
    slot_code = np.zeros(len(table) // 2, np.int64)
    coded = 0
    state: dict = {"classify": kernels.classify}
    ret = np.zeros(2, np.int64)
    pos = 0
    while pos < len(buf):
        count = kernels.scan(buf, pos, pos + RELEASE_EVERY, es.CRC_TABLE, table, slots, arena, *out.values(), ret)
        pos, stop = int(ret[0]), int(ret[1])
        got = {name: arr[:count] for name, arr in out.items()}
        kind, record = got["kind"], got["record"]
        report.bad_payload_crc.extend(record[kind == es.BAD_CRC].tolist())
        for slot in range(coded, int(slots[0, 0])):  # tags met for the first time, in file order
            a, b = int(slots[slot + 1, 0]), int(slots[slot + 1, 1])
            try:
                slot_code[slot] = raw.code_for(tagger(arena[a:b].tobytes().decode("utf-8")))
            except UnicodeDecodeError:
                slot_code[slot] = -1
        coded = int(slots[0, 0])
        fast = np.flatnonzero(kind == es.SCALAR)
        codes = slot_code[got["tag_slot"][fast]]
        if (codes < 0).any():  # tags that are not UTF-8: let protobuf judge those records
            kind[fast[codes < 0]] = es.PROTOBUF
            fast, codes = fast[codes >= 0], codes[codes >= 0]
        slow_idx = np.flatnonzero(kind == es.PROTOBUF)
        starts = record + 12
        ends = starts.copy()
        ends[slow_idx] += read_le(buf, record[slow_idx], "<u8").astype(np.int64)
        slow = _decode_slow(raw, data, starts, ends, slow_idx, tagger, undecodable, state)
        _append(raw, fast, codes, got["step"][fast].view(np.int64),
                got["value"][fast].view(np.float32).astype(np.float64), got["wall"][fast].view(np.float64), slow)
        if stop:
            report.stop_offset, report.stop_reason = pos, "incomplete_tail" if stop == es.TAIL else "corrupt_record"
            break
        release(pos)


def _read_numpy(raw: RawRun, data, tagger, report: FramingReport, undecodable: list[int]) -> None:
    """The path without numba: Python framing with numpy decoding of the common layout."""
    starts, ends = frame_records(data, report)
    buf = np.frombuffer(data, np.uint8) if len(data) else np.zeros(0, np.uint8)
    fast, wall, step, value, tag_start, tag_end = decode_simple_scalars(buf, starts, ends)

    fast_idx = np.flatnonzero(fast)
    codes: dict[bytes, int] = {}  # raw tag bytes -> run tag code (-1: not UTF-8)
    fast_codes = np.empty(len(fast_idx), np.int64)
    for lo in range(0, len(fast_idx), CHUNK):  # in chunks: a bytes object per record is costly
        sel = fast_idx[lo : lo + CHUNK]
        keys = [data[a:b] for a, b in zip(tag_start[sel].tolist(), tag_end[sel].tolist())]
        for key in dict.fromkeys(keys):  # first-seen order, so tag codes are deterministic
            if key not in codes:
                try:
                    codes[key] = raw.code_for(tagger(key.decode("utf-8")))
                except UnicodeDecodeError:
                    codes[key] = -1
        fast_codes[lo : lo + len(sel)] = np.fromiter((codes[k] for k in keys), np.int64, len(keys))
    if (fast_codes < 0).any():  # tags that are not UTF-8: let protobuf judge those records
        fast[fast_idx[fast_codes < 0]] = False
        keep = fast_codes >= 0
        fast_idx, fast_codes = fast_idx[keep], fast_codes[keep]
    slow = _decode_slow(raw, data, starts, ends, np.flatnonzero(~fast), tagger, undecodable, {})
    _append(raw, fast_idx, fast_codes, step[fast_idx], value[fast_idx], wall[fast_idx], slow)


def _append(raw: RawRun, fast_idx, fast_codes, step, value, wall, slow: dict) -> None:
    """Fast and protobuf-decoded points merged back into file order: the last write must win later.

    A `SessionLog.START` record (TensorBoard's restart marker, written by `SummaryWriter(purge_step=)`)
    makes the points after it a later stretch, as TensorBoard's own reader does."""
    cols = [(raw.tag_code, fast_codes, slow["code"]), (raw.step, step, slow["step"]),
            (raw.value, value, slow["value"]), (raw.wall_time, wall, slow["wall"])]
    order = None
    if len(slow["record"]):
        order = np.argsort(np.concatenate([fast_idx, slow["record"]]), kind="stable")
    if slow["start"]:
        records = np.sort(np.concatenate([fast_idx, slow["record"]]))
        base = len(raw.value)
        for at in np.searchsorted(records, slow["start"]).tolist():
            if base + at and (not raw.restarts or raw.restarts[-1] != base + at):
                raw.restarts.append(base + at)
    for target, fast, slow_col in cols:
        merged = np.concatenate([fast, slow_col])[order] if order is not None else fast
        target.frombytes(np.ascontiguousarray(merged, dtype=f"{target.typecode == 'd' and 'f' or 'i'}"
                                              f"{target.itemsize}").tobytes())


def _decode_slow(raw: RawRun, data, starts, ends, records, tagger, undecodable: list[int], state: dict) -> dict:
    """Protobuf decoding of the records the fast path did not take (tensors, metadata, others).

    Records of 1 KiB or more are first walked without decoding (`event_scan.classify`): images,
    histograms and audio are skipped at the cost of their few field headers, not their bytes.
    """
    parse = Event.FromString
    out = {"record": [], "code": [], "step": [], "value": [], "wall": []}
    starts_at: list[int] = []  # records holding a SessionLog.START
    codes: dict[str, int] = state.setdefault("codes", {})
    plugin: dict[str, str] = state.setdefault("plugin", {})  # tag -> plugin name from its first metadata
    classify = state.get("classify", event_scan.classify)  # compiled when the kernels are loaded
    buf = None
    for i in records.tolist():
        a, b = int(starts[i]), int(ends[i])
        if b - a >= 1024:
            if buf is None:
                buf = np.frombuffer(data, np.uint8)
            if classify(buf, a, b) == event_scan.NO_SCALAR:
                continue
        try:
            event = parse(data[a:b])
        except DecodeError:
            undecodable.append(a - 12)
            continue
        if not event.HasField("summary"):
            if event.HasField("session_log") and event.session_log.status == SessionLog.START:
                starts_at.append(i)
            continue
        for v in event.summary.value:
            kind = v.WhichOneof("value")
            tag = v.tag
            if kind == "simple_value":
                val = v.simple_value
            elif kind == "tensor":
                if v.HasField("metadata") and tag not in plugin:
                    plugin[tag] = v.metadata.plugin_data.plugin_name
                if plugin.get(tag, "scalars") not in ("scalars", ""):
                    continue
                val = tensor_scalar(v.tensor)
                if val is None:
                    continue
            else:
                continue
            code = codes.get(tag)
            if code is None:
                code = codes[tag] = raw.code_for(tagger(tag))
            out["record"].append(i)
            out["code"].append(code)
            out["step"].append(event.step)
            out["value"].append(val)
            out["wall"].append(event.wall_time)
    return {
        "record": np.array(out["record"], np.int64), "code": np.array(out["code"], np.int64),
        "step": np.array(out["step"], np.int64), "value": np.array(out["value"], np.float64),
        "wall": np.array(out["wall"], np.float64), "start": starts_at,
    }


def _report(raw: RawRun, shown: str, size: int, report: FramingReport, undecodable: list[int]) -> None:
    if report.bad_payload_crc:
        first = report.bad_payload_crc[0]
        raw.issues.append(DataIssue(
            "bad_crc", shown,
            f"{len(report.bad_payload_crc)} record(s) failed their CRC check and were skipped "
            f"(first at byte {first})"))
    if undecodable:
        raw.issues.append(undecodable_issue(shown, undecodable))
    if report.stop_offset is not None:
        if report.stop_reason == "incomplete_tail":
            raw.issues.append(incomplete_tail_issue(shown, report.stop_offset, size))
        else:
            raw.issues.append(DataIssue(
                "corrupt_record", shown,
                f"record header at byte {report.stop_offset} of {size} failed its CRC check; the remaining "
                f"{size - report.stop_offset} byte(s) cannot be framed and were not read"))
