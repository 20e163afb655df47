"""The sixteenth detection corpus (`python benchmarks/detection.py --corpus sixteenth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md; the
profiles' key spellings), without reading the rules' or the analysis code, and without looking at which cases
curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-sixteenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml in the group folder,
where the scorer reads it). Chosen for what the fifteen other corpora cover least (their docstrings): no corpus sets
the trainer's own `graduation.stop_threshold` (here per env through `overrides:` with a run glob), none steps a W&B
run by a `define_metric` axis of SAMPLES whose per-iteration count jitters, none logs a RATIO NEAR 1 (a speedup over
a baseline) with mean-preserving multiplicative noise; none steps a TensorBoard run in ELAPSED WALL-CLOCK SECONDS, none
logs a bounded INTEGER GAME SCORE that crosses zero (Pong, -21..21) whose per-episode noise is huge mid-range and
tiny near the bounds; none judges a ROLL run on its VALIDATION SCORE (`val/{tag}/score/mean`, the performance metric
by config) while its training keys are another metric, with a bimodal per-episode score (Sokoban: solved ~ +9.5,
failed ~ -9.1) and bare NaN val rows in the stdout tracker's JSON; none has a BATCH-SIZE REGIME (rollout workers
preempted or added: the per-task sample count, declared by `count_metric`, drops 2-4x for a stretch or grows for
good, so the binomial noise and the logging pace change in steps):

  cg_speedup     W&B OFFLINE run (tests/writers.write_wandb, logged WITHOUT step=, `define_metric("cg/*",
                 step_metric="samples")`), a USER PROFILE `cg` (forced with `profile:`) over `cg/{bench}/train/speedup`
                 and `cg/{bench}/val/speedup` (README's `val` alias of eval); every row carries `samples`, the
                 cumulative env samples (1,024 / 2,048 / 4,096 an iteration x uniform 0.6..1.4 jitter: irregular
                 steps). CompilerGym-like SPEEDUP over -O3: E = 1 + a s (a 0.3..1.2), noise E x lognormal(-sigma^2/2,
                 sigma) (sigma 0.01..0.03; heavy 0.04..0.06; evals sigma / 2..3 every 5..12 iterations in 60 %).
                 The trainer's STOP THRESHOLD per env: `overrides: [{run: "{run}*", env: "{bench}", graduation:
                 {stop_threshold: E0 + 0.55..0.75 gain}}]` (below the 90 % line: it only gates graduation, never
                 moves the truth). 3..6 envs in 1..2 waves; 400..700 iterations. No states.
  pong_wallsec   tensorboardX, generic `train|eval/{env}/score` (config `performance_metric: score`),
                 `curriculum/{env}/state` in 40 %. STEPS IN ELAPSED WALL SECONDS (`global_step=int(time.time() -
                 t0)`): an iteration takes 30..90 s x lognormal(0, 0.25), x1.5..2 in a SLOW STRETCH in half the runs.
                 Pong opponents of rising difficulty as envs: a point is the MEAN of m actors' finished episodes
                 (m 6..16; heavy 2..4), each episode simulated rally by rally (a race to 21, rally won with p = 0.2 +
                 0.72 s): INTEGER scores -21..21, noise largest near p 0.5, tiny near the bounds; E(s) is the exact
                 expected score (S-shaped in s). Evals (mean of 8..24 episodes) every 5..12 iterations in 60 %.
                 3..6 envs in 1..2 waves; 350..600 iterations.
  roll_valscore  ROLL's STDOUT tracker (tests/writers.write_roll_stdout: `metrics_tag: {"step": N, "metrics": {..}}`
                 in a saved `log_rank_DRIVER_0_1.log`), forced `profile: roll` and `performance_metric: score/mean`:
                 judged on `val/{tag}/score/mean` ALONE (every 3..6 steps), while training logs `env/{tag}/success`
                 (binomial over 16..64), `env/{tag}/num_actions`, `env/all/success`, `system/tps`; validation also
                 logs `val/env/{tag}/success` and `val/{tag}/score/max`. Sokoban-like scores: a val episode solved
                 (rate s) scores 13 - 0.1 U (U uniform 10..60 steps), failed -10 + Binomial(3, 0.3) (boxes on
                 target); the point is the mean of n val episodes (n 32..128; heavy 10..20): E = -9.1 + 18.6 s.
                 2 % of the val rows are bare NaN (a crashed validation batch). No states. 3..6 tags in 1..2
                 waves; 500..900 steps.
  dapo_regime    W&B OFFLINE run logged with step= (the trainer step), a USER PROFILE `dapo` (forced) over
                 `train|val/{task}/acc` with `count_metric: num_samples` (`train|val/{task}/num_samples`),
                 `curriculum/{task}/state` 0/1/2 in half the runs. LLM-RL accuracy: each step a task gets
                 Poisson(k f(t)) prompts (k 2..6; heavy 1..1.5) of G (8 or 16) samples; a task with no prompt at a
                 step is not logged (irregular pace). f(t) is a BATCH REGIME: 1, x0.25..0.5 over 10..30 % of the
                 run (preempted rollout workers) in 70 %, x2..4 from 40..80 % of the run on (added workers) in 50 %.
                 Evals binomial over 128..512 every 5..10 steps in 60 %. 3..6 tasks in 1..2 waves; 300..600 steps.

Truth. Each env has a skill curve s in [0, 1] on its iteration grid (from its unlock): a learner goes from s0 to s1
over T iterations (exp, logistic, sqrt or linear; T 0.8..2.5 W) and is flat at s1 after; a LATE LEARNER (a clean
negative) first stays at s0 for 1..2 W. The EXPECTED judged value E(s) (higher is better everywhere): 1 + a s
(speedup), the exact Pong expectation of p(s), -9.1 + 18.6 s (val score), s (accuracy). E0 = E(s0), E1 = E(s1);
fractions of the gain are of E1 - E0 (E is monotone, so "keep" levels are placed by inverting it). The envs of a
run share one scale (s0 within 0.02 of the run's, s1 within 0.015).
  J  pace               an env's logging pace in steps of the JUDGED series (roll_valscore: its val evals; else its
                        train series): README's (the median interval when regular, else the mean of the intervals
                        under 3x it), from its logged points; planning uses the convention's slowest (G for
                        roll_valscore, 2 iterations for dapo_regime, else 1)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in steps (per env for labels; the planning
                        W in iterations takes the planning J and the mean step per iteration)
  G  eval interval      the env's median interval between evals, in steps
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G, or J where not evaluated), in
                        steps = `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more iterations; logged states
go to 2 there. Healthy learners reach their top within 0.8..2.5 W.

In a run the first two envs are clean learners from step 0; each later env carries an event with probability 0.65
(up to 3 draws from the convention's pool until one fits; else a clean negative), and at least half the envs (and
two) learn to the shared top.

Labels (an env carries at most one; onset in steps; "first point" = the env's first logged point of the judged
metric, train or eval, at or after the event's true start; NaN points are no points):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp in s over 0.5..1.5 W) fall
                         to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain (in E), to the end (>= max(2
                         W, 15 G) left). Onset = first point at which E keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point, beside >= 2
                         siblings that learn to the shared top; freeze: a linear rise over >= max(0.4 W, 6) to 0.2..0.5
                         of the gain, then flat and active >= 5 W to the end; onset = first point at which E is within
                         a tenth of the rise of the flat level
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) iterations of s scattered |N(0,
                         0.2..0.3 gain)| below the held level, then calm >= max(W, 15 G); onset = first point whose
                         expected value is off by > max(0.15 gain, 4 sd of its own series)); switch (Markov: s1 and s1
                         - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x that, >= 9 phases, to the end; onset = first
                         point of the first low phase); lifelong oscillation of an env that never learns (sinus in s
                         from activation, mid 0.35..0.55 of the gain, peak-to-peak 0.45..0.7 of it, period 8..16
                         judged points, >= 4 periods; onset = its first point)
  unexpected_transition  logged states: after graduation + margin the state goes back to 1 for 0.5..1.5 W, then 2
                         again; onset = the first logged state point with the backward value
  eval_gap               evaluated envs: after graduation + margin the env's evals stop for the rest of the run (>=
                         max(5 x max(50 steps, G), 2 W) left) while the run goes on; onset = last eval + G (README
                         first_step)
  prolonged_training     a steady riser, LINEAR IN E (0.62 of the gain over its whole active life of >= 12.5 W), active
                         to the end, unlocked at 0; onset = its first point + 10 W (its own W, in steps). Not in
                         roll_valscore (judged on sparse evals, it would need ~250 of them)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's heaviest noise, gain
>= 5 sd), slow_learner (graduates within 4..6 W), late_learner (flat at s0 for 1..2 W from activation, then a normal
learner: under README's 3 windows), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one point at s0 + 0.05 gain after graduation). In dapo_regime every env lives through the batch
regime (README: the binomial noise of small batches is not volatility; the count is declared).

Noise and visibility (sd of one point in the metric's units at every level an event visits; noise is made quieter
until it holds, else the event is not planted): regression drop >= 4 sd; stall rise >= 5 sd and a never-learner's
gap to the top >= 6 sd; switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst base sd <= burst sd / 4;
prolonged riser sd <= 0.015 gain; healthy gain >= 8 sd (noisy >= 5). sd: speedup E sigma; Pong the exact episode sd
/ sqrt m; val score the mixture's episode sd / sqrt n; accuracy sqrt(s (1 - s) / n) at the SMALLEST regime's
expected count (k f_min G, at least G).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - roll_valscore's W and pace are read on the judged val series, though the env logs (another metric's) training
    every step;
  - pong_wallsec's and cg_speedup's irregular step intervals are one pace (README's mean of the intervals under 3x
    the median), though a slow stretch lengthens them for a while;
  - dapo_regime's pace is that of the whole train series, though it thins out in the low regime;
  - the stop thresholds sit below the 90 % line, so graduation (truth) is where the plateau test holds.
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
CYCLE = ("cg_speedup", "pong_wallsec", "roll_valscore", "dapo_regime")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "cg_speedup": """\
profile: cg
profiles:
  cg:
    patterns:
      - regex: '^cg/(?P<env>[^/]+)/(?P<split>train|val)/(?P<metric>speedup)$'
    performance_metric: speedup
