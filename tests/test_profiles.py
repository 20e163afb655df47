"""Each built-in profile on a fixture in its framework's convention, detection, and user profiles."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import curriwatch
from curriwatch.errors import ConfigError
from curriwatch.render.common import notable_issues
from writers import torch_fixture, write_tb, write_wandb


def series_of(frame: pd.DataFrame, env: str, split: str, metric: str) -> list[tuple[int, float]]:
    sel = frame[(frame.env_id == env) & (frame.split == split) & (frame.metric == metric)]
    return list(zip(sel.step.tolist(), sel.value.tolist()))


def test_marin_steps_come_from_weight_step_and_train_step_columns(tmp_path):
    rows = []
    for i in range(12):
        lesson = ["addition", "sorting"][i % 2]
        rows.append({f"inference.rollout/{lesson}/success_rate": i / 20,
                     f"inference.rollout/{lesson}/total_count": 64, "inference.weight_step": 10 * i})
        if i % 4 == 3:
            rows.append({"inference.eval/addition/success_rate": 0.5 + i / 100,
                         "inference.eval/sorting/success_rate": 0.2 + i / 100,
                         "inference.train_step": 10 * i + 1})
            rows.append({"inference.micro_eval/sorting/success_rate": 0.3, "inference.train_step": 10 * i + 2})
    write_wandb(tmp_path, rows)  # logged without step=, as Marin's tracker does
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.profile == "marin" and info.performance_metric == "success_rate"
    frame = ingest.frame
    assert series_of(frame, "addition", "train", "success_rate") == [(10 * i, i / 20) for i in range(0, 12, 2)]
    assert series_of(frame, "sorting", "eval", "success_rate") == [(10 * i + 1, 0.2 + i / 100) for i in (3, 7, 11)]
    assert series_of(frame, "sorting", "micro_eval", "success_rate") == [(10 * i + 2, 0.3) for i in (3, 7, 11)]
    assert set(frame.env_id) == {"addition", "sorting"}
    assert "_runtime" not in info.unclaimed_tags and "inference.weight_step" not in info.unclaimed_tags


def test_atropos_env_id_drops_the_instance_number(tmp_path):
    rows = [{"gsm8k_0_train/percent_correct": i / 10, "gsm8k_0_eval/percent_correct": i / 20,
             "gsm8k_0_train/completion_lengths": 100 + i} for i in range(6)]
    write_wandb(tmp_path, rows, steps=[3 * i for i in range(6)])
    ingest = curriwatch.load(tmp_path)
    assert ingest.runs[0].profile == "atropos" and ingest.runs[0].performance_metric == "percent_correct"
    assert series_of(ingest.frame, "gsm8k", "train", "percent_correct") == [(3 * i, i / 10) for i in range(6)]
    assert series_of(ingest.frame, "gsm8k", "eval", "percent_correct") == [(3 * i, i / 20) for i in range(6)]


def test_roll_layout_written_by_torch(tmp_path):
    torch_fixture("roll", tmp_path)  # torch's SummaryWriter output, committed (tests/fixtures/torch)
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert info.name == "roll_exp/20261101-120000" and info.profile == "roll"
    assert info.performance_metric == "success"
    f32 = lambda x: float(np.float32(x))  # noqa: E731
    assert series_of(ingest.frame, "SimpleSokoban", "eval", "success") == [(s, f32(s / 80)) for s in range(0, 50, 10)]
    assert series_of(ingest.frame, "SimpleSokoban", "eval", "score/mean") == [(s, f32(s / 90)) for s in range(0, 50, 10)]
    assert series_of(ingest.frame, "SimpleSokoban", "train", "success") == [(s, f32(s / 100)) for s in range(0, 50, 5)]
    assert sorted(info.unclaimed_tags) == ["system/tps", "val/score/mean"]


def test_generic_with_state_series(tmp_path):
    write_tb(tmp_path / "run", {
        "train/maze/easy/reward": [(s, s / 10) for s in range(5)],  # env ids may hold "/"
        "eval/maze/easy/reward": [(4, 0.25)],
        "curriculum/maze/easy/state": [(0, 1), (4, 2)],
    })
    ingest = curriwatch.load(tmp_path)
    assert ingest.runs[0].profile == "generic"
    assert series_of(ingest.frame, "maze/easy", "state", "state") == [(0, 1.0), (4, 2.0)]
    assert series_of(ingest.frame, "maze/easy", "eval", "reward") == [(4, 0.25)]


def test_profile_option_overrides_detection_and_unknown_profile_is_an_error(tmp_path):
    write_tb(tmp_path / "run", {"train/a/reward": [(1, 0.5)], "env/b/success": [(1, 0.5)],
                                "env/c/success": [(1, 0.5)]})
    assert curriwatch.load(tmp_path).runs[0].profile == "roll"  # claims 2 of 3 tags
    forced = curriwatch.load(tmp_path, profile="generic")
    assert forced.runs[0].profile == "generic" and set(forced.frame.env_id) == {"a"}
    with pytest.raises(ConfigError, match="unknown profile 'nope'"):
        curriwatch.load(tmp_path, profile="nope")


def test_user_profile_from_yaml(tmp_path):
    write_tb(tmp_path / "logs" / "run", {
        "lesson.alpha.train.success": [(s, s / 4) for s in range(4)],
        "lesson.alpha.test.success": [(3, 0.7)],
        "global_step_time": [(s, 1.0) for s in range(4)],
    })
    config = tmp_path / "curriwatch.yaml"
    config.write_text(
        "profiles:\n"
        "  mylab:\n"
        "    patterns:\n"
        "      - regex: '^lesson\\.(?P<env>[^.]+)\\.(?P<split>train|test)\\.(?P<metric>.+)$'\n"
        "    performance_metric: success\n"
    )
    ingest = curriwatch.load(tmp_path / "logs", config=config)
    (info,) = ingest.runs
    assert info.profile == "mylab" and info.performance_metric == "success"
    assert series_of(ingest.frame, "alpha", "eval", "success") == [(3, 0.699999988079071)]
    assert info.unclaimed_tags == ["global_step_time"]


def test_run_env_patterns_name_the_w_and_b_run_states_in_words_too(tmp_path):
    rows = [{"perf/return": float(i), "stage": ["active", "active", "graduated"][min(i // 3, 2)]} for i in range(9)]
    rows[4]["note"] = "checkpoint saved"  # a string no profile reads: skipped
    write_wandb(tmp_path, rows, steps=list(range(0, 90, 10)), run_id="maze7", name="maze_7")
    config = tmp_path / "curriwatch.yaml"
    config.write_text(
        "profiles:\n"
        "  mazes:\n"
        "    patterns:\n"
        "      - {regex: '^perf/(?P<metric>return)$', env: '{run}', split: train}\n"
        "      - {regex: '^stage$', env: '{run}', split: state, metric: state}\n"
        "    performance_metric: return\n"
    )
    ingest = curriwatch.load(tmp_path, config=config)
    (info,) = ingest.runs
    assert info.envs == ["maze_7"]  # the W&B run's name, not its offline-run-... folder
    assert series_of(ingest.frame, "maze_7", "state", "state") == [(s, 1.0 if s < 60 else 2.0) for s in range(0, 90, 10)]
    # the words read as states are a note, not a data issue; only the string nobody reads was skipped
    issues = {i.kind: i.detail for i in info.issues}
    assert issues["state_words"] == "9 state word(s) (locked, active, graduated) read as states (keys: stage)"
    assert issues["non_numeric_values"] == "1 value(s) were not numbers and were skipped (keys: note)"
    assert notable_issues(info.issues) == [i for i in info.issues if i.kind == "non_numeric_values"]


def test_a_user_profiles_run_env_names_each_run_folders_env_from_its_path(tmp_path):
    """Tianshou's TensorboardLogger writes one folder per task, log/{task}/{algo}/{seed}/{now} (thu-ml/tianshou
    f240205, examples/mujoco/mujoco_ppo.py:183-184): `env: "{run}"` alone names each env after its start time;
    a profile's `run_env` regex, searched in the run's path, names it after the task instead."""
    for task, now in (("CartPole-v1", "260424-074259"), ("Acrobot-v1", "260424-082505")):
        write_tb(tmp_path / "log" / task / "ppo" / "0" / now, {"test/returns_stat/mean": [(0, 10.0), (1000, 150.0)]})
    body = ("profiles:\n  tianshou:\n    patterns:\n"
            "      - {regex: '^(?P<split>test|train)/returns_stat/mean$', env: '{run}', metric: reward}\n"
            "    performance_metric: reward\n")
    config = tmp_path.parent / f"{tmp_path.name}.yaml"
    config.write_text(body)
    assert sorted(curriwatch.load(tmp_path, config=config).frame.env_id.unique()) == ["260424-074259", "260424-082505"]
    config.write_text(body + "    run_env: 'log/(?P<env>[^/]+)/'\n")
    frame = curriwatch.load(tmp_path, config=config).frame
    assert sorted(frame.env_id.unique()) == ["Acrobot-v1", "CartPole-v1"]
    assert series_of(frame, "CartPole-v1", "eval", "reward") == [(0, 10.0), (1000, 150.0)]


def test_state_words_take_the_step_of_their_row_like_the_numbers_beside_them(tmp_path):
    """Logged without step= (W&B counts rows in _step), the row's learner_step is the step: of the state
    words in it (locked/active/graduated) as of its numbers. A row whose state word has no learner_step
    beside it is reported, not placed at the row counter."""
    words = ["locked", "active", "active", "graduated", "graduated"]
    rows = [{"learner_step": 1000 * (i + 1), "env/go/win_rate": 0.2 * i, "env/go/phase": w} for i, w in enumerate(words)]
    rows.append({"env/go/phase": "active"})  # no learner_step in this row
    write_wandb(tmp_path, rows, run_id="elo")
    config = tmp_path / "curriwatch.yaml"
    config.write_text(
        "profiles:\n"
        "  games:\n"
        "    patterns:\n"
        "      - regex: '^env/(?P<env>[a-z]+)/(?P<metric>win_rate)$'\n"
        "        split: train\n"
        "      - {regex: '^env/(?P<env>[a-z]+)/phase$', split: state, metric: state}\n"
        "    performance_metric: win_rate\n"
        "    step_key: learner_step\n"
    )
    ingest = curriwatch.load(tmp_path, config=config)
    assert series_of(ingest.frame, "go", "train", "win_rate") == [(1000 * (i + 1), pytest.approx(0.2 * i)) for i in range(5)]
    assert series_of(ingest.frame, "go", "state", "state") == [(1000 * (i + 1), {"locked": 0.0, "active": 1.0, "graduated": 2.0}[w])
                                                               for i, w in enumerate(words)]
    assert any(i.kind == "missing_step_key" and "state word" in i.detail for i in ingest.runs[0].issues)


@pytest.mark.parametrize("body, message", [
    ("profiles:\n  p:\n    patterns: ['^(?P<split>train)/(?P<metric>.+)$']\n    performance_metric: r\n",
     r"profiles.p.patterns\[0\].regex: needs a named group \(\?P<env>"),
    ("profiles:\n  p:\n    patterns: ['^(?P<env>[a-']\n    performance_metric: r\n",
     r"profiles.p.patterns\[0\].regex: does not compile"),
    ("profiles:\n  p:\n    patterns: ['^(?P<env>.+)$']\n    performance_metric: r\n",
     r"profiles.p.patterns\[0\]: give `split:`"),
    ("profiles:\n  p:\n    patterns: ['^(?P<env>.+)$']\n    colour: red\n", r"profiles.p.colour: unknown key"),
    ("profiles:\n  p:\n    patterns: [{regex: '^(?P<metric>r)$', env: '{run}', split: train}]\n"
     "    performance_metric: r\n    run_env: 'log/([^/]+)/'\n", r"profiles.p.run_env: needs a named group \(\?P<env>"),
    ("profiles:\n  p:\n    patterns: [{regex: '^(?P<metric>r)$', env: '{run}', split: train}]\n"
     "    performance_metric: r\n    rolling_mean: [train, episodes]\n", r"profiles.p.rolling_mean: expected a split"),
    ("profiles:\n  p:\n    patterns: [{regex: '^(?P<metric>r)$', env: '{run}', split: train}]\n"
     "    performance_metric: r\n    rolling_mean: {train: 100}\n", r"profiles.p.rolling_mean: expected a split"),
    ("profiles:\n  p:\n    patterns: [{regex: '^(?P<metric>r)$', env: '{run}', split: train}]\n"
     "    performance_metric: r\n    rolling_mean: state\n", r"profiles.p.rolling_mean: a state series is no rolling"),
])
def test_bad_user_profiles_name_the_key(tmp_path, body, message):
    config = tmp_path / "c.yaml"
    config.write_text(body)
    with pytest.raises(ConfigError, match=message):
        curriwatch.load_config(config)


def test_nemo_rl_per_agent_rewards_are_envs(tmp_path):
    """NeMo-RL's TensorboardLogger (`{log_dir}/exp_001/tensorboard`) of GRPO over NeMo-Gym agents: per-agent
    `{agent}/reward/{mean,max,min,median,stddev}` under `train/` every step and `validation/` every val_period
    (nemo_rl/experience/rollouts.py:2718-2749, metric_utils.py:24-44), beside many run-level `train/{stat}/{agg}`
    keys. The generic profile claims more of them (`train/{agent}/reward/mean` as env `{agent}/reward`, metric
    `mean`) but finds no `reward`: the profile that finds its performance metric reads the run."""
    import curriwatch
    from writers import write_tb

    series = {}
    for agent, top in (("math_simple_agent", 0.8), ("code_simple_agent", 0.6)):
        for stat in ("mean", "max", "min", "median", "stddev"):
            series[f"train/{agent}/reward/{stat}"] = [(s, min(top, s / 100)) for s in range(1, 201)]
        series[f"validation/{agent}/reward/mean"] = [(s, min(top, s / 100)) for s in range(0, 201, 10)]
    for stat in ("gen_tokens_per_sample", "natural_termination_rate", "truncation_rate", "total_reward"):
        for agg in ("mean", "max", "min"):
            series[f"train/{stat}/{agg}"] = [(s, 300.0) for s in range(1, 201)]
    write_tb(tmp_path / "logs" / "exp_001" / "tensorboard", series)
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.profile, sorted(run.envs)) == ("nemo_rl", ["code_simple_agent", "math_simple_agent"])
    f = ingest.frame
    assert set(f.metric) == {"reward"} and len(f[f.split == "eval"]) == 2 * 21


def test_benchmarl_wandb_keys_are_read_by_their_profile(tmp_path):
    """BenchMARL's WandbLogger keeps `/` (benchmarl/experiment/logger.py:266-272): per-group `eval/{group}/…` and
    `train/{group}/…` keys make the generic profile claim more, without a `reward` metric; `benchmarl` reads it."""
    import curriwatch
    from writers import write_wandb

    rows = []
    for it in range(60):
        row = {"collection/reward/episode_reward_mean": min(50.0, it), "collection/reward/episode_reward_min": 0.0,
               "collection/reward/episode_reward_max": 60.0, "train/agents/loss_actor": 0.1,
               "train/agents/loss_qvalue": 0.2, "collection/agents/reward/episode_reward_mean": 1.0,
               "counters/total_frames": 6000 * it}
        if it % 5 == 0:
            row.update({"eval/reward/episode_reward_mean": min(50.0, it), "eval/agents/reward/episode_reward_mean": 1.0,
                        "eval/agents/reward/episode_reward_min": 0.0, "eval/agents/reward/episode_reward_max": 2.0})
        rows.append(row)
    name = "mappo_balance_mlp__1a2b3c4d_25_06_01-12_00_00"
    write_wandb(tmp_path / "wandb", rows, run_id=name, name=name)
    (run,) = curriwatch.load(tmp_path).runs
    assert (run.profile, run.envs) == ("benchmarl", ["mappo_balance_mlp"])
