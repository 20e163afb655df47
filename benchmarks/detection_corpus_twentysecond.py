"""The twenty-second detection corpus (`python benchmarks/detection.py --corpus twentysecond`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles, `step_key`, W&B's `define_metric` step
axes, metric direction, what a rate is, logging shapes, the noise section, what `unknown` means; log-conventions.md;
the other corpora's label conventions and tests/writers.py), without reading the rules' or the analysis code, and
without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentysecond-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (10 skrl_success, 10 skrl_pose, 20 rlgames_allegro, 10 openrlhf_tb, 10
openrlhf_wandb), one group folder per convention, each with a curriwatch.yaml forcing a user profile. Chosen for what
the twenty-one other corpora cover least: ISAAC LAB manager-based multi-task envs trained by SKRL (tags with spaces,
each point the mean of per-step means over a write interval, a task's key absent from a window in which none of its
episodes ended; success rates, or orientation errors in radians lower-is-better by their name), RL_GAMES with
IsaacGymEnvs' `IsaacAlgoObserver` (per-object `Episode/{obj}_consecutive_successes` at the EPOCH while the rest of the
file is at frames, seconds and epochs at once: `rewards/step|iter|time`, `{k}/frame|iter|time`), and OPENRLHF's
eval-only multi-datasource pass rates (`eval/eval_{datasource}_pass1`) through its TensorboardLogger (runs resumed from a
checkpoint into a second event file, one whose resumed eval set dropped a datasource) and through its WandbLogger,
whose `define_metric("eval/*", step_metric="eval/epoch")` names a step column no row ever holds:

  skrl_success / skrl_pose  tensorboardX as skrl's agent writes it (Toni-SM/skrl@c29ced6, skrl/agents/torch/base.py:
             236-262 `track_data` appends to `tracking_data[tag]`, `write_tracking_data` writes np.mean of the list
             (np.min / np.max for tags ending "(min)" / "(max)") at `timestep`, then clears it; :483-484 written when
             `timestep > 1 and not timestep % write_interval`; :362-409 `Reward / Instantaneous reward (max|min|mean)`
             every step and `Reward / Total reward (..)`, `Episode / Total timesteps (..)` in steps where episodes ended;
             :140-148 the run folder `{directory}/{experiment_name}`), and skrl's trainer (skrl/trainers/torch/base.py:
             57 `environment_info: "episode"`, :240-243 every scalar tensor of `infos[environment_info]` tracked as
             `k if "/" in k else f"Info / {k}"`). Isaac Lab's skrl workflow (isaac-sim/IsaacLab
             scripts/reinforcement_learning/skrl/train.py: log dir `logs/skrl/{directory}/{%Y-%m-%d_%H-%M-%S}_ppo_torch`;
             the task's agent yaml sets `trainer: environment_info: log`) passes the env's `extras["log"]`, where the
             CommandManager puts each command term's metrics as `Metrics/{term}/{metric}`
             (source/isaaclab/isaaclab/managers/command_manager.py, `CommandManager.reset`), beside `Curriculum/{term}`
             and `Episode_Termination/{term}`. A user's multi-task manipulation env: one command term per task
             (`reach_cube`, `lift_cube`, …) whose metrics are the reset envs' mean `success_rate` (skrl_success) or
             `orientation_error` in radians (skrl_pose, ~1.5..2.2 random to 0.05..0.2 learned; `position_error` in
             metres beside it), logged only in steps where some env of that task reset. 4,096-16,384 parallel envs
             split over the unlocked tasks, episodes of 150..500 steps: each point is the mean over the write
             interval's (16..64 steps) per-step means. Tasks unlocked in 1..3 waves by a curriculum term (its
             `Curriculum/active_tasks` is run-level). TRAIN ONLY, 500..1,400 writes. User profile:
             `^Metrics/(?P<env>[a-z_]+)/(?P<metric>success_rate|orientation_error|position_error)$`.
  rlgames_allegro  tensorboardX as rl_games writes it (Denys88/rl_games@262cf20, rl_games/common/a2c_common.py:442-456
             the writer in `{train_dir}/{experiment_name}/summaries`; :530-546 `performance/*`, `losses/*`, `info/*` at
             `frame`; :1414-1425 `rewards/step` at frame, `rewards/iter` at epoch_num, `rewards/time` at total_time,
             `shaped_rewards/*`, `episode_lengths/*`), with the `IsaacAlgoObserver` (rl_games/common/algo_observer.py:
             95-156: `infos["episode"]` dicts collected per env step, each key's values concatenated and averaged and
             written as `Episode/{key}` at EPOCH_NUM; scalar infos as `{k}/frame`, `{k}/iter`, `{k}/time`). An
             IsaacGymEnvs AllegroHand-style in-hand reorientation env over 3..6 object types (`block`, `egg`, `pen`, …:
             `isaacgymenvs/tasks/allegro_hand.py` objectType) whose `extras["episode"]` holds, in steps where envs of an
             object reset, `{obj}_consecutive_successes` (the reset episodes' mean count of goals reached in a row, 0 to
             `max_consecutive_successes` C = 20..50; per episode beta-binomial) and `{obj}_dist_rew`; the run-level
             `consecutive_successes` is a direct info. An epoch is a horizon of 8..32 env steps: an object none of whose
             envs reset in it has no point (up to ~10 % of the epochs of a rare object). Objects unlocked in 1..3 waves.
             TRAIN ONLY, 500..2,000 epochs. User profile: `^Episode/(?P<env>[a-z]+)_(?P<metric>consecutive_successes|
             dist_rew)$` (the steps are epochs).
  openrlhf_tb / openrlhf_wandb  OpenRLHF's PPO/REINFORCE++ trainer (OpenRLHF/OpenRLHF@3c3be62,
             openrlhf/trainer/ppo_trainer.py:82-140 `compute_eval_metrics`: per datasource `eval_{ds}_pass{n}` (a prompt
             solved by any of its n samples), `eval_{ds}_pass1` (the mean reward over its samples, averaged over the
             datasource's prompts), `eval_{ds}_response_length_mean`, `eval_{ds}_truncated_rate`; :559
             `global_step % eval.steps == 0` after a training step; :383-391 train logs every `logging_steps`; :499-508
             a resumed job restarts at its checkpoint's global_step) — no per-datasource training metric: EVAL ONLY per
             env. openrlhf/utils/logging_utils.py: `TensorboardLogger` (`{tensorboard_dir}/{run_name}`; `log_train`
             writes `train/{k}`, `log_eval` writes `eval/{k}` at global_step) and `WandbLogger` (`define_metric(
             "train/global_step")`, `define_metric("train/*", step_metric="train/global_step", step_sync=True)`,
             `define_metric("eval/epoch")`, `define_metric("eval/*", step_metric="eval/epoch", step_sync=True)`; rows
             logged WITHOUT step=, `log_eval` adds `eval/global_step` — never `eval/epoch`). 3..7 datasources (`gsm8k`,
             `math500`, `aime24`, …) of a difficulty-filtered mix, all trained and evaluated from the start; a fixed eval
             set of 30..500 prompts a datasource x n = 1..8 samples (`--eval.n_samples_per_prompt`, default 4), each
             prompt's chance sigmoid(theta - d), d ~ N(0, 0.8..2) fixed per prompt (noise below a binomial's); evals
             every 5, 10 or 20 steps, 80..220 of them. openrlhf_tb: 40 % of the runs RESUMED (the job died at 40..75 %,
             restarted from its last checkpoint, `ckpt.save_steps` 20..100, into a second event file of the same folder,
             rewriting the steps since) — in such a run one graduated datasource may be missing from the resumed job's
             eval set (eval_gap). openrlhf_wandb: the WandbLogger's real `define_metric` calls; the user profile names
             `step_key: eval/global_step`. User profile: `^eval/eval_(?P<env>[a-z0-9]+)_pass1$` (metric pass1) and the
             other per-datasource suffixes.

Truth. Each env has a skill s in [0, 1] per iteration of its run (skrl write window, rl_games epoch, OpenRLHF global
step) from its unlock; its expected judged value E = A + (B - A) s is linear in s (success: A 0, B 1; orientation
error: A the random policy's error, B the learned one — lower is better, so fractions of the gain are the same in s;
consecutive successes: A 0, B = C; pass1: A 0, B 1). A run's envs start within 0.02 of its s0 and top within 0.015 of
its s1 (one shared scale: datasources of a difficulty-filtered mix, tasks of one robot). Learners rise from s0 to s1
over T = 0.8..2.5 W iterations (exp, logistic, sqrt or linear) and hold.
  J  pace               the env's judged series' logging pace in steps (README's: the median interval when regular,
                        else the mean of the intervals under 3x it)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in steps
  G  eval interval      openrlhf: eval.steps
  Q  tolerance unit     max over the run's envs of max(W / 10, G or J), in steps = `tolerance_unit` in plan.json; a
                        detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held 0.3 W more.

Labels (onset in steps; "first point" = the env's first logged point at or after the event's true start; one label an
env; the first two envs of a run are clean learners, each later env carries an event with probability 0.65):
  graduated_regression   after graduation + max(W, 10 points): sudden or gradual (straight ramp in s over 0.5..1.5 W)
                         fall to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W,
                         15 points) left). Onset = first point at which E keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point; freeze: a linear
                         rise over max(0.4 W, 6 points)..0.8 W to 0.2..0.5 of the gain, then flat and active >= 5 W to the
                         end, onset = first point of the flat
  performance_volatility after graduation + max(W, 10 points): burst (max(W, 20 points) of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, one draw a point, then calm >= max(W, 15 points) to the end; onset =
                         first point whose expected value is off by > max(0.15 gain, 4 sd of one point)); switch (Markov:
                         s1 and s1 - 0.4..0.6 gain, dwells of D..3 D points, D = 6, >= 9 phases, to the end; onset = first
                         point of the first low phase)
  eval_gap               openrlhf_tb resumed runs: a graduated datasource missing from the resumed job's eval set (>= max(5
                         x max(50 steps, G), 2 W) left); onset = its last eval + G
  prolonged_training     a steady riser, LINEAR in s (0.62 of the gain over its active life of 12.5..18 W, active to the
                         end); onset = its first point + 10 W (skrl and rl_games runs long enough; none in openrlhf)
  (unexpected_transition: none of these conventions logs states)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (a quarter of the envs / episodes /
eval prompts: gain 5..8 sd), slow_learner (T 3..4.5 W, graduates), late_learner (skrl, rl_games: flat at s0 for 1..2 W
after its unlock, then a normal learner), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one judged point at s0 + 0.05 gain after graduation).

Visibility (sd of one judged point, estimated by simulating the convention's own averaging at the levels an event
visits; the convention's knob — envs per task, envs per object, eval prompts — is doubled up to 3 times until it holds,
else the env becomes a clean learner): regression drop >= 4 sd; stall rise >= 5 sd, a never-learner's gap to the top
>= 6 sd; switching gap >= 5 sd; burst sd >= 4 x base sd; prolonged riser: its rise over a window >= 4 standard errors
of a line's slope fitted to the window's points; healthy gain >= 8 sd (noisy 5..8).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a run's tasks / objects / datasources share one scale (real ones differ more: their lower ones would read as
    stalled on their siblings' scale);
  - orientation errors in radians (from ~1.5..2.2): never a rate in [0, 1];
  - openrlhf_wandb's labels are kept: the runs are written as OpenRLHF writes them, whatever curriwatch reads of them.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 12
CYCLE = ("skrl_success", "rlgames_allegro", "openrlhf_tb", "skrl_pose", "rlgames_allegro", "openrlhf_wandb")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
_SKRL_PROFILE = """\
profiles:
  isaaclab_skrl:
    patterns:
      - {regex: '^Metrics/(?P<env>[a-z_]+)/(?P<metric>success_rate|orientation_error|position_error)$', split: train}
    performance_metric: %s
