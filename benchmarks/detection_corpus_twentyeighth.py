"""The twenty-eighth detection corpus (`python benchmarks/detection.py --corpus twentyeighth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles with `env: "{run}"`, `run_env`,
what a rate is, logging shapes, which files are read — MLflow file stores among them —, what `unknown` means;
detection.py's label format and scorer; the twenty-sixth and twenty-seventh corpora as examples of the interface — the
truth, placement and labelling helpers below are the twenty-seventh's —; tests/writers.py), without reading the
analysis code and without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentyeighth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (10 stoix_tb, 10 stoix_wandb, 20 slime, 20 torchrl_mlflow), one group folder per
convention, each with a curriwatch.yaml a user would write from the README. Chosen for what the twenty-seven other
corpora do not cover: InstaDeep's Stoix (JAX single-agent systems; its TensorBoard and W&B loggers), THUDM's slime (LLM
RL; per-dataset evaluations through W&B), and TorchRL's MLFlowLogger (the sota-implementations' PPO and SAC scripts with
`logger.backend=mlflow`, an MLflow file store; no corpus had an MLflow run):

  stoix_tb / stoix_wandb
             EdanToledo/Stoix@8fff19c94a478c1e1ff75fbf10396d488aa25d70: stoix/utils/logger.py:28-33 LogEvent (`actor`,
             `trainer`, `evaluator`, `absolute`, `misc`), :134-160 `_log` (trainer metrics averaged, the others
             `describe`d into `{key}/mean|std|min|max`, :607-613), :187-193 log_dict flattens with "/", :301-319
             TensorboardLogger (the `tensorboard_logger` package's `configure({base_exp_path}/tensorboard/{system}/
             {unique_token})` and `log_value(f"{event}/{key}", value, t)` where `t = step if event != EVAL else
             eval_step`: the evaluator's points sit at the evaluation's index 0, 1, 2, ..., every other event's at
             the env steps), :452-532 WandBLogger (`name=unique_token`, `group="_".join(group_tag)`, with
             `detailed_logging: False` only keys without "/" or ending in "/mean", `wandb.log({key: value},
             step=step)` one key a call, every event at the env steps), :563-604 unique_token
             `%Y%m%d%H%M%S`, get_logger_path `{logger_type}/{system_name}`; stoix/configs/logger/logger.yaml
             (`base_exp_path: results/`, group_tag default `[delete]`); stoix/configs/arch/anakin.yaml
             (`num_eval_episodes: 128`, `num_evaluation: 20` evenly spaced); stoix/systems/ppo/anakin/ff_ppo.py:614-699
             (per evaluation: `t = steps_per_rollout * (eval_step + 1)`, `misc/timestep`, the actor's completed
             episodes when there are any, the trainer's losses, then the evaluator's episodes; after the loop the
             `absolute` metric of the best parameters at the last t). Gymnax, Brax, MinAtar and Jumanji returns on
             their own scales (CartPole 9..500, Acrobot −500..−75, MountainCar −200..−110, Pendulum −1,400..−150, Ant
             −300..6,500, HalfCheetah −100..9,000, Breakout-MinAtar 0..60, Snake 0..30, 2048 1,000..12,000),
             100..300 evaluations of 16..128 episodes (users raise num_evaluation from 20 to get a curve).
             stoix_tb: eval-only — the user profile claims `evaluator/episode_return/mean` alone (its points on the
             evaluation-index axis; the actor's, on env steps 1e4..1e6 times larger, are left out, unclaimed); each env
             swept from `logger.base_exp_path=results/{env}`, env by `run_env`. stoix_wandb: train
             (`actor/episode_return/mean`, the mean over the rollout's completed episodes, exploring) + eval at the env
             steps; each env's sweep launched from `sweeps/{env}/` (W&B's `wandb/` in the working directory), env by the
             profile's `run_env` on that path (Stoix's W&B name, its unique_token, holds no env; when the corpus was
             written curriwatch searched `run_env` in a W&B run's name alone, and the env was that token);
             `group_tag` set per run (the default `[delete]` would join every Stoix run under the logdir
             into one W&B group).
  slime      THUDM/slime@624b824a898ab0ec1fcb4d373004c7f3852bf515: slime/observability/wandb_utils.py:22-79 the
             primary W&B run (group = `{wandb_group}_{generate_id()}` with the default random suffix, name
             `{group}-RANK_{rank}`), :123-164 the secondary (the trainer's process: `wandb.init(id=wandb_run_id,
             resume="allow", mode offline)`, a second offline folder of the same id), :167-176 `define_metric`
             (`train/*` on `train/step`, `rollout/*` and `perf/*` on `rollout/step`, `eval/*` on `eval/step`);
             slime/observability/logging_utils.py:45-51 `wandb.log(metrics)` without `step=`;
             slime/observability/rollout_metrics.py:223-253 `eval/{dataset}` = the mean reward over the dataset's
             samples (every prompt x n_samples_per_eval_prompt), `eval/{dataset}/response_len/*`,
             `eval/{dataset}/truncated_ratio`, `eval/{dataset}-truncated_ratio`, `eval/step`, :256-271 the rollout
             row (`rollout/*`, `perf/*`, `rollout/step`); slime/observability/metric_utils.py:120-123
             compute_rollout_step (the rollout id, or with `--wandb-always-use-train-step` rollout_id x
             rollout_batch_size x n_samples_per_prompt // global_batch_size); train.py:49-91 (an evaluation before
             training at rollout 0 unless `--skip-eval-before-train`, then after rollout_id when
             should_run_periodic_action), slime/utils/misc.py:107-128 ((rollout_id + 1) % eval_interval == 0 or an
             epoch boundary (rollout_id + 1) % num_rollout_per_epoch == 0: irregular evals); slime/utils/arguments.py
             (`--eval-prompt-data name path ...`, `--n-samples-per-eval-prompt`). GRPO runs of 300..1,500 rollouts
             evaluated every 5..20 rollouts on 2..6 fixed sets of 30..500 problems of unequal difficulty (AIME-sized
             sets with 8..32 samples a prompt, large sets with 1..4), rewards 0/1 (deepscaler-style rm) or ±1
             (DAPO's `math_dapo` score: `eval/{dataset}` in [-1, 1]). Eval-only under a user profile
             `^eval/(?P<env>[a-z0-9_]+)$` (which `eval/step` also matches — README: a step axis is never a metric).
  torchrl_mlflow
             pytorch/rl@ae9719f17b1517af5c2523a36c4616f003ee55cf: torchrl/record/loggers/mlflow.py:49-113 MLFlowLogger
             (`mlflow.set_tracking_uri`, an MLflow experiment named after exp_name — `create_experiment` when absent
             —, `mlflow.start_run(experiment_id=...)` with no run name: MLflow names the run at random,
             `adjective-noun-NNN`; `log_metric(key, value, step)` per scalar), torchrl/record/loggers/utils.py:21-31
             generate_exp_name (`{model}_{experiment}_{uuid8}_{%y_%m_%d-%H_%M_%S}`), :99-105 get_logger("mlflow")
             (tracking_uri = the `logger_name` folder in the working directory, a file: URI),
             torchrl/record/loggers/common.py:360-391 log_metrics (one log_scalar a key);
             sota-implementations/ppo/ppo_mujoco.py:200-216, 286-378 (`train/reward` the mean return of the episodes
             that ended in the batch, absent when none did, `train/episode_length`, `train/loss_*`, `train/lr`,
             `train/clip_epsilon`, `eval/reward` the mean of num_test_episodes deterministic episodes when
             `(i - 1) * frames_in_batch // test_interval < i * frames_in_batch // test_interval` — one batch after
             the frame count crossed the interval — and at the end, `time/*`, all at collected_frames), config_mujoco.yaml
             (2,048 frames a batch, test_interval 1M by default — one eval at the end: users lower it —, 5 test
             episodes); sota-implementations/sac/sac.py:186-229 (`train/reward` of the episodes that ended in the
             1,000-frame batch, `train/q_loss`..., `eval/reward` when `collected_frames % eval_iter < frames_per_batch`,
             25,000 random frames first), sac/config.yaml. The MLflow file store as MLflow (< 3.10) writes it
             (mlflow/store/tracking/file_store.py; layout as on disk: `{root}/0/meta.yaml` the Default experiment,
             `{root}/{experiment_id}/meta.yaml`, run folder `{run_id}/meta.yaml` with `run_name`, `metrics/{key}` —
             `/` a folder — of `{timestamp_ms} {value} {step}` lines, `params/`, `tags/mlflow.runName`,
             `artifacts/`; experiment ids 18-digit, run ids uuid4 hex). One hydra launch a run
             (`outputs/{date}/{time}/{ppo|sac_logging}/`), MuJoCo returns (HalfCheetah −300..9,000, Hopper 10..3,300,
             Walker2d 0..4,500, Ant −100..5,000, Humanoid 100..5,500). Env = the MLflow run name through
             `env: "{run}"` (README: the env a `{run}` pattern stands for is its MLflow run name).

Truth, placement and labelling are the twenty-seventh corpus's (its docstring): skill s in [0, 1] at a fractional
point index x = (step - step0) / G, G the env's nominal judged interval (stoix_tb: 1 evaluation; stoix_wandb:
steps_per_rollout env steps, step0 = its first t; slime: eval_interval rollouts (x the train steps a rollout with
`--wandb-always-use-train-step`), step0 = 0; torchrl: test_interval / eval_iter frames). Judged values: Stoix and
TorchRL the mean over the evaluation's episodes of A + (B - A) clip(s + sd N); slime a fixed set (p_i = sigmoid(logit s
+ b_i), k samples each), mapped to 2 v - 1 for ±1 rewards. W = max(min(100 steps, 10 % of the span), 20 G); prolonged
windows Wp from the training logging where the profile claims training (stoix_wandb: every evaluation's rollout;
torchrl: every batch that ended an episode), else from the evals. Labels and clean negatives as the twenty-seventh's.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - tensorboard_logger's and torch's writers are stood in for by tensorboardX, the file renamed as tensorboard_logger
    names it (`events.out.tfevents.{int(time)}.{hostname}`);
  - stoix_tb's user profile leaves the actor out (its points would sit on the env-step axis beside evals numbered
    0..N-1); no Stoix checkpoint resumes, no JSON (marl-eval) logger files (curriwatch reads none);
  - slime's resumes (a new W&B run in a new random group) and its TensorBoard adapter are not written; with
    `--wandb-dir` set, the driver's primary run (group, name, config, no rows), the RolloutManager's secondary
    (rollout / eval rows) and the Megatron actor's secondary (`train/*` rows) are three offline folders of one id;
  - stoix_wandb's env is found by the profile's `run_env` on the folder path (`sweeps/{env}/wandb/`): curriwatch
    searched a W&B run's name alone until the twenty-ninth round;
  - MLflow's file store is written by hand (mlflow is not installed here); TorchRL's checkpoint restores (a new
    MLflow run in the same experiment) are not written; SAC's evaluation is k = 1..4 parallel eval envs, one episode
    each (the mean).
"""
from __future__ import annotations

