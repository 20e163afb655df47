"""The twenty-fourth detection corpus (`python benchmarks/detection.py --corpus twentyfourth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles with `env: "{run}"`, `run_env`,
`step_key` and `count_metric`, metric direction, what a rate is, logging shapes, what `unknown` means; detection.py's
label format and scorer; the twenty-second and twenty-third corpora as examples of the interface; tests/writers.py),
without reading the analysis code and without looking at which cases curriwatch misses. Meant to be read for its
totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentyfourth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (10 puffer_grid, 20 torch_ac, 10 dopamine_tf1, 10 puffer_arcade, 10
dopamine_jax), one group folder per convention, each with a curriwatch.yaml forcing a user profile. Chosen for what the
twenty-three other corpora do not cover: PUFFERLIB's clean_pufferl W&B rows (no `step=`, a row whenever 3 s of wall
clock passed, the info dicts of the last epoch only, nested infos unrolled into `environment/{task}/{stat}`, resumed
under the same W&B id from a checkpoint), RL-STARTER-FILES / TORCH-AC (tensorboardX at `num_frames`, `return_mean` of
the last max(done, procs) episodes — padded with earlier episodes, zeros after a (re)start —, one model dir per
MiniGrid level named after the env, resumed from `status.pt` into a second event file; log.csv and log.txt beside it)
and DOPAMINE (per-iteration `Train|Eval/AverageReturns` and `NumEpisodes`: the TF1 session path writes the five values
as ONE Summary event, the JAX agents' TF2 path tensor scalars; the agent's loss on its training-step axis in the same
file; the CollectorDispatcher's TF2 copy under `metrics/tensorboard/`; resumed from the last checkpoint, sometimes with
the train-only schedule):

  puffer_grid / puffer_arcade  PufferAI/PufferLib@91460f7b14edd1b43d6b19150cef5c51b80cbb7f (PufferLib 2.0):
             clean_pufferl.py:76-154 `evaluate` collects every info dict of the epoch's rollout, unrolled by
             pufferlib/utils.py:56-65 `unroll_nested_dict` (`{k}/{k2}`), and keeps `np.mean` of each key (a key only
             where an episode that reports it ended in the epoch; `data.stats = {}` each epoch); :88-90 global_step +=
             the agents stepped; :271-288 after each epoch's update, when `profile.update` says a second passed and
             `time.time() - data.last_log_time > 3.0`, `wandb.log({'0verview/SPS', '0verview/agent_steps',
             '0verview/epoch', '0verview/learning_rate', **environment/{k}, **losses/{k}, **performance/{k}})` WITHOUT
             step=; :290-292, 509-546 checkpoints every `checkpoint_interval` epochs, `try_load_checkpoint` restores
             global_step and epoch; demo.py:97-98 `resume = exp_id is not None`, exp_id `{env}-{uuid[:8]}`; :111-130
             `wandb.init(id=exp_id, group=args.wandb_group, name=..., resume=resume)`; :241 `--wandb-group` default
             `debug` (every run of a project in one W&B group: here each experiment passes its own group, see Choices);
             config.yaml:37-38 checkpoint_interval 200, batch_size. A user's multi-task env whose episode-end info is
             `{task: {stat: v}}`: puffer_grid MiniHack-like grid tasks (`solved` 0/1, so the logged mean is a rate
             of the 3..40 episodes of the task that ended in the epoch; `episode_return`, `episode_length` beside it);
             puffer_arcade Ocean-style games with scores on scales of their own (`score`, `episode_length`). TRAIN
             ONLY; 40 % of runs unlock later tasks at 10..35 % of the run; 30 % crash and resume from the last
             checkpoint into a second offline run folder with the same id (the epochs since the checkpoint are
             logged again). User profile `^environment/(?P<env>[a-z_]+)/(?P<metric>…)$` with `step_key:
             0verview/agent_steps`.
  torch_ac   lcswillems/rl-starter-files@317da04a9a6fb26506bbd7f6c7c7e10fc0de86e0: scripts/train.py:73-82 model dir
             `storage/{env}_{algo}_seed{seed}_{date}`, txt / csv loggers and `tensorboardX.SummaryWriter(model_dir)`;
             :105-109, 147-148 the status (num_frames, update) reloaded; :164-193 every `log_interval` updates the
             header `update, frames, FPS, duration, rreturn_*, num_frames_*, entropy, value, policy_loss, value_loss,
             grad_norm, return_mean|std|min|max` written to log.csv (header only when status num_frames is 0) and
             `add_scalar(field, value, num_frames)`; :196-203 status saved every `save_interval` (10) updates;
             utils/storage.py:17-24, 66-70; utils/other.py:18-24 `synthesize` (mean, std, min, max).
             lcswillems/torch-ac@b6602c8ce843a8bfe9cef1723d0151dd7a3c22c3: torch_ac/algos/base.py:76 num_frames =
             frames_per_proc x procs an update; :101-104 `log_return = [0] * num_procs` at construction; :166-172 each
             finished episode appended; :226-238 the update logs the last `max(log_done_counter, num_procs)` returns and
             keeps the last num_procs. A BabyAI-style sequential curriculum of 3..5 MiniGrid levels of one family
             (DoorKey, KeyCorridor, MultiRoom, Unlock), one model dir per level (default name), return 1 - 0.9 steps /
             max_steps when solved, else 0. TRAIN ONLY; 35 % of levels crash and resume from the last saved status (a
             second event file; frames since the save logged again, the return buffer back to zeros). User profile
             `^return_mean$` with `env: "{run}"` and `run_env` taking the env id from the model dir's name.
  dopamine_tf1 / dopamine_jax  google/dopamine@5873f5494ee0c2d7c016d0ab2ad530354fec59d0:
             dopamine/discrete_domains/run_experiment.py:136-157 `create_runner` (`continuous_train_and_eval` ->
             Runner, `continuous_train` -> TrainRunner); :254-278 the agent makes the summary writer from base_dir,
             then the CollectorDispatcher; :307-353 resume from the latest checkpoint at `current_iteration + 1`;
             :470-513 a phase runs whole episodes until min_steps; :572-620 per iteration Train then Eval phase,
             collector write and `_save_tensorboard_summaries`; :622-680 TF2 path (`tf.summary.scalar` x 5, step =
             iteration) or, with a session (TF1 agents), ONE `tf.compat.v1.Summary` holding the five values,
             `add_summary(summary, iteration)`; TrainRunner (:743-) writes only the three Train values;
             dopamine/tf/agents/dqn/dqn_agent.py:188-189 `FileWriter(base_dir)`, :340-341 `Losses/HuberLoss`, :458-466
             merged summaries every `summary_writing_frequency` training steps at step=training_steps;
             dopamine/jax/agents/dqn/dqn_agent.py:375-380 `tf.summary.create_file_writer(base_dir)`, :584-599
             `HuberLoss` at training_steps and the collector's `Loss`; dopamine/metrics/collector.py:44-45
             `{base_dir}/metrics/{name}`, tensorboard_collector.py:26-44 TF2 scalars of every statistic;
             collector_dispatcher.py:69-80 collectors console, pickle, tensorboard; dopamine/tf/agents/dqn/configs/
             dqn.gin:31-34 200 iterations of 250,000 training / 125,000 eval steps; dopamine/jax/agents/dqn/configs/
             dqn_cartpole.gin, dqn_acrobot.gin: 1,000 / 1,000 steps, 100 / 500 iterations, `continuous_train`.
             dopamine_tf1: Atari games (raw returns on their own scales), one base_dir per game
             `dopamine/{agent}/{Game}`, Runner with evals, 80..200 iterations, `summary_writing_frequency` raised to
             25,000 by a gin binding. dopamine_jax: gym classic control (CartPole capped at 200, Acrobot floored at
             its -500 timeout, LunarLander, MountainCar floored at -200), 150..500 iterations, half the runs with the
             gin's train-only schedule, half with evals. Both: 35 % crash and resume from the checkpoint into a new
             event file (the crashed iteration rewritten when its summary was written before its checkpoint); an
             eval_gap env was resumed with `create_runner.schedule='continuous_train'`: its evals stop. User profile
             `Train|Eval/AverageReturns` (return) and `Train|Eval/NumEpisodes` (`count_metric`), `env: "{run}"`,
             `run_env` = the game folder.

Truth. Each env has a skill s in [0, 1] at a fractional point index x = (step - activation) / G, G the env's nominal
judged interval (pufferlib: the mean interval of the rows; torch_ac: log_interval x frames an update; dopamine: 1
iteration). Its judged value's expectation is about A + (B - A) s (rates: A 0, B 1; MiniGrid returns: B = 1 - 0.9 x
the mean solved length share; returns: the mean of n episodes, each A + (B - A) clip(s + sd_ep N(0, 1)), now and then a
catastrophe). A puffer_grid run's tasks start within 0.03 of its s0 and top within 0.03 of its s1; other conventions'
envs have scales of their own (each torch_ac level and dopamine game is a run of its own). Learners rise from s0 to s1
over T = 0.8..2.5 W points (exp, logistic, sqrt or linear) and hold.
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 G), in steps
  Q  tolerance unit     max over the run's envs of max(W / 10, G) = `tolerance_unit` in plan.json; a detection matches
                        a label within 2 Q (the scorer)
"Graduated" (truth) = s has reached s0 + 0.9 (s1 - s0) and then held 0.3 W more.

Labels (onset in steps; "first point" = the env's first judged point at or after the event's true start; one label an
env; in puffer runs the first two tasks are clean learners and each later one carries an event with probability 0.65;
single-env runs (torch_ac levels, dopamine games) carry an event with probability 0.55):
  graduated_regression   after graduation + max(W, 10 points): sudden or gradual (ramp over 0.5..1.5 W) fall to keep
                         0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain; to the end (>= max(2 W, 15 points)
                         left) or, in a third of them, back to the held level after max(14, 0.5..1.5 W) points (a
                         regression that comes back: longer than `dip_points`). Onset = first point with s below 0.85
                         of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point; freeze (rates
                         of puffer_grid only, beside siblings): a linear rise over 0.4..0.8 W to 0.2..0.5 of the gain,
                         then flat >= 5 W to the end, onset = first point of the flat. Never only where the env is its
                         run's only env (torch_ac, dopamine: README "the only env of a run that never learned ... is
                         stalled") or a rate (puffer_grid); none in puffer_arcade (beside siblings on other scales a
                         never-learner "stays unjudged")
  performance_volatility after graduation + max(W, 10 points): burst (max(W, 20 points) of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 points) to the end; onset = first point
                         whose expected value is off by > max(0.15 gain, 4 sd of one point)); switch (Markov: s1 and s1
                         - 0.4..0.6 gain, dwells 6..18 points, >= 9 phases, to the end; onset = first point of the first
                         low phase); wave (s1 - a gain (1 - cos 2 pi (x - at) / P) / 2, a 0.45..0.7, P 8..20 points, to
                         the end, >= 4 periods; onset = first point 0.15 gain below the held level); dip (a fall to keep
                         0.1..0.5 for 3..6 points, then back: README's dip; onset = first point below 0.85 of the gain)
  prolonged_training     (twice as likely as the other events) puffer and torch_ac only (steps in agent steps / frames; in dopamine's iteration steps 10
                         windows of 20 points are the whole run): a steady riser, LINEAR in s (0.62 of the gain over
                         the whole series); onset = activation + max(10 W, 2 x the median time the run's graduated
                         siblings took to graduate)
  eval_gap               dopamine runs with evals: resumed at iteration c with the train-only schedule, where the gap
                         to the run's end exceeds 3 x max(evaluation_frequency 50, 1 iteration) = 150 steps (+5); onset
                         = the last eval + 1 (a shorter gap is no event; none is labelled)
  (unexpected_transition: none of these conventions logs states)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (episodes halved until the gain is
5..8 sd), slow_learner (T 3..4.5 W, graduates), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one judged point at s0 + 0.05 gain after graduation).

Visibility (sd of one judged point simulated with the convention's own averaging; the episodes a point averages are
doubled up to 3 times until it holds (not in torch_ac, whose episodes per update follow its frames), else the env
becomes a clean learner): regression drop >= 4 sd; stall rise >= 5 sd, a never-learner's gap to the top >= 6 sd;
switching gap and wave amplitude >= 5 sd; dip drop >= 5 sd; burst sd >= 4 x base sd; prolonged riser: its rise over a
4 windows >= 4 standard errors of the rise of a line fitted to their points; healthy gain >= 8 sd (noisy 5..8).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - each PufferLib experiment passes its own `--wandb-group` (the default `debug` puts every run of a project into one
    W&B group, which curriwatch reads as one run: the corpus's plans would merge);
  - torch_ac and dopamine env ids come from `run_env` on the folder names (the env id in the model dir, the game
    folder), so each level or game is a run of one env;
  - Dopamine's TF1 agents get `summary_writing_frequency = 25000` (default 500: 100,000 loss points a game).
"""
from __future__ import annotations