profile: isaaclab_skrl
"""
_OPENRLHF_PROFILE = """\
profiles:
  openrlhf_evals:
    patterns:
      - {regex: '^eval/eval_(?P<env>[a-z0-9]+)_pass1$', split: eval, metric: pass1}
      - {regex: '^eval/eval_(?P<env>[a-z0-9]+)_(?P<metric>pass(?:[2-9]|[1-9][0-9]+)|response_length_mean|truncated_rate)$',
         split: eval}
    performance_metric: pass1
%sprofile: openrlhf_evals
"""
CONFIGS = {
    "skrl_success": _SKRL_PROFILE % "success_rate",
    "skrl_pose": _SKRL_PROFILE % "orientation_error",
    "rlgames_allegro": """\
profiles:
  allegro_objects:
    patterns:
      - {regex: '^Episode/(?P<env>[a-z]+)_(?P<metric>consecutive_successes|dist_rew)$', split: train}
    performance_metric: consecutive_successes
profile: allegro_objects
""",
    "openrlhf_tb": _OPENRLHF_PROFILE % "",
    "openrlhf_wandb": _OPENRLHF_PROFILE % "    step_key: eval/global_step\n",
}
SKRL_TASKS = ("reach_cube", "lift_cube", "stack_cube", "open_drawer", "push_block", "insert_peg", "turn_valve",
              "pick_mug")
ALLEGRO_OBJECTS = ("block", "egg", "pen", "sphere", "capsule", "cylinder", "prism")
DATASOURCES = ("gsm8k", "math500", "aime24", "amc23", "minerva", "olympiad", "svamp", "asdiv", "countdown", "kk")


@dataclass
class Env:
    name: str
    unlock: int
    s0: float
    s1: float
    T: float
    A: float = 0.0
    B: float = 1.0
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    at: int | None = None
    knob: float = 1.0      # envs per task / envs per object / eval prompts: scaled to make events visible
    params: dict = field(default_factory=dict)


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


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, float)))


# --- observation models: what one point of each convention averages -----------------------------------

def n_active(run: dict, i: int) -> int:
    return max(1, sum(e.unlock <= i for e in run["envs"]))


def episode_rate(run: dict, env: Env, i: int) -> float:
    """Expected episodes of the env ending per env step (skrl, rl_games)."""
    return env.knob * run["n_envs"] / n_active(run, i) / run["ep_len"]


def avg_of_step_means(run: dict, env: Env, E: np.ndarray, lam: np.ndarray, h: int, rng) -> np.ndarray:
    """Per point: h env steps, c ~ Poisson(lam) resets a step, each a per-episode outcome around E; the point is the
    mean over the steps with resets of the steps' means (skrl's np.mean of its tracked list; rl_games' mean of the
    concatenated per-step means); NaN when no step had a reset."""
    n = len(E)
    c = rng.poisson(np.repeat(lam, h).reshape(n, h))
    Es = np.repeat(E, h).reshape(n, h)
    kind = run["metric_kind"]
    if kind == "success":  # a step's successes: Binomial(c, p)
        sums = rng.binomial(c, np.clip(Es, 0, 1)).astype(float)
    elif kind == "orient":  # a sum of c gamma(k, E/k) errors is gamma(c k, E/k)
        k = 1.0 / env.params["cv"] ** 2
        sums = np.where(c > 0, rng.gamma(np.maximum(c, 1) * k, np.maximum(Es, 1e-6) / k), 0.0)
    else:  # consecutive successes: each episode beta-binomial(C, p, rho)
        tot = c.sum(axis=1)
        flat_E = np.repeat(E, tot)
        C, rho = int(round(env.B)), env.params["rho"]
        p = np.clip(flat_E / C, 1e-4, 1 - 1e-4)
        ab = (1 - rho) / rho
        q = rng.beta(p * ab, (1 - p) * ab)
        out = rng.binomial(C, q).astype(float)
        step_of = np.repeat(np.arange(n * h), c.ravel())
        sums = np.bincount(step_of, weights=out, minlength=n * h).reshape(n, h)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(c > 0, sums / np.maximum(c, 1), np.nan)
        val = np.nanmean(means, axis=1) if n else np.array([])
    return val


def orlhf_theta_table(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    th = np.linspace(-12, 12, 961)
    mean = _sigmoid(th[:, None] - d[None, :]).mean(axis=1)
    return th, mean


def orlhf_eval(env: Env, E: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    d = env.params["d"]
    th, mean = env.params["table"]
    theta = np.interp(np.clip(E, mean[0] + 1e-6, mean[-1] - 1e-6), mean, th)
    p = _sigmoid(theta[:, None] - d[None, :])
    n = env.params["n"]
    k = rng.binomial(n, p)
    return k.mean(axis=1) / n, (k > 0).mean(axis=1)


def point_sd(run: dict, env: Env, s: float, i: int | None = None) -> float:
    """sd of one judged point at skill s, simulated with the convention's own averaging."""
    rng = np.random.default_rng(12345)
    E = np.full(300, env.A + (env.B - env.A) * s)
    if run["convention"].startswith("openrlhf"):
        return float(np.std(orlhf_eval(env, E, rng)[0]))
    i = env.unlock if i is None else i
    lam = np.full(300, episode_rate(run, env, i))
    v = avg_of_step_means(run, env, E, lam, run["h"], rng)
    return float(np.nanstd(v))