import datetime
import json
import math
import os
import shutil
import sys
import tempfile
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 6
CYCLE = ("stoix_tb", "slime", "torchrl_mlflow", "stoix_wandb", "slime", "torchrl_mlflow")
UNREAD = ()  # conventions whose files curriwatch does not read (none of these three)
# (when the corpus was written, slime's primary W&B folder — the group record, no rows — was not joined with the two
# secondary folders of the same id that hold the rows, and was a run of its own, unknown; joined since the
# twenty-ninth round)
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "stoix_tb": """\
profiles:
  stoix_tb:
    patterns:
      - {regex: '^evaluator/episode_return/mean$', env: "{run}", split: eval, metric: return}
    performance_metric: return
    run_env: 'results/(?P<env>[^/]+)/tensorboard/'
profile: stoix_tb
""",
    "stoix_wandb": """\
profiles:
  stoix_wandb:
    patterns:
      - {regex: '^evaluator/episode_return/mean$', env: "{run}", split: eval, metric: return}
      - {regex: '^actor/episode_return/mean$', env: "{run}", split: train, metric: return}
    performance_metric: return
    run_env: 'sweeps/(?P<env>[^/]+)/wandb/'
profile: stoix_wandb
""",
    "slime": """\
profiles:
  slime:
    patterns:
      - {regex: '^eval/(?P<env>[a-z0-9_]+)$', split: eval, metric: reward}
    performance_metric: reward
profile: slime
""",
    "torchrl_mlflow": """\
profiles:
  torchrl_mlflow:
    patterns:
      - {regex: '^(?P<split>train|eval)/reward$', env: "{run}", metric: reward}
    performance_metric: reward
profile: torchrl_mlflow
""",
}
STOIX_GAMES = {  # env: (suite, A return at skill 0, B at skill 1, per-episode sd in skill units, episode length)
    "CartPole-v1": ("gymnax", 9.0, 500.0, 0.12, 500), "Acrobot-v1": ("gymnax", -500.0, -75.0, 0.08, 500),
    "MountainCar-v0": ("gymnax", -200.0, -110.0, 0.1, 200), "Pendulum-v1": ("gymnax", -1400.0, -150.0, 0.1, 200),
    "ant": ("brax", -300.0, 6500.0, 0.05, 1000), "halfcheetah": ("brax", -100.0, 9000.0, 0.04, 1000),
    "Breakout-MinAtar": ("minatar", 0.0, 60.0, 0.25, 1000), "Snake-v1": ("jumanji", 0.0, 30.0, 0.2, 400),
    "Game2048-v1": ("jumanji", 1000.0, 12000.0, 0.15, 1000),
}
STOIX_SYSTEMS = ("ff_ppo", "ff_dqn", "ff_sac", "ff_mpo", "rec_ppo", "ff_awr")
SLIME_SETS = {  # dataset: (problems, samples a prompt choices, difficulty spread)
    "aime24": (30, (8, 16, 32), 1.8), "aime25": (30, (8, 16, 32), 1.8), "hmmt25": (30, (8, 16, 32), 2.0),
    "amc23": (40, (4, 8, 16), 1.5), "math500": (500, (1, 2, 4), 1.4), "gsm8k": (400, (1, 1, 2), 1.0),
    "gpqa_diamond": (198, (1, 2, 4), 1.2), "minerva_math": (272, (1, 2, 4), 1.5), "olympiadbench": (300, (1, 2), 1.6),
    "livecodebench": (279, (1, 2, 4), 1.6), "ifeval": (300, (1, 2), 1.0),
}
MUJOCO = {  # env: (A, B, per-episode sd in skill units, episode length, hi clip)
    "HalfCheetah-v4": (-300.0, 9000.0, 0.04, 1000, 1.1), "Hopper-v4": (10.0, 3300.0, 0.18, 1000, 1.08),
    "Walker2d-v4": (0.0, 4500.0, 0.15, 1000, 1.1), "Ant-v4": (-100.0, 5000.0, 0.1, 1000, 1.1),
    "Humanoid-v4": (100.0, 5500.0, 0.14, 1000, 1.08),
}
ADJ = ("bustling", "wistful", "rogue", "gentle", "capable", "merciful", "serious", "abundant", "brawny", "clumsy",
       "colorful", "dapper", "enchanting", "fearless", "gaudy", "hilarious", "intelligent", "judicious", "kindly",
       "legendary", "melodic", "nebulous", "orderly", "placid", "redolent", "sassy", "thundering", "unequaled",
       "valuable", "whimsical", "youthful", "zealous")
