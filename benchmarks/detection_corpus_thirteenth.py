"""The thirteenth detection corpus (`python benchmarks/detection.py --corpus thirteenth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md; the
profiles' key spellings), without reading the rules' or the analysis code, and without looking at which cases
curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-thirteenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml in the group folder,
where the scorer reads it). Chosen for what the twelve other corpora cover least (their docstrings: no
HUMAN-NORMALIZED scores — a metric that looks like a rate but runs past 1 —, no Student t of df 2 (infinite
variance), no +inf values, no train logging PACE that CHANGES mid-run, no curriculum that REPLAYS graduated envs at a
lower rate (their points thin out but go on), no per-game raw scales 100x apart in one W&B run stepped in 1e8-scale
env frames, no DISTANCE-TO-GOAL / TIME-TO-SOLVE with a cap (lower is better, censored at the cap) smoothed by the
logger (an EMA before writing), no LLM-judge scores in [0, 10] (means of integer scores), no TRUNCATED event file
(a killed job), no TWO-STAGE learning whose plateau is long enough to be a stall by README's definition, no envs of
20..40 points beside envs of hundreds in one run):

  hns_heavy      tensorboardX, generic layout `train|eval/{game}/hns` (HUMAN-NORMALIZED SCORE: (raw - random) /
                 (human - random), a + b s with a = 0 and b 1.4..4.5, so a learned game sits at 1.2..4.4, past 1)
                 beside the raw `train|eval/{game}/episode_return` (random_g + hns (human_g - random_g): Pong's -21..
                 beside Seaquest's ..40,000 — 100x and more apart; claimed as another metric, never judged), config
                 `performance_metric: hns`; `curriculum/{game}/state` 0/1/2 in 40 %. A training point is the
                 np.mean of the HNS of the Poisson(2..6) episodes that finished in the iteration (NaN when none did,
                 as np.mean([]) gives: README's `non_finite_values`), each episode s + scale t_df with STUDENT t of
                 df 2, 3 or 4 (scale 0.08..0.25 of the gain); evals (70 %) the mean of 8..30 such episodes every
                 10..20 iterations. In 35 % of the runs one training point of a clean game is +inf (a float32
                 overflow of a bugged episode return); "spiky" clean games hold 1..3 single points lifted by one
                 enormous episode (not events). In half the runs (without a prolonged env) the TRAIN LOGGING PACE
                 CHANGES at 0.3..0.6 of the run (every iteration -> every m, or every m -> every iteration, m 2..4:
                 a restart with another log_interval). Steps of 1 or 10,000 frames an iteration; 420..700
                 iterations; 4..7 games in 1..3 waves.
  frames_replay  W&B OFFLINE runs (tests/writers.write_wandb, step= in ENV FRAMES: 1 M or 4 M an iteration, from 0
                 or 200 M, so steps reach ~2e9), generic keys `train|eval/{game}/episode_return` and
                 `curriculum/{game}/state` (numbers, or the WORDS in half of the runs that log states, 50 %);
                 config `performance_metric: episode_return`. RAW Atari-like returns, each game on ITS OWN SCALE
                 (random_g -> top_g: Pong -21 -> 18, Boxing 0 -> 90, Breakout 2 -> 380, Enduro 0 -> 1,800,
                 Seaquest 70 -> 12,000, Qbert 160 -> 14,000, ...: 100x apart; README: "envs of different games
                 start and end at different levels and share none"). A REPLAY CURRICULUM: an env is trained every
                 iteration while active, and once graduated it is REPLAYED every k (3..8) iterations (its training
                 points get sparser but go on), evaluated every 5..10 iterations from its unlock. Means of 6..16
                 training episodes (gaussian per episode, 0.1..0.3 of the gain), evals of 10..30. 360..560
                 iterations; 4..7 games in 1..3 waves. Events here are those README judges on an env's own scale:
                 regressions, bursts, switching, eval gaps, backward states (no stalls or prolonged training: a game
                 beside games on other scales "stays unjudged").
  nav_ar1        tensorboardX, a user profile `nav` (`nav/{env}/(train|eval)/dist_to_goal` or `.../time_to_solve`,
                 metric fixed `to_goal`; state `nav/{env}/stage` 0/1/2 in 40 %; an unclaimed `charts/fps`),
                 config top-level `direction: lower` (neither name reads as a loss). DISTANCE TO GOAL at the episode's
                 end (d_min + (D - d_min)(1 - clip(s + sigma Z, 0, 1)): capped at the arena size D 5..50 m) or TIME TO
                 SOLVE (an episode solved with probability s in mu 0.15..0.35 T_cap +- r, else it TIMES OUT at
                 T_cap 200..1,000: censored at the cap). The TRAIN series is what a logger that smooths writes:
                 running = phi running + (1 - phi) x per iteration (pytorch/examples reinforcement_learning/
                 reinforce.py's `running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward`), phi 0.6..0.9,
                 of the mean of 4..16 episodes: STRONGLY AUTOCORRELATED (AR(1)) noise whose slow wander is no event.
                 Evals (60 %) unsmoothed means of 10..30 episodes every 10..25 iterations. Steps of 1 or 100;
                 420..800 iterations; 4..7 envs in 1..3 waves.
  judge_resume   tensorboardX, generic `train|eval/{task}/rm_score` (an LLM JUDGE'S SCORE in [0, 10]: the mean over
                 the batch of 16..64 responses of an integer score Binomial(10, p_i), p_i ~ Beta around s with
                 concentration 4..12 — prompts of unequal difficulty), beside `train/{task}/response_len` and an
                 unclaimed `actor/lr`; config `performance_metric: rm_score`; evals (60 %) over 100..300 prompts every
                 10..20 steps; `curriculum/{task}/state` in 40 %. Half the runs are RESUMED: the job died at 40..80 %
                 and a second SummaryWriter in the same folder (its event file started an hour later) rewrote the
                 steps from a checkpoint 5..20 steps back with new draws (README: last write wins). A third of the
                 runs were KILLED while writing: the last event file ends inside its last record (README's
                 `incomplete_tail`), and 1..2 tasks unlocked late are cut off MID-LEARNING. Half the runs hold a
                 SHORT task: unlocked 20..40 steps before the end (20..40 points beside hundreds). TWO-STAGE learners:
                 a rise to 0.3..0.55 of the gain, a plateau, a second rise to the top. 420..800 steps; 4..7 tasks.

Truth. Each env has a skill curve s (higher is better, in [0, 1]) on its iteration grid (from its unlock), mapped to
its metric by its expected value (hns: b s; frames: random_g + (top_g - random_g) s; nav: d_min + (D - d_min)(1 - s)
or T_cap - (T_cap - mu) s; judge: 10 s). A learner goes from s0 to s1 over T iterations (exp, logistic, sqrt or
linear) and is flat at s1 after. The envs of a multi-env run share one scale in skill (s0 within 0.02 of the run's,
s1 within 0.015), which is one metric scale everywhere but frames_replay. e is the EXPECTED JUDGED series in skill
units: the episodes' expected mean (for distance, E clip(s + sigma Z, 0, 1)), and for nav_ar1's train-only runs
that passed through the logger's EMA (so its lag is in the labels). E0 = e(s0), E1 = e(s1); fractions of the gain
are of E1 - E0.
  J  judged interval     README's logging pace of the env's judged points in iterations: the median interval when
                         nearly every interval (90 %) is a whole multiple of it, else the mean of the intervals under
                         3 x the median (pace changes in hns_heavy); 1 elsewhere
  W  stagnation window   max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation), in steps
  G  eval interval       the env's eval interval, else J
  Q  tolerance unit      the coarsest env of the run: max over its envs of max(W / 10, G), in steps = `tolerance_unit` in
                         plan.json; a detection matches a label within 2 Q (the scorer's rule)
"Graduated" (truth) = e has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more; logged states go to 2
there, frames_replay's replay begins there. Healthy learners reach their top within 0.8..2.5 W.

In a multi-env run the first two envs are clean learners from step 0; each later env carries an event with
probability 0.65 (where it fits; else it is a clean negative), and at least half the envs (and two) learn to the top.

Labels (an env carries at most one; onset in steps; "first point" = the env's first finite logged point, train or
eval, at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp over 0.5..1.5 W) fall to
                         keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, lasting to the end (>= max(2 W,
                         15 G)). Onset = first point at which e keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point, beside >= 2
                         siblings (and half the envs) that learn to the shared top; freeze: a linear rise of >=
                         max(0.4 W, 6 J) to 0.2..0.5 of the gain, then flat and active >= 5 W to the end; two_stage_stall:
                         the same rise to 0.3..0.55 of the gain, a plateau of 5..7 W (README: a stall that progress later
                         ends must have lasted 4 windows), then a second rise to the top (it then graduates). Onset =
                         first point at which e is within a tenth of the rise of the flat level (the EMA's lag) at or
                         after the true flat stretch's start
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) points of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 G); onset = first judged point off by >
                         max(0.15 gain, 4 sd)); only where evals judge it, or the train series is not smoothed);
                         switch (Markov: s1 and s1 - 0.4..0.6 gain, dwells of max(4 J, 4 G, 3 / (1 - phi))..3x that,
                         >= 8 changes, to the end; onset = first point of the first low phase — on an EMA-smoothed
                         train-only series the first point that has come halfway down); lifelong oscillation of an env
                         that never learns (sinus from activation, mid 0.35..0.55 of the gain, peak-to-peak 0.45..0.7 of
                         it AFTER the logger's EMA, period 8..16 judged points, >= 4 periods; onset = its first point)
  unexpected_transition  logged states: after graduation + margin the state goes back to 1 for 0.5..1.5 W (in
                         frames_replay the env is trained every iteration again meanwhile), then 2 again; onset = the
                         first logged state point with the backward value
  eval_gap               evaluated runs: after graduation + margin the env's evals stop for the rest of the run (>=
                         max(5 x max(50 steps, G), 2 W) of steps left) while the run goes on; onset = last eval + G
                         (README first_step)
  prolonged_training     a steady linear riser (0.62 of the gain spread over its whole active life of >= 12.5 W)
                         active to the end, in a train-logged run without a pace change whose learners graduate within
                         3 W; onset = its first point + 10 W
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (heaviest noise of the convention,
quieted only as far as its gain >= 5 sd), slow_learner (graduates within 4..6 W), level_shift (+0.04..0.06 gain after
graduation, where there is room), single_outlier (one judged point at s0 + 0.05 gain after graduation), two_stage (a
rise to 0.3..0.55 of the gain, a plateau of 0.8..1.8 W — shorter than README's 3 windows of a staircase's pause —, then
the second rise), spiky (hns_heavy: 1..3 single points lifted by one enormous episode), short (judge_resume: unlocked
20..40 steps before the end), midrise (judge_resume's killed runs: unlocked 1..2 W before the end, learning over 3..4 W,
still rising when the job died), every env of a later wave, and in frames_replay every graduated env (replayed at a
lower rate).

Noise and visibility (skill units). The judged series' point sd at every level an event visits must meet a bound;
noise is made quieter (more episodes / responses) until it does, else the event is not planted: regression drop >= 4
sd; stall rise >= 5 sd and a never-learner's gap to the top >= 6 sd; switching gap >= 5 sd; oscillation peak-to-peak
>= 6 sd; burst base sd <= min(0.04, burst sd / 4); prolonged riser sd <= 0.015; healthy gain >= 8 sd (noisy >= 5).
sd per family: Student t means 1.1..1.5 x scale / sqrt(max(1, K - 2 sqrt K)) (a robust spread: t2 has no variance);
gaussian episodes sigma / sqrt(n); clipped distances sigma / sqrt(n) (before the EMA: the smoothed point is quieter
but wanders, and a mean over many points is as uncertain as the raw one); time to solve sqrt(p (1 - p) + p r^2 / b^2)
/ sqrt(n); judge scores sqrt(p (1 - p) (0.1 + 0.9 / (kappa + 1)) / n).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a human-normalized score is not a rate (it runs past 1): its games share one scale as lessons of one task do;
  - frames_replay's games on scales 100x apart are each judged on their own (README's "share none"): no stall or
    prolonged labels there, where README leaves such envs unjudged;
  - a replayed graduated env stays graduated (its logged state 2) and healthy, though its training points thin out;
  - the tolerance unit is the run's coarsest env's; a pace-change run's J comes from its whole training grid.
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
SMALL_RUNS = 4
CYCLE = ("hns_heavy", "frames_replay", "nav_ar1", "judge_resume")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "hns_heavy": "performance_metric: hns\n",
    "frames_replay": "performance_metric: episode_return\n",
    "nav_ar1": """\
