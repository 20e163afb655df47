"""The twenty-third detection corpus (`python benchmarks/detection.py --corpus twentythird`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles with `env: "{run}"`, `count_metric` and
`overrides:`, W&B's `define_metric` step axes, metric direction, what a rate is, logging shapes, what `unknown` means;
detection.py's label format and scorer; the twenty-second corpus as an example of the interface; tests/writers.py),
without reading the analysis code and without looking at which cases curriwatch misses. Meant to be read for its
totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentythird-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (10 d3rlpy_maze, 20 tianshou, 20 jaxued, 10 d3rlpy_loco), one group folder per
convention, each with a curriwatch.yaml forcing a user profile. Chosen for what the twenty-two other corpora do not
cover: D3RLPY's offline-RL TensorBoard adapter (eval-only per-task evaluators at the EPOCH, beside an `add_hparams`
subfolder that gets a new event file every epoch), TIANSHOU's TensorboardLogger (one run folder per task, named by
its start time, test returns at env_step beside training returns at collect steps and update / info / save scalars on
gradient-step and epoch axes in the same file; runs resumed from the log into a second event file) and JAXUED's PLR
maze example (a W&B run logged without `step=`, its `solve_rate/*` and `return/*` keys put on `num_updates` by
`define_metric`, W&B images in the same rows, aggregate `solve_rate/mean` keys beside the levels):

  d3rlpy_maze / d3rlpy_loco  takuseno/d3rlpy@38c34b6f99fde82875e2ad81d1ba1f7a7da34137:
             d3rlpy/logging/tensorboard_adapter.py:43-44 the writer in `{root_dir}/runs/{experiment_name}`; :57
             `write_metric` = `add_scalar(f"metrics/{name}", value, epoch)`; :60-66 `after_write_metric` =
             `add_hparams(params, metrics, name=experiment_name, global_step=epoch)` once per epoch, which in
             tensorboardX (2.6.5, `SummaryWriter.add_hparams`) opens a new SummaryWriter in the subfolder
             `{experiment_name}` (a new event file every epoch:
             the hparams summaries, then every metric at the epoch, untagged by `metrics/`);
             d3rlpy/logging/logger.py:157-159 `experiment_name + "_" + %Y%m%d%H%M%S`, :175-198 `commit` writes each
             buffered metric's mean (losses and `time_*` first, evaluators last); d3rlpy/algos/qlearning/base.py:524-582
             epochs from 1, `evaluators` dict (`logger.add_metric(name, evaluator(self, dataset))`) after the epoch's
             updates; d3rlpy/metrics/utility.py:12-60 `evaluate_qlearning_with_environment` = the mean return of
             `n_trials` (default 10) episodes. A user's multi-task offline agent (one task-conditioned policy) with one
             `EnvironmentEvaluator` per task named `eval_{task}`. d3rlpy_maze: AntMaze-style sparse tasks (return 1 at
             the goal, else 0: the mean is a success rate of n_trials 5..20 on a 1/n lattice; all tasks one scale).
             d3rlpy_loco: dense locomotion returns on scales of their own (hopper 20..3,300, walker2d 0..4,600,
             halfcheetah -280..11,000, pendulum -1,400..-150, each episode a gaussian return in skill units with rare
             catastrophic falls), and in half the runs a custom evaluator `eval_pusher_dist` (the final distance to the
             goal in metres, 0.9 random to 0.05 learned: lower is better, stated by an `overrides:` glob). EVAL ONLY, 150..400
             epochs. User profile `^metrics/eval_(?P<env>[a-z0-9_]+)$` (metric fixed: success or return).
  tianshou   thu-ml/tianshou@f2402056b03acafeedf2518a5088db55add004ab: tianshou/utils/logger/tensorboard.py:88-100
             `write(step_type, step, data)` = `add_scalar(step_type, step, step)` (e.g. `test/env_step` whose value is
             its step) then `{scope}/{k}` for every flattened key (:47-86, `returns_stat/mean`, …; None and arrays left
             out); :105-125 `save/epoch|env_step|gradient_step` at their own axes when a checkpoint is saved; :127-145
             `restore_data` (resume from the log: epoch, env_step, gradient step from the last `save/*`);
             tianshou/utils/logger/logger_base.py:78-125 `training/env_step` (every >= training_interval = 1000 env
             steps), `test/env_step`, `update/update_step` (every >= 1000 updates), `info/epoch`;
             tianshou/trainer.py:445-466 reset (restore, then an initial test step at the restored env_step), :600-624
             training stats after each collect, `save_data` then the epoch's test, `info` at the epoch, :660-672 the
             test collect of `test_step_num_episodes`; tianshou/data/collector.py:117-147 CollectStats
             (`returns_stat` None when no episode ended in a collect: its keys are then absent);
             examples/mujoco/mujoco_ppo.py:183-184 `log/{task}/{algo}/{seed}/{now}` (`now` = %y%m%d-%H%M%S). A
             sequential curriculum of 3..5 classic-control tasks (CartPole 22..500 capped, Acrobot -500..-75 floored at
             its timeout, MountainCar -200..-110, LunarLander -220..240 with crashes, Pendulum -1,400..-150), each task a
             run folder of its own whose name is its start time: the user profile's `env: "{run}"` makes that time the
             env id. Test every epoch (epoch_num_steps 5,000..20,000, the initial test at 0) over 10..100 episodes,
             training stats every collect (1,000..4,000 env steps); 60..200 epochs; 40 % of the task runs die at
             40..75 % and are resumed from the log (`resume_from_log`, `save_interval` 1..5 epochs) into a second event
             file, rewriting the epochs since the last save. User profile: `test/returns_stat/mean` (eval) and
             `training/returns_stat/mean` (train) as `return`, `test|training/n_collected_episodes` as `count_metric`.
  jaxued     DramaCow/jaxued@0f8f1284677375b889e4f13a32c9617cd009f8c4: examples/maze_plr.py:405 `wandb.init(config,
             project, group=config["run_name"], tags)`; :408-414 `define_metric("num_updates")`, `("solve_rate/*",
             step_metric="num_updates")`, likewise `level_sampler/*`, `agent/*`, `return/*`, `eval_ep_lengths/*`;
             :416-453 `log_eval`: `num_updates`, `num_env_steps`, `sps`, `solve_rate/{level}` and `solve_rate/mean`,
             `return/{level}` and `return/mean`, `eval_ep_lengths/mean`, the level sampler's log (:375-383
             `level_sampler/size|episode_count|max_score|weighted_score|mean_score`, `num_dr_updates`, …) and
             `images/*` (wandb.Image), then `wandb.log(log_dict)` WITHOUT step=; :750-758 eval every `eval_freq`
             updates, solve rate = the share of `eval_num_attempts` (default 10) attempts with a positive return;
             :846-858 the eight prefab eval levels (`SixteenRooms`, `Labyrinth2`, …). Eval levels are all evaluated from
             the first eval (the PLR curriculum trains on generated levels): EVAL ONLY, 120..360 evals, eval_freq 50..500,
             4..8 levels, attempts 5..20. (Videos left out: wandb.Video needs moviepy.) User profile:
             `^solve_rate/(?P<env>[A-Z][A-Za-z0-9]*)$` (the capital keeps `solve_rate/mean` out: RE2 has no lookahead)
             and `return/{level}` beside it; steps from the `define_metric` axis.

Truth. Each env has a skill s in [0, 1] per judged point i (d3rlpy epoch, tianshou test epoch, jaxued eval); its
judged value's expectation is about A + (B - A) s (rates: A 0, B 1, a Binomial(n, s) / n; returns: the mean of n
episodes, each A + (B - A) clip(s + sd_ep N(0, 1)), now and then a catastrophe). A d3rlpy_maze or jaxued run's envs start
within 0.03 of its s0 and top within 0.03 of its s1 (one scale: mazes of one agent); d3rlpy_loco tasks and tianshou
tasks have scales of their own. Learners rise from s0 to s1 over T = 0.8..2.5 W points (exp, logistic, sqrt or
linear) and hold.
  G  eval interval      steps between judged points (d3rlpy 1 epoch, tianshou epoch_num_steps, jaxued eval_freq)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 G), in steps (20..40 points)
  Q  tolerance unit     max over the run's envs of max(W / 10, G) = `tolerance_unit` in plan.json; a detection matches
                        a label within 2 Q (the scorer)
"Graduated" (truth) = s has reached s0 + 0.9 (s1 - s0) and then held 0.3 W more.

Labels (onset in steps; "first point" = the env's first judged point at or after the event's true start; one label an
env; the first two envs of a run are clean learners, each later env carries an event with probability 0.65; tianshou
runs are one env each, so each of its tasks carries an event with probability 0.55):
  graduated_regression   after graduation + max(W, 10 points): sudden or gradual (straight ramp in s over 0.5..1.5 W)
                         fall to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W,
                         15 points) left). Onset = first point at which s keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point; freeze: a linear
                         rise over 0.4..0.8 W to 0.2..0.5 of the gain, then flat and active >= 5 W to the end, onset =
                         first point of the flat. Only where the README says a stall can be told: rates (d3rlpy_maze,
                         jaxued: both kinds), a run's only env that never learned (tianshou: never only); none in
                         d3rlpy_loco (a never-learner beside siblings on other scales "stays unjudged", a freeze on a
                         scale of its own is its top for all the log shows)
  performance_volatility after graduation + max(W, 10 points): burst (max(W, 20 points) of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, one draw a point, then calm >= max(W, 15 points) to the end; onset =
                         first point whose expected value is off by > max(0.15 gain, 4 sd of one point)); switch (Markov:
                         s1 and s1 - 0.4..0.6 gain, dwells of 6..18 points, >= 9 phases, to the end; onset = first point of
                         the first low phase)
  prolonged_training     tianshou only: a steady riser, LINEAR in s (0.62 of the gain over the whole run); onset = its
                         first point + 10 Wp, Wp = max(min(100 steps, 10 % of the span), 20 collects): the README's
                         prolonged window holds 20 points of the env's TRAINING logging (one a collect). In the rates of
                         d3rlpy_maze and jaxued a linear riser of 10 windows and more cannot show a significant rise in
                         every window with a few dozen attempts a point (see Visibility), so none is labelled there
  (eval_gap, unexpected_transition: none of these conventions stops an eval or logs states)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (trials halved until the gain is 5..8
sd), slow_learner (T 3..4.5 W, graduates), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one judged point at s0 + 0.05 gain after graduation).

Visibility (sd of one judged point simulated with the convention's own averaging; the trials a point averages —
n_trials, test episodes, eval attempts — are doubled up to 3 times until it holds, else the env becomes a clean
learner): regression drop >= 4 sd; stall rise >= 5 sd, a never-learner's gap to the top >= 6 sd; switching gap >= 5 sd;
burst sd >= 4 x base sd; prolonged riser: its rise over a window >= 4 standard errors of a line's slope fitted to the
window's points; healthy gain >= 8 sd (noisy 5..8).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - tianshou's env ids are the run folders' names (`{now}`), as `env: "{run}"` is documented ("the run folder's");
    each task is a run of its own, so no tianshou env has siblings;
  - a JaxUED run's `run_name` (its W&B group) is unique per run: seeds sharing one would be read as one run;
  - d3rlpy's per-epoch `add_hparams` event files are written as tensorboardX writes them, one file an epoch.
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
SMALL_RUNS = 6
CYCLE = ("d3rlpy_maze", "tianshou", "jaxued", "d3rlpy_loco", "tianshou", "jaxued")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
_D3RLPY = """\
profiles:
  d3rlpy_eval:
    patterns:
      - {regex: '^metrics/eval_(?P<env>[a-z0-9_]+)$', split: eval, metric: %s}
    performance_metric: %s