NOUN = ("owl", "ant", "stag", "hawk", "carp", "moth", "crab", "lark", "mule", "newt", "ram", "sow", "toad", "wasp",
        "yak", "bass", "bat", "calf", "cod", "deer", "doe", "eel", "finch", "fox", "gnu", "goat", "hen", "jay",
        "koi", "lynx", "mink", "roo")
HOSTS = ("dgx-a100-2", "gpu-node-07", "ws-4090", "slurm-h100-11")
@dataclass
class Env:
    name: str
    L: int               # judged points (nominal)
    G: float             # steps between judged points
    step0: int           # activation step (point 0)
    s0: float
    s1: float
    T: float
    kind: str = "binom"  # binom | fixedset | episodes
    n: float = 20.0      # trials a judged point averages
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    at: float | None = None
    knob: float = 1.0
    params: dict = field(default_factory=dict)

    def trials(self) -> int:
        return max(1, int(round(self.n * self.knob)))


def f_curve(curve: str, u):
    u = np.clip(u, 0.0, 1.0)
    if curve == "exp":
        return (1 - np.exp(-5 * u)) / (1 - math.exp(-5))
    if curve == "logistic":
        lo, hi = 1 / (1 + math.exp(6)), 1 / (1 + math.exp(-6))
        return (1 / (1 + np.exp(-12 * (u - 0.5))) - lo) / (hi - lo)
    if curve == "sqrt":
        return np.sqrt(u)
    return u


# --- observation models ------------------------------------------------------------------------------------------

def _logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def fixedset_probs(env: Env, s) -> np.ndarray:
    """Per problem of the fixed eval set: its solve probability at skill s (rows: entries of s)."""
    b = env.params["difficulty"][:env.trials()]
    s = np.atleast_1d(np.asarray(s, float))
    z = _logit(s)[:, None] + b[None, :]
    p = 1 / (1 + np.exp(-z))
    return np.where(s[:, None] <= 1e-4, 0.0, np.where(s[:, None] >= 1 - 1e-4, 1.0, p))


def fixedset_values(env: Env, s, rng) -> np.ndarray:
    """The mean outcome over the fixed set (k samples per problem) at each skill in s."""
    p = fixedset_probs(env, s)
    k = env.params.get("samples", 1)
    return rng.binomial(k, p).sum(axis=1) / (k * p.shape[1])


def ep_returns(env: Env, s, rng) -> np.ndarray:
    """One episode's return (or, for "steps" games, its length) per entry of s."""
    p = env.params
    s = np.asarray(s, float)
    if p["game_kind"] == "steps":
        won = rng.random(len(s)) < np.clip(s, 0, 1)
        return np.where(won, rng.integers(p["lo"], p["hi"] + 1, len(s)), p["cap"]).astype(float)
    u = np.clip(s + p["sd_ep"] * rng.standard_normal(len(s)), p.get("lo", -0.3), p.get("hi", 1.15))
    return p["A"] + (p["B"] - p["A"]) * u


def ep_expect(env: Env, s) -> np.ndarray:
    """The expected return of an episode at skill s (simulated once per level, interpolated)."""
    grid = env.params.get("_grid")
    if grid is None:
        lv = np.linspace(0, 1, 51)
        rng = np.random.default_rng(777)
        grid = np.array([ep_returns(env, np.full(4000, v), rng).mean() for v in lv])
        env.params["_grid"] = grid
    return np.interp(np.asarray(s, float), np.linspace(0, 1, 51), grid)


def sim_points(env: Env, s: float, k: int, rng) -> np.ndarray:
    """k independent judged values at a constant skill s."""
    if env.kind == "binom":
        return rng.binomial(env.trials(), np.clip(s, 0, 1), k) / env.trials()
    if env.kind == "fixedset":
        return fixedset_values(env, np.full(k, s), rng)
    return ep_returns(env, np.full(k * env.trials(), s), rng).reshape(k, env.trials()).mean(axis=1)


def point_sd(env: Env, s: float) -> float:
    return float(np.std(sim_points(env, s, 300, np.random.default_rng(12345))))


def point_mean(env: Env, s: float) -> float:
    if env.kind == "binom":
        return float(s)
    if env.kind == "fixedset":
        return float(fixedset_probs(env, np.array([s])).mean())
    return float(ep_expect(env, np.array([s]))[0])


def gain_E(env: Env, lo: float, hi: float) -> float:
    return abs(point_mean(env, hi) - point_mean(env, lo))


# --- truth ---------------------------------------------------------------------------------------------------------

def truth(env: Env, x) -> np.ndarray:
    """Skill at (fractional) point index x."""
    x = np.asarray(x, float)
    g = env.s1 - env.s0
    v, p = env.variant, env.params
    if v == "never":
        s = np.full(len(x), env.s0)
    elif v == "freeze":
        s = env.s0 + p["fr"] * g * np.minimum(np.maximum(x, 0) / p["R"], 1.0)
    elif v == "riser":
        s = env.s0 + p["rate"] * g * np.maximum(x, 0)
    else:
        s = env.s0 + g * f_curve(env.curve, np.maximum(x, 0.0) / env.T)
    if v in ("sudden", "gradual"):
        R, keep_s = p["R"], env.s0 + p["keep"] * g
        if v == "sudden":
            s = np.where(x >= env.at, keep_s, s)
        else:
            ramp = (x >= env.at) & (x < env.at + R)
            s = np.where(ramp, env.s1 + (keep_s - env.s1) * (x - env.at) / R, s)
            s = np.where(x >= env.at + R, keep_s, s)
    elif v == "dip":
        s = np.where((x >= env.at) & (x < env.at + p["D"]), env.s0 + p["keep"] * g, s)
    elif v == "burst":
        k = np.floor(x - env.at).astype(int)
        inb = (k >= 0) & (k < p["length"])
        drops = np.asarray(p["drops"])
        s = np.where(inb, env.s1 - drops[np.clip(k, 0, len(drops) - 1)], s)
    elif v == "switch":
        for lo, hi in p["phases"]:
            s = np.where((x >= lo) & (x < hi), env.s1 - p["gap"] * g, s)
    elif v == "wave":
        ph = 2 * math.pi * (x - env.at) / p["P"]
        s = np.where(x >= env.at, env.s1 - p["amp"] * g * (1 - np.cos(ph)) / 2, s)
    elif v == "level_shift":
        s = np.where(x >= env.at, env.s1 + p["shift"] * g, s)
    return np.clip(s, 0, 1)


def learn_end(env: Env, W: float) -> int:
    x = np.arange(env.L, dtype=float)
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, x / env.T)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    return int(math.ceil(hit[0] + 0.3 * W)) if len(hit) else env.L


def visible(env: Env, check) -> bool:
    base = env.knob
    for k in (1.0, 2.0, 4.0, 8.0):
        env.knob = base * k
        if check():
            return True
    env.knob = base
    return False