def set_knob(run: dict, env: Env, k: float) -> None:
    env.knob = k
    if run["convention"].startswith("openrlhf"):
        M = int(min(1000, max(12, round(env.params["M0"] * k))))
        env.params["M"] = M
        rng = np.random.default_rng(env.params["dseed"])
        env.params["d"] = rng.normal(0, env.params["spread"], M)
        env.params["table"] = orlhf_theta_table(env.params["d"])


# --- planning ---------------------------------------------------------------------------------------

def window_its(run: dict) -> float:
    """W in iterations: max(min(100 steps, 10 % of the span), 20 J)."""
    span_steps = (run["L"] - 1) * run["unit"]
    return max(min(100.0, 0.1 * span_steps), 20.0 * run["P"] * run["unit"]) / run["unit"]


def truth_curve(run: dict, env: Env) -> np.ndarray:
    L = run["L"]
    x = np.arange(L, dtype=float) - env.unlock
    g = env.s1 - env.s0
    s = np.full(L, np.nan)
    on = x >= 0
    v, p = env.variant, env.params
    if v == "never":
        s[on] = env.s0
    elif v == "freeze":
        s[on] = env.s0 + p["fr"] * g * np.minimum(x[on] / p["R"], 1.0)
    elif v == "riser":
        s[on] = env.s0 + p["rate"] * g * x[on]
    else:
        delay = p.get("delay", 0.0)
        s[on] = env.s0 + g * f_curve(env.curve, np.maximum(x[on] - delay, 0.0) / env.T)
    if v in ("sudden", "gradual"):
        keep_s = env.s0 + p["keep"] * g
        R = p.get("R", 0.0)
        idx = np.arange(L)
        if v == "sudden":
            s[idx >= env.at] = keep_s
        else:
            ramp = (idx >= env.at) & (idx < env.at + R)
            s[ramp] = env.s1 + (keep_s - env.s1) * (idx[ramp] - env.at) / R
            s[idx >= env.at + R] = keep_s
    elif v == "burst":
        a, B = env.at, p["length"]
        s[a:a + B] = env.s1 - p["drops"]
    elif v == "switch":
        for lo, hi in p["phases"]:
            s[lo:hi] = env.s1 - p["gap"] * g
    elif v == "level_shift":
        s[env.at:] = env.s1 + p["shift"] * g
    return s


