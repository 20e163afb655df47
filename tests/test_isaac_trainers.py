"""rsl_rl, rl_games and skrl runs (the trainers Isaac Lab drives) read by their built-in profiles.

Each run is written with tensorboardX the way the library writes it (tags character for character, each at its own
step axis, file:line in curriwatch/profiles.py), in Isaac Lab's folder layout
(isaac-sim/IsaacLab@011c373c scripts/reinforcement_learning/*/train.py). What the agent achieves per iteration is
in the series notation of tests/series.py; the libraries' running means over ~100 episodes are formed here from
episodes drawn around it.
"""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

import curriwatch
from series import expand
from writers import write_tb

COLLAPSES = "10+5x40 210~4x60 60~4x40"  # learns for 40 iterations, holds ~210, then falls to 60 for good
HOLDS = "10+5x40 210~4x100"


def episode_means(levels, episodes_per_iteration: int, window: int, seed: int = 0):
    """The mean return of the last `window` episodes after each iteration (rsl_rl's rewbuffer, rl_games' meter)."""
    rng = np.random.default_rng(seed)
    buf: deque = deque(maxlen=window)
    out = []
    for level in levels:
        buf.extend(level + rng.normal(0.0, 10.0, episodes_per_iteration))
        out.append(float(np.mean(buf)))
    return out


def rsl_rl_run(folder, levels):
    """rsl_rl/utils/logger.py:207-233: per iteration `it`, Loss/*, Perf/*, Train/mean_reward and
    Train/mean_episode_length at `it`, and their `/time` copies at the run's elapsed seconds."""
    means = episode_means(levels, 24, 100)
    write_tb(folder, {
        "Train/mean_reward": [(it, m) for it, m in enumerate(means)],
        "Train/mean_episode_length": [(it, 500.0) for it in range(len(means))],
        "Train/mean_reward/time": [(7 * it + 3, m) for it, m in enumerate(means)],
        "Loss/value": [(it, 0.1) for it in range(len(means))],
        "Perf/total_fps": [(it, 40000.0) for it in range(len(means))],
    })


def rl_games_run(folder, levels, horizon: int = 16, num_actors: int = 4096):
    """a2c_common.py:1688-1727: rewards/step and episode_lengths/step at the frame count (horizon x actors an epoch),
    rewards/iter at the 1-based epoch, rewards/time at the elapsed seconds."""
    means = episode_means(levels, 64, 100, seed=1)
    frames = [horizon * num_actors * (k + 1) for k in range(len(means))]
    write_tb(folder, {
        "rewards/step": list(zip(frames, means)),
        "rewards/iter": [(k + 1, m) for k, m in enumerate(means)],
        "rewards/time": [(5 * k + 5, m) for k, m in enumerate(means)],
        "episode_lengths/step": [(f, 300.0) for f in frames],
        "losses/a_loss": [(f, 0.01) for f in frames],
    })


def skrl_run(folder, levels, write_interval: int = 16):
    """skrl agents/torch/base.py:254-264, :387-393: at every write interval, the step-weighted mean of the episode
    returns finished in it (min and max beside), and the episode lengths.
    Its own EventFileWriter (skrl/utils/tensorboard.py:19-26) writes each value as `Summary.Value(tag=tag,
    simple_value=value)`, the tag as it is (tensorboardX's add_scalar would make its spaces `_`)."""
    rng = np.random.default_rng(2)
    series: dict[str, list] = {}
    for k, level in enumerate(levels):
        mean = float(np.mean(level + rng.normal(0.0, 10.0, 32)))
        for tag, value in (("Reward / Total reward (mean)", mean), ("Reward / Total reward (min)", mean - 20),
                           ("Reward / Total reward (max)", mean + 20), ("Episode / Total timesteps (mean)", 250.0),
                           ("Loss / Policy loss", 0.01)):
            series.setdefault(tag, []).append((write_interval * (k + 1), value))
    write_tb(folder, series, writer="raw_tags")


CASES = {
    "rsl_rl": (rsl_rl_run, "logs/rsl_rl/anymal_c_flat/2025-03-01_10-00-00_run1", "mean_reward", 0),
    "rl_games": (rl_games_run, "logs/rl_games/ant/2025-03-01_10-00-00/summaries", "reward", 16 * 4096),
    "skrl": (skrl_run, "logs/skrl/cartpole/2025-03-01_10-00-00_ppo_torch", "total_reward", 16),
}


@pytest.mark.parametrize("library", sorted(CASES))
def test_each_trainer_is_read_by_its_profile_and_a_collapse_is_reported(tmp_path, library):
    write, folder, metric, first_step = CASES[library]
    write(tmp_path / "collapse" / folder, expand(COLLAPSES, 4))
    write(tmp_path / "holds" / folder, expand(HOLDS, 4))
    env = folder.split("/")[2]  # the experiment's folder, not the dated run folder
    for case, expected in (("collapse", [("graduated_regression", "critical")]), ("holds", [])):
        ingest = curriwatch.load(tmp_path / case)
        (info,) = ingest.runs
        assert (info.profile, info.performance_metric) == (library, metric)
        frame = ingest.frame
        assert sorted(frame.env_id.unique()) == [env]
        judged = frame[frame.metric == metric]
        assert judged.step.min() == first_step and len(judged) == 140
        (run,) = curriwatch.analyze(ingest).to_dict()["runs"]
        assert [(w["type"], w["severity"]) for w in run["warnings"]] == expected, (library, case, run["warnings"])
        assert [e["current_state"] for e in run["environments"]] == ["graduated"]


def test_skrl_tags_cleaned_by_tensorboardx_are_the_same_metrics(tmp_path):
    """skrl < 1.4 wrote through tensorboardX's SummaryWriter, whose add_scalar makes spaces and brackets `_`."""
    levels = expand(HOLDS, 4)
    write_tb(tmp_path / "runs" / "24-05-01_10-00-00-000001_PPO", {
        "Reward / Total reward (mean)": [(16 * (k + 1), v) for k, v in enumerate(levels)],
        "Episode / Total timesteps (mean)": [(16 * (k + 1), 250.0) for k in range(len(levels))]})
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.profile == "skrl" and sorted(ingest.frame.metric.unique()) == ["episode_length", "total_reward"]