def place(run: dict, env: Env, ev: str, W: float, rng) -> bool:
    L = env.L
    g = env.s1 - env.s0
    rate = env.kind != "episodes"
    if ev == "graduated_regression":
        grad = learn_end(env, W)
        margin, tail = max(W, 10), max(2 * W, 15)
        variant = str(rng.choice(["sudden", "gradual"]))
        R = float(rng.uniform(0.5, 1.5)) * W if variant == "gradual" else 0.0
        lo, hi = grad + margin, L - tail - R
        if int(lo) >= int(hi):
            return False
        sev = str(rng.choice(["warning", "critical"]))
        keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        env.event, env.variant, env.severity, env.at = ev, variant, sev, int(rng.integers(int(lo), int(hi)))
        env.params.update(keep=keep, R=R)
        ks = env.s0 + keep * g
        return visible(env, lambda: gain_E(env, ks, env.s1) >= 4 * max(point_sd(env, env.s1), point_sd(env, ks)))
    if ev == "training_stagnation":
        single = len(run["envs"]) == 1
        variant = str(rng.choice(["never", "freeze"])) if rate else "never"
        if not rate and not single:
            return False
        if variant == "never":
            if L < 6 * W:
                return False
            env.event, env.variant = ev, variant
            return visible(env, lambda: gain_E(env, env.s0, env.s1) >= 6 * max(point_sd(env, env.s0), 1e-9))
        R = float(rng.uniform(max(0.4 * W, 6), max(0.8 * W, 7)))
        if L - R < 5 * W:
            return False
        fr = float(rng.uniform(0.2, 0.5))
        env.event, env.variant = ev, variant
        env.params.update(R=R, fr=fr)
        fs = env.s0 + fr * g
        return visible(env, lambda: gain_E(env, env.s0, fs) >= 5 * point_sd(env, fs))
    if ev == "performance_volatility":
        grad = learn_end(env, W)
        margin = max(W, 10)
        variant = str(rng.choice(["burst", "switch", "wave", "dip"]))
        if variant == "burst":
            B = int(math.ceil(max(W, 20)))
            calm = max(W, 15)
            lo, hi = grad + margin, L - calm - B
            if int(lo) >= int(hi):
                return False
            c = float(rng.uniform(0.2, 0.3))
            drops = np.minimum(np.abs(rng.normal(0, c * g, B)), 0.95 * g)
            env.event, env.variant, env.at = ev, variant, int(rng.integers(int(lo), int(hi)))
            env.params.update(length=B, drops=drops, c=c)
            return visible(env, lambda: c * gain_E(env, env.s0, env.s1) >= 4 * point_sd(env, env.s1))
        if variant == "dip":
            D = int(rng.integers(3, 7))
            lo, hi = grad + margin, L - max(W, 15) - D
            if int(lo) >= int(hi):
                return False
            keep = float(rng.uniform(0.1, 0.5))
            env.event, env.variant, env.at = ev, variant, int(rng.integers(int(lo), int(hi)))
            env.params.update(D=D, keep=keep)
            ks = env.s0 + keep * g
            return visible(env, lambda: gain_E(env, ks, env.s1) >= 5 * max(point_sd(env, env.s1), point_sd(env, ks)))
        if variant == "wave":
            P = float(rng.uniform(8, 20))
            amp = float(rng.uniform(0.45, 0.7))
            start = int(grad + margin)
            if L - start < 4 * P or L - start < 2 * W:
                return False
            env.event, env.variant, env.at = ev, variant, start
            env.params.update(P=P, amp=amp)
            return visible(env, lambda: gain_E(env, env.s1 - amp * g, env.s1) >= 5 * point_sd(env, env.s1 - 0.5 * amp * g))
        gap = float(rng.uniform(0.4, 0.6))
        D = 6
        start = int(grad + margin)
        phases, t, low, count = [], start, True, 0
        while t < L:
            dwell = int(round(float(rng.uniform(D, 3 * D))))
            if low:
                phases.append((t, min(L, t + dwell)))
            t += dwell
            low = not low
            count += 1
        if count < 9 or start >= L:
            return False
        env.event, env.variant, env.at = ev, variant, start
        env.params.update(gap=gap, phases=phases)
        ls = env.s1 - gap * g
        return visible(env, lambda: gain_E(env, ls, env.s1) >= 5 * max(point_sd(env, env.s1), point_sd(env, ls)))
    if ev == "prolonged_training":
        if run.get("n_risers", 0) >= 2:
            return False
        first = env.params["pro_after"]
        if L - 1 < first + 10:
            return False
        rate_ = 0.62 / max(L - 1, 1)
        env.event, env.variant = ev, "riser"
        env.params.update(rate=rate_)

        def riser_ok():  # a climb seen as one over 4 windows (the least a stall that progress ends lasts)
            sd = point_sd(env, env.s0 + 0.3 * g)
            se_rise = sd * math.sqrt(12.0 / max(4 * W, 3))
            return gain_E(env, env.s0, env.s0 + rate_ * g * 4 * W) >= 4 * se_rise
        if visible(env, riser_ok):
            run["n_risers"] = run.get("n_risers", 0) + 1
            return True
        return False
    raise ValueError(ev)


NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")


def apply_negative(env: Env, neg: str, W: float, rng) -> None:
    L, g = env.L, env.s1 - env.s0
    env.event = env.variant = neg
    if neg == "noisy_healthy":
        for _ in range(6):
            if gain_E(env, env.s0, env.s1) / max(point_sd(env, 0.5 * (env.s0 + env.s1)), 1e-9) < 8 or \
                    env.trials() <= 2:
                break
            env.knob *= 0.5
        if gain_E(env, env.s0, env.s1) < 5 * point_sd(env, 0.5 * (env.s0 + env.s1)):
            env.knob *= 2
    elif neg == "slow_learner":
        T = float(rng.uniform(3.0, 4.5)) * W
        if T + 2 * W < L:
            env.T = T
        else:
            env.event = env.variant = "healthy"
    elif neg == "level_shift":
        grad = learn_end(env, W)
        shift = float(rng.uniform(0.04, 0.06))
        room = env.s1 + shift * g <= 0.995
        lo, hi = grad + max(W, 10), L - max(W, 15)
        if room and int(lo) < int(hi):
            env.at = int(rng.integers(int(lo), int(hi)))
            env.params["shift"] = shift
        else:
            env.event = env.variant = "healthy"
    elif neg == "single_outlier":
        grad = learn_end(env, W)
        lo, hi = grad + max(W, 10), L - max(W, 10)
        if int(lo) < int(hi):
            env.at = int(rng.integers(int(lo), int(hi)))
        else:
            env.event = env.variant = "healthy"
    if env.variant == "healthy":
        env.event = "healthy"


def assign(run: dict, env: Env, W: float, p_event: float, pool: list[str], rng) -> None:
    visible(env, lambda: gain_E(env, env.s0, env.s1) >= 8 * point_sd(env, 0.5 * (env.s0 + env.s1)))
    if env.T + 2 * W >= env.L:
        env.T = max(0.8 * W, (env.L - 2 * W) * 0.8)
    if rng.random() < p_event:
        for _ in range(3):
            ev = str(rng.choice(pool))
            saved = (env.knob, dict(env.params), env.T)
            if place(run, env, ev, W, rng):
                return
            env.knob, env.params, env.T = saved
            env.event, env.variant, env.severity, env.at = "healthy", "healthy", None, None
    apply_negative(env, str(rng.choice(NEGATIVES)), W, rng)


def window(G: float, span: float) -> float:
    """The stagnation window in steps: max(min(100, 10 % of the span), 20 points)."""
    return max(min(100.0, 0.1 * span), 20.0 * G)


GRADUATING = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "sudden", "gradual", "dip",
              "burst", "switch", "wave")


def grad_points(env: Env, span: float) -> float:
    """Points from activation to the README's graduation: 90 % of the gain reached, then held for plateau_window (50
    steps, at most 5 % of the span, at least 3 points)."""
    x = np.arange(env.L, dtype=float)
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, x / env.T)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    hold = max(3.0, min(50.0, 0.05 * span) / env.G)
    return float(hit[0] + hold) if len(hit) else float(env.L)


# --- planning ------------------------------------------------------------------------------------------------------


# --- labelling ---

