"""The native TensorBoard reader against formula values and against tbparse, on real writer output."""
from __future__ import annotations

import math
import os
import re
import shutil
import struct

import pytest

from curriwatch.discover import discover
from curriwatch.readers import read_run
from curriwatch.readers.tensorboard import read_tensorboard
from curriwatch.readers.tfrecord import FramingReport, frame_records
from writers import event_file, torch_fixture, write_tb


@pytest.fixture(autouse=True, params=["numpy", "compiled"])
def scan_path(request, monkeypatch):
    """Every test here runs on both scan paths: numpy (small files, no numba) and compiled (numba)."""
    from curriwatch.readers import native, tensorboard

    if request.param == "compiled":
        if native.kernels() is None:
            pytest.skip("numba is not installed: only the numpy path exists here")
        monkeypatch.setattr(tensorboard, "COMPILED_FROM", 0)
    else:
        monkeypatch.setattr(tensorboard, "COMPILED_FROM", 1 << 62)
    return request.param


def formula_series(n_tags=3, n_steps=40):
    return {f"train/env{k}/reward": [(s * 5, math.sin(s / 7 + k) * (k + 1)) for s in range(n_steps)]
            for k in range(n_tags)}


def only_run(logdir):
    runs, issues = discover(logdir)
    assert issues == []
    assert len(runs) == 1
    return runs[0]


def as_float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@pytest.mark.parametrize("writer", ["tensorboardX", "torch", "torch-tensor"])
def test_reads_every_point_of_each_writer(tmp_path, writer):
    if writer == "tensorboardX":
        series = formula_series()
        write_tb(tmp_path / "run", series)
    else:  # files torch's SummaryWriter wrote, committed with their script
        series = formula_series() if writer == "torch" else formula_series(5, 200)
        torch_fixture("simple_value" if writer == "torch" else "tensor", tmp_path)
    raw = read_tensorboard(only_run(tmp_path))
    expected = sorted((tag, step, as_float32(v)) for tag, pts in series.items() for step, v in pts)
    assert sorted(raw.points()) == expected
    assert raw.issues == []
    assert all(w == 1_700_000_000.0 + s for w, s in zip(raw.wall_time, raw.step))


@pytest.mark.parametrize("writer", ["tensorboardX", "torch-tensor"])
def test_same_points_as_tbparse(tmp_path, writer):
    pytest.importorskip("tbparse")
    if writer == "tensorboardX":
        write_tb(tmp_path / "run", formula_series(n_tags=5, n_steps=200))
    else:
        torch_fixture("tensor", tmp_path)
    run = only_run(tmp_path)
    ours = read_run(run, "native")
    oracle = read_run(run, "tbparse")
    assert len(ours) == 1000
    assert sorted(ours.points()) == sorted(oracle.points())


def record_ends(data: bytes) -> list[int]:
    """Byte offset where each record ends, framed independently of the reader (u64 length + 16)."""
    ends, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        pos += 12 + length + 4
        ends.append(pos)
    assert pos == len(data)
    return ends


def test_truncation_at_many_cut_points_keeps_exactly_the_complete_records(tmp_path):
    write_tb(tmp_path / "full", {"train/a/reward": [(s, s / 10) for s in range(60)]})
    data = event_file(tmp_path / "full").read_bytes()
    ends = record_ends(data)
    # the first record is file_version (no scalar); every later record holds one point, step = index
    cuts = sorted(set(range(0, len(data), 7)) | set(ends) | {e - 1 for e in ends} | {e + 1 for e in ends})
    for cut in cuts:
        if cut > len(data):
            continue
        folder = tmp_path / f"cut{cut}"
        folder.mkdir()
        (folder / "events.out.tfevents.1.host").write_bytes(data[:cut])
        raw = read_tensorboard(only_run(folder))
        complete = sum(1 for e in ends if e <= cut)
        n_points = max(complete - 1, 0)
        assert [s for s in raw.step] == list(range(n_points)), cut
        tail = [i for i in raw.issues if i.kind == "incomplete_tail"]
        assert len(tail) == (0 if cut in ends or cut == 0 else 1), (cut, raw.issues)
        if tail:
            assert f"byte {max([e for e in ends if e <= cut], default=0)} of {cut}" in tail[0].detail
        shutil.rmtree(folder)