def grad_it(run: dict, env: Env, s: np.ndarray) -> int | None:
    if env.variant in ("never", "freeze", "riser"):
        return None
    g = env.s1 - env.s0
    hit = np.flatnonzero(np.nan_to_num(s, nan=-1.0) >= env.s0 + 0.9 * g - 1e-12)
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + 0.3 * window_its(run)))


def learn_end(run: dict, env: Env) -> int:
    """Graduation (truth) of the env's learning curve: where it first reaches 0.9 of its gain, plus 0.3 W."""
    x = np.arange(run["L"], dtype=float) - env.unlock
    u = np.maximum(x - env.params.get("delay", 0.0), 0.0) / env.T
    s = np.where(x >= 0, env.s0 + (env.s1 - env.s0) * f_curve(env.curve, u), np.nan)
    hit = np.flatnonzero(np.nan_to_num(s, nan=-1.0) >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    return int(math.ceil(hit[0] + 0.3 * window_its(run))) if len(hit) else run["L"]


def pts(run: dict, n_points: float) -> float:
    """n judged points in iterations."""
    return n_points * run["P"]


def visible(run: dict, env: Env, check) -> bool:
    base = env.knob
    for k in (1.0, 2.0, 4.0, 8.0):
        set_knob(run, env, base * k)
        if check():
            return True
    set_knob(run, env, base)
    return False


def place(run: dict, env: Env, ev: str, rng) -> bool:
    L, W = run["L"], window_its(run)
    g = env.s1 - env.s0
    gE = abs(env.B - env.A) * g
    if ev == "graduated_regression":
        grad = learn_end(run, env)
        margin = max(W, pts(run, 10))
        tail = max(2 * W, pts(run, 15))
        variant = str(rng.choice(["sudden", "gradual"]))
        R = float(rng.uniform(0.5, 1.5)) * W if variant == "gradual" else 0.0
        lo, hi = grad + margin, L - tail - R
        if lo >= hi:
            return False
        sev = str(rng.choice(["warning", "critical"]))
        keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        env.event, env.variant, env.severity, env.at = ev, variant, sev, int(rng.integers(int(lo), int(hi)))
        env.params.update(keep=keep, R=R)
        ok = visible(run, env, lambda: (1 - keep) * gE >= 4 * max(point_sd(run, env, env.s1, env.at),
                                                                   point_sd(run, env, env.s0 + keep * g, env.at)))
        return ok
    if ev == "training_stagnation":
        variant = str(rng.choice(["never", "freeze"]))
        if variant == "never":
            if L - env.unlock < 6 * W:
                return False
            env.event, env.variant = ev, variant
            return visible(run, env, lambda: (env.s1 - env.s0) * abs(env.B - env.A)
                           >= 6 * point_sd(run, env, env.s0, env.unlock))
        R = float(rng.uniform(max(0.4 * W, pts(run, 6)), max(0.8 * W, pts(run, 7))))
        if L - env.unlock - R < 5 * W:
            return False
        fr = float(rng.uniform(0.2, 0.5))
        env.event, env.variant = ev, variant
        env.params.update(R=R, fr=fr)
        return visible(run, env, lambda: fr * gE >= 5 * point_sd(run, env, env.s0 + fr * g, env.unlock + int(R)))
    if ev == "performance_volatility":
        grad = learn_end(run, env)
        margin = max(W, pts(run, 10))
        variant = str(rng.choice(["burst", "switch"]))
        if variant == "burst":
            B = int(math.ceil(max(W, pts(run, 20))))
            calm = max(W, pts(run, 15))
            lo, hi = grad + margin, L - calm - B
            if lo >= hi:
                return False
            c = float(rng.uniform(0.2, 0.3))
            env.event, env.variant, env.at = ev, variant, int(rng.integers(int(lo), int(hi)))
            n = B
            drops = np.abs(rng.normal(0, c * g, n))
            drops = np.minimum(drops, 0.95 * g)
            # one draw per judged point (rl_games / skrl: every iteration; openrlhf: held between evals)
            P = int(run["P"])
            if P > 1:
                drops = np.repeat(drops[::P], P)[:n]
            env.params.update(length=B, drops=drops, c=c)
            return visible(run, env, lambda: c * gE >= 4 * point_sd(run, env, env.s1, env.at))
        gap = float(rng.uniform(0.4, 0.6))
        D = pts(run, 6)
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
        return visible(run, env, lambda: gap * gE >= 5 * max(point_sd(run, env, env.s1, start),
                                                            point_sd(run, env, env.s1 - gap * g, start)))
    if ev == "prolonged_training":
        if run["convention"].startswith("openrlhf") or run.get("n_risers", 0) >= 2:
            return False
        life = int(float(rng.uniform(12.5, 15.0)) * W)
        if life > L - 1:
            return False
        env.unlock = L - life
        rate = 0.62 / max(life - 1, 1)
        env.event, env.variant = ev, "riser"
        env.params.update(rate=rate)

        def riser_ok():
            sd = point_sd(run, env, env.s0 + 0.3 * g, env.unlock)
            n = W / run["P"]
            se_slope_window = sd * math.sqrt(12.0 / max(n, 3)) if n > 2 else 1e9  # se of slope x window length
            return rate * g * abs(env.B - env.A) * W >= 4 * se_slope_window
        if visible(run, env, riser_ok):
            run["n_risers"] = run.get("n_risers", 0) + 1
            return True
        return False
    if ev == "eval_gap":
        if not run.get("resume") or run.get("gap_env"):
            return False
        grad = learn_end(run, env)
        crash = run["resume"]["crash"]
        if grad + max(W, pts(run, 10)) >= crash:
            return False
        left = (L - 1 - crash) * run["unit"]
        if left < max(5 * max(50, run["G"]), 2 * W * run["unit"]):
            return False
        env.event, env.variant, env.at = ev, "eval_gap", crash
        run["gap_env"] = env.name
        return visible(run, env, lambda: gE >= 8 * point_sd(run, env, env.s0 + 0.5 * g))
    raise ValueError(ev)


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W, L = window_its(run), run["L"]
    g = env.s1 - env.s0
    env.event = env.variant = neg
    if neg == "noisy_healthy":
        for _ in range(6):
            if (env.B - env.A) * g / max(point_sd(run, env, 0.5 * (env.s0 + env.s1)), 1e-9) < 8 or env.knob < 0.1:
                break
            set_knob(run, env, env.knob * 0.5)
        if abs(env.B - env.A) * g < 5 * point_sd(run, env, 0.5 * (env.s0 + env.s1)):
            set_knob(run, env, env.knob * 2)
    elif neg == "slow_learner":
        T = float(rng.uniform(3.0, 4.5)) * W
        if env.unlock + T + 2 * W < L:
            env.T = T
        else:
            env.event = env.variant = "healthy"
    elif neg == "late_learner":
        delay = float(rng.uniform(1.0, 2.0)) * W
        if env.unlock + delay + env.T + 2 * W < L and not run["convention"].startswith("openrlhf"):
            env.params["delay"] = delay
        else:
            env.event = env.variant = "healthy"
    elif neg == "level_shift":
        grad = learn_end(run, env)
        shift = float(rng.uniform(0.04, 0.06))
        room = env.s1 + shift * g <= 0.995
        lo, hi = grad + max(W, pts(run, 10)), L - max(W, pts(run, 15))
        if room and lo < hi:
            env.at = int(rng.integers(int(lo), int(hi)))
            env.params["shift"] = shift
        else:
            env.event = env.variant = "healthy"
    elif neg == "single_outlier":
        grad = learn_end(run, env)
        lo, hi = grad + max(W, pts(run, 10)), L - max(W, pts(run, 10))
        if lo < hi:
            env.at = int(rng.integers(int(lo), int(hi)))
        else:
            env.event = env.variant = "healthy"
    if env.variant == "healthy":
        env.event = "healthy"


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    if conv.startswith("skrl"):
        run["metric_kind"] = "success" if conv == "skrl_success" else "orient"
        run["w"] = int(rng.choice([16, 24, 32, 48, 64]))
        run["unit"], run["P"], run["h"] = run["w"], 1, run["w"]
        run["L"] = int(rng.integers(500, 1401))
        run["n_envs"] = int(rng.choice([4096, 8192, 16384]))
        run["ep_len"] = int(rng.integers(150, 501))
        names = list(rng.permutation(SKRL_TASKS))
        n_env = int(rng.integers(3, 7))
    elif conv == "rlgames_allegro":
        run["metric_kind"] = "consec"
        run["h"] = int(rng.choice([8, 16, 24, 32]))
        run["unit"], run["P"] = 1, 1
        run["L"] = int(rng.integers(500, 2001))
        run["n_envs"] = int(rng.choice([2048, 4096, 8192, 16384]))
        run["ep_len"] = int(rng.integers(300, 601))
        run["C"] = int(rng.choice([20, 25, 30, 40, 50]))
        names = list(rng.permutation(ALLEGRO_OBJECTS))
        n_env = int(rng.integers(3, 7))
    else:
        run["metric_kind"] = "pass1"
        run["G"] = int(rng.choice([5, 10, 20]))
        run["unit"], run["P"] = 1, run["G"]
        n_evals = int(rng.integers(80, 221))
        run["L"] = n_evals * run["G"] + 1  # global steps 1..L-1 (iteration i = step i)
        run["n_samples"] = int(rng.choice([1, 2, 4, 4, 8]))
        names = list(rng.permutation(DATASOURCES))
        n_env = int(rng.integers(3, 8))
        if conv == "openrlhf_tb" and rng.random() < 0.4:
            crash = int(run["L"] * rng.uniform(0.4, 0.75))
            save = int(rng.choice([20, 50, 100]))
            run["resume"] = {"crash": crash, "ckpt": crash - crash % save, "save_steps": save}
    L, W = run["L"], window_its(run)
    # the run's shared scale
    if run["metric_kind"] == "pass1":
        s0r, s1r = float(rng.uniform(0.12, 0.35)), float(rng.uniform(0.6, 0.85))
    else:
        s0r, s1r = float(rng.uniform(0.02, 0.1)), float(rng.uniform(0.85, 0.96))
    if run["metric_kind"] == "orient":
        A, B = float(rng.uniform(1.5, 2.2)), float(rng.uniform(0.05, 0.2))
    elif run["metric_kind"] == "consec":
        A, B = 0.0, float(run["C"])
    else:
        A, B = 0.0, 1.0
    # unlock waves (skrl, rl_games): the first wave at 0
    if run["metric_kind"] == "pass1":
        waves = [0]
    else:
        nw = int(rng.integers(1, 4))
        waves = [0] + sorted(int(L * rng.uniform(lo, hi)) for lo, hi in [(0.12, 0.25), (0.3, 0.42)][:nw - 1])
    envs = []
    for k in range(n_env):
        unlock = 0 if k < 2 else int(waves[int(rng.integers(len(waves)))])
        env = Env(str(names[k]), unlock, float(np.clip(s0r + rng.uniform(-0.02, 0.02), 0.005, 1)),
                  float(np.clip(s1r + rng.uniform(-0.015, 0.015), 0, 0.99)),
                  float(rng.uniform(0.8, 2.5)) * W, A, B, curve=str(rng.choice(["exp", "logistic", "sqrt", "linear"])))
        if run["metric_kind"] == "orient":
            env.params["cv"] = float(rng.uniform(0.3, 0.6))
        if run["metric_kind"] == "consec":
            env.params["rho"] = float(rng.uniform(0.05, 0.3))
        if run["metric_kind"] == "pass1":
            env.params.update(M0=int(rng.choice([30, 40, 80, 200, 500])), spread=float(rng.uniform(0.8, 2.0)),
                              n=run["n_samples"], dseed=int(rng.integers(1 << 31)))
            set_knob(run, env, 1.0)
        envs.append(env)
    run["envs"] = envs
    for k, env in enumerate(envs):
        # base visibility: a learner's gain >= 8 sd
        visible(run, env, lambda: abs(env.B - env.A) * (env.s1 - env.s0) >= 8 * point_sd(run, env, 0.5 * (env.s0 + env.s1)))
        if env.unlock + env.T + 2 * W >= L:
            env.T = max(0.8 * W, (L - env.unlock - 2 * W) * 0.8)
        if k < 2:
            continue
        pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
                "prolonged_training"]
        if run.get("resume"):
            pool += ["eval_gap", "eval_gap"]
        placed = False
        if rng.random() < 0.65:
            for _ in range(3):
                ev = str(rng.choice(pool))
                saved = (env.knob, dict(env.params), env.unlock)
                if place(run, env, ev, rng):
                    placed = True
                    break
                env.params, env.unlock = saved[1], saved[2]
                set_knob(run, env, saved[0])
                env.event, env.variant, env.severity, env.at = "healthy", "healthy", None, None
        if not placed:
            apply_negative(run, env, str(rng.choice(["healthy", "noisy_healthy", "slow_learner", "late_learner",
                                                     "level_shift", "single_outlier"])), rng)