direction: lower
profiles:
  nav:
    patterns:
      - {regex: '^nav/(?P<env>[^/]+)/(?P<split>train|eval)/(?:dist_to_goal|time_to_solve)$', metric: to_goal}
      - {regex: '^nav/(?P<env>[^/]+)/stage$', split: state, metric: state}
    performance_metric: to_goal
""",
    "judge_resume": "performance_metric: rm_score\n",
}
# Atari games: (random, human) for the normalization, and a learned raw top for frames_replay (100x apart)
GAMES = {
    "Pong": (-20.7, 14.6, 18.0), "Boxing": (0.1, 12.1, 90.0), "Breakout": (1.7, 30.5, 380.0),
    "Enduro": (0.0, 860.5, 1800.0), "Seaquest": (68.4, 42054.7, 12000.0), "Qbert": (163.9, 13455.0, 14000.0),
    "SpaceInvaders": (148.0, 1668.7, 2400.0), "MsPacman": (307.3, 6951.6, 4200.0),
    "Asterix": (210.0, 8503.3, 9000.0), "Freeway": (0.0, 29.6, 32.0), "Alien": (227.8, 7127.7, 3500.0),
    "Krull": (1598.0, 2665.5, 9500.0),
}
NAMES = {
    "hns_heavy": list(GAMES),
    "frames_replay": list(GAMES),
    "nav_ar1": ["maze-open", "maze-rooms", "maze-spiral", "maze-keys", "maze-doors", "maze-dark", "maze-moving",
                "maze-large", "maze-ice"],
    "judge_resume": ["gsm8k", "math-l1", "math-l3", "math-l5", "codegen", "summarize", "safety", "tool-use",
                     "long-ctx"],
}
CURVES = ("exp", "logistic", "sqrt", "linear")


@dataclass
class Env:
    name: str
    unlock: int
    s0: float
    s1: float
    T: float
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    noise: tuple = ("gm", 8, 0.2)
    enoise: tuple | None = None
    G: int | None = None       # eval interval in iterations (None: no evals)
    at: int | None = None
    L: int = 0
    E0: float | None = None
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


def base_curve(env: Env, W: float) -> np.ndarray:
    x = np.arange(env.L, dtype=float) - env.unlock
    g = env.s1 - env.s0
    s = np.full(env.L, np.nan)
    on = x >= 0
    v, p = env.variant, env.params
    if v == "never":
        s[on] = env.s0
    elif v == "freeze":
        s[on] = env.s0 + p["fr"] * g * np.minimum(x[on] / p["R"], 1.0)
    elif v in ("two_stage", "two_stage_stall"):
        R, P, T2, fr = p["R"], p["P"], p["T2"], p["fr"]
        xo = x[on]
        first = fr * np.minimum(xo / R, 1.0)
        second = fr + (1 - fr) * f_curve("exp", (xo - R - P) / T2)
        s[on] = env.s0 + g * np.where(xo < R + P, first, second)
    elif v == "riser":
        s[on] = env.s0 + p["rate"] * g * x[on] / W
    elif v == "osc":
        s[on] = env.s0 + g * (p["mid"] + 0.5 * p["pp"] * np.sin(2 * np.pi * x[on] / p["P"] + p["phase"]))
    else:
        s[on] = env.s0 + g * f_curve(env.curve, x[on] / env.T)
    return s


def _ncdf(z):
    return 0.5 * (1 + np.vectorize(math.erf)(np.asarray(z, float) / math.sqrt(2)))


def _npdf(z):
    z = np.asarray(z, float)
    return np.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def clip_mean(s, sig: float):
    """E clip(s + sig Z, 0, 1)."""
    s = np.asarray(s, float)
    a, b = (0 - s) / sig, (1 - s) / sig
    # E[X; 0<X<1] + P(X>1), X ~ N(s, sig)
    inner = s * (_ncdf(b) - _ncdf(a)) + sig * (_npdf(a) - _npdf(b))
    return inner + (1 - _ncdf(b))


def ema(x: np.ndarray, phi: float) -> np.ndarray:
    out = np.array(x, float)
    for k in range(1, len(out)):
        if np.isnan(out[k - 1]):
            continue
        out[k] = phi * out[k - 1] + (1 - phi) * out[k] if not np.isnan(out[k]) else out[k - 1]
    return out


def e_map(run: dict, env: Env, s: np.ndarray) -> np.ndarray:
    """Skill -> the expected judged series in skill units (before any EMA)."""
    if run["convention"] == "nav_ar1" and run["kind"] == "dist":
        out = np.array(s, float)
        m = ~np.isnan(out)
        out[m] = clip_mean(out[m], env.noise[2])
        return out
    return np.array(s, float)


def smoothed_judged(run: dict, env: Env) -> bool:
    return run["convention"] == "nav_ar1" and env.G is None


def e_series(run: dict, env: Env, s: np.ndarray) -> np.ndarray:
    e = e_map(run, env, s)
    if smoothed_judged(run, env):
        on = ~np.isnan(e)
        e2 = e.copy()
        e2[on] = ema(e[on], run["phi"])
        return e2
    return e


def E_levels(run: dict, env: Env) -> tuple[float, float]:
    E0 = float(e_map(run, env, np.array([start_of(env)]))[0])
    E1 = float(e_map(run, env, np.array([env.s1]))[0])
    return E0, E1


def start_of(env: Env) -> float:
    return env.s0 if env.E0 is None else env.E0


def grad_point(run: dict, env: Env, s: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc"):
        return None
    e = e_series(run, env, s)
    E0, E1 = E_levels(run, env)
    hit = np.flatnonzero(e >= E0 + 0.9 * (E1 - E0) - 1e-12)
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + max(0.3 * W, 3 * (env.G or 1))))


# --- noise -----------------------------------------------------------------------------------------

T_FACTOR = {2: 1.5, 3: 1.15, 4: 1.1}


def _p(s: float) -> float:
    return min(max(float(s), 0.01), 0.99)


def point_sd(noise: tuple, s: float) -> float:
    """Point sd in skill units at skill s (a robust spread for Student t)."""
    kind = noise[0]
    p = _p(s)
    if kind == "t":       # ("t", K mean, df, scale): mean of Poisson(K) episodes
        K, df, scale = noise[1], noise[2], noise[3]
        return T_FACTOR[df] * scale / math.sqrt(max(1.0, K - 2 * math.sqrt(K)))
    if kind == "tm":      # ("tm", n, df, scale)
        return T_FACTOR[noise[2]] * noise[3] / math.sqrt(noise[1])
    if kind in ("gm", "dist"):  # (kind, n, sigma[, phi])
        return noise[2] / math.sqrt(noise[1])
    if kind == "time":    # ("time", n, r_over_b[, phi])
        return math.sqrt(p * (1 - p) + p * noise[2] ** 2) / math.sqrt(noise[1])
    if kind == "judge":   # ("judge", n, kappa)
        return math.sqrt(p * (1 - p) * (0.1 + 0.9 / (noise[2] + 1)) / noise[1])
    raise ValueError(kind)


def quieter(noise: tuple) -> tuple:
    kind = noise[0]
    if noise[1] > (2000 if kind == "judge" else 300):
        return noise
    if kind == "t":
        return (kind, noise[1] * 1.5) + tuple(noise[2:])
    return (kind, int(math.ceil(noise[1] * 1.5))) + tuple(noise[2:])


def judged_noise(env: Env) -> tuple:
    return env.enoise if env.enoise is not None else env.noise


def make_visible(env: Env, levels, limit: float) -> bool:
    def fix(attr: str, lim: float) -> bool:
        for _ in range(60):
            nz = getattr(env, attr)
            if max(point_sd(nz, lv) for lv in levels) <= lim + 1e-12:
                return True
            q = quieter(nz)
            if q == nz:
                return False
            setattr(env, attr, q)
        return False

    if env.enoise is not None:
        ok = fix("enoise", limit)
        fix("noise", 2 * limit)
        return ok
    return fix("noise", limit)


def default_noise(run: dict, rng, heavy: bool = False) -> tuple:
    conv = run["convention"]
    if conv == "hns_heavy":
        return ("t", float(rng.uniform(1.5, 2.5)) if heavy else float(rng.uniform(2, 6)), int(run["df"]),
                float(rng.uniform(0.08, 0.25)) * (1.5 if heavy else 1.0))
    if conv == "frames_replay":
        return ("gm", int(rng.integers(2, 4)) if heavy else int(rng.integers(6, 17)), float(rng.uniform(0.1, 0.3)))
    if conv == "nav_ar1":
        n = int(rng.integers(1, 3)) if heavy else int(rng.integers(4, 17))
        if run["kind"] == "dist":
            return ("dist", n, float(rng.uniform(0.1, 0.3)), run["phi"])
        return ("time", n, run["r_b"], run["phi"])
    return ("judge", int(rng.integers(4, 9)) if heavy else int(rng.integers(16, 65)), float(rng.uniform(4, 12)))


def eval_noise(run: dict, rng, env_noise: tuple, heavy: bool = False) -> tuple | None:
    conv = run["convention"]
    if conv == "hns_heavy":
        return ("tm", int(rng.integers(3, 6)) if heavy else int(rng.integers(8, 31)), env_noise[2], env_noise[3])
    if conv == "frames_replay":
        return ("gm", int(rng.integers(3, 6)) if heavy else int(rng.integers(10, 31)), env_noise[2])
    if conv == "nav_ar1":
        n = int(rng.integers(3, 6)) if heavy else int(rng.integers(10, 31))
        return (env_noise[0], n, env_noise[2], 0.0)
    return ("judge", int(rng.integers(20, 40)) if heavy else int(rng.integers(100, 301)), env_noise[2])


# --- planning --------------------------------------------------------------------------------------

def train_pace(run: dict) -> float:
    """README's logging pace (in iterations) of a training grid over the whole run."""
    its = train_grid_base(run, 0, run["L"])
    d = np.diff(its).astype(float)
    if not len(d):
        return 1.0
    med = float(np.median(d))
    if np.mean(np.abs(d / med - np.round(d / med)) < 1e-9) >= 0.9:
        return med
    return float(np.mean(d[d < 3 * med]))


