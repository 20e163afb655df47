"""Discovery in messy logdirs, and the shape of the frame `load` returns."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import curriwatch
from curriwatch.discover import discover
from curriwatch.errors import InputError
from writers import write_tb, write_wandb


def test_junk_files_and_empty_folders_are_ignored(tmp_path):
    write_tb(tmp_path / "a" / "run1", {"train/x/reward": [(s, s / 10) for s in range(10)]})
    write_tb(tmp_path / "b", {"train/y/reward": [(s, 1.0) for s in range(3)]})
    write_wandb(tmp_path / "c" / "wandb", [{"train/z/reward": 0.5}])
    (tmp_path / "empty" / "deeper").mkdir(parents=True)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "a" / "run1" / "checkpoint.pt").write_bytes(os.urandom(256))
    (tmp_path / "a" / "events.json").write_text("{}")
    (tmp_path / "c" / "wandb" / "debug.log").write_text("log")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)  # a symlink loop
    runs, issues = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [
        ("a/run1", "tensorboard"), ("b", "tensorboard"),
        ("c/wandb/offline-run-20260101_000000-testrun", "wandb"),
    ]
    assert issues == []
    ingest = curriwatch.load(tmp_path)
    assert set(ingest.frame.env_id) == {"x", "y", "z"}
    assert len(ingest.frame) == 10 + 3 + 1


def test_frame_shape_types_and_order(tmp_path):
    write_tb(tmp_path / "r2", {"train/b/reward": [(s, -s) for s in (5, 1, 3)], "eval/a/reward": [(2, 0.5)]})
    write_tb(tmp_path / "r1", {"train/z/reward": [(1, 1.0)], "curriculum/z/state": [(0, 1)]})
    frame = curriwatch.load(tmp_path).frame
    assert list(frame.columns) == ["run", "env_id", "split", "metric", "step", "value", "wall_time", "count"]
    for column in ("run", "env_id", "split", "metric"):
        assert isinstance(frame[column].dtype, pd.CategoricalDtype)
    assert frame.step.dtype == np.int64 and frame.value.dtype == np.float64 and frame.wall_time.dtype == np.float64
    assert frame["count"].dtype == np.float64 and frame["count"].isna().all()  # no count metric logged
    keys = list(zip(frame.run.astype(str), frame.env_id.astype(str), frame.split.astype(str),
                    frame.metric.astype(str), frame.step))
    assert keys == sorted(keys)
    assert keys[0] == ("r1", "z", "state", "state", 0)
    assert frame[frame.env_id == "b"].value.tolist() == [-1.0, -3.0, -5.0]


def test_empty_logdir_and_no_runs_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no runs found"):
        curriwatch.load(tmp_path)
    (tmp_path / "x.txt").write_text("junk")
    with pytest.raises(InputError, match="no runs found"):
        curriwatch.load(tmp_path)
    with pytest.raises(InputError, match="logdir not found"):
        curriwatch.load(tmp_path / "missing")
    with pytest.raises(InputError, match="is a file, not a folder"):
        curriwatch.load(tmp_path / "x.txt")


def test_one_corrupt_file_among_good_ones_is_a_data_issue(tmp_path):
    write_tb(tmp_path / "good", {"train/a/reward": [(s, 1.0) for s in range(5)]})
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "events.out.tfevents.123.host").write_bytes(b"\x07" * 40)
    ingest = curriwatch.load(tmp_path)
    assert len(ingest.frame) == 5
    (issue,) = ingest.run("bad").issues
    assert issue.kind == "corrupt_record" and issue.path == "bad/events.out.tfevents.123.host"


def test_only_corrupt_files_is_an_input_error_naming_the_file(tmp_path):
    (tmp_path / "events.out.tfevents.123.host").write_bytes(b"\x07" * 40)
    with pytest.raises(InputError, match="events.out.tfevents.123.host"):
        curriwatch.load(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_file_is_a_data_issue(tmp_path):
    write_tb(tmp_path / "good", {"train/a/reward": [(1, 1.0)]})
    write_tb(tmp_path / "locked", {"train/b/reward": [(1, 1.0)]})
    for f in (tmp_path / "locked").iterdir():
        f.chmod(0)
    ingest = curriwatch.load(tmp_path)
    assert [i.kind for i in ingest.run("locked").issues] == ["unreadable_file"]


def test_non_finite_values_stay_in_the_frame_and_are_reported(tmp_path):
    write_tb(tmp_path / "r", {"train/a/reward": [(1, 0.5), (2, float("nan")), (3, float("inf"))]})
    ingest = curriwatch.load(tmp_path)
    assert len(ingest.frame) == 3
    (issue,) = [i for i in ingest.run("r").issues if i.kind == "non_finite_values"]
    assert issue.detail.startswith("2 point(s)")


def test_dangling_link_and_fifo_named_like_event_files_are_data_issues(tmp_path):
    write_tb(tmp_path / "run", {"train/a/reward": [(s, 1.0) for s in range(4)]})
    (tmp_path / "run" / "events.out.tfevents.2.gone").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tmp_path / "run" / "events.out.tfevents.3.fifo")
    ingest = curriwatch.load(tmp_path)  # must not hang on the FIFO
    assert len(ingest.frame) == 4
    kinds = sorted((i.kind, i.path) for i in ingest.run("run").issues)
    assert kinds == [("unreadable_file", "run/events.out.tfevents.2.gone"),
                     ("unreadable_file", "run/events.out.tfevents.3.fifo")]
