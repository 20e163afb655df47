"""Remote logdirs through fsspec: a `memory://` filesystem populated by the test (fsspec's own
in-memory backend, not a mock), read in place with the same runs and damage reports as on disk."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

import curriwatch
from curriwatch.errors import InputError
from writers import write_roll_stdout, write_tb, write_tune_trial

fsspec = pytest.importorskip("fsspec")


def _upload(local: Path, url: str) -> None:
    fs, root = fsspec.core.url_to_fs(url)
    for path in sorted(local.rglob("*")):
        if path.is_file():
            fs.pipe_file(f"{root}/{path.relative_to(local).as_posix()}", path.read_bytes())


@pytest.fixture
def local_logs(tmp_path):
    logs = tmp_path / "logs"
    write_tb(logs / "tb_run", {f"train/env{k}/reward": [(s, s / 100 + k) for s in range(0, 200, 10)] for k in range(2)})
    write_tune_trial(logs / "tune" / "trial_0", [
        {"training_iteration": i + 1, "timesteps_total": 100 * (i + 1), "env_runners": {"episode_return_mean": i / 2}}
        for i in range(8)], {"env": "Pong"})
    write_roll_stdout(logs / "roll" / "log_rank_DRIVER_0_1.log", [(s, {"env/Maze/success": s / 5}) for s in range(5)])
    return logs


def _frame_rows(ingest):
    f = ingest.frame
    return sorted(zip(f.run.astype(str), f.env_id.astype(str), f.split.astype(str), f.metric.astype(str),
                      f.step.tolist(), f.value.tolist()))


def test_memory_url_reads_like_the_local_folder(local_logs):
    url = f"memory://cw-{uuid.uuid4().hex}/logs"
    _upload(local_logs, url)
    remote, local = curriwatch.load(url), curriwatch.load(local_logs)
    assert [r.name for r in remote.runs] == [r.name for r in local.runs] == [
        "roll/log_rank_DRIVER_0_1.log", "tb_run", "tune/trial_0"]
    assert _frame_rows(remote) == _frame_rows(local) and len(remote.frame) > 50


def test_remote_damage_is_reported_with_file_and_line(local_logs):
    result = local_logs / "tune" / "trial_0" / "result.json"
    result.write_bytes(result.read_bytes()[:-20])  # the last result cut mid-line
    url = f"memory://cw-{uuid.uuid4().hex}/logs"
    _upload(local_logs, url)
    info = curriwatch.load(url).run("tune/trial_0")
    (tail,) = [i for i in info.issues if i.kind == "incomplete_tail"]
    assert tail.path == "tune/trial_0/result.json"


def test_missing_remote_logdir_is_one_clear_error():
    with pytest.raises(InputError, match="logdir not found"):
        curriwatch.load(f"memory://cw-{uuid.uuid4().hex}/nothing")
    with pytest.raises(InputError, match="no filesystem|needs"):
        curriwatch.load("nosuchproto://bucket/logs")