def train_grid_base(run: dict, lo: int, hi: int) -> np.ndarray:
    i = np.arange(lo, hi)
    pc = run.get("pace_change")
    if not pc:
        return i
    c, m1, m2 = pc
    return i[np.where(i < c, i % m1 == 0, i % m2 == 0)]


def window(run: dict) -> float:
    """W in iterations: max(min(100 steps, 10 % span), 20 J)."""
    U, L, Jp = run["unit"], run["L"], run["Jp"]
    return max(min(100.0 / U, 0.1 * (L - 1)), 20.0 * Jp)


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    L, W = env.L, window(run)
    Jp = run["Jp"]
    g = env.s1 - env.s0
    G = env.G or Jp
    phi = run.get("phi", 0.0) if smoothed_judged(run, env) else 0.0
    if ev in ("stag_never", "stag_freeze", "osc", "prolonged", "two_stage_stall", "two_stage"):
        env.variant = {"stag_never": "never", "stag_freeze": "freeze", "osc": "osc", "prolonged": "riser"}.get(ev, ev)
        env.event = {"osc": "performance_volatility", "prolonged": "prolonged_training",
                     "two_stage": "two_stage"}.get(ev, "training_stagnation")
        active = L - env.unlock
        if ev == "stag_never":
            if active < 6 * W:
                return False
            return make_visible(env, [env.s0, env.s1], g / 6)
        if ev == "stag_freeze":
            R = max(0.4 * W, 6.0 * Jp) * rng.uniform(1.0, 2.0)
            fr = float(rng.uniform(0.2, 0.5))
            if active < R + 5 * W + 3 / max(1e-9, 1 - phi):
                return False
            env.params.update(R=float(R), fr=fr)
            return make_visible(env, [env.s0, env.s0 + fr * g], 0.2 * fr * g)
        if ev in ("two_stage", "two_stage_stall"):
            R = max(0.4 * W, 6.0 * Jp) * rng.uniform(1.0, 2.0)
            fr = float(rng.uniform(0.3, 0.55))
            P = float(rng.uniform(5, 7) if ev == "two_stage_stall" else rng.uniform(0.8, 1.8)) * W
            T2 = float(rng.uniform(0.8, 1.5)) * W
            if env.unlock + R + P + T2 + 2 * W > L:
                return False
            env.params.update(R=float(R), fr=fr, P=P, T2=T2)
            if ev == "two_stage":
                env.event = env.variant = "two_stage"
                return make_visible(env, [env.s0, env.s0 + fr * g, env.s1], min(0.2 * fr * g, g / 8))
            return make_visible(env, [env.s0, env.s0 + fr * g, env.s1], 0.2 * fr * g)
        if ev == "osc":
            P = float(rng.uniform(8, 16)) * max(Jp, G if env.G else 1)
            if active < 4 * P:
                return False
            pp, mid = float(rng.uniform(0.45, 0.7)), float(rng.uniform(0.35, 0.55))
            att = 1.0
            if phi:
                w = 2 * math.pi / P
                att = (1 - phi) / abs(1 - phi * complex(math.cos(w), -math.sin(w)))
                pp_raw = pp / att
                if mid - pp_raw / 2 < 0.02 or mid + pp_raw / 2 > 0.98:
                    return False
                pp = pp_raw
            env.params.update(P=P, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)), att=att)
            return make_visible(env, [env.s0 + g * (mid - pp / 2), env.s0 + g * (mid + pp / 2)], pp * att * g / 6)
        if active < 12.5 * W or env.unlock != 0:
            return False
        env.params["rate"] = 0.62 * W / active
        return make_visible(env, [env.s0, env.s0 + 0.62 * g], 0.015 * g)
    e = base_curve(env, W)
    gp = grad_point(run, env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G)
    start = gp + margin
    E0 = start_of(env)
    gj = env.s1 - E0
    if ev in ("healthy", "noisy_healthy", "slow_learner", "late", "spiky"):
        if gp + 2 * W > L:
            return False
        env.event = env.variant = ev
        if ev == "spiky":
            lo = env.unlock + 3
            env.params["spikes"] = sorted(int(x) for x in rng.integers(lo, L, size=int(rng.integers(1, 4))))
            env.params["spike_k"] = float(rng.uniform(8, 15))
        return make_visible(env, [E0, env.s1], gj / (5 if ev == "noisy_healthy" else 8))
    if ev == "level_shift":
        d = float(rng.uniform(0.04, 0.06)) * g
        if env.s1 + d > 0.99 or start + 2 * W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.3) * (L - start - 2 * W))
        env.params["d"] = d
        return make_visible(env, [env.s0, env.s1 + d], g / 8)
    if ev == "single_outlier":
        if start + W > L:
            return False
        env.event = env.variant = ev
        at = int(start + rng.uniform(0, 1) * max(0, L - start - W))
        if env.G:
            its = eval_grid(env)
            its = its[its >= at]
            if not len(its):
                return False
            at = int(its[0])
        env.at = at
        return make_visible(env, [env.s0, env.s1], g / 8)
    if ev in ("reg_warning", "reg_critical"):
        keep = float(rng.uniform(0.72, 0.79)) if ev == "reg_warning" else float(rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        need = ramp + max(2 * W, 15 * G)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        env.event = "graduated_regression"
        env.variant = "sudden" if ramp == 0 else "gradual"
        env.severity = "warning" if keep >= 0.7 else "critical"
        low_s = skill_at_keep(run, env, keep)
        env.params.update(keep=keep, ramp=ramp, low_s=low_s)
        return make_visible(env, [env.s1, low_s, E0], (1 - keep) * gj / 4.0)
    if ev == "burst":
        if phi:
            return False
        B = int(max(W, 20 * G))
        need = B + max(W, 15 * G)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        bsd = float(rng.uniform(0.2, 0.3))
        env.event, env.variant = "performance_volatility", "burst"
        env.params.update(length=B, bsd=bsd)
        return make_visible(env, [env.s1, env.s1 - bsd * g], min(0.04, bsd / 4) * g)
    if ev == "switch":
        dmin = int(math.ceil(max(4 * Jp, 4 * G, 3 / max(1e-9, 1 - phi) if phi else 0)))
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
        return make_visible(env, [env.s1, env.s1 - gap * g], gap * g / 5)
    if ev == "eval_gap":
        if env.G is None:
            return False
        need = max(5 * max(50.0 / run["unit"], G), 2 * W) + 2 * G
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 0.5) * (L - start - need))
        env.event = env.variant = "eval_gap"
        return make_visible(env, [env.s0, env.s1], g / 8)
    if ev == "transition":
        if not run.get("states"):
            return False
        length = int(rng.uniform(0.5, 1.5) * W)
        if start + length + W > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - length - W))
        env.event, env.variant = "unexpected_transition", "revisit"
        env.params["length"] = length
        return make_visible(env, [env.s0, env.s1], g / 8)
    raise ValueError(ev)


