"""The tenth detection corpus (`python benchmarks/detection.py --corpus tenth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction,
logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md), without reading
the rules' or the analysis code, and without looking at which cases curriwatch misses. Meant to be read for its
totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-tenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen for what the nine other corpora cover least (their docstrings:
no CleanRL envpool/JAX `avg_episodic_return`, no SB3 off-policy DQN, no Ray Tune trial stepped by
`training_iteration`, no ROLL TensorBoard tracker in its nested `{exp}/{time}/` folder with an `add_hparams`
subfolder, no Gumbel (skewed either way) or multiplicative Gamma noise; beta-binomial rates only in tinker jsonl
(third), never in ROLL; the eighth's regret (by name) goes to 0 with evals denser than training, never with a
positive floor, repeated observations per step and noise proportional to the level):

  cleanrl_envpool  CleanRL `ppo_atari_envpool_xla_jax.py` (tests/rl_writers.cleanrl_ppo_envpool_xla: its calls, with
                 tensorboardX): `charts/avg_episodic_return` ONLY (no per-episode `episodic_return`: README's
                 fallback performance key), `charts/avg_episodic_length`, losses, SPS; run folders
                 `{EnvId}__ppo_atari_envpool_xla_jax__{seed}__{time}`, 1..3 per benchmark run (each its own
                 curriwatch run of one env; no siblings, no shared scale), 1,024 env steps an iteration, 300..560
                 iterations. Atari-like scores a + b s (a 0..30, b 150..3,000). Noise: right-skewed Gumbel (scale
                 beta) or heteroscedastic gaussian (sd grows with the level), plus the writer's own N(0, 1).
  sb3_dqn        Stable-Baselines3 DQN (tests/rl_writers.SB3DQN: off_policy_algorithm's collect_rollouts call for
                 call): `rollout/ep_rew_mean` = the mean of the LAST 100 EPISODES (a rolling mean: 25 dumps), dumped
                 every 4 episodes of 50 steps (200 env steps a point), `rollout/exploration_rate`, `train/loss`;
                 RL-Zoo layout `{run}/{EnvId}/DQN_1` (env = the folder above DQN_1), one env per benchmark run, no
                 EvalCallback. Returns a + b s (a -200..0, b 100..500) with per-episode gaussian noise.
  tune_iter      Ray Tune trial folders (tests/writers.write_tune_trial: Ray's JSON + CSV logger calls) of the
                 RLlib new API stack WITHOUT `timesteps_total` (so README's step is `training_iteration`, 1 a
                 point): `env_runners/episode_return_mean`, `evaluation/env_runners/episode_return_mean` every
                 3..10 iterations (absent from progress.csv, whose header the first result fixed), env from
                 params.json `env`; 1..3 trials per benchmark run, one env each. MuJoCo-like returns that CROSS
                 ZERO (a -600..-100, b 800..4,000). Noise: left-skewed (min-)Gumbel (now and then a bad episode);
                 evals a min-Gumbel of half the scale.
  roll_tb        ROLL's tensorboard tracker (log-conventions.md): tensorboardX SummaryWriter in the NESTED folder
                 `{run}/{exp_name}/{%Y%m%d-%H%M%S}/`, `add_scalar(k, v, global_step=step)` for `env/{tag}/success`,
                 `env/{tag}/num_actions`, `env/all/success`, `system/tps`, `val/env/{tag}/success` every 5..15 steps
                 (or none), plus `add_hparams` (its timestamp SUBFOLDER, tags `…/hparam/final_success`). Success
                 rates over the step's group: binomial over 8..32 episodes, or BETA-BINOMIAL (rho 0.02..0.06:
                 tasks of unequal difficulty), the val set binomial over 64..128. 3..8 tags in 1..3 waves.
  generic_regret generic tensorboardX `train|eval/{env}/regret` (+ `curriculum/{env}/state` 0/1/2 in half the runs),
                 config `performance_metric: regret` and NOTHING about direction: lower is better by the metric's
                 NAME (README: `regret` as a word of the name). Regret r_hi - (r_hi - r_lo) s (r_hi 20..40, r_lo
                 1.5..4: positive, never a rate) with MULTIPLICATIVE GAMMA noise (value = mean x Gamma(k, 1/k), k
                 8..60: skewed, its sd proportional to the level, so largest where the env is worst), 1..3
                 observations per step (combined by the reader) in a third of the runs; steps of 1 or 10 a point,
                 some runs starting late (first step 5,000); evals every 5..20 points (gamma k x 4) or none; 3..8
                 envs in 1..3 waves.

Truth. Each env has a skill curve s (higher is better, in [0, 1]) on the run's point grid (one point an
iteration, from the env's unlock), mapped to its metric by its expected value; noise is drawn around it. A
learner goes from s0 to s1 over T points (exp, logistic, sqrt or linear) and is flat at s1 after. The envs of a
multi-env run share one scale (s0 within 0.02 of the run's, s1 within 0.015). e is the EXPECTED JUDGED series:
s itself, except sb3_dqn, where it is s's rolling mean over the 25 dumps (100 episodes) the logged value averages.
  J  judged interval     the env's training logging interval in steps (one point an iteration everywhere here)
  W  stagnation window   max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation), in steps
  G  eval interval       the env's eval interval, else J
  Q  tolerance unit      the coarsest env of the run: max over its envs of max(W / 10, G), in steps = `tolerance_unit`
                         in plan.json; a detection matches a label within 2 Q (the scorer's rule)
"Graduated" (truth) = e has reached s0 + 0.9 (s1 - s0) and then held max(0.3 W, 3 G) more; logged states go to 2
there. Healthy learners reach their top within 0.8..2.5 W.

Labels (an env carries at most one; onset in steps; "first point" = the env's first logged point, train or eval,
at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp over 0.5..1.5 W) fall
                         of s to s0 + keep (s1 - s0), lasting to the end (>= max(2 W, 15 G)); keep 0.72..0.79 ->
                         warning, 0.1..0.6 -> critical (README: warning below 0.85, critical below 0.70 of the gain).
                         Onset = first point at which e keeps < 0.85 of the gain (README first_step: where the fall
                         crossed the line; for sb3_dqn the rolling mean crosses it up to 25 dumps after s fell)
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point — in a
                         multi-env run beside >= 2 siblings (and half the envs) that learn to the shared top; in a
                         one-env run (cleanrl_envpool, sb3_dqn, tune_iter: returns, not rates) it is README's "only
                         env of a run that never learned". freeze (multi-env runs only): a linear rise of >= max(0.4 W,
                         6 J) to 0.2..0.5 of the gain (a rate never above 0.5), then flat and active >= 5 W to the
                         end; onset = first point of the flat stretch. (A one-env run's freeze is its own top: README
                         graduates it, so it is never made there.)
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) points of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 G); onset = first burst point off by >
                         max(0.15 gain, 4 sd)); switch (Markov: s1 and s1 - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x
                         that, >= 8 changes, to the end; onset = first point of the first low phase); lifelong
                         oscillation of an env that never learns (sinus from activation, mid 0.35..0.55 of the gain,
                         peak-to-peak 0.45..0.7 of it, period 8..25 points, >= 4 periods; >= 10 periods in a one-env
                         run, where README judges a wave without a range against its noise; onset = its first point).
                         Never in sb3_dqn (a 100-episode mean smooths a burst away).
  unexpected_transition  generic_regret with logged states: 2 -> 1 after graduation + margin for 0.5..1.5 W, then 2
                         again; onset = the first logged state point with the backward value
  eval_gap               evaluated envs (tune_iter, roll_tb, generic_regret): after graduation + margin the env's
                         evals stop for the rest of the run (>= max(5 x max(50 steps, G), 2 W) of steps left, README
                         fires past 3 x) while its training goes on; onset = last eval + G (README first_step)
  prolonged_training     a steady linear riser (0.62 of the gain spread over its whole active life of >= 12.5 W, so
                         0.04..0.05 gain per W: it never flattens near the top) active to the end, in a run whose
                         learners graduate within 3 W (no slow learner beside it); onset = its first point + 10 W
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (point sd 0.08..0.14 of the gain,
or binomial over 4..8 trials — README's binomial noise of small batches), heavy_tail (Student t df 3 instead of the
convention's noise; cleanrl_envpool and tune_iter, elsewhere a plain healthy learner), slow_learner (graduates within 4..6 W), level_shift (+0.04..0.06 gain after graduation, where a
rate has room), single_outlier (one point at s0 + 0.05 gain after graduation; not sb3_dqn), and every env of a
later wave.

Noise and visibility (skill units: the share of the gain). The judged series' point sd at every level the event
visits must meet a bound; noise is made quieter (same family: more trials / a larger Gamma k / a smaller scale)
until it does: regression drop >= 4 sd; stall (freeze) rise >= 5 sd, a never-learner's gap to the siblings' top >=
6 sd; switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst base sd <= min(0.04, burst sd / 4); prolonged
riser sd <= 0.015; healthy learners' gain >= 8 sd (noisy_healthy >= 5 sd). sd per family: binomial sqrt(p(1-p)/n)
(beta-binomial x sqrt(1 + (n - 1) rho)); Gamma mean/sqrt(k m) over the metric's span (m observations per step);
Gumbel beta pi / sqrt 6; heteroscedastic gaussian at the level (plus the writer's N(0, 1) in cleanrl_envpool); for
sb3_dqn's rolling mean, 2 x the per-episode sd / 10 (the mean of 100 episodes, doubled for its autocorrelation).
LOW-SIGNAL tier: 30 % of the regressions in cleanrl_envpool, tune_iter and generic_regret train-judged envs are
allowed a drop of only >= 2.5 sd; such a fall lasts >= 2 W = 40 points, and the 2 Q tolerance window holds >= 4
judged points (Q >= W / 10 = 2 J), over which its mean shift is 2.5 sd / (sd / 2) = 5 standard errors: still
plainly visible. Labelled `tier: "low"` (shape `.../low`).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - one-env runs (cleanrl_envpool, sb3_dqn, tune_iter) carry only events README defines without siblings;
  - the tolerance unit is the run's coarsest env's (a run's envs share one grid here, so it is one value);
  - generic_regret's repeated observations of one step are written as separate add_scalar calls at that step;
  - a ROLL benchmark run is the whole `{exp}/{time}/` tree (the scorer names runs by their first path component).
"""
from __future__ import annotations