def label_for(run: dict, env: Env, steps: np.ndarray) -> list[dict]:
    """steps: the env's judged points (sorted, unique)."""
    if env.event not in EVENTS or not len(steps):
        return []
    x = (steps.astype(float) - env.step0) / env.G
    s = truth(env, x)
    g = env.s1 - env.s0
    v, p = env.variant, env.params

    def first_at(x0):
        ok = np.flatnonzero(x >= x0 - 1e-9)
        return int(steps[ok[0]]) if len(ok) else None

    if v == "never":
        onset = first_at(0)
    elif v == "freeze":
        onset = first_at(p["R"])
    elif v == "riser" or env.event == "prolonged_training":
        onset = int(round(p.get("first_logged", env.step0) + p["pro_after"] * env.G))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual", "dip"):
        ev = np.array([point_mean(env, u) for u in s])
        line = point_mean(env, env.s0) + 0.85 * (point_mean(env, env.s1) - point_mean(env, env.s0))
        below = np.flatnonzero((x >= env.at) & (ev < line - 1e-12))
        onset = int(steps[below[0]]) if len(below) else None
    elif v in ("burst", "wave"):
        sd = point_sd(env, env.s1)
        gE = gain_E(env, env.s0, env.s1)
        onset = None
        if v == "wave":
            off = np.flatnonzero((x >= env.at) & (s < env.s1 - 0.15 * g))
            onset = int(steps[off[0]]) if len(off) else None
        else:
            for lim in (max(0.15 * gE, 4 * sd), 0.15 * gE):
                for i in np.flatnonzero((x >= env.at) & (x < env.at + p["length"])):
                    if gain_E(env, s[i], env.s1) > lim:
                        onset = int(steps[i])
                        break
                if onset is not None:
                    break
            if onset is None:
                onset = first_at(env.at)
    elif v == "switch":
        onset = first_at(p["phases"][0][0])
    else:
        raise ValueError(v)
    if onset is None:
        return []
    return [dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                 shape=f"{run['convention']}/{env.variant}", variant=env.variant, task=env.name)]


# --- writers -----------------------------------------------------------------------------------------------------------

def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def _skill_at(env: Env, steps) -> np.ndarray:
    return truth(env, (np.asarray(steps, float) - env.step0) / env.G)






# --- planning ------------------------------------------------------------------------------------------------------

def _difficulty(rng, m: int, spread: float) -> np.ndarray:
    return rng.normal(0.0, spread, m)


def _stamp(rng, fmt: str, base=datetime.datetime(2025, 3, 1)) -> str:
    return (base + datetime.timedelta(seconds=int(rng.integers(0, 200 * 86400)))).strftime(fmt)


def plan_stoix(run: dict, rng) -> tuple[list[Env], float]:
    """Stoix: one env a run; N evaluations, each after steps_per_rollout env steps (ff_ppo.py:614-699)."""
    tb = run["convention"] == "stoix_tb"
    game = str(rng.choice(list(STOIX_GAMES)))
    suite, A, B, sd, ep_len = STOIX_GAMES[game]
    system = str(rng.choice(STOIX_SYSTEMS))
    N = int(rng.choice([100, 150, 200, 300]))
    total = int(rng.choice([1_000_000, 5_000_000, 10_000_000] if suite != "brax" else [20_000_000, 50_000_000]))
    spe = total // N
    n_eval = int(rng.choice([16, 32, 64, 128]))
    token = _stamp(rng, "%Y%m%d%H%M%S")
    run.update(game=game, suite=suite, system=system, num_evaluation=N, total_timesteps=total, steps_per_rollout=spe,
               num_eval_episodes=n_eval, unique_token=token, group_tag=[system, game, f"seed{int(rng.integers(0, 10))}"],
               total_num_envs=int(rng.choice([64, 256, 1024])))
    s0, s1 = float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.85, 0.97))
    if tb:  # the evaluator's points at the evaluation index (logger.py:318)
        e = Env(game, N, 1.0, 0, s0, s1, 0.0, kind="episodes", n=float(n_eval))
        e.params["train_G"] = 1.0  # the profile claims evals only
        span = float(N - 1)
    else:
        # env by the profile's `run_env` on the sweep folder's path: Stoix's W&B name (unique_token) holds no env
        e = Env(game, N, float(spe), spe, s0, s1, 0.0, kind="episodes", n=float(n_eval))
        e.params["train_G"] = float(spe)
        span = float(N * spe - spe)
    e.params.update(game_kind="gauss", A=A, B=B, sd_ep=sd, lo=-0.3, hi=1.1, ep_len=ep_len, wave=0)
    return [e], span


def plan_slime(run: dict, rng) -> tuple[list[Env], float]:
    """slime GRPO: per-dataset evals on fixed sets every eval_interval rollouts (and at epoch boundaries)."""
    names = [str(t) for t in rng.permutation(list(SLIME_SETS))[:int(rng.integers(2, 7))]]
    N = int(rng.integers(300, 1501))
    vp = int(rng.choice([5, 10, 10, 20]))
    while N // vp < 40 and vp > 5:
        vp //= 2
    E = int(rng.integers(35, 150)) if rng.random() < 0.4 else None
    f = int(rng.choice([2, 4, 8])) if rng.random() < 0.35 else 1
    rm = "dapo" if rng.random() < 0.4 else "deepscaler"
    run.update(num_rollout=N, eval_interval=vp, num_rollout_per_epoch=E, train_steps_per_rollout=f, rm_type=rm,
               skip_eval_before_train=bool(rng.random() < 0.3), datasets=names,
               wandb_group=f"qwen3-{int(rng.choice([4, 8, 30]))}b-grpo-{run['name'][:4]}",
               group_suffix="".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz0123456789"), 8)),
               wandb_id="".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz0123456789"), 8)),
               rollout_batch_size=int(rng.choice([32, 64, 128])), n_samples_per_prompt=int(rng.choice([8, 16])))
    s0r, s1r = float(rng.uniform(0.03, 0.3)), float(rng.uniform(0.62, 0.9))
    envs = []
    for nm in names:
        m, ks, spread = SLIME_SETS[nm]
        e = Env(nm, N // vp + 1, float(vp * f), 0, float(np.clip(s0r + rng.uniform(-0.04, 0.04), 0, 1)),
                float(np.clip(s1r + rng.uniform(-0.04, 0.04), 0, 0.99)), 0.0, kind="fixedset", n=float(m))
        e.params["difficulty"] = _difficulty(rng, m * 8, float(spread))
        e.params.update(samples=int(rng.choice(ks)), train_G=float(vp * f), wave=0)
        envs.append(e)
    return envs, float((N - 1) * f)


def plan_torchrl(run: dict, rng) -> tuple[list[Env], float]:
    """TorchRL sota-implementations (PPO MuJoCo or SAC) logging to MLflow: one env a run, eval every test_interval."""
    algo = "ppo" if rng.random() < 0.6 else "sac"
    game = str(rng.choice(list(MUJOCO)))
    A, B, sd, ep_len, hi = MUJOCO[game]
    if algo == "ppo":
        fpb, total = 2048, int(rng.choice([1_000_000, 2_000_000, 3_000_000]))
        ti = int(rng.choice([10_000, 20_000, 25_000, 50_000]))
        n = int(rng.choice([5, 5, 10]))
    else:
        fpb, total = 1000, int(rng.choice([1_000_000, 1_500_000, 2_000_000]))
        ti = int(rng.choice([5_000, 10_000, 25_000]))
        n = int(rng.choice([1, 2, 4]))
    while total // ti < 60:
        ti //= 2
    if algo == "sac":
        ti = max(fpb, ti // fpb * fpb)
    name = f"{rng.choice(ADJ)}-{rng.choice(NOUN)}-{int(rng.integers(0, 1000))}"  # MLflow's random run name
    run.update(algo=algo, game=game, frames_per_batch=fpb, total_frames=total, test_interval=ti,
               num_test_episodes=n, run_name=name, run_id=uuid.UUID(int=int(rng.integers(1 << 62)) << 64 |
                                                                    int(rng.integers(1 << 62))).hex,
               experiment_id=str(int(rng.integers(10 ** 17, 10 ** 18))), uid8=f"{int(rng.integers(1 << 32)):08x}",
               launch=_stamp(rng, "%Y-%m-%d/%H-%M-%S"), init_random_frames=25_000 if algo == "sac" else 0)
    s0, s1 = float(rng.uniform(0.0, 0.06)), float(rng.uniform(0.82, 0.96))
    e = Env(name, total // ti + 1, float(ti), 0, s0, s1, 0.0, kind="episodes", n=float(n))
    e.params.update(game_kind="gauss", A=A, B=B, sd_ep=sd, lo=-0.2, hi=hi, ep_len=ep_len, wave=0,
                    terminates=game in ("Hopper-v4", "Walker2d-v4", "Humanoid-v4"), train_G=float(fpb))
    return [e], float(total)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility"]
    if conv.startswith("stoix"):
        envs, span = plan_stoix(run, rng)
    elif conv == "slime":
        envs, span = plan_slime(run, rng)
    else:
        envs, span = plan_torchrl(run, rng)
    run["envs"] = envs
    Ws = []
    for env in envs:
        W = window(env.G, span) / env.G
        env.params["W"] = W
        env.params["Wp"] = window(env.params["train_G"], span) / env.G  # the prolonged window, in judged points
        env.T = float(rng.uniform(0.8, 2.5)) * W if conv == "slime" else float(rng.uniform(0.1, 0.4)) * env.L
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if len(envs) >= 3:
        grads = [grad_points(e, span) for e in envs[:2]]
        for k, env in enumerate(envs):
            env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)))
            p_ev = 0.0 if k < 2 else 0.65
            assign(run, env, Ws[k], p_ev, pool + ["prolonged_training"] * 2, rng)
    else:
        for k, env in enumerate(envs):
            env.params["pro_after"] = 10 * env.params["Wp"]
            assign(run, env, Ws[k], 0.55, pool + ["prolonged_training"] * 2, rng)
    _limits(run, envs, Ws, span)