def skill_at_keep(run: dict, env: Env, keep: float) -> float:
    """The skill whose expected judged value keeps `keep` of the gain (e is monotone in s)."""
    E0, E1 = E_levels(run, env)
    target = E0 + keep * (E1 - E0)
    lo, hi = start_of(env), env.s1
    for _ in range(60):
        mid = (lo + hi) / 2
        if float(e_map(run, env, np.array([mid]))[0]) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def truth(run: dict, env: Env) -> np.ndarray:
    """The skill per iteration (NaN before unlock), events applied; draws of bursts are seeded."""
    W = window(run)
    g = env.s1 - env.s0
    s = base_curve(env, W)
    p, v = env.params, env.variant
    rng = np.random.default_rng(zlib.crc32(f"{run['name']}/{env.name}".encode()))
    i = np.arange(env.L)
    if v in ("sudden", "gradual"):
        if p["ramp"] == 0:
            s[i >= env.at] = p["low_s"]
        else:
            u = np.clip((i - env.at) / p["ramp"], 0, 1)
            m = i >= env.at
            s[m] = s[m] + (p["low_s"] - s[m]) * u[m]
    elif v == "burst":
        seg = slice(env.at, env.at + p["length"])
        s[seg] = s[seg] - np.abs(rng.normal(0, p["bsd"] * g, size=len(s[seg])))
    elif v == "switch":
        for a, b, low in p["phases"]:
            if low:
                s[a:b] = env.s1 - p["gap"] * g
    elif v == "level_shift":
        s[env.at:] = s[env.at:] + p["d"]
    elif v == "single_outlier":
        s[env.at] = env.s0 + 0.05 * g
    return np.where(np.isnan(s), s, np.clip(s, 0.0, 1.0))