def test_truncated_file_matches_tbparse(tmp_path):
    write_tb(tmp_path / "full", formula_series(n_tags=2, n_steps=50))
    data = event_file(tmp_path / "full").read_bytes()
    for cut in (len(data) // 3, len(data) // 2 + 5, len(data) - 3):
        folder = tmp_path / f"cut{cut}"
        folder.mkdir()
        (folder / "events.out.tfevents.1.host").write_bytes(data[:cut])
        run = only_run(folder)
        assert sorted(read_run(run).points()) == sorted(read_run(run, "tbparse").points())


def test_bad_payload_crc_skips_that_record_only(tmp_path):
    write_tb(tmp_path / "full", {"train/a/reward": [(s, float(s)) for s in range(10)]})
    data = bytearray(event_file(tmp_path / "full").read_bytes())
    ends = record_ends(bytes(data))
    victim_start = ends[3]  # record 4 = the point of step 3
    data[victim_start + 14] ^= 0xFF  # a byte inside its payload
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "events.out.tfevents.1.host").write_bytes(bytes(data))
    raw = read_tensorboard(only_run(folder))
    assert list(raw.step) == [0, 1, 2, 4, 5, 6, 7, 8, 9]
    (issue,) = raw.issues
    assert issue.kind == "bad_crc" and f"first at byte {victim_start}" in issue.detail
    assert issue.path.endswith("events.out.tfevents.1.host")


def test_bad_length_crc_stops_and_keeps_everything_before(tmp_path):
    write_tb(tmp_path / "full", {"train/a/reward": [(s, float(s)) for s in range(10)]})
    data = bytearray(event_file(tmp_path / "full").read_bytes())
    ends = record_ends(bytes(data))
    data[ends[5] + 2] ^= 0x01  # inside the length field of record 6 (step 5)
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "events.out.tfevents.1.host").write_bytes(bytes(data))
    raw = read_tensorboard(only_run(folder))
    assert list(raw.step) == [0, 1, 2, 3, 4]
    (issue,) = raw.issues
    assert issue.kind == "corrupt_record" and f"byte {ends[5]}" in issue.detail


def test_length_claiming_gigabytes_is_an_incomplete_tail_not_an_allocation(tmp_path):
    write_tb(tmp_path / "full", {"train/a/reward": [(s, float(s)) for s in range(3)]})
    data = event_file(tmp_path / "full").read_bytes()
    from curriwatch.readers.tfrecord import masked_crc32c

    header = struct.pack("<Q", 1 << 40)
    forged = data + header + struct.pack("<I", masked_crc32c(header)) + b"\0" * 16
    report = FramingReport()
    starts, _ends = frame_records(forged, report)
    assert len(starts) == 4
    assert report.stop_reason == "incomplete_tail" and report.stop_offset == len(data)


def test_restart_writes_the_same_steps_again_and_last_write_wins(tmp_path):
    import curriwatch

    run = tmp_path / "run"
    write_tb(run, {"train/a/reward": [(s, 1.0) for s in range(10)]}, suffix=".first")
    # a resumed job writes a second file that repeats steps 5..9 with new values
    write_tb(run, {"train/a/reward": [(s, 2.0) for s in range(5, 15)]}, suffix=".second")
    ingest = curriwatch.load(tmp_path)
    values = dict(zip(ingest.frame["step"], ingest.frame["value"]))
    assert values == {**{s: 1.0 for s in range(5)}, **{s: 2.0 for s in range(5, 15)}}
    (dup,) = [i for i in ingest.run("run").issues if i.kind == "duplicate_points"]
    assert dup.detail.startswith("5 point(s)")


def _batches(folder, writes, *, suffix="", purge_step=None):
    """tensorboardX's SummaryWriter logging (step, tag, value) in this order: several values of one
    tag under one step are several add_scalar calls, as a trainer logging each batch does."""
    from tensorboardX import SummaryWriter

    w = SummaryWriter(str(folder), flush_secs=3600, filename_suffix=suffix, purge_step=purge_step)
    for i, (step, tag, value) in enumerate(writes):
        w.add_scalar(tag, value, step, walltime=1_700_000_000.0 + i)
    w.close()


def _series(ingest, env, metric, split="train"):
    f = ingest.frame
    rows = f[(f.env_id == env) & (f.split == split) & (f.metric == metric)]
    return list(zip(rows.step.tolist(), rows.value.tolist()))


