"""The fifth detection corpus (`python benchmarks/detection.py --corpus fifth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, direction and thresholds, logging shapes, what
`unknown` means; the design notes; log-conventions.md; issue 9; profiles.py for the key spellings), without
reading the rules' or the analysis code, and without looking at which cases curriwatch misses. Meant to be
read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-fifth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen to differ from the four other corpora:

  roll_wandb     ROLL's wandb tracker (`run.log(values, step=step)`, log-conventions.md) as a W&B OFFLINE run
                 (tests/writers.write_wandb with step=): `env/{tag}/success`, `env/{tag}/num_actions`,
                 `val/env/{tag}/success`, `val/{tag}/score/mean|max`, `env/all/…`, `system/tps`. Success rates
                 over the step's group of 8..32 episodes (a coarse lattice; more where a visibility
                 bound asks). Half the runs are RESUMED: the job died at 30..80 % of the run and a second
                 offline run with the SAME run id (a second `offline-run-…-{id}` folder) continues from a
                 checkpoint 3..15 steps back, rewriting them.
  tune_tbx       Ray Tune's TBXLoggerCallback alone (TensorBoard, no result.json / progress.csv): tags
                 `ray/tune/episode_reward_mean` (the OLD RLlib key), `ray/tune/evaluation/episode_reward_mean`,
                 `ray/tune/episode_len_mean`, bookkeeping and learner keys; step = timesteps_total; one trial
                 (one env, named by params.json's `env`) per run; LARGE
                 POSITIVE returns (MuJoCo-like, 0..5,000) or returns CROSSING ZERO (-150..+250), heavy-tailed
                 Student-t (df 3) or AR(1) (rho 0.5..0.9) noise.
  gen_ema        generic `train|eval/{env}/reward` (+ `curriculum/{env}/state` in half the runs), tensorboardX;
                 the TRAIN series is an EXPONENTIAL MOVING AVERAGE (alpha 0.1..0.3) of noisy per-iteration
                 rewards, as trainers that log a smoothed reward do (autocorrelated); evals at IRREGULAR times
                 (gaps uniform 0.4..1.6 x the mean) or none; returns crossing zero (-150..+250); 3..24 envs
                 (20+ in some runs); 40 % of runs RESUMED from a checkpoint: a second event file in the same
                 folder, started an hour later (a wall-time pause), rewriting the last 3..15 iterations.
  userprof_flat  a USER PROFILE over flat TensorBoard tags `Accuracy/Train_{env}`, `Accuracy/Valid_{env}`
                 (regex in the group's curriwatch.yaml; `Valid` is README's `valid` alias), state
                 `Stage/{env}` (0/1/2) in 60 % of the runs; ACCURACY IN PERCENT (0..100, rounded to
                 INTEGERS: quantized), near-deterministic (sd 0.15..0.4 points) or binomial over 100..400
                 problems; or a second profile `Frames/(Train|Valid)_{env}`: frames to solve a maze
                 (2,000 -> 200, integers), LOWER IS BETTER, declared only by `overrides: [{env: "maze*",
                 direction: lower}]`; eval-only runs (no Train tag) in a quarter of them.
  atropos_levels Atropos LEVELS INSIDE AN ENV (environments/infinimath/infinimath_env.py wandb_log, prefixed
                 `{env}_0_` by the server): `train/level_{L}_correct` + `train/level_{L}_count` for the
                 current level, `train/percent_correct` (the overall rate, the current level's), evals
                 `eval/level_{L}_correct|count` of every level reached, `curriculum/current_level`,
                 `curriculum/max_level`, `curriculum/progress_percent` and `curriculum/level_description` (a
                 string); one W&B offline run per env process, `group=` the benchmark run, logged with
                 step=. Each level is an env `{env}/level_{L}` whose states come from the current level
                 (README); 3..9 levels per env (levels are added until the run spans 10 W), 1..2 env processes.

Truth.  Time is in iterations i = 0..L-1; step(i) = step0 + unit * i. Every env has a skill s(i) in [0, 1]
(NaN before its unlock), mapped to its metric by value = a + b * s (b < 0 for frames: skill is always
higher-is-better). A learner goes from s0 to s1 over T iterations (exp, logistic, sqrt, linear, staircase of
2..3 stairs, or late: flat at s0 for 0.6..1.2 W then a smoothstep) and is flat at s1 from T on. In a run all
envs share one scale (starts within 0.05, tops within 0.04). The train series is s - delta (delta 0..0.02),
the eval series s.
  J  judged interval      the train logging interval (the eval interval when only evals are logged)
  W  stagnation window    max(min(100 steps, 10 % of the run's span), 20 J) (README: training_stagnation)
  G  eval interval        the mean eval interval, else the train interval
  Q  tolerance unit       max(W / 10, G) in steps = `tolerance_unit` in plan.json; a detection matches a label
                          within 2 Q (benchmarks/detection.py)
"Graduated" (truth) = the skill has reached s0 + 0.9 (s1 - s0) and then held max(0.3 W, 3 G) more; logged
states go to 2 there, and an Atropos env's current level moves past the level there (its training stops).
Healthy envs reach their top within 1.2..3.5 W (late learners and staircases within 4.5 W).

Labels (an env carries at most one, except an Atropos demotion; onset in steps; "first point" = the first
logged point of the env's performance, train or eval, at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden, gradual (straight ramp over 0.5..2 W) or
                         temporary (sudden, back to the held level after max(2 W, 20 G)) fall to
                         s0 + keep (s1 - s0); keep 0.73..0.79 -> warning, 0.1..0.6 -> critical; the others last
                         to the run's end (>= max(2 W, 15 G)). Onset = first point at or after the true curve
                         first keeps < 0.85 of the gain (README first_step)
  training_stagnation    freeze: a learner stops at 0.2..0.5 of its gain (below 0.6 absolute for a rate) after a
                         rise of >= max(0.4 W, 6 J), flat and active >= 5 W to the end (onset = first point of the
                         flat stretch); never: flat at s0 from activation for >= 6 W (onset = its first point);
                         multi-env runs of unbounded metrics need learning siblings (a majority); a one-env run
                         only has `never`
  performance_volatility after graduation + margin: burst (max(W, 20 G) of points scattered N(0, 0.2..0.3 gain)
                         off the held level, both ways where the metric has room, else downward; onset = its
                         first point off the held level by > max(0.15 gain, 4 sd)); switch (Markov: held and
                         held - 0.4..0.6 gain, dwells >= 4 judged points, >= 8 changes, to the end; onset = the
                         first low phase); lifelong oscillation (sinus from activation, never learning, mid
                         0.35..0.55, peak-to-peak 0.45..0.7 gain, period 8..25 judged points; onset = first point)
  unexpected_transition  logged states: 2 -> 1 after graduation for 0.5..1.5 W, then 2 again; Atropos: a
                         DEMOTION (current_level L -> L-1 for 0.3..0.5 W, then back): level L-1 goes 2 -> 1 and
                         level L 1 -> 0 (README: states from the current level), both labelled; onset = first
                         logged state point with the backward value
  eval_gap               train+eval runs: after graduation + margin the env's evals stop for the rest of the run
                         (>= max(8 x max(50 steps, G), 2 W) left); onset = last eval + the env's eval pace
                         (README's first_step; pace = the median interval, or for irregular evals the mean of
                         the intervals under 3 x the median)
  prolonged_training     a steady riser (linear, 0.045..0.06 gain per W, never above 0.68 of it) in a multi-env
                         run 12.5..15 W long whose siblings graduate within 3.5 W; onset = its first point + 10 W,
                         W from its own logging pace (README)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (heavy noise), late_learner,
staircase, single_outlier (one judged point at 0.05 of the gain), level_up (a sudden +0.03..0.06 gain after
graduation, where there is room), late_healthy (unlocked at 0.35..0.55 of the run), and Atropos' `aggregate`
env `{env}` (train/percent_correct, the current level's rate: a saw-tooth at each advance, no event).

Noise (skill units): binomial (rates; the lattice of n episodes or problems), Student t df 3, AR(1) rho 0.5..0.9,
gaussian, near-deterministic gaussian (sd 0.0015..0.004), EMA-smoothed (gen_ema's train: raw sd 0.05..0.2 x
sqrt(alpha / (2 - alpha))), integer rounding (percent, frames). Heavy (noisy negatives only): sd 0.08..0.12,
binomial n 6..10.
Visibility bounds (the logged series' point sd, at every level the event visits): regression <= drop / 4 (a
fall of at least 4 sd, for >= max(2 W, 15 G)); burst base <= min(0.04, burst sd / 4); switching <= gap / 5;
oscillation <= peak-to-peak / 6; stagnation <= min(0.05, 0.2 x the rise before the freeze); prolonged riser
<= 0.03. Noise is made quieter (same family) until it meets the bound.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the writers the tests use

VERSION = 2  # 2: a Tune trial's env is its params.json `env` (1: the trial folder's name)
N_RUNS = 60
SMALL_RUNS = 15
CYCLE = ("gen_ema", "roll_wandb", "tune_tbx", "userprof_flat", "atropos_levels",
         "tune_tbx", "gen_ema", "userprof_flat", "roll_wandb", "atropos_levels",
         "userprof_flat", "tune_tbx", "gen_ema", "roll_wandb", "atropos_levels")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
WALL0 = 1.76e9

KINDS = {  # value = a + b * skill; smax: the physical bound in skill units
    "success": dict(a=0.0, b=1.0, rate=True, smax=1.0, lo=0.0),
    "levels": dict(a=0.0, b=1.0, rate=True, smax=1.0, lo=0.0),
    "mujoco": dict(a=0.0, b=5000.0, rate=False, smax=1.2, lo=-0.1),
    "lunar": dict(a=-150.0, b=400.0, rate=False, smax=1.25, lo=-1.0),
    "pct": dict(a=0.0, b=100.0, rate=False, smax=1.0, lo=0.0),
    "frames": dict(a=2000.0, b=-1800.0, rate=False, smax=1.1, lo=0.0),
}

CONFIGS = {
    "userprof_flat": """\