def new_env(run: dict, rng, name: str, unlock: int, has_eval: bool) -> Env:
    s0 = float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0.0, 1.0))
    s1 = float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 1.0))
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=1.0, curve=str(rng.choice(CURVES)),
              noise=default_noise(run, rng), L=run["L"])
    W = window(run)
    env.T = float(rng.uniform(0.8, 2.5) * W)
    if has_eval:
        env.G = run["G"]
        env.enoise = eval_noise(run, rng, env.noise)
    return env


POOLS = {
    "hns_heavy": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
                  "eval_gap", "transition", "prolonged", "two_stage_stall"],
    "frames_replay": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "eval_gap", "transition",
                      "transition"],
    "nav_ar1": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
                "eval_gap", "transition", "prolonged", "two_stage_stall"],
    "judge_resume": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze",
                     "osc", "eval_gap", "transition", "prolonged", "two_stage_stall"],
}
NEG_POOLS = {
    "hns_heavy": ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "two_stage",
                  "spiky", "spiky"],
    "frames_replay": ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier"],
    "nav_ar1": ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "two_stage"],
    "judge_resume": ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier",
                     "two_stage"],
}


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W)
    if neg == "noisy_healthy":
        env.noise = default_noise(run, rng, heavy=True)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng, env.noise, heavy=True)
    if not place(run, env, neg, rng):
        env.E0, env.at = None, None
        env.params = {}
        env.T = float(rng.uniform(0.8, 1.5) * W)
        env.curve = str(rng.choice(CURVES))
        env.noise = default_noise(run, rng)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng, env.noise)
        place(run, env, "healthy", rng)
        env.event = env.variant = "healthy"


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    run["Jp"] = 1.0
    if conv == "hns_heavy":
        run["unit"], run["first"] = int(rng.choice([1, 10000])), 0
        run["L"] = int(rng.integers(420, 701))
        run["b"] = float(rng.uniform(1.4, 4.5))
        run["df"] = int(rng.choice([2, 3, 4]))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.86, 0.97))
        run["G"] = int(rng.integers(10, 21)) if rng.random() < 0.7 else None
        run["states"] = bool(rng.random() < 0.4)
        if rng.random() < 0.5:
            m = int(rng.integers(2, 5))
            c = int(rng.uniform(0.3, 0.6) * run["L"])
            run["pace_change"] = (c, 1, m) if rng.random() < 0.5 else (c, m, 1)
        run["inf"] = bool(rng.random() < 0.35)
    elif conv == "frames_replay":
        run["unit"] = int(rng.choice([1_000_000, 4_000_000]))
        run["first"] = int(rng.choice([0, 200_000_000]))
        run["L"] = int(rng.integers(360, 561))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.03)), float(rng.uniform(0.85, 0.97))
        run["G"] = int(rng.integers(5, 11))
        run["states"] = bool(rng.random() < 0.5)
        run["words"] = bool(rng.random() < 0.5)
        run["replay"] = int(rng.integers(3, 9))
    elif conv == "nav_ar1":
        run["unit"], run["first"] = int(rng.choice([1, 100])), 0
        run["L"] = int(rng.integers(420, 801))
        run["kind"] = str(rng.choice(["dist", "time"]))
        run["phi"] = float(rng.uniform(0.6, 0.9))
        if run["kind"] == "dist":
            run["D"] = float(rng.uniform(5, 50))
            run["dmin"] = float(rng.uniform(0.1, 0.5))
        else:
            run["Tcap"] = float(rng.integers(200, 1001))
            run["mu"] = float(rng.uniform(0.15, 0.35)) * run["Tcap"]
            run["r_b"] = float(rng.uniform(0.05, 0.2))  # the solve time's sd over b = Tcap - mu
        run["s0"], run["s1"] = float(rng.uniform(0.03, 0.1)), float(rng.uniform(0.85, 0.93))
        run["G"] = int(rng.integers(10, 26)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)
    else:
        run["unit"], run["first"] = 1, 0
        run["L"] = int(rng.integers(420, 801))
        run["s0"], run["s1"] = float(rng.uniform(0.1, 0.3)), float(rng.uniform(0.8, 0.92))
        run["G"] = int(rng.integers(10, 21)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)
        run["resume"] = bool(rng.random() < 0.5)
        run["killed"] = bool(rng.random() < 0.33)
        run["short"] = bool(rng.random() < 0.5)
    run["Jp"] = train_pace(run)
    n = int(rng.integers(4, 8))
    names = NAMES[conv]
    W = window(run)
    waves = int(rng.integers(1, 4))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    envs = [new_env(run, rng, names[k], starts[j % waves] if j >= 2 else 0, run["G"] is not None)
            for j, k in enumerate(pick)]
    pool = [p for p in POOLS[conv] if (p != "eval_gap" or run["G"]) and (p != "transition" or run.get("states"))
            and (p != "prolonged" or not run.get("pace_change"))]
    has_prolonged = False
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.65:
            ev = str(rng.choice(pool))
            if ev == "prolonged" and has_prolonged:
                ev = "reg_critical"
            if ev == "prolonged":
                env.unlock = 0
            if place(run, env, ev, rng):
                has_prolonged |= ev == "prolonged"
                continue
            envs[j] = env = new_env(run, rng, env.name, env.unlock, run["G"] is not None)
        neg = "late" if env.unlock > 0 else str(rng.choice(NEG_POOLS[conv] if j >= 2 else NEG_POOLS[conv][:6]))
        apply_negative(run, env, neg, rng)
    if has_prolonged:  # README: at least twice the median time the graduated envs took; no slow learner beside it
        for env in envs:
            if env.variant in ("slow_learner", "two_stage") or (env.event not in EVENTS and env.T > 1.5 * W):
                env.T = float(rng.uniform(0.8, 1.5) * W)
                if env.variant in ("slow_learner", "two_stage"):
                    env.params = {}
                    env.event = env.variant = "healthy"
    learners = [e for e in envs if e.variant not in ("never", "freeze", "riser", "osc")]
    if len(learners) < max(2, len(envs) / 2):
        for k, e in enumerate(list(envs)):
            if e.variant in ("never", "freeze", "osc") and len(learners) < max(2, len(envs) / 2):
                fresh = new_env(run, rng, e.name, e.unlock, run["G"] is not None)
                apply_negative(run, fresh, "healthy", rng)
                envs[k] = fresh
                learners.append(fresh)
    if conv == "judge_resume":  # tasks cut off by the end: short ones, and mid-learning ones in killed runs
        left = [nm for nm in names if nm not in {e.name for e in envs}]
        extra = []
        if run["short"] and left:
            env = new_env(run, rng, left.pop(0), int(run["L"] - rng.integers(20, 41)), run["G"] is not None)
            env.T = float(rng.uniform(0.4, 1.0) * W)
            env.event = env.variant = "short"
            make_visible(env, [env.s0, env.s1], (env.s1 - env.s0) / 8)
            extra.append(env)
        if run["killed"]:
            for _ in range(int(rng.integers(1, 3))):
                if not left:
                    break
                env = new_env(run, rng, left.pop(0), int(run["L"] - rng.uniform(1.0, 2.0) * W), run["G"] is not None)
                env.T = float(rng.uniform(3.0, 4.0) * W)
                env.curve = str(rng.choice(["linear", "sqrt"]))
                env.event = env.variant = "midrise"
                make_visible(env, [env.s0, env.s1], (env.s1 - env.s0) / 8)
                extra.append(env)
        envs += extra
    run["envs"] = envs