""",
    "pong_wallsec": "performance_metric: score\n",
    "roll_valscore": "profile: roll\nperformance_metric: score/mean\n",
    "dapo_regime": """\
profile: dapo
profiles:
  dapo:
    patterns:
      - regex: '^(?P<split>train|val)/(?P<env>[^/]+)/(?P<metric>acc|num_samples)$'
      - {regex: '^curriculum/(?P<env>[^/]+)/state$', split: state, metric: state}
    performance_metric: acc
    count_metric: num_samples
""",
}
NAMES = {
    "cg_speedup": ["gemm", "qsort", "sha256", "adpcm", "bzip2", "dijkstra", "fft", "jpeg-c", "lame", "susan"],
    "pong_wallsec": ["pong-d0", "pong-d1", "pong-d2", "pong-d3", "pong-m1", "pong-m2", "pong-m3", "pong-hard"],
    "roll_valscore": ["SimpleSokoban", "LargerSokoban", "SokobanDifferentGridVocab", "FrozenLake", "WebShop-lite",
                      "Countdown-3", "Sokoban-2box", "Sokoban-3box"],
    "dapo_regime": ["aime-style", "amc-style", "gsm-hard", "olympiad-geo", "number-theory", "combinatorics",
                    "prealgebra", "inequalities"],
}
CURVES = ("exp", "logistic", "sqrt", "linear")
BLOCKERS = ("stag_never", "stag_freeze", "osc", "prolonged")


@dataclass
class Env:
    name: str
    unlock: int
    s0: float
    s1: float
    T: float
    L: int
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    noise: float = 0.05          # train noise parameter (sigma, actors m, train episodes n, prompts k a step)
    enoise: float | None = None  # eval noise parameter (sigma, episodes, val episodes, val problems)
    G: int | None = None         # eval interval in iterations
    at: int | None = None
    params: dict = field(default_factory=dict)


# --- the metric: E(s) and one point's sd ---------------------------------------------------------------

_K = np.arange(21, dtype=float)
_C = np.array([math.comb(20 + k, k) for k in range(21)], float)


def pong_p(s):
    return 0.2 + 0.72 * np.clip(np.asarray(s, float), 0.0, 1.0)


def pong_moments(p):
    """Exact mean and sd of one Pong episode's score (a race to 21 rallies, each won with p)."""
    p = np.asarray(p, float)[..., None]
    q = 1 - p
    win, lose = _C * p ** 21 * q ** _K, _C * q ** 21 * p ** _K
    sw, sl = 21 - _K, _K - 21
    m1 = (win * sw + lose * sl).sum(-1)
    m2 = (win * sw ** 2 + lose * sl ** 2).sum(-1)
    return m1, np.sqrt(np.maximum(m2 - m1 ** 2, 0.0))