@pytest.mark.parametrize("reader", ["native", "tbparse"])
def test_values_of_one_tag_at_one_step_in_one_file_are_observations_all_kept(tmp_path, reader):
    pytest.importorskip("tbparse")
    import curriwatch
    from tbparse import SummaryReader

    writes = [(s, "train/a/reward", v) for s in range(30) for v in (0.25, 0.5, 0.0 if s % 3 else 1.0)]
    writes += [(5, "curriculum/a/state", 1.0), (5, "curriculum/a/state", 2.0), (6, "curriculum/a/state", 2.0)]
    _batches(tmp_path / "run", writes)
    oracle = SummaryReader(str(tmp_path / "run")).scalars  # TensorBoard's own reading: every write kept
    assert len(oracle) == len(writes)
    run = only_run(tmp_path)
    assert sorted(read_run(run, reader).points()) == sorted(
        zip(oracle.tag, oracle.step.astype(int), oracle.value.astype(float)))

    ingest = curriwatch.load(tmp_path, reader=reader)
    info = ingest.run("run")
    means = oracle[oracle.tag == "train/a/reward"].groupby("step").value.mean()
    assert _series(ingest, "a", "reward") == [(int(s), pytest.approx(v)) for s, v in means.items()]
    assert _series(ingest, "a", "state", "state") == [(5, 2.0), (6, 2.0)]  # a state: the last write
    assert not [i for i in info.issues if i.kind == "duplicate_points"]
    assert info.observations_combined == 2 * 30 + 1
    assert info.points_read == len(writes)


@pytest.mark.parametrize("reader", ["native", "tbparse"])
def test_a_later_file_rewriting_steps_is_a_restart_and_its_batches_are_observations(tmp_path, reader):
    pytest.importorskip("tbparse")
    import curriwatch

    first = [(s, "train/a/reward", 0.25) for s in range(10)] + [(4, "train/a/reward", 0.75)]
    _batches(tmp_path / "run", first, suffix=".1")
    # resumed from its step-6 checkpoint: SummaryWriter(purge_step=6) starts the file with TensorBoard's
    # SessionLog.START (tensorboardX/writer.py:383-387); two batches per step from then on
    second = [(s, "train/a/reward", v) for s in range(6, 14) for v in (0.5, 1.0)]
    _batches(tmp_path / "run", second, suffix=".2", purge_step=6)
    ingest = curriwatch.load(tmp_path, reader=reader)
    expected = [(s, 0.5 if s == 4 else 0.25) for s in range(6)] + [(s, 0.75) for s in range(6, 14)]
    assert _series(ingest, "a", "reward") == expected
    info = ingest.run("run")
    (dup,) = [i for i in info.issues if i.kind == "duplicate_points"]
    assert dup.detail.startswith("4 point(s)")  # steps 6..9 of the first file
    assert info.observations_combined == 1 + 8


def test_a_later_file_going_back_between_earlier_steps_is_kept_and_reported(tmp_path):
    import curriwatch

    _batches(tmp_path / "run", [(s, "train/a/reward", 0.5) for s in range(0, 100, 10)], suffix=".1")
    # resumed from its step-55 checkpoint, evaluating at other steps than before: no step written again
    _batches(tmp_path / "run", [(s, "train/a/reward", 0.75) for s in range(55, 140, 10)], suffix=".2")
    ingest = curriwatch.load(tmp_path)
    expected = sorted([(s, 0.5) for s in range(0, 100, 10)] + [(s, 0.75) for s in range(55, 140, 10)])
    assert _series(ingest, "a", "reward") == expected
    info = ingest.run("run")
    assert not [i for i in info.issues if i.kind == "duplicate_points"]
    (note,) = [i for i in info.issues if i.kind == "interleaved_restart"]
    assert note.detail.startswith("4 point(s)")  # steps 60..90 of the first file


def test_session_log_start_inside_one_file_is_a_restart(tmp_path):
    pytest.importorskip("tbparse")
    import curriwatch
    from tensorboardX import FileWriter
    from tensorboardX.proto.event_pb2 import Event, SessionLog
    from tensorboardX.summary import scalar

    w = FileWriter(str(tmp_path / "run"))
    for s in range(10):
        w.add_summary(scalar("train/a/reward", 0.25), s, walltime=1_700_000_000.0 + s)
    # the event SummaryWriter(purge_step=6) writes (tensorboardX/writer.py:386-387), here mid-file
    w.add_event(Event(step=6, session_log=SessionLog(status=SessionLog.START)), walltime=1_700_000_100.0)
    for s in range(6, 12):
        for v in (0.5, 1.0):
            w.add_summary(scalar("train/a/reward", v), s, walltime=1_700_000_100.0 + s)
    w.close()
    expected = [(s, 0.25) for s in range(6)] + [(s, 0.75) for s in range(6, 12)]
    native = curriwatch.load(tmp_path)
    assert _series(native, "a", "reward") == expected
    (dup,) = [i for i in native.run("run").issues if i.kind == "duplicate_points"]
    assert dup.detail.startswith("4 point(s)")
    # TensorBoard (through tbparse) purges the four orphaned points itself: the same frame
    assert _series(curriwatch.load(tmp_path, reader="tbparse"), "a", "reward") == expected


