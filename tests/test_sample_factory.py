"""Sample Factory runs read by the built-in `sample_factory` profile (v2 tags and v1's `0_aux/avg_*`).

Written with tensorboardX as Sample Factory's Runner writes (alex-petrenko/sample-factory@1894bd1
sample_factory/algo/runners/runner.py:262-278, :368-418): every finished episode goes into a deque of the last
`stats_avg` = 100 episodes, and every `experiment_summaries_interval` the deque's mean, min and max are written at the
policy's env frames — only once the deque is full — beside perf/stats scalars; the learner's `train/*` stats at the
same frames (:281-285). Folder layout `{train_dir}/{experiment}/.summary/{policy_id}` (utils/utils.py:407-416). What
the agent achieves per summary interval is in the series notation of tests/series.py.
"""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

import curriwatch
from series import expand
from writers import write_tb, write_wandb

COLLAPSES = "10+5x40 210~4x60 60~4x40"
HOLDS = "10+5x40 210~4x100"
FRAMES_PER_INTERVAL = 40_960


def runner_summaries(levels, *, v1: bool = False, episodes_per_interval: int = 30, seed: int = 0):
    """tag -> [(env_frames, value)] as Runner._report_experiment_summaries writes them."""
    rng = np.random.default_rng(seed)
    rewards: deque = deque(maxlen=100)
    lens: deque = deque(maxlen=100)
    avg, mn, mx = (("0_aux/avg_reward", "0_aux/avg_reward_min", "0_aux/avg_reward_max") if v1 else
                   ("reward/reward", "reward/reward_min", "reward/reward_max"))
    length, objective = ("0_aux/avg_len", "0_aux/avg_true_reward") if v1 else ("len/len", "policy_stats/avg_true_objective")
    fps = "0_aux/_fps" if v1 else "perf/_fps"
    series: dict[str, list] = {}

    def add(tag, frames, value):
        series.setdefault(tag, []).append((frames, float(value)))

    for k, level in enumerate(levels):
        frames = FRAMES_PER_INTERVAL * (k + 1)
        add("train/loss", frames, 0.05)  # the learner's stats at the policy's frames
        episodes = level + rng.normal(0.0, 10.0, episodes_per_interval)
        rewards.extend(episodes)
        lens.extend(np.full(episodes_per_interval, 300.0))
        add(fps, frames, 9000.0)
        if len(rewards) < rewards.maxlen:  # runner.py:393-396: nothing until the deque is full
            continue
        add(avg, frames, np.mean(rewards))
        add(mn, frames, min(rewards))
        add(mx, frames, max(rewards))
        add(length, frames, np.mean(lens))
        add(objective, frames, np.mean(rewards))
    return series


@pytest.mark.parametrize("v1", [False, True], ids=["v2", "v1"])
def test_sample_factory_runs_are_read_by_their_profile(tmp_path, v1):
    for case, levels in (("collapse", COLLAPSES), ("holds", HOLDS)):
        write_tb(tmp_path / case / "train_dir" / "doom_basic" / ".summary" / "0",
                 runner_summaries(expand(levels, 4), v1=v1))
    for case, expected in (("collapse", [("graduated_regression", "critical")]), ("holds", [])):
        ingest = curriwatch.load(tmp_path / case)
        (info,) = ingest.runs
        assert (info.profile, info.performance_metric) == ("sample_factory", "reward")
        frame = ingest.frame
        assert sorted(frame.env_id.unique()) == ["doom_basic"]  # the experiment, not `0` or `.summary`
        judged = frame[frame.metric == "reward"]
        # the deque fills after 4 intervals of 30 episodes: 137 of the 140 intervals have a point
        assert len(judged) == 137 and judged.step.min() == 4 * FRAMES_PER_INTERVAL
        assert sorted(frame.metric.unique()) == ["episode_length", "reward", "true_objective"]
        (run,) = curriwatch.analyze(ingest).to_dict()["runs"]
        assert [(w["type"], w["severity"]) for w in run["warnings"]] == expected, (case, run["warnings"])
        assert [e["current_state"] for e in run["environments"]] == ["graduated"]


def test_each_policy_of_a_population_is_a_run_of_the_experiment(tmp_path):
    """num_policies > 1 (PBT): one SummaryWriter a policy (runner.py:139-142), each judged on its own."""
    summary = tmp_path / "train_dir" / "dmlab_pbt" / ".summary"
    write_tb(summary / "0", runner_summaries(expand(COLLAPSES, 4)))
    write_tb(summary / "1", runner_summaries(expand(HOLDS, 4), seed=1))
    report = curriwatch.analyze(curriwatch.load(tmp_path)).to_dict()
    by_policy = {r["run"].rsplit("/", 1)[-1]: r for r in report["runs"]}
    assert sorted(by_policy) == ["0", "1"]
    assert [e["env_id"] for r in report["runs"] for e in r["environments"]] == ["dmlab_pbt", "dmlab_pbt"]
    assert [w["type"] for w in by_policy["0"]["warnings"]] == ["graduated_regression"]
    assert by_policy["1"]["warnings"] == [] and by_policy["1"]["health_status"] == "healthy"


def test_its_w_and_b_run_synced_from_tensorboard(tmp_path):
    """`--with_wandb`: wandb.init(sync_tensorboard=True, name=f"{experiment}_{%Y%m%d_%H%M%S_%f}")
    (utils/wandb_utils.py:16-18, :36-46): each row carries a summary's tag and the TensorBoard step as
    `global_step`, W&B's own `_step` counting rows."""
    series = runner_summaries(expand(COLLAPSES, 4))
    rows = [{tag: value, "global_step": frames} for tag, points in series.items() for frames, value in points]
    rows.sort(key=lambda r: r["global_step"])
    write_wandb(tmp_path / "wandb", rows, run_id="sfrun", name="doom_basic_20250301_101500_123456")
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.profile == "sample_factory" and info.envs == ["doom_basic"]
    judged = ingest.frame[ingest.frame.metric == "reward"]
    assert judged.step.tolist() == [f for f, _ in series["reward/reward"]]
    (run,) = curriwatch.analyze(ingest).to_dict()["runs"]
    assert [w["type"] for w in run["warnings"]] == ["graduated_regression"]