SOK_WIN, SOK_FAIL = 13 - 0.1 * 35, -10 + 0.9          # 9.5, -9.1
SOK_VW, SOK_VF = 0.01 * (51 ** 2 - 1) / 12, 3 * 0.3 * 0.7


def e_map(run: dict, s) -> np.ndarray:
    """Skill -> the expected judged value in the metric's units (all higher-is-better here)."""
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    conv = run["convention"]
    if conv == "cg_speedup":
        return 1.0 + run["a"] * s
    if conv == "pong_wallsec":
        return pong_moments(pong_p(s))[0]
    if conv == "roll_valscore":
        return SOK_FAIL + (SOK_WIN - SOK_FAIL) * s
    return s.copy()


_GRID = np.linspace(0.0, 1.0, 4001)


def e_inv(run: dict, e) -> np.ndarray:
    """The skill whose expected value is e (E is increasing in s)."""
    return np.interp(np.asarray(e, float), e_map(run, _GRID), _GRID)


def E_levels(run: dict, env: Env) -> tuple[float, float]:
    return float(e_map(run, env.s0)), float(e_map(run, env.s1))


def skill_at_keep(run: dict, env: Env, keep: float) -> float:
    E0, E1 = E_levels(run, env)
    return float(e_inv(run, E0 + keep * (E1 - E0)))


def point_sd(run: dict, par: float, s: float) -> float:
    """sd of one point in the metric's units at skill s; par is the env's noise parameter."""
    conv = run["convention"]
    s = min(max(float(s), 0.0), 1.0)
    if conv == "cg_speedup":
        return float(e_map(run, s)) * par
    if conv == "pong_wallsec":
        return float(pong_moments(pong_p(s))[1]) / math.sqrt(par)
    if conv == "roll_valscore":
        var = s * (1 - s) * (SOK_WIN - SOK_FAIL) ** 2 + s * SOK_VW + (1 - s) * SOK_VF
        return math.sqrt(var / par)
    return math.sqrt(max(s * (1 - s), 0.0) / par)


def quieter(run: dict, par: float) -> float | None:
    conv = run["convention"]
    if conv == "cg_speedup":
        return None if par < 1e-4 else par / 1.5
    if conv == "pong_wallsec":
        return None if par > 96 else float(math.ceil(par * 1.5))
    return None if par > 3000 else float(math.ceil(par * 1.5))


def dapo_n(run: dict, k: float) -> float:
    """dapo_regime: the samples behind a point in the smallest regime (at least one prompt's group)."""
    return run["group"] * max(1.0, k * run["fmin"])


def sd_par(run: dict, attr: str, par: float) -> float:
    return dapo_n(run, par) if run["convention"] == "dapo_regime" and attr == "noise" else par


def make_visible(run: dict, env: Env, levels, limit: float) -> bool:
    def fix(attr: str, lim: float) -> bool:
        for _ in range(60):
            par = getattr(env, attr)
            if max(point_sd(run, sd_par(run, attr, par), lv) for lv in levels) <= lim + 1e-12:
                return True
            q = quieter(run, par)
            if q is None:
                return False
            setattr(env, attr, q)
        return False

    ok = True
    if run["convention"] != "roll_valscore":  # roll's training keys are another metric, never judged
        ok = fix("noise", limit)
    if env.enoise is not None:
        ok = fix("enoise", limit) and ok
    return ok