import json
import math
import os
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 5
CYCLE = ("cleanrl_envpool", "sb3_dqn", "tune_iter", "roll_tb", "generic_regret")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {"generic_regret": "performance_metric: regret\n"}
ATARI = ["Breakout-v5", "Pong-v5", "Seaquest-v5", "Qbert-v5", "Enduro-v5", "Asterix-v5", "Freeway-v5", "Boxing-v5"]
GYM = ["CartPole-v1", "LunarLander-v2", "Acrobot-v1", "MountainCar-v0", "Taxi-v3", "FrozenLake-v1"]
MUJOCO = ["HalfCheetah-v4", "Hopper-v4", "Walker2d-v4", "Ant-v4", "Humanoid-v4", "Swimmer-v4"]
TAGS = ["sokoban", "frozenlake", "webshop", "countdown", "maze", "alfworld", "blackjack", "tictactoe", "gem"]
BANDITS = ["linucb", "thompson", "exp3", "ucb1", "kl_ucb", "epsgreedy", "softmax", "lints", "neural_ucb"]
CURVES = ("exp", "logistic", "sqrt", "linear")
SINGLE = ("cleanrl_envpool", "sb3_dqn", "tune_iter")


@dataclass
class Env:
    name: str
    unlock: int
    s0: float
    s1: float
    T: float
    curve: str = "exp"
    event: str = "healthy"     # an EVENTS type or a negative's name
    variant: str = "healthy"
    severity: str | None = None
    tier: str = ""
    noise: tuple = ("gauss", 0.03)
    enoise: tuple | None = None
    obs: int = 1
    G: int | None = None       # eval every G points (None: no evals)
    at: int | None = None
    params: dict = field(default_factory=dict)


