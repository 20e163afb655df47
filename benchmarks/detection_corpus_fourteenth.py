"""The fourteenth detection corpus (`python benchmarks/detection.py --corpus fourteenth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md; the
profiles' key spellings), without reading the rules' or the analysis code, and without looking at which cases
curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-fourteenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml in the group folder,
where the scorer reads it). Chosen for what the thirteen other corpora cover least (their docstrings): no trainer
that opens a NEW SummaryWriter PER CURRICULUM STAGE (a new event file per stage, or a `stage_{k}/` subfolder per
stage, whose tags README reads prefixed with the subfolder), no BLEU-like score in [0, 100], no PASS@K of k samples
per problem (a nonlinear function of the per-sample rate over problems of unequal difficulty, read through the
unbiased estimator 1 - C(n-c, k)/C(n, k): its values are no lattice and its noise is not binomial over problems), no
SIBLING SEEDS of one config as separate runs where one seed regresses and the others do not, no EXTREMELY SPARSE
evals (8..15 per env over its life) beside dense training, no envs unlocked in the LAST 10..15 % of the run, no
whole-run LOGGING PAUSE of 10..20 % of the run inside a TensorBoard run, no run cut off while envs are still rising,
and no noise level that DIFFERS ~10x BETWEEN SIBLING ENVS of one run (log-normal, so it also grows with the loss):

  stage_bleu     tensorboardX, layout `train|eval/{task}/bleu` (a corpus BLEU in [0, 100]: Bmax 35..65 at the top;
                 train = BLEU of the step's batch of sentences, eval = BLEU of a dev set every 8..15 iterations in
                 60 %), `curriculum/{task}/state` 0/1/2 in 40 %. The trainer runs 2..4 STAGES; each stage unlocks its
                 wave of tasks and opens a NEW `SummaryWriter` that logs every unlocked task until the next stage:
                 in half the runs `SummaryWriter(log_dir)` again (a new event file in the run folder, started when the
                 stage began: README reads a folder's event files in the order they were started), in the other half
                 `SummaryWriter(f"{log_dir}/stage_{k}")` (a subfolder per stage) beside the root writer's run-level
                 `curriculum/stage` and `time/fps` (README: a subfolder's event files belong to the run; its tags are
                 prefixed with the subfolder, `stage_1/train/de-en/bleu`), read through a user profile whose patterns
                 take an optional `stage_{k}/` prefix. Steps of 1 or 100; 500..800 iterations; 4..8 tasks.
  passk_seeds    W&B OFFLINE runs (tests/writers.write_wandb, step= the trainer step), generic keys
                 `train|eval/{task}/pass_at_{k}` (k 4 or 8, n = 16 samples per problem, the unbiased estimator, mean
                 over 24..96 problems a training batch and 200..500 an eval every 5..10 steps in 70 %) beside
                 `train/{task}/avg_at_16` (the per-sample rate: not judged) and an unclaimed `optim/lr`; config: a
                 user profile `passk` reading `pass_at_\d+` as metric `pass_at_k` (families differ in k), forced with
                 `profile: passk` (the generic profile claims the same tags).
                 Each problem's per-sample rate p ~ Beta(r kappa, (1 - r) kappa) (kappa 2..6) around the task's rate r;
                 the expected pass@k is 1 - B(a, b + k)/B(a, b). SIBLING SEEDS: consecutive passk runs form families
                 of 3 seeds of ONE config (same tasks, unlocks, rates; learning speed jittered x0.85..1.15 per seed,
                 own noise): in a family one seed (not the others) regresses on a shared task unlocked at 0; the
                 other tasks of every seed carry their own events at random (bursts, switching, stalls, oscillation,
                 eval gaps: no other regression, so the family's regression is its one seed's). Each seed is its own
                 run (its own folder and run id, no W&B group: README reads each as a run). 420..650 steps; 3..6 tasks.
  sparse_pause   tensorboardX, generic `train|eval/{env}/reward` (returns 0..R, R 200..1,000; means of 4..16
                 episodes a training point). EXTREMELY SPARSE evals: each evaluated env (70 % of the runs) gets 8..15
                 evals spread evenly over its active life (fewer where the pause falls), dense training every
                 iteration. In half the runs the
                 whole run LOGS NOTHING for 10..20 % of its span (the step counter goes on: a lost logger), then
                 logs on. Most runs hold a LATE env unlocked in the run's last 10..15 % (a fast learner, clean), and
                 40 % are IN PROGRESS: 1..2 envs unlocked 1.5..2.5 W before the end are still rising linearly
                 when the log ends (clean). Steps of 1 or 10; 480..760 iterations; 4..7 envs.
  loss_hetero    tensorboardX, generic `train|eval/{env}/loss` (LOWER is better by its name: README), loss =
                 Lhi (Llo / Lhi)^s (Lhi 2..6, Llo 0.05..0.6 of it), LOG-NORMAL noise loss x exp(sigma Z) whose sigma
                 is drawn PER ENV from 0.02..0.35 (siblings of one run ~10x apart in noise, HETEROSCEDASTIC; in loss
                 units the noise grows with the loss), evals (60 %) every 8..16 iterations with sigma / 2..3,
                 `curriculum/{env}/state` in 40 %. Steps of 1 or 50; 500..800 iterations; 4..7 envs.

Truth. Each env has a skill curve s in [0, 1] on its iteration grid (from its unlock): a learner goes from s0 to s1
over T iterations (exp, logistic, sqrt or linear) and is flat at s1 after. It is mapped to the EXPECTED judged value
in the metric's units, oriented higher-is-better: bleu Bmax s; passk 1 - B(a, b + k)/B(a, b) with r = s (the
per-sample rate); reward R s; loss -Lhi (Llo / Lhi)^s (the oriented loss; the log-normal's exp(sigma^2 / 2) factor is
the same at every level, so shares of the gain do not move). E0 = E(s0), E1 = E(s1); fractions of the gain are of
E1 - E0 in these units. The envs of a run share one scale (s0 within 0.02 of the run's, s1 within 0.015).
  J  judged pace        the train logging interval in iterations (1: every convention trains densely)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation), in steps
  G  eval interval      the env's eval interval in iterations (sparse_pause: its own, active life / 8..15), else J
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G), in steps = `tolerance_unit`
                        in plan.json; a detection matches a label within 2 Q (the scorer's rule)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more; logged states go to 2
there. Healthy learners reach their top within 0.8..2.5 W.

In a run the first two envs are clean learners from step 0; each later env carries an event with probability 0.65
(up to 3 draws from the convention's pool until one fits; else a clean negative), and at least half the envs (and
two) learn to the shared top.

Labels (an env carries at most one; onset in steps; "first point" = the env's first finite logged point, train or
eval, at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp over 0.5..1.5 W) fall to
                         keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W, 15 G)
                         left). Onset = first point at which E keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point, beside >= 2
                         siblings that learn to the shared top; freeze: a linear rise over >= max(0.4 W, 6 J) to
                         0.2..0.5 of the gain, then flat and active >= 5 W to the end; onset = first point at which E
                         is within a tenth of the rise of the flat level
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) iterations of s scattered |N(0,
                         0.2..0.3 gain)| below the held level, then calm >= max(W, 15 G); onset = first point, train
                         or eval, whose expected value is off by > max(0.15 gain, 4 sd of its own series)); switch
                         (Markov: s1 and s1 - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x that, >= 9 phases, to the
                         end; onset = first point of the first low phase); lifelong oscillation of an env that never
                         learns (sinus from activation, mid 0.35..0.55 of the gain, peak-to-peak 0.45..0.7 of it,
                         period 8..16 judged points, >= 4 periods; onset = its first point)
  unexpected_transition  logged states: after graduation + margin the state goes back to 1 for 0.5..1.5 W, then 2
                         again; onset = the first logged state point with the backward value
  eval_gap               evaluated envs (not sparse_pause's, whose 8..15 evals leave no regular interval to miss):
                         after graduation + margin the env's evals stop for the rest of the run (>= max(5 x max(50
                         steps, G), 2 W) left) while the run goes on; onset = last eval + G (README first_step)
  prolonged_training     a steady linear riser (0.62 of the gain over its whole active life of >= 12.5 W) active to
                         the end, unlocked at 0, in a run whose learners graduate within 2.5 W and that has no pause;
                         onset = its first point + 10 W
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's heaviest noise, gain
>= 5 sd), slow_learner (graduates within 4..6 W), level_shift (+0.04..0.06 gain after graduation, where there is
room), single_outlier (one point at s0 + 0.05 gain after graduation), late (sparse_pause: unlocked in the last
10..15 %, learning within 0.4..0.9 W), midrise (sparse_pause in-progress runs: still rising when the log ends), and
the seeds of a passk family that do not carry the family's regression.

Noise and visibility (sd of one point in the metric's oriented units at every level an event visits; noise is made
quieter until it holds, else the event is not planted): regression drop >= 4 sd; stall rise >= 5 sd and a
never-learner's gap to the top >= 6 sd; switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst base sd <=
burst sd / 4; prolonged riser sd <= 0.015 gain; healthy gain >= 8 sd (noisy >= 5). sd per family: bleu Bmax sigma;
passk by simulation of the estimator (300 batches at the level); reward R sigma / sqrt(n); loss loss(s) sigma.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a stage subfolder's tags are read prefixed with `stage_{k}/`, so the group's user profile takes an optional
    `stage_\\d+/` prefix; the root writer always exists (a trainer's main writer), so the stages are one run;
  - a whole-run logging pause is no event; no onset of an event is placed within W of the pause, no prolonged env in
    a paused run, and sparse_pause envs carry no eval_gap label (their evals are 8..15 over a life);
  - an env of a sibling seed is judged within its own run: the seeds that do not regress are clean;
  - pass@k's gain shares are read on the expected pass@k itself (the metric the log holds), not on the per-sample rate;
  - the tolerance unit is the run's coarsest env's (sparse evals make it coarse: G of 25..60 iterations).
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
CYCLE = ("stage_bleu", "passk_seeds", "sparse_pause", "loss_hetero")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
FAMILY = 3
CONFIGS = {
    "stage_bleu": """\