def _limits(run: dict, envs: list[Env], Ws: list[float], span: float) -> None:
    """README: prolonged after max(10 windows, 2 x the median time the run's graduated envs took)."""
    grads = [grad_points(e, span) for e in envs if e.variant in GRADUATING]
    lim = 2 * float(np.median(grads)) if grads else 0.0
    for k, env in enumerate(envs):  # an event env graduates within the limit (its event is its one label)
        if env.event in EVENTS and env.variant in GRADUATING and grad_points(env, span) > \
                max(10 * env.params["Wp"], lim) - 2:
            env.T = max(0.8 * Ws[k], env.T * 0.6)
    grads = [grad_points(e, span) for e in envs if e.variant in GRADUATING]
    for k, env in enumerate(envs):
        limit = max(10 * env.params["Wp"], 2 * float(np.median(grads)) if grads else 0.0)
        if env.event not in EVENTS and env.variant in GRADUATING and grad_points(env, span) > limit + 1 \
                and env.L - 1 > limit + 10 and not env.params.get("wave"):
            # README: active longer than the limit without graduating is prolonged_training, however it ends
            env.event = "prolonged_training"
            env.params["pro_after"] = limit
            continue
        if env.variant != "riser":
            continue
        env.params["pro_after"] = limit
        if env.L - 1 < env.params["pro_after"] + 10:
            env.event = env.variant = "healthy"
            env.params.pop("rate", None)


# --- writers -----------------------------------------------------------------------------------------------------------

def _tb_write(dest: Path, events: list, wall0: float, host: str, k: int = 0, hparams: dict | None = None,
              fname: str | None = None) -> None:
    """Scalars (step, tag, value, walltime) through tensorboardX into a temporary folder, the file then moved into
    `dest` under torch's SummaryWriter file name (`events.out.tfevents.{time}.{host}.{pid}.{uid}`); with `hparams`,
    `add_hparams(hparams, metric_dict={})` first, which writes its own `{time.time()}` subfolder (copied along)."""
    from tensorboardX import SummaryWriter

    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        if hparams:
            w.add_hparams(hparams, {}, name=f"{wall0:.6f}")
        for step, tag, val, wt in events:
            w.add_scalar(tag, float(val), int(step), walltime=float(wt))
        w.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, dest / (fname or f"events.out.tfevents.{int(wall0)}.{host}.{4000 + 17 * k}.{k}"))
        for sub in Path(tmp).iterdir():
            if sub.is_dir():
                shutil.copytree(sub, dest / sub.name, dirs_exist_ok=True)



def _wandb_offline(dest_wandb: Path, run_id: str, wall0: float, init: dict, rows: list, define: list | None = None,
                   step_rows: bool = False) -> None:
    """One offline W&B run written by wandb itself into a temporary dir, its .wandb file then copied to
    `{dest_wandb}/offline-run-{stamp}-{id}/run-{id}.wandb`. rows: dicts (logged without step=) or, with step_rows,
    (step, dict) pairs logged with step=."""
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(id=run_id, mode="offline", dir=tmp, settings=wandb.Settings(x_disable_stats=True, console="off"),
                        **init)
        for d in define or []:
            wr.define_metric(d[0], step_metric=d[1]) if d[1] else wr.define_metric(d[0])
        for row in rows:
            if step_rows:
                wr.log(row[1], step=int(row[0]))
            else:
                wr.log(row)
        wr.finish()
        wandb.teardown()
        src_f = next(Path(tmp).glob(f"wandb/offline-run-*-{run_id}/run-{run_id}.wandb"))
        wait_until_complete(src_f)
        stamp = datetime.datetime.fromtimestamp(wall0, datetime.timezone.utc).strftime("%Y%m%d_%H%M%S")
        dest = dest_wandb / f"offline-run-{stamp}-{run_id}" / src_f.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src_f, dest)


def _described(prefix: str, vals: np.ndarray, main_only: bool) -> dict:
    """stoix/utils/logger.py describe (mean, std, min, max); the W&B logger keeps `/mean` alone (detailed_logging off)."""
    d = {f"{prefix}/mean": float(vals.mean())}
    if not main_only:
        d.update({f"{prefix}/std": float(vals.std()), f"{prefix}/min": float(vals.min()),
                  f"{prefix}/max": float(vals.max())})
    return d


def write_stoix(folder: Path, run: dict, rng) -> dict:
    """Stoix's ff_* loop (ff_ppo.py:614-699) through its TensorboardLogger (evaluator at the evaluation index) or its
    WandBLogger (every event at the env steps, `/mean` keys only)."""
    tb = run["convention"] == "stoix_tb"
    e = run["envs"][0]
    p = e.params
    N, spe = run["num_evaluation"], run["steps_per_rollout"]
    prng = np.random.default_rng(run["seed"] + 41)
    wall = 1.75e9 + float(prng.integers(0, 10 ** 7))
    wall0 = wall
    events, judged = [], []
    best = -1e18
    for k in range(N):
        t = spe * (k + 1)
        wall += float(prng.uniform(5, 60))
        x = (t - e.step0) / e.G if not tb else float(k)
        s = float(truth(e, np.array([x]))[0])
        # the actor's completed episodes of the rollout (hundreds): their mean, exploring
        n_done = int(min(400, max(8, run["total_num_envs"] * spe / p["ep_len"] / 50)))
        act = ep_returns(e, np.full(n_done, s * 0.95), prng)
        act_len = np.full(n_done, float(p["ep_len"])) * prng.uniform(0.5, 1.0, n_done)
        se = s
        if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
            se = e.s0 + 0.05 * (e.s1 - e.s0)
        ev = ep_returns(e, np.full(e.trials(), se), prng)
        ev_len = np.full(e.trials(), float(p["ep_len"]))
        best = max(best, float(ev.mean()))
        block = [("misc", {"timestep": t}, t),
                 ("actor", {**_described("episode_return", act, not tb), **_described("episode_length", act_len, not tb),
                            "steps_per_second": float(spe / prng.uniform(5, 60))}, t),
                 ("trainer", {"total_loss": float(prng.normal(0.5, 0.1)), "actor_loss": float(prng.normal(0, 0.05)),
                              "value_loss": float(abs(prng.normal(1, 0.3))), "entropy": float(prng.uniform(0.1, 1))}, t),
                 ("evaluator", {**_described("episode_return", ev, not tb), **_described("episode_length", ev_len, not tb),
                                "steps_per_second": float(prng.uniform(1e4, 1e5))}, k if tb else t)]
        for ev_name, d, step in block:
            for kk, v in d.items():
                events.append((step, f"{ev_name}/{kk}", v, wall))
        judged.append(k if tb else t)
    # the absolute metric: the best parameters evaluated 10 x num_eval_episodes, at the last t (ff_ppo.py:680-699)
    ab = ep_returns(e, np.full(10 * e.trials(), float(truth(e, np.array([float(N - 1)]))[0])), prng)
    for kk, v in _described("episode_return", ab, not tb).items():
        events.append((spe * N, f"absolute/{kk}", v, wall + 30))
    if tb:
        dest = folder / "results" / run["game"] / "tensorboard" / run["system"] / run["unique_token"]
        host = HOSTS[int(prng.integers(len(HOSTS)))]
        _tb_write(dest, events, wall0, host, fname=f"events.out.tfevents.{int(wall0)}.{host}")
    else:
        by_step: list = []
        for step, key, v, _ in events:  # WandBLogger.log_stat: wandb.log({key: value}, step=step), one key a call
            by_step.append((step, {key: v}))
        rid = f"{zlib.crc32(run['name'].encode()):08x}"
        _wandb_offline(folder / "sweeps" / run["game"] / "wandb", rid, wall0,
                       dict(project="stoix", name=run["unique_token"], group="_".join(run["group_tag"]),
                            tags=["ppo", run["game"]], config={"system": {"system_name": run["system"]},
                                                               "env": {"scenario": {"name": run["game"]}},
                                                               "arch": {"num_evaluation": N,
                                                                        "total_timesteps": run["total_timesteps"]}},
                            reinit=True), by_step, step_rows=True)
    p["first_logged"] = 0 if tb else spe
    return {e.name: np.array(judged, dtype=np.int64)}


