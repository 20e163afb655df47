"""The twenty-seventh detection corpus (`python benchmarks/detection.py --corpus twentyseventh`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles with `env: "{run}"`, `run_env`,
`step_key`, metric direction, what a rate is, logging shapes, which files are read, what `unknown` means;
detection.py's label format and scorer; the twenty-fifth and twenty-sixth corpora as examples of the interface — the
truth, placement and labelling helpers below follow the twenty-sixth's —; tests/writers.py), without reading the
analysis code and without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentyseventh-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (20 nemo, 10 benchmarl_tb, 10 benchmarl_wandb, 10 acme, 10 acme_steps), one group
folder per convention, each with a curriwatch.yaml. Chosen for what the twenty-six other corpora do not cover:
NVIDIA NeMo-RL's GRPO over NeMo-Gym agents (its TensorboardLogger, per-agent rollout metrics), BenchMARL's multi-agent
experiments (through TorchRL's TensorboardLogger or its WandbLogger), and DeepMind Acme's run_experiment CSV logs
(read by curriwatch since its twenty-eighth round; no corpus had them):

  nemo       NVIDIA-NeMo/RL@7ea279abfbeb698b092856d0dab61e7cf39bc909: nemo_rl/utils/logger.py:134-190
             TensorboardLogger (`SummaryWriter(log_dir)`, `add_scalar(f"{prefix}/{name}", value, step)`, values that
             are no scalar — the wandb Histogram — skipped), :997-1003 its folder `{log_dir}/tensorboard`, :1614-1646
             get_next_experiment_dir `{log_dir}/exp_{NNN}`; nemo_rl/algorithms/grpo.py:2745-2771 a validation at step
             0 with `val_at_start`, :3022 `log_metrics(rollout_metrics, total_steps + 1, prefix="train")`, :3358-3364
             validation when `(total_steps + 1) % val_period == 0`, :3398-3403 logged at total_steps + 1 with prefix
             "validation", :3855-3909 per validation batch `additional_metrics_to_report` reset and replaced by the
             NeMo-Gym rollout metrics (the per-agent validation keys are the last batch's), :3950-3983 `accuracy`,
             `avg_length`; nemo_rl/experience/rollouts.py:2718-2749 per-agent metrics `{agent_name}/{key}` over each
             agent's results of the batch; nemo_rl/experience/metric_utils.py:24-44 calculate_single_metric (`/mean`
             = sum / batch size, `/max`, `/min`, `/median`, `/stddev` NaN for one value, `/histogram`);
             examples/configs/grpo_math_1B.yaml:3-25 (32 prompts x 16 generations a step, val_period 10, 256
             validation prompts in batches of 256), :494-510 logger. A GRPO run of 300..1,500 steps over 3..6 NeMo-Gym
             agents (binary rewards, or the share of 1..4 instructions met), prompts drawn by the data mix's weights
             (an agent absent from a step's batch has no key there): `train/{agent}/reward/mean` is the mean over a
             step's 4..16 x (its share of 32..128 prompts) rollouts of the agent. 70 % validate every 5..20 steps on a
             fixed set of 24..256 problems of unequal difficulty a agent (1..4 generations each), judged there; 30 %
             are train only (judged on the per-step means), 40 % of those adding half their agents to the data mix in
             a second wave at 15..35 % of the run. User profile on `train|validation/{agent}/reward/mean`.
  benchmarl_tb / benchmarl_wandb
             facebookresearch/BenchMARL@179a95687c89e581eb14e471b4bb5b8a410c9324: benchmarl/experiment/logger.py:29-83
             Logger (TorchRL loggers named folder_name / experiment_name; W&B kwargs group=task_name,
             id=experiment_name, then the user's wandb_extra_kwargs), :85-111 log_hparams (TensorBoard: add_hparams),
             :113-165 log_collection (`collection/{group}/reward/episode_reward_min|mean|max` and the global
             `collection/reward/episode_reward_*` over the episodes that ended in the iteration), :167-174
             log_training, :176-240 log_evaluation (`eval/{group}/reward/episode_reward_*`, `eval/reward/…`,
             `eval/reward/episode_len_mean`, marl-eval JSON), :266-272 `log`: W&B `experiment.log(dict, commit=False)`,
             other loggers `log_scalar(key.replace("/", "_"), value, step=step)`, :382-389 `_min|_mean|_max`;
             benchmarl/experiment/experiment.py:564-602 `generate_exp_name(f"{algorithm}_{task}_{model}", "")`, folder
             `save_folder / name`, a restore keeps the name, :700-795 the iteration loop (collection at
             step=n_iters_performed, an evaluation when `total_frames % evaluation_interval == 0 or n_iters_performed
             == 0`, `counters/total_frames`, `logger.commit()`), :983-984 a restore reloads total_frames and
             n_iters_performed; benchmarl/conf/experiment/base_experiment.yaml:52-125 (3M frames, 6,000 a batch, an
             evaluation of 10 episodes every 120,000 frames, loggers [csv, wandb]); pytorch/rl
             torchrl/record/loggers/utils.py generate_exp_name (`{model}_{experiment}_{uuid8}_{%y_%m_%d-%H_%M_%S}`),
             torchrl/record/loggers/tensorboard.py@7a8183457dc5ae5ef8b17d4536ada0c02f848806 `_create_experiment`
             (`SummaryWriter(os.path.join(log_dir, exp_name))`). VMAS tasks with returns of either sign on scales
             from 2.4 to 160 (`wheel`, `simple_spread` wholly negative), 500..2,000 iterations, evaluations every
             1..10 iterations (150+ evals) over 10 or 32 episodes beside a collection mean every iteration (on-policy
             algorithms 3 %, off-policy 15 % below the policy's level). benchmarl_tb: one experiment a run, tags
             `eval_reward_episode_reward_mean` / `collection_reward_episode_reward_mean` at the iteration, the
             hparams subfolder beside, TorchRL's CSVLogger files `scalars/{key}.csv` (not read) beside. benchmarl_wandb:
             one or two tasks x one or two algorithms, offline W&B runs logged without `step=`, `counters/total_frames`
             the profile's `step_key`, the W&B group set by the user (`wandb_extra_kwargs`); 25 % restored from a
             checkpoint (checkpoint_interval 50 batches) after a crash: the iterations since it logged again (a second
             event file; a second offline folder of the same W&B id). Env = `{algorithm}_{task}_{model}` by `run_env`.
  acme / acme_steps
             google-deepmind/acme@770bc75e948cc276c785ebfcf3de0b0812b95e26: acme/jax/experiments/run_experiment.py:76-
             181 (one parent counter shared by the `actor`, `evaluator` and `learner` counters; loop: evaluate
             num_eval_episodes, train eval_every actor steps, ..., evaluate), acme/environment_loop.py:141-203 one row
             an episode (`episode_length`, `episode_return`, `steps_per_second`, the counts, `episode_duration`);
             acme/utils/loggers/default.py make_default_logger (CSVLogger behind TimeFilter(time_delta=1.0): rows less
             than 1 s after the last written are dropped); acme/utils/loggers/csv.py:49-101 (`{dir}/{uid}/logs/{label}/
             logs.csv` opened in append mode; the header is the first row's sorted keys, written only into an empty
             file; later keys ignored); acme/utils/paths.py:62-77 uid = `--acme_id`, else the start time
             `%Y%m%d-%H%M%S`; acme/utils/counting.py:78-98 get_counts (the parent's counts with every prefix). dm_control
             / MuJoCo / Pendulum returns (0..960, -290..9,200, -1,350..-150), 0.3M to 3M actor steps, eval every 1,250..
             20,000 actor steps (150+ evaluations) of 1..100 episodes of which those the TimeFilter keeps are the point
             (an evaluation's first always, then one a second); acme_steps: MountainCar / Acrobot / a swing-up timed to
             its goal, judged on `episode_length` (the cap when it times out), `direction: lower`. 40 % of the runs
             with an own `--acme_id` crash and are restored from the last checkpoint (Checkpointer every 5 minutes of
             wall time, counter included): the restored process appends to the same logs.csv files, each writer's fields
             the sorted keys of its own first row — the evaluator's now hold `actor_steps`, `actor_episodes`,
             `learner_steps`, which its header (written by the first evaluation, before any actor step) lacks.

Truth. Each env has a skill s in [0, 1] at a fractional point index x = (step - step0) / G, G the env's nominal judged
interval (nemo: val_period, or 1 step for train-only runs; benchmarl: the evaluation interval in iterations (TB, step0 =
-1 so that the evaluation of iteration i sits at (i + 1) fpb / interval) or frames (W&B); acme: eval_every actor
steps). Judged values: nemo validation the mean outcome over a fixed set (p_i = sigmoid(logit s + b_i), k generations
each); nemo training a Binomial over the step's rollouts of the agent at s - 0.02 (or instruction shares); benchmarl
and acme the mean over the point's episodes of A + (B - A) clip(s + sd N); acme_steps the mean episode length (a goal
reached w.p. s in lo..hi steps, else the cap). A nemo run's envs start within 0.04 of its s0 and top within 0.04 of its
s1; benchmarl experiments of one task share the task's scale. Learners rise from s0 to s1 (exp, logistic, sqrt or
linear) over T = 0.8..2.5 W points (nemo) or 10..40 % of the run (benchmarl, acme) and hold.
  W  stagnation window  max(min(100 steps, 10 % of the span), 20 G), in steps (the judged series' points)
  Q  tolerance unit     max over the run's envs of max(W / 10, G) = `tolerance_unit` in plan.json; a detection matches
                        a label within 2 Q (the scorer)
"Graduated" (truth) = s has reached s0 + 0.9 (s1 - s0) and then held 0.3 W more.

Labels (onset in steps; "first point" = the env's first judged point at or after the event's true start; one label an
env; in runs of 3+ envs the first two envs are clean learners and each later one carries an event with probability
0.65; in runs of one or two envs each carries one with probability 0.55):
  graduated_regression   after graduation + max(W, 10 points): sudden or gradual (ramp over 0.5..1.5 W) fall to keep
                         0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W, 15 points)
                         left). Onset = first judged point whose EXPECTED value keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point (rates; returns
                         and lengths only in a run of one env, README "the only env of a run that never learned ... is
                         stalled"); freeze (rates only): a linear rise over 0.4..0.8 W to 0.2..0.5 of the gain, then
                         flat >= 5 W to the end, onset = the first point of the flat
  performance_volatility after graduation + max(W, 10 points): burst (max(W, 20 points) of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 points) to the end; onset = first point
                         whose expected value is off by > max(0.15 gain, 4 sd)); switch (s1 and s1 - 0.4..0.6 gain,
                         dwells 6..18 points, >= 9 phases, to the end; onset = first point of the first low phase); wave
                         (s1 - a gain (1 - cos 2 pi (x - at) / P) / 2, a 0.45..0.7, P 8..20 points, >= 4 periods; onset
                         = first point 0.15 gain below the held level); dip (keep 0.1..0.5 for 3..6 points, then back;
                         onset = first point below 0.85 of the gain)
  prolonged_training     (twice as likely as the other events; never on a second-wave agent) a steady riser, LINEAR in s
                         (0.62 of the gain over the whole series); onset = first logged point + max(10 Wp, 2 x the
                         median time the run's graduated envs took to graduate), Wp = max(min(100 steps, 10 % of the
                         span), 20 TRAINING intervals) (README: the prolonged window holds 20 points of the env's
                         training logging; acme's training interval is an episode's length times the episodes the
                         TimeFilter drops between two rows); only where that onset lies 10 points before the series'
                         end; a clean env that graduates only past that limit is labelled prolonged too
  (eval_gap, unexpected_transition: none of these conventions stops its evals or logs states)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (trials halved until the gain is 5..8
sd), slow_learner (T 3..4.5 W, graduates), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one judged point at s0 + 0.05 gain after graduation).

Visibility (sd of one judged point simulated with the convention's own averaging; the trials a point averages are
doubled up to 3 times until it holds, else the env becomes a clean learner — for a train-judged nemo agent a larger
share of each step's rollouts, for benchmarl more evaluation episodes, for acme more evaluation episodes so that about
that many pass the TimeFilter): regression drop >= 4 sd; stall rise >= 5 sd, a never-learner's gap to the top >= 6 sd;
switching gap and wave amplitude >= 5 sd; dip drop >= 5 sd; burst sd >= 4 x base sd; prolonged riser: its rise over 4
windows >= 4 standard errors of a line fitted to their points; healthy gain >= 8 sd (noisy 5..8).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - torch's SummaryWriter (NeMo-RL, TorchRL) is stood in for by tensorboardX, its files renamed as torch names them;
  - NeMo-RL's W&B, MLflow and SwanLab loggers are off (its example configs' default); NeMo-RL's resumes (a new
    `exp_{NNN}` folder a launch, so a second run unless `--group` joins them) are not written;
  - BenchMARL's W&B group is the user's (its default, the task name, would join experiments of one task from every
    benchmark under the logdir into one run whose envs, `{algorithm}_{task}_{model}` by `run_env`, collide);
  - BenchMARL's `csv` logger files are written beside (curriwatch reads no such CSV); its config.pkl and checkpoints are
    not;
  - Acme's learner rows are written (thinned like the others) with losses the `acme` profile leaves out; acme_id is
    `{algo}_{game}_{k}` (an own `--acme_id`) or the start time.
"""
from __future__ import annotations