def default_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "cg_speedup":
        return float(rng.uniform(0.04, 0.06) if heavy else rng.uniform(0.01, 0.03))
    if conv == "pong_wallsec":
        return float(rng.integers(2, 5) if heavy else rng.integers(6, 17))
    if conv == "roll_valscore":
        return float(rng.integers(16, 65))
    return float(rng.uniform(1.0, 1.5) if heavy else rng.uniform(2.0, 6.0))


def eval_noise(run: dict, rng, train_par: float, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "cg_speedup":
        return train_par / float(rng.uniform(2, 3))
    if conv == "pong_wallsec":
        return float(rng.integers(4, 8) if heavy else rng.integers(8, 25))
    if conv == "roll_valscore":
        return float(rng.integers(10, 21) if heavy else rng.integers(32, 129))
    return float(rng.integers(128, 513))


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


def base_curve(run: dict, env: Env) -> np.ndarray:
    x = np.arange(env.L, dtype=float) - env.unlock
    g = env.s1 - env.s0
    s = np.full(env.L, np.nan)
    on = x >= 0
    v, p = env.variant, env.params
    if v == "never":
        s[on] = env.s0
    elif v == "freeze":
        s[on] = env.s0 + p["fr"] * g * np.minimum(x[on] / p["R"], 1.0)
    elif v == "riser":
        E0, E1 = E_levels(run, env)
        s[on] = e_inv(run, E0 + p["rate"] * (E1 - E0) * x[on])
    elif v == "osc":
        s[on] = env.s0 + g * (p["mid"] + 0.5 * p["pp"] * np.sin(2 * np.pi * x[on] / p["P"] + p["phase"]))
    else:
        delay = p.get("delay", 0.0)
        s[on] = env.s0 + g * f_curve(env.curve, np.maximum(x[on] - delay, 0.0) / env.T)
    return s


def window(run: dict) -> float:
    """W in iterations: max(min(100 steps, 10 % span), 20 J), J the convention's slowest planned pace."""
    return max(min(100.0 / run["unit"], 0.1 * (run["L"] - 1)), 20.0 * run["J"])


def grad_point(run: dict, env: Env, s: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc"):
        return None
    e = e_map(run, np.nan_to_num(s, nan=-1.0))
    E0, E1 = E_levels(run, env)
    hit = np.flatnonzero((e >= E0 + 0.9 * (E1 - E0) - 1e-12) & ~np.isnan(s))
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + max(0.3 * W, 3 * (env.G or 1))))


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    L, W = env.L, window(run)
    g = env.s1 - env.s0
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    G = env.G or 1
    sd_of = lambda lv: [float(e_map(run, x)) for x in lv]  # noqa: E731
    if ev in BLOCKERS:
        env.variant = {"stag_never": "never", "stag_freeze": "freeze", "osc": "osc", "prolonged": "riser"}[ev]
        env.event = {"osc": "performance_volatility", "prolonged": "prolonged_training"}.get(ev, "training_stagnation")
        active = L - env.unlock
        if ev == "stag_never":
            if active < 6 * W:
                return False
            return make_visible(run, env, [env.s0, env.s1], gE / 6)
        if ev == "stag_freeze":
            R = max(0.4 * W, 6.0) * rng.uniform(1.0, 2.0)
            fr = float(rng.uniform(0.2, 0.5))
            if active < R + 5 * W:
                return False
            env.params.update(R=float(R), fr=fr)
            top = skill_at_keep(run, env, fr)
            env.params["fr"] = (top - env.s0) / g  # the flat level keeps fr of the gain in E
            return make_visible(run, env, [env.s0, top], 0.2 * fr * gE)
        if ev == "osc":
            P = float(rng.uniform(8, 16)) * max(run["J"], G)
            if active < 4 * P:
                return False
            pp, mid = float(rng.uniform(0.45, 0.7)), float(rng.uniform(0.35, 0.55))
            env.params.update(P=P, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)))
            lo, hi = env.s0 + g * (mid - pp / 2), env.s0 + g * (mid + pp / 2)
            a, b = sd_of([lo, hi])
            return make_visible(run, env, [lo, hi], (b - a) / 6)
        if active < 12.5 * W:
            return False
        env.params["rate"] = 0.62 / active
        return make_visible(run, env, [env.s0, skill_at_keep(run, env, 0.62)], 0.015 * gE)
    if ev == "late_learner":
        env.params["delay"] = float(rng.uniform(1.0, 2.0) * W)
    e = base_curve(run, env)
    gp = grad_point(run, env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G)
    start = gp + margin
    if ev in ("healthy", "noisy_healthy", "slow_learner", "late_learner"):
        if gp + 2 * W > L:
            return False
        env.event = env.variant = ev
        return make_visible(run, env, [env.s0, env.s1], gE / (5 if ev == "noisy_healthy" else 8))
    if ev == "level_shift":
        d = float(rng.uniform(0.04, 0.06)) * g
        if env.s1 + d > 0.99 or start + 2 * W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.3) * (L - start - 2 * W))
        env.params["d"] = d
        return make_visible(run, env, [env.s0, env.s1 + d], gE / 8)
    if ev == "single_outlier":
        if start + W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 1) * max(0, L - start - W))
        return make_visible(run, env, [env.s0, env.s1], gE / 8)
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
        return make_visible(run, env, [env.s1, low_s, env.s0], (1 - keep) * gE / 4.0)
    if ev == "burst":
        B = int(max(W, 20 * G))
        need = B + max(W, 15 * G)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        bsd = float(rng.uniform(0.2, 0.3))
        env.event, env.variant = "performance_volatility", "burst"
        env.params.update(length=B, bsd=bsd)
        a, b = sd_of([env.s1 - bsd * g, env.s1])
        return make_visible(run, env, [env.s1, env.s1 - bsd * g], (b - a) / 4)
    if ev == "switch":
        dmin = int(math.ceil(max(4 * run["J"], 4 * G)))
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
        low_s = skill_at_keep(run, env, 1 - gap)
        env.params.update(gap=gap, phases=phases, low_s=low_s)
        a, b = sd_of([low_s, env.s1])
        return make_visible(run, env, [env.s1, low_s], (b - a) / 5)
    if ev == "eval_gap":
        if env.G is None:
            return False
        need = max(5 * max(50.0 / run["unit"], G), 2 * W) + 2 * G
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 0.5) * (L - start - need))
        env.event = env.variant = "eval_gap"
        return make_visible(run, env, [env.s0, env.s1], gE / 8)
    if ev == "transition":
        if not run.get("states"):
            return False
        length = int(rng.uniform(0.5, 1.5) * W)
        if start + length + W > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - length - W))
        env.event, env.variant = "unexpected_transition", "revisit"
        env.params["length"] = length
        return make_visible(run, env, [env.s0, env.s1], gE / 8)
    raise ValueError(ev)