profiles:
  stages:
    patterns:
      - regex: '^(?:stage_\\d+/)?(?P<split>train|eval)/(?P<env>[^/]+)/(?P<metric>bleu)$'
      - {regex: '^(?:stage_\\d+/)?curriculum/(?P<env>[^/]+)/state$', split: state, metric: state}
    performance_metric: bleu
""",
    "passk_seeds": """\
profile: passk
profiles:
  passk:
    patterns:
      - {regex: '^(?P<split>train|eval)/(?P<env>[^/]+)/pass_at_\\d+$', metric: pass_at_k}
      - {regex: '^train/(?P<env>[^/]+)/(?P<metric>avg_at_16)$', split: train}
    performance_metric: pass_at_k
""",
    "sparse_pause": "performance_metric: reward\n",
    "loss_hetero": "performance_metric: loss\n",
}
NAMES = {
    "stage_bleu": ["de-en", "fr-en", "es-en", "ru-en", "zh-en", "ja-en", "fi-en", "tr-en", "ro-en", "cs-en"],
    "passk_seeds": ["gsm8k", "math-l2", "math-l4", "humaneval", "mbpp", "aime-lite", "countdown", "logic-grid"],
    "sparse_pause": ["reach", "push", "pick", "place", "stack", "slide", "open-drawer", "turn-valve", "insert-peg"],
    "loss_hetero": ["copy", "reverse", "sort", "add", "multiply", "parity", "dyck", "induction", "lookup"],
}
CURVES = ("exp", "logistic", "sqrt", "linear")


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
    noise: float = 0.05          # train noise parameter (sigma, or problems m for passk, or episodes n for reward)
    enoise: float | None = None  # eval noise parameter
    G: int | None = None
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
    elif v in ("riser", "midrise"):
        s[on] = env.s0 + p["rate"] * g * x[on]
    elif v == "osc":
        s[on] = env.s0 + g * (p["mid"] + 0.5 * p["pp"] * np.sin(2 * np.pi * x[on] / p["P"] + p["phase"]))
    else:
        s[on] = env.s0 + g * f_curve(env.curve, x[on] / env.T)
    return s


def passk_expected(r, k: int, kappa: float):
    """E[1 - (1 - p)^k], p ~ Beta(r kappa, (1 - r) kappa): 1 - prod_j (b + j) / (a + b + j)."""
    r = np.clip(np.asarray(r, float), 1e-4, 1 - 1e-4)
    a, b = r * kappa, (1 - r) * kappa
    prod = np.ones_like(r)
    for j in range(k):
        prod = prod * (b + j) / (a + b + j)
    return 1 - prod


def e_map(run: dict, s) -> np.ndarray:
    """Skill -> the expected judged value in the metric's units, oriented higher-is-better."""
    s = np.asarray(s, float)
    conv = run["convention"]
    if conv == "stage_bleu":
        return run["Bmax"] * s
    if conv == "passk_seeds":
        out = np.full(s.shape, np.nan)
        m = ~np.isnan(s)
        out[m] = passk_expected(s[m], run["k"], run["kappa"])
        return out
    if conv == "sparse_pause":
        return run["R"] * s
    return -run["Lhi"] * (run["Llo"] / run["Lhi"]) ** s