import csv
import datetime
import json
import math
import os
import shutil
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 6
CYCLE = ("nemo", "benchmarl_tb", "acme", "nemo", "benchmarl_wandb", "acme_steps")
UNREAD = ()  # conventions whose files curriwatch does not read (none of these three)
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
BENCHMARL_RUN_ENV = r"(?P<env>[a-z0-9]+_[a-z0-9_]+)__[0-9a-f]{8}_[0-9]{2}_[0-9]{2}_[0-9]{2}-"
CONFIGS = {
    "nemo": """\
profiles:
  nemo_gym:
    patterns:
      - {regex: '^train/(?P<env>[a-z0-9_]+_agent)/reward/mean$', split: train, metric: reward}
      - {regex: '^validation/(?P<env>[a-z0-9_]+_agent)/reward/mean$', split: eval, metric: reward}
    performance_metric: reward
profile: nemo_gym
""",
    "benchmarl_tb": f"""\
profiles:
  benchmarl_tb:
    patterns:
      - {{regex: '^eval_reward_episode_reward_mean$', env: "{{run}}", split: eval, metric: return}}
      - {{regex: '^collection_reward_episode_reward_mean$', env: "{{run}}", split: train, metric: return}}
    performance_metric: return
    run_env: '{BENCHMARL_RUN_ENV}'
profile: benchmarl_tb
""",
    "benchmarl_wandb": f"""\
profiles:
  benchmarl_wandb:
    patterns:
      - {{regex: '^eval/reward/episode_reward_mean$', env: "{{run}}", split: eval, metric: return}}
      - {{regex: '^collection/reward/episode_reward_mean$', env: "{{run}}", split: train, metric: return}}
    performance_metric: return
    step_key: counters/total_frames
    run_env: '{BENCHMARL_RUN_ENV}'
profile: benchmarl_wandb
""",
    "acme_steps": """\
profile: acme
performance_metric: episode_length
direction: lower
""",
}
NEMO_AGENTS = {  # agent: reward kind of its training rollouts ("binary" 0/1, "fraction": k of m instructions met)
    "math_with_judge_simple_agent": "binary", "code_gen_simple_agent": "binary",
    "instruction_following_simple_agent": "fraction", "workplace_assistant_simple_agent": "binary",
    "mcqa_simple_agent": "binary", "structured_outputs_simple_agent": "fraction",
    "google_search_simple_agent": "binary", "text_to_sql_simple_agent": "binary",
    "sudoku_game_agent": "binary", "competitive_coding_agent": "binary", "tau_bench_airline_agent": "fraction",
}
VMAS_TASKS = {  # task: (return at skill 0, at skill 1, per-episode sd in skill units, max_steps)
    "balance": (-62.0, 96.0, 0.12, 100), "navigation": (-2.8, 3.3, 0.15, 100), "transport": (-1.5, 34.0, 0.14, 500),
    "wheel": (-180.0, -35.0, 0.1, 200), "dispersion": (0.0, 3.6, 0.18, 100), "give_way": (-0.6, 4.2, 0.2, 100),
    "sampling": (6.0, 48.0, 0.1, 100), "reverse_transport": (-0.8, 26.0, 0.15, 500), "discovery": (0.0, 2.4, 0.2, 200),
    "flocking": (-34.0, 11.0, 0.12, 100), "simple_spread": (-210.0, -110.0, 0.15, 25),
}
BENCHMARL_ALGOS = {"mappo": True, "ippo": True, "maddpg": False, "iddpg": False, "masac": False, "isac": False,
                   "qmix": False}  # algorithm: on-policy