def truth(run: dict, env: Env) -> np.ndarray:
    """The skill per iteration (NaN before unlock), events applied; draws of bursts are seeded."""
    g = env.s1 - env.s0
    s = base_curve(run, env)
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
                s[a:b] = p["low_s"]
    elif v == "level_shift":
        s[env.at:] = s[env.at:] + p["d"]
    elif v == "single_outlier":
        s[env.at] = env.s0 + 0.05 * g
    return np.where(np.isnan(s), s, np.clip(s, 0.0, 1.0))


# --- planning --------------------------------------------------------------------------------------

def new_env(run: dict, rng, name: str, unlock: int, has_eval: bool) -> Env:
    s0 = float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0.0, 1.0))
    s1 = float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 1.0))
    W = window(run)
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=float(rng.uniform(0.8, 2.5) * W), L=run["L"],
              curve=str(rng.choice(CURVES)), noise=default_noise(run, rng))
    if has_eval:
        env.G = run["G"]
        env.enoise = eval_noise(run, rng, env.noise)
    return env


POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
        "eval_gap", "transition", "transition", "prolonged", "prolonged"]
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "slow_learner", "late_learner", "level_shift", "single_outlier"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W)
    if neg == "late_learner":
        env.T = float(rng.uniform(0.8, 1.5) * W)
    if neg == "noisy_healthy":
        env.noise = default_noise(run, rng, heavy=True)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng, env.noise, heavy=True)
    if not place(run, env, neg, rng):
        env.at, env.params = None, {}
        env.T = float(rng.uniform(0.8, 1.5) * W)
        env.noise = default_noise(run, rng)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng, env.noise)
        place(run, env, "healthy", rng)
        env.event = env.variant = "healthy"


def plan_scales(run: dict, rng) -> None:
    conv = run["convention"]
    run["first"] = 0
    run["J"] = 1.0
    run["states"] = False
    if conv == "cg_speedup":
        run["L"] = int(rng.integers(400, 701))
        spi = int(rng.choice([1024, 2048, 4096]))
        run["unit"] = float(spi)
        jit = np.random.default_rng(zlib.crc32(f"{run['name']}/clock".encode())).uniform(0.6, 1.4, run["L"])
        run["clock"] = np.cumsum(np.round(spi * jit)).astype(np.int64)
        run["a"] = float(rng.uniform(0.3, 1.2))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.03)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(5, 13)) if rng.random() < 0.6 else None
    elif conv == "pong_wallsec":
        run["L"] = int(rng.integers(350, 601))
        spi = float(rng.uniform(30, 90))
        crng = np.random.default_rng(zlib.crc32(f"{run['name']}/clock".encode()))
        dur = spi * crng.lognormal(0, 0.25, run["L"])
        if rng.random() < 0.5:
            a = int(rng.uniform(0.2, 0.7) * run["L"])
            b = a + int(rng.uniform(0.05, 0.15) * run["L"])
            dur[a:b] *= float(rng.uniform(1.5, 2.0))
            run["slow"] = (a, b)
        run["unit"] = float(dur.mean())
        run["clock"] = np.floor(np.cumsum(dur)).astype(np.int64)
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.88, 0.97))
        run["G"] = int(rng.integers(5, 13)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)
    elif conv == "roll_valscore":
        run["L"] = int(rng.integers(500, 901))
        run["unit"] = 1.0
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.8, 0.95))
        run["G"] = int(rng.integers(3, 7))
        run["J"] = float(run["G"])
    else:
        run["L"] = int(rng.integers(300, 601))
        run["unit"] = 1.0
        run["J"] = 2.0
        run["group"] = int(rng.choice([8, 16]))
        f = np.ones(run["L"])
        if rng.random() < 0.7:
            a = int(rng.uniform(0.2, 0.7) * run["L"])
            f[a:a + int(rng.uniform(0.1, 0.3) * run["L"])] = float(rng.uniform(0.25, 0.5))
        if rng.random() < 0.5:
            f[int(rng.uniform(0.4, 0.8) * run["L"]):] *= float(rng.uniform(2, 4))
        run["f"] = f
        run["fmin"] = float(f.min())
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.06)), float(rng.uniform(0.8, 0.95))
        run["G"] = int(rng.integers(5, 11)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.5)
    if "clock" not in run:
        run["clock"] = np.arange(run["L"], dtype=np.int64)


