"""tinker-cookbook RL runs: metrics.jsonl and W&B written the way tinker-cookbook writes them.

tinker-cookbook requires torch, so it is not installed: tests/writers.py reproduces its JsonLogger
and compute_trajectory_metrics call for call (file and line there); W&B output comes from wandb
itself, called as tinker's WandbLogger calls it (`wandb.log(metrics, step=step)`,
tinker_cookbook/utils/ml_log.py:332).
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

import curriwatch
from curriwatch.discover import discover
from curriwatch.profiles import BUILTIN_PROFILES, detect_profile
from writers import PrimeRlFileMonitor, TinkerJsonLogger, tinker_trajectory_metrics, write_tb, write_wandb

TAGS = ("gsm8k", "math")


def _group(p: float, n: int = 4) -> list[dict]:
    """One trajectory group: round(p * n) of n answers correct (reward 1, else 0)."""
    k = round(p * n)
    return [{"reward": float(i < k), "ac_tokens": 100 + i, "ob_tokens": 50, "metrics": {"correct": float(i < k)}}
            for i in range(n)]


def _batch_metrics(i_batch: int, success: dict[str, float], *, groups_per_tag: int = 2) -> dict:
    """What tinker's sync RL loop logs for one batch (rl/train.py:731-735, :1377, :862), minus timing."""
    metrics = {"progress/batch": i_batch, "optim/lr": 4e-5, "progress/done_frac": (i_batch + 1) / 40}
    groups, tags = [], []
    for tag in TAGS:
        for _ in range(groups_per_tag):
            groups.append(_group(success[tag]))
            tags.append([tag])
    metrics.update(tinker_trajectory_metrics(groups, tags))
    metrics["time/total"] = 12.5
    return metrics


def _eval_metrics(success: dict[str, float]) -> dict:
    """RLTestSetEvaluator's metrics, prefixed with its default name `test` (rl/metric_util.py:185, :371)."""
    groups = [_group(success[tag], 8) for tag in TAGS]
    return {f"test/{k}": v for k, v in tinker_trajectory_metrics(groups, [[t] for t in TAGS]).items()}