def E_levels(run: dict, env: Env) -> tuple[float, float]:
    return float(e_map(run, np.array([env.s0]))[0]), float(e_map(run, np.array([env.s1]))[0])


def grad_point(run: dict, env: Env, s: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc", "midrise"):
        return None
    e = e_map(run, s)
    E0, E1 = E_levels(run, env)
    hit = np.flatnonzero(e >= E0 + 0.9 * (E1 - E0) - 1e-12)
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + max(0.3 * W, 3 * (env.G or 1))))


def skill_at_keep(run: dict, env: Env, keep: float) -> float:
    E0, E1 = E_levels(run, env)
    target = E0 + keep * (E1 - E0)
    lo, hi = env.s0, env.s1
    for _ in range(60):
        mid = (lo + hi) / 2
        if float(e_map(run, np.array([mid]))[0]) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# --- noise -----------------------------------------------------------------------------------------

_PASSK_SD: dict = {}


def passk_draw(r: np.ndarray, m: int, k: int, kappa: float, rng, n: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Mean over m problems of the unbiased pass@k estimate (n samples each), and the mean per-sample rate."""
    r = np.clip(np.asarray(r, float), 1e-3, 1 - 1e-3)
    p = rng.beta(r[:, None] * kappa, (1 - r[:, None]) * kappa, size=(len(r), m))
    c = rng.binomial(n, p)
    # 1 - C(n - c, k) / C(n, k) = 1 - prod_{j<k} (n - c - j) / (n - j)
    prod = np.ones_like(p)
    for j in range(k):
        prod = prod * np.clip(n - c - j, 0, None) / (n - j)
    return (1 - prod).mean(axis=1), (c / n).mean(axis=1)


def passk_sd(r: float, m: int, k: int, kappa: float) -> float:
    key = (round(float(r), 2), int(m), k, round(kappa, 1))
    if key not in _PASSK_SD:
        rng = np.random.default_rng(zlib.crc32(repr(key).encode()))
        v, _ = passk_draw(np.full(300, key[0]), key[1], k, kappa, rng)
        _PASSK_SD[key] = float(np.std(v))
    return _PASSK_SD[key]


def point_sd(run: dict, par: float, s: float) -> float:
    """sd of one point in the metric's oriented units at skill s; par is the env's noise parameter."""
    conv = run["convention"]
    if conv == "stage_bleu":
        return run["Bmax"] * par
    if conv == "passk_seeds":
        return passk_sd(s, int(par), run["k"], run["kappa"])
    if conv == "sparse_pause":
        return run["R"] * run["ep_sigma"] / math.sqrt(par)
    return run["Lhi"] * (run["Llo"] / run["Lhi"]) ** s * par


def quieter(run: dict, par: float) -> float | None:
    conv = run["convention"]
    if conv in ("passk_seeds", "sparse_pause"):
        cap = 2000 if conv == "passk_seeds" else 400
        return None if par > cap else float(math.ceil(par * 1.5))
    return None if par < 1e-4 else par / 1.5


def make_visible(run: dict, env: Env, levels, limit: float) -> bool:
    def fix(attr: str, lim: float) -> bool:
        for _ in range(60):
            par = getattr(env, attr)
            if max(point_sd(run, par, lv) for lv in levels) <= lim + 1e-12:
                return True
            q = quieter(run, par)
            if q is None:
                return False
            setattr(env, attr, q)
        return False

    ok = fix("noise", limit)
    if env.enoise is not None:
        ok = fix("enoise", limit) and ok
    return ok


def default_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "stage_bleu":
        return float(rng.uniform(0.07, 0.1) if heavy else rng.uniform(0.02, 0.06))
    if conv == "passk_seeds":
        return float(rng.integers(10, 16) if heavy else rng.integers(24, 97))
    if conv == "sparse_pause":
        return float(rng.integers(2, 4) if heavy else rng.integers(4, 17))
    # loss_hetero: sigma per env, siblings ~10x apart
    return float(rng.uniform(0.25, 0.35) if heavy else np.exp(rng.uniform(math.log(0.02), math.log(0.3))))


def eval_noise(run: dict, rng, train_par: float) -> float:
    conv = run["convention"]
    if conv == "stage_bleu":
        return train_par / float(rng.uniform(2, 3))
    if conv == "passk_seeds":
        return float(rng.integers(200, 501))
    if conv == "sparse_pause":
        return float(rng.integers(10, 31))
    return train_par / float(rng.uniform(2, 3))


# --- planning --------------------------------------------------------------------------------------

def window(run: dict) -> float:
    """W in iterations: max(min(100 steps, 10 % span), 20 J), J = 1 iteration."""
    return max(min(100.0 / run["unit"], 0.1 * (run["L"] - 1)), 20.0)


def in_pause(run: dict, a: float, b: float, W: float) -> bool:
    p = run.get("pause")
    return bool(p) and not (b < p[0] - W or a > p[1] + W)


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    L, W = env.L, window(run)
    g = env.s1 - env.s0
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    G = env.G or 1
    sd_of = lambda lv: [e_map(run, np.array([x]))[0] for x in lv]  # noqa: E731
    if ev in ("stag_never", "stag_freeze", "osc", "prolonged"):
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
            if in_pause(run, env.unlock + R, env.unlock + R, W):
                return False
            env.params.update(R=float(R), fr=fr)
            rise = float(e_map(run, np.array([env.s0 + fr * g]))[0]) - E0
            return make_visible(run, env, [env.s0, env.s0 + fr * g], 0.2 * rise)
        if ev == "osc":
            P = float(rng.uniform(8, 16)) * max(1, G)
            if active < 4 * P:
                return False
            pp, mid = float(rng.uniform(0.45, 0.7)), float(rng.uniform(0.35, 0.55))
            env.params.update(P=P, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)))
            lo, hi = env.s0 + g * (mid - pp / 2), env.s0 + g * (mid + pp / 2)
            a, b = sd_of([lo, hi])
            return make_visible(run, env, [lo, hi], (b - a) / 6)
        if active < 12.5 * W or env.unlock != 0 or run.get("pause"):
            return False
        env.params["rate"] = 0.62 / active
        top = float(e_map(run, np.array([env.s0 + 0.62 * g]))[0])
        return make_visible(run, env, [env.s0, env.s0 + 0.62 * g], 0.015 * gE) and top > E0
    e = base_curve(env, W)
    gp = grad_point(run, env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G)
    start = gp + margin
    if ev in ("healthy", "noisy_healthy", "slow_learner", "late"):
        if ev != "late" and gp + 2 * W > L:
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

    def pick_at(need: float, frac: float = 1.0) -> int | None:
        for _ in range(20):
            at = int(start + rng.uniform(0, frac) * (L - start - need))
            if not in_pause(run, at, at + 1, W):
                return at
        return None

    if ev in ("reg_warning", "reg_critical"):
        keep = float(rng.uniform(0.72, 0.79)) if ev == "reg_warning" else float(rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        need = ramp + max(2 * W, 15 * G)
        if start + need > L:
            return False
        at = pick_at(need)
        if at is None:
            return False
        env.at = at
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
        at = pick_at(need)
        if at is None or in_pause(run, at, at + B, 0):
            return False
        env.at = at
        bsd = float(rng.uniform(0.2, 0.3))
        env.event, env.variant = "performance_volatility", "burst"
        env.params.update(length=B, bsd=bsd)
        a, b = sd_of([env.s1 - bsd * g, env.s1])
        return make_visible(run, env, [env.s1, env.s1 - bsd * g], (b - a) / 4)
    if ev == "switch":
        dmin = int(math.ceil(max(4, 4 * G)))
        if start + 9 * 2 * dmin > L:
            return False
        gap = float(rng.uniform(0.4, 0.6))
        at = None
        for _ in range(20):
            cand = int(start + rng.uniform(0, 0.3) * (L - start - 18 * dmin))
            if not in_pause(run, cand, cand + 1, W):
                at = cand
                break
        if at is None:
            return False
        env.at = at
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
        a, b = sd_of([env.s1 - gap * g, env.s1])
        return make_visible(run, env, [env.s1, env.s1 - gap * g], (b - a) / 5)
    if ev == "eval_gap":
        if env.G is None or run["convention"] == "sparse_pause":
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
    W = window(run)
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=float(rng.uniform(0.8, 2.5) * W), L=run["L"],
              curve=str(rng.choice(CURVES)), noise=default_noise(run, rng))
    if has_eval:
        if run["convention"] == "sparse_pause":
            env.G = max(3, int((run["L"] - unlock) / int(rng.integers(8, 16))))
        else:
            env.G = run["G"]
        env.enoise = eval_noise(run, rng, env.noise)
    return env


POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
        "eval_gap", "transition", "transition", "prolonged", "prolonged"]
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W)
    if neg == "noisy_healthy":
        env.noise = default_noise(run, rng, heavy=True)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng, env.noise)
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
    if conv == "stage_bleu":
        run["unit"] = int(rng.choice([1, 100]))
        run["L"] = int(rng.integers(500, 801))
        run["Bmax"] = float(rng.uniform(35, 65))
        run["s0"], run["s1"] = float(rng.uniform(0.03, 0.1)), float(rng.uniform(0.86, 0.95))
        run["G"] = int(rng.integers(8, 16)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)
        run["subfolders"] = bool(rng.random() < 0.5)
    elif conv == "passk_seeds":
        run["unit"] = 1
        run["L"] = int(rng.integers(420, 651))
        run["k"] = int(rng.choice([4, 8]))
        run["kappa"] = float(rng.uniform(2, 6))
        run["s0"], run["s1"] = float(rng.uniform(0.02, 0.06)), float(rng.uniform(0.5, 0.7))
        run["G"] = int(rng.integers(5, 11)) if rng.random() < 0.7 else None
        run["states"] = False
    elif conv == "sparse_pause":
        run["unit"] = int(rng.choice([1, 10]))
        run["L"] = int(rng.integers(480, 761))
        run["R"] = float(rng.uniform(200, 1000))
        run["ep_sigma"] = float(rng.uniform(0.1, 0.3))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.95))
        run["G"] = 1 if rng.random() < 0.7 else None  # marker: evaluated envs get their own sparse interval
        run["states"] = False
        if rng.random() < 0.5:
            a = int(rng.uniform(0.3, 0.6) * run["L"])
            run["pause"] = (a, a + int(rng.uniform(0.1, 0.2) * run["L"]))
        run["in_progress"] = bool(rng.random() < 0.4)
    else:
        run["unit"] = int(rng.choice([1, 50]))
        run["L"] = int(rng.integers(500, 801))
        run["Lhi"] = float(rng.uniform(2, 6))
        run["Llo"] = run["Lhi"] * float(rng.uniform(0.05, 0.6))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.88, 0.97))
        run["G"] = int(rng.integers(8, 17)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    plan_scales(run, rng)
    W = window(run)
    names = NAMES[conv]
    n = int(rng.integers(3, 7)) if conv == "passk_seeds" else int(rng.integers(4, 8 if conv != "stage_bleu" else 9))
    if conv == "stage_bleu":
        nst = int(rng.integers(2, 5))
        run["stages"] = [0] + sorted(int(rng.uniform(0.12, 0.45) * run["L"]) for _ in range(nst - 1))
        starts = run["stages"]
    else:
        waves = int(rng.integers(1, 3))
        starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    has_eval = run["G"] is not None
    envs = [new_env(run, rng, names[k], starts[j % len(starts)] if j >= 2 else 0, has_eval)
            for j, k in enumerate(pick)]
    pool = [p for p in POOL if (p != "eval_gap" or has_eval) and (p != "transition" or run.get("states"))]
    has_prolonged = False
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.65:
            unlock = env.unlock
            for _try in range(3):  # an event that does not fit this env: draw another, then a clean negative
                ev = str(rng.choice(pool))
                if ev == "prolonged" and has_prolonged:
                    ev = "reg_critical"
                env.unlock = 0 if ev == "prolonged" else unlock
                if place(run, env, ev, rng):
                    break
                envs[j] = env = new_env(run, rng, env.name, unlock, has_eval)
            else:
                ev = None
            if ev is not None:
                has_prolonged |= ev == "prolonged"
                continue
        apply_negative(run, env, str(rng.choice(NEG_POOL if j >= 2 else NEG_POOL[:3])), rng)
    if has_prolonged:  # README: at least twice the median time the graduated envs took
        for env in envs:
            if env.event not in EVENTS and env.T > 1.5 * W:
                env.T = float(rng.uniform(0.8, 1.5) * W)
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
    if conv == "sparse_pause":
        left = [nm for nm in names if nm not in {e.name for e in envs}]
        if left and rng.random() < 0.8:
            env = new_env(run, rng, left.pop(0), int(run["L"] * (1 - rng.uniform(0.10, 0.15))), has_eval)
            env.T = float(rng.uniform(0.4, 0.9) * W)
            env.curve = "exp"
            if not place(run, env, "late", rng):
                env.event = env.variant = "late"
                make_visible(run, env, [env.s0, env.s1], (E_levels(run, env)[1] - E_levels(run, env)[0]) / 8)
            envs.append(env)
        if run["in_progress"]:
            for _ in range(int(rng.integers(1, 3))):
                if not left:
                    break
                env = new_env(run, rng, left.pop(0), int(run["L"] - rng.uniform(1.5, 2.5) * W), has_eval)
                env.event = env.variant = "midrise"
                env.params["rate"] = float(rng.uniform(0.5, 0.8)) / (3.5 * W)
                E0, E1 = E_levels(run, env)
                make_visible(run, env, [env.s0, env.s1], (E1 - E0) / 8)
                envs.append(env)
    run["envs"] = envs


def family_child(fam: dict, seed_idx: int, rng) -> dict:
    """One seed of a passk family: the family's config, its own speed and events."""
    run = {k: v for k, v in fam.items() if k not in ("envs", "name", "seed", "trial")}
    W = window(run)
    envs = []
    for j, base in enumerate(fam["envs"]):
        env = Env(name=base.name, unlock=base.unlock, s0=base.s0, s1=base.s1, T=base.T * float(rng.uniform(0.85, 1.15)),
                  L=base.L, curve=base.curve, noise=base.noise, enoise=base.enoise, G=base.G)
        envs.append(env)
    reg_env, reg_seed = fam["reg"]
    run["envs"] = envs
    learners = len(envs)
    for j, env in enumerate(envs):
        if j == reg_env and seed_idx == reg_seed:
            ev = str(rng.choice(["reg_warning", "reg_critical"]))
            if place(run, env, ev, rng):
                continue
            envs[j] = env = Env(name=env.name, unlock=env.unlock, s0=env.s0, s1=env.s1, T=env.T, L=env.L,
                                curve=env.curve, noise=env.noise, enoise=env.enoise, G=env.G)
        elif j >= 2 and j != reg_env and rng.random() < 0.45:
            pool = [p for p in POOL if p not in ("transition", "prolonged", "reg_warning", "reg_critical")
                    and (p != "eval_gap" or env.G)
                    and (p not in ("stag_never", "stag_freeze", "osc") or learners - 1 >= max(2, len(envs) / 2))]
            ev = str(rng.choice(pool))
            if place(run, env, ev, rng):
                learners -= ev in ("stag_never", "stag_freeze", "osc")
                continue
            envs[j] = env = Env(name=env.name, unlock=env.unlock, s0=env.s0, s1=env.s1, T=env.T, L=env.L,
                                curve=env.curve, noise=env.noise, enoise=env.enoise, G=env.G)
        apply_negative(run, env, "healthy", rng)
    return run


# --- observing and labelling -----------------------------------------------------------------------

def eval_grid(env: Env) -> np.ndarray:
    if not env.G:
        return np.array([], int)
    on = np.arange(env.unlock, env.L)
    return on[(on - env.unlock) % env.G == env.G - 1]


def drop_pause(run: dict, its: np.ndarray) -> np.ndarray:
    p = run.get("pause")
    return its if not p else its[(its < p[0]) | (its >= p[1])]


def draw(run: dict, env: Env, par: float, s: np.ndarray, rng) -> tuple[np.ndarray, dict]:
    """Noisy values in METRIC units around skill array s."""
    conv = run["convention"]
    s = np.clip(s, 0.0, 1.0)
    if conv == "stage_bleu":
        return np.clip(run["Bmax"] * (s + par * rng.standard_normal(len(s))), 0.0, 100.0), {}
    if conv == "passk_seeds":
        v, rate = passk_draw(s, int(par), run["k"], run["kappa"], rng)
        return v, {"avg_at_16": rate}
    if conv == "sparse_pause":
        n = int(par)
        eps = s[:, None] + run["ep_sigma"] * rng.standard_normal((len(s), n))
        return run["R"] * eps.mean(axis=1), {}
    loss = run["Lhi"] * (run["Llo"] / run["Lhi"]) ** s
    return loss * np.exp(par * rng.standard_normal(len(s))), {}


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    ev_its = drop_pause(run, eval_grid(env))
    if env.variant == "eval_gap":
        ev_its = ev_its[ev_its < env.at]
    tr_its = drop_pause(run, np.arange(env.unlock, env.L))
    tr, extra = draw(run, env, env.noise, s[tr_its], rng)
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
    gE = E1 - E0
    v, p = env.variant, env.params
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v == "freeze":
        flat = float(e_map(run, np.array([env.s0 + p["fr"] * (env.s1 - env.s0)]))[0])
        rise = flat - E0
        a = int(math.ceil(env.unlock + p["R"]))
        near = np.flatnonzero((np.arange(len(e)) >= a) & (e >= flat - 0.1 * rise))
        t0 = int(near[0]) if len(near) else a
    elif v == "riser":
        return mk(run, env, step(its[0]) + int(round(10 * W * run["unit"])))
    elif v == "eval_gap":
        return mk(run, env, step(ev_its[-1]) + env.G * run["unit"])
    elif v == "revisit":
        t0 = env.at
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gE))
        t0 = int(below[0])
    elif v == "burst":
        a, B = env.at, p["length"]
        tr_sd = point_sd(run, env.noise, env.s1)
        ev_sd = point_sd(run, env.enoise, env.s1) if env.enoise is not None else tr_sd
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
    ok = its[its >= t0 - 1e-9]
    return mk(run, env, step(ok[0])) if len(ok) else None