import datetime as _dt
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
CYCLE = ("puffer_grid", "torch_ac", "dopamine_tf1", "puffer_arcade", "torch_ac", "dopamine_jax")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
_DOPAMINE = """\
profiles:
  dopamine:
    patterns:
      - {regex: '^Train/AverageReturns$', env: "{run}", split: train, metric: return}
      - {regex: '^Eval/AverageReturns$', env: "{run}", split: eval, metric: return}
      - {regex: '^Train/NumEpisodes$', env: "{run}", split: train, metric: episodes}
      - {regex: '^Eval/NumEpisodes$', env: "{run}", split: eval, metric: episodes}
    performance_metric: return
    count_metric: episodes
    run_env: 'dopamine/[a-z_]+/(?P<env>[A-Za-z]+)'
profile: dopamine
"""
CONFIGS = {
    "puffer_grid": """\
profiles:
  puffer_grid:
    patterns:
      - {regex: '^environment/(?P<env>[a-z_]+)/(?P<metric>solved|episode_return|episode_length)$', split: train}
    performance_metric: solved
    step_key: 0verview/agent_steps
profile: puffer_grid
""",
    "puffer_arcade": """\
profiles:
  puffer_arcade:
    patterns:
      - {regex: '^environment/(?P<env>[a-z_]+)/(?P<metric>score|episode_length)$', split: train}
    performance_metric: score
    step_key: 0verview/agent_steps
profile: puffer_arcade
""",
    "torch_ac": """\
profiles:
  torch_ac:
    patterns:
      - {regex: '^return_mean$', env: "{run}", split: train, metric: return}
    performance_metric: return
    run_env: 'storage/(?P<env>[A-Za-z]+-[A-Za-z0-9-]+-v[0-9]+)_ppo_seed'
profile: torch_ac
""",
    "dopamine_tf1": _DOPAMINE,
    "dopamine_jax": _DOPAMINE,
}
GRID_TASKS = ("room", "corridor", "keyroom", "lava", "boxoban", "memento", "mazewalk", "river")
ARCADE = {  # game: (A, B, sd of one episode in skill units, catastrophe probability, cap, floor, episodes/epoch factor)
    "breakout": (0.0, 400.0, 0.10, 0.03, 1.05, 0.0, 1.0),
    "pong": (-21.0, 21.0, 0.12, 0.0, 1.0, 0.0, 0.6),
    "snake": (2.0, 48.0, 0.15, 0.05, 1.1, 0.0, 1.5),
    "enduro": (0.0, 950.0, 0.08, 0.02, 1.05, 0.0, 0.4),
    "rware": (0.0, 12.0, 0.20, 0.0, 1.2, 0.0, 2.0),
    "tetris": (0.0, 6000.0, 0.15, 0.04, 1.1, 0.0, 0.5),
}
MINIGRID = {  # family: [(env id, max_steps)]
    "DoorKey": [("MiniGrid-DoorKey-5x5-v0", 250), ("MiniGrid-DoorKey-6x6-v0", 360), ("MiniGrid-DoorKey-8x8-v0", 640),
                ("MiniGrid-DoorKey-16x16-v0", 2560)],
    "KeyCorridor": [("MiniGrid-KeyCorridorS3R1-v0", 270), ("MiniGrid-KeyCorridorS3R2-v0", 270),
                    ("MiniGrid-KeyCorridorS3R3-v0", 270), ("MiniGrid-KeyCorridorS4R3-v0", 480),
                    ("MiniGrid-KeyCorridorS5R3-v0", 750)],
    "MultiRoom": [("MiniGrid-MultiRoom-N2-S4-v0", 40), ("MiniGrid-MultiRoom-N4-S5-v0", 80),
                  ("MiniGrid-MultiRoom-N6-v0", 120)],
    "Unlock": [("MiniGrid-Unlock-v0", 288), ("MiniGrid-UnlockPickup-v0", 288),
               ("MiniGrid-BlockedUnlockPickup-v0", 576)],
}
ATARI = {  # game: (A random, B learned, sd_ep, catastrophe, cap, floor, episodes an iteration at s=0, at s=1)
    "Pong": (-20.5, 19.5, 0.06, 0.0, 1.03, 0.0, 60, 40),
    "Breakout": (1.5, 380.0, 0.15, 0.04, 1.15, 0.0, 160, 35),
    "SpaceInvaders": (150.0, 1900.0, 0.15, 0.02, 1.2, 0.0, 120, 45),
    "Seaquest": (70.0, 6000.0, 0.2, 0.05, 1.2, 0.0, 180, 40),
    "Asterix": (210.0, 8000.0, 0.18, 0.03, 1.2, 0.0, 170, 60),
    "Qbert": (160.0, 12000.0, 0.15, 0.05, 1.15, 0.0, 200, 50),
    "Enduro": (0.0, 1500.0, 0.08, 0.0, 1.05, 0.0, 25, 25),
    "MsPacman": (230.0, 3000.0, 0.2, 0.0, 1.3, 0.0, 110, 60),
}
GYM = {  # task: (A, B, sd_ep, catastrophe, cap, floor, how an episode's length follows its return)
    "CartPole": (15.0, 200.0, 0.10, 0.03, 1.0, -0.02, "ret"),
    "Acrobot": (-500.0, -78.0, 0.06, 0.03, 1.03, 0.0, "negret"),
    "LunarLander": (-230.0, 230.0, 0.15, 0.06, 1.08, -0.3, 300),
    "MountainCar": (-200.0, -108.0, 0.08, 0.02, 1.04, 0.0, "negret"),
}


