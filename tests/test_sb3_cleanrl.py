"""Stable-Baselines3 and CleanRL runs: one env per run, their keys and steps, and their verdicts.

Runs are written the way the libraries write them: tests/rl_writers.py reproduces SB3's Logger /
TensorBoardOutputFormat, OnPolicyAlgorithm, DQN and EvalCallback, and CleanRL's ppo.py, dqn.py and
envpool/JAX scripts call for call (file:line in its docstrings), with tensorboardX in place of
torch. What the agent achieves is an expected return per iteration in the series notation of
tests/series.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import curriwatch
from curriwatch.cli import app
from rl_writers import SB3DQN, SB3OnPolicy, cleanrl_dqn, cleanrl_dqn_outcomes, cleanrl_ppo, cleanrl_ppo_envpool_xla
from series import expand

runner = CliRunner()
PLAIN = {"NO_COLOR": "1", "COLUMNS": "100"}
LEARNS = "10+5x40 210~4x60"  # learns for 40 iterations, then holds ~210
COLLAPSES = LEARNS + " 60~4x40"  # ... then falls to 60 for good
SB3_RUNTIME_KEYS = ["time/fps", "train/approx_kl", "train/clip_fraction", "train/clip_range", "train/entropy_loss",
                    "train/explained_variance", "train/loss", "train/policy_gradient_loss", "train/value_loss"]


def json_report(logdir, *args) -> dict:
    result = runner.invoke(app, ["report", str(logdir), "--format", "json", "--fail-on", "never", *args], env=PLAIN)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def only_env(run: dict) -> dict:
    (env,) = run["environments"]
    return env


def incidents(run: dict) -> list[tuple[str, str]]:
    return [(w["type"], w["severity"]) for w in run["warnings"]]


def series(frame, run: str, split: str, metric: str) -> list[int]:
    sel = frame[(frame.run == run) & (frame.split == split) & (frame.metric == metric)]
    return sel.step.tolist()


def test_sb3_run_folders_keys_and_steps(tmp_path):
    # PPO("MlpPolicy", env, tensorboard_log="./ppo_cartpole_tensorboard/") as in SB3's docs
    agent = SB3OnPolicy(tmp_path / "ppo_cartpole_tensorboard", n_envs=4, n_steps=128, eval_freq=256,
                        success_at=150.0, seed=1)
    first = agent.learn(expand("10+5x20", 1))  # tb_log_name="PPO" (ppo/ppo.py:307)
    second = agent.learn(expand("10+5x20", 2))
    assert [Path(first).name, Path(second).name] == ["PPO_1", "PPO_2"]  # get_latest_run_id + 1
    ingest = curriwatch.load(tmp_path)
    # the default folder names say only the algorithm: the env is the tensorboard_log folder
    assert [(r.name, r.profile, r.performance_metric, r.envs) for r in ingest.runs] == [
        ("ppo_cartpole_tensorboard/PPO_1", "sb3", "ep_rew_mean", ["ppo_cartpole_tensorboard"]),
        ("ppo_cartpole_tensorboard/PPO_2", "sb3", "ep_rew_mean", ["ppo_cartpole_tensorboard"])]
    run = ingest.runs[0]
    # time/fps and the algorithm's train/* losses are about the run, not the env: notes, not metrics;
    # time/iterations, time/total_timesteps, train/n_updates were excluded from TensorBoard by SB3
    assert run.unclaimed_tags == SB3_RUNTIME_KEYS
    assert not [i for i in run.issues if i.kind != "unclaimed_tags"]
    frame, name = ingest.frame, run.name
    # dump_logs(step=num_timesteps) after every rollout of 4 envs x 128 steps
    assert series(frame, name, "train", "ep_rew_mean") == [512 * i for i in range(1, 21)]
    assert series(frame, name, "train", "success_rate") == [512 * i for i in range(1, 21)]
    # EvalCallback every 256 calls of 4 envs: eval/mean_reward is the same metric as the train return
    assert series(frame, name, "eval", "ep_rew_mean") == [1024 * i for i in range(1, 11)]
    assert series(frame, name, "eval", "success_rate") == [1024 * i for i in range(1, 11)]
    assert series(frame, name, "eval", "ep_len_mean") == [1024 * i for i in range(1, 11)]
    assert set(frame[frame.run == name].metric) == {"ep_rew_mean", "ep_len_mean", "success_rate"}


def test_sb3_env_of_rl_zoo_and_named_runs(tmp_path):
    # RL Zoo: tensorboard_log/{env_name}/ (rl_zoo3/exp_manager.py:189), default tb_log_name per algorithm
    SB3OnPolicy(tmp_path / "logs" / "tensorboard" / "CartPole-v1").learn(expand("10+5x5", 1))
    SB3OnPolicy(tmp_path / "logs" / "tensorboard" / "Pendulum-v1").learn(expand("10+5x5", 1), tb_log_name="RecurrentPPO")
    SB3OnPolicy(tmp_path / "logs" / "tensorboard" / "Pendulum-v1").learn(expand("10+5x5", 1), tb_log_name="level_2")
    ingest = curriwatch.load(tmp_path / "logs")
    assert {r.name: r.envs for r in ingest.runs} == {
        "tensorboard/CartPole-v1/PPO_1": ["CartPole-v1"], "tensorboard/Pendulum-v1/RecurrentPPO_1": ["Pendulum-v1"],
        "tensorboard/Pendulum-v1/level_2_1": ["level_2_1"]}  # a name of the user's own says the env
    (run,) = curriwatch.load(tmp_path / "logs" / "tensorboard" / "CartPole-v1" / "PPO_1").runs
    assert run.envs == ["CartPole-v1"]  # the same env whichever folder is scanned


def test_sb3_dqn_dumps_every_fourth_episode(tmp_path):
    SB3DQN(tmp_path / "mountaincar", episode_length=50).learn(expand("10+10x10", 1), steps_per_level=100)
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.name, run.profile, run.envs, run.unclaimed_tags) == (
        "mountaincar/DQN_1", "sb3", ["mountaincar"], ["time/fps", "train/loss"])
    assert series(ingest.frame, run.name, "train", "ep_rew_mean") == list(range(200, 1001, 200))
    assert series(ingest.frame, run.name, "train", "exploration_rate") == list(range(200, 1001, 200))


def test_sb3_scan_gives_one_env_per_run_with_its_state(tmp_path):
    logs = tmp_path / "tensorboard"
    SB3OnPolicy(logs, eval_freq=512, seed=1).learn(expand(LEARNS, 1), tb_log_name="cartpole")
    SB3OnPolicy(logs, eval_freq=512, seed=2).learn(expand(COLLAPSES, 2), tb_log_name="pendulum")
    # a curriculum as one model trained level after level, each learn() its own folder; the
    # timesteps go on (reset_num_timesteps=False), so the folders are {tb_log_name}_0
    model = SB3OnPolicy(logs / "curriculum", eval_freq=512, seed=3)
    for level, notation in enumerate(["10+5x40 210~4x40", "10+5x40 210~4x40", "10+2x60"]):
        model.learn(expand(notation, level), tb_log_name=f"level_{level}", reset_num_timesteps=False)
    result = runner.invoke(app, ["scan", str(logs)], env=PLAIN)
    assert result.exit_code == 1, result.output  # the pendulum's collapse is critical
    assert "sb3 profile" in result.stdout and "gate failed: 1 incident(s) at or above critical" in result.stderr
    data = json_report(logs)
    runs = {r["run"]: r for r in data["runs"]}
    assert sorted(runs) == ["cartpole_1", "curriculum/level_0_0", "curriculum/level_1_0", "curriculum/level_2_0",
                            "pendulum_1"]
    for name, run in runs.items():
        assert run["profile"] == "sb3" and only_env(run)["env_id"] == name.rsplit("/", 1)[-1]
    steps = [runs[f"curriculum/level_{k}_0"]["step_range"] for k in range(3)]
    assert steps == [[512, 40960], [41472, 81920], [82432, 112640]]

    cartpole = only_env(runs["cartpole_1"])
    assert cartpole["current_state"] == "graduated" and runs["cartpole_1"]["health_status"] == "healthy"
    assert 18_000 <= cartpole["graduation_step"] <= 30_000 and 200 <= cartpole["graduation_baseline"] <= 215
    assert incidents(runs["cartpole_1"]) == []

    pendulum = runs["pendulum_1"]
    assert only_env(pendulum)["current_state"] == "graduated" and pendulum["health_status"] == "critical"
    assert incidents(pendulum) == [("graduated_regression", "critical")]
    (regression,) = pendulum["warnings"]
    assert 51_200 <= regression["first_step"] <= 51_200 + 8 * 512 and not regression["resolved"]  # fell at 51,200

    assert [only_env(runs[f"curriculum/level_{k}_0"])["current_state"] for k in range(3)] == \
        ["graduated", "graduated", "active"]
    for k in range(3):
        assert runs[f"curriculum/level_{k}_0"]["health_status"] == "healthy"

    # --group reads the levels as one curriculum: one timeline, later levels locked until trained,
    # and the blind spot SB3 leaves (EvalCallback evaluates only the level being trained) reported
    (run,) = json_report(logs / "curriculum", "--group", r"^(?P<group>level)_")["runs"]
    envs = {e["env_id"]: e for e in run["environments"]}
    assert [envs[f"level_{k}_0"]["current_state"] for k in range(3)] == ["graduated", "graduated", "active"]
    states = [(t["env_id"], t["state"], t["start_step"]) for t in run["timeline"] if t["env_id"] == "level_1_0"]
    assert [s[:2] for s in states] == [("level_1_0", "locked"), ("level_1_0", "active"), ("level_1_0", "graduated")]
    assert states[1][2] == 41472
    assert sorted((w["type"], w["env_id"]) for w in run["warnings"]) == [("eval_gap", "level_0_0"), ("eval_gap", "level_1_0")]


def test_one_extreme_batch_passing_sb3s_rolling_mean_is_no_regression(tmp_path):
    """rollout/ep_rew_mean is the mean of the last 100 episodes: one iteration at -400 (8 episodes) drops it
    by ~49 in one dump and leaves the buffer 12 dumps later, in two (its episodes end either side of a dump)
    — a boxcar, not a fall of the level, which enters such a mean as a ramp as long as its window (a drop
    to 150 for 12 iterations)."""
    SB3OnPolicy(tmp_path / "batch", seed=4).learn(expand(LEARNS + " -400 210~4x60", 4), tb_log_name="walker")
    assert incidents(json_report(tmp_path / "batch")["runs"][0]) == []
    SB3OnPolicy(tmp_path / "fall", seed=4).learn(expand(LEARNS + " 150~4x12 210~4x60", 4), tb_log_name="walker")
    assert len(incidents(json_report(tmp_path / "fall")["runs"][0])) == 1  # the fall that came back is reported


def test_one_extreme_batch_passing_a_short_rolling_mean_is_no_dip(tmp_path):
    """With 16 episodes a dump the window holds ~6 iterations: one iteration at -3000 takes the mean under
    half the gain for 7 dumps and leaves as it came — shorter than `dip_points`, so read as a short deep
    drop (volatility's dip) unless the drop's shape is a batch passing; three iterations at -100, which
    enter the mean as a ramp, are still a dip."""
    SB3OnPolicy(tmp_path / "batch", seed=4, episode_length=32).learn(expand(LEARNS + " -3000 210~4x60", 4),
                                                                     tb_log_name="walker")
    assert incidents(json_report(tmp_path / "batch")["runs"][0]) == []
    SB3OnPolicy(tmp_path / "fall", seed=4, episode_length=32).learn(expand(LEARNS + " -100~4x3 210~4x60", 4),
                                                                    tb_log_name="walker")
    (dip,) = json_report(tmp_path / "fall")["runs"][0]["warnings"]
    assert (dip["type"], dip["evidence"]["kind"]) == ("performance_volatility", "dip"), dip


def test_an_sb3_never_learner_is_stalled_however_its_rolling_mean_wanders(tmp_path):
    """ep_rew_mean is the mean of the last 100 episodes; at 4 episodes a dump (128-step episodes) it spans 25
    dumps and wanders with the episodes' noise / 10 — slowly, 5 x what its changes from dump to dump show.
    Read as independent points, an agent that never learns (expected return -200 throughout) made levels
    of that wander, rises and a graduation: 5 of these 8 seeds were healthy or misjudged. The window is read
    from the series (its changes correlate -0.5 at 25 dumps: each episode enters the mean and leaves it),
    and the noise as that wander: each is stalled from its first point."""
    for seed in range(8):
        SB3OnPolicy(tmp_path / str(seed), seed=seed, noise=60, episode_length=128).learn(
            expand("-200x200", seed), tb_log_name="pendulum")
        (run,) = json_report(tmp_path / str(seed))["runs"]
        assert [(w["type"], w["first_step"]) for w in run["warnings"]] == [("training_stagnation", 512)], (seed, run)


def test_switching_after_an_sb3_level_held_its_top_is_dated_from_its_first_change(tmp_path):
    """A level learns in 10 iterations (-1400 -> -250), holds -250 for 40, then switches between -750 and -250
    every 15 (as the sixth corpus writes SB3 levels). EvalCallback's first evals (every 512 steps) climb through
    the low level on the way up; read two-level they opened the eval series as switching's first low phase:
    switching from the first eval, graduation never inferred inside it, the level never graduated. They climb
    through their level: a learning rise — the switching begins at its first change (iteration 50, step
    25,600; the first eval after it) and the level graduated before it."""
    for seed in range(3):
        SB3OnPolicy(tmp_path / str(seed), seed=seed, noise=60, episode_length=128, eval_freq=512).learn(
            expand("-1400+115x10 -250x40 (-750x15 -250x15)x4", seed), tb_log_name="pendulum")
        (run,) = json_report(tmp_path / str(seed))["runs"]
        (w,) = run["warnings"]
        assert (w["type"], w["evidence"]["kind"]) == ("performance_volatility", "switching"), (seed, w)
        assert 25600 <= w["first_step"] <= 25600 + 2 * 512, (seed, w)
        assert [iv["state"] for iv in run["timeline"]] == ["active", "graduated"], (seed, run["timeline"])


def test_a_rolling_means_window_is_read_from_its_changes(tmp_path):
    """rolling_span: the lag at which an SB3 ep_rew_mean's changes are most negatively correlated is its
    window (100 episodes at 4 a dump: 25 dumps, within a few: episode ends fall either side of a dump);
    independent points show no such lag, nor does a wave (its changes are most negatively correlated at
    half its period, but correlated at every lag before it too) — a wave in a rolling mean is no wander."""
    import numpy as np
    from curriwatch.levels import rolling_span

    SB3OnPolicy(tmp_path, seed=1, noise=60, episode_length=128).learn(expand("-200x300", 1), tb_log_name="pendulum")
    frame = curriwatch.load(str(tmp_path)).frame
    y = frame[(frame.split == "train") & (frame.metric == "ep_rew_mean")].sort_values("step").value.to_numpy()
    assert abs(rolling_span(y) - 25) <= 2, rolling_span(y)
    assert rolling_span(np.random.default_rng(1).normal(0, 1, 300)) is None
    SB3OnPolicy(tmp_path / "wave", seed=1, noise=60, episode_length=128).learn(
        [200 + 150 * np.sin(2 * np.pi * i / 120) for i in range(600)], tb_log_name="cartpole")
    frame = curriwatch.load(str(tmp_path / "wave")).frame
    y = frame[(frame.split == "train") & (frame.metric == "ep_rew_mean")].sort_values("step").value.to_numpy()
    assert rolling_span(y) is None


def test_sb3_run_still_learning_is_active(tmp_path):
    SB3OnPolicy(tmp_path, seed=3).learn(expand("10+2x100", 3), tb_log_name="walker")
    env = only_env(json_report(tmp_path)["runs"][0])
    assert env["current_state"] == "active", env


def test_cleanrl_env_id_comes_from_the_run_name(tmp_path):
    runs_dir = tmp_path / "runs"
    cleanrl_ppo(runs_dir, "CartPole-v1", expand("10+10x10", 1), seed=1)
    cleanrl_ppo(runs_dir, "CartPole-v1", expand("10+10x10", 2), seed=2)
    cleanrl_ppo(runs_dir, "ALE/Breakout-v5", expand("10+10x10", 3), seed=1)  # the env id's / is a subfolder
    ingest = curriwatch.load(runs_dir)
    assert [(r.name, r.profile, r.performance_metric, r.envs) for r in ingest.runs] == [
        ("ALE/Breakout-v5__ppo__1__1700000000", "cleanrl", "episodic_return", ["Breakout-v5"]),
        ("CartPole-v1__ppo__1__1700000000", "cleanrl", "episodic_return", ["CartPole-v1"]),
        ("CartPole-v1__ppo__2__1700000000", "cleanrl", "episodic_return", ["CartPole-v1"])]
    run = ingest.runs[1]
    assert run.unclaimed_tags == ["charts/SPS", "charts/learning_rate", "losses/approx_kl", "losses/clipfrac",
                                  "losses/entropy", "losses/explained_variance", "losses/old_approx_kl",
                                  "losses/policy_loss", "losses/value_loss"]
    # one point per finished episode at global_step (4 envs: global_step grows by 4), 64-step
    # episodes: 2 episodes per env per iteration of 128 steps
    steps = series(ingest.frame, run.name, "train", "episodic_return")
    assert len(steps) == 10 * 4 * 2 and all(s % 4 == 0 for s in steps) and steps == sorted(steps)
    assert series(ingest.frame, run.name, "train", "episodic_length") == steps


def test_cleanrl_before_1_0_named_the_return_episode_reward(tmp_path):
    from writers import write_tb

    # v0.4.8 ppo.py:109-110 experiment_name and SummaryWriter, :235 the return per finished episode
    write_tb(tmp_path / "runs" / "BipedalWalker-v3__ppo_continuous_action__1__1630000000",
             {"charts/episode_reward": [(4 * i, float(i)) for i in range(1, 30)],
              "losses/value_loss": [(512 * i, 1.0) for i in range(1, 4)]})
    (run,) = curriwatch.load(tmp_path).runs
    assert (run.profile, run.envs, run.performance_metric) == ("cleanrl", ["BipedalWalker-v3"], "episodic_return")


def test_cleanrl_dqn_post_training_evaluation_is_not_on_the_training_axis(tmp_path):
    # dqn.py logs the saved model's evaluation at steps 0..9 (the episode index): left unclaimed,
    # so the env is judged on its training returns, not on ten points at the start of the run
    path = cleanrl_dqn(tmp_path / "runs", "Acrobot-v1", expand(LEARNS, 8), 200, eval_returns=[205.0] * 10)
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert run.name == f"runs/{path.name}" and run.envs == ["Acrobot-v1"] and run.profile == "cleanrl"
    assert "eval/episodic_return" in run.unclaimed_tags and set(ingest.frame.split) == {"train"}
    report = curriwatch.analyze(ingest)
    env = report.runs[0].environments[0]
    assert env.current_state == "graduated" and report.runs[0].health_status == "healthy"


def test_cleanrl_envpool_jax_scripts_are_judged_on_their_average_return(tmp_path):
    cleanrl_ppo_envpool_xla(tmp_path / "runs", "Pong-v5", expand(COLLAPSES, 9))
    data = json_report(tmp_path)
    (run,) = data["runs"]
    assert run["profile"] == "cleanrl"
    assert only_env(run)["env_id"] == "Pong-v5" and only_env(run)["current_state"] == "graduated"
    assert incidents(run) == [("graduated_regression", "critical")]
    (info,) = curriwatch.load(tmp_path).runs
    assert info.performance_metric == "avg_episodic_return"
    config = tmp_path / "c.yaml"  # the config still chooses
    config.write_text("performance_metric: episodic_return\n")
    (run,) = json_report(tmp_path, "--config", str(config))["runs"]
    assert run["health_status"] == "unknown" and "'episodic_return'" in only_env(run)["status_reason"]


def test_cleanrl_collapse_after_a_plateau_is_a_graduated_regression(tmp_path):
    cleanrl_ppo(tmp_path / "runs", "HalfCheetah-v4", expand(COLLAPSES, 7), seed=1)
    (run,) = json_report(tmp_path)["runs"]
    env = only_env(run)
    assert env["env_id"] == "HalfCheetah-v4" and env["current_state"] == "graduated"
    assert 200 <= env["graduation_baseline"] <= 215
    regressions = [w for w in run["warnings"] if w["type"] == "graduated_regression"]
    assert [(w["severity"], w["resolved"]) for w in regressions] == [("critical", False)]
    assert 51_200 <= regressions[0]["first_step"] <= 51_200 + 8 * 512


def test_cleanrl_learning_curve_raises_no_warning(tmp_path):
    cleanrl_ppo(tmp_path / "runs", "CartPole-v1", expand(LEARNS, 6), seed=1)
    (run,) = json_report(tmp_path)["runs"]
    assert only_env(run)["current_state"] == "graduated" and incidents(run) == []


LEARNS_TO_GOAL = [0.0] * 40 + [0.95 * k / 39 for k in range(40)]  # success rates, episode by episode


@pytest.mark.parametrize("seed", range(1, 5))
@pytest.mark.parametrize("shape", ["collapses", "holds", "never"])
def test_goal_or_timeout_episodes_are_outcomes_above_the_timeout(tmp_path, seed, shape):
    """CleanRL dqn.py's per-episode returns on MountainCar: -200 at the time limit, -100..-160 at the goal. A
    learner reaches the goal 95 % of the time, holds it, and either keeps it, or collapses to 20 % for good after
    episode 280; a never-learner reaches it 3 % of the time. Read as gaussian noise, a point is at one of two far
    levels: falls split into dips, switching and a regression that came back (or were missed), and a never-learner's
    rare goals were switching. Single episodes' outcomes above the timeout's value (one trial each, as a rate's
    0/1 flags) read them as what they are."""
    success = {"collapses": LEARNS_TO_GOAL + [0.95] * 200 + [0.2] * 200, "holds": LEARNS_TO_GOAL + [0.95] * 400,
               "never": [0.03] * 480}[shape]
    _folder, steps = cleanrl_dqn_outcomes(tmp_path / "runs", "MountainCar-v0", success, seed=seed)
    (run,) = json_report(tmp_path)["runs"]
    env = only_env(run)
    got = [(w["type"], w["severity"], w["resolved"]) for w in run["warnings"]]
    if shape == "never":
        assert env["current_state"] == "active" and got == [("training_stagnation", "warning", False)], got
        return
    assert env["current_state"] == "graduated" and env["graduation_step"] < steps[200]
    if shape == "holds":
        assert got == [], got
        return
    assert got == [("graduated_regression", "critical", False)], got
    assert steps[279] <= run["warnings"][0]["first_step"] <= steps[279 + 8]


def test_w_and_b_mirrors_of_sb3_and_cleanrl_take_their_steps_from_global_step():
    # sync_tensorboard=True: W&B's `_step` is a row counter; the TensorBoard step is `global_step`
    fixture = Path(__file__).parent / "fixtures" / "wandb_sync" / "run"
    ingest = curriwatch.load(fixture)
    runs = {r.name.split("-")[-1]: r for r in ingest.runs}
    cleanrl, sb3 = runs["cleanrldqn"], runs["sb3ppo"]
    assert (cleanrl.profile, cleanrl.envs) == ("cleanrl", ["CartPole-v1"])  # from the W&B run's name
    assert sb3.profile == "sb3" and sb3.envs == [sb3.name.rsplit("/", 1)[-1]]  # unnamed: its folder
    frame = ingest.frame
    assert series(frame, cleanrl.name, "train", "episodic_return") == list(range(49, 2000, 50))
    assert series(frame, sb3.name, "train", "ep_rew_mean") == [512 * i for i in range(1, 21)]
    assert series(frame, sb3.name, "eval", "ep_rew_mean") == [256 * i for i in range(1, 41)]
    assert "global_step" not in cleanrl.unclaimed_tags and "eval/episodic_return" in cleanrl.unclaimed_tags


def test_runs_with_only_runtime_keys_stay_unknown(tmp_path):
    from writers import write_tb

    write_tb(tmp_path / "PPO_1", {"time/fps": [(512 * i, 900.0) for i in range(1, 30)],
                                  "train/loss": [(512 * i, 0.1) for i in range(1, 30)]})
    (run,) = json_report(tmp_path)["runs"]
    assert run["health_status"] == "unknown" and run["profile"] is None
    assert run["status_reason"] == "no profile recognises its tags (try --profile or a user profile in the config)"
    (run,) = json_report(tmp_path, "--profile", "sb3")["runs"]  # forced: no env holds a return
    assert run["health_status"] == "unknown" and run["environments"] == []


SB3_TAGS = ["rollout/ep_rew_mean", "rollout/ep_len_mean", "rollout/success_rate", "time/fps", "train/loss",
            "train/value_loss", "train/entropy_loss", "train/clip_range", "eval/mean_reward", "eval/mean_ep_length"]
CLEANRL_TAGS = ["charts/episodic_return", "charts/episodic_length", "charts/SPS", "charts/learning_rate",
                "losses/td_loss", "losses/q_values", "eval/episodic_return"]
OTHERS = {  # each framework's keys as the other tests write them
    "atropos": ["train/percent_correct", "eval/percent_correct", "train/completion_lengths", "gsm8k_0_train/percent_correct"],
    "generic": ["train/maze/reward", "eval/maze/reward", "curriculum/maze/state", "train/loss"],
    "roll": ["env/SimpleSokoban/success", "val/env/SimpleSokoban/success", "val/score/mean", "system/tps", "time/step"],
    "tinker": ["env/gsm8k/reward/total", "env/gsm8k/by_group/frac_mixed", "env/all/reward/total", "time/total"],
    "marin": ["inference.rollout/add/success_rate", "inference.eval/add/success_rate", "inference.weight_step"],
    "tune": ["ray/tune/env_runners/episode_return_mean", "ray/tune/evaluation/env_runners/episode_return_mean",
             "ray/tune/time_this_iter_s"],
    "mlagents": ["Environment/Cumulative Reward", "Environment/Lesson Number/wall", "Losses/Value Loss"],
}


def test_detection_claims_sb3_and_cleanrl_runs_and_steals_none():
    from curriwatch.profiles import BUILTIN_PROFILES, detect_profile

    profile, counts = detect_profile(SB3_TAGS, BUILTIN_PROFILES)
    assert profile.name == "sb3" and counts["sb3"] == 5 and max(c for n, c in counts.items() if n != "sb3") == 0
    profile, counts = detect_profile(CLEANRL_TAGS, BUILTIN_PROFILES)
    assert profile.name == "cleanrl" and counts["cleanrl"] == 2 and max(c for n, c in counts.items() if n != "cleanrl") == 0
    for name, tags in OTHERS.items():
        profile, counts = detect_profile(tags, BUILTIN_PROFILES)
        assert profile.name == name and counts["sb3"] == counts["cleanrl"] == 0, (name, counts)
    assert detect_profile(["time/fps", "time/iterations", "train/loss", "train/n_updates"], BUILTIN_PROFILES)[0] is None


def test_profile_option_help_names_every_built_in_profile():
    import typing

    from curriwatch.cli import ProfileOpt
    from curriwatch.profiles import BUILTIN_PROFILES

    help_text = typing.get_args(ProfileOpt)[1].help
    assert all(f" {name}," in help_text or f"({name}," in help_text for name in BUILTIN_PROFILES)