# --- observation -----------------------------------------------------------------------------------

def observe(run: dict, rng) -> dict:
    """Per env: (iterations, steps, values) of its judged points and the truth."""
    out = {}
    L = run["L"]
    for env in run["envs"]:
        s = truth_curve(run, env)
        E = env.A + (env.B - env.A) * np.clip(np.nan_to_num(s, nan=env.s0), 0, 1)
        its = np.arange(env.unlock, L)
        if run["convention"].startswith("openrlhf"):
            its = its[(its % run["G"] == 0) & (its > 0)]
            v, passn = orlhf_eval(env, E[its], rng)
            extra = {"passn": passn}
        else:
            lam = np.array([episode_rate(run, env, i) for i in its])
            v = avg_of_step_means(run, env, E[its], lam, run["h"], rng)
            extra = {}
            if run["metric_kind"] == "orient":  # position error beside it, in metres
                extra["pos"] = np.maximum(0.002, 0.25 - 0.23 * np.clip(s[its], 0, 1) + rng.normal(0, 0.01, len(its)))
            if run["metric_kind"] == "success":
                extra["pos"] = np.maximum(0.002, 0.2 - 0.18 * np.clip(s[its], 0, 1) + rng.normal(0, 0.008, len(its)))
            if run["metric_kind"] == "consec":
                extra["dist"] = -0.5 + 0.45 * np.clip(s[its], 0, 1) + rng.normal(0, 0.02, len(its))
        if env.variant == "single_outlier":
            j = int(np.searchsorted(its, env.at))
            if j < len(its) and np.isfinite(v[j]):
                v = v.copy()
                v[j] = env.A + (env.B - env.A) * (env.s0 + 0.05 * (env.s1 - env.s0))
        steps = its * run["unit"] if not run["convention"].startswith("skrl") else (its + 1) * run["unit"]
        out[env.name] = {"its": its, "steps": steps.astype(np.int64), "v": v, "s": s, "extra": extra}
    return out