# --- truth -----------------------------------------------------------------------------------------

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


def base_curve(env: Env, L: int, W: float) -> np.ndarray:
    x = np.arange(L, dtype=float) - env.unlock
    g = env.s1 - env.s0
    s = np.full(L, np.nan)
    on = x >= 0
    v = env.variant
    if v == "never":
        s[on] = env.s0
    elif v == "freeze":
        R, fr = env.params["R"], env.params["fr"]
        s[on] = env.s0 + fr * g * np.minimum(x[on] / R, 1.0)
    elif v == "riser":
        s[on] = env.s0 + env.params["rate"] * g * x[on] / W
    elif v == "osc":
        p = env.params
        s[on] = env.s0 + g * (p["mid"] + 0.5 * p["pp"] * np.sin(2 * np.pi * x[on] / p["P"] + p["phase"]))
    else:
        s[on] = env.s0 + g * f_curve(env.curve, x[on] / env.T)
    return s


def judged(conv: str, s: np.ndarray) -> np.ndarray:
    """The expected value of the judged series (sb3_dqn: the mean of the last 25 dumps = 100 episodes)."""
    if conv != "sb3_dqn":
        return s.copy()
    e = np.full_like(s, np.nan)
    ok = np.flatnonzero(~np.isnan(s))
    for i in ok:
        lo = max(ok[0], i - 24)
        e[i] = np.mean(s[lo:i + 1])
    return e


