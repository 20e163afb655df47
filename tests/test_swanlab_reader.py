"""SwanLab offline runs written by swanlab itself; swanlab's own DataStoreReader is the oracle."""
from __future__ import annotations

import math

import pytest

import curriwatch
from curriwatch.discover import discover
from curriwatch.readers import read_run
from writers import SWANLAB_REPEATS, write_swanlab

pytest.importorskip("swanlab")


@pytest.fixture(scope="module")
def swanlab_run(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("sw") / "swanlog"
    logdir.mkdir()
    return logdir, write_swanlab(logdir, 1500)  # > 32 KiB: records cross blocks


def _oracle(path):
    from swanlab.proto.swanlab.record.v1.record_pb2 import Record
    from swanlab.sdk.internal.core_python.store import DataStoreReader

    reader = DataStoreReader()
    reader.open(path)
    out = []
    for payload in reader:
        rec = Record.FromString(payload)
        if rec.HasField("scalar"):
            out.append((rec.scalar.key, rec.scalar.step, rec.scalar.value.number))
    reader.close()
    return out


def _same(a, b):
    return len(a) == len(b) and all(
        x[:2] == y[:2] and (x[2] == y[2] or (math.isnan(x[2]) and math.isnan(y[2]))) for x, y in zip(a, b))


def test_reader_matches_swanlab_own_reader(swanlab_run):
    logdir, path = swanlab_run
    assert path.stat().st_size > 3 * 32 * 1024
    (source,) = discover(logdir)[0]
    assert source.source == "swanlab"
    raw = read_run(source)
    expected = _oracle(path)
    assert len(expected) == 4500 and _same(raw.points(), expected)
    assert raw.issues == []


def test_generic_profile_and_frame(swanlab_run):
    logdir, _path = swanlab_run
    ingest = curriwatch.load(logdir)
    (info,) = ingest.runs
    assert info.profile == "generic" and info.envs == ["maze"]
    state = ingest.frame[ingest.frame.split == "state"]
    assert sorted(set(state.value)) == [1.0, 2.0]


@pytest.mark.parametrize("cut", [7, 100, 40000, -3])
def test_truncated_copy(swanlab_run, tmp_path, cut):
    _logdir, path = swanlab_run
    data = path.read_bytes()
    run = tmp_path / "run-x"
    run.mkdir()
    (run / "run-x.swanlab").write_bytes(data[:cut])
    raw = read_run(discover(tmp_path)[0][0])
    expected = _oracle(path)
    got = raw.points()
    assert _same(got, expected[:len(got)])  # the last record cut may be a run-finish record
    assert len(got) < len(expected) or cut < 0
    assert [i.kind for i in raw.issues] == ([] if cut == 7 else ["incomplete_tail"])


def test_damaged_and_foreign_files(swanlab_run, tmp_path):
    _logdir, path = swanlab_run
    data = bytearray(path.read_bytes())
    data[5000] ^= 0xFF  # inside the first block: that block's records after it are lost
    (tmp_path / "run-a").mkdir()
    (tmp_path / "run-a" / "run-a.swanlab").write_bytes(bytes(data))
    (tmp_path / "run-b").mkdir()
    (tmp_path / "run-b" / "run-b.swanlab").write_bytes(b":W&B\xe1\xbe\x00" + bytes(100))
    runs, _ = discover(tmp_path)
    damaged, foreign = (read_run(r) for r in runs)
    assert {i.kind for i in damaged.issues} == {"corrupt_record"}
    got, expected = damaged.points(), _oracle(path)
    assert 0 < len(got) < len(expected) and _same(got[-100:], expected[-100:])
    assert [i.kind for i in foreign.issues] == ["unreadable_file"] and "bad magic" in foreign.issues[0].detail


def test_repeated_and_older_steps_are_refused_by_swanlab_itself(tmp_path):
    # swanlab keeps a key's first value of a step and drops older steps (core_python/core.py:276-283,
    # try_accept_step): what it wrote is what the frame holds, with no duplicate issue
    logdir = tmp_path / "swanlog"
    logdir.mkdir()
    path = write_swanlab(logdir, 0, SWANLAB_REPEATS)
    assert _oracle(str(path)) == [("train/maze/success", 1, 0.125), ("train/maze/success", 2, 0.5),
                                  ("train/maze/success", 3, 0.875)]
    ingest = curriwatch.load(logdir)
    frame = ingest.frame
    assert list(zip(frame.step, frame.value)) == [(1, 0.125), (2, 0.5), (3, 0.875)]
    assert not [i for i in ingest.runs[0].issues if i.kind == "duplicate_points"]