# --- labelling -------------------------------------------------------------------------------------

def pace(steps: np.ndarray) -> float:
    steps = np.asarray(steps, float)
    if len(steps) < 2:
        return 1.0
    d = np.diff(np.sort(steps))
    med = float(np.median(d))
    if med <= 0:
        return 1.0
    if np.mean(np.abs(d / med - np.round(d / med)) < 1e-9) >= 0.98:
        return med
    return float(d[d < 3 * med].mean())


def label_for(run: dict, env: Env, d: dict, W_steps: float) -> list[dict]:
    if env.event not in EVENTS:
        return []
    fin = np.isfinite(d["v"])
    its, steps = d["its"][fin], d["steps"][fin]
    if not len(its):
        return []
    s = d["s"]
    g = env.s1 - env.s0
    v, p = env.variant, env.params

    def first_at(t0):
        ok = np.flatnonzero(its >= t0)
        return int(steps[ok[0]]) if len(ok) else None

    if v in ("never",):
        onset = first_at(env.unlock)
    elif v == "freeze":
        onset = first_at(int(math.ceil(env.unlock + p["R"])))
    elif v == "riser":
        onset = int(steps[0] + round(10 * W_steps))
        if onset > int(d["steps"][-1]):
            return []
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(s)) >= env.at) & (np.nan_to_num(s, nan=9) < env.s0 + 0.85 * g - 1e-12))
        onset = first_at(int(below[0]))
    elif v == "burst":
        sd = point_sd(run, env, env.s1, env.at)
        gE = abs(env.B - env.A) * g
        onset = None
        for lim in (max(0.15 * gE, 4 * sd), 0.15 * gE):
            for i, st in zip(its, steps):
                if env.at <= i < env.at + p["length"] and abs(env.B - env.A) * (env.s1 - s[i]) > lim:
                    onset = int(st)
                    break
            if onset is not None:
                break
        if onset is None:
            onset = first_at(env.at)
    elif v == "switch":
        onset = first_at(p["phases"][0][0])
    elif v == "eval_gap":
        return [mk(run, env, int(d["last_eval"]) + run["G"])]
    else:
        raise ValueError(v)
    return [] if onset is None else [mk(run, env, onset)]


def mk(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant}", variant=env.variant)


# --- writers ---------------------------------------------------------------------------------------

def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def _tb_file(folder: Path, points: list[tuple[int, str, float]], wall0: float, secs: float, name: str) -> None:
    """Write (step, tag, value) points in order with tensorboardX into `folder/name` (a fixed event file name)."""
    from tensorboardX import SummaryWriter

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        for step, tag, value in points:
            w.add_scalar(tag, float(value), int(step), walltime=wall0 + secs * step)
        w.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, folder / name)