@dataclass
class Env:
    name: str
    task: str
    L: int               # judged points (nominal)
    G: float             # steps between judged points (nominal)
    step0: int           # activation step (point 0)
    s0: float
    s1: float
    T: float
    A: float = 0.0
    B: float = 1.0
    kind: str = "rate"   # rate | ret | minigrid
    n_lo: float = 10.0   # episodes a judged point averages at s = 0 ...
    n_hi: float = 10.0   # ... and at s = 1
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    at: float | None = None
    knob: float = 1.0
    params: dict = field(default_factory=dict)

    def n(self, s: float) -> float:
        return max(1.0, self.knob * (self.n_lo + (self.n_hi - self.n_lo) * float(s)))


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


# --- observation: what one logged value averages ----------------------------------------------------------------

def episode_values(env: Env, s: np.ndarray, rng, explore: float = 0.0) -> np.ndarray:
    """One episode's outcome per entry of s."""
    s = np.asarray(s, float)
    if env.kind == "rate":
        return (rng.random(len(s)) < np.clip(s - explore, 0, 1)).astype(float)
    if env.kind == "minigrid":
        ok = rng.random(len(s)) < np.clip(s - explore, 0, 1)
        lo, hi = env.params["len_frac"]
        return np.where(ok, 1 - 0.9 * rng.uniform(lo, hi, len(s)), 0.0)
    p = env.params
    si = np.clip(s - explore, 0, 1)
    u = si + (p["sd_ep"] * (1 + 2 * explore)) * rng.standard_normal(len(s))
    bad = rng.random(len(s)) < p["cat"]
    u = np.where(bad, rng.uniform(p["floor"], np.maximum(si, 0.1) * 0.5), u)
    u = np.clip(u, p["floor"], p["cap"])
    return env.A + (env.B - env.A) * u