def _slime_eval_rids(run: dict) -> list[int]:
    """train.py:49-91 with misc.py:107-128: before training (rollout 0) unless skipped, then after each rollout whose
    (id + 1) is a multiple of eval_interval or of num_rollout_per_epoch."""
    N, vp, E = run["num_rollout"], run["eval_interval"], run["num_rollout_per_epoch"]
    out = [] if run["skip_eval_before_train"] else [("pre", 0)]
    for rid in range(N):
        if (rid + 1) % vp == 0 or (E is not None and (rid + 1) % E == 0):
            out.append(("post", rid))
    return out


def write_slime(folder: Path, run: dict, rng) -> dict:
    """slime's three offline W&B folders of one id under `{run}/wandb/`: the driver's primary (group, name, config, no
    rows), the rollout manager's (rollout and eval rows, no step=, define_metric axes) and the actor's (train rows)."""
    envs, N, f = run["envs"], run["num_rollout"], run["train_steps_per_rollout"]
    prng = np.random.default_rng(run["seed"] + 31)
    dapo = run["rm_type"] == "dapo"
    evals = {rid: kind for kind, rid in _slime_eval_rids(run)}
    pre = not run["skip_eval_before_train"]
    judged: dict[str, list] = {e.name: [] for e in envs}
    prim, sec = [], []
    s_mean = np.mean([[e.s0, e.s1] for e in envs], axis=0)

    def eval_row(rid: int) -> dict:
        step = rid * f
        row = {}
        for e in envs:
            x = (step - e.step0) / e.G
            s = truth(e, np.array([x]))
            if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
                s = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
            pr = fixedset_probs(e, s)[0]
            k = e.params["samples"]
            v = float((prng.random((k, len(pr))) < pr[None, :]).mean())
            row[f"eval/{e.name}"] = 2 * v - 1 if dapo else v
            row[f"eval/{e.name}/response_len/mean"] = float(prng.uniform(800, 9000))
            row[f"eval/{e.name}/repetition_frac"] = float(prng.uniform(0, 0.05))
            row[f"eval/{e.name}/truncated_ratio"] = tr = float(prng.uniform(0, 0.1))
            row[f"eval/{e.name}-truncated_ratio"] = tr
            judged[e.name].append(step)
        row["eval/step"] = step
        return row

    if pre:
        prim.append(eval_row(0))
    for rid in range(N):
        s = float(np.clip(s_mean[0] + (s_mean[1] - s_mean[0]) * f_curve("exp", rid / max(N * 0.3, 1)), 0, 1))
        nr = run["rollout_batch_size"] * run["n_samples_per_prompt"]
        raw = float(prng.binomial(nr, s * 0.97) / nr)
        prim.append({"rollout/raw_reward": 2 * raw - 1 if dapo else raw, "rollout/rewards": float(prng.normal(0, 0.02)),
                     "rollout/response_len/mean": float(prng.uniform(800, 6000)),
                     "rollout/truncated_ratio": float(prng.uniform(0, 0.1)), "perf/rollout_time": float(prng.uniform(60, 400)),
                     "perf/tokens_per_gpu_per_sec": float(prng.uniform(500, 3000)), "rollout/step": rid * f})
        for j in range(f):
            sec.append({"train/loss": float(prng.normal(0, 0.01)), "train/pg_loss": float(prng.normal(0, 0.01)),
                        "train/entropy_loss": float(prng.uniform(0.2, 0.6)), "train/pg_clipfrac": float(prng.uniform(0, 0.01)),
                        "train/grad_norm": float(abs(prng.normal(0.2, 0.05))), "train/step": rid * f + j})
        if rid in evals and not (rid == 0 and pre and evals[rid] == "pre"):
            prim.append(eval_row(rid))
    group = f"{run['wandb_group']}_{run['group_suffix']}"
    define = [("train/step", None), ("train/*", "train/step"), ("rollout/step", None), ("rollout/*", "rollout/step"),
              ("multi_turn/*", "rollout/step"), ("passrate/*", "rollout/step"), ("eval/step", None),
              ("eval/*", "eval/step"), ("perf/*", "rollout/step")]
    wall0 = 1.755e9 + float(prng.integers(0, 10 ** 7))
    cfg = {"num_rollout": N, "eval_interval": run["eval_interval"], "rm_type": run["rm_type"],
           "eval_prompt_data": [x for e in envs for x in (e.name, f"/data/{e.name}.jsonl")],
           "n_samples_per_eval_prompt": {e.name: e.params["samples"] for e in envs}}
    # the driver's primary run (train.py -> init_tracking(primary=True)) holds the group, the name and the config and
    # logs nothing itself; the RolloutManager (slime/ray/rollout.py:402) and the Megatron actor
    # (slime/backends/megatron_utils/actor.py:83) are secondaries of the same id that log the rollout / eval rows and
    # the train rows: with `--wandb-dir` set, three offline folders of one id in one `wandb/`
    _wandb_offline(folder / "wandb", run["wandb_id"], wall0,
                   dict(project="slime", group=group, name=f"{group}-RANK_0", config=cfg), [], define)
    _wandb_offline(folder / "wandb", run["wandb_id"], wall0 + 40, dict(project="slime", config=cfg, resume="allow",
                                                                      reinit=True), prim, define)
    _wandb_offline(folder / "wandb", run["wandb_id"], wall0 + 95, dict(project="slime", config=cfg, resume="allow",
                                                                      reinit=True), sec, define)
    for e in envs:
        e.params["first_logged"] = judged[e.name][0] if judged[e.name] else 0
    return {k: np.array(sorted(set(v)), dtype=np.int64) for k, v in judged.items()}


def _yaml(d: dict) -> str:
    out = []
    for k, v in d.items():
        if isinstance(v, list):
            out.append(f"{k}: []")
        elif isinstance(v, str) and (v == "" or v.isdigit()):
            out.append(f"{k}: '{v}'")
        else:
            out.append(f"{k}: {v}")
    return "\n".join(out) + "\n"