ACME_GAMES = {  # game: (kind, params)
    "cartpole_swingup": ("gauss", dict(A=25.0, B=860.0, sd_ep=0.06, ep_len=1000, hi=1.05, lo=0.0)),
    "walker_walk": ("gauss", dict(A=40.0, B=960.0, sd_ep=0.05, ep_len=1000, hi=1.03, lo=0.0)),
    "cheetah_run": ("gauss", dict(A=5.0, B=780.0, sd_ep=0.07, ep_len=1000, hi=1.15, lo=0.0)),
    "finger_spin": ("gauss", dict(A=0.0, B=950.0, sd_ep=0.08, ep_len=1000, hi=1.04, lo=0.0)),
    "hopper_hop": ("gauss", dict(A=0.0, B=290.0, sd_ep=0.2, ep_len=1000, hi=1.3, lo=0.0)),
    "Pendulum-v1": ("gauss", dict(A=-1350.0, B=-150.0, sd_ep=0.12, ep_len=200, hi=1.08, lo=-0.15)),
    "HalfCheetah-v4": ("gauss", dict(A=-290.0, B=9200.0, sd_ep=0.04, ep_len=1000, hi=1.2, lo=-0.1)),
    "Hopper-v4": ("gauss", dict(A=18.0, B=3300.0, sd_ep=0.18, ep_len=1000, hi=1.1, lo=0.0)),
}
ACME_STEP_GAMES = {  # lower is better: steps to the goal, the cap when it times out
    "MountainCar-v0": ("steps", dict(cap=200, lo=85, hi=160)),
    "Acrobot-v1": ("steps", dict(cap=500, lo=62, hi=140)),
    "CartPoleSwingup-time": ("steps", dict(cap=1000, lo=180, hi=420)),
}
ACME_ALGOS = {"gauss": ("sac", "d4pg", "td3", "mpo", "ppo"), "steps": ("dqn", "r2d2", "mdqn", "munchausen_dqn")}
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