def grad_point(env: Env, e: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc"):
        return None
    thr = env.s0 + 0.9 * (env.s1 - env.s0)
    hit = np.flatnonzero(e >= thr - 1e-12)
    if not len(hit):
        return None
    hold = max(0.3 * W, 3 * (env.G or 1))
    return int(math.ceil(hit[0] + hold))


# --- noise -----------------------------------------------------------------------------------------

def point_sd(conv: str, noise: tuple, s: float, span: float, obs: int = 1) -> float:
    """Point sd in skill units at skill s (span: the metric's units per unit of skill)."""
    kind = noise[0]
    s = float(np.clip(s, 0.0, 1.0))
    if kind == "binom":
        n, rho = noise[1], noise[2]
        p = min(max(s, 0.01), 0.99)
        return math.sqrt(p * (1 - p) / n * (1 + (n - 1) * rho))
    if kind == "gamma":
        lo, hi = noise[2], noise[3]
        level = hi - (hi - lo) * s
        return level / math.sqrt(noise[1] * obs) / (hi - lo)
    if kind in ("gumbel", "mgumbel"):
        sd = noise[1] * math.pi / math.sqrt(6)
    elif kind == "hetero":
        sd = noise[1] + noise[2] * s
    elif kind == "t3":
        sd = noise[1] * math.sqrt(3.0)
    else:  # gauss / episode gaussian
        sd = noise[1]
    if conv == "cleanrl_envpool":
        sd = math.sqrt(sd ** 2 + (1.0 / span) ** 2)
    if conv == "sb3_dqn":
        sd = 2 * sd / 10
    return sd / math.sqrt(obs)


def quieter(noise: tuple) -> tuple:
    kind = noise[0]
    if kind == "binom":
        return ("binom", int(math.ceil(noise[1] * 1.5)), noise[2] * 0.7)
    if kind == "gamma":
        return ("gamma", noise[1] * 1.5, noise[2], noise[3])
    if kind == "hetero":
        return ("hetero", noise[1] * 0.8, noise[2] * 0.8)
    return (kind, noise[1] * 0.8) + tuple(noise[2:])


def draw(conv: str, noise: tuple, m: np.ndarray, rng, obs: int, metric) -> list[np.ndarray]:
    """obs noisy draws (metric units) around skill array m."""
    out = []
    kind = noise[0]
    for _ in range(obs):
        if kind == "binom":
            n, rho = int(noise[1]), noise[2]
            p = np.clip(m, 0.0, 1.0)
            if rho > 0:
                a = p * (1 / rho - 1) + 1e-9
                b = (1 - p) * (1 / rho - 1) + 1e-9
                p = rng.beta(a, b)
            out.append(rng.binomial(n, p) / n)
        elif kind == "gamma":
            k, lo, hi = noise[1], noise[2], noise[3]
            level = hi - (hi - lo) * m
            out.append(level * rng.gamma(k, 1.0 / k, size=m.shape))
        else:
            if kind == "gumbel":
                z = rng.gumbel(0.0, noise[1], size=m.shape) - 0.5772 * noise[1]
            elif kind == "mgumbel":
                z = -(rng.gumbel(0.0, noise[1], size=m.shape) - 0.5772 * noise[1])
            elif kind == "hetero":
                z = rng.normal(0.0, 1.0, size=m.shape) * (noise[1] + noise[2] * np.clip(m, 0, 1))
            elif kind == "t3":
                z = rng.standard_t(3, size=m.shape) * noise[1]
            else:
                z = rng.normal(0.0, noise[1], size=m.shape)
            out.append(metric(m + z))
    return out


# --- planning --------------------------------------------------------------------------------------

def window(run: dict) -> float:
    """W in points (one point an iteration everywhere): max(min(100 steps, 10 % span), 20 J)."""
    U, L = run["unit"], run["L"]
    return max(min(100.0 / U, 0.1 * (L - 1)), 20.0)


def gain_sd(run: dict, env: Env, levels) -> float:
    span = run["span"]
    return max(point_sd(run["convention"], env.noise, lv, span, env.obs) for lv in levels)


def make_visible(run: dict, env: Env, levels, limit: float, rng) -> None:
    """Quiet env.noise (and env.enoise) until the point sd at every level is <= limit (skill units)."""
    for _ in range(60):
        if gain_sd(run, env, levels) <= limit:
            break
        env.noise = quieter(env.noise)
    if env.enoise is not None:
        for _ in range(60):
            if max(point_sd(run["convention"], env.enoise, lv, run["span"]) for lv in levels) <= limit:
                break
            env.enoise = quieter(env.enoise)


def default_noise(run: dict, rng, heavy: bool = False) -> tuple:
    conv = run["convention"]
    if conv == "cleanrl_envpool":
        if rng.random() < 0.5:
            return ("gumbel", float(rng.uniform(0.04, 0.09) * (2.0 if heavy else 1.0)))
        return ("hetero", float(rng.uniform(0.01, 0.03)), float(rng.uniform(0.02, 0.07) * (2.0 if heavy else 1.0)))
    if conv == "sb3_dqn":
        return ("gauss", float(rng.uniform(0.15, 0.45) * (2.0 if heavy else 1.0)))
    if conv == "tune_iter":
        return ("mgumbel", float(rng.uniform(0.03, 0.08) * (2.0 if heavy else 1.0)))
    if conv == "roll_tb":
        n = int(rng.integers(4, 9)) if heavy else int(rng.integers(8, 33))
        return ("binom", n, float(rng.uniform(0.02, 0.06)) if rng.random() < 0.4 else 0.0)
    return ("gamma", float(rng.uniform(3, 8) if heavy else rng.uniform(8, 60)), run["r_lo"], run["r_hi"])


def eval_noise(run: dict, rng) -> tuple | None:
    conv = run["convention"]
    if conv == "tune_iter":
        return ("mgumbel", float(rng.uniform(0.015, 0.04)))
    if conv == "roll_tb":
        return ("binom", int(rng.integers(64, 129)), 0.0)
    if conv == "generic_regret":
        return ("gamma", float(rng.uniform(32, 240)), run["r_lo"], run["r_hi"])
    return None


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    L, W = run["L"], window(run)
    g = env.s1 - env.s0
    G = env.G or 1
    conv = run["convention"]
    if ev in ("stag_never", "stag_freeze", "osc", "prolonged"):
        env.variant = {"stag_never": "never", "stag_freeze": "freeze", "osc": "osc", "prolonged": "riser"}[ev]
        env.event = "performance_volatility" if ev == "osc" else (
            "prolonged_training" if ev == "prolonged" else "training_stagnation")
        active = L - env.unlock
        if ev == "stag_never":
            if active < 6 * W:
                return False
            if conv in SINGLE:
                make_visible(run, env, [env.s0], 0.1, rng)
            else:
                make_visible(run, env, [env.s0, env.s1], g / 6, rng)
        elif ev == "stag_freeze":
            R = max(0.4 * W, 6.0) * rng.uniform(1.0, 2.0)
            fr = float(rng.uniform(0.2, 0.5))
            if run["convention"] == "roll_tb":
                fr = min(fr, (0.5 - env.s0) / g)
            if active < R + 5 * W:
                return False
            env.params.update(R=float(R), fr=fr)
            make_visible(run, env, [env.s0, env.s0 + fr * g], 0.2 * fr * g, rng)
        elif ev == "osc":
            periods_needed = 10 if conv in SINGLE else 4
            P = float(rng.uniform(8, 25))
            if active < periods_needed * P:
                return False
            pp = float(rng.uniform(0.45, 0.7))
            mid = float(rng.uniform(0.35, 0.55))
            env.params.update(P=P, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)))
            make_visible(run, env, [env.s0 + g * (mid - pp / 2), env.s0 + g * (mid + pp / 2)], pp * g / 6, rng)
        else:
            if active < 12.5 * W:
                return False
            env.params["rate"] = 0.62 * W / active
            make_visible(run, env, [env.s0, env.s0 + 0.62 * g], 0.015 * g, rng)
        return True
    # learners: events after graduation
    e = judged(conv, base_curve(env, L, W))
    gp = grad_point(env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G)
    start = gp + margin
    if ev in ("healthy", "noisy_healthy", "heavy_tail", "slow_learner", "late"):
        if gp + 2 * W > L:
            return False
        env.event = env.variant = ev
        if ev == "noisy_healthy":
            make_visible(run, env, [env.s0, env.s1], g / 5, rng)
        else:
            make_visible(run, env, [env.s0, env.s1], g / 8, rng)
        return True
    if ev == "level_shift":
        d = float(rng.uniform(0.04, 0.06)) * g
        if conv == "roll_tb" and env.s1 + d > 0.99:
            return False
        if start + 2 * W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.3) * (L - start - 2 * W))
        env.params["d"] = d
        make_visible(run, env, [env.s0, env.s1], g / 8, rng)
        return True
    if ev == "single_outlier":
        if start + W > L or conv == "sb3_dqn":
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 1) * (L - start - W))
        make_visible(run, env, [env.s0, env.s1], g / 8, rng)
        return True
    if ev in ("reg_warning", "reg_critical"):
        keep = float(rng.uniform(0.72, 0.79) if ev == "reg_warning" else rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        need = ramp + max(2 * W, 15 * G) + (25 if conv == "sb3_dqn" else 0)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        env.event, env.variant = "graduated_regression", "sudden" if ramp == 0 else "gradual"
        env.severity = "warning" if keep >= 0.7 else "critical"
        env.params.update(keep=keep, ramp=ramp)
        drop = (1 - keep) * g
        low = conv in ("cleanrl_envpool", "tune_iter", "generic_regret") and env.G is None and rng.random() < 0.3
        if low:
            env.tier = "low"
        make_visible(run, env, [env.s1, env.s0 + keep * g, env.s0], drop / (2.5 if low else 4.0), rng)
        return True
    if ev == "burst":
        if conv == "sb3_dqn":
            return False
        B = int(max(W, 20 * G))
        need = B + max(W, 15 * G)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        bsd = float(rng.uniform(0.2, 0.3))
        env.event, env.variant = "performance_volatility", "burst"
        env.params.update(length=B, bsd=bsd)
        make_visible(run, env, [env.s1, env.s1 - bsd * g], min(0.04, bsd / 4) * g, rng)
        return True
    if ev == "switch":
        if conv == "sb3_dqn":
            return False
        dmin = max(4, 4 * G)
        if start + 9 * 2 * dmin > L:
            return False
        gap = float(rng.uniform(0.4, 0.6))
        env.at = int(start + rng.uniform(0, 0.3) * (L - start - 18 * dmin))
        phases, t, low = [], env.at, True
        while t < L:
            d = int(rng.integers(dmin, 3 * dmin + 1))
            phases.append((t, min(t + d, L), low))
            t += d
            low = not low
        if len(phases) < 9:
            return False
        env.event, env.variant = "performance_volatility", "switch"
        env.params.update(gap=gap, phases=phases)
        make_visible(run, env, [env.s1, env.s1 - gap * g], gap * g / 5, rng)
        return True
    if ev == "eval_gap":
        if env.G is None:
            return False
        need = max(5 * max(50.0 / run["unit"], G), 2 * W) + G
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 0.5) * (L - start - need))
        env.event = env.variant = "eval_gap"
        make_visible(run, env, [env.s0, env.s1], g / 8, rng)
        return True
    if ev == "transition":
        if not run.get("states"):
            return False
        length = int(rng.uniform(0.5, 1.5) * W)
        if start + length + W > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - length - W))
        env.event, env.variant = "unexpected_transition", "backward"
        env.params["length"] = length
        make_visible(run, env, [env.s0, env.s1], g / 8, rng)
        return True
    raise ValueError(ev)