# --- observing and labelling -----------------------------------------------------------------------

def eval_grid(env: Env) -> np.ndarray:
    if not env.G:
        return np.array([], int)
    on = np.arange(env.unlock, env.L)
    return on[(on - env.unlock) % env.G == env.G - 1]


def train_grid(run: dict, env: Env, gp: int | None) -> np.ndarray:
    its = train_grid_base(run, env.unlock, env.L)
    if run["convention"] == "frames_replay" and gp is not None:
        k = run["replay"]
        keep = (its < gp) | ((its - gp) % k == 0)
        if env.variant == "revisit":
            keep |= (its >= env.at) & (its < env.at + env.params["length"])
        its = its[keep]
    return its


def draw(run: dict, env: Env, noise: tuple, s: np.ndarray, rng) -> tuple[np.ndarray, dict]:
    """Noisy values in METRIC units around skill array s (NaN where no episode finished)."""
    kind = noise[0]
    s = np.clip(s, 0.0, 1.0)
    conv = run["convention"]
    if kind in ("t", "tm"):
        K = rng.poisson(noise[1], len(s)) if kind == "t" else np.full(len(s), int(noise[1]))
        df, scale = noise[2], noise[3]
        out = np.full(len(s), np.nan)
        for j, k in enumerate(K):
            if k:
                out[j] = float(np.mean(s[j] + scale * rng.standard_t(df, k)))
        return run["b"] * out, {"episodes": K}
    if kind == "gm":
        n, sig = int(noise[1]), noise[2]
        x = s + sig * rng.standard_normal(len(s)) / math.sqrt(n)
        lo, top = GAMES[env.name][0], GAMES[env.name][2]
        return lo + (top - lo) * x, {}
    if kind == "dist":
        n, sig = int(noise[1]), noise[2]
        x = np.clip(s[:, None] + sig * rng.standard_normal((len(s), n)), 0.0, 1.0).mean(axis=1)
        return run["dmin"] + (run["D"] - run["dmin"]) * (1 - x), {}
    if kind == "time":
        n, r = int(noise[1]), noise[2]
        Tcap, mu = run["Tcap"], run["mu"]
        b = Tcap - mu
        solved = rng.random((len(s), n)) < s[:, None]
        t = np.clip(np.round(mu + r * b * rng.standard_normal((len(s), n))), 1, Tcap)
        return np.where(solved, t, Tcap).mean(axis=1), {}
    if kind == "judge":
        n, kappa = int(noise[1]), noise[2]
        pe = np.clip(s, 1e-3, 1 - 1e-3)
        pi = rng.beta(pe[:, None] * kappa, (1 - pe[:, None]) * kappa, size=(len(s), n))
        scores = rng.binomial(10, pi)
        return scores.mean(axis=1), {"response_len": 300 + 200 * (1 - s) + rng.normal(0, 20, len(s))}
    raise ValueError(kind)