def mk(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant}", variant=env.variant)


# --- writers ---------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0


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


def _close_named(w, folder: Path, start_it: int) -> None:
    """Close the writer and give its event file the name it would have had if started at its first iteration."""
    w.close()
    for f in folder.glob("events.out.tfevents.*"):
        if ".trainer-0" not in f.name:
            f.rename(folder / f"events.out.tfevents.{int(WALL0) + 3 * start_it}.trainer-0")


def _write_rows(w, run: dict, rows: dict[int, list], its, run_tags=()) -> None:
    for i in its:
        st = _step(run, i)
        for tag, v in rows.get(i, []):
            w.add_scalar(tag, float(v), st, walltime=WALL0 + i * 3.0)
        for tag, v in run_tags:
            w.add_scalar(tag, float(v), st, walltime=WALL0 + i * 3.0)


def write_stage_bleu(folder: Path, run: dict, data: dict) -> None:
    """One SummaryWriter per curriculum stage (a new event file in the run folder, or a stage_{k} subfolder beside the
    root writer's run-level scalars)."""
    rows = _rows(run, data, lambda e, v, x: [(f"train/{e.name}/bleu", v)], lambda e, v: [(f"eval/{e.name}/bleu", v)],
                 lambda n: f"curriculum/{n}/state")
    stages = run["stages"] + [run["L"]]
    its_all = sorted(rows)
    if run["subfolders"]:
        root = _writer(folder)
        for i in its_all:
            k = sum(1 for a in run["stages"] if a <= i) - 1
            root.add_scalar("curriculum/stage", float(k), _step(run, i), walltime=WALL0 + i * 3.0)
            root.add_scalar("time/fps", 1800.0, _step(run, i), walltime=WALL0 + i * 3.0)
        _close_named(root, folder, 0)
    for k in range(len(run["stages"])):
        a, b = stages[k], stages[k + 1]
        sub = folder / f"stage_{k}" if run["subfolders"] else folder
        sub.mkdir(parents=True, exist_ok=True)
        w = _writer(sub)
        _write_rows(w, run, rows, [i for i in its_all if a <= i < b])
        _close_named(w, sub, a + (1 if run["subfolders"] else 0))


