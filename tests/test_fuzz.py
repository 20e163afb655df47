"""Fuzzed readers: real event files and real `.wandb` files, damaged by hypothesis.

For every case: no exception escapes, each case ends quickly, every record before the first damaged
byte is returned exactly (and in order), and every data issue names the file and a byte offset; a
TensorBoard file whose bytes changed always yields a data issue (every byte is under a CRC), and
nothing is lost silently from a `.wandb` file. Examples per test: CURRIWATCH_FUZZ_EXAMPLES (default
120, derandomised so CI is repeatable; set CURRIWATCH_FUZZ_SEED for a random run).
"""
from __future__ import annotations

import os
import re
import struct
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from curriwatch.model import RunSource
from curriwatch.readers.leveldb_log import LogReport, iter_log_records
from curriwatch.readers import native, tensorboard, wandb_offline
from curriwatch.readers.tensorboard import read_tensorboard
from curriwatch.readers.tfrecord import masked_crc32c
from curriwatch.readers.wandb_offline import _record_class, read_wandb_offline
from writers import event_file, write_tb, write_wandb

EXAMPLES = int(os.environ.get("CURRIWATCH_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize="CURRIWATCH_FUZZ_SEED" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CASE_SECONDS = 5.0


@pytest.fixture(scope="module")
def tb_original(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tbfuzz")
    write_tb(folder / "run", {f"train/env{k}/reward": [(s, s * 0.01 + k) for s in range(25)] for k in range(3)})
    data = event_file(folder / "run").read_bytes()
    ends, pos = [], 0
    while pos < len(data):  # framing from the format itself: u64 length + 16 bytes
        pos += 16 + struct.unpack_from("<Q", data, pos)[0]
        ends.append(pos)
    points = _read_tb(data)[0]
    # points per record: record 0 is file_version, then one point a record in write order
    per_record = [[]] + [[p] for p in points]
    assert len(per_record) == len(ends)
    return data, ends, per_record


@pytest.fixture(scope="module")
def wandb_original(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wbfuzz")
    rows = [{f"train/env{k:02d}/reward": i * 0.01 + k for k in range(60)} for i in range(40)]
    path = write_wandb(folder, rows, steps=list(range(0, 400, 10)))
    data = path.read_bytes()
    assert len(data) > 2 * 32 * 1024  # several blocks, records split across them
    parse = _record_class().FromString
    records = []
    for offset, payload in iter_log_records(data, LogReport()):
        rec = parse(payload)
        pts = []
        if rec.HasField("history"):
            step = rec.history.step.num
            pts = [(".".join(i.nested_key), step, float(i.value_json)) for i in rec.history.item
                   if i.nested_key[0].startswith("train/")]
        records.append((offset, _record_end(data, offset), pts))
    return data, records


def _record_end(data: bytes, offset: int) -> int:
    """End of the record starting at `offset` (following its chunks across blocks)."""
    pos = offset
    while True:
        if 32768 - pos % 32768 < 7:
            pos += 32768 - pos % 32768
        _crc, length, kind = struct.unpack_from("<IHB", data, pos)
        pos += 7 + length
        if kind in (1, 4):
            return pos


def _read_tb(data: bytes, compiled: bool = False):
    """Read with the numpy path (the default for files this small) or the compiled one."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "events.out.tfevents.1.fuzz").write_bytes(data)
        src = RunSource("fuzz", "tensorboard", tmp, (str(Path(tmp) / "events.out.tfevents.1.fuzz"),))
        saved = tensorboard.COMPILED_FROM
        tensorboard.COMPILED_FROM = 0 if compiled else 1 << 62
        try:
            raw = read_tensorboard(src)
        finally:
            tensorboard.COMPILED_FROM = saved
        return raw.points(), raw.issues


def _read_wb(data: bytes, compiled: bool = False, everything: bool = False):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "run-fuzz.wandb").write_bytes(data)
        saved = wandb_offline.COMPILED_FROM
        wandb_offline.COMPILED_FROM = 0 if compiled else 1 << 62
        try:
            raw = read_wandb_offline(RunSource("fuzz", "wandb", tmp, (str(Path(tmp) / "run-fuzz.wandb"),)))
        finally:
            wandb_offline.COMPILED_FROM = saved
        if everything:
            return raw.points(), list(raw.row), raw.text_points, raw.issues
        return [p for p in raw.points() if p[0].startswith("train/")], raw.issues


@st.composite
def damage(draw, size: int, boundaries: list[int]):
    """(kind, damaged bytes function, first damaged offset)."""
    kind = draw(st.sampled_from(["truncate", "flip", "zero", "append", "huge_length"]))
    if kind == "truncate":
        at = draw(st.one_of(st.integers(0, size), st.sampled_from(boundaries),
                            st.sampled_from(boundaries).map(lambda b: max(0, b - 1))))
        return kind, lambda d: d[:at], at
    if kind == "flip":
        at, mask = draw(st.integers(0, size - 1)), draw(st.integers(1, 255))
        return kind, lambda d: d[:at] + bytes([d[at] ^ mask]) + d[at + 1:], at
    if kind == "zero":
        at = draw(st.integers(0, size - 1))
        n = draw(st.integers(1, 4096))
        return kind, lambda d: d[:at] + bytes(min(n, size - at)) + d[at + n:], at
    if kind == "append":
        junk = draw(st.binary(min_size=1, max_size=64))
        return kind, lambda d: d + junk, size
    at = draw(st.sampled_from(boundaries[:-1]))
    return kind, at, at


def _first_difference(a: bytes, b: bytes) -> int | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _read_and_check(read, original: bytes, damaged: bytes, records, name: str):
    """The properties every damaged file must keep: read in bounded time, every record ending
    before the first changed byte returned exactly and in order, every issue naming the file and a
    byte offset. `records` holds (end offset, points) per record of the original."""
    first = _first_difference(original, damaged)
    started = time.monotonic()
    points, issues = read(damaged)
    assert time.monotonic() - started < CASE_SECONDS
    intact = [p for end, pts in records if first is None or end <= first for p in pts]
    assert points[: len(intact)] == intact
    for issue in issues:
        assert issue.path.endswith(name), issue
        assert re.search(r"byte \d+", issue.detail), issue
    return points, issues, first


@FUZZ
@given(data=st.data())
def test_fuzzed_event_file(tb_original, data):
    original, ends, per_record = tb_original
    kind, mutate, at = data.draw(damage(len(original), [0] + ends))
    if kind == "huge_length":  # a length field claiming ~1 TB, with a valid header CRC
        header = struct.pack("<Q", 1 << 40)
        damaged = original[:at] + header + struct.pack("<I", masked_crc32c(header)) + original[at + 12:]
    else:
        damaged = mutate(original)
    _points, issues, first = _read_and_check(_read_tb, original, damaged, list(zip(ends, per_record)),
                                             "events.out.tfevents.1.fuzz")
    at_boundary = kind == "truncate" and (len(damaged) in ends or len(damaged) == 0)
    if first is not None and not at_boundary:
        assert issues, (kind, first)
    if native.kernels() is not None:  # the compiled scan keeps exactly the same promises
        assert _read_tb(damaged, compiled=True) == (_points, issues)


@FUZZ
@given(data=st.data())
def test_fuzzed_wandb_file(wandb_original, data):
    original, records = wandb_original
    boundaries = [7] + [end for _o, end, _p in records]
    kind, mutate, at = data.draw(damage(len(original), boundaries))
    if kind == "huge_length":  # the largest chunk length the u16 field can claim
        damaged = original[:at + 4] + b"\xff\xff" + original[at + 6:] if at + 7 <= len(original) else original
    else:
        damaged = mutate(original)
    points, issues, first = _read_and_check(_read_wb, original, damaged, [(end, pts) for _o, end, pts in records],
                                            "run-fuzz.wandb")
    if native.kernels() is not None:  # the compiled walk keeps exactly the same promises
        assert _read_wb(damaged, compiled=True, everything=True) == _read_wb(damaged, everything=True)
    all_points = [p for _o, _e, pts in records for p in pts]
    at_boundary = kind == "truncate" and len(damaged) in boundaries
    if len(points) < len(all_points) and not at_boundary:
        assert issues, (kind, first)