def write_skrl(folder: Path, run: dict, data: dict, rng) -> None:
    """skrl's write_tracking_data at every write_interval: run-level tags (with spaces) then the tracked infos."""
    w, L = run["w"], run["L"]
    pts_: list[tuple[int, str, float]] = []
    metric = "success_rate" if run["metric_kind"] == "success" else "orientation_error"
    by_it = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, st, v, pos in zip(d["its"], d["steps"], d["v"], d["extra"]["pos"]):
            if np.isfinite(v):
                by_it.setdefault(int(i), []).append((env.name, float(v), float(pos)))
    for i in range(L):
        step = (i + 1) * w
        active = sum(e.unlock <= i for e in run["envs"])
        mean_s = np.mean([np.clip(np.nan_to_num(data[e.name]["s"][i], nan=0), 0, 1) for e in run["envs"]
                          if e.unlock <= i] or [0.0])
        ret = 40 + 160 * mean_s + rng.normal(0, 3)
        for tag, val in (("Reward / Instantaneous reward (max)", ret / 50 + 2), ("Reward / Instantaneous reward (min)",
                         -1.5 + rng.normal(0, 0.1)), ("Reward / Instantaneous reward (mean)", ret / run["ep_len"]),
                         ("Reward / Total reward (max)", ret * 1.4), ("Reward / Total reward (min)", ret * 0.2),
                         ("Reward / Total reward (mean)", ret), ("Episode / Total timesteps (max)", run["ep_len"]),
                         ("Episode / Total timesteps (min)", max(1, run["ep_len"] * 0.1)),
                         ("Episode / Total timesteps (mean)", run["ep_len"] * (0.9 - 0.3 * mean_s)),
                         ("Curriculum/active_tasks", active), ("Episode_Termination/time_out", 0.5 - 0.3 * mean_s),
                         ("Stats / Inference time (ms)", 2.0 + rng.normal(0, 0.1))):
            pts_.append((step, tag, val))
        if i % 1 == 0:  # the update's losses (skrl tracks them in _update, each rollout of w steps)
            pts_.append((step, "Loss / Policy loss", rng.normal(-0.01, 0.005)))
            pts_.append((step, "Loss / Value loss", abs(rng.normal(0.1, 0.03))))
            pts_.append((step, "Policy / Standard deviation", 1.0 - 0.6 * mean_s))
            pts_.append((step, "Learning / Learning rate", 3e-4))
        for name, v, pos in by_it.get(i, ()):
            pts_.append((step, f"Metrics/{name}/{metric}", v))
            pts_.append((step, f"Metrics/{name}/position_error", pos))
    _tb_file(folder, pts_, 1.76e9, 0.02, "events.out.tfevents.1764300000.isaac-node-0.4242.0")
    (folder / "params").mkdir(exist_ok=True)
    (folder / "params" / "agent.yaml").write_text(f"agent:\n  experiment:\n    write_interval: {w}\ntrainer:\n"
                                                   f"  class: SequentialTrainer\n  timesteps: {L * w}\n"
                                                   "  environment_info: log\n")


def write_rlgames(folder: Path, run: dict, data: dict, rng) -> None:
    """rl_games' a2c_common + IsaacAlgoObserver per epoch: frame, epoch and time axes in one summaries/ file."""
    L, h, n_envs = run["L"], run["h"], run["n_envs"]
    pts_: list[tuple[int, str, float]] = []
    by_it = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v, dist in zip(d["its"], d["v"], d["extra"]["dist"]):
            if np.isfinite(v):
                by_it.setdefault(int(i), []).append((env.name, float(v), float(dist)))
    t = 0.0
    for i in range(L):
        epoch = i + 1  # epoch_num is incremented before the first stats are written
        frame = epoch * h * n_envs
        t += float(rng.uniform(0.8, 1.3)) * h * n_envs / 60000.0
        mean_s = np.mean([np.clip(np.nan_to_num(data[e.name]["s"][i], nan=0), 0, 1) for e in run["envs"]
                          if e.unlock <= i] or [0.0])
        for tag, val in (("performance/step_fps", 60000 + rng.normal(0, 2000)), ("losses/a_loss", rng.normal(0, .01)),
                         ("losses/c_loss", abs(rng.normal(0.5, 0.1))), ("info/last_lr", 5e-3), ("info/kl", 0.008),
                         ("info/epochs", epoch)):
            pts_.append((frame, tag, val))
        for name, v, dist in by_it.get(i, ()):
            pts_.append((epoch, f"Episode/{name}_consecutive_successes", v))
            pts_.append((epoch, f"Episode/{name}_dist_rew", dist))
        cs = run["C"] * mean_s + rng.normal(0, 0.3)
        rew = 200 + 3000 * mean_s + rng.normal(0, 40)
        for k, val in (("consecutive_successes", cs),):
            pts_ += [(frame, f"{k}/frame", val), (epoch, f"{k}/iter", val), (int(t), f"{k}/time", val)]
        for k, val in (("rewards", rew), ("shaped_rewards", rew * 0.01), ("episode_lengths", 600 - 200 * mean_s)):
            pts_ += [(frame, f"{k}/step", val), (epoch, f"{k}/iter", val), (int(t), f"{k}/time", val)]
    _tb_file(folder / "summaries", pts_, 1.76e9, 0.0, "events.out.tfevents.1764300000.gpu-node-3")
    (folder / "nn").mkdir(exist_ok=True)
    (folder / "config.yaml").write_text(f"params:\n  config:\n    horizon_length: {h}\n    max_epochs: {L}\n")


def openrlhf_rows(run: dict, data: dict, rng, upto: int, start: int = 0, drop: str | None = None,
                  redo: dict | None = None) -> tuple[list[dict], list[dict]]:
    """(train rows, eval rows) of global steps start+1..upto: OpenRLHF's log_train and log_eval dicts."""
    n = run["n_samples"]
    train, evals = [], []
    src = redo or data
    for gs in range(start + 1, upto + 1):
        mean_s = np.mean([np.clip(np.nan_to_num(data[e.name]["s"][gs], nan=0), 0, 1) for e in run["envs"]])
        train.append({"gs": gs, "reward": float(mean_s + rng.normal(0, 0.03)), "return": float(mean_s - 0.02),
                      "policy_loss": float(rng.normal(0, 0.02)), "kl": float(abs(rng.normal(0.001, 0.0005)) * gs / 100),
                      "response_length": float(600 + 200 * mean_s + rng.normal(0, 20)), "actor_lr": 1e-6})
        if gs % run["G"] == 0:
            row = {"gs": gs}
            lens = []
            for env in run["envs"]:
                if drop == env.name:
                    continue
                d = src[env.name]
                j = int(np.searchsorted(d["its"], gs))
                if j >= len(d["its"]) or d["its"][j] != gs:
                    continue
                ln = float(400 + 500 * (1 - np.clip(d["s"][gs], 0, 1)) + rng.normal(0, 15))
                lens.append(ln)
                row[f"eval_{env.name}_pass{n}"] = float(d["extra"]["passn"][j]) if n > 1 else None
                row[f"eval_{env.name}_pass1"] = float(d["v"][j])
                row[f"eval_{env.name}_response_length_mean"] = ln
                row[f"eval_{env.name}_truncated_rate"] = float(np.clip(0.02 + rng.normal(0, 0.005), 0, 1))
            if lens:
                row["eval_response_length_mean"] = float(np.mean(lens))
            evals.append(row)
    return train, evals