def write_tb_plain(folder: Path, run: dict, data: dict, metric: str) -> None:
    rows = _rows(run, data, lambda e, v, x: [(f"train/{e.name}/{metric}", v)],
                 lambda e, v: [(f"eval/{e.name}/{metric}", v)], lambda n: f"curriculum/{n}/state")
    w = _writer(folder)
    _write_rows(w, run, rows, sorted(rows))
    _close_named(w, folder, 0)


def write_passk(folder: Path, run: dict, data: dict) -> None:
    wr = _tests()
    k = run["k"]
    rows = _rows(run, data, lambda e, v, x: [(f"train/{e.name}/pass_at_{k}", v),
                                              (f"train/{e.name}/avg_at_16", x["avg_at_16"])],
                 lambda e, v: [(f"eval/{e.name}/pass_at_{k}", v)], None)
    out, steps = [], []
    for i in sorted(rows):
        r = {tag: float(v) for tag, v in rows[i]}
        r["optim/lr"] = 1e-6
        out.append(r)
        steps.append(_step(run, i))
    wr.write_wandb(folder / "wandb", out, steps=steps, run_id=run["trial"], name=run["name"])


# --- build -----------------------------------------------------------------------------------------

def observe_run(run: dict, orng) -> tuple[dict, dict]:
    W = window(run)
    data, meta = {}, {}
    for env in run["envs"]:
        s = truth(run, env)
        gp = grad_point(run, env, base_curve(env, W), W)
        env.params["graduated_point"] = gp
        obs = observe(run, env, s, orng)
        if run.get("states"):
            its = np.unique(np.concatenate([obs["train"][0], obs["eval"][0]])).astype(int)
            obs["states"] = state_series(env, gp, its)
        data[env.name] = obs
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
    family: dict | None = None
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        name = f"f{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'fourteenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
        prng = np.random.default_rng(rseed)
        if conv == "passk_seeds":
            if family is None or family["used"] >= FAMILY:
                family = dict(name=name, convention=conv, seed=rseed, used=0, family=name)
                plan_run(family, prng)
                shared = [j for j, e in enumerate(family["envs"]) if e.unlock == 0]
                family["reg"] = (int(prng.choice(shared)) if shared else 0, int(prng.integers(FAMILY)))
            run = family_child(family, family["used"], prng)
            run.update(name=name, seed=rseed, trial=trial, family=family["family"], seed_index=family["used"])
            family["used"] += 1
        else:
            run = dict(name=name, convention=conv, seed=rseed, trial=trial)
            plan_run(run, prng)
        folder = root / conv / name
        folder.mkdir(parents=True, exist_ok=True)
        orng = np.random.default_rng(rseed + 1)
        W = window(run)
        data, truths = observe_run(run, orng)
        tol = []
        for env in run["envs"]:
            s, gp = truths[env.name]
            d = data[env.name]
            tr_its, tr = d["train"]
            fin = np.isfinite(tr)
            its = np.unique(np.concatenate([tr_its[fin], d["eval"][0]])).astype(int)
            e = e_map(run, s)
            tol.append(max(W * run["unit"] / 10.0, (env.G or 1) * run["unit"]))
            lab = label_for(run, env, e, its, np.asarray(d["eval"][0], int), W)
            if lab:
                labels.append(lab)
        if conv == "stage_bleu":
            write_stage_bleu(folder, run, data)
        elif conv == "passk_seeds":
            write_passk(folder, run, data)
        else:
            write_tb_plain(folder, run, data, "reward" if conv == "sparse_pause" else "loss")
        meta = {k: v for k, v in run.items() if k not in ("envs", "used")}
        meta.update(tolerance_unit=int(round(max(tol))), window_steps=W * run["unit"],
                    eval_every=int((run["G"] or 1) * run["unit"]))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                         "curve": e.curve, "noise": e.noise, "eval_noise": e.enoise, "unlock": e.unlock, "s0": e.s0,
                         "s1": e.s1, "T": e.T, "G": e.G, "at": e.at, "L": e.L,
                         "params": {k: v for k, v in e.params.items() if k != "phases"}}
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
