"""Tianshou runs read by the built-in `tianshou` profile, in its 1.x/2.x and 0.5 key spellings.

Written with tensorboardX as Tianshou's TensorboardLogger writes (thu-ml/tianshou@f240205
tianshou/utils/logger/tensorboard.py:88-98: `add_scalar("{scope}/env_step", step)` then every flattened collect stat
under `{scope}/` at env_step), in its examples' folder layout `log/{task}/{algo}/{seed}/{now}`.
"""
from __future__ import annotations

import numpy as np
import pytest

import curriwatch
from series import expand
from writers import write_tb

COLLAPSES = "10+5x40 210~4x60 60~4x40"
HOLDS = "10+5x40 210~4x100"


def tianshou_run(folder, levels, *, spelling: str, test_every: int = 4, step_per_collect: int = 2000):
    rng = np.random.default_rng(3)
    series: dict[str, list] = {}
    train_scope = {"2.x": "training", "1.0": "train", "0.5": "train"}[spelling]

    def collect(scope: str, step: int, level: float, episodes: int) -> None:
        returns = level + rng.normal(0.0, 10.0, episodes)
        stats = ({f"{scope}/returns_stat/mean": float(returns.mean()), f"{scope}/returns_stat/std": float(returns.std()),
                  f"{scope}/lens_stat/mean": 200.0, f"{scope}/n_collected_episodes": float(episodes)}
                 if spelling != "0.5" else
                 {f"{scope}/reward": float(returns.mean()), f"{scope}/length": 200.0, f"{scope}/episode": float(episodes)})
        for key, value in {f"{scope}/env_step": float(step), **stats}.items():
            series.setdefault(key, []).append((step, value))

    for k, level in enumerate(levels):
        step = step_per_collect * (k + 1)
        collect(train_scope, step, level, 10)
        if k % test_every == 0:
            collect("test", step, level, 20)
    write_tb(folder, series)


@pytest.mark.parametrize("spelling", ["2.x", "1.0", "0.5"])
def test_tianshou_runs_are_read_by_their_profile(tmp_path, spelling):
    for case, levels in (("collapse", COLLAPSES), ("holds", HOLDS)):
        tianshou_run(tmp_path / case / "log" / "Hopper-v4" / "sac" / "0" / "250301-100000", expand(levels, 4),
                     spelling=spelling)
    for case, expected in (("collapse", ["graduated_regression"]), ("holds", [])):
        ingest = curriwatch.load(tmp_path / case)
        (info,) = ingest.runs
        assert (info.profile, info.performance_metric) == ("tianshou", "return")
        frame = ingest.frame[ingest.frame.metric == "return"]
        assert sorted(frame.env_id.unique()) == ["Hopper-v4"]
        assert (frame.split == "train").sum() == 140 and (frame.split == "eval").sum() == 35
        (run,) = curriwatch.analyze(ingest).to_dict()["runs"]
        assert [w["type"] for w in run["warnings"]] == expected, (spelling, case, run["warnings"])
