"""DreamerV3 logdirs (`metrics.jsonl`, `scores.jsonl`, `config.yaml`) written by its own logger, danijar/elements
(tests/fixtures/dreamer/make_dreamer_logs.py), read by the `dreamerv3` profile, the env from the config's `task`."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

import curriwatch
from writers import write_tb

FIXTURES = Path(__file__).parent / "fixtures" / "dreamer" / "logdir"
PONG, WALKER = FIXTURES / "20250301T101500", FIXTURES / "20250302T093000"
RESTARTED = FIXTURES.parent / "restarted"


def _oracle(logdir: Path, key: str = "episode/score") -> list[tuple[int, float]]:
    rows = [json.loads(line) for line in (logdir / "metrics.jsonl").read_text().splitlines()]
    return [(r["step"], r[key]) for r in rows if key in r]


def _series(frame, env: str, metric: str = "score") -> list[tuple[int, float]]:
    sel = frame[(frame.env_id == env) & (frame.metric == metric)].sort_values("step")
    return list(zip(sel.step.astype(int), sel.value.astype(float)))


def test_each_logdir_is_one_run_named_by_its_task_and_read_exactly():
    ingest = curriwatch.load(FIXTURES)
    assert sorted((r.name, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        (PONG.name, "dreamerv3", ("atari_pong",)), (WALKER.name, "dreamerv3", ("dmc_walker_walk",))]
    assert [i.kind for i in ingest.all_issues if i.kind != "unclaimed_tags"] == []
    for logdir, env in ((PONG, "atari_pong"), (WALKER, "dmc_walker_walk")):
        assert _series(ingest.frame, env) == _oracle(logdir)
        assert _series(ingest.frame, env, "length") == _oracle(logdir, "episode/length")
        assert set(ingest.frame[ingest.frame.env_id == env].split) == {"train"}


def test_a_collapse_is_reported_and_a_learner_that_holds_is_healthy():
    report = curriwatch.analyze(curriwatch.load(FIXTURES)).to_dict()
    runs = {r["environments"][0]["env_id"]: r for r in report["runs"]}
    assert runs["atari_pong"]["warnings"] == [] and runs["atari_pong"]["health_status"] == "healthy"
    (warning,) = runs["dmc_walker_walk"]["warnings"]
    assert (warning["type"], warning["severity"]) == ("graduated_regression", "critical")
    steps = [s for s, _ in _oracle(WALKER)]
    fall = next(i for i, s in enumerate(steps) if s >= 300_000)  # the planned fall (make_dreamer_logs.planned)
    assert steps[fall] <= warning["first_step"] <= steps[fall + 4]


def test_before_2024_its_tensorboard_copy_in_the_logdir_is_the_run(tmp_path):
    """DreamerV3 wrote TensorBoard files into the logdir too (dreamerv3@2411f7d^ dreamerv3/train.py:108-118): one
    run, read from the event files, which keep every episode of a step; still named by config.yaml's task."""
    logdir = tmp_path / PONG.name
    shutil.copytree(PONG, logdir)
    rows = [json.loads(line) for line in (PONG / "metrics.jsonl").read_text().splitlines()]
    write_tb(logdir, {key: [(r["step"], r[key]) for r in rows if key in r]
                      for key in ("episode/score", "episode/length", "train/loss/policy")})
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.source, info.profile, info.envs) == ("tensorboard", "dreamerv3", ["atari_pong"])
    assert _series(ingest.frame, "atari_pong") == [(s, float(np.float32(v))) for s, v in _oracle(PONG)]  # float32


def test_without_its_config_the_logdir_names_the_env(tmp_path):
    logdir = tmp_path / PONG.name
    shutil.copytree(PONG, logdir)
    (logdir / "config.yaml").write_text("logdir: /somewhere\nenv:\n  task: not_this\n")  # no top-level task
    (info,) = curriwatch.load(tmp_path).runs
    assert (info.profile, info.envs) == ("dreamerv3", [PONG.name])


def test_a_job_restarted_into_its_logdir_keeps_both_stretches_and_says_so():
    """A killed job started again from its checkpoint appends to metrics.jsonl from an earlier step
    (tests/fixtures/dreamer/restarted, written by make_dreamer_logs.py: killed at 260k, restarted from 200k); its
    episodes end at other steps than the killed job's did, so no step is written again: every point is kept and the
    overlap is reported, not passed over."""
    logdir = RESTARTED / "20250303T081500"
    ingest = curriwatch.load(RESTARTED)
    (info,) = ingest.runs
    lines = [json.loads(line) for line in (logdir / "metrics.jsonl").read_text().splitlines()]
    back = next(i for i in range(1, len(lines)) if lines[i]["step"] < lines[i - 1]["step"])
    restart_at = min(r["step"] for r in lines[back:] if "episode/score" in r)
    kept = {}
    for r in lines:
        if "episode/score" in r:
            kept[r["step"]] = r["episode/score"]  # a step written again by the restart: its last write
    assert _series(ingest.frame, "dmc_cartpole_swingup") == sorted(kept.items())
    rewritten = {r["step"] for r in lines[back:]}
    overlapped = [r for r in lines[:back] if "episode/score" in r and r["step"] >= restart_at
                  and r["step"] not in rewritten]
    assert overlapped and not [i for i in info.issues if i.kind == "duplicate_points"]
    (note,) = [i for i in info.issues if i.kind == "interleaved_restart"]
    assert note.detail.startswith(f"{2 * len(overlapped)} point(s) ")  # episode/score and episode/length
    report = curriwatch.analyze(ingest).to_dict()
    assert report["runs"][0]["health_status"] == "healthy"  # a learner that holds, restarted, is no incident


def test_runs_read_whole_without_a_restart_have_no_interleaving_note():
    ingest = curriwatch.load(FIXTURES)
    assert not [i for i in ingest.all_issues if i.kind == "interleaved_restart"]