def episodes(env: Env, s: np.ndarray, n: np.ndarray, rng, explore: float = 0.0) -> np.ndarray:
    """Per point: the mean of n[i] episodes at skill s[i] (NaN where n is 0)."""
    s = np.asarray(s, float)
    n = np.asarray(n, int)
    out = np.full(len(s), np.nan)
    tot = int(n.sum())
    if tot == 0:
        return out
    idx = np.repeat(np.arange(len(s)), n)
    r = episode_values(env, s[idx], rng, explore)
    sums = np.bincount(idx, weights=r, minlength=len(s))
    ok = n > 0
    out[ok] = sums[ok] / n[ok]
    return out


def _sim_points(env: Env, s: float, k: int, rng) -> np.ndarray:
    if env.kind == "minigrid":
        n = minigrid_n(env, s)
        return episodes(env, np.full(k, s), np.full(k, n), rng)
    n = max(1, int(round(env.n(s))))
    return episodes(env, np.full(k, s), np.full(k, n), rng)


def minigrid_n(env: Env, s: float) -> int:
    p = env.params
    mean_len = s * np.mean(p["len_frac"]) * p["max_steps"] + (1 - s) * p["max_steps"]
    return int(max(p["procs"], round(p["F"] / mean_len)))


def point_sd(env: Env, s: float) -> float:
    return float(np.std(_sim_points(env, s, 400, np.random.default_rng(12345))))


def point_mean(env: Env, s: float) -> float:
    return float(np.mean(_sim_points(env, s, 400, np.random.default_rng(54321))))


def gain_E(env: Env, lo: float, hi: float) -> float:
    return abs(point_mean(env, hi) - point_mean(env, lo))


# --- truth --------------------------------------------------------------------------------------------------------

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
        end = env.at + R + p["D"] if p.get("D") else np.inf
        if v == "sudden":
            s = np.where((x >= env.at) & (x < end), keep_s, s)
        else:
            ramp = (x >= env.at) & (x < env.at + R)
            s = np.where(ramp, env.s1 + (keep_s - env.s1) * (x - env.at) / R, s)
            s = np.where((x >= env.at + R) & (x < end), keep_s, s)
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
    for k in ((1.0,) if env.kind == "minigrid" else (1.0, 2.0, 4.0, 8.0)):
        env.knob = base * k
        if check():
            return True
    env.knob = base
    return False


def place(run: dict, env: Env, ev: str, W: float, rng) -> bool:
    L = env.L
    g = env.s1 - env.s0
    conv = run["convention"]
    single = conv in ("torch_ac", "dopamine_tf1", "dopamine_jax")
    if ev == "graduated_regression":
        grad = learn_end(env, W)
        margin, tail = max(W, 10), max(2 * W, 15)
        variant = str(rng.choice(["sudden", "gradual"]))
        R = float(rng.uniform(0.5, 1.5)) * W if variant == "gradual" else 0.0
        back = bool(rng.random() < 1 / 3)
        D = float(max(14.0, rng.uniform(0.5, 1.5) * W)) if back else 0.0
        lo, hi = grad + margin, L - tail - R - (D + max(W, 15) if back else 0)
        if int(lo) >= int(hi):
            return False
        sev = str(rng.choice(["warning", "critical"]))
        keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        env.event, env.variant, env.severity, env.at = ev, variant, sev, int(rng.integers(int(lo), int(hi)))
        env.params.update(keep=keep, R=R, D=D)
        ks = env.s0 + keep * g
        return visible(env, lambda: gain_E(env, ks, env.s1) >= 4 * max(point_sd(env, env.s1), point_sd(env, ks)))
    if ev == "training_stagnation":
        if conv == "puffer_arcade":
            return False
        variant = str(rng.choice(["never", "freeze"])) if conv == "puffer_grid" else "never"
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
        if conv.startswith("dopamine") or run.get("n_risers", 0) >= 2:
            return False
        first = env.params.get("pro_after", 10 * W)
        if L - 1 < first + 10:
            return False
        rate = 0.62 / max(L - 1, 1)
        env.event, env.variant = ev, "riser"
        env.params.update(rate=rate)

        def riser_ok():  # a climb seen as one over 4 windows (the least a stall that progress ends lasts)
            sd = point_sd(env, env.s0 + 0.3 * g)
            se_rise = sd * math.sqrt(12.0 / max(4 * W, 3))
            return gain_E(env, env.s0, env.s0 + rate * g * 4 * W) >= 4 * se_rise
        if visible(env, riser_ok):
            run["n_risers"] = run.get("n_risers", 0) + 1
            return True
        return False
    if ev == "eval_gap":
        if not run.get("evals"):
            return False
        stop_max = L - 1 - 156
        if stop_max < 12:
            return False
        env.event, env.variant = ev, "eval_stop"
        env.params["stop"] = int(rng.integers(12, stop_max + 1))
        return True
    raise ValueError(ev)


NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")


def apply_negative(env: Env, neg: str, W: float, rng) -> None:
    L, g = env.L, env.s1 - env.s0
    env.event = env.variant = neg
    if neg == "noisy_healthy":
        if env.kind == "minigrid":
            env.event = env.variant = "healthy"
        else:
            for _ in range(6):
                if gain_E(env, env.s0, env.s1) / max(point_sd(env, 0.5 * (env.s0 + env.s1)), 1e-9) < 8 or \
                        env.n(0.5) <= 1:
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
        room = env.s1 + shift * g <= (0.995 if env.kind in ("rate", "minigrid") else env.params.get("cap", 1.0) - 0.02)
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
            saved = (env.knob, dict(env.params))
            if place(run, env, ev, W, rng):
                return
            env.knob, env.params = saved
            env.event, env.variant, env.severity, env.at = "healthy", "healthy", None, None
    apply_negative(env, str(rng.choice(NEGATIVES)), W, rng)