def truth(run: dict, env: Env) -> np.ndarray:
    """The skill per point (NaN before unlock), events applied; draws of bursts/switching are seeded."""
    L, W = run["L"], window(run)
    g = env.s1 - env.s0
    s = base_curve(env, L, W)
    p, v = env.params, env.variant
    rng = np.random.default_rng(zlib.crc32(f"{run['name']}/{env.name}".encode()))
    if v in ("sudden", "gradual"):
        lowv = env.s0 + p["keep"] * g
        i = np.arange(L)
        if p["ramp"] == 0:
            s[i >= env.at] = lowv
        else:
            u = np.clip((i - env.at) / p["ramp"], 0, 1)
            m = i >= env.at
            s[m] = s[m] + (lowv - s[m]) * u[m]
    elif v == "burst":
        B = p["length"]
        seg = slice(env.at, env.at + B)
        s[seg] = s[seg] - np.abs(rng.normal(0, p["bsd"] * g, size=len(s[seg])))
    elif v == "switch":
        for a, b, low in p["phases"]:
            if low:
                s[a:b] = env.s1 - p["gap"] * g
    elif v == "level_shift":
        s[env.at:] = s[env.at:] + p["d"]
    elif v == "single_outlier":
        s[env.at] = env.s0 + 0.05 * g
    return s


def new_env(run: dict, rng, name: str, unlock: int, has_eval: bool) -> Env:
    W = window(run)
    s0 = float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0.0, 1.0))
    s1 = float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 1.0))
    T = float(rng.uniform(0.8, 2.5) * W)
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=T, curve=str(rng.choice(CURVES)),
              noise=default_noise(run, rng))
    if has_eval:
        env.G = run["G"]
        env.enoise = eval_noise(run, rng)
    if run["convention"] == "generic_regret":
        env.obs = run["obs"]
    return env


