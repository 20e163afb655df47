"""OpenAI baselines' logger output read by the `baselines` and `her` profiles, and a user profile's `rolling_mean`.

PPO2 runs are written by tests/rl_writers.BaselinesPPO2 (ppo2.learn's logging call for call, with baselines'
CSVOutputFormat and its TensorBoard copy in `tb/`); HER logdirs by the epoch loop of tests/test_csvlog.py.
"""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import curriwatch
from curriwatch.cli import app
from rl_writers import BaselinesPPO2
from series import expand
from test_csvlog import _her_logdir

runner = CliRunner()
LEARNS = "10+5x40 210~4x60"  # learns for 40 updates, then holds ~210
ROLLING_USER_PROFILE = """\
profiles:
  mine:
    patterns:
      - {regex: '^eprewmean$', env: "{run}", split: train, metric: eprewmean}
    performance_metric: eprewmean
ROLLING
profile: mine
"""


def report(logdir, *args) -> dict:
    result = runner.invoke(app, ["report", str(logdir), "--format", "json", "--fail-on", "never", *args],
                           env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def incidents(run: dict) -> list[tuple[str, str, str]]:
    return sorted((w["type"], w["severity"], w["env_id"]) for w in run["warnings"])


@pytest.mark.parametrize("tensorboard", [False, True])
def test_a_ppo2_run_is_one_env_named_after_its_logdir(tmp_path, tensorboard):
    """progress.csv alone (the logger's default formats) or with its tb/ copy, which is then the one read: either way
    the env is the logger's folder, never `tb`, and a collapse after it graduated is a critical regression."""
    BaselinesPPO2(tmp_path / "Walker2d-v2", seed=4, tensorboard=tensorboard).learn(expand(LEARNS + " 60~4x40", 4))
    (run,) = report(tmp_path)["runs"]
    assert (run["profile"], run["source"]) == ("baselines", "tensorboard" if tensorboard else "csvlog")
    (env,) = run["environments"]
    assert env["env_id"] == "Walker2d-v2" and env["current_state"] == "graduated"
    assert incidents(run) == [("graduated_regression", "critical", "Walker2d-v2")]
    # the CSV's step is misc/total_timesteps (nenvs 4 x nsteps 128 an update); tb/ counts dumps from 1
    ingest = curriwatch.load(tmp_path)
    assert ingest.runs[0].performance_metric == "eprewmean"
    steps = sorted(ingest.frame[ingest.frame.metric == "eprewmean"].step.unique())
    assert steps[:2] == ([1, 2] if tensorboard else [512, 1024]) and len(steps) == 140


def test_one_extreme_batch_passing_eprewmeans_window_is_no_regression(tmp_path):
    """eprewmean is the mean of the last 100 episodes (ppo2.py:118): one update at -400 (8 episodes) drops it for as
    long as those episodes stay in the deque and leaves as it came. The `baselines` profile reads it as the rolling
    mean it is; a user profile reading the same key does so with `rolling_mean: train`, and without it reports the
    passing batch as a regression of the level."""
    BaselinesPPO2(tmp_path / "batch" / "Walker2d-v2", seed=4).learn(expand(LEARNS + " -400 210~4x60", 4))
    BaselinesPPO2(tmp_path / "fall" / "Walker2d-v2", seed=4).learn(expand(LEARNS + " 150~4x12 210~4x60", 4))
    for rolling, batch_incidents in (("", [("graduated_regression", "warning", "Walker2d-v2")]),
                                     ("    rolling_mean: train", [])):
        config = tmp_path / f"c{len(rolling)}.yaml"
        config.write_text(ROLLING_USER_PROFILE.replace("ROLLING", rolling))
        (run,) = report(tmp_path / "batch", "--config", str(config))["runs"]
        assert run["profile"] == "mine" and incidents(run) == batch_incidents, (rolling, run["warnings"])
    assert incidents(report(tmp_path / "batch")["runs"][0]) == []
    # a fall of the level for 12 updates that came back is still reported, rolling mean or not
    (run,) = report(tmp_path / "fall")["runs"]
    assert run["profile"] == "baselines" and [i[0] for i in incidents(run)] == ["graduated_regression"]


def test_ppo1_and_deepq_returns_are_the_same_metric(tmp_path):
    """ppo1/trpo_mpi log `EpRewMean` at TimestepsSoFar, deepq `mean 100 episode reward` at `steps`."""
    from writers import BaselinesCsvOutput

    for folder, key, step_key in (("ppo1", "EpRewMean", "TimestepsSoFar"), ("deepq", "mean 100 episode reward", "steps")):
        (tmp_path / folder).mkdir()
        out = BaselinesCsvOutput(tmp_path / folder / "progress.csv")
        for i in range(1, 31):
            out.writekvs({step_key: 1000 * i, key: float(min(i, 20)), "EpisodesSoFar": 10 * i})
        out.close()
    ingest = curriwatch.load(tmp_path)
    assert sorted((r.name, r.profile, r.performance_metric) for r in ingest.runs) == [
        ("deepq", "baselines", "eprewmean"), ("ppo1", "baselines", "eprewmean")]
    for env in ("ppo1", "deepq"):
        got = ingest.frame[(ingest.frame.env_id == env) & (ingest.frame.metric == "eprewmean")]
        assert list(zip(got.step, got.value)) == [(1000 * i, float(min(i, 20))) for i in range(1, 31)]


@pytest.mark.parametrize("tensorboard", [False, True])
def test_her_success_rates_are_read_by_the_her_profile(tmp_path, tensorboard):
    """HER's test/success_rate (the evaluator) is eval, train/success_rate (the exploring workers) train; the env is
    the logdir's name, from progress.csv or its tb/ copy."""
    series = _her_logdir(tmp_path / "FetchPush-v1", epochs=30, tb=tensorboard)
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.profile, info.performance_metric) == ("her", "success_rate")
    frame = ingest.frame
    for split, key in (("eval", "test/success_rate"), ("train", "train/success_rate")):
        got = frame[(frame.env_id == "FetchPush-v1") & (frame.split == split) & (frame.metric == "success_rate")]
        shift = 0 if tensorboard else 1  # the CSV's step is the epoch from 0, the tb/ copy counts dumps from 1
        assert list(got.step) == [s - shift for s, _v in series[key]]
        assert list(got.value) == pytest.approx([v for _s, v in series[key]], rel=1e-6)  # tb/ holds float32


def test_a_run_that_logs_more_generic_keys_stays_with_the_generic_profile(tmp_path):
    """`train/success_rate` beside per-env `train/{env}/success_rate` keys: the generic profile claims more of them."""
    from writers import write_tb

    write_tb(tmp_path / "run", {**{f"train/{e}/reward": [(i, 0.1 * i) for i in range(5)] for e in ("a", "b")},
                                "train/success_rate": [(i, 0.1 * i) for i in range(5)]})
    (info,) = curriwatch.load(tmp_path).runs
    assert info.profile == "generic"