profiles:
  flatacc:
    patterns:
      - {regex: '^Accuracy/(?P<split>Train|Valid)_(?P<env>[A-Za-z0-9_.-]+)$', metric: accuracy}
      - {regex: '^Stage/(?P<env>[A-Za-z0-9_.-]+)$', split: state, metric: state}
    performance_metric: accuracy
  flatframes:
    patterns:
      - {regex: '^Frames/(?P<split>Train|Valid)_(?P<env>[A-Za-z0-9_.-]+)$', metric: frames}
      - {regex: '^Stage/(?P<env>maze[A-Za-z0-9_.-]*)$', split: state, metric: state}
    performance_metric: frames
overrides:
  - {env: "maze*", direction: lower}
""",
}

ENV_NAMES = {
    "roll_wandb": ["FrozenLake4x4", "Sokoban6x6", "Sokoban8x8", "Countdown3", "WebShopLite", "BlackJack",
                   "GuessNumber", "Hanoi3"],
    "gen_ema": ["lunar_easy", "lunar_wind", "lunar_gusts", "lunar_night", "lunar_fuel", "lunar_ice", "lunar_rock",
                "lunar_cliff", "lunar_crater", "lunar_dust", "lunar_low_g", "lunar_high_g"],
    "pct": ["arith2", "arith3", "algebra1", "geometry", "logic_grid", "word_probs", "units", "fractions"],
    "frames": ["maze7", "maze9", "maze11", "maze13", "maze_keys", "maze_doors", "maze_spiral"],
    "atropos_levels": ["infinimath", "countdown_lv"],
    "tune_mujoco": ["HalfCheetah-v4", "Hopper-v4", "Walker2d-v4", "Ant-v4", "Humanoid-v4", "Swimmer-v4"],
    "tune_lunar": ["LunarLander-v2", "LunarLanderContinuous-v2", "BipedalWalker-v3"],
}


@dataclass
class Env:
    name: str
    unlock: int
    curve: str
    T: float
    s0: float
    s1: float
    noise: tuple
    delta: float = 0.0
    event: str = "healthy"
    variant: str = ""
    severity: str | None = None
    at: int | None = None
    params: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- noise

def sd_at(noise: tuple, level: float) -> float:
    if noise[0] == "binom":
        p = min(max(level, 0.0), 1.0)
        return math.sqrt(max(p * (1 - p), 0.0025) / noise[1])
    return float(noise[1])


def logged_sd(env: Env, level: float) -> float:
    """The worst point sd of the env's logged series (train: the EMA of its raw noise where smoothed)."""
    sd = sd_at(env.noise, level)
    tr = env.params.get("tr_noise")
    if tr is not None:
        a = env.params["ema"]
        sd = max(sd, sd_at(tr, level) * math.sqrt(a / (2 - a)))
    if env.params.get("n_tr"):  # ROLL's and Atropos' train rates: a group of n_tr episodes per step
        sd = max(sd, sd_at(("binom", env.params["n_tr"]), level))
    return sd


def quieter(noise: tuple) -> tuple:
    if noise[0] == "binom":
        return ("binom", int(noise[1] * 2))
    return (noise[0], noise[1] * 0.75) + tuple(noise[2:])


def shrink(env: Env, limit: float, levels) -> None:
    """The same families, quieter until the logged sd at every level is within `limit`."""
    for _ in range(80):
        if max(logged_sd(env, lv) for lv in levels) <= limit:
            return
        env.noise = quieter(env.noise)
        if env.params.get("tr_noise") is not None:
            env.params["tr_noise"] = quieter(env.params["tr_noise"])
        if env.params.get("n_tr"):
            env.params["n_tr"] = int(env.params["n_tr"] * 2)


def draw_noise(rng, conv: str, heavy: bool = False) -> tuple:
    if conv in ("roll_wandb", "atropos_levels"):
        return ("binom", int(rng.choice([6, 8, 10]))) if heavy else ("binom", int(rng.choice([32, 64, 128, 256])))
    if conv == "userprof_flat":
        if heavy:
            return ("gauss", float(rng.uniform(0.08, 0.12)))
        return ("det", float(rng.uniform(0.0015, 0.004))) if rng.random() < 0.5 else \
            ("binom", int(rng.choice([100, 200, 400])))
    fam = str(rng.choice(["t3", "ar", "gauss"]))
    if heavy:
        return ("t3" if fam == "ar" else fam, float(rng.uniform(0.08, 0.12)))
    if fam == "ar":
        return ("ar", float(rng.choice([0.01, 0.02, 0.035])), float(rng.uniform(0.5, 0.9)))
    if rng.random() < 0.15:
        return ("det", float(rng.uniform(0.0015, 0.004)))
    return (fam, float(rng.choice([0.01, 0.02, 0.035, 0.05])))


