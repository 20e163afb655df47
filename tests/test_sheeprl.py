"""SheepRL runs read by the built-in `sheeprl` profile.

Written with tensorboardX as Lightning Fabric's TensorBoardLogger writes SheepRL's metrics (Eclectic-Sheep/sheeprl@33b6366
sheeprl/algos/ppo/ppo.py:330-391: `Rewards/rew_avg`, the MeanMetric of the episodes that ended since the last log,
`Game/ep_len_avg`, losses and `Time/*` at the policy step every `log_every` steps; `Test/cumulative_reward` of the one
test episode after training at step 0), in its layout `logs/runs/{algo}/{env_id}/{run_name}/version_{n}`.
"""
from __future__ import annotations

import numpy as np

import curriwatch
from series import expand
from writers import write_tb

COLLAPSES = "10+5x40 210~4x60 60~4x40"
HOLDS = "10+5x40 210~4x100"


def sheeprl_run(folder, levels, log_every: int = 5000, seed: int = 0):
    rng = np.random.default_rng(seed)
    series: dict[str, list] = {}
    for k, level in enumerate(levels):
        step = log_every * (k + 1)
        episodes = level + rng.normal(0.0, 10.0, int(rng.integers(3, 12)))
        for tag, value in (("Rewards/rew_avg", float(episodes.mean())), ("Game/ep_len_avg", 200.0),
                           ("Loss/policy_loss", 0.01), ("Time/sps_train", 900.0), ("Info/learning_rate", 3e-4)):
            series.setdefault(tag, []).append((step, value))
    series["Test/cumulative_reward"] = [(0, float(levels[-1]))]
    write_tb(folder, series)


def test_sheeprl_runs_are_read_by_their_profile(tmp_path):
    for case, levels in (("collapse", COLLAPSES), ("holds", HOLDS)):
        sheeprl_run(tmp_path / case / "logs" / "runs" / "ppo" / "LunarLander-v2" / "2025-03-01_10-00-00_default_42"
                    / "version_0", expand(levels, 4))
    for case, expected in (("collapse", [("graduated_regression", "critical")]), ("holds", [])):
        ingest = curriwatch.load(tmp_path / case)
        (info,) = ingest.runs
        assert (info.profile, info.performance_metric, info.envs) == ("sheeprl", "reward", ["LunarLander-v2"])
        judged = ingest.frame[ingest.frame.metric == "reward"]
        assert len(judged) == 140 and judged.step.min() == 5000  # the test episode at step 0 is left out
        assert "Test/cumulative_reward" in info.unclaimed_tags
        (run,) = curriwatch.analyze(ingest).to_dict()["runs"]
        assert [(w["type"], w["severity"]) for w in run["warnings"]] == expected, (case, run["warnings"])