profile: d3rlpy_eval
"""
CONFIGS = {
    "d3rlpy_maze": _D3RLPY % ("success", "success"),
    "d3rlpy_loco": _D3RLPY % ("return", "return") + "overrides:\n  - {env: \"*_dist\", direction: lower}\n",
    "tianshou": """\
profiles:
  tianshou:
    patterns:
      - {regex: '^test/returns_stat/mean$', env: "{run}", split: eval, metric: return}
      - {regex: '^training/returns_stat/mean$', env: "{run}", split: train, metric: return}
      - {regex: '^(?P<split>test|training)/n_collected_episodes$', env: "{run}", metric: episodes}
    performance_metric: return
    count_metric: episodes
profile: tianshou
""",
    "jaxued": """\
profiles:
  jaxued:
    patterns:
      - {regex: '^solve_rate/(?P<env>[A-Z][A-Za-z0-9]*)$', split: eval, metric: solve_rate}
      - {regex: '^return/(?P<env>[A-Z][A-Za-z0-9]*)$', split: eval, metric: return}
    performance_metric: solve_rate
profile: jaxued
""",
}
MAZES = ("umaze", "umaze_diverse", "medium_play", "medium_diverse", "large_play", "large_diverse", "ultra_play",
         "ultra_diverse")
LOCO = {  # task: (A random, B learned, sd of one episode in skill units, catastrophe probability, cap)
    "hopper": (20.0, 3300.0, 0.12, 0.06, 1.05),
    "walker2d": (0.0, 4600.0, 0.10, 0.05, 1.05),
    "halfcheetah": (-280.0, 11000.0, 0.04, 0.0, 1.05),
    "pendulum": (-1400.0, -150.0, 0.08, 0.02, 1.0),
    "pusher_dist": (0.9, 0.05, 0.15, 0.04, 1.0),
}
TASKS = {  # classic control for tianshou: (A, B, sd_ep, catastrophe, cap, floor, episode length)
    "CartPole-v1": (22.0, 500.0, 0.15, 0.03, 1.0, 0.0, 250),
    "Acrobot-v1": (-500.0, -75.0, 0.05, 0.04, 1.03, 0.0, 150),
    "MountainCar-v0": (-200.0, -110.0, 0.10, 0.02, 1.05, 0.0, 160),
    "LunarLander-v2": (-220.0, 240.0, 0.12, 0.06, 1.05, -0.3, 300),
    "Pendulum-v1": (-1400.0, -150.0, 0.08, 0.02, 1.0, -0.05, 200),
}
LEVELS = ("SixteenRooms", "SixteenRooms2", "Labyrinth", "LabyrinthFlipped", "Labyrinth2", "StandardMaze",
          "StandardMaze2", "StandardMaze3")


@dataclass
class Env:
    name: str            # the env id curriwatch reports (tianshou: the run folder's name)
    task: str
    L: int               # judged points
    G: int               # steps between judged points
    step0: int           # step of point 0
    s0: float
    s1: float
    T: float
    A: float = 0.0
    B: float = 1.0
    kind: str = "rate"   # rate | ret
    n0: int = 10         # trials a judged point averages
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    at: float | None = None
    knob: float = 1.0
    params: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(round(self.n0 * self.knob))


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


# --- observation: what one logged value averages ----------------------------------------------------

def episodes(env: Env, s: np.ndarray, n: np.ndarray, rng, explore: float = 0.0) -> np.ndarray:
    """Per point: the mean of n[i] outcomes at skill s[i] (NaN where n is 0)."""
    s = np.asarray(s, float)
    n = np.asarray(n, int)
    out = np.full(len(s), np.nan)
    if env.kind == "rate":
        ok = n > 0
        out[ok] = rng.binomial(n[ok], np.clip(s[ok], 0, 1)) / n[ok]
        return out
    sd, cat, cap, floor = env.params["sd_ep"], env.params["cat"], env.params["cap"], env.params["floor"]
    tot = int(n.sum())
    if tot == 0:
        return out
    idx = np.repeat(np.arange(len(s)), n)
    si = np.clip(s[idx] - explore, 0, 1)
    u = si + (sd * (1 + 2 * explore)) * rng.standard_normal(tot)
    bad = rng.random(tot) < cat
    u = np.where(bad, rng.uniform(floor, np.maximum(si, 0.1) * 0.5), u)
    u = np.clip(u, floor, cap)
    r = env.A + (env.B - env.A) * u
    sums = np.bincount(idx, weights=r, minlength=len(s))
    ok = n > 0
    out[ok] = sums[ok] / n[ok]
    return out


def point_sd(env: Env, s: float) -> float:
    rng = np.random.default_rng(12345)
    v = episodes(env, np.full(400, s), np.full(400, max(env.n, 1)), rng)
    return float(np.std(v))


def point_mean(env: Env, s: float) -> float:
    rng = np.random.default_rng(54321)
    return float(np.mean(episodes(env, np.full(400, s), np.full(400, max(env.n, 1)), rng)))


def gain_E(env: Env, lo: float, hi: float) -> float:
    """|expected value at hi - at lo| (what a change of skill from lo to hi moves the judged value)."""
    return abs(point_mean(env, hi) - point_mean(env, lo))


# --- truth --------------------------------------------------------------------------------------------

def window_pts(env: Env, span_steps: float) -> float:
    return max(min(100.0, 0.1 * span_steps), 20.0 * env.G) / env.G


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
        s = env.s0 + g * f_curve(env.curve, np.maximum(x - p.get("delay", 0.0), 0.0) / env.T)
    if v == "sudden":
        s = np.where(x >= env.at, env.s0 + p["keep"] * g, s)
    elif v == "gradual":
        R, keep_s = p["R"], env.s0 + p["keep"] * g
        ramp = (x >= env.at) & (x < env.at + R)
        s = np.where(ramp, env.s1 + (keep_s - env.s1) * (x - env.at) / R, s)
        s = np.where(x >= env.at + R, keep_s, s)
    elif v == "burst":
        k = np.floor(x - env.at).astype(int)
        inb = (k >= 0) & (k < p["length"])
        drops = np.asarray(p["drops"])
        s = np.where(inb, env.s1 - drops[np.clip(k, 0, len(drops) - 1)], s)
    elif v == "switch":
        for lo, hi in p["phases"]:
            s = np.where((x >= lo) & (x < hi), env.s1 - p["gap"] * g, s)
    elif v == "level_shift":
        s = np.where(x >= env.at, env.s1 + p["shift"] * g, s)
    return np.clip(s, 0, 1)


def learn_end(env: Env, W: float) -> int:
    x = np.arange(env.L, dtype=float)
    u = np.maximum(x - env.params.get("delay", 0.0), 0.0) / env.T
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, u)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    return int(math.ceil(hit[0] + 0.3 * W)) if len(hit) else env.L


def set_knob(env: Env, k: float) -> None:
    env.knob = k


def visible(env: Env, check) -> bool:
    base = env.knob
    for k in (1.0, 2.0, 4.0, 8.0):
        set_knob(env, base * k)
        if check():
            return True
    set_knob(env, base)
    return False


def place(run: dict, env: Env, ev: str, W: float, rng) -> bool:
    L = env.L
    g = env.s1 - env.s0
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
        # what the README says can be known: a rate's range reaches its best, so a freeze or a never-learner among
        # rates is a stall; the only env of a run (tianshou) that never learned is stalled, but a freeze on a scale of
        # its own is a top for all the log shows; a never-learner beside siblings on other scales (d3rlpy_loco)
        # "stays unjudged" — none labelled there
        conv = run["convention"]
        if conv == "d3rlpy_loco":
            return False
        variant = "never" if conv == "tianshou" else str(rng.choice(["never", "freeze"]))
        if variant == "never":
            if L < 6 * W:
                return False
            env.event, env.variant = ev, variant
            return visible(env, lambda: gain_E(env, env.s0, env.s1) >= 6 * point_sd(env, env.s0))
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
        variant = str(rng.choice(["burst", "switch"]))
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
        # tianshou only: the README's prolonged window holds 20 points of the env's TRAINING logging (a collect each),
        # 10 of them are Wp points of its evals; a rate of a few dozen attempts can show no steady rise window by window
        Wp = env.params.get("W_pro_steps", 0) / env.G
        if run["convention"] != "tianshou" or run.get("n_risers", 0) >= 2 or Wp <= 0 or L - 1 < 10 * Wp + 10:
            return False
        rate = 0.62 / max(L - 1, 1)
        env.event, env.variant = ev, "riser"
        env.params.update(rate=rate)

        def riser_ok():
            sd = point_sd(env, env.s0 + 0.3 * g)
            se_slope_window = sd * math.sqrt(12.0 / max(W, 3))
            return gain_E(env, env.s0, env.s0 + rate * g * W) >= 4 * se_slope_window
        if visible(env, riser_ok):
            run["n_risers"] = run.get("n_risers", 0) + 1
            return True
        return False
    raise ValueError(ev)


def apply_negative(env: Env, neg: str, W: float, rng) -> None:
    L, g = env.L, env.s1 - env.s0
    env.event = env.variant = neg
    if neg == "noisy_healthy":
        for _ in range(6):
            if gain_E(env, env.s0, env.s1) / max(point_sd(env, 0.5 * (env.s0 + env.s1)), 1e-9) < 8 or env.n <= 1:
                break
            set_knob(env, env.knob * 0.5)
        if gain_E(env, env.s0, env.s1) < 5 * point_sd(env, 0.5 * (env.s0 + env.s1)):
            set_knob(env, env.knob * 2)
    elif neg == "slow_learner":
        T = float(rng.uniform(3.0, 4.5)) * W
        if T + 2 * W < L:
            env.T = T
        else:
            env.event = env.variant = "healthy"
    elif neg == "level_shift":
        grad = learn_end(env, W)
        shift = float(rng.uniform(0.04, 0.06))
        room = env.s1 + shift * g <= (0.995 if env.kind == "rate" else env.params.get("cap", 1.0) - 0.02)
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


NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")


def assign(run: dict, env: Env, W: float, p_event: float, pool: list[str], rng) -> None:
    """Base visibility, then an event (probability p_event) or a clean negative."""
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


# --- planning -------------------------------------------------------------------------------------------

def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility"]
    envs: list[Env] = []
    if conv.startswith("d3rlpy"):
        N = int(rng.integers(150, 401))
        run.update(N=N, G=1)
        if conv == "d3rlpy_maze":
            names = [str(x) for x in rng.permutation(MAZES)[:int(rng.integers(3, 7))]]
            s0r, s1r = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.82, 0.97))
            n0 = int(rng.choice([5, 10, 10, 20]))
            for nm in names:
                envs.append(Env(nm, nm, N, 1, 1, float(np.clip(s0r + rng.uniform(-0.03, 0.03), 0.0, 1)),
                                float(np.clip(s1r + rng.uniform(-0.03, 0.03), 0, 0.99)), 0.0, kind="rate", n0=n0))
        else:
            names = [str(x) for x in rng.permutation(["hopper", "walker2d", "halfcheetah", "pendulum"])[:int(
                rng.integers(2, 5))]]
            if rng.random() < 0.5:
                names.append("pusher_dist")
            n0 = int(rng.choice([5, 10]))
            for nm in names:
                A, B, sd, cat, cap = LOCO[nm]
                e = Env(nm, nm, N, 1, 1, float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.82, 0.95)), 0.0, A, B,
                        kind="ret", n0=n0)
                e.params.update(sd_ep=sd * float(rng.uniform(0.7, 1.4)), cat=cat, cap=cap, floor=-0.05)
                envs.append(e)
        span = N - 1
    elif conv == "jaxued":
        G = int(rng.choice([50, 100, 250, 500]))
        N = int(rng.integers(260, 361)) if rng.random() < 0.5 else int(rng.integers(120, 251))
        run.update(N=N, G=G, attempts=int(rng.choice([5, 10, 10, 20])), run_name=f"plr_{run['name']}",
                   num_train_envs=int(rng.choice([32, 64])), num_steps=256)
        names = [str(x) for x in rng.permutation(LEVELS)[:int(rng.integers(4, 9))]]
        s0r, s1r = float(rng.uniform(0.0, 0.12)), float(rng.uniform(0.8, 0.97))
        for nm in names:
            envs.append(Env(nm, nm, N, G, G, float(np.clip(s0r + rng.uniform(-0.03, 0.03), 0.0, 1)),
                            float(np.clip(s1r + rng.uniform(-0.03, 0.03), 0, 0.99)), 0.0, kind="rate",
                            n0=run["attempts"]))
        span = (N - 1) * G
    else:  # tianshou: one run folder per task, a sequential curriculum
        E = int(rng.choice([5000, 8000, 10000, 20000]))
        collect = int(rng.choice([c for c in (1000, 2000, 2500, 4000) if E % c == 0 and E // c <= 10]))
        run.update(G=E, collect=collect, algo=str(rng.choice(["ppo", "a2c", "dqn"])), seed_arg=int(rng.integers(0, 5)))
        tasks = [str(x) for x in rng.permutation(list(TASKS))[:int(rng.integers(3, 6))]]
        t = 1767225600 + int(rng.integers(0, 86400 * 200))  # 2026
        n_test = int(rng.choice([10, 20, 50, 100]))
        for task in tasks:
            N = int(rng.integers(60, 201))
            import datetime as _dt
            now = _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%y%m%d-%H%M%S")
            A, B, sd, cat, cap, floor, ep_len = TASKS[task]
            e = Env(now, task, N + 1, E, 0, float(rng.uniform(0.0, 0.06)), float(rng.uniform(0.85, 0.97)), 0.0, A, B,
                    kind="ret", n0=n_test)
            e.params.update(sd_ep=sd * float(rng.uniform(0.7, 1.4)), cat=cat, cap=cap, floor=floor, ep_len=ep_len,
                            start_time=t)
            if rng.random() < 0.4:
                crash = int(N * rng.uniform(0.4, 0.75))
                save_every = int(rng.choice([1, 2, 5]))
                e.params["resume"] = {"crash": crash, "ckpt": crash - crash % save_every, "save_interval": save_every}
            envs.append(e)
            t += int(N * E / 2500) + int(rng.integers(60, 900))  # the next task starts when this one is done
        span = None
    run["envs"] = envs
    for k, env in enumerate(envs):
        sp = span if span is not None else (env.L - 1) * env.G
        W = window_pts(env, sp)
        env.params["W"] = W
        if conv == "tianshou":  # prolonged: 10 windows of 20 training points (one a collect)
            env.params["W_pro_steps"] = max(min(100.0, 0.1 * sp), 20.0 * run["collect"])
        env.T = float(rng.uniform(0.8, 2.5)) * W
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        if conv == "tianshou":
            assign(run, env, W, 0.55, pool + ["prolonged_training"], rng)
        elif k < 2:
            assign(run, env, W, 0.0, pool, rng)
        else:
            assign(run, env, W, 0.65, pool, rng)


# --- observation ------------------------------------------------------------------------------------------

def observe(run: dict, rng) -> dict:
    out = {}
    for env in run["envs"]:
        x = np.arange(env.L, dtype=float)
        s = truth(env, x)
        v = episodes(env, s, np.full(env.L, max(env.n, 1)), rng)
        if env.variant == "single_outlier":
            v = v.copy()
            v[int(env.at)] = point_mean(env, env.s0 + 0.05 * (env.s1 - env.s0))
        steps = env.step0 + np.arange(env.L, dtype=np.int64) * env.G
        out[env.name] = {"steps": steps, "v": v, "s": s}
    return out


# --- labelling ----------------------------------------------------------------------------------------------

def label_for(run: dict, env: Env, d: dict) -> list[dict]:
    if env.event not in EVENTS:
        return []
    steps, s = d["steps"], d["s"]
    g = env.s1 - env.s0
    W = env.params["W"]
    v, p = env.variant, env.params

    def first_at(i0):
        ok = np.flatnonzero(np.arange(env.L) >= i0)
        return int(steps[ok[0]]) if len(ok) else None

    if v == "never":
        onset = first_at(0)
    elif v == "freeze":
        onset = first_at(int(math.ceil(p["R"])))
    elif v == "riser":
        onset = int(steps[0] + round(10 * env.params["W_pro_steps"]))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(env.L) >= env.at) & (s < env.s0 + 0.85 * g - 1e-12))
        onset = first_at(int(below[0])) if len(below) else None
    elif v == "burst":
        sd = point_sd(env, env.s1)
        gE = gain_E(env, env.s0, env.s1)
        onset = None
        for lim in (max(0.15 * gE, 4 * sd), 0.15 * gE):
            for i in range(int(env.at), int(env.at) + p["length"]):
                if i < env.L and gain_E(env, s[i], env.s1) > lim:
                    onset = int(steps[i])
                    break
            if onset is not None:
                break
        if onset is None:
            onset = first_at(int(env.at))
    elif v == "switch":
        onset = first_at(p["phases"][0][0])
    else:
        raise ValueError(v)
    if onset is None:
        return []
    return [dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                 shape=f"{run['convention']}/{env.variant}", variant=env.variant, task=env.task)]


# --- writers ------------------------------------------------------------------------------------------------

def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def _tb_file(folder: Path, points: list[tuple[int, str, float, float]], name: str) -> None:
    """Write (step, tag, value, walltime) points in order with tensorboardX into `folder/name`."""
    from tensorboardX import SummaryWriter

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        for step, tag, value, wall in points:
            w.add_scalar(tag, float(value), int(step), walltime=wall)
        w.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, folder / name)


def _hparams_file(path: Path, params: dict, metrics: dict, epoch: int, wall: float) -> None:
    """What tensorboardX's add_hparams writes into its subfolder's new event file: the file version, the three
    hparams summaries (no step), then each metric as a scalar at global_step."""
    from tensorboardX.proto import event_pb2
    from tensorboardX.record_writer import RecordWriter
    from tensorboardX.summary import hparams, scalar

    exp, ssi, sei = hparams(params, metrics)
    rw = RecordWriter(str(path))
    rw.write(event_pb2.Event(wall_time=wall, file_version="brain.Event:2").SerializeToString())
    for summ in (exp, ssi, sei):
        rw.write(event_pb2.Event(wall_time=wall, summary=summ).SerializeToString())
    for k, v in metrics.items():
        rw.write(event_pb2.Event(wall_time=wall, step=epoch, summary=scalar(k, float(v))).SerializeToString())
    rw.flush()
    rw.close()


ALGO_LOSSES = {"CQL": ("critic_loss", "conservative_loss", "alpha", "actor_loss", "temp_loss", "temp"),
               "IQL": ("critic_loss", "q_loss", "v_loss", "actor_loss"),
               "TD3PlusBC": ("critic_loss", "actor_loss")}


def write_d3rlpy(folder: Path, run: dict, data: dict, rng) -> None:
    algo = str(rng.choice(list(ALGO_LOSSES)))
    stamp = 20260101000000 + int(rng.integers(0, 10 ** 6))
    exp = f"{algo}_{'multimaze' if run['convention'] == 'd3rlpy_maze' else 'multitask'}_{stamp}"
    run["experiment"] = exp
    logdir = folder / "tensorboard_logs" / "runs" / exp
    sub = logdir / exp
    sub.mkdir(parents=True, exist_ok=True)
    params = {"batch_size": int(rng.choice([256, 512])), "gamma": 0.99, "actor_learning_rate": 3e-4,
              "critic_learning_rate": 3e-4, "n_critics": 2, "tau": 0.005}
    host = "dgx-07"
    wall0 = 1.7672e9 + float(rng.integers(0, 10 ** 6))
    secs = float(rng.uniform(40, 200))
    pts = []
    for i in range(run["N"]):
        epoch = i + 1
        wall = wall0 + secs * epoch
        frac = epoch / run["N"]
        metrics = {"time_sample_batch": 0.0011 + rng.normal(0, 1e-4), "time_algorithm_update": 0.006 + rng.normal(0, 4e-4)}
        for k in ALGO_LOSSES[algo]:
            metrics[k] = float(abs(rng.normal(1.0 - 0.6 * frac, 0.05)) * (10 if k == "critic_loss" else 1))
        metrics["time_step"] = metrics["time_sample_batch"] + metrics["time_algorithm_update"] + 1e-4
        for env in run["envs"]:
            metrics[f"eval_{env.name}"] = float(data[env.name]["v"][i])
        for k, v in metrics.items():
            pts.append((epoch, f"metrics/{k}", v, wall))
        _hparams_file(sub / f"events.out.tfevents.{int(wall)}.{host}", params, metrics, epoch, wall)
    _tb_file(logdir, pts, f"events.out.tfevents.{int(wall0)}.{host}")


def tianshou_points(env: Env, run: dict, s_fn, x_lo: float, x_hi: float, epochs: range, rng, wall0: float,
                    initial: bool) -> list[tuple[int, str, float, float]]:
    """The TensorboardLogger writes of one trainer process: training stats after each collect in (x_lo, x_hi] epochs,
    save/test/info at each epoch end, update stats every 1000 training steps; an initial test at x_lo first."""
    E, collect = env.G, run["collect"]
    per_epoch = E // collect
    pts = []
    ep_len = env.params["ep_len"]
    wall = lambda st: wall0 + st / 2500.0  # noqa: E731

    def test(step, value):
        st = int(step)
        n = env.n
        pts.append((st, "test/env_step", st, wall(st)))
        for k, v in (("n_collected_episodes", n), ("n_collected_steps", n * ep_len), ("collect_time", n * ep_len / 8000),
                     ("collect_speed", 8000.0 + rng.normal(0, 300)), ("returns_stat/mean", value),
                     ("returns_stat/std", abs(env.B - env.A) * env.params["sd_ep"]),
                     ("returns_stat/max", value + abs(env.B - env.A) * 0.1),
                     ("returns_stat/min", value - abs(env.B - env.A) * 0.2),
                     ("lens_stat/mean", ep_len), ("lens_stat/std", ep_len * 0.1)):
            pts.append((st, f"test/{k}", float(v), wall(st)))

    d = s_fn
    if initial:
        i0 = int(round(x_lo))
        test(i0 * E, d["v"][i0])
    upd = int(x_lo * per_epoch)
    for ep in epochs:
        for c in range(per_epoch):
            st = (ep - 1) * E + (c + 1) * collect
            x = st / E
            upd += 1
            k = int(rng.poisson(collect / ep_len))
            sx = truth(env, np.array([x]))
            val = episodes(env, sx, np.array([k]), rng, explore=0.03)[0]
            pts.append((st, "training/env_step", st, wall(st)))
            for key, v in (("n_collected_episodes", k), ("n_collected_steps", collect), ("collect_time", collect / 9000),
                           ("collect_speed", 9000.0 + rng.normal(0, 400))):
                pts.append((st, f"training/{key}", float(v), wall(st)))
            if k > 0:  # returns_stat / lens_stat are None (left out) when no episode ended in the collect
                pts.append((st, "training/returns_stat/mean", float(val), wall(st)))
                pts.append((st, "training/returns_stat/std", abs(env.B - env.A) * env.params["sd_ep"] * 1.1, wall(st)))
                pts.append((st, "training/lens_stat/mean", float(ep_len), wall(st)))
            if upd % 1000 == 0:
                pts.append((upd, "update/update_step", upd, wall(st)))
                for key in ("loss", "loss/clip", "loss/vf", "loss/ent"):
                    pts.append((upd, f"update/{key}", float(rng.normal(0.1, 0.02)), wall(st)))
        st = ep * E
        rs = env.params.get("resume")
        if rs is None or ep % rs["save_interval"] == 0:
            pts.append((ep, "save/epoch", ep, wall(st)))
            pts.append((st, "save/env_step", st, wall(st)))
            pts.append((upd, "save/gradient_step", upd, wall(st)))
        test(st, d["v"][ep])
        pts.append((ep, "info/epoch", ep, wall(st)))
        for key, v in (("gradient_step", upd), ("train_step", st), ("best_reward", float(np.max(d["v"][:ep + 1]))),
                       ("timing/total_time", st / 2500.0), ("timing/update_speed", 120.0 + rng.normal(0, 5))):
            pts.append((ep, f"info/{key}", float(v), wall(st)))
    return pts


def write_tianshou(plan_folder: Path, run: dict, data: dict, redo: dict, rng) -> None:
    host = "lab-ws2"
    for env in run["envs"]:
        folder = plan_folder / "log" / env.task / run["algo"] / str(run["seed_arg"]) / env.name
        t0 = float(env.params["start_time"])
        N = env.L - 1
        rs = env.params.get("resume")
        if not rs:
            pts = tianshou_points(env, run, data[env.name], 0, N, range(1, N + 1), rng, t0, True)
            _tb_file(folder, pts, f"events.out.tfevents.{int(t0)}.{host}.{4000 + int(rng.integers(999))}.0")
            continue
        pts = tianshou_points(env, run, data[env.name], 0, rs["crash"], range(1, rs["crash"] + 1), rng, t0, True)
        _tb_file(folder, pts, f"events.out.tfevents.{int(t0)}.{host}.{4000 + int(rng.integers(999))}.0")
        t1 = t0 + N * env.G / 2500.0 * 0.7 + 3600
        pts2 = tianshou_points(env, run, redo[env.name], rs["ckpt"], N, range(rs["ckpt"] + 1, N + 1), rng,
                               t1 - rs["ckpt"] * env.G / 2500.0, True)
        _tb_file(folder, pts2, f"events.out.tfevents.{int(t1)}.{host}.{4000 + int(rng.integers(999))}.0")


def write_jaxued(folder: Path, run: dict, data: dict, rng) -> None:
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    G, N = run["G"], run["N"]
    rid = f"{run['seed'] % 36 ** 6:06x}{run['name'][1:4]}"
    config = {"run_name": run["run_name"], "eval_freq": G, "eval_num_attempts": run["attempts"],
              "eval_levels": [e.name for e in run["envs"]], "num_updates": N * G, "num_train_envs":
              run["num_train_envs"], "num_steps": run["num_steps"], "use_accel": bool(rng.random() < 0.5),
              "exploratory_grad_updates": False, "seed": int(rng.integers(0, 10))}
    img = np.zeros((26, 26, 3), dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(config=config, project="JAXUED_TEST", group=config["run_name"], id=rid, mode="offline",
                        dir=tmp, tags=["ACCEL" if config["use_accel"] else "PLR"],
                        settings=wandb.Settings(x_disable_stats=True, console="off"))
        wr.define_metric("num_updates")
        wr.define_metric("num_env_steps")
        for k in ("solve_rate/*", "level_sampler/*", "agent/*", "return/*", "eval_ep_lengths/*"):
            wr.define_metric(k, step_metric="num_updates")
        for i in range(N):
            upd = (i + 1) * G
            env_steps = upd * run["num_train_envs"] * run["num_steps"]
            row = {"num_updates": upd, "num_env_steps": env_steps, "sps": float(40000 + rng.normal(0, 2000))}
            rates, rets = [], []
            for env in run["envs"]:
                sr = float(data[env.name]["v"][i])
                # a solved attempt's return is 1 - 0.9 steps / max steps (MiniGrid-style), failed ones 0
                n = env.n
                k = int(round(sr * n))
                ret = float(np.sum(1 - 0.9 * rng.uniform(0.1, 0.6, k)) / n) if n else 0.0
                row[f"solve_rate/{env.name}"] = sr
                row[f"return/{env.name}"] = ret
                rates.append(sr)
                rets.append(ret)
            row["solve_rate/mean"] = float(np.mean(rates))
            row["return/mean"] = float(np.mean(rets))
            row["eval_ep_lengths/mean"] = float(250 - 150 * np.mean(rates) + rng.normal(0, 5))
            frac = (i + 1) / N
            row.update({"level_sampler/size": float(min(4000, 40 * (i + 1))), "level_sampler/episode_count":
                        float(upd * 3), "level_sampler/max_score": float(0.3 + rng.normal(0, 0.02)),
                        "level_sampler/weighted_score": float(0.1 + 0.05 * frac), "level_sampler/mean_score":
                        float(0.05 + rng.normal(0, 0.005)), "num_dr_updates": int(upd * 0.45),
                        "num_replay_updates": int(upd * 0.55), "num_mutation_updates": 0})
            if i % 5 == 0:
                img[:] = (i * 7) % 255
                row["images/highest_scoring_level"] = wandb.Image(img, caption="Highest scoring level")
            wr.log(row)
        wr.finish()
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
        wait_until_complete(src)
        dest = folder / "wandb" / f"offline-run-20260101_000000-{rid}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


# --- build ----------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    data = observe(run, np.random.default_rng(run["seed"] + 1))
    folder = root / conv / run["name"]
    wrng = np.random.default_rng(run["seed"] + 2)
    if conv.startswith("d3rlpy"):
        write_d3rlpy(folder, run, data, wrng)
    elif conv == "jaxued":
        write_jaxued(folder, run, data, wrng)
    else:
        redo = observe(run, np.random.default_rng(run["seed"] + 3))
        write_tianshou(folder, run, data, redo, wrng)
        for env in run["envs"]:  # past the restored epoch the resumed job's points are the last written
            rs = env.params.get("resume")
            if rs:
                a, b = data[env.name], redo[env.name]
                keep = np.arange(env.L) < rs["ckpt"]
                a["v"] = np.where(keep, a["v"], b["v"])
    tol = []
    for env in run["envs"]:
        W = env.params["W"]
        tol.append(max(W * env.G / 10.0, env.G))
        labels.extend(label_for(run, env, data[env.name]))
    meta = {k: v for k, v in run.items() if k != "envs"}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(run["G"]))
    meta["envs"] = [{"name": e.name, "task": e.task, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "L": e.L, "G": e.G, "s0": e.s0, "s1": e.s1, "A": e.A, "B": e.B, "T": e.T, "curve": e.curve,
                     "at": e.at, "n": e.n, "kind": e.kind,
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
    rng = np.random.default_rng([seed, 23])
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
    if isinstance(o, tuple):
        return list(o)
    return str(o)