def sample(noise: tuple, s: np.ndarray, rng) -> np.ndarray:
    """One noisy observation per point of skill s."""
    n = len(s)
    if n == 0:
        return np.zeros(0)
    fam = noise[0]
    if fam == "binom":
        return rng.binomial(int(noise[1]), np.clip(s, 0, 1)) / int(noise[1])
    sd = noise[1]
    if fam == "t3":
        e = rng.standard_t(3, n) * sd / math.sqrt(3.0)  # df 3: variance 3
    elif fam == "ar":
        rho = noise[2]
        w = rng.normal(0, sd * math.sqrt(1 - rho * rho), n)
        e = np.empty(n)
        prev = rng.normal(0, sd)
        for j in range(n):
            prev = rho * prev + w[j]
            e[j] = prev
    else:  # gauss, det
        e = rng.normal(0, sd, n)
    return s + e


def noise_tag(env: Env) -> str:
    sd = logged_sd(env, 0.8)
    lvl = "verylow" if sd < 0.006 else "low" if sd < 0.02 else "mid" if sd < 0.05 else "high" if sd < 0.08 \
        else "heavy"
    fam = env.noise[0] + ("+ema" if env.params.get("tr_noise") is not None else "")
    return f"{fam}/{lvl}"


# --------------------------------------------------------------------------- curves

def curve_f(env: Env, u: np.ndarray) -> np.ndarray:
    """Share of the gain reached at u = (i - unlock) / T; 1 from u = 1 on."""
    u = np.clip(np.asarray(u, float), 0, None)
    c = env.curve
    if c == "flat":
        return np.zeros_like(u)
    if c == "riser":
        return u * env.params["slope_T"]
    v = np.clip(u, 0, 1)
    if c == "exp":
        return (1 - np.exp(-5 * v)) / (1 - math.exp(-5))
    if c == "logistic":
        lo, hi = 1 / (1 + math.exp(5)), 1 / (1 + math.exp(-5))
        return (1 / (1 + np.exp(-10 * (v - 0.5))) - lo) / (hi - lo)
    if c == "sqrt":
        return np.sqrt(v)
    if c == "linear":
        return v
    if c == "late":
        d = env.params["late_d"]
        w = np.clip((v - d) / (1 - d), 0, 1)
        return w * w * (3 - 2 * w)
    # staircase: ramps of 5 % of T at the given fractions
    stairs = env.params["stairs"]
    out = np.zeros_like(v)
    for at in stairs:
        out += np.clip((v - at) / 0.05, 0, 1) / len(stairs)
    return out


def reach90(env: Env) -> float | None:
    """Iterations from unlock to 90 % of the gain (None: never)."""
    if env.curve in ("flat", "riser"):
        return None
    u = np.linspace(0, 1, 4001)
    return float(u[int(np.flatnonzero(curve_f(env, u) >= 0.9 - 1e-9)[0])] * env.T)


# --------------------------------------------------------------------------- run shapes

def shape_of(conv: str, rng) -> dict:
    d = dict(offset=0, irregular=False, explicit=False, resume=False, ema=0.0, kind="success", step0_plus=0)
    if conv == "roll_wandb":
        ev = int(rng.choice([0, 10, 20]))
        d.update(L=int(rng.choice([300, 800, 2000])), unit=1, train_every=1, eval_every=ev,
                 irregular=bool(ev and rng.random() < 0.5), n_envs=int(rng.integers(2, 7)),
                 resume=bool(rng.random() < 0.5), kind="success")
    elif conv == "tune_tbx":
        d.update(L=int(rng.choice([150, 400, 1000])), unit=int(rng.choice([1000, 4000])), train_every=1,
                 eval_every=int(rng.choice([0, 5, 10, 20])), n_envs=1, step0_plus=1,
                 kind="mujoco" if rng.random() < 0.6 else "lunar")
    elif conv == "gen_ema":
        many = rng.random() < 0.3
        ev = 0 if rng.random() < 0.15 else int(rng.choice([10, 25, 50]))
        d.update(L=int(rng.choice([400, 800, 1500])) if many else int(rng.choice([200, 600, 1500, 4000])),
                 unit=int(rng.choice([1, 1, 10])), train_every=int(rng.choice([1, 1, 5])), eval_every=ev,
                 irregular=bool(ev and rng.random() < 0.6),
                 n_envs=int(rng.integers(20, 25)) if many else int(rng.choice([3, 5, 8])),
                 explicit=bool(rng.random() < 0.5), resume=bool(rng.random() < 0.4),
                 ema=float(rng.choice([0.1, 0.2, 0.3])), kind="lunar")
    elif conv == "userprof_flat":
        eval_only = rng.random() < 0.25
        d.update(L=int(rng.choice([100, 400, 1200])), unit=int(rng.choice([1, 100])),
                 train_every=0 if eval_only else int(rng.choice([1, 2])),
                 eval_every=int(rng.choice([1, 2])) if eval_only else int(rng.choice([5, 10, 20])),
                 n_envs=int(rng.integers(2, 8)), explicit=bool(rng.random() < 0.6),
                 kind="frames" if rng.random() < 0.4 else "pct")
    else:  # atropos_levels: L is set after the level chains are planned
        ev = int(rng.choice([10, 20, 25]))
        d.update(L=0, unit=1, train_every=1, eval_every=ev, irregular=bool(rng.random() < 0.3),
                 n_envs=0, explicit=True, kind="levels", n_proc=int(rng.choice([1, 1, 2])))
    return d


def windows(run: dict, L: int | None = None) -> None:
    unit = run["unit"]
    L = run["L"] if L is None else L
    J = run["train_every"] or run["eval_every"]
    W = max(min(100.0 / unit, 0.1 * (L - 1)), 20.0 * J)
    G = run["eval_every"] or run["train_every"]
    run.update(J=J, W=W, G=G, Q=max(W / 10, G))


def pace(steps) -> float:
    """README's logging pace: the median interval when logging is regular (intervals whole multiples of it),
    else the mean of the intervals under 3 x the median."""
    d = np.diff(np.unique(np.asarray(steps, float)))
    if not len(d):
        return 1.0
    med = float(np.median(d))
    r = d / med
    if np.mean(np.abs(r - np.round(r)) < 0.01) >= 0.9:
        return med
    return float(np.mean(d[d < 3 * med]))


# --------------------------------------------------------------------------- planning

def env_names(run: dict, rng) -> list[str]:
    conv, n = run["convention"], run["n_envs"]
    if conv == "tune_tbx":
        pool = ENV_NAMES["tune_mujoco" if run["kind"] == "mujoco" else "tune_lunar"]
        nm = str(rng.choice(pool))
        rng.integers(16 ** 5)  # (VERSION 1 drew the trial folder's hex here; kept so the draws stay the same)
        return [nm]
    pool = ENV_NAMES[run["kind"] if conv == "userprof_flat" else conv]
    names = [str(x) for x in rng.permutation(pool)]
    k = 2
    while len(names) < n:
        names += [f"{x}_{k}" for x in pool]
        k += 1
    return names[:n]


def new_env(run: dict, rng, name: str, unlock: int, s0: float, s1: float) -> Env:
    W = run["W"]
    curve = str(rng.choice(["exp", "logistic", "sqrt", "linear", "exp", "logistic"]))
    env = Env(name, unlock, curve, float(rng.uniform(1.2, 3.5) * W), s0, s1, draw_noise(rng, run["convention"]))
    env.delta = float(rng.choice([0.0, 0.01, 0.02]))
    env.params["wait"] = max(0.3 * W, 3 * run["G"])
    if run["ema"]:
        env.params["ema"] = run["ema"]
        env.params["tr_noise"] = ("t3" if rng.random() < 0.5 else "gauss", float(rng.uniform(0.05, 0.2)))
    if run["convention"] in ("roll_wandb", "atropos_levels"):
        env.params["n_tr"] = int(rng.choice([8, 16, 32]))
    return env