def draw_event(run: dict, env: Env, pool: list[str], rng, has_prolonged: bool) -> str | None:
    unlock = env.unlock
    for _try in range(3):
        ev = str(rng.choice(pool))
        if ev == "prolonged" and has_prolonged:
            ev = "reg_critical"
        if ev == "prolonged":
            env.unlock = 0
        if place(run, env, ev, rng):
            return ev
        fresh = new_env(run, rng, env.name, unlock, env.G is not None)
        env.__dict__.update(fresh.__dict__)
    return None


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    plan_scales(run, rng)
    W = window(run)
    names = NAMES[conv]
    n = int(rng.integers(3, 7))
    waves = int(rng.integers(1, 3))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    has_eval = run["G"] is not None
    envs = [new_env(run, rng, names[k], starts[j % len(starts)] if j >= 2 else 0, has_eval)
            for j, k in enumerate(pick)]
    pool = [p for p in POOL if (p != "eval_gap" or has_eval) and (p != "transition" or run["states"])
            and not (p == "prolonged" and conv == "roll_valscore")]
    has_prolonged = False
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.65:
            ev = draw_event(run, env, pool, rng, has_prolonged)
            if ev is not None:
                has_prolonged |= ev == "prolonged"
                continue
        apply_negative(run, env, str(rng.choice(NEG_POOL if j >= 2 else NEG_POOL[:3])), rng)
    if has_prolonged:  # README: at least twice the median time the graduated envs took
        for env in envs:
            if env.event not in EVENTS and (env.T > 1.5 * W or env.variant == "late_learner"):
                env.T = float(rng.uniform(0.8, 1.5) * W)
                env.params.pop("delay", None)
                env.event = env.variant = "healthy"
    learners = [e for e in envs if e.variant not in ("never", "freeze", "riser", "osc")]
    for k, e in enumerate(list(envs)):
        if len(learners) >= max(2, len(envs) / 2):
            break
        if e.variant in ("never", "freeze", "osc"):
            fresh = new_env(run, rng, e.name, e.unlock, has_eval)
            apply_negative(run, fresh, "healthy", rng)
            envs[k] = fresh
            learners.append(fresh)
    run["envs"] = envs


# --- observing -------------------------------------------------------------------------------------

def pong_episodes(p: np.ndarray, m: int, rng) -> np.ndarray:
    """Mean score of m simulated Pong episodes per entry of p (rally by rally, a race to 21)."""
    out = np.empty(len(p))
    for a in range(0, len(p), 512):
        pp = p[a:a + 512]
        r = rng.random((len(pp), m, 41)) < pp[:, None, None]
        wins, losses = np.cumsum(r, -1), np.cumsum(~r, -1)
        end = np.argmax((wins >= 21) | (losses >= 21), -1)
        sc = np.take_along_axis(wins - losses, end[..., None], -1)[..., 0]
        out[a:a + 512] = sc.mean(-1)
    return out