def window(G: float, span: float) -> float:
    """The stagnation window in steps: max(min(100, 10 % of the span), 20 points)."""
    return max(min(100.0, 0.1 * span), 20.0 * G)


# --- planning -------------------------------------------------------------------------------------------------------

def puffer_rows(rng, B: int, sps: float, e_from: int, e_to: int, first_wait: float) -> list[int]:
    """Epochs (1-based, in (e_from, e_to]) after which clean_pufferl logs a W&B row: a second of profile interval and
    over 3 s of wall clock since the last log (the first log of a process after `first_wait` s)."""
    rows, since, need = [], 0.0, first_wait
    for e in range(e_from + 1, e_to + 1):
        since += B / sps * float(rng.uniform(0.85, 1.25))
        if since > need:
            rows.append(e)
            since, need = 0.0, 3.0
    return rows


def plan_puffer(run: dict, rng) -> tuple[list[Env], float]:
    conv = run["convention"]
    B = int(rng.choice([32768, 65536, 131072]))
    sps = float(rng.uniform(1.5e5, 6e5))
    per_log = math.ceil(3.0 / (B / sps * 1.05)) + 0.3
    n_rows = int(rng.integers(260, 651))
    E = int(n_rows * per_log)
    ck = int(rng.choice([50, 100, 200]))
    run.update(B=B, sps=sps, epochs=E, checkpoint_interval=ck, exp_id=f"{conv}-{run['seed'] % 16 ** 8:08x}")
    resume = None
    if rng.random() < 0.3:
        crash = int(E * rng.uniform(0.4, 0.75))
        resume = {"crash": crash, "ckpt": crash - crash % ck}
    run["resume"] = resume
    r1 = puffer_rows(rng, B, sps, 0, resume["crash"] if resume else E, 1.0)
    r2 = puffer_rows(rng, B, sps, resume["ckpt"], E, 1.0) if resume else []
    run.update(rows1=r1, rows2=r2)
    steps = np.array(sorted(set(r1) | set(r2)), dtype=np.int64) * B
    G = float(np.mean(np.diff(steps)))
    span = float(steps[-1] - steps[0])
    envs = []
    if conv == "puffer_grid":
        names = [str(x) for x in rng.permutation(GRID_TASKS)[:int(rng.integers(4, 8))]]
        s0r, s1r = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.8, 0.97))
    else:
        names = [str(x) for x in rng.permutation(list(ARCADE))[:int(rng.integers(3, 6))]]
    waves = rng.random() < 0.4
    for k, nm in enumerate(names):
        unlock = 0.0
        if waves and k >= 2:
            unlock = float(rng.uniform(0.1, 0.35)) * span
        step0 = int(steps[np.searchsorted(steps, steps[0] + unlock)])
        L = int(round((steps[-1] - step0) / G)) + 1
        if conv == "puffer_grid":
            lam = float(rng.uniform(3, 30))
            e = Env(nm, nm, L, G, step0, float(np.clip(s0r + rng.uniform(-0.03, 0.03), 0, 1)),
                    float(np.clip(s1r + rng.uniform(-0.03, 0.03), 0, 0.99)), 0.0, kind="rate",
                    n_lo=max(3.0, 0.5 * lam), n_hi=1.5 * lam)
        else:
            A, Bv, sd, cat, cap, floor, fac = ARCADE[nm]
            lam = float(rng.uniform(4, 25)) * fac
            e = Env(nm, nm, L, G, step0, float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.82, 0.95)), 0.0, A, Bv,
                    kind="ret", n_lo=max(3.0, lam), n_hi=max(3.0, lam * 1.3))
            e.params.update(sd_ep=sd * float(rng.uniform(0.7, 1.4)), cat=cat, cap=cap, floor=floor)
        envs.append(e)
    return envs, span


def plan_torch_ac(run: dict, rng) -> list[Env]:
    fam = str(rng.choice(list(MINIGRID)))
    levels = MINIGRID[fam][:int(rng.integers(3, len(MINIGRID[fam]) + 1))]
    procs = int(rng.choice([16, 16, 32]))
    F = 128 * procs
    li = int(rng.choice([1, 1, 2, 4]))
    G = F * li
    run.update(family=fam, procs=procs, frames_per_proc=128, log_interval=li, G=G, seed_arg=int(rng.integers(1, 6)))
    t = 1683000000 + int(rng.integers(0, 86400 * 300))
    envs = []
    for name, max_steps in levels:
        N = int(rng.integers(200, 481))
        date = _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%y-%m-%d-%H-%M-%S")
        lo = float(rng.uniform(0.04, 0.15))
        s0 = float(rng.uniform(0.0, 0.04)) if max_steps < 300 else 0.0
        e = Env(name, name, N, G, G, s0, float(rng.uniform(0.9, 0.99)), 0.0, 0.0, 1 - 0.9 * (lo + lo * 1.8) / 2,
                kind="minigrid")
        e.params.update(len_frac=(lo, lo * 1.8), max_steps=max_steps, procs=procs, F=F, date=date, start_time=t,
                        model=f"{name}_ppo_seed{run['seed_arg']}_{date}")
        if rng.random() < 0.35:
            crash_u = int(N * li * rng.uniform(0.4, 0.75))
            e.params["resume"] = {"crash_update": crash_u, "ckpt_update": crash_u - crash_u % 10}
        envs.append(e)
        t += int(N * G / 2500) + int(rng.integers(60, 900))
    return envs