def _curve(i: int) -> dict[str, float]:
    return {"gsm8k": min(1.0, 0.25 + 0.25 * (i // 4)), "math": 0.25 if i < 10 else 0.5}


def _run(logger, steps, eval_every=5):
    for i in steps:
        metrics = _batch_metrics(i, _curve(i))
        if i % eval_every == 0:
            metrics.update(_eval_metrics(_curve(i)))
        logger.log_metrics(metrics, step=i)


def _series(ingest, env, metric, split="train"):
    f = ingest.frame
    rows = f[(f.env_id == env) & (f.split == split) & (f.metric == metric)]
    return list(zip(rows.step.tolist(), rows.value.tolist()))


def test_metrics_jsonl_is_a_run_with_envs_and_slashed_metrics(tmp_path):
    log_path = tmp_path / "math_rl" / "Qwen3-8B-lr4e-05"
    _run(TinkerJsonLogger(log_path), range(20))
    (log_path / "config.json").write_text("{}")
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.name, info.source, info.profile) == ("math_rl/Qwen3-8B-lr4e-05", "tinker", "tinker")
    assert info.performance_metric == "reward/total"
    assert info.envs == ["gsm8k", "math"]
    frame = ingest.frame
    assert {"reward/total", "by_group/frac_mixed", "total_episodes", "correct"} <= set(frame.metric)
    assert _series(ingest, "gsm8k", "reward/total") == [(i, _curve(i)["gsm8k"]) for i in range(20)]
    assert _series(ingest, "math", "reward/total", "eval") == [(i, _curve(i)["math"]) for i in (0, 5, 10, 15)]
    # env/all/... and test/env/all/... are the aggregate, never an env nor an unclaimed tag
    assert not [t for t in info.unclaimed_tags if "env/" in t]
    assert set(info.unclaimed_tags) == {"optim/lr", "progress/batch", "progress/done_frac", "time/total"}
    # each env's episodes are its points' count
    counts = frame[(frame.env_id == "gsm8k") & (frame.metric == "reward/total") & (frame.split == "train")]["count"]
    assert set(counts) == {8.0}


def test_tinker_keys_choose_tinker_and_roll_keys_stay_roll(tmp_path):
    keys = list(_batch_metrics(0, _curve(0))) + list(_eval_metrics(_curve(0)))
    profile, counts = detect_profile(keys, BUILTIN_PROFILES)
    assert profile.name == "tinker" and counts["tinker"] > counts["roll"]
    roll = [f"env/SimpleSokoban/{k}" for k in ("success", "action_is_valid", "action_is_effective",
                                                "format_penalty", "num_actions")]
    roll += ["val/SimpleSokoban/score/mean", "val/env/SimpleSokoban/success", "env/all/success"]
    assert detect_profile(roll, BUILTIN_PROFILES)[0].name == "roll"
    # ROLL's own reading of its keys is unchanged
    assert BUILTIN_PROFILES["roll"].classify("env/Sokoban/v2/success") == ("Sokoban/v2", "train", "success")
    assert BUILTIN_PROFILES["tinker"].classify("env/gsm8k/reward/total") == ("gsm8k", "train", "reward/total")
    assert BUILTIN_PROFILES["tinker"].classify("test/env/gsm8k/by_group/frac_mixed") == (
        "gsm8k", "eval", "by_group/frac_mixed")


def test_wandb_run_logged_by_tinker(tmp_path):
    rows, steps = [], []
    for i in range(12):
        metrics = _batch_metrics(i, _curve(i))
        if i % 4 == 0:
            metrics.update(_eval_metrics(_curve(i)))
        rows.append(metrics)
        steps.append(i)
    write_wandb(tmp_path / "wandb", rows, steps=steps, run_id="tinkr1")
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.profile == "tinker" and info.envs == ["gsm8k", "math"]
    assert _series(ingest, "math", "reward/total", "eval") == [(i, _curve(i)["math"]) for i in (0, 4, 8)]


def test_wandb_copy_inside_the_log_path_is_not_read_again(tmp_path):
    log_path = tmp_path / "run"
    _run(TinkerJsonLogger(log_path), range(6))
    # WandbLogger(log_dir=log_path) (ml_log.py:317-322): the same dicts under {log_path}/wandb/
    rows = [_batch_metrics(i, _curve(i)) for i in range(6)]
    write_wandb(log_path / "wandb", rows, steps=list(range(6)), run_id="tinkr2")
    runs, _ = discover(tmp_path)
    assert [(r.name, r.source) for r in runs] == [("run", "tinker")]


def test_resumed_run_appending_to_metrics_jsonl_is_a_restart(tmp_path):
    log_path = tmp_path / "run"
    _run(TinkerJsonLogger(log_path), range(14))  # crashed after batch 13
    logger = TinkerJsonLogger(log_path)  # resumed from the batch-10 checkpoint (rl/train.py:1929-1931)
    for i in range(10, 16):
        logger.log_metrics(_batch_metrics(i, {"gsm8k": 0.5, "math": 0.5}), step=i)
    ingest = curriwatch.load(tmp_path)
    info = ingest.runs[0]
    assert _series(ingest, "gsm8k", "reward/total") == (
        [(i, _curve(i)["gsm8k"]) for i in range(10)] + [(i, 0.5) for i in range(10, 16)])
    (dup,) = [i for i in info.issues if i.kind == "duplicate_points"]
    n_env_keys = sum(1 for k in _batch_metrics(0, _curve(0)) if k.startswith("env/") and not k.startswith("env/all/"))
    assert dup.detail.startswith(f"{4 * n_env_keys} point(s)")  # batches 10..13, every env key
    assert not [i for i in info.issues if i.kind == "interleaved_restart"]  # every step it went back over rewritten
    assert info.observations_combined == 0


def test_async_eval_lines_and_repeated_steps_are_observations(tmp_path):
    logger = TinkerJsonLogger(tmp_path / "run")
    for i in range(8):
        logger.log_metrics(_batch_metrics(i, _curve(i)), step=i)
        if i in (3, 6):  # the evaluation loop logs the step it evaluated, after later batches (rl/train.py:1287)
            logger.log_metrics({**_eval_metrics(_curve(i - 2)), "time/total": 3.0}, step=i - 2)
    # two batches logged under one step (several log_metrics calls for a step)
    logger.log_metrics(_batch_metrics(8, {"gsm8k": 0.25, "math": 0.25}), step=8)
    logger.log_metrics(_batch_metrics(8, {"gsm8k": 0.75, "math": 0.75}, groups_per_tag=6), step=8)
    ingest = curriwatch.load(tmp_path)
    info = ingest.runs[0]
    assert not [i for i in info.issues if i.kind in ("duplicate_points", "interleaved_restart")]
    assert _series(ingest, "gsm8k", "reward/total", "eval") == [(1, _curve(1)["gsm8k"]), (4, _curve(4)["gsm8k"])]
    # weighted by total_episodes: 8 episodes at 0.25, 24 at 0.75
    assert _series(ingest, "gsm8k", "reward/total")[-1] == (8, pytest.approx((8 * 0.25 + 24 * 0.75) / 32))
    assert _series(ingest, "gsm8k", "total_episodes")[-1] == (8, 32)
    n_env_keys = sum(1 for k in _batch_metrics(0, _curve(0)) if k.startswith("env/") and not k.startswith("env/all/"))
    assert info.observations_combined == n_env_keys


def test_damaged_metrics_jsonl(tmp_path):
    log_path = tmp_path / "run"
    logger = TinkerJsonLogger(log_path)
    _run(logger, range(4))
    logger.log_metrics({"env/gsm8k/reward/total": math.nan, "env/math/reward/total": 0.5}, step=4)
    logger.log_metrics({"env/gsm8k/reward/total": 1.0})  # step=None: no step key
    data = (log_path / "metrics.jsonl").read_bytes()
    (log_path / "metrics.jsonl").write_bytes(data + b'{"step": 5, "env/gsm8k/rew')
    assert b"NaN" in data  # json.dumps writes bare NaN
    ingest = curriwatch.load(tmp_path)
    info = ingest.runs[0]
    kinds = {i.kind for i in info.issues}
    assert {"incomplete_tail", "missing_step_key", "non_finite_values"} <= kinds
    assert _series(ingest, "math", "reward/total")[-1] == (4, 0.5)


def test_cli_reports_a_tinker_run(tmp_path):
    _run(TinkerJsonLogger(tmp_path / "run"), range(20))
    out = subprocess.run([sys.executable, "-m", "curriwatch", "report", str(tmp_path), "--format", "json"],
                         capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))
    assert "Traceback" not in out.stderr and out.returncode in (0, 1), out.stderr
    (run,) = json.loads(out.stdout)["runs"]
    assert (run["source"], run["profile"]) == ("tinker", "tinker")
    assert {e["env_id"] for e in run["environments"]} == set(TAGS)


def test_a_metrics_jsonl_without_step_is_not_a_tinker_run(tmp_path):
    (tmp_path / "metrics.jsonl").write_text('{"loss": 1.0}\n')
    write_tb(tmp_path / "tb", {"train/a/reward": [(0, 1.0)]})
    assert [r.source for r in discover(tmp_path)[0]] == ["tensorboard"]


def test_prime_rl_steps_written_as_whole_floats_are_steps(tmp_path):
    """prime-rl's orchestrator logs `"step": float(batch.step)` among its metrics, which overrides the
    FileMonitor's int: every line reads `"step": 50.0`. Such lines are at step 50, nothing is dropped; a step of
    50.5 (or none) is still no step. Was: every line `missing_step_key`, the run's evals gone."""
    monitor = PrimeRlFileMonitor(tmp_path / "outputs" / "rl-run")
    for step in range(1, 31):
        metrics = {"step": float(step), "train/gsm8k/effective/agent/reward/mean": 0.02 * step}
        if step % 5 == 0:
            metrics["eval/gsm8k/effective/agent/avg@4"] = 0.5 + 0.01 * step
        monitor.log_metrics(metrics, step)
    monitor.log_metrics({"step": 30.5, "train/gsm8k/effective/agent/reward/mean": 0.9}, 30)
    (tmp_path / "curriwatch.yaml").write_text(
        "profiles:\n  prime_rl:\n    patterns:\n"
        "      - {regex: '^train/(?P<env>[^/]+)/effective/agent/reward/mean$', split: train, metric: reward}\n"
        "      - {regex: '^eval/(?P<env>[^/]+)/effective/agent/avg@[0-9]+$', split: eval, metric: reward}\n"
        "    performance_metric: reward\nprofile: prime_rl\n")
    ingest = curriwatch.load(tmp_path, config=str(tmp_path / "curriwatch.yaml"))
    assert _series(ingest, "gsm8k", "reward") == [(i, pytest.approx(0.02 * i)) for i in range(1, 31)]
    assert _series(ingest, "gsm8k", "reward", "eval") == [(i, pytest.approx(0.5 + 0.01 * i)) for i in range(5, 31, 5)]
    (issue,) = [d for d in ingest.all_issues if d.kind == "missing_step_key"]
    assert issue.detail.startswith("1 line(s)")