MULTI_POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
              "eval_gap", "transition", "prolonged"]
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "heavy_tail", "slow_learner", "level_shift", "single_outlier"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W / 1.0)
    if neg == "noisy_healthy":
        env.noise = default_noise(run, rng, heavy=True)
    if neg == "heavy_tail" and run["convention"] in ("cleanrl_envpool", "tune_iter"):
        env.noise = ("t3", float(rng.uniform(0.02, 0.05)))
    if not place(run, env, neg, rng):
        env.T = float(rng.uniform(0.8, 1.5) * W)
        env.event = env.variant = "healthy"
        if not place(run, env, "healthy", rng):
            env.event = env.variant = "healthy"


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    run["envs"] = []
    if conv in SINGLE:
        run["unit"] = {"cleanrl_envpool": 1024, "sb3_dqn": 200, "tune_iter": 1}[conv]
        run["first"] = run["unit"]
        run["L"] = int(rng.integers(300, 561)) if conv != "tune_iter" else int(rng.integers(420, 801))
        run["G"] = int(rng.integers(3, 11)) if conv == "tune_iter" and rng.random() < 0.75 else None
        if conv == "cleanrl_envpool":
            run["a"], run["b"] = float(rng.uniform(0, 30)), float(rng.uniform(150, 3000))
        elif conv == "sb3_dqn":
            run["a"], run["b"] = float(rng.uniform(-200, 0)), float(rng.uniform(100, 500))
        else:
            run["a"], run["b"] = float(rng.uniform(-600, -100)), float(rng.uniform(800, 4000))
        run["span"] = run["b"]
        n = 1 if conv == "sb3_dqn" else int(rng.integers(1, 4))
        names = {"cleanrl_envpool": ATARI, "sb3_dqn": GYM, "tune_iter": MUJOCO}[conv]
        pick = rng.choice(len(names), size=n, replace=False)
        pool = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "osc", "prolonged",
                "eval_gap"]
        if conv == "sb3_dqn":
            pool = ["reg_warning", "reg_critical", "reg_critical", "stag_never", "prolonged"]
        if conv != "tune_iter" or run["G"] is None:
            pool = [p for p in pool if p != "eval_gap"]
        for k in pick:
            run["s0"], run["s1"] = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.85, 1.0))
            env = new_env(run, rng, names[k], 0, run["G"] is not None)
            if rng.random() < 0.55:
                ev = str(rng.choice(pool))
                if not place(run, env, ev, rng):
                    env = new_env(run, rng, names[k], 0, run["G"] is not None)
                    apply_negative(run, env, "healthy", rng)
            else:
                apply_negative(run, env, str(rng.choice(NEG_POOL)), rng)
            run["envs"].append(env)
        return
    # multi-env runs
    if conv == "roll_tb":
        run["unit"], run["first"] = 1, 1
        run["s0"], run["s1"] = float(rng.uniform(0.03, 0.15)), float(rng.uniform(0.8, 0.94))
        run["span"] = 1.0
        names = TAGS
    else:
        run["unit"] = int(rng.choice([1, 10]))
        run["first"] = 5000 if rng.random() < 0.25 else run["unit"]
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.9, 0.99))
        run["r_hi"], run["r_lo"] = float(rng.uniform(20, 40)), float(rng.uniform(1.5, 4))
        run["span"] = run["r_hi"] - run["r_lo"]
        run["obs"] = int(rng.integers(1, 4)) if rng.random() < 0.33 else 1
        run["states"] = bool(rng.random() < 0.5)
        names = BANDITS
    run["L"] = int(rng.integers(320, 620))
    run["G"] = int(rng.integers(5, 16 if conv == "roll_tb" else 21)) if rng.random() < 0.7 else None
    W = window(run)
    n = int(rng.integers(3, 9))
    waves = int(rng.integers(1, 4))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    envs = [new_env(run, rng, names[k], starts[j % waves] if j >= 2 else 0, run["G"] is not None)
            for j, k in enumerate(pick)]
    # siblings that show the shared top: the first two envs stay learners (negatives)
    pool = [p for p in MULTI_POOL if (p != "eval_gap" or run["G"]) and (p != "transition" or run.get("states"))]
    has_prolonged = False
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.55:
            ev = str(rng.choice(pool))
            if ev == "prolonged" and has_prolonged:
                ev = "reg_critical"
            if ev in ("stag_never", "stag_freeze", "osc", "prolonged"):
                # learners from activation only; later waves keep to negatives/graduated events
                env.unlock = 0 if ev == "prolonged" else env.unlock
            if place(run, env, ev, rng):
                has_prolonged |= ev == "prolonged"
                continue
            fresh = new_env(run, rng, env.name, env.unlock, run["G"] is not None)
            envs[j] = env = fresh
        neg = "late" if env.unlock > 0 else str(rng.choice(NEG_POOL))
        apply_negative(run, env, neg, rng)
    if has_prolonged:  # README: at least twice the median time the graduated envs took; no slow learner beside it
        for env in envs:
            if env.variant == "slow_learner":
                env.T = float(rng.uniform(0.8, 1.5) * W)
                env.event = env.variant = "healthy"
            elif env.event not in EVENTS and env.T > 1.5 * W:
                env.T = float(rng.uniform(0.8, 1.5) * W)
    # README needs >= 2 siblings (and half) learning to the top for a stall on the shared scale to show
    learners = [e for e in envs if e.variant not in ("never", "freeze", "riser", "osc")]
    if len(learners) < max(2, len(envs) / 2):
        for e in envs:
            if e.variant in ("never", "freeze", "osc") and len(learners) < max(2, len(envs) / 2):
                fresh = new_env(run, rng, e.name, e.unlock, run["G"] is not None)
                apply_negative(run, fresh, "healthy", rng)
                envs[envs.index(e)] = fresh
                learners.append(fresh)
    run["envs"] = envs