def write_openrlhf_tb(folder: Path, run: dict, data: dict, rng) -> None:
    def points(train, evals):
        out = []
        for r in train:
            out += [(r["gs"], f"train/{k}", v) for k, v in r.items() if k != "gs" and v is not None]
        for r in evals:
            out += [(r["gs"], f"eval/{k}", v) for k, v in r.items() if k != "gs" and v is not None]
        out.sort(key=lambda x: x[0])
        return out

    L = run["L"]
    res = run.get("resume")
    if not res:
        tr, ev = openrlhf_rows(run, data, rng, L - 1)
        _tb_file(folder, points(tr, ev), 1.76e9, 30.0, "events.out.tfevents.1764300000.ray-head.1111.0")
        return
    tr, ev = openrlhf_rows(run, data, rng, res["crash"])
    _tb_file(folder, points(tr, ev), 1.76e9, 30.0, "events.out.tfevents.1764300000.ray-head.1111.0")
    tr2, ev2 = openrlhf_rows(run, data, rng, L - 1, start=res["ckpt"], drop=run.get("gap_env"), redo=run["redo"])
    _tb_file(folder, points(tr2, ev2), 1.76e9 + 3600.0, 30.0, "events.out.tfevents.1764400000.ray-head.2222.0")


def write_openrlhf_wandb(folder: Path, run: dict, data: dict, rng) -> None:
    """OpenRLHF's WandbLogger: its define_metric calls, then rows without step= (train/… with train/global_step,
    eval/… with eval/global_step)."""
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    tr, ev = openrlhf_rows(run, data, rng, run["L"] - 1)
    evd = {r["gs"]: r for r in ev}
    rid = f"{run['seed'] % 36 ** 6:06x}{run['name'][1:4]}"
    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(project="openrlhf_train_ppo", id=rid, mode="offline", dir=tmp, name=run["name"],
                        settings=wandb.Settings(x_disable_stats=True, console="off"))
        wr.define_metric("train/global_step")
        wr.define_metric("train/*", step_metric="train/global_step", step_sync=True)
        wr.define_metric("eval/epoch")
        wr.define_metric("eval/*", step_metric="eval/epoch", step_sync=True)
        for r in tr:
            gs = r["gs"]
            wr.log({**{f"train/{k}": v for k, v in r.items() if k != "gs"}, "train/global_step": gs})
            if gs in evd:
                e = evd[gs]
                wr.log({**{f"eval/{k}": v for k, v in e.items() if k != "gs" and v is not None},
                        "eval/global_step": gs})
        wr.finish()
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
        wait_until_complete(src)
        dest = folder / "wandb" / f"offline-run-20260101_000000-{rid}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


# --- build -----------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    orng = np.random.default_rng(run["seed"] + 1)
    data = observe(run, orng)
    if conv == "skrl_success" or conv == "skrl_pose":
        folder = root / conv / run["name"]
        write_skrl(folder, run, data, np.random.default_rng(run["seed"] + 2))
    elif conv == "rlgames_allegro":
        folder = root / conv / run["name"]
        write_rlgames(folder, run, data, np.random.default_rng(run["seed"] + 2))
    elif conv == "openrlhf_tb":
        folder = root / conv / run["name"]
        if run.get("resume"):
            run["redo"] = observe(run, np.random.default_rng(run["seed"] + 3))
        write_openrlhf_tb(folder, run, data, np.random.default_rng(run["seed"] + 2))
        if run.get("resume"):  # past the checkpoint the resumed job's points are the last written
            ck, crash = run["resume"]["ckpt"], run["resume"]["crash"]
            for e in run["envs"]:
                a, b = data[e.name], run["redo"][e.name]
                if e.name == run.get("gap_env"):
                    keep = a["its"] <= crash
                    for k in ("its", "steps", "v"):
                        a[k] = a[k][keep]
                    a["last_eval"] = int(a["steps"][np.isfinite(a["v"])][-1])
                    continue
                ka, kb = a["its"] <= ck, b["its"] > ck
                for k in ("its", "steps", "v"):
                    a[k] = np.concatenate([a[k][ka], b[k][kb]])
    else:
        folder = root / conv / run["name"]
        write_openrlhf_wandb(folder, run, data, np.random.default_rng(run["seed"] + 2))
    # labels and tolerance
    first = min(int(d["steps"][0]) for d in data.values() if len(d["steps"]))
    last = max(int(d["steps"][-1]) for d in data.values() if len(d["steps"]))
    if conv == "rlgames_allegro":
        first = 1
    span = float(last - first)
    tol = []
    for env in run["envs"]:
        d = data[env.name]
        fin = np.isfinite(d["v"])
        J = pace(d["steps"][fin])
        W_steps = max(min(100.0, 0.1 * span), 20.0 * J)
        G = run.get("G")
        tol.append(max(W_steps / 10.0, G or J))
        env.params["W_steps"], env.params["J"] = W_steps, J
        labels.extend(label_for(run, env, d, W_steps))
    skip = ("envs", "redo")
    meta = {k: v for k, v in run.items() if k not in skip}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(run.get("G") or run["unit"]),
                first_step=first, last_step=last)
    meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "unlock": e.unlock, "s0": e.s0, "s1": e.s1, "A": e.A, "B": e.B, "T": e.T, "curve": e.curve,
                     "at": e.at, "knob": e.knob,
                     "params": {k: v for k, v in e.params.items() if k not in ("d", "table", "drops", "phases")},
                     "phases": e.params.get("phases")}
                    for e in run["envs"]]
    (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    root = Path(root)
    rng = np.random.default_rng([seed, 22])
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
    if isinstance(o, tuple):
        return list(o)
    return str(o)