def grad_of(env: Env) -> float | None:
    """Truth graduation (iteration): 90 % of the gain reached, then held `wait` more."""
    if env.event in ("training_stagnation", "prolonged_training") or env.variant == "sinus_life":
        return None
    r = reach90(env)
    return None if r is None else env.unlock + r + env.params["wait"]


def plan_run(name: str, conv: str, rng) -> dict:
    seed = int(rng.integers(1 << 31))
    run = dict(name=name, convention=conv, seed=seed, **shape_of(conv, rng))
    if conv == "atropos_levels":
        return plan_atropos(run, rng)
    windows(run)
    prolonged = run["n_envs"] >= 3 and rng.random() < 0.25
    if prolonged:  # 12.5..15 W with W = max(100 steps, 20 J): the 10 % cap of the span then never binds
        run["L"] = int(math.ceil(rng.uniform(12.5, 15.0) * max(100.0 / run["unit"], 20.0 * run["J"])))
        windows(run)
        assert run["W"] == max(100.0 / run["unit"], 20.0 * run["J"]), run
    run["prolonged"] = prolonged
    run["step0"] = run["unit"] * (run["offset"] + run["step0_plus"])
    W, L = run["W"], run["L"]
    top = float(rng.uniform(0.86, 0.95))
    start = float(rng.uniform(0.02, 0.15))
    envs = []
    for k, nm in enumerate(env_names(run, rng)):
        late = k >= 1 and rng.random() < 0.4
        unlock = int(rng.uniform(0.03, 0.25) * L) if late else 0
        if prolonged:
            unlock = min(unlock, int(1.5 * W))
        env = new_env(run, rng, nm, unlock, start + float(rng.uniform(0, 0.05)), top - float(rng.uniform(0, 0.04)))
        if prolonged:
            env.T = min(env.T, 3.0 * W)
        envs.append(env)
    run["envs"] = envs
    for k, env in enumerate(envs):
        if prolonged and k == 0:
            make_prolonged(env, run, rng)
            continue
        if rng.random() < 0.6:
            for _ in range(3):
                try_event(env, run, rng, str(rng.choice(event_pool(run))))
                if env.event != "healthy":
                    break
        if env.event == "healthy":
            place_negative(env, run, rng, k)
    check_scale(run)
    return run


def event_pool(run: dict) -> list[str]:
    pool = ["graduated_regression"] * 3 + ["training_stagnation"] * 2 + ["performance_volatility"] * 3
    if run["explicit"]:
        pool += ["unexpected_transition"] * 2
    if run["train_every"] and run["eval_every"]:
        pool += ["eval_gap"] * 2
    return pool


def check_scale(run: dict) -> None:
    """A stall of an unbounded metric is only visible beside siblings that reach the top: learners must be a
    majority of the run; stalls that break this are planned as plain learners, the last first."""
    if KINDS[run["kind"]]["rate"] or run["n_envs"] == 1:
        return

    def n_learn():
        return sum(e.event != "training_stagnation" and e.event != "prolonged_training"
                   and e.variant != "sinus_life" for e in run["envs"])

    for e in reversed(run["envs"]):
        if e.event == "training_stagnation" and n_learn() <= len(run["envs"]) - n_learn():
            e.event, e.variant, e.at = "healthy", "", None
            e.curve = "exp" if e.curve == "flat" else e.curve
            e.T = min(e.T, 3.5 * run["W"])


def make_prolonged(env: Env, run: dict, rng) -> None:
    W = run["W"]
    env.unlock = 0
    env.event, env.curve = "prolonged_training", "riser"
    span = run["L"] - 1
    env.params["slope_T"] = min(float(rng.uniform(0.045, 0.06)) * span / W, 0.68)
    env.T = span
    g = env.s1 - env.s0
    shrink(env, 0.03, [env.s0, env.s0 + 0.7 * g])


def post_start(run: dict, env: Env) -> float:
    """Earliest start of a post-graduation event (iterations)."""
    return grad_of(env) + max(run["W"], 10 * run["G"])