# --- observing and labelling -----------------------------------------------------------------------

def metric_fn(run: dict):
    conv = run["convention"]
    if conv == "roll_tb":
        return lambda s: np.clip(s, 0.0, 1.0)
    if conv == "generic_regret":
        return lambda s: run["r_hi"] - (run["r_hi"] - run["r_lo"]) * s
    return lambda s: run["a"] + run["b"] * s


def step_of(run: dict, i) -> int:
    return int(run["first"] + int(i) * run["unit"])


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    conv = run["convention"]
    on = np.flatnonzero(~np.isnan(s))
    if conv == "sb3_dqn":
        return {"train": (on, None), "eval": (np.array([], int), None)}
    metric = metric_fn(run)
    if env.noise[0] in ("binom", "gamma"):
        tr = draw(conv, env.noise, s[on], rng, env.obs, metric)
    else:  # skill-unit noise, mapped to the metric
        tr = draw(conv, env.noise, s[on], rng, env.obs, metric)
    if env.noise[0] == "gamma":
        tr = [np.maximum(x, 1e-6) for x in tr]
    ev_its = np.array([], int)
    ev_vals = None
    if env.G:
        ev_its = on[(on - env.unlock) % env.G == env.G - 1]
        if env.variant == "eval_gap":
            ev_its = ev_its[ev_its < env.at]
        if len(ev_its):
            ev_vals = draw(conv, env.enoise, s[ev_its], rng, 1, metric)[0]
            if env.enoise[0] == "gamma":
                ev_vals = np.maximum(ev_vals, 1e-6)
    return {"train": (on, tr), "eval": (ev_its, ev_vals)}


def state_series(run: dict, env: Env, gp: int | None) -> list[tuple[int, int]]:
    L = run["L"]
    out = []
    for i in range(0, L):
        if i < env.unlock:
            v = 0
        elif gp is not None and i >= gp and env.variant not in ("never", "freeze", "riser", "osc"):
            v = 2
        else:
            v = 1
        if env.variant == "backward" and env.at <= i < env.at + env.params["length"]:
            v = 1
        out.append((i, v))
    return out


def label_for(run: dict, env: Env, s: np.ndarray, e: np.ndarray, obs: dict) -> dict | None:
    if env.event not in EVENTS:
        return None
    W = window(run)
    U = run["unit"]
    its = np.unique(np.concatenate([obs["train"][0], obs["eval"][0]]))
    g = env.s1 - env.s0
    t0 = None
    v = env.variant
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v == "freeze":
        t0 = env.unlock + env.params["R"]
    elif v == "riser":
        return mk(run, env, step_of(run, its[0]) + int(round(10 * W * U)))
    elif v == "eval_gap":
        ev = obs["eval"][0]
        return mk(run, env, step_of(run, ev[-1]) + env.G * U)
    elif v == "backward":
        t0 = env.at
    elif v in ("sudden", "gradual"):
        line = env.s0 + 0.85 * g
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < line))
        t0 = int(below[0])
    elif v == "burst":
        sd = point_sd(run["convention"], env.noise, env.s1, run["span"], env.obs)
        thr = max(0.15 * g, 4 * sd)
        a, B = env.at, env.params["length"]
        off = [i for i in range(a, a + B) if env.s1 - s[i] > thr]
        if not off:
            return None
        t0 = off[0]
    elif v == "switch":
        t0 = env.params["phases"][0][0]
    ok = its[its >= t0 - 1e-9]
    return mk(run, env, step_of(run, ok[0])) if len(ok) else None


def mk(run: dict, env: Env, onset: int) -> dict:
    shape = f"{run['convention']}/{env.variant}" + ("/low" if env.tier == "low" else "")
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=shape, variant=env.variant, noise=str(env.noise[0]), tier=env.tier)


# --- writers ---------------------------------------------------------------------------------------

def _tests():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import rl_writers
    import writers

    return writers, rl_writers


def write_cleanrl(folder: Path, run: dict, data: dict) -> None:
    _, rl = _tests()
    for k, env in enumerate(run["envs"]):
        vals = np.asarray(data[env.name]["train"][1][0], dtype=float)
        rl.cleanrl_ppo_envpool_xla(folder, env.name, [float(x) for x in vals], seed=int(run["seed"] % 1000) + k)


def write_sb3(folder: Path, run: dict, data: dict) -> None:
    _, rl = _tests()
    (env,) = run["envs"]
    s = data[env.name]["s"]
    on = s[~np.isnan(s)]
    per_episode = np.repeat(run["a"] + run["b"] * on, 4)
    dqn = rl.SB3DQN(folder / env.name, episode_length=50, noise=float(env.noise[1] * run["b"]),
                    seed=int(run["seed"] % 100000), learning_starts=100)
    dqn.learn([float(x) for x in per_episode], steps_per_level=50, tb_log_name="DQN")