def write_torchrl(folder: Path, run: dict, rng) -> dict:
    """A TorchRL sota script (ppo_mujoco.py or sac.py) with logger.backend=mlflow: the file store in the hydra run
    dir's `{logger_name}/` folder, one experiment named exp_name, one run named at random."""
    e = run["envs"][0]
    p = e.params
    algo, fpb, total, ti = run["algo"], run["frames_per_batch"], run["total_frames"], run["test_interval"]
    prng = np.random.default_rng(run["seed"] + 61)
    root = folder / "outputs" / run["launch"] / ("ppo" if algo == "ppo" else "sac_logging")
    exp_id, run_id = run["experiment_id"], run["run_id"]
    date = datetime.datetime.strptime(run["launch"], "%Y-%m-%d/%H-%M-%S")
    t_ms = int(date.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
    exp_name = (f"PPO_Mujoco_Schulman17_{run['game']}" if algo == "ppo" else f"SAC_SAC_{run['game']}") + \
        f"_{run['uid8']}_{date.strftime('%y_%m_%d-%H_%M_%S')}"
    metrics: dict[str, list[str]] = {}

    def log(key: str, value: float, step: int, ts: int) -> None:
        metrics.setdefault(key, []).append(f"{ts} {float(value)!r} {int(step)}")

    judged = []
    first_train = None
    carry_len = 0  # the episode under way across batches
    ep_s = None
    n_batches = int(math.ceil(total / fpb))
    collected = 0
    for i in range(n_batches):
        collected += fpb
        t_ms += int(prng.uniform(900, 4000))
        x_now = collected / e.G
        s = float(truth(e, np.array([x_now]))[0])
        explore = 0.95 if algo == "ppo" else 0.93
        if algo == "sac" and collected <= run["init_random_frames"]:
            explore = 0.0
        # episodes that end inside this batch (their return at the skill when they ended)
        ended, left = [], fpb
        while True:
            if ep_s is None:
                u = float(np.clip(s * explore + p["sd_ep"] * prng.standard_normal(), p["lo"], p["hi"]))
                ln = p["ep_len"] if not p["terminates"] else int(np.clip(40 + (p["ep_len"] - 40) * u ** 1.5
                                                                         * prng.uniform(0.7, 1.0) + 0.5, 20, p["ep_len"]))
                if u > 0.85 and p["terminates"]:
                    ln = p["ep_len"]
                ep_s = (u, ln)
                carry_len = 0
            u, ln = ep_s
            need = ln - carry_len
            if need > left:
                carry_len += left
                break
            left -= need
            ended.append(p["A"] + (p["B"] - p["A"]) * u)
            ep_s = None
        m = {}
        if ended:
            m["train/reward"] = float(np.mean(ended))
            m["train/episode_length"] = float(fpb / max(len(ended), 1))
            first_train = collected if first_train is None else first_train
        if algo == "ppo":
            m.update({"train/loss_critic": float(abs(prng.normal(0.3, 0.1))), "train/loss_entropy": float(prng.normal(-0.01, 0.002)),
                      "train/loss_objective": float(prng.normal(0, 0.01)), "train/lr": 3e-4 * (1 - collected / total),
                      "train/clip_epsilon": 0.2})
            do_eval = (i >= 1 and ((i - 1) * fpb) // ti < (i * fpb) // ti) or collected >= total
        else:
            if collected >= run["init_random_frames"]:
                m.update({"train/q_loss": float(abs(prng.normal(2, 0.5))), "train/actor_loss": float(prng.normal(-50, 5)),
                          "train/alpha_loss": float(prng.normal(0, 0.1)), "train/alpha": float(prng.uniform(0.01, 0.2)),
                          "train/entropy": float(prng.normal(-6, 0.5))})
            do_eval = abs(collected % ti) < fpb
        if do_eval:
            xe = collected / e.G
            se = float(truth(e, np.array([xe]))[0])
            if e.variant == "single_outlier" and abs(xe - e.at) < 0.5:
                se = e.s0 + 0.05 * (e.s1 - e.s0)
            m["eval/reward"] = float(ep_returns(e, np.full(e.trials(), se), prng).mean())
            judged.append(collected)
        m.update({"time/collecting": float(prng.uniform(1, 3)), "time/training": float(prng.uniform(2, 8)),
                  "time/speed": float(prng.uniform(300, 1500))})
        if do_eval:
            m["time/eval"] = float(prng.uniform(2, 10))
        for kk, v in m.items():  # Logger.log_metrics -> MLFlowLogger.log_scalar -> mlflow.log_metric
            log(kk, v, collected, t_ms)
    # the file store (MLflow < 3.10): Default experiment 0, the experiment, the run
    start = int(date.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
    (root / "0").mkdir(parents=True, exist_ok=True)
    (root / "0" / "meta.yaml").write_text(_yaml({"artifact_location": f"file://{root}/0", "creation_time": start,
                                                 "experiment_id": "0", "last_update_time": start,
                                                 "lifecycle_stage": "active", "name": "Default"}))
    (root / exp_id).mkdir(parents=True, exist_ok=True)
    (root / exp_id / "meta.yaml").write_text(_yaml({"artifact_location": f"file://{root}/{exp_id}",
                                                    "creation_time": start, "experiment_id": exp_id,
                                                    "last_update_time": start, "lifecycle_stage": "active",
                                                    "name": exp_name}))
    rd = root / exp_id / run_id
    (rd / "artifacts").mkdir(parents=True, exist_ok=True)
    (rd / "params").mkdir(exist_ok=True)
    (rd / "meta.yaml").write_text(_yaml({"artifact_uri": f"file://{rd}/artifacts", "end_time": t_ms,
                                         "entry_point_name": "", "experiment_id": exp_id,
                                         "lifecycle_stage": "active", "run_id": run_id, "run_name": run["run_name"],
                                         "run_uuid": run_id, "source_name": "", "source_type": 4,
                                         "source_version": "", "start_time": start, "status": 3, "tags": [],
                                         "user_id": "rl"}))
    tags = {"mlflow.runName": run["run_name"], "mlflow.user": "rl", "mlflow.source.type": "LOCAL",
            "mlflow.source.name": f"sota-implementations/{'ppo/ppo_mujoco.py' if algo == 'ppo' else 'sac/sac.py'}"}
    (rd / "tags").mkdir(exist_ok=True)
    for k, v in tags.items():
        (rd / "tags" / k).write_text(v)
    for key, lines in metrics.items():
        fp = rd / "metrics" / key
        fp.parent.mkdir(parents=True, exist_ok=True)
        fp.write_text("\n".join(lines) + "\n")
    p["first_logged"] = int(first_train if first_train is not None else fpb)
    return {e.name: np.array(judged, dtype=np.int64)}


# --- build -------------------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    writer = {"stoix_tb": write_stoix, "stoix_wandb": write_stoix, "slime": write_slime,
              "torchrl_mlflow": write_torchrl}[conv]
    judged = writer(folder, run, wrng)
    tol = []
    for env in run["envs"]:
        W = env.params["W"]
        tol.append(max(W * env.G / 10.0, env.G))
        labels.extend(label_for(run, env, judged[env.name]))
    meta = {k: v for k, v in run.items() if k not in ("envs",)}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(round(min(e.G for e in run["envs"]))))
    meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "L": e.L, "G": e.G, "step0": e.step0, "s0": e.s0, "s1": e.s1, "T": e.T, "curve": e.curve,
                     "at": e.at, "knob": e.knob, "kind": e.kind, "trials": e.trials(),
                     "judged_points": int(len(judged[e.name])),
                     "params": {k: v for k, v in e.params.items()
                                if k not in ("drops", "phases", "difficulty", "_grid")},
                     "phases": e.params.get("phases")} for e in run["envs"]]
    (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    root = Path(root)
    rng = np.random.default_rng([seed, 28])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"w{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        build_run(root, run, labels)
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels

def _jsonable(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (tuple, set)):
        return list(o)
    return str(o)