def test_add_scalars_and_add_hparams_subfolders_belong_to_their_run(tmp_path):
    from tensorboardX import SummaryWriter

    w = SummaryWriter(str(tmp_path / "exp" / "run"))
    for step in range(5):
        w.add_scalar("train/a/reward", step / 10, step)
        w.add_scalars("train/b", {"reward": step / 5, "success": step / 4}, step)
    w.add_hparams({"lr": 0.1}, {"hparam/score": 1.0})
    w.close()
    runs, issues = discover(tmp_path)
    assert [r.name for r in runs] == ["exp/run"] and issues == []
    raw = read_tensorboard(runs[0])
    tags = set(raw.tags)
    assert {"train/a/reward", "train/b/reward", "train/b/success"} <= tags
    by_tag = {}
    for tag, step, value in raw.points():
        by_tag.setdefault(tag, []).append((step, value))
    assert by_tag["train/b/success"] == [(s, as_float32(s / 4)) for s in range(5)]


def test_torch_add_scalars_subfolders_get_the_same_tags(tmp_path):
    torch_fixture("add_scalars", tmp_path)
    raw = read_tensorboard(only_run(tmp_path))
    assert set(raw.tags) == {"train/b/reward", "train/b/success"}


def test_forged_terabyte_length_allocates_nothing_big(tmp_path):
    import tracemalloc

    from curriwatch.readers.tfrecord import masked_crc32c

    write_tb(tmp_path / "run", {"train/a/reward": [(s, float(s)) for s in range(200)]})
    path = event_file(tmp_path / "run")
    data = path.read_bytes()
    header = struct.pack("<Q", 1 << 40)
    path.write_bytes(data + header + struct.pack("<I", masked_crc32c(header)) + b"\0" * 64)
    tracemalloc.start()
    raw = read_tensorboard(only_run(tmp_path))
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(raw) == 200 and [i.kind for i in raw.issues] == ["incomplete_tail"]
    assert peak < 5_000_000  # a few MB at most, never the claimed terabyte


def test_tbparse_reader_turns_fifos_devices_and_dangling_links_into_issues(tmp_path):
    write_tb(tmp_path / "run", formula_series())
    run_dir = tmp_path / "run"
    os.mkfifo(run_dir / "events.out.tfevents.2.fifo")
    os.symlink("/dev/zero", run_dir / "events.out.tfevents.3.zero")
    os.symlink(tmp_path / "gone", run_dir / "events.out.tfevents.4.dangling")
    (run,), _ = discover(tmp_path)
    native, oracle = read_run(run), read_run(run, "tbparse")
    assert sorted(oracle.points()) == sorted(native.points()) and len(native) == 3 * 40
    unreadable = sorted(i.path for i in oracle.issues if i.kind == "unreadable_file")
    assert unreadable == sorted(i.path for i in native.issues if i.kind == "unreadable_file")
    assert len(unreadable) == 3


def test_tbparse_reader_reports_what_a_flipped_byte_costs_it(tmp_path):
    write_tb(tmp_path / "run", formula_series(n_tags=2, n_steps=100))
    path = event_file(tmp_path / "run")
    data = bytearray(path.read_bytes())
    starts, _ends = frame_records(bytes(data), FramingReport())
    at = int(starts[len(starts) // 2]) + 3  # inside a payload, half way through the file
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    run = only_run(tmp_path)
    native, oracle = read_run(run), read_run(run, "tbparse")
    assert len(native) == 199  # the native reader loses the one record
    assert set(oracle.points()) <= set(native.points())
    assert len(oracle) < len(native)  # tbparse stops at the damage ...
    assert [i.kind for i in oracle.issues if i.kind == "bad_crc"] == ["bad_crc"]  # ... not silently
    (note,) = [i for i in oracle.issues if "tbparse reader stops" in i.detail]
    assert int(re.search(r"byte (\d+)", note.detail).group(1)) == at - 15  # the record's start