def observe(run: dict, env: Env, s: np.ndarray, gp: int | None, rng) -> dict:
    ev_its = eval_grid(env)
    if env.variant == "eval_gap":
        ev_its = ev_its[ev_its < env.at]
    tr_its = train_grid(run, env, gp)
    tr, extra = draw(run, env, env.noise, s[tr_its], rng)
    if run["convention"] == "nav_ar1":
        tr = ema(tr, run["phi"])  # the logger writes its running mean
    if env.variant == "spiky":
        sd = point_sd(env.noise, env.s1)
        for at in env.params["spikes"]:
            k = np.flatnonzero(tr_its >= at)
            if len(k) and not np.isnan(tr[k[0]]):
                tr[k[0]] += env.params["spike_k"] * sd * run["b"]
    ev = draw(run, env, env.enoise, s[ev_its], rng)[0] if len(ev_its) else np.array([])
    return {"train": (tr_its, tr), "eval": (ev_its, ev), "extra": extra}


def state_series(env: Env, gp: int | None, its: np.ndarray) -> list[tuple[int, int]]:
    out = []
    for i in its:
        v = 0 if i < env.unlock else (2 if gp is not None and i >= gp else 1)
        if env.variant == "revisit" and env.at <= i < env.at + env.params["length"]:
            v = 1
        out.append((int(i), v))
    return out


def label_for(run: dict, env: Env, e: np.ndarray, its: np.ndarray, ev_its: np.ndarray, W: float) -> dict | None:
    if env.event not in EVENTS:
        return None
    step = lambda i: int(run["first"] + int(i) * run["unit"])  # noqa: E731
    E0, E1 = E_levels(run, env)
    gj = E1 - E0
    v, p = env.variant, env.params
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v in ("freeze", "two_stage_stall"):
        flat = float(e_map(run, env, np.array([env.s0 + p["fr"] * (env.s1 - env.s0)]))[0])
        rise = flat - E0
        a = int(math.ceil(env.unlock + p["R"]))
        near = np.flatnonzero((np.arange(len(e)) >= a) & (e >= flat - 0.1 * rise))
        t0 = int(near[0]) if len(near) else a
    elif v == "riser":
        return mk(run, env, step(its[0]) + int(round(10 * W * run["unit"])))
    elif v == "eval_gap":
        return mk(run, env, step(ev_its[-1]) + env.G * run["unit"])
    elif v == "revisit":
        t0 = env.at  # the first logged state point with the backward value
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gj))
        t0 = int(below[0])
    elif v == "burst":
        sd = point_sd(judged_noise(env), env.s1)
        thr = max(0.15 * gj, 4 * sd)
        a, B = env.at, p["length"]
        judged = ev_its if len(ev_its) else its
        off = [i for i in judged if a <= i < a + B and E1 - e[i] > thr]
        if not off:
            return None
        t0 = off[0]
    elif v == "switch":
        t0 = p["phases"][0][0]
        if smoothed_judged(run, env):
            half = E1 - 0.5 * p["gap"] * (env.s1 - env.s0)
            down = np.flatnonzero((np.arange(len(e)) >= t0) & (e <= half))
            t0 = int(down[0]) if len(down) else t0
    else:
        raise ValueError(v)
    ok = its[its >= t0 - 1e-9]
    return mk(run, env, step(ok[0])) if len(ok) else None


def mk(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant}", variant=env.variant, noise=str(judged_noise(env)[0]))


# --- writers ---------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0
WORDS = {0: "locked", 1: "active", 2: "graduated"}


def _tests():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import writers

    return writers


def _step(run: dict, i) -> int:
    return int(run["first"] + int(i) * run["unit"])


def _rows(run: dict, data: dict, train_tags, eval_tags, state_tag) -> dict[int, list]:
    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        tr_its, tr = d["train"]
        for j, i in enumerate(tr_its):
            for tag, val in train_tags(env, tr[j], {k: v[j] for k, v in d["extra"].items()}):
                rows.setdefault(int(i), []).append((tag, val))
        for i, v in zip(*d["eval"]):
            for tag, val in eval_tags(env, v):
                rows.setdefault(int(i), []).append((tag, val))
        if state_tag and run.get("states"):
            for i, v in d["states"]:
                rows.setdefault(int(i), []).append((state_tag(env.name), v))
    return rows


def _writer(folder: Path):
    from tensorboardX import SummaryWriter

    return SummaryWriter(str(folder), flush_secs=3600, max_queue=1 << 20)


def _write_rows(w, run: dict, rows: dict[int, list], its, wall_offset: float = 0.0, run_tag=None) -> None:
    for i in its:
        st = _step(run, i)
        for tag, v in rows.get(i, []):
            w.add_scalar(tag, float(v), st, walltime=WALL0 + wall_offset + i * 3.0)
        if run_tag and i in rows:
            w.add_scalar(run_tag[0], run_tag[1], st, walltime=WALL0 + wall_offset + i * 3.0)


def _name_file(folder: Path, start: int) -> None:
    """Give the event file the writer just closed the name it would have had if started at WALL0 + start."""
    new = [f for f in folder.glob("events.out.tfevents.*") if ".trainer-0" not in f.name]
    for f in new:
        f.rename(folder / f"events.out.tfevents.{int(WALL0) + start}.trainer-0")


def _raw_return(env: Env, hns: float) -> float:
    lo, human, _ = GAMES[env.name]
    return lo + hns * (human - lo)