def try_event(env: Env, run: dict, rng, ev: str) -> None:
    W, G, L = run["W"], run["G"], run["L"]
    gain = env.s1 - env.s0
    held = env.s1
    rate = KINDS[run["kind"]]["rate"]
    if ev == "training_stagnation":
        variant = "never" if run["n_envs"] == 1 else str(rng.choice(["freeze", "freeze", "never"]))
        if variant == "never":
            if L - env.unlock < 6 * W:
                return
            env.event, env.variant, env.curve, env.at = ev, variant, "flat", env.unlock
            shrink(env, 0.05, [env.s0])
            return
        curve = str(rng.choice(["exp", "linear", "logistic", "sqrt"]))
        T = float(rng.uniform(2.0, 4.0) * W)
        probe = Env(env.name, env.unlock, curve, T, env.s0, env.s1, env.noise, params=dict(env.params))
        frac = float(rng.uniform(0.2, 0.5))
        if rate:
            frac = min(frac, (0.6 - env.s0) / gain)
        u = np.linspace(0, 1, 4001)
        at = int(env.unlock + u[int(np.flatnonzero(curve_f(probe, u) >= frac)[0])] * T)
        at = max(at, int(math.ceil(env.unlock + max(0.4 * W, 6 * run["J"]))))
        frac = float(curve_f(probe, np.array([(at - env.unlock) / T]))[0])
        if frac > 0.55 or frac < 0.12 or L - at < 5 * W:
            return
        env.event, env.variant, env.curve, env.T, env.at = ev, "freeze", curve, T, at
        env.params["frac"] = frac
        shrink(env, min(0.05, 0.2 * frac * gain), [env.s0, env.s0 + frac * gain])
        return
    if ev == "performance_volatility" and run["convention"] != "atropos_levels" and rng.random() < 0.3:
        # lifelong oscillation from activation
        P = float(rng.uniform(8, 25) * G)
        if L - env.unlock < max(3 * W, 6 * P):
            return
        pp = float(rng.uniform(0.45, 0.7))
        mid = float(rng.uniform(0.35, 0.55))
        env.event, env.variant, env.at = ev, "sinus_life", env.unlock
        env.params.update(period=P, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)))
        shrink(env, pp * gain / 6, [env.s0 + (mid - pp / 2) * gain, env.s0 + (mid + pp / 2) * gain])
        return
    g = grad_of(env)
    if g is None:
        return
    start = post_start(run, env)
    free = L - start
    if ev == "graduated_regression":
        variant = str(rng.choice(["sudden", "sudden", "gradual", "temporary"]))
        sev = str(rng.choice(["warning", "critical"]))
        keep = float(rng.uniform(0.73, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        last = max(2 * W, 15 * G)
        fall = float(rng.uniform(0.5, 2.0) * W) if variant == "gradual" else 1.0
        back = max(2 * W, 20 * G) if variant == "temporary" else 0.0
        need = fall + last + back
        if free <= need:
            return
        env.event, env.variant, env.severity = ev, variant, sev
        env.at = int(rng.uniform(start, L - need))
        env.params.update(keep=keep, fall=fall, back=back)
        drop = (1 - keep) * gain
        shrink(env, 0.25 * drop, [held, held - drop])
    elif ev == "performance_volatility":
        variant = str(rng.choice(["burst", "burst", "switch"]))
        if variant == "burst":
            length = float(max(W, 20 * G))
            need = length + max(W, 15 * G)
            if free <= need:
                return
            bsd = float(rng.uniform(0.2, 0.3))
            room = (KINDS[run["kind"]]["smax"] - held) / gain
            env.params.update(length=length, bsd=bsd, up=0.5 if room > 2 * bsd else 0.0)
            shrink(env, min(0.04, bsd * gain / 4), [held, held - 2 * bsd * gain])
        else:
            dwell = float(max(4 * G, rng.uniform(4, 10) * G))
            gap = float(rng.uniform(0.4, 0.6))
            need = max(2 * W, 10 * dwell)
            if free <= need:
                return
            env.params.update(dwell=dwell, gap=gap)
            shrink(env, gap * gain / 5, [held, held - gap * gain])
        env.event, env.variant = ev, variant
        env.at = int(rng.uniform(start, L - need))
    elif ev == "unexpected_transition":
        back = float(rng.uniform(0.5, 1.5) * W)
        if free <= back + W:
            return
        env.event, env.variant = ev, "2to1"
        env.at = int(rng.uniform(start, L - back - W))
        env.params["back_for"] = back
    elif ev == "eval_gap":
        g50 = max(50.0 / run["unit"], G)
        need = max(8 * g50, 2 * W) + 2 * G
        if free <= need:
            return
        env.event, env.variant = ev, "stop"
        env.at = int(rng.uniform(start, L - need))


def place_negative(env: Env, run: dict, rng, k: int) -> None:
    W, G, L = run["W"], run["G"], run["L"]
    neg = str(rng.choice(["healthy", "healthy", "noisy_healthy", "late_learner", "staircase", "single_outlier",
                          "level_up", "late_healthy"]))
    if neg == "noisy_healthy":
        env.noise = draw_noise(rng, run["convention"], heavy=True)
        if env.params.get("tr_noise") is not None:
            env.params["tr_noise"] = (env.params["tr_noise"][0], float(rng.uniform(0.3, 0.45)))
        if env.params.get("n_tr"):
            env.params["n_tr"] = int(rng.choice([4, 6]))
    elif neg == "late_learner":
        d = float(rng.uniform(0.6, 1.2) * W)
        T = d + float(rng.uniform(1.2, 2.5) * W)
        if run["prolonged"] or env.unlock + T + 3 * W > L:
            neg = "healthy"
        else:
            env.curve, env.T, env.params["late_d"] = "late", T, d / T
    elif neg == "staircase":
        T = float(rng.uniform(2.5, 4.5) * W)
        if run["prolonged"] or env.unlock + T + 3 * W > L:
            neg = "healthy"
        else:
            n = int(rng.integers(2, 4))
            gapmax = min(1.4 * W / T, 0.9 / n)  # pauses between stairs shorter than 1.5 W
            stairs = [float(rng.uniform(0.0, 0.15))]
            for _ in range(n - 1):
                stairs.append(stairs[-1] + float(rng.uniform(0.5, 1.0)) * gapmax)
            env.curve, env.T, env.params["stairs"] = "staircase", T, stairs
    g = grad_of(env)
    if neg in ("single_outlier", "level_up"):
        if g is None or L - (g + max(W, 10 * G)) <= 3 * W:
            neg = "healthy"
        else:
            start = g + max(W, 10 * G)
            env.at = int(rng.uniform(start, L - 2 * W))
            if neg == "level_up":
                room = KINDS[run["kind"]]["smax"] - env.s1
                up = float(rng.uniform(0.03, 0.06))
                if room < up * (env.s1 - env.s0) + 0.02:
                    neg = "healthy"
                else:
                    env.params["shift"] = up
    elif neg == "late_healthy":
        if k == 0 or run["prolonged"]:
            neg = "healthy"
        else:
            unlock = int(rng.uniform(0.35, 0.55) * L)
            T = min(env.T, 0.25 * L)
            if unlock + T + 3 * W > L or T < 1.2 * W:
                neg = "healthy"
            else:
                env.unlock, env.T = unlock, T
    env.event = neg


# --------------------------------------------------------------------------- Atropos level chains

def plan_atropos(run: dict, rng) -> dict:
    """1..2 env processes, each 3..5 levels in a chain: level L+1 unlocks where level L graduates."""
    run["L"] = 3000
    windows(run, 3000)  # W = 100 at unit 1
    W, G = run["W"], run["G"]
    run["step0"] = 0
    run["prolonged"] = False
    procs = []
    ends = []
    for p in range(run["n_proc"]):
        base = ENV_NAMES["atropos_levels"][p]
        K = int(rng.integers(3, 6))
        levels, unlock = [], 0
        top = float(rng.uniform(0.86, 0.95))
        lv = 0
        while lv < K or unlock < 850:  # levels until the run spans >= 10 W (W = 100 steps)
            lv += 1
            s0 = float(rng.uniform(0.15, 0.35))
            env = new_env(run, rng, f"{base}/level_{lv}", unlock, s0, top - float(rng.uniform(0, 0.03)))
            env.T = float(rng.uniform(1.2, 2.5) * W)
            env.params["level"] = lv
            env.params["proc"] = base
            levels.append(env)
            unlock = int(math.ceil(grad_of(env)))
        K = len(levels)
        last = levels[-1]
        r = rng.random()
        if r < 0.25:
            last.event, last.variant, last.curve, last.at = "training_stagnation", "never", "flat", last.unlock
            shrink(last, 0.05, [last.s0])
            end = last.unlock + float(rng.uniform(6, 8) * W)
        elif r < 0.45:
            curve = str(rng.choice(["exp", "linear", "sqrt"]))
            T = float(rng.uniform(2.0, 4.0) * W)
            probe = Env(last.name, last.unlock, curve, T, last.s0, last.s1, last.noise)
            frac = float(rng.uniform(0.25, 0.5))
            frac = min(frac, (0.6 - last.s0) / (last.s1 - last.s0))
            u = np.linspace(0, 1, 4001)
            at = int(last.unlock + u[int(np.flatnonzero(curve_f(probe, u) >= frac)[0])] * T)
            at = max(at, int(last.unlock + 0.4 * W))
            frac = float(curve_f(probe, np.array([(at - last.unlock) / T]))[0])
            last.event, last.variant, last.curve, last.T, last.at = "training_stagnation", "freeze", curve, T, at
            last.params["frac"] = frac
            shrink(last, min(0.05, 0.2 * frac * (last.s1 - last.s0)), [last.s0, last.s0 + frac * (last.s1 - last.s0)])
            end = at + float(rng.uniform(5.5, 7) * W)
        elif r < 0.6 and K >= 3:
            last.event, last.curve = "prolonged_training", "riser"
            span = float(rng.uniform(12.5, 14) * W)
            last.params["slope_T"] = min(float(rng.uniform(0.045, 0.06)) * span / W, 0.68)
            last.T = span
            shrink(last, 0.03, [last.s0, last.s0 + 0.7 * (last.s1 - last.s0)])
            end = last.unlock + span
        else:  # the last level learns; the run ends soon after (it can never move past the max level)
            end = last.unlock + reach90(last) + float(rng.uniform(1.0, 2.0) * W)
        procs.append(levels)
        ends.append(end)
    run["L"] = max(1001, int(math.ceil(max(ends))))
    windows(run)
    assert run["W"] == W, (run["W"], W)
    run["procs"] = procs
    run["envs"] = [e for lv in procs for e in lv]
    run["n_envs"] = len(run["envs"])
    L = run["L"]
    # events on graduated levels (their evals go on) and a demotion
    for levels in procs:
        for env in levels[:-1]:
            if env.event != "healthy":  # the level above a demotion already carries it
                continue
            if rng.random() < 0.55:
                for _ in range(3):
                    ev = str(rng.choice(["graduated_regression"] * 3 + ["performance_volatility"] * 2
                                        + ["unexpected_transition"] * 2))
                    if ev == "unexpected_transition":
                        try_demotion(levels, env, run, rng)
                    else:
                        try_event(env, run, rng, ev)
                    if env.event != "healthy":
                        break
            if env.event == "healthy" and rng.random() < 0.3 and grad_of(env) is not None:
                g = grad_of(env)
                if L - g - max(W, 10 * G) > 3 * W:
                    env.event = "single_outlier"
                    env.at = int(rng.uniform(g + max(W, 10 * G), L - 2 * W))
    return run


def try_demotion(levels: list[Env], env: Env, run: dict, rng) -> None:
    """current_level L+1 -> L for a while (L = env's level), within level L+1's active climb."""
    W = run["W"]
    nxt = levels[env.params["level"]]  # the level above
    if nxt.event != "healthy" or nxt.params.get("demoted"):
        return
    r90 = reach90(nxt) or nxt.T
    at = int(nxt.unlock + rng.uniform(0.2, 0.4) * r90)
    dur = float(min(rng.uniform(0.3, 0.5) * W, 0.3 * r90))
    if at + dur >= nxt.unlock + r90:
        return
    env.event, env.variant, env.at = "unexpected_transition", "demoted_2to1", at
    env.params["back_for"] = dur
    nxt.event, nxt.variant, nxt.at = "unexpected_transition", "demoted_1to0", at
    nxt.params["back_for"] = dur
    nxt.params["demoted"] = True


# --------------------------------------------------------------------------- truth and schedules

def truth(env: Env, run: dict, rng, all_its: np.ndarray) -> tuple[np.ndarray, int | None]:
    """Skill per iteration (NaN before unlock) and the event's true start (iteration)."""
    L = run["L"]
    it = np.arange(L, dtype=float)
    gain = env.s1 - env.s0
    u = (it - env.unlock) / env.T
    s = env.s0 + gain * curve_f(env, u)
    held = env.s1
    ev, v, a, p = env.event, env.variant, env.at, env.params
    true_at = a
    kind = KINDS[run["kind"]]
    if ev == "graduated_regression":
        low = env.s0 + p["keep"] * gain
        frac = np.clip((it - a + 1) / p["fall"], 0, 1)
        s = np.where(it >= a, held + (low - held) * frac, s)
        if v == "temporary":
            s = np.where(it >= a + p["back"], held, s)
        line = env.s0 + 0.85 * gain
        true_at = int(np.flatnonzero((it >= a) & (s < line - 1e-12))[0])
    elif ev == "training_stagnation" and v == "freeze":
        s = np.where(it >= a, s[a], s)
    elif ev == "performance_volatility":
        if v == "burst":
            m = (it >= a) & (it < a + p["length"])
            z = np.abs(rng.normal(0, 1, L)) * np.where(rng.random(L) < p["up"], 1.0, -1.0)
            s = np.where(m, held + z * p["bsd"] * gain, s)
            s = np.clip(s, kind["lo"], kind["smax"])
            off = m & (np.abs(s - held) > max(0.15 * gain, 4 * logged_sd(env, held)))
            cand = all_its[all_its >= a]
            hit = cand[off[cand]]
            true_at = int(hit[0]) if len(hit) else a
        elif v == "switch":
            lo = held - p["gap"] * gain
            lvl = np.full(L, held)
            i, high, n = a, False, 0
            G = run["G"]
            while i < L:
                d = int(max(4 * G, rng.exponential(max(p["dwell"] - 2 * G, 1)) + 2 * G))
                lvl[i:i + d] = held if high else lo
                i += d
                high = not high
                n += 1
            s = np.where(it >= a, lvl, s)
        else:  # sinus_life
            mid = env.s0 + p["mid"] * gain
            s = np.where(it >= a, mid + p["pp"] * gain / 2 * np.cos(2 * np.pi * (it - a) / p["period"] + p["phase"]),
                         s)
    elif ev == "level_up":
        s = np.where(it >= a, s + p["shift"] * gain, s)
    s = np.clip(s, kind["lo"], kind["smax"])
    s[it < env.unlock] = np.nan
    return s, true_at


def eval_schedule(run: dict, env: Env, rng) -> np.ndarray:
    L, e = run["L"], run["eval_every"]
    if not e:
        return np.array([], int)
    if run["irregular"]:
        gaps = np.maximum(1, np.round(rng.uniform(0.4, 1.6, int(3 * L / e) + 10) * e)).astype(int)
        ev = np.concatenate([[0], np.cumsum(gaps)])
        ev = ev[ev < L]
    else:
        ev = np.arange(0, L, e)
    return ev[ev >= env.unlock]


def atropos_current(run: dict, levels: list[Env]) -> np.ndarray:
    """curriculum/current_level per iteration (1-based), with demotions."""
    L = run["L"]
    cur = np.ones(L, int)
    for env in levels[1:]:
        cur[env.unlock:] = env.params["level"]
    for env in levels:
        if env.variant == "demoted_1to0":
            a, d = env.at, int(round(env.params["back_for"]))
            cur[a:a + d] = env.params["level"] - 1
    return cur


def env_series(run: dict, env: Env, rng, current: np.ndarray | None = None) -> dict:
    L = run["L"]
    if current is not None:  # Atropos: trained only while it is the current level
        tr = np.flatnonzero(current == env.params["level"])
    elif run["train_every"]:
        tr = np.arange(env.unlock, L)
        tr = tr[(tr - env.unlock) % run["train_every"] == 0]
    else:
        tr = np.array([], int)
    ev = eval_schedule(run, env, rng)
    s, true_at = truth(env, run, rng, np.union1d(tr, ev))
    gap_last = None
    if env.event == "eval_gap":
        j = int(np.searchsorted(ev, env.at))
        gap_pace = pace(ev[:j])
        ev = ev[:j]
        gap_last = (int(ev[-1]) if len(ev) else None, gap_pace)
    sk = np.where(np.isnan(s), env.s0, s)
    kind = KINDS[run["kind"]]
    out = {"s": s, "train_it": tr, "eval_it": ev}
    if len(tr):
        base = np.clip(sk - env.delta, kind["lo"], kind["smax"])
        if env.params.get("ema"):
            raw = sample(env.params["tr_noise"], base[env.unlock:], rng)
            a = env.params["ema"]
            sm = np.empty_like(raw)
            acc = raw[0]
            for j, x in enumerate(raw):
                acc = x if j == 0 else (1 - a) * acc + a * x
                sm[j] = acc
            full = np.full(L, np.nan)
            full[env.unlock:] = sm
            out["train"] = full[tr]
        elif env.params.get("n_tr"):
            out["train"] = sample(("binom", env.params["n_tr"]), base[tr], rng)
        else:
            out["train"] = sample(env.noise, base[tr], rng)
        out["train"] = np.clip(out["train"], kind["lo"], kind["smax"])
    else:
        out["train"] = np.zeros(0)
    out["eval"] = np.clip(sample(env.noise, sk[ev], rng), kind["lo"], kind["smax"]) if len(ev) else np.zeros(0)
    judged = "eval" if len(ev) and not len(tr) else "train" if len(tr) else "eval"
    if env.event == "single_outlier":
        name = "eval" if len(ev) and (not len(tr) or current is not None) else "train"
        its = out[f"{name}_it"]
        j = int(np.searchsorted(its, env.at))
        if j < len(its):
            out[name][j] = env.s0 + 0.05 * (env.s1 - env.s0)
    # explicit states per iteration
    state = np.where(np.arange(L) < env.unlock, 0, 1)
    g = grad_of(env)
    if g is not None:
        state = np.where(np.arange(L) >= g, 2, state)
    if env.event == "unexpected_transition" and env.variant == "2to1":
        a, back = env.at, env.params["back_for"]
        state = np.where((np.arange(L) >= a) & (np.arange(L) < a + back), 1, state)
    if current is not None:
        lv = env.params["level"]
        state = np.where(current < lv, 0, np.where(current == lv, 1, 2))
    out["state"] = state
    # the label's onset (iteration)
    onset = None
    both = np.union1d(tr, ev)
    if env.event == "eval_gap":
        onset = ("gap",) + gap_last
    elif env.event == "unexpected_transition":
        want = {"2to1": 1, "demoted_2to1": 1, "demoted_1to0": 0}[env.variant]
        st = state_its(run, env, out) if current is None else np.arange(L)
        bad = st[(st >= env.at) & (state[st] == want)]
        onset = int(bad[0]) if len(bad) else None
    elif env.event in EVENTS and env.event != "prolonged_training":
        if env.variant in ("never", "sinus_life"):
            onset = int(both[0]) if len(both) else None
        else:
            t0 = true_at if env.event in ("graduated_regression", "performance_volatility") else env.at
            jj = both[both >= t0]
            onset = int(jj[0]) if len(jj) else None
    out["onset_it"] = onset
    out["judged"] = judged
    return out


def state_its(run: dict, env: Env, d: dict) -> np.ndarray:
    """Iterations at which a logged state is written: with each of the env's points, every 10 iterations while
    locked, and where a backward move happens."""
    its = set(d["train_it"].tolist()) | set(d["eval_it"].tolist())
    its |= set(range(0, env.unlock, 10))
    if env.event == "unexpected_transition":
        its.add(int(env.at))
        its.add(int(min(run["L"] - 1, env.at + env.params["back_for"])))
    return np.array(sorted(i for i in its if 0 <= i < run["L"]), int)


def to_metric(kind: str, x) -> np.ndarray:
    k = KINDS[kind]
    v = k["a"] + k["b"] * np.asarray(x, float)
    if kind in ("pct", "frames"):
        v = np.round(v)
    return v


# --------------------------------------------------------------------------- writers

def _step(run: dict, i) -> int:
    return int(run["step0"] + run["unit"] * int(i))


def _rows(run: dict, data: dict, key, with_state: bool) -> dict[int, list[tuple[str, float]]]:
    rows: dict[int, list] = {}
    for e in run["envs"]:
        d = data[e.name]
        for i, v in zip(d["train_it"], to_metric(run["kind"], d["train"])):
            rows.setdefault(int(i), []).append((key(e.name, "train"), float(v)))
        for i, v in zip(d["eval_it"], to_metric(run["kind"], d["eval"])):
            rows.setdefault(int(i), []).append((key(e.name, "eval"), float(v)))
        if with_state and key(e.name, "state"):
            for i in state_its(run, e, d):
                rows.setdefault(int(i), []).append((key(e.name, "state"), int(d["state"][i])))
    return dict(sorted(rows.items()))


def _resume_cut(run: dict, rng) -> tuple[int, int] | None:
    """(crash iteration, checkpoint iteration) of a resumed run."""
    if not run["resume"]:
        return None
    crash = int(rng.uniform(0.3, 0.8) * run["L"])
    return crash, crash - int(rng.integers(3, 16))


def write_tb(folder: Path, run: dict, rows: dict, cut) -> None:
    """tensorboardX; a resumed run writes a second event file (started an hour later) from the checkpoint."""
    from tensorboardX import SummaryWriter

    parts = [(0, run["L"], 0.0)] if cut is None else [(0, cut[0] + 1, 0.0), (cut[1], run["L"], 3600.0)]
    for k, (lo, hi, pause) in enumerate(parts):
        before = set(folder.glob("events.out.tfevents.*"))
        w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000, filename_suffix=".resumed" if k else "")
        for i, pts in rows.items():
            if lo <= i < hi:
                for tag, v in pts:
                    w.add_scalar(tag, v, _step(run, i), walltime=WALL0 + 5 * i + pause)
        w.close()
        if k:  # name it as a writer started an hour later would (files are read in the order started)
            (new,) = set(folder.glob("events.out.tfevents.*")) - before
            parts_ = new.name[:-len(".resumed")].split(".")  # events.out.tfevents.{time}.{host}
            parts_[3] = str(int(parts_[3]) + 3600)
            new.rename(new.with_name(".".join(parts_)))


def write_gen_ema(folder, run, data, rng):
    key = lambda e, s: {"train": f"train/{e}/reward", "eval": f"eval/{e}/reward",  # noqa: E731
                        "state": f"curriculum/{e}/state"}[s]
    write_tb(folder, run, _rows(run, data, key, run["explicit"]), _resume_cut(run, rng))


def write_flat(folder, run, data, rng):
    word = "Frames" if run["kind"] == "frames" else "Accuracy"
    key = lambda e, s: f"Stage/{e}" if s == "state" else f"{word}/{'Train' if s == 'train' else 'Valid'}_{e}"  # noqa
    write_tb(folder, run, _rows(run, data, key, run["explicit"]), None)


def write_tune_tbx(folder, run, data, rng):
    """Ray Tune's TBXLoggerCallback: every numeric result key under ray/tune/, step = timesteps_total; the
    trial folder also holds params.json (written by the trial runner)."""
    from tensorboardX import SummaryWriter

    e = run["envs"][0]
    d = data[e.name]
    env_id = e.name  # the env is params.json's `env` (the README's tune profile), not the trial folder's name
    trial = folder / f"PPO_{env_id}_{zlib.crc32(run['name'].encode()) & 0xFFFFF:05x}_00000_0_lr=0.0003"
    trial.mkdir(parents=True, exist_ok=True)
    (trial / "params.json").write_text(json.dumps({"env": env_id, "lr": 3e-4, "train_batch_size": run["unit"],
                                                   "evaluation_interval": run["eval_every"] or None}, indent=2))
    tr = dict(zip(d["train_it"].tolist(), to_metric(run["kind"], d["train"]).tolist()))
    ev = dict(zip(d["eval_it"].tolist(), to_metric(run["kind"], d["eval"]).tolist()))
    w = SummaryWriter(str(trial), flush_secs=3600, max_queue=100_000)
    for i in range(run["L"]):
        step = _step(run, i)
        vals = {"ray/tune/timesteps_total": step, "ray/tune/training_iteration": i + 1,
                "ray/tune/time_this_iter_s": 30.0 + rng.normal(0, 1),
                "ray/tune/info/learner/default_policy/learner_stats/policy_loss": float(rng.normal(0, 0.02)),
                "ray/tune/info/learner/default_policy/learner_stats/entropy": float(1.5 - i / run["L"])}
        if i in tr:
            vals["ray/tune/episode_reward_mean"] = tr[i]
            vals["ray/tune/episode_len_mean"] = 1000.0
            vals["ray/tune/episodes_this_iter"] = float(rng.integers(2, 9))
        if i in ev:
            vals["ray/tune/evaluation/episode_reward_mean"] = ev[i]
        for tag, v in vals.items():
            w.add_scalar(tag, v, step, walltime=WALL0 + 30 * i)
    w.close()


def write_roll_wandb(folder, run, data, rng):
    """ROLL's wandb tracker: run.log(values, step=step); a resumed job is a second offline run of the same id."""
    from writers import write_wandb

    key = lambda e, s: f"env/{e}/success" if s == "train" else f"val/env/{e}/success"  # noqa: E731
    rows = []
    for i, pts in _rows(run, data, key, False).items():
        m = dict(pts)
        tr = [v for k, v in pts if k.startswith("env/")]
        for k, v in pts:
            if k.startswith("env/"):
                m[k.replace("/success", "/num_actions")] = float(rng.integers(2, 15))
            else:
                tag = k.split("/")[2]
                m[f"val/{tag}/score/mean"] = v
                m[f"val/{tag}/score/max"] = 1.0
        if tr:
            m["env/all/success"] = float(np.mean(tr))
        m["system/tps"] = float(1200 + rng.normal(0, 50))
        rows.append((i, m))
    run_id = run["name"].replace("_", "-")
    cut = _resume_cut(run, rng)
    parts = [(0, run["L"])] if cut is None else [(0, cut[0] + 1), (cut[1], run["L"])]
    for k, (lo, hi) in enumerate(parts):
        sel = [(i, m) for i, m in rows if lo <= i < hi]
        write_wandb(folder / "wandb", [m for _i, m in sel], steps=[_step(run, i) for i, _m in sel], run_id=run_id,
                    name=run["name"], stamp=f"20260302_0{k}0000")


def write_atropos(folder, run, data, rng):
    """One W&B run per env process (group = the benchmark run), keys prefixed `{env}_0_`, logged with step=."""
    from writers import write_wandb

    for levels in run["procs"]:
        base = levels[0].params["proc"]
        pre = f"{base}_0_"
        cur = run["current"][base]
        K = len(levels)
        tr = {e.params["level"]: dict(zip(data[e.name]["train_it"].tolist(), data[e.name]["train"].tolist()))
              for e in levels}
        ev = {e.params["level"]: dict(zip(data[e.name]["eval_it"].tolist(), data[e.name]["eval"].tolist()))
              for e in levels}
        rows, steps = [], []
        for i in range(run["L"]):
            c = int(cur[i])
            m: dict = {}
            v = tr[c].get(i)
            if v is not None:
                m[f"{pre}train/percent_correct"] = v
                m[f"{pre}train/level_{c}_correct"] = v
                m[f"{pre}train/level_{c}_count"] = levels[c - 1].params["n_tr"]
            for lv in range(1, K + 1):
                x = ev[lv].get(i)
                if x is not None:
                    m[f"{pre}eval/level_{lv}_correct"] = x
                    m[f"{pre}eval/level_{lv}_count"] = int(levels[lv - 1].noise[1])
            m[f"{pre}curriculum/current_level"] = c
            m[f"{pre}curriculum/max_level"] = K
            m[f"{pre}curriculum/progress_percent"] = 100.0 * c / K
            if i % 50 == 0:
                m[f"{pre}curriculum/level_description"] = f"Level {c}: operations up to {10 ** c}"
            rows.append(m)
            steps.append(i)
        write_wandb(folder / "wandb", rows, steps=steps, run_id=f"{run['name'].replace('_', '-')}-{base}",
                    group=run["name"], name=f"{base}_0")


# --------------------------------------------------------------------------- build

def shape_tags(run: dict, env: Env, d: dict) -> list[str]:
    n = max(len(d["train_it"]), len(d["eval_it"]))
    tags = [f"conv:{run['convention']}", f"kind:{run['kind']}", f"curve:{env.curve}",
            f"points:{'<150' if n < 150 else '150-1000' if n <= 1000 else '>1000'}",
            f"envs:{'1' if run['n_envs'] == 1 else '2-8' if run['n_envs'] <= 8 else '9+'}"]
    tags.append("eval_only" if not len(d["train_it"]) else "train_only" if not len(d["eval_it"]) else "train+eval")
    for flag, tag in (("irregular", "evals_irregular"), ("resume", "resumed"), ("explicit", "states_logged"),
                      ("ema", "train_ema")):
        if run.get(flag):
            tags.append(tag)
    if env.unlock > 0:
        tags.append("late_unlock")
    if env.variant:
        tags.append(f"variant:{env.variant}")
    return tags


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    rng = np.random.default_rng(seed)
    plans = [plan_run(f"v{i:03d}_{CYCLE[i % len(CYCLE)]}", CYCLE[i % len(CYCLE)], rng) for i in range(n_runs)]
    labels: list[dict] = []
    for run in plans:
        rrng = np.random.default_rng(run["seed"])
        conv = run["convention"]
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        if conv == "atropos_levels":
            run["current"] = {lv[0].params["proc"]: atropos_current(run, lv) for lv in run["procs"]}
            data = {e.name: env_series(run, e, rrng, run["current"][e.params["proc"]]) for e in run["envs"]}
        else:
            data = {e.name: env_series(run, e, rrng) for e in run["envs"]}
        {"gen_ema": write_gen_ema, "userprof_flat": write_flat, "tune_tbx": write_tune_tbx,
         "roll_wandb": write_roll_wandb, "atropos_levels": write_atropos}[conv](folder, run, data, rrng)
        unit = run["unit"]
        for e in run["envs"]:
            d = data[e.name]
            if e.event not in EVENTS:
                continue
            if e.event == "prolonged_training":
                first = int(min(np.concatenate([d["train_it"], d["eval_it"]])))
                judged = d["train_it"] if len(d["train_it"]) else d["eval_it"]
                span = unit * (run["L"] - 1)
                w_env = max(min(100.0, 0.1 * span), 20 * pace([_step(run, i) for i in judged]))
                onset = int(round(_step(run, first) + 10 * w_env))
            elif e.event == "eval_gap":
                _tag, last, gpace = d["onset_it"]
                if last is None:
                    continue
                onset = int(round(_step(run, last) + gpace * unit))
            else:
                if d["onset_it"] is None:
                    continue
                onset = _step(run, d["onset_it"])
            labels.append({"run": run["name"], "env": e.name, "type": e.event, "onset": onset,
                           "severity": e.severity, "kind": run["kind"], "noise": noise_tag(e),
                           "tags": shape_tags(run, e, d), "shape": f"{conv}/{e.variant or e.curve}",
                           "variant": e.variant})
        meta = {k: v for k, v in run.items() if k not in ("envs", "procs", "current")}
        meta.update(tolerance_unit=int(round(run["Q"] * unit)), window_steps=run["W"] * unit,
                    eval_every=run["G"] * unit)
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "curve": e.curve,
                         "severity": e.severity, "noise": list(e.noise), "noise_tag": noise_tag(e),
                         "unlock_step": _step(run, e.unlock), "T_steps": e.T * unit,
                         "event_step": _step(run, e.at) if e.at is not None else None,
                         "onset_step": (_step(run, data[e.name]["onset_it"])
                                        if isinstance(data[e.name]["onset_it"], int) else None),
                         "judged": data[e.name]["judged"],
                         "graduated_step": (int(round(run["step0"] + unit * grad_of(e)))
                                            if grad_of(e) is not None else None),
                         "s0": e.s0, "s1": e.s1,
                         "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in e.params.items()}}
                        for e in run["envs"]]
        if conv == "atropos_levels":  # the process's own env: its overall train/percent_correct, no event
            meta["envs"] += [{"name": lv[0].params["proc"], "event": "aggregate", "variant": "", "curve": "saw",
                              "severity": None} for lv in run["procs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