def plan_nemo(run: dict, rng) -> tuple[list[Env], float]:
    """NeMo-RL GRPO over NeMo-Gym agents: per-agent train means every step, per-agent validation every val_period."""
    names = [str(t) for t in rng.permutation(list(NEMO_AGENTS))[:int(rng.integers(3, 7))]]
    N = int(rng.integers(300, 1501))
    with_val = bool(rng.random() < 0.7)
    vp = int(rng.choice([5, 10, 10, 20])) if with_val else 1
    while with_val and N // vp < 40 and vp > 5:
        vp //= 2
    prompts = int(rng.choice([32, 64, 128]))
    gens = int(rng.choice([4, 8, 16]))
    w = rng.dirichlet(np.full(len(names), 5.0))
    waves = (not with_val) and bool(rng.random() < 0.4) and len(names) >= 4
    run.update(steps=N, with_val=with_val, val_period=vp, val_at_start=bool(with_val and rng.random() < 0.5),
               num_prompts_per_step=prompts, num_generations_per_prompt=gens, weights=w.tolist(), agents=names,
               val_generations=int(rng.choice([1, 1, 2, 4])), exp_dir=f"exp_{int(rng.integers(1, 13)):03d}",
               waves=waves)
    s0r, s1r = float(rng.uniform(0.03, 0.3)), float(rng.uniform(0.75, 0.93))
    wave2 = int(N * rng.uniform(0.15, 0.35)) if waves else 0
    envs = []
    for j, nm in enumerate(names):
        s0 = float(np.clip(s0r + rng.uniform(-0.04, 0.04), 0, 1))
        s1 = float(np.clip(s1r + rng.uniform(-0.04, 0.04), 0, 0.99))
        share = prompts * gens * float(w[j])
        if with_val:
            m = int(rng.integers(24, 257))
            e = Env(nm, N // vp + 1, float(vp), 0, s0, s1, 0.0, kind="fixedset", n=float(m))
            e.params["difficulty"] = _difficulty(rng, m * 8, float(rng.uniform(0.6, 1.8)))
            e.params["samples"] = run["val_generations"]
        else:
            step0 = wave2 if (waves and j >= len(names) // 2) else 0
            e = Env(nm, N - step0, 1.0, step0, s0, s1, 0.0, kind="binom", n=max(1.0, share))
        e.params.update(train_G=1.0, weight=float(w[j]), reward_kind=NEMO_AGENTS[nm], wave=int(e.step0 > 0))
        envs.append(e)
    return envs, float(N)


def plan_benchmarl(run: dict, rng) -> tuple[list[Env], float]:
    """BenchMARL: one experiment per task (and algorithm); each its own run (TensorBoard) or W&B grouped by task."""
    wb = run["convention"] == "benchmarl_wandb"
    tasks = [str(t) for t in rng.permutation(list(VMAS_TASKS))[:int(rng.integers(1, 3) if wb else 1)]]
    algos = [str(a) for a in rng.permutation(list(BENCHMARL_ALGOS))[:int(rng.integers(1, 3)) if wb else 1]]
    fpb = 6000
    max_frames = int(rng.choice([3_000_000, 6_000_000, 6_000_000, 12_000_000]))
    ei = fpb * int(rng.choice([2, 4, 5, 10]))
    iters = max_frames // fpb
    while iters // (ei // fpb) < 150 and ei > fpb:
        ei = max(fpb, (ei // 2) - (ei // 2) % fpb)
    model = str(rng.choice(["mlp", "mlp", "gnn"]))
    run.update(frames_per_batch=fpb, max_n_frames=max_frames, evaluation_interval=ei, iterations=iters,
               evaluation_episodes=int(rng.choice([10, 10, 32])), model=model, tasks=tasks, algos=algos,
               checkpoint_interval=fpb * 50, wandb_group=f"vmas_{run['name'].split('_')[0]}_{model}")
    resume = None
    if rng.random() < 0.25:
        crash = int(iters * rng.uniform(0.3, 0.75))
        ck = (crash * fpb) // run["checkpoint_interval"] * run["checkpoint_interval"] // fpb
        resume = {"crash": crash, "ckpt": max(1, ck)}
    run["resume"] = resume
    envs = []
    for task in tasks:
        A, B, sd, max_steps = VMAS_TASKS[task]
        s0r, s1r = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.85, 0.97))
        for algo in algos:
            name = f"{algo}_{task}_{model}"
            if wb:  # W&B: steps are counters/total_frames; the eval of iteration i is at (i + 1) * fpb
                G, step0 = float(ei), 0
            else:  # TensorBoard: steps are iterations; the eval of iteration i is at i = (k ei) / fpb - 1
                G, step0 = float(ei // fpb), -1
            e = Env(name, iters * fpb // ei + 1, G, step0, float(np.clip(s0r + rng.uniform(-0.03, 0.03), 0, 1)),
                    float(np.clip(s1r + rng.uniform(-0.03, 0.03), 0, 1)), 0.0, kind="episodes",
                    n=float(run["evaluation_episodes"]))
            e.params.update(game_kind="gauss", A=A, B=B, sd_ep=sd, lo=-0.3, hi=1.15, task=task, algo=algo,
                            on_policy=BENCHMARL_ALGOS[algo], max_steps=max_steps,
                            uid=f"{zlib.crc32((run['name'] + name).encode()):08x}", stamp=_bm_stamp(rng),
                            train_G=G / (ei // fpb), n_coll=fpb // max_steps)
            envs.append(e)
    return envs, float(max_frames if wb else iters - 1)


def _bm_stamp(rng) -> str:
    d = datetime.datetime(2025, 1, 1) + datetime.timedelta(seconds=int(rng.integers(0, 300 * 86400)))
    return d.strftime("%y_%m_%d-%H_%M_%S")


def plan_acme(run: dict, rng) -> tuple[list[Env], float]:
    """DeepMind Acme run_experiment: one env per run, actor / evaluator / learner CSV logs."""
    steps_game = run["convention"] == "acme_steps"
    games = ACME_STEP_GAMES if steps_game else ACME_GAMES
    game = str(rng.choice(list(games)))
    kind, gp = games[game]
    algo = str(rng.choice(ACME_ALGOS[kind]))
    ep_len = gp.get("ep_len", gp.get("cap"))
    total = int(rng.choice([300_000, 500_000, 1_000_000])) if kind == "steps" or ep_len <= 200 else \
        int(rng.choice([1_000_000, 2_000_000, 3_000_000]))
    eval_every = int(rng.choice([5_000, 10_000, 20_000]))
    while total // eval_every < 150:
        eval_every //= 2
    n_eval = int(rng.choice([1, 5, 10, 10]))
    sps_train = float(rng.uniform(150, 1500))
    sps_eval = float(rng.uniform(400, 4000))
    own_id = bool(rng.random() < 0.6)  # `--acme_id`; else the process's start time (paths.py:62, 65-77)
    acme_id = f"{algo}_{game.lower().replace('-', '_')}_{int(rng.integers(0, 10))}" if own_id else \
        (datetime.datetime(2025, 2, 1) + datetime.timedelta(seconds=int(rng.integers(0, 200 * 86400)))).strftime(
            "%Y%m%d-%H%M%S")
    run.update(game=game, algo=algo, max_num_actor_steps=total, eval_every=eval_every, num_eval_episodes=n_eval,
               sps_train=sps_train, sps_eval=sps_eval, acme_id=acme_id, min_replay=int(rng.choice([1000, 10000])))
    resume = None  # a restored job finds its checkpoint (and appends to its logs) only under a fixed --acme_id
    if rng.random() < (0.4 if own_id else 0.0):
        resume = {"crash": int(total * rng.uniform(0.3, 0.75))}
    run["resume"] = resume
    s0, s1 = float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.85, 0.97))
    # the evaluator's episodes that pass Acme's 1 s TimeFilter: the first of an evaluation, then one a second
    mean_len = ep_len if kind == "gauss" else 0.5 * (gp["cap"] + gp["lo"])
    dur = mean_len / sps_eval
    kept = n_eval if dur > 1.0 else max(1, int(math.ceil(n_eval / math.ceil(1.0 / dur))))
    e = Env(acme_id, total // eval_every + 1, float(eval_every), 0, s0, s1, 0.0, kind="episodes", n=float(kept))
    e.params.update(game_kind=kind, game=game, **gp)
    tdur = mean_len / sps_train
    e.params["train_G"] = float(mean_len * (1 if tdur > 1.0 else math.ceil(1.0 / tdur)))
    return [e], float(total)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility"]
    if conv == "nemo":
        envs, span = plan_nemo(run, rng)
    elif conv.startswith("benchmarl"):
        envs, span = plan_benchmarl(run, rng)
    else:
        envs, span = plan_acme(run, rng)
    run["envs"] = envs
    Ws = []
    for env in envs:
        W = window(env.G, span) / env.G
        env.params["W"] = W
        env.params["Wp"] = window(env.params["train_G"], span) / env.G  # the prolonged window, in judged points
        env.T = float(rng.uniform(0.8, 2.5)) * W if conv == "nemo" else float(rng.uniform(0.1, 0.4)) * env.L
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if len(envs) >= 3:
        grads = [grad_points(e, span) for e in envs[:2]]
        for k, env in enumerate(envs):
            env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)))
            p_ev = 0.0 if k < 2 else 0.65
            pl = pool + (["prolonged_training"] * 2 if env.step0 == 0 else [])
            assign(run, env, Ws[k], p_ev, pl, rng)
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
                and env.L - 1 > limit + 10 and env.step0 <= 0:
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

def _tb_write(dest: Path, events: list, wall0: float, host: str, k: int = 0, hparams: dict | None = None) -> None:
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
        shutil.copyfile(src, dest / f"events.out.tfevents.{int(wall0)}.{host}.{4000 + 17 * k}.{k}")
        for sub in Path(tmp).iterdir():
            if sub.is_dir():
                shutil.copytree(sub, dest / sub.name, dirs_exist_ok=True)


def _stats(prefix: str, vals: np.ndarray, denom: int | None = None) -> dict:
    """nemo_rl/experience/metric_utils.py calculate_single_metric, less its median and histogram (TensorBoard skips the histogram)."""
    denom = len(vals) if denom is None else denom
    return {f"{prefix}/mean": float(vals.sum() / denom), f"{prefix}/max": float(vals.max()),
            f"{prefix}/min": float(vals.min()), f"{prefix}/stddev": float(np.std(vals, ddof=1)) if len(vals) > 1 else float("nan")}


def write_nemo(folder: Path, run: dict, rng) -> dict:
    """NeMo-RL's TensorboardLogger under {log_dir}/exp_NNN/tensorboard: train/* every step (step = total_steps + 1),
    validation/* every val_period steps (and at step 0 with val_at_start)."""
    envs, N = run["envs"], run["steps"]
    prng = np.random.default_rng(run["seed"] + 31)
    gens, prompts = run["num_generations_per_prompt"], run["num_prompts_per_step"]
    events = []
    judged: dict[str, set] = {e.name: set() for e in envs}
    first: dict[str, int] = {}
    wall = 1.752e9 + float(prng.integers(0, 10 ** 7))
    k_val = run["val_generations"]

    def validate(step: int):
        nonlocal wall
        accs, lens = [], []
        row = {}
        for e in envs:
            x = (step - e.step0) / e.G
            s = truth(e, np.array([x]))
            if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
                s = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
            p = fixedset_probs(e, s)[0]
            wins = prng.random((k_val, len(p))) < p[None, :]
            vals = wins.astype(float).ravel()
            row.update(_stats(f"validation/{e.name}/reward", vals))
            accs.append(vals)
            judged[e.name].add(step)
            first.setdefault(e.name, step)
        allv = np.concatenate(accs)
        row["validation/accuracy"] = float(allv.mean())
        row["validation/avg_length"] = float(prng.uniform(300, 1800))
        for kk, v in row.items():
            events.append((step, kk, v, wall))
        wall += float(prng.uniform(60, 400))
        events.append((step, "timing/validation/total_validation_time", float(prng.uniform(60, 400)), wall))

    if run["with_val"] and run["val_at_start"]:
        validate(0)
    for step in range(1, N + 1):
        wall += float(prng.uniform(40, 160))
        active = [e for e in envs if step >= e.step0]
        w = np.array([e.params["weight"] for e in active])
        groups = prng.multinomial(prompts, w / w.sum())
        row = {}
        all_r = []
        for e, g in zip(active, groups):
            n = int(g) * gens
            if n == 0:
                continue
            if e.kind == "binom":  # a train-judged agent: a user who wants more rollouts of it raises its share
                n = max(1, int(round(n * e.knob)))
            x = (step - e.step0) / e.G
            s = float(truth(e, np.array([x]))[0])
            if e.variant == "single_outlier" and e.kind == "binom" and abs(x - e.at) < 0.5:
                s = e.s0 + 0.05 * (e.s1 - e.s0)
            s_tr = float(np.clip(s - 0.02, 0, 1))
            if e.params["reward_kind"] == "fraction":  # k of m instructions met, m fixed per prompt
                m = np.repeat(prng.integers(1, 5, max(1, n // gens) + 1), gens)[:n]
                vals = prng.binomial(m, s_tr) / m
            else:
                vals = (prng.random(n) < s_tr).astype(float)
            row.update(_stats(f"train/{e.name}/reward", vals))
            all_r.append(vals)
            if e.kind == "binom":
                judged[e.name].add(step)
            first.setdefault(e.name, step)
        allv = np.concatenate(all_r)
        row.update(_stats("train/total_reward", allv))
        row.update({"train/gen_tokens_per_sample/mean": float(prng.uniform(300, 2000)),
                    "train/truncation_rate": float(prng.uniform(0.0, 0.15))})
        for kk, v in row.items():
            events.append((step, kk, v, wall))
        for kk, v in {"train/loss": float(prng.normal(0.0, 0.02)), "train/grad_norm": float(abs(prng.normal(0.3, 0.1))),
                      "timing/train/total_step_time": float(prng.uniform(40, 160))}.items():
            events.append((step, kk, v, wall + 1))
        if run["with_val"] and step % run["val_period"] == 0:
            validate(step)
    _tb_write(folder / "logs" / run["exp_dir"] / "tensorboard", events, 1.752e9, str(rng.choice(HOSTS)))
    for e in envs:
        e.params["first_logged"] = first.get(e.name, e.step0)
    cfg = {"grpo": {"num_prompts_per_step": prompts, "num_generations_per_prompt": gens, "max_num_steps": N,
                    "val_period": run["val_period"] if run["with_val"] else 0, "val_at_start": run["val_at_start"]},
           "logger": {"log_dir": "logs", "tensorboard_enabled": True, "wandb_enabled": False},
           "env": {"should_use_nemo_gym": True, "nemo_gym": {"agents": [e.name for e in envs]}}}
    (folder / "logs" / run["exp_dir"] / "config.yaml").write_text(json.dumps(cfg, indent=1))
    return {k: np.array(sorted(v), dtype=np.int64) for k, v in judged.items()}


def _bm_rows(run: dict, e: Env, a: int, b: int, prng) -> list[dict]:
    """One BenchMARL experiment's logged dicts for iterations a..b-1 (experiment.py:700-795, logger.py:113-240)."""
    fpb, ei = run["frames_per_batch"], run["evaluation_interval"]
    p = e.params
    rows = []
    total_time = 0.0
    for i in range(a, b):
        frames = (i + 1) * fpb
        xf = frames / ei  # the skill's point index on the frames axis (evals at k * ei)
        s = float(truth(e, np.array([xf]))[0])
        expl = 0.97 if p["on_policy"] else 0.85
        ret = ep_returns(e, np.full(p["n_coll"], s * expl), prng)
        row = {}
        for pre in ("collection/agents/reward/episode_reward", "collection/reward/episode_reward"):
            row.update({pre + "_min": float(ret.min()), pre + "_mean": float(ret.mean()), pre + "_max": float(ret.max())})
        step_r = ret / p["max_steps"]
        row["collection/reward/reward_mean"] = float(step_r.mean())
        for kk in (("loss_objective", "loss_critic") if p["on_policy"] else ("loss_actor", "loss_qvalue")):
            row[f"train/agents/{kk}"] = float(prng.normal(0.2, 0.1))
        if i == 0 or frames % ei == 0:
            xe = xf
            se = truth(e, np.array([xe]))
            if e.variant == "single_outlier" and abs(xe - e.at) < 0.5:
                se = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
            n = e.trials()
            r = ep_returns(e, np.full(n, se[0]), prng)
            row["timers/evaluation_time"] = float(prng.uniform(2, 20))
            for pre in ("eval/agents/reward/episode_reward", "eval/reward/episode_reward"):
                row.update({pre + "_min": float(r.min()), pre + "_mean": float(r.mean()), pre + "_max": float(r.max())})
            row["eval/reward/episode_len_mean"] = float(p["max_steps"])
            row["_eval"] = True
        it = float(prng.uniform(8, 30))
        total_time += it
        row.update({"timers/iteration_time": it, "timers/total_time": total_time, "counters/total_frames": frames,
                    "counters/iter": i})
        row["_iter"] = i
        rows.append(row)
    return rows


def write_benchmarl(folder: Path, run: dict, rng) -> dict:
    """Each experiment's folder `{save_folder}/{algo}_{task}_{model}__{uuid8}_{date}`: TorchRL's TensorboardLogger
    (`{folder}/{name}/events...`, keys with `/` written as `_`, step = the iteration) or its WandbLogger (rows without
    a step, id = name, group = task), its CSVLogger beside it (`{folder}/{name}/scalars/{key}.csv`), marl-eval JSON."""
    wb = run["convention"] == "benchmarl_wandb"
    judged = {}
    rs = run["resume"]
    iters = run["iterations"]
    for j, e in enumerate(run["envs"]):
        p = e.params
        name = f"{e.name}__{p['uid']}_{p['stamp']}"
        exp = folder / "outputs" / name
        exp.mkdir(parents=True, exist_ok=True)
        procs = [(0, rs["crash"] + 1), (rs["ckpt"], iters)] if rs else [(0, iters)]
        js = set()
        csv_rows: dict[str, dict] = {}
        for k, (a, b) in enumerate(procs):
            prng = np.random.default_rng(run["seed"] + 71 + 13 * k + 1009 * j)
            rows = _bm_rows(run, e, a, b, prng)
            for row in rows:
                if row.get("_eval"):
                    js.add(row["counters/total_frames"] if wb else row["_iter"])
                for kk, v in row.items():
                    if not kk.startswith("_"):
                        csv_rows.setdefault(kk.replace("/", "_"), {})[row["_iter"]] = v
            wall0 = 1.74e9 + 86400 * k + float(prng.integers(0, 10 ** 6))
            if wb:
                _tests_on_path()
                import wandb
                from writers import wait_until_complete

                with tempfile.TemporaryDirectory() as tmp:
                    # wandb_extra_kwargs={"group": ...} overrides BenchMARL's default group (the task name), which
                    # would join experiments of one task from every benchmark under the logdir into one run
                    wr = wandb.init(id=name, name=name, group=run["wandb_group"], project="benchmarl", mode="offline", dir=tmp,
                                    config={"algorithm_name": p["algo"], "task_name": p["task"],
                                            "experiment_config": {"evaluation_interval": run["evaluation_interval"],
                                                                  "max_n_frames": run["max_n_frames"]}},
                                    settings=wandb.Settings(x_disable_stats=True, console="off"))
                    for row in rows:
                        wr.log({kk: v for kk, v in row.items() if not kk.startswith("_")})
                    wr.finish()
                    wandb.teardown()
                    src_f = next(Path(tmp).glob(f"wandb/offline-run-*-{name}/run-{name}.wandb"))
                    wait_until_complete(src_f)
                    stamp = datetime.datetime.fromtimestamp(wall0, datetime.timezone.utc).strftime("%Y%m%d_%H%M%S")
                    dest = exp / "wandb" / f"offline-run-{stamp}-{name}" / src_f.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src_f, dest)
            else:
                events = []
                for row in rows:
                    t = wall0 + row["timers/total_time"]
                    for kk, v in row.items():
                        if not kk.startswith("_"):
                            events.append((row["_iter"], kk.replace("/", "_"), v, t))
                hp = {"algorithm_name": p["algo"], "task_name": p["task"], "model_name": run["model"],
                      "experiment_config_max_n_frames": run["max_n_frames"], "on_policy": bool(p["on_policy"]),
                      "experiment_config_evaluation_interval": run["evaluation_interval"], "seed": 0}
                # Logger.log_hparams (logger.py:85-111) -> TorchRL TensorboardLogger.log_hparams -> add_hparams
                _tb_write(exp / name, events, wall0, HOSTS[j % len(HOSTS)], k, hparams=hp if k == 0 else None)
        sc = exp / name / "scalars"
        sc.mkdir(parents=True, exist_ok=True)
        for kk, pts in csv_rows.items():
            with open(sc / f"{kk}.csv", "w") as f:
                f.writelines(f"{i},{v}\n" for i, v in sorted(pts.items()))
        ev = sorted(i for i, r in csv_rows.get("eval_reward_episode_reward_mean", {}).items())
        (exp / f"{name}.json").write_text(json.dumps({p["task"]: {p["algo"]: {"seed_0": {
            f"step_{(i + 1) * run['frames_per_batch'] // run['evaluation_interval']}": {
                "step_count": (i + 1) * run["frames_per_batch"]} for i in ev}}}}))
        p["first_logged"] = run["frames_per_batch"] if wb else 0
        judged[e.name] = np.array(sorted(js), dtype=np.int64)
    return judged


class _AcmeCSV:
    """acme/utils/loggers/csv.py CSVLogger behind filters.TimeFilter(time_delta=1.0) (loggers/default.py): the header is
    the first row's sorted keys, later keys dropped (extrasaction='ignore'); a reopened file is appended to without a
    header, its new writer's fields taken from its own first row."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.fields, self.last = path, None, -1e18
        self.f = open(path, "a", newline="")

    def write(self, now: float, data: dict) -> None:
        if not now - self.last > 1.0:
            return
        self.last = now
        if self.fields is None:
            self.fields = sorted(data)
            self.w = csv.DictWriter(self.f, fieldnames=self.fields, extrasaction="ignore")
            if not self.f.tell():
                self.w.writeheader()
        self.w.writerow(data)

    def close(self) -> None:
        self.f.close()


def write_acme(folder: Path, run: dict, rng) -> dict:
    """acme/jax/experiments/run_experiment.py: evaluate num_eval_episodes, then train eval_every actor steps, ...;
    one logs.csv per label under ~/acme/{acme_id}/logs/; a restored job appends from its last checkpoint."""
    e = run["envs"][0]
    p = e.params
    d = folder / "acme" / run["acme_id"] / "logs"
    total, ee = run["max_num_actor_steps"], run["eval_every"]
    # episodes to run so that about trials() of them pass the 1 s TimeFilter (a user raising num_eval_episodes where
    # one point was too noisy)
    mean_len = p["ep_len"] if not p["game_kind"] == "steps" else 0.5 * (p["cap"] + p["lo"])
    dur = mean_len / run["sps_eval"]
    n_eval = e.trials() if dur > 1.0 else min(100, max(run["num_eval_episodes"], int(math.ceil(e.trials() / dur))))
    run["num_eval_episodes_used"] = n_eval
    rs = run["resume"]
    prng = np.random.default_rng(run["seed"] + 53)
    judged: set = set()
    counts: dict[str, int] = {}
    ckpt = {"counts": {}, "wall": 0.0}
    wall = 1.745e9
    steps_game = p["game_kind"] == "steps"

    def episode(s: float) -> tuple[int, float]:
        v = float(ep_returns(e, np.array([s]), prng)[0])
        if steps_game:
            return int(v), -v
        return int(p["ep_len"]), v

    def proc(crash_at: float | None) -> bool:
        nonlocal wall, counts
        logs = {lab: _AcmeCSV(d / lab / "logs.csv") for lab in ("actor", "evaluator", "learner")}
        try:
            while True:
                # evaluation: num_eval_episodes at the current actor steps
                st = counts.get("actor_steps", 0)
                x = st / e.G
                s = float(truth(e, np.array([x]))[0])
                if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
                    s = e.s0 + 0.05 * (e.s1 - e.s0)
                for _ in range(n_eval):
                    ln, ret = episode(s)
                    dur = ln / run["sps_eval"] * float(prng.uniform(0.8, 1.25))
                    wall += dur
                    counts["evaluator_episodes"] = counts.get("evaluator_episodes", 0) + 1
                    counts["evaluator_steps"] = counts.get("evaluator_steps", 0) + ln
                    logs["evaluator"].write(wall, {"episode_length": ln, "episode_return": ret,
                                                   "steps_per_second": ln / dur, **counts, "episode_duration": dur})
                judged.add(st)
                if st >= total:
                    return True
                target = min(st + ee, total)
                while counts.get("actor_steps", 0) < target:
                    a = counts.get("actor_steps", 0)
                    s = float(truth(e, np.array([a / e.G]))[0]) * 0.9
                    ln, ret = episode(s)
                    if crash_at is not None and a + ln >= crash_at:
                        return False
                    dur = ln / run["sps_train"] * float(prng.uniform(0.8, 1.25))
                    wall += dur
                    counts["actor_episodes"] = counts.get("actor_episodes", 0) + 1
                    counts["actor_steps"] = a + ln
                    if counts["actor_steps"] >= run["min_replay"]:
                        counts["learner_steps"] = counts.get("learner_steps", 0) + ln // 4
                        logs["learner"].write(wall, {"learner_steps": counts["learner_steps"], "learner_walltime":
                                                     wall - 1.745e9, "critic_loss": float(abs(prng.normal(1, .3))),
                                                     "policy_loss": float(prng.normal(-5, 1))})
                    logs["actor"].write(wall, {"episode_length": ln, "episode_return": ret,
                                               "steps_per_second": ln / dur, **counts, "episode_duration": dur})
                    if wall - ckpt["wall"] > 300:  # Checkpointer(time_delta_minutes=5) saves the counter with the learner
                        ckpt.update(counts=dict(counts), wall=wall)
        finally:
            for lg in logs.values():
                lg.close()

    if rs:
        proc(rs["crash"])
        counts = dict(ckpt["counts"])  # the restored parent counter
        wall += 900.0
        proc(None)
    else:
        proc(None)
    p["first_logged"] = 0
    (d.parent / "checkpoints").mkdir(parents=True, exist_ok=True)
    return {e.name: np.array(sorted(judged), dtype=np.int64)}


# --- build -------------------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    writer = {"nemo": write_nemo, "benchmarl_tb": write_benchmarl, "benchmarl_wandb": write_benchmarl,
              "acme": write_acme, "acme_steps": write_acme}[conv]
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
    rng = np.random.default_rng([seed, 27])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"v{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
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