def write_tune(folder: Path, run: dict, data: dict) -> None:
    w, _ = _tests()
    for k, env in enumerate(run["envs"]):
        tr_its, tr = data[env.name]["train"]
        ev_its, ev = data[env.name]["eval"]
        evmap = {int(i): float(v) for i, v in zip(ev_its, ev)} if ev is not None else {}
        results = []
        for j, i in enumerate(tr_its):
            r = {"env_runners": {"episode_return_mean": float(tr[0][j]), "num_episodes": 8,
                                 "episode_len_mean": 1000.0},
                 "num_env_steps_sampled_lifetime": int((i + 1) * 4000), "training_iteration": int(i + 1),
                 "done": False, "time_this_iter_s": 2.5, "timestamp": 1_700_000_000 + int(i) * 3,
                 "trial_id": f"{run['trial']}_{k:05d}", "pid": 4242}
            if int(i) in evmap:
                r["evaluation"] = {"env_runners": {"episode_return_mean": evmap[int(i)], "num_episodes": 10}}
            results.append(r)
        trial = folder / f"PPO_{env.name}_{run['trial']}_{k:05d}_{k}_2026-01-01_00-00-00"
        w.write_tune_trial(trial, results, {"env": env.name, "lr": 3e-4, "seed": k})


def write_roll(folder: Path, run: dict, data: dict) -> None:
    from tensorboardX import SummaryWriter

    logdir = folder / f"agentic_{run['trial']}" / "20260101-000000"
    wr = SummaryWriter(str(logdir), flush_secs=3600)
    L = run["L"]
    rows: dict[int, dict] = {}
    for env in run["envs"]:
        tr_its, tr = data[env.name]["train"]
        for j, i in enumerate(tr_its):
            rows.setdefault(int(i), {})[f"env/{env.name}/success"] = float(tr[0][j])
            rows[int(i)][f"env/{env.name}/num_actions"] = float(3 + (j % 5))
        ev_its, ev = data[env.name]["eval"]
        if ev is not None:
            for i, v in zip(ev_its, ev):
                rows.setdefault(int(i), {})[f"val/env/{env.name}/success"] = float(v)
    for i in range(L):
        row = rows.get(i, {})
        succ = [v for k, v in row.items() if k.endswith("/success") and k.startswith("env/")]
        if succ:
            row["env/all/success"] = float(np.mean(succ))
        row["system/tps"] = 1000.0
        step = step_of(run, i)
        for k in sorted(row):
            wr.add_scalar(k, row[k], global_step=step, walltime=1_700_000_000.0 + step)
    wr.add_hparams({"lr": 1e-6, "group_size": 8}, {"hparam/final_success": 0.5})
    wr.close()


def write_regret(folder: Path, run: dict, data: dict) -> None:
    w, _ = _tests()
    series: dict[str, list] = {}
    for env in run["envs"]:
        tr_its, tr = data[env.name]["train"]
        pts = []
        for j, i in enumerate(tr_its):
            for x in tr:
                pts.append((step_of(run, i), float(x[j])))
        series[f"train/{env.name}/regret"] = pts
        ev_its, ev = data[env.name]["eval"]
        if ev is not None and len(ev_its):
            series[f"eval/{env.name}/regret"] = [(step_of(run, i), float(v)) for i, v in zip(ev_its, ev)]
        if run.get("states"):
            series[f"curriculum/{env.name}/state"] = [(step_of(run, i), float(v)) for i, v in data[env.name]["states"]]
    w.write_tb(folder, series)


WRITERS = {"cleanrl_envpool": write_cleanrl, "sb3_dqn": write_sb3, "tune_iter": write_tune, "roll_tb": write_roll,
           "generic_regret": write_regret}


def tolerance(run: dict) -> int:
    W = window(run)
    q = max(max(W / 10.0, e.G or 1) for e in run["envs"])
    return int(round(q * run["unit"]))


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    for i in range(n_runs):
        conv = CYCLE[i % len(CYCLE)]
        run = dict(name=f"t{i:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        run["trial"] = f"{zlib.crc32(f'tenth-{seed}-{i}'.encode()) & 0xFFFFF:05x}"
        prng = np.random.default_rng(run["seed"])
        plan_run(run, prng)
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        orng = np.random.default_rng(run["seed"] + 1)
        W = window(run)
        data = {}
        for env in run["envs"]:
            s = truth(run, env)
            e = judged(conv, s)
            obs = observe(run, env, s, orng)
            gp = grad_point(env, judged(conv, base_curve(env, run["L"], W)), W)
            data[env.name] = {"s": s, "train": obs["train"], "eval": obs["eval"]}
            if conv == "generic_regret" and run.get("states"):
                data[env.name]["states"] = state_series(run, env, gp)
            env.params["graduated_point"] = gp
            lab = label_for(run, env, s, e, obs)
            if lab:
                labels.append(lab)
        WRITERS[conv](folder, run, data)
        meta = {k: v for k, v in run.items() if k != "envs"}
        meta.update(tolerance_unit=tolerance(run), window_steps=W * run["unit"],
                    eval_every=(run["G"] or 1) * run["unit"])
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                         "tier": e.tier, "curve": e.curve, "noise": list(e.noise),
                         "eval_noise": list(e.enoise) if e.enoise else None, "obs": e.obs, "unlock": e.unlock,
                         "s0": e.s0, "s1": e.s1, "T": e.T, "G": e.G, "at": e.at,
                         "params": {k: v for k, v in e.params.items() if k != "phases"}}
                        for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