def plan_dopamine(run: dict, rng) -> list[Env]:
    conv = run["convention"]
    envs = []
    if conv == "dopamine_tf1":
        run.update(agent=str(rng.choice(["dqn", "rainbow", "implicit_quantile", "c51"])), evals=True)
        games = [str(x) for x in rng.permutation(list(ATARI))[:int(rng.integers(2, 5))]]
        for gm in games:
            N = int(rng.integers(80, 201))
            A, Bv, sd, cat, cap, floor, n0, n1 = ATARI[gm]
            e = Env(gm, gm, N, 1, 0, float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.82, 0.95)), 0.0, A, Bv,
                    kind="ret", n_lo=n0, n_hi=n1)
            e.params.update(sd_ep=sd * float(rng.uniform(0.7, 1.4)), cat=cat, cap=cap, floor=floor,
                            eval_n=(n0 / 2, n1 / 2))
            envs.append(e)
    else:
        run.update(agent="jax_dqn", evals=bool(rng.random() < 0.5))
        tasks = [str(x) for x in rng.permutation(list(GYM))[:int(rng.integers(2, 4))]]
        for tk in tasks:
            N = int(rng.integers(150, 501))
            A, Bv, sd, cat, cap, floor, lens = GYM[tk]
            e = Env(tk, tk, N, 1, 0, float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.97)), 0.0, A, Bv,
                    kind="ret")
            e.params.update(sd_ep=sd * float(rng.uniform(0.7, 1.4)), cat=cat, cap=cap, floor=floor, lens=lens)
            # 1,000 steps a phase: episodes = 1000 / episode length
            lo_len, hi_len = (_gym_len(e, A), _gym_len(e, Bv))
            e.n_lo, e.n_hi = 1000 / lo_len, 1000 / hi_len
            e.params["eval_n"] = (e.n_lo, e.n_hi)
            envs.append(e)
    for e in envs:
        if rng.random() < 0.35:
            c = int(e.L * rng.uniform(0.4, 0.75))
            e.params["resume"] = {"crash": c, "rewrite": bool(rng.random() < 0.5)}
    return envs


def _gym_len(e: Env, r: float) -> float:
    lens = e.params["lens"]
    if lens == "ret":
        return max(10.0, r)
    if lens == "negret":
        return max(60.0, -r)
    return float(lens)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility"]
    if conv.startswith("puffer"):
        envs, span = plan_puffer(run, rng)
        spans = [span] * len(envs)
    elif conv == "torch_ac":
        envs = plan_torch_ac(run, rng)
        spans = [(e.L - 1) * e.G for e in envs]
    else:
        envs = plan_dopamine(run, rng)
        spans = [e.L - 1 for e in envs]
    run["envs"] = envs
    Ws = []
    for k, env in enumerate(envs):
        W = window(env.G, spans[k]) / env.G
        env.params["W"] = W
        env.T = float(rng.uniform(0.8, 2.5)) * W
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if conv.startswith("puffer"):
        # prolonged: 10 windows, and twice the median time the run's graduated tasks took (the first two, clean)
        grads = [learn_end(e, Ws[k]) for k, e in enumerate(envs[:2])]
        for k, env in enumerate(envs):
            env.params["pro_after"] = max(10 * Ws[k], 2 * float(np.median(grads)))
            assign(run, env, Ws[k], 0.0 if k < 2 else 0.65, pool + ["prolonged_training"] * 2, rng)
    elif conv == "torch_ac":
        for k, env in enumerate(envs):
            assign(run, env, Ws[k], 0.55, pool + ["prolonged_training"] * 2, rng)
    else:
        for k, env in enumerate(envs):
            assign(run, env, Ws[k], 0.55, pool + (["eval_gap", "eval_gap"] if run.get("evals") else []), rng)
            if env.event == "eval_gap":
                env.params["resume"] = {"crash": env.params["stop"], "rewrite": bool(rng.random() < 0.5),
                                        "train_only": True}


# --- observation ----------------------------------------------------------------------------------------------------

def observe_values(env: Env, steps: np.ndarray, rng, explore: float = 0.0, n_override=None) -> tuple:
    """Values (NaN where no episode ended) and episode counts of env at the logged steps."""
    x = (np.asarray(steps, float) - env.step0) / env.G
    s = truth(env, x)
    if n_override is not None:
        n = n_override(s)
    else:
        n = rng.poisson(np.array([env.n(v) for v in s]))
    v = episodes(env, s, n, rng, explore)
    if env.variant == "single_outlier":
        i = int(np.argmin(np.abs(x - env.at)))
        if abs(x[i] - env.at) < 1 and n[i] > 0:
            v[i] = point_mean(env, env.s0 + 0.05 * (env.s1 - env.s0))
    return v, n, s


# --- labelling ------------------------------------------------------------------------------------------------------

def label_for(run: dict, env: Env, steps: np.ndarray) -> list[dict]:
    """steps: the env's judged points (sorted, unique)."""
    if env.event not in EVENTS:
        return []
    x = (steps.astype(float) - env.step0) / env.G
    s = truth(env, x)
    g = env.s1 - env.s0
    W = env.params["W"]
    v, p = env.variant, env.params

    def first_at(x0):
        ok = np.flatnonzero(x >= x0 - 1e-9)
        return int(steps[ok[0]]) if len(ok) else None

    if v == "never":
        onset = first_at(0)
    elif v == "freeze":
        onset = first_at(p["R"])
    elif v == "riser":
        onset = int(round(env.step0 + p["pro_after"] * env.G)) if "pro_after" in p else \
            int(round(env.step0 + 10 * W * env.G))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual", "dip"):
        below = np.flatnonzero((x >= env.at) & (s < env.s0 + 0.85 * g - 1e-12))
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
    elif v == "eval_stop":
        onset = int(p["last_eval"]) + 1
    else:
        raise ValueError(v)
    if onset is None:
        return []
    return [dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                 shape=f"{run['convention']}/{env.variant}", variant=env.variant, task=env.task)]


# --- writers ----------------------------------------------------------------------------------------------------------

def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


_PROTO: dict = {}