def sokoban_val(s: np.ndarray, n: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, max and solved share of n val episodes per entry of s."""
    solved = rng.random((len(s), n)) < s[:, None]
    win = 13 - 0.1 * rng.integers(10, 61, (len(s), n))
    fail = -10 + rng.binomial(3, 0.3, (len(s), n))
    sc = np.where(solved, win, fail).astype(float)
    return sc.mean(1), sc.max(1), solved.mean(1)


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    conv = run["convention"]
    on = np.arange(env.unlock, env.L)
    if env.G:
        ev_its = on[on % env.G == env.G - 1]
        if env.variant == "eval_gap":
            ev_its = ev_its[ev_its < env.at]
    else:
        ev_its = np.array([], int)
    tr_its, counts = on, None
    if conv == "dapo_regime":
        k = rng.poisson(env.noise * run["f"][on])
        k[0] = max(k[0], 1)
        tr_its, counts = on[k > 0], k[k > 0] * run["group"]
    st, se = np.clip(s[tr_its], 0, 1), np.clip(s[ev_its], 0, 1)
    out = {"eval_extra": {}}
    if conv == "cg_speedup":
        tr = e_map(run, st) * rng.lognormal(-env.noise ** 2 / 2, env.noise, len(st))
        ev = e_map(run, se) * rng.lognormal(-env.enoise ** 2 / 2, env.enoise, len(se)) if len(se) else np.array([])
    elif conv == "pong_wallsec":
        tr = pong_episodes(pong_p(st), int(env.noise), rng)
        ev = pong_episodes(pong_p(se), int(env.enoise), rng) if len(se) else np.array([])
    elif conv == "roll_valscore":
        n_tr = int(env.noise)
        tr = rng.binomial(n_tr, np.clip(st + 0.02, 0, 1)) / n_tr  # env/{tag}/success: another metric
        ev, mx, sol = sokoban_val(se, int(env.enoise), rng)
        nan = rng.random(len(ev)) < 0.02
        nan[0] = False
        ev = np.where(nan, np.nan, ev)
        out["eval_extra"] = {"max": np.where(nan, np.nan, mx), "success": sol}
    else:
        tr = rng.binomial(counts, st) / counts
        n_ev = int(env.enoise) if env.enoise else 1
        ev = rng.binomial(n_ev, se) / n_ev if len(se) else np.array([])
        out["counts"] = counts
    out.update(train=(tr_its, tr), eval=(ev_its, ev))
    return out


def state_series(env: Env, gp: int | None, its: np.ndarray) -> list[tuple[int, int]]:
    out = []
    for i in its:
        v = 0 if i < env.unlock else (2 if gp is not None and i >= gp else 1)
        if env.variant == "revisit" and env.at <= i < env.at + env.params["length"]:
            v = 1
        out.append((int(i), v))
    return out


# --- labelling -------------------------------------------------------------------------------------

def pace(steps: np.ndarray) -> float:
    """README's logging pace: the median interval when regular, else the mean of the intervals under 3x it."""
    if len(steps) < 2:
        return 1.0
    d = np.diff(steps).astype(float)
    med = float(np.median(d))
    if np.all(np.abs(d / med - np.round(d / med)) < 1e-9):
        return med
    return float(d[d < 3 * med].mean())


def label_for(run: dict, env: Env, e: np.ndarray, its: np.ndarray, ev_its: np.ndarray, W_env: float,
              G_env: float | None) -> dict | None:
    """its: the iterations of the env's judged points (train or eval, finite); ev_its its eval iterations; W_env,
    G_env in steps."""
    if env.event not in EVENTS:
        return None
    clock = run["clock"]
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    v, p = env.variant, env.params
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v == "freeze":
        flat = float(e_map(run, env.s0 + p["fr"] * (env.s1 - env.s0)))
        rise = flat - E0
        a = int(math.ceil(env.unlock + p["R"]))
        near = np.flatnonzero((np.arange(len(e)) >= a) & (e >= flat - 0.1 * rise))
        t0 = int(near[0]) if len(near) else a
    elif v == "riser":
        return mk(run, env, int(clock[its[0]]) + int(round(10 * W_env)))
    elif v == "eval_gap":
        return mk(run, env, int(clock[ev_its[-1]]) + int(round(G_env)))
    elif v == "revisit":
        t0 = env.at
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gE))
        t0 = int(below[0])
    elif v == "burst":
        a, B = env.at, p["length"]
        sd = lambda par, attr, i: point_sd(run, sd_par(run, attr, par), env.s1)  # noqa: E731
        tr_sd = sd(env.noise, "noise", 0) if run["convention"] != "roll_valscore" else math.inf
        ev_sd = sd(env.enoise, "enoise", 0) if env.enoise is not None else tr_sd
        ev_set = set(int(x) for x in ev_its)
        off = [i for i in its if a <= i < a + B
               and E1 - e[i] > max(0.15 * gE, 4 * (min(tr_sd, ev_sd) if i in ev_set else tr_sd))]
        if not off:
            return None
        t0 = off[0]
    elif v == "switch":
        t0 = p["phases"][0][0]
    else:
        raise ValueError(v)
    ok = its[its >= t0]
    return mk(run, env, int(clock[ok[0]])) if len(ok) else None


def mk(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant}", variant=env.variant)


# --- writers ---------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0


def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def write_cg(folder: Path, run: dict, data: dict) -> None:
    """One W&B offline run, rows without step=, `cg/*` stepped by the row's `samples` (define_metric)."""
    _tests_on_path()
    from writers import write_wandb

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), {})[f"cg/{env.name}/train/speedup"] = float(v)
        for i, v in zip(*d["eval"]):
            rows.setdefault(int(i), {})[f"cg/{env.name}/val/speedup"] = float(v)
    its = sorted(rows)
    for i in its:
        rows[i]["samples"] = int(run["clock"][i])
    write_wandb(folder / "wandb", [rows[i] for i in its], run_id=run["trial"], name=run["name"],
                define_metrics=(("cg/*", "samples"),))


def write_pong(folder: Path, run: dict, data: dict) -> None:
    """tensorboardX, one SummaryWriter; global_step = elapsed wall seconds."""
    from tensorboardX import SummaryWriter

    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), []).append((f"train/{env.name}/score", v))
        for i, v in zip(*d["eval"]):
            rows.setdefault(int(i), []).append((f"eval/{env.name}/score", v))
        for i, v in d.get("states", []):
            rows.setdefault(int(i), []).append((f"curriculum/{env.name}/state", v))
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=1 << 20)
    for i in sorted(rows):
        t = int(run["clock"][i])
        for tag, v in rows[i]:
            w.add_scalar(tag, float(v), t, walltime=WALL0 + t)
    w.close()


def write_roll(folder: Path, run: dict, data: dict, rng) -> None:
    """ROLL's stdout tracker lines in a saved driver log."""
    _tests_on_path()
    from writers import write_roll_stdout

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            m = rows.setdefault(int(i), {})
            m[f"env/{env.name}/success"] = float(v)
            m[f"env/{env.name}/num_actions"] = float(np.round(rng.uniform(3, 12), 2))
        ex = d["eval_extra"]
        for k, (i, v) in enumerate(zip(*d["eval"])):
            m = rows.setdefault(int(i), {})
            m[f"val/{env.name}/score/mean"] = float(v)
            m[f"val/{env.name}/score/max"] = float(ex["max"][k])
            m[f"val/env/{env.name}/success"] = float(ex["success"][k])
    out = []
    for i in sorted(rows):
        m = rows[i]
        tr = [v for k, v in m.items() if k.startswith("env/") and k.endswith("/success")]
        if tr:
            m["env/all/success"] = float(np.mean(tr))
        m["system/tps"] = float(np.round(rng.uniform(800, 1200), 1))
        out.append((int(run["clock"][i]), m))
    write_roll_stdout(folder / "log_rank_DRIVER_0_1.log", out)