def write_hns(folder: Path, run: dict, data: dict) -> None:
    rows = _rows(run, data, lambda e, v, x: [(f"train/{e.name}/hns", v), (f"train/{e.name}/episode_return",
                                                                         _raw_return(e, v))],
                 lambda e, v: [(f"eval/{e.name}/hns", v), (f"eval/{e.name}/episode_return", _raw_return(e, v))],
                 lambda n: f"curriculum/{n}/state")
    w = _writer(folder)
    _write_rows(w, run, rows, sorted(rows))
    w.close()
    _name_file(folder, 0)


def write_nav(folder: Path, run: dict, data: dict) -> None:
    metric = "dist_to_goal" if run["kind"] == "dist" else "time_to_solve"
    rows = _rows(run, data, lambda e, v, x: [(f"nav/{e.name}/train/{metric}", v)],
                 lambda e, v: [(f"nav/{e.name}/eval/{metric}", v)], lambda n: f"nav/{n}/stage")
    w = _writer(folder)
    _write_rows(w, run, rows, sorted(rows), run_tag=("charts/fps", 2400.0))
    w.close()
    _name_file(folder, 0)


def write_judge(folder: Path, run: dict, data: dict, redraw: dict | None) -> None:
    """One SummaryWriter; a resumed run's second one (an hour later) rewrites from its checkpoint; a killed run's
    last file ends inside its last record."""
    tags = (lambda e, v, x: [(f"train/{e.name}/rm_score", v), (f"train/{e.name}/response_len", x["response_len"])],
            lambda e, v: [(f"eval/{e.name}/rm_score", v)], lambda n: f"curriculum/{n}/state")
    rows = _rows(run, data, *tags)
    w = _writer(folder)
    if redraw is None:
        _write_rows(w, run, rows, sorted(rows), run_tag=("actor/lr", 1e-6))
        w.close()
        _name_file(folder, 0)
    else:
        died, ckpt = run["died"], run["ckpt"]
        _write_rows(w, run, rows, [i for i in sorted(rows) if i < died], run_tag=("actor/lr", 1e-6))
        w.close()
        _name_file(folder, 0)
        rows2 = _rows(run, redraw, *tags)
        w = _writer(folder)
        _write_rows(w, run, rows2, [i for i in sorted(rows2) if i >= ckpt], wall_offset=3600.0 + 3.0 * (died - ckpt),
                    run_tag=("actor/lr", 1e-6))
        w.close()
        _name_file(folder, 3600 + 3 * died)
    if run.get("killed"):
        last = sorted(folder.glob("events.out.tfevents.*"), key=lambda f: int(f.name.split(".")[3]))[-1]
        data_b = last.read_bytes()
        cut = int(run["cut_bytes"])
        last.write_bytes(data_b[:len(data_b) - cut])


def write_frames(folder: Path, run: dict, data: dict) -> None:
    w = _tests()
    rows = _rows(run, data, lambda e, v, x: [(f"train/{e.name}/episode_return", v)],
                 lambda e, v: [(f"eval/{e.name}/episode_return", v)], lambda n: f"curriculum/{n}/state")
    out, steps = [], []
    for i in sorted(rows):
        r = {}
        for tag, v in rows[i]:
            r[tag] = (WORDS[int(v)] if run.get("words") else int(v)) if tag.endswith("/state") else float(v)
        r["perf/fps"] = 24000.0
        out.append(r)
        steps.append(_step(run, i))
    w.write_wandb(folder / "wandb", out, steps=steps, run_id=run["trial"], name=f"replay-{run['trial']}")


# --- build -----------------------------------------------------------------------------------------

def observe_run(run: dict, orng) -> tuple[dict, dict]:
    W = window(run)
    data, meta = {}, {}
    for env in run["envs"]:
        s = truth(run, env)
        gp = grad_point(run, env, base_curve(env, W), W)
        env.params["graduated_point"] = gp
        obs = observe(run, env, s, gp, orng)
        d = dict(obs)
        if run.get("states"):
            its = np.unique(np.concatenate([obs["train"][0], obs["eval"][0]])).astype(int)
            d["states"] = state_series(env, gp, its)
        data[env.name] = d
        meta[env.name] = (s, gp)
    return data, meta


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"h{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        run["trial"] = f"{zlib.crc32(f'thirteenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
        prng = np.random.default_rng(run["seed"])
        plan_run(run, prng)
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        orng = np.random.default_rng(run["seed"] + 1)
        W = window(run)
        data, truths = observe_run(run, orng)
        if conv == "hns_heavy" and run.get("inf"):
            clean = [e for e in run["envs"] if e.event not in EVENTS]
            if clean:
                tgt = clean[int(prng.integers(len(clean)))]
                tr_its, tr = data[tgt.name]["train"]
                k = int(prng.integers(len(tr) // 3, len(tr)))
                tr[k] = np.inf
                run["inf_at"] = [tgt.name, int(tr_its[k])]
        tol = []
        for env in run["envs"]:
            s, gp = truths[env.name]
            d = data[env.name]
            tr_its, tr = d["train"]
            fin = np.isfinite(tr)
            its = np.unique(np.concatenate([tr_its[fin], d["eval"][0]])).astype(int)
            e = e_series(run, env, s)
            G_steps = (env.G or run["Jp"]) * run["unit"]
            tol.append(max(W * run["unit"] / 10.0, G_steps))
            lab = label_for(run, env, e, its, np.asarray(d["eval"][0], int), W)
            if lab:
                labels.append(lab)
        if conv == "hns_heavy":
            write_hns(folder, run, data)
        elif conv == "nav_ar1":
            write_nav(folder, run, data)
        elif conv == "frames_replay":
            write_frames(folder, run, data)
        else:
            redraw = None
            if run["resume"]:
                run["died"] = int(prng.uniform(0.4, 0.8) * run["L"])
                run["ckpt"] = run["died"] - int(prng.integers(5, 21))
                redraw, _ = observe_run(run, np.random.default_rng(run["seed"] + 2))
            if run["killed"]:
                run["cut_bytes"] = int(prng.integers(1, 20))
            write_judge(folder, run, data, redraw)
        meta = {k: v for k, v in run.items() if k != "envs"}
        meta.update(tolerance_unit=int(round(max(tol))), window_steps=W * run["unit"],
                    eval_every=int((run["G"] or run["Jp"]) * run["unit"]))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                         "curve": e.curve, "noise": list(e.noise), "eval_noise": list(e.enoise) if e.enoise else None,
                         "unlock": e.unlock, "s0": e.s0, "s1": e.s1, "E0": e.E0, "T": e.T, "G": e.G, "at": e.at,
                         "L": e.L, "params": {k: v for k, v in e.params.items() if k != "phases"}}
                        for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))
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
    return str(o)
