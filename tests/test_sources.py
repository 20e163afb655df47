"""Ray Tune, dcd and ROLL stdout sources: files written the frameworks' way, and damaged copies."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

import curriwatch
from curriwatch.discover import discover
from curriwatch.readers import read_run
from curriwatch.readers.lines import MAX_LINE, LineReport, iter_lines
from writers import DcdFileWriter, write_roll_stdout, write_tb, write_tune_trial


def _tune_results(n=6, with_eval=True):
    out = []
    for i in range(n):
        r = {"training_iteration": i + 1, "timesteps_total": 4000 * (i + 1), "timestamp": 1.7e9 + i,
             "done": i == n - 1, "env_runners": {"episode_return_mean": 10.0 * i, "episode_len_mean": 20.0}}
        if with_eval and i % 2:
            r["evaluation"] = {"env_runners": {"episode_return_mean": 12.0 * i}}
        out.append(r)
    return out


def _points(ingest, run, metric, split="train"):
    f = ingest.frame
    sel = f[(f.run == run) & (f.metric == metric) & (f.split == split)]
    return list(zip(sel.env_id.astype(str), sel.step, sel.value))


def _kinds(info):
    return {i.kind for i in info.issues}


def test_tune_trial_from_result_json(tmp_path):
    write_tune_trial(tmp_path / "exp" / "PPO_env_00000", _tune_results(), {"env": "CartPole-v1", "lr": 1e-3})
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.source, info.profile) == ("tune", "tune")
    assert _points(ingest, "exp/PPO_env_00000", "episode_return_mean") == [
        ("CartPole-v1", 4000 * (i + 1), 10.0 * i) for i in range(6)]
    assert _points(ingest, "exp/PPO_env_00000", "episode_return_mean", "eval") == [
        ("CartPole-v1", 4000 * (i + 1), 12.0 * i) for i in (1, 3, 5)]


def test_tune_env_from_folder_and_step_from_iteration(tmp_path):
    results = [{"training_iteration": i + 1, "custom_metrics": {"solved_mean": i / 10}} for i in range(3)]
    write_tune_trial(tmp_path / "train_fn_3f2a", results, {"lr": 0.1})
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "train_fn_3f2a", "solved_mean") == [("train_fn_3f2a", i + 1, i / 10) for i in range(3)]


def test_tune_progress_csv_alone(tmp_path):
    folder = write_tune_trial(tmp_path / "t", _tune_results(with_eval=False), {"env": "Pong"})
    os.remove(folder / "result.json")
    ingest = curriwatch.load(tmp_path)
    assert [v for _e, _s, v in _points(ingest, "t", "episode_return_mean")] == [10.0 * i for i in range(6)]


def test_tune_event_files_in_trial_folder_are_not_read_twice(tmp_path):
    folder = write_tune_trial(tmp_path / "t", _tune_results(), {"env": "Pong"})
    write_tb(folder, {"ray/tune/env_runners/episode_return_mean": [(4000, 1.0)]})
    runs, _ = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("t", "tune")]


def test_tune_trial_of_event_files_alone_takes_its_env_from_params_json(tmp_path):
    # a trial folder whose result.json / progress.csv were not kept (or never written: TBXLoggerCallback
    # alone): read as TensorBoard, its env still the trial's config env, not the folder's name
    folder = write_tune_trial(tmp_path / "PPO_Hopper-v4_8dec0_00000_0_lr=0.0003", _tune_results(), {"env": "Hopper-v4"})
    os.remove(folder / "result.json")
    os.remove(folder / "progress.csv")
    write_tb(folder, {"ray/tune/env_runners/episode_return_mean": [(4000 * (i + 1), 10.0 * i) for i in range(6)]})
    ingest = curriwatch.load(tmp_path)
    assert [(r.source, r.profile) for r in ingest.runs] == [("tensorboard", "tune")]
    assert _points(ingest, "PPO_Hopper-v4_8dec0_00000_0_lr=0.0003", "episode_return_mean") == [
        ("Hopper-v4", 4000 * (i + 1), 10.0 * i) for i in range(6)]


def test_tune_per_env_metrics(tmp_path):
    results = [{"training_iteration": i + 1, "timesteps_total": 10 * i,
                "env_runners": {"easy": {"episode_return_mean": 1.0 * i}, "hard": {"episode_return_mean": -1.0}}}
               for i in range(3)]
    write_tune_trial(tmp_path / "t", results, {})
    ingest = curriwatch.load(tmp_path)
    assert sorted(set(e for e, _s, _v in _points(ingest, "t", "episode_return_mean"))) == ["easy", "hard"]


def test_dcd_header_from_last_line_of_fields_csv(tmp_path):
    w = DcdFileWriter(tmp_path / "lr-20240101")
    for i in range(5):
        stats = {"steps": 256 * i, "mean_agent_return": float(i)}
        if i >= 2:  # test stats appear at the first test interval: new columns
            stats.update({"solved_rate:MultiGrid-Maze-v0": i / 10, "test_returns:MultiGrid-Maze-v0": float(i),
                          "solved_rate:MultiGrid-Labyrinth-v0": None})
        w.log(stats, 1.7e9 + i)
    w.close()
    first = (tmp_path / "lr-20240101" / "logs.csv").read_text().splitlines()[0]
    assert first == "# _tick,_time,steps,mean_agent_return"
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.source, info.profile) == ("dcd", "dcd")
    assert _points(ingest, "lr-20240101", "solved_rate", "eval") == [
        ("MultiGrid-Maze-v0", 256 * i, i / 10) for i in (2, 3, 4)]
    assert "MultiGrid-Labyrinth-v0" not in set(ingest.frame.env_id.astype(str))  # empty cells: not logged
    assert "corrupt_record" not in _kinds(info)


def test_dcd_without_fields_csv_reports_rows_it_cannot_name(tmp_path):
    w = DcdFileWriter(tmp_path / "xp")
    for i in range(4):
        w.log({"steps": i, **({"test_returns:Maze": 1.0} if i >= 2 else {})}, 1.7e9)
    w.close()
    os.remove(tmp_path / "xp" / "fields.csv")
    raw = read_run(discover(tmp_path)[0][0])
    assert {t for t in raw.tags} == {"_tick", "_time", "steps"}
    assert {i.kind for i in raw.issues} >= {"missing_file", "corrupt_record"}


def test_roll_stdout_log(tmp_path):
    rows = [(s, {"env/SimpleSokoban/success": s / 10, "val/env/SimpleSokoban/success": math.nan,
                 "system/tps": math.inf}) for s in range(4)]
    write_roll_stdout(tmp_path / "logs" / "log_rank_DRIVER_0_1.log", rows)
    (tmp_path / "logs" / "other.log").write_text("nothing to see\n")
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.name, info.source, info.profile) == ("logs/log_rank_DRIVER_0_1.log", "roll-stdout", "roll")
    assert _points(ingest, info.name, "success") == [("SimpleSokoban", s, s / 10) for s in range(4)]
    assert "non_finite_values" in _kinds(info)


def test_roll_stdout_damage(tmp_path):
    path = write_roll_stdout(tmp_path / "run.log", [(s, {"env/A/success": 1.0}) for s in range(3)], noise=False)
    good = path.read_bytes()
    path.write_bytes(good + b"[x] metrics_tag: {\"step\": 9, \"metr\n" + b"\xff\xfe metrics_tag: {}\n"
                     + b"[x] metrics_tag: {\"step\": 10, \"metrics\": {\"env/A/success\": 0.5")
    raw = read_run(discover(tmp_path)[0][0])
    assert raw.points() == [("env/A/success", s, 1.0) for s in range(3)]
    details = {i.kind: i.detail for i in raw.issues}
    assert "line 4" in details["corrupt_record"] or "line 5" in details["corrupt_record"]
    assert "incomplete_tail" in details


def _tune_result(iteration, since_restore, timesteps, value):
    return {"training_iteration": iteration, "iterations_since_restore": since_restore,
            "timesteps_total": timesteps, "env_runners": {"episode_return_mean": value}}


def _dups(info):
    return [i.detail for i in info.issues if i.kind == "duplicate_points"]


def test_tune_results_sharing_a_step_are_observations_kept(tmp_path):
    # iterations 3 and 4 collected no new env steps (timesteps_total stays 2000): two observations
    results = [_tune_result(i, i, t, v) for i, t, v in ((1, 1000, 1.0), (2, 2000, 2.0), (3, 2000, 4.0), (4, 3000, 5.0))]
    write_tune_trial(tmp_path / "t", results, {"env": "E"})
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert _points(ingest, "t", "episode_return_mean") == [("E", 1000, 1.0), ("E", 2000, 3.0), ("E", 3000, 5.0)]
    assert info.observations_combined == 1 and not _dups(info)


def test_tune_restored_trial_appending_to_its_files_is_a_restart(tmp_path):
    folder = tmp_path / "t"
    write_tune_trial(folder, [_tune_result(i, i, 1000 * i, 0.25) for i in range(1, 9)], {"env": "E"})
    # restored from its iteration-5 checkpoint: Trainable.restore starts iterations_since_restore again
    # and the callbacks append to the same result.json / progress.csv
    write_tune_trial(folder, [_tune_result(i, i - 5, 1000 * i, 0.75) for i in range(6, 11)], {"env": "E"})
    for kept in ("result.json", "progress.csv"):
        trial = tmp_path / kept / "t"
        trial.mkdir(parents=True)
        for name in (kept, "params.json"):
            (trial / name).write_bytes((folder / name).read_bytes())
        ingest = curriwatch.load(trial.parent)
        (info,) = ingest.runs
        assert _points(ingest, "t", "episode_return_mean") == (
            [("E", 1000 * i, 0.25) for i in range(1, 6)] + [("E", 1000 * i, 0.75) for i in range(6, 11)]), kept
        assert [d.split(" ")[0] for d in _dups(info)] == ["3"] and info.observations_combined == 0


def test_tune_restart_counter_marks_a_restart_at_the_same_step(tmp_path):
    # the restored trial's first result repeats the checkpoint's timesteps_total (no new env steps yet)
    results = [_tune_result(1, 1, 1000, 0.25), _tune_result(2, 2, 2000, 0.25), _tune_result(3, 1, 2000, 0.75)]
    write_tune_trial(tmp_path / "t", results, {"env": "E"})
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "t", "episode_return_mean") == [("E", 1000, 0.25), ("E", 2000, 0.75)]
    assert len(_dups(ingest.runs[0])) == 1


def test_roll_stdout_lines_sharing_a_step_are_observations_kept(tmp_path):
    # ROLL's file handler opens its log with mode="w" (roll/utils/logging.py:42): a resumed job starts
    # a new file, so repeated steps in one log are separate tracker.log calls
    rows = [(0, {"env/A/success": 0.5}), (1, {"env/A/success": 0.25}), (1, {"env/A/success": 0.75}),
            (2, {"env/A/success": 1.0})]
    write_roll_stdout(tmp_path / "run.log", rows)
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert _points(ingest, "run.log", "success") == [("A", 0, 0.5), ("A", 1, 0.5), ("A", 2, 1.0)]
    assert info.observations_combined == 1 and not _dups(info)


def test_tune_damaged_result_json(tmp_path):
    folder = write_tune_trial(tmp_path / "t", _tune_results(4, with_eval=False), {"env": "E"})
    data = (folder / "result.json").read_bytes()
    lines = data.split(b"\n")
    lines.insert(1, b"garbage {")
    lines.insert(2, b"\x80\x81 not utf8")
    lines.insert(3, b"[1, 2]")
    damaged = b"\n".join(lines)
    (folder / "result.json").write_bytes(damaged[:-30])  # the last result is cut
    raw = read_run(discover(tmp_path)[0][0])
    steps = sorted({s for t, s, _v in raw.points() if t == "env_runners/episode_return_mean"})
    assert steps == [4000, 8000, 12000]
    text = " | ".join(f"{i.kind}: {i.detail}" for i in raw.issues)
    assert "UTF-8" in text and "(first at line 3)" in text and "incomplete_tail" in text
    assert "2 row(s) could not be parsed and were skipped (first at line 2: not JSON" in text


def test_huge_line_is_skipped_without_holding_it(tmp_path):
    path = tmp_path / "big.txt"
    with open(path, "wb") as f:
        f.write(b"a\n")
        f.write(b"x" * (MAX_LINE + 10) + b"\n")
        f.write(b"b\n")
    report = LineReport()
    with open(path, "rb") as f:
        got = [(n, text) for n, _o, text in iter_lines(f, report)]
    assert got == [(1, "a"), (3, "b")]
    assert report.too_long == [2] and report.incomplete_tail is None


@pytest.mark.parametrize("cut", [0, 1, 5, 17, 40])
def test_line_offsets_and_tail(tmp_path, cut):
    body = b"one\r\ntwo\n\nthree\n"
    path = tmp_path / "f"
    path.write_bytes(body + b"four"[:cut % 5])
    report = LineReport()
    with open(path, "rb") as f:
        got = [(n, o, t) for n, o, t in iter_lines(f, report)]
    assert got == [(1, 0, "one"), (2, 5, "two"), (3, 9, ""), (4, 10, "three")]
    assert report.incomplete_tail == (16 if cut % 5 else None)


def test_cli_scans_each_source_without_traceback(tmp_path):
    write_tune_trial(tmp_path / "tune" / "t0", _tune_results(), {"env": "E"})
    w = DcdFileWriter(tmp_path / "dcd")
    w.log({"steps": 1, "test_returns:Maze": 1.0}, 1.7e9)
    w.close()
    write_roll_stdout(tmp_path / "roll.log", [(1, {"env/A/success": 1.0})])
    (tmp_path / "junk.log").write_bytes(b"metrics_tag: {" + os.urandom(2000))
    env = dict(os.environ, NO_COLOR="1")
    out = subprocess.run([sys.executable, "-m", "curriwatch", "report", str(tmp_path), "--format", "json"],
                         capture_output=True, text=True, env=env)
    assert "Traceback" not in out.stderr
    assert out.returncode in (0, 1), out.stderr
    doc = json.loads(out.stdout)
    assert {r["run"] for r in doc["runs"]} >= {"tune/t0", "dcd", "roll.log"}
    junk = [i for r in doc["runs"] for i in r["data_issues"] if i["path"] == "junk.log"]
    assert junk, doc["runs"]


def _write_tb_raw_tags(folder, series):
    """Scalars with tags kept as given (spaces included), as ML-Agents' torch SummaryWriter writes
    them: torch's add_scalar builds Summary(value=[Summary.Value(tag, simple_value)]) without
    cleaning the tag, while tensorboardX's add_scalar would turn spaces into underscores."""
    from tensorboardX import FileWriter
    from tensorboardX.proto.summary_pb2 import Summary

    w = FileWriter(str(folder))
    for tag, points in series.items():
        for step, value in points:
            w.add_summary(Summary(value=[Summary.Value(tag=tag, simple_value=value)]), step, 1.7e9 + step)
    w.close()


def test_mlagents_lessons_and_behavior_from_folder(tmp_path):
    lesson = [(s, float(s >= 3000) + float(s >= 6000)) for s in range(0, 9000, 500)]
    _write_tb_raw_tags(tmp_path / "results" / "wall_jump_1" / "BigWallJump", {
        "Environment/Cumulative Reward": [(s, -1 + s / 9000) for s in range(0, 9000, 500)],
        "Environment/Lesson Number/big_wall_height": lesson,
        "Policy/Entropy": [(s, 1.0) for s in range(0, 9000, 500)],
    })
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.profile == "mlagents" and info.envs == ["BigWallJump"]
    assert _points(ingest, info.name, "Lesson Number/big_wall_height", "state") == [
        ("BigWallJump", s, v) for s, v in lesson]
    assert [p[1] for p in _points(ingest, info.name, "Cumulative Reward")] == list(range(0, 9000, 500))
    assert not ((ingest.frame.split == "state") & (ingest.frame.metric == "state")).any()