def write_dapo(folder: Path, run: dict, data: dict) -> None:
    """One W&B offline run logged with step= the trainer step; counts beside every accuracy."""
    _tests_on_path()
    from writers import write_wandb

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v, c in zip(*d["train"], d["counts"]):
            r = rows.setdefault(int(i), {})
            r[f"train/{env.name}/acc"] = float(v)
            r[f"train/{env.name}/num_samples"] = int(c)
        for i, v in zip(*d["eval"]):
            r = rows.setdefault(int(i), {})
            r[f"val/{env.name}/acc"] = float(v)
            r[f"val/{env.name}/num_samples"] = int(env.enoise)
        for i, v in d.get("states", []):
            rows.setdefault(int(i), {})[f"curriculum/{env.name}/state"] = int(v)
    its = sorted(rows)
    write_wandb(folder / "wandb", [rows[i] for i in its], steps=[int(run["clock"][i]) for i in its],
                run_id=run["trial"], name=run["name"])


def cg_overrides(plans: list[dict]) -> str:
    """The trainer's stop threshold per env of every cg_speedup run (E0 + 0.55..0.75 of the gain)."""
    lines = ["overrides:"]
    for run in plans:
        for env in run["envs"]:
            lines.append(f'  - {{run: "{run["name"]}*", env: "{env.name}", graduation: {{stop_threshold: '
                         f'{env.params["stop_threshold"]:.4f}}}}}')
    return "\n".join(lines) + "\n" if len(lines) > 1 else ""


# --- build -----------------------------------------------------------------------------------------

def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    cg_plans: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        name = f"x{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'sixteenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
        prng = np.random.default_rng(rseed)
        run = dict(name=name, convention=conv, seed=rseed, trial=trial)
        plan_run(run, prng)
        folder = root / conv / name
        folder.mkdir(parents=True, exist_ok=True)
        orng = np.random.default_rng(rseed + 1)
        W = window(run)
        clock = run["clock"]
        span = float(clock[-1] - clock[0])
        data, tol = {}, []
        for env in run["envs"]:
            s = truth(run, env)
            gp = grad_point(run, env, base_curve(run, env), W)
            env.params["graduated_point"] = gp
            if conv == "cg_speedup":
                E0, E1 = E_levels(run, env)
                env.params["stop_threshold"] = E0 + float(prng.uniform(0.55, 0.75)) * (E1 - E0)
            d = observe(run, env, s, orng)
            if run["states"]:
                st_its = np.unique(np.concatenate([d["train"][0], d["eval"][0]])).astype(int)
                d["states"] = state_series(env, gp, st_its)
            data[env.name] = d
            tr_its = np.asarray(d["train"][0], int)
            ev_its = np.asarray(d["eval"][0], int)
            ev_ok = ev_its[np.isfinite(np.asarray(d["eval"][1], float))] if len(ev_its) else ev_its
            judged = ev_ok if conv == "roll_valscore" else np.unique(np.concatenate([tr_its, ev_ok])).astype(int)
            J_env = pace(clock[ev_ok] if conv == "roll_valscore" else clock[tr_its])
            W_env = max(min(100.0, 0.1 * span), 20.0 * J_env)
            G_env = float(np.median(np.diff(clock[ev_its]))) if len(ev_its) >= 2 else None
            env.params.update(W_env=W_env, G_env=G_env, J_env=J_env)
            tol.append(max(W_env / 10.0, G_env or J_env))
            lab = label_for(run, env, e_map(run, np.nan_to_num(s, nan=env.s0)), judged, ev_its, W_env, G_env)
            if lab:
                if lab["onset"] > clock[-1]:  # a riser whose 10 windows outlast the run: no event after all
                    env.event = env.variant = "riser_short"
                else:
                    labels.append(lab)
        if conv == "cg_speedup":
            write_cg(folder, run, data)
            cg_plans.append(run)
        elif conv == "pong_wallsec":
            write_pong(folder, run, data)
        elif conv == "roll_valscore":
            write_roll(folder, run, data, np.random.default_rng(rseed + 2))
        else:
            write_dapo(folder, run, data)
        meta = {k: v for k, v in run.items() if k not in ("envs", "clock", "f")}
        meta.update(tolerance_unit=int(round(max(tol))), window_steps=W * run["unit"],
                    eval_every=int(round((run.get("G") or 1) * run["unit"])),
                    first_step=int(clock[0]), last_step=int(clock[-1]))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                         "curve": e.curve, "noise": e.noise, "eval_noise": e.enoise, "unlock": e.unlock,
                         "unlock_step": int(clock[e.unlock]), "s0": e.s0, "s1": e.s1, "T": e.T, "G": e.G,
                         "at": e.at, "at_step": int(clock[e.at]) if e.at is not None else None, "L": e.L,
                         "params": {k: v for k, v in e.params.items() if k != "phases"}}
                        for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            if conv == "cg_speedup":
                text += cg_overrides(cg_plans)
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