def _proto():
    if not _PROTO:
        from tensorboardX.proto import event_pb2
        from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
        from tensorboardX.proto.tensor_pb2 import TensorProto
        _PROTO.update(Event=event_pb2.Event, Summary=Summary, TensorProto=TensorProto,
                      md=SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars")))
    return _PROTO


def _event_file(path: Path, events: list[tuple[float, int, list[tuple[str, float]], bool]]) -> None:
    """Write (wall, step, [(tag, value)], tf2) events: tf2 = one tensor-scalar value an event (tf.summary.scalar),
    else one Summary holding every value (TF1's `tf.compat.v1.Summary(value=[...])` + add_summary)."""
    from tensorboardX.record_writer import RecordWriter

    P = _proto()
    path.parent.mkdir(parents=True, exist_ok=True)
    rw = RecordWriter(str(path))
    t0 = events[0][0] if events else 1.7e9
    rw.write(P["Event"](wall_time=t0, file_version="brain.Event:2").SerializeToString())
    for wall, step, values, tf2 in events:
        if tf2:
            for tag, v in values:
                t = P["TensorProto"](dtype="DT_FLOAT", float_val=[float(v)])
                summ = P["Summary"](value=[P["Summary"].Value(tag=tag, metadata=P["md"], tensor=t)])
                rw.write(P["Event"](wall_time=wall, step=int(step), summary=summ).SerializeToString())
        else:
            summ = P["Summary"](value=[P["Summary"].Value(tag=tag, simple_value=float(v)) for tag, v in values])
            rw.write(P["Event"](wall_time=wall, step=int(step), summary=summ).SerializeToString())
    rw.flush()
    rw.close()


def write_puffer(folder: Path, run: dict, rng) -> dict:
    """Two processes at most (a resume): rows of clean_pufferl's wandb.log. Returns per env its judged steps."""
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    conv, B = run["convention"], run["B"]
    judged: dict[str, set] = {e.name: set() for e in run["envs"]}
    procs = [(run["rows1"], "20260101_000000")]
    if run["resume"]:
        procs.append((run["rows2"], "20260101_120000"))
    rid = run["exp_id"]
    for k, (rows, stamp) in enumerate(procs):
        prng = np.random.default_rng(run["seed"] + 10 + k)
        steps = np.array(rows, dtype=np.int64) * B
        cols = {}
        for env in run["envs"]:
            act = steps >= env.step0
            v, n, s = observe_values(env, steps[act], prng)
            cols[env.name] = (act, v, n, s)
        with tempfile.TemporaryDirectory() as tmp:
            wr = wandb.init(id=rid, project="pufferlib", group=f"{conv}-{run['name']}", name=conv, mode="offline",
                            dir=tmp, config={"cleanrl": {"batch_size": B, "checkpoint_interval":
                                                         run["checkpoint_interval"], "total_timesteps":
                                                         int(run["epochs"] * B)}, "env": {"tasks": [e.name for e in
                                                                                                    run["envs"]]}},
                            settings=wandb.Settings(x_disable_stats=True, console="off"))
            lens_all = []
            for i, ep in enumerate(rows):
                row = {"0verview/SPS": float(run["sps"] * prng.uniform(0.9, 1.1)), "0verview/agent_steps": int(ep * B),
                       "0verview/epoch": int(ep), "0verview/learning_rate": float(2.5e-4 * (1 - ep / (run["epochs"] + 1)))}
                for env in run["envs"]:
                    act, v, n, s = cols[env.name]
                    j = np.flatnonzero(act)
                    pos = np.searchsorted(j, i)
                    if pos >= len(j) or j[pos] != i or n[pos] == 0:
                        continue
                    val = float(v[pos])
                    if conv == "puffer_grid":
                        row[f"environment/{env.name}/solved"] = val
                        ret = val * (1 - 0.9 * 0.3)
                        ln = float(256 * (1 - 0.7 * s[pos]) * prng.uniform(0.9, 1.1))
                        row[f"environment/{env.name}/episode_return"] = ret
                    else:
                        row[f"environment/{env.name}/score"] = val
                        ln = float(900 * (0.4 + s[pos]) * prng.uniform(0.9, 1.1))
                    row[f"environment/{env.name}/episode_length"] = ln
                    lens_all.append(ln)
                    judged[env.name].add(int(ep * B))
                if lens_all:
                    row["environment/episode_length"] = float(np.mean(lens_all[-5:]))
                for key in ("policy_loss", "value_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac",
                            "explained_variance"):
                    row[f"losses/{key}"] = float(abs(prng.normal(0.05, 0.02)))
                for key in ("eval_time", "env_time", "train_time", "learn_time"):
                    row[f"performance/{key}"] = float(abs(prng.normal(0.2, 0.05)))
                wr.log(row)
            wr.finish()
            wandb.teardown()
            src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
            wait_until_complete(src)
            dest = folder / "experiments" / "wandb" / f"offline-run-{stamp}-{rid}" / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
    return {k: np.array(sorted(v), dtype=np.int64) for k, v in judged.items()}


TORCH_AC_FIELDS = ("update", "frames", "FPS", "duration", "rreturn_mean", "rreturn_std", "rreturn_min", "rreturn_max",
                   "num_frames_mean", "num_frames_std", "num_frames_min", "num_frames_max", "entropy", "value",
                   "policy_loss", "value_loss", "grad_norm", "return_mean", "return_std", "return_min", "return_max")


def torch_ac_process(env: Env, run: dict, u_from: int, u_to: int, rng, t0: float, fresh_csv: bool):
    """Updates u_from+1..u_to of one train.py process: (logged points, csv lines, txt lines)."""
    p = env.params
    F, procs, li, max_steps = p["F"], p["procs"], run["log_interval"], p["max_steps"]
    buf = [0.0] * procs           # torch-ac's log_return starts as num_procs zeros
    lbuf = [0.0] * procs
    pts, csv_lines, txt = [], [], []
    if fresh_csv:
        csv_lines.append(",".join(TORCH_AC_FIELDS))
    lo, hi = p["len_frac"]
    for u in range(u_from + 1, u_to + 1):
        frames = u * F
        x = (frames - env.step0) / env.G
        s = float(truth(env, np.array([x]))[0])
        mean_len = s * (lo + hi) / 2 * max_steps + (1 - s) * max_steps
        done = int(rng.poisson(F / mean_len))
        ok = rng.random(done) < s
        lens = np.where(ok, rng.uniform(lo, hi, done) * max_steps, max_steps)
        rets = np.where(ok, 1 - 0.9 * lens / max_steps, 0.0)
        allr = buf + [float(r) for r in rets]
        alll = lbuf + [float(v) for v in lens]
        keep = max(done, procs)
        logr, logl = np.array(allr[-keep:]), np.array(alll[-keep:])
        buf, lbuf = allr[-procs:], alll[-procs:]
        if u % li:
            continue
        dur = int((frames - u_from * F) / 2500)
        fps = float(2500 * rng.uniform(0.85, 1.15))
        vals = [u, frames, fps, dur, logr.mean(), logr.std(), logr.min(), logr.max(), logl.mean(), logl.std(),
                logl.min(), logl.max(), float(1.9 - 1.2 * s + rng.normal(0, 0.02)), float(0.5 * s + rng.normal(0, 0.02)),
                float(rng.normal(0, 0.01)), float(abs(rng.normal(0.01, 0.005))), float(abs(rng.normal(0.1, 0.03))),
                logr.mean(), logr.std(), logr.min(), logr.max()]
        pts.append((frames, vals, t0 + dur))
        csv_lines.append(",".join(str(v) for v in vals))
        txt.append("U {} | F {:06} | FPS {:04.0f} | D {} | rR:μσmM {:.2f} {:.2f} {:.2f} {:.2f} | F:μσmM {:.1f} {:.1f} {} {}"
                   " | H {:.3f} | V {:.3f} | pL {:.3f} | vL {:.3f} | ∇ {:.3f}".format(*vals[:17]))
    return pts, csv_lines, txt


def write_torch_ac(folder: Path, run: dict, rng) -> dict:
    from tensorboardX import SummaryWriter

    judged = {}
    for env in run["envs"]:
        p = env.params
        mdir = folder / "storage" / p["model"]
        mdir.mkdir(parents=True, exist_ok=True)
        total_u = env.L * run["log_interval"]
        rs = p.get("resume")
        spans = [(0, rs["crash_update"], True), (rs["ckpt_update"], total_u, False)] if rs else [(0, total_u, True)]
        csv_all, txt_all, points = [], [], {}
        t0 = float(p["start_time"])
        for k, (a, b, fresh) in enumerate(spans):
            prng = np.random.default_rng(run["seed"] + 100 + 7 * k + zlib.crc32(env.name.encode()) % 1000)
            pts, csv_lines, txt = torch_ac_process(env, run, a, b, prng, t0 + (0 if k == 0 else 3600 + a * p["F"] / 2500),
                                                   fresh)
            with tempfile.TemporaryDirectory() as tmp:
                w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
                for frames, vals, wall in pts:
                    for f, v in zip(TORCH_AC_FIELDS, vals):
                        w.add_scalar(f, float(v), int(frames), walltime=wall)
                    points[int(frames)] = True
                w.close()
                src = next(Path(tmp).glob("events.out.tfevents.*"))
                shutil.copyfile(src, mdir / f"events.out.tfevents.{int(pts[0][2]) if pts else int(t0)}.node{k}")
            csv_all += csv_lines
            txt_all += [f"{' '.join(['scripts/train.py', '--algo', 'ppo', '--env', env.name])}"] + txt
        (mdir / "log.csv").write_text("\n".join(csv_all) + "\n")
        (mdir / "log.txt").write_text("\n".join(txt_all) + "\n")
        judged[env.name] = np.array(sorted(points), dtype=np.int64)
    return judged


def write_dopamine(folder: Path, run: dict, rng) -> dict:
    conv = run["convention"]
    tf1 = conv == "dopamine_tf1"
    judged = {}
    for env in run["envs"]:
        base = folder / "dopamine" / run["agent"] / env.name
        p = env.params
        rs = p.get("resume")
        t0 = 1.7672e9 + float(rng.integers(0, 10 ** 6))
        secs = float(rng.uniform(900, 2400)) if tf1 else float(rng.uniform(3, 9))
        N = env.L
        procs = [(0, N, True)]
        if rs:
            first_end = rs["crash"] + (1 if rs["rewrite"] else 0)
            procs = [(0, first_end, True), (rs["crash"], N, not rs.get("train_only"))]
        eval_steps, train_steps = set(), set()
        for k, (a, b, with_eval) in enumerate(procs):
            prng = np.random.default_rng(run["seed"] + 200 + 11 * k + zlib.crc32(env.name.encode()) % 1000)
            its = np.arange(a, b)
            en = p["eval_n"]
            tv, tn, _ = observe_values(env, its, prng, explore=0.04)
            ev, enn, _ = observe_values(env, its, prng, n_override=lambda s: np.maximum(1, np.round(
                en[0] + (en[1] - en[0]) * s * env.knob).astype(int)))
            tn = np.maximum(tn, 1)
            tv = np.where(np.isnan(tv), episodes(env, truth(env, its.astype(float)), np.ones(len(its), int), prng), tv)
            wall0 = t0 + (0 if k == 0 else 1800 + a * secs)
            main, coll = [], []
            tsteps = 250_000 if tf1 else 1000
            wfreq = 25_000 if tf1 else 500
            for j, it in enumerate(its):
                wall = wall0 + (it - a + 1) * secs
                ts0 = it * tsteps
                for ts in range(ts0 + wfreq - ts0 % wfreq, ts0 + tsteps + 1, wfreq):
                    loss = float(abs(prng.normal(0.02 + 0.05 * math.exp(-ts / (tsteps * 20)), 0.005)))
                    main.append((wall - secs / 2, ts, [("Losses/HuberLoss" if tf1 else "HuberLoss", loss)], not tf1))
                    if not tf1:
                        coll.append((wall - secs / 2, ts, [("Loss", loss)], True))
                sps = float((tsteps / (secs * 0.6)) * prng.uniform(0.9, 1.1))
                vals = [("Train/NumEpisodes", float(tn[j])), ("Train/AverageReturns", float(tv[j])),
                        ("Train/AverageStepsPerSecond", sps)]
                train_steps.add(int(it))
                if with_eval:
                    vals += [("Eval/NumEpisodes", float(enn[j])), ("Eval/AverageReturns", float(ev[j]))]
                    eval_steps.add(int(it))
                main.append((wall, int(it), vals, not tf1))
                coll.append((wall, int(it), vals, True))
            main.sort(key=lambda e: e[0])
            host = "tpu-vm-3"
            _event_file(base / f"events.out.tfevents.{int(wall0)}.{host}", main)
            _event_file(base / "metrics" / "tensorboard" / f"events.out.tfevents.{int(wall0)}.{host}.{41000 + k}.0.v2",
                        coll)
        if env.event == "eval_gap":
            p["last_eval"] = max(eval_steps)
        judged[env.name] = np.array(sorted(eval_steps if eval_steps else train_steps), dtype=np.int64)
    return judged


# --- build --------------------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    wrng = np.random.default_rng(run["seed"] + 2)
    if conv.startswith("puffer"):
        judged = write_puffer(folder, run, wrng)
    elif conv == "torch_ac":
        judged = write_torch_ac(folder, run, wrng)
    else:
        judged = write_dopamine(folder, run, wrng)
    tol = []
    for env in run["envs"]:
        W = env.params["W"]
        tol.append(max(W * env.G / 10.0, env.G))
        labels.extend(label_for(run, env, judged[env.name]))
    meta = {k: v for k, v in run.items() if k not in ("envs", "rows1", "rows2")}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(round(min(e.G for e in run["envs"]))))
    meta["envs"] = [{"name": e.name, "task": e.task, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "L": e.L, "G": e.G, "step0": e.step0, "s0": e.s0, "s1": e.s1, "A": e.A, "B": e.B, "T": e.T,
                     "curve": e.curve, "at": e.at, "knob": e.knob, "kind": e.kind,
                     "judged_points": int(len(judged[e.name])),
                     "params": {k: v for k, v in e.params.items() if k not in ("drops", "phases")},
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
    rng = np.random.default_rng([seed, 24])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"x{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
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
    if isinstance(o, tuple):
        return list(o)
    return str(o)
