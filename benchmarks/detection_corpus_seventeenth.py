"""The seventeenth detection corpus (`python benchmarks/detection.py --corpus seventeenth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md; the
profiles' key spellings; tests/writers.py), without reading the rules' or the analysis code, and without looking at
which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-seventeenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml in the group folder,
where the scorer reads it). Chosen for what the sixteen other corpora cover least (their docstrings): none evaluates
on a ROTATING SUBSET of eval seeds (the evaluator cycles deterministically through K fixed blocks of level seeds, so
the eval mean carries a periodic, non-random component of fixed size beside its sampling noise: neither noise that
averages out nor an event); none logs a multi-task JAX/Brax run at 1e8..1e9 env steps with only a few hundred EVALS
A TASK at most and nothing else per task (Brax's progress_fn: no per-task training return), whose per-episode noise
GROWS AS THE AGENT LEARNS (longer episodes); none has rare ENV-SERVER CRASH points (~0.5..1 % of the points: one
logged value at exactly 0, at the env's floor, or 10..100x the learned gain above the top) beside genuine events;
none has a trainer that DEMOTES a graduated env (its logged state 2 -> 1) because its own smoothed success fell,
relearns it (or not) and graduates it again (1 -> 2), with success rates that SATURATE at 1.0 (a third of those runs
master every task: the binomial noise collapses to nothing at the top):

  dcd_rotate     facebookresearch/dcd FileWriter `logs.csv` (tests/writers.DcdFileWriter, call for call), the
                 built-in `dcd` profile: EVAL ONLY, `test_returns:{env}` (the performance metric) and
                 `solved_rate:{env}` every `test_interval` (2..4 updates), a row per update with `steps`
                 (4,096 or 8,192 env steps an update) and run-level stats (unclaimed); all test envs from the start
                 (dcd has no locking), no states. MiniGrid-like returns: an episode is solved with probability p
                 and then returns 1 - 0.9 U (U uniform 0.1..0.5), else 0; a point is the mean of n test episodes
                 (n 10..50; heavy 4..8). ROTATING SEED BLOCKS: eval number k uses block k mod K (K 3..6, one
                 schedule for the run), block b of an env shifts p by a fixed delta_b (p = clip(s + delta_b)):
                 zero-mean over the blocks, sd 0.02..0.035 of the run's skill gain, peak-to-peak at most 0.13 of
                 it (under README's 0.15 x range for swings, under 0.3 x range for an oscillation). 700..1,100
                 updates; 3..6 envs.
  brax_sparse    W&B OFFLINE run logged with step= the env step (Brax's `num_steps`: evals at 0 and every
                 num_timesteps / num_evals, a multiple of 16,384; 2e8..1e9 steps in all), generic keys
                 `eval/{task}/episode_reward` (config `performance_metric: episode_reward`),
                 `eval/{task}/episode_reward_std`, `eval/{task}/avg_episode_length`, run-level `training/sps`,
                 `training/walltime` (unclaimed); `curriculum/{task}/state` 0/1/2 in 40 %. EVAL ONLY, 160..300
                 evals; tasks unlocked in 1..2 waves are evaluated from their unlock. Returns R0 + (R1 - R0) s
                 (R0 -100..100, R1 1,500..8,000), a point the mean of m eval episodes (m 16..128; heavy 2..4),
                 each with sd (R1 - R0)(a0 + a1 s) (a0 0.02..0.05, a1 0.15..0.4): HETEROSCEDASTIC, the noise
                 grows as the agent learns (it survives longer). 3..6 tasks.
  crash_returns  tensorboardX, generic `train|eval/{env}/return` (config `performance_metric: return`),
                 `curriculum/{env}/state` in 40 %; 1,000 or 2,048 env steps an iteration, 400..800 iterations;
                 evals (mean of 10..50 episodes; heavy 3..6) every 5..12 iterations in 60 %. Returns R0 + (R1 - R0) s
                 crossing zero (R0 -300..-100, R1 150..800), a train point the mean of m episodes (m 4..16; heavy
                 1..2) of sd (R1 - R0) x 0.15..0.35. ENV-SERVER CRASHES: each point of each series (train and
                 eval apart) is replaced with probability 0.005..0.01 (the run's rate; crash points at least 30
                 points apart in a series, never in its first 5 or last 2) by one of the run's 1..3 crash kinds:
                 `zero` (no episode finished: the logger's mean of nothing is 0.0), `floor` (every episode cut at
                 the env's worst return, R0 - 0.2..0.5 (R1 - R0)), `huge` (a physics blow-up: R1 + 10..100 (R1 -
                 R0)). Crash points are never labelled and never move the truth. 3..6 envs in 1..2 waves.
  demote_states  W&B OFFLINE run logged with step= (1 or 10 steps an iteration, 400..800 iterations), generic
                 `train|eval/{env}/success` (config `performance_metric: success`), `curriculum/{env}/state`
                 ALWAYS logged. Success rates binomial over n (train n 16..64, heavy 4..8; evals every 5..10
                 iterations in 60 %, n 100..300, heavy 16..32); tops near or AT 1.0 (s1 0.95..0.99, or exactly 1.0
                 for every env in 30 % of the runs: all episodes solved, no noise at the top). The trainer keeps
                 an EMA (alpha 0.1) of each graduated env's expected success from its graduation and DEMOTES it
                 (state 2 -> 1) the first iteration that EMA is below 0.9 x its top E1; a demoted env relearns (half
                 of them: from max(demotion + max(W, 10 G), fall end + max(2 W, 15 G)), back to s1 over 0.5..1 W)
                 and is graduated again (state 1 -> 2) by the truth's graduation test, or stays low and active to
                 the end. False alarms too: the sixteenth's `revisit` (2 -> 1 for 0.5..1.5 W, then 2, no change in
                 performance). 3..6 envs in 1..2 waves.

Truth. Each env has a skill curve s in [0, 1] on its iteration grid (from its unlock): a learner goes from s0 to s1
over T iterations (exp, logistic, sqrt or linear; T 0.8..2.5 W) and is flat at s1 after; a LATE LEARNER (a clean
negative) first stays at s0 for 1..2 W. The EXPECTED judged value E(s) (higher is better everywhere): 0.73 s (dcd's
return; with the rotation's shift averaged over the blocks), R0 + (R1 - R0) s (brax, crash), s (success). E0 = E(s0),
E1 = E(s1); fractions of the gain are of E1 - E0. The envs of a run share one scale (s0 within 0.02 of the run's, s1
within 0.015; in demote_states' saturated runs every s1 is 1.0).
  J  pace               an env's logging pace in steps of the JUDGED series (dcd_rotate, brax_sparse: its evals; else
                        its train series): README's (the median interval when regular, else the mean of the intervals
                        under 3x it), from its logged points; planning uses the convention's (G for dcd_rotate, else 1)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in steps (per env for labels; the planning
                        W in iterations takes the planning J and the mean step per iteration)
  G  eval interval      the env's median interval between evals, in steps (brax_sparse: every iteration is an eval)
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G, or J where not evaluated), in
                        steps = `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more iterations; logged states
go to 2 there. Healthy learners reach their top within 0.8..2.5 W.

In a run the first two envs are clean learners from step 0; each later env carries an event with probability 0.65
(up to 3 draws from the convention's pool until one fits; else a clean negative), and at least half the envs (and
two) learn to the shared top.

Labels (onset in steps; "first point" = the env's first logged point of the judged metric, train or eval, at or
after the event's true start; a crash point is a point; an env carries at most one label, except a demoted env's
two):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp in s over 0.5..1.5 W) fall
                         to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain (in E), to the end (>= max(2
                         W, 15 G) left) — or, demoted and relearning (demote_states), low for at least max(2 W, 15 G)
                         before it climbs back. Onset = first point at which E keeps < 0.85 of the gain
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
                         again (revisit); or the trainer's demotion of a demoted env (besides its regression label);
                         onset = the first logged state point with the backward value
  eval_gap               evaluated envs of crash_returns and demote_states: after graduation + margin the env's evals
                         stop for the rest of the run (>= max(5 x max(50 steps, G), 2 W) left) while the run goes on;
                         onset = last eval + G (README first_step)
  prolonged_training     a steady riser, LINEAR IN E (0.62 of the gain over its whole active life of >= 12.5 W), active
                         to the end, unlocked at 0; onset = its first point + 10 W (its own W, in steps). Not in
                         dcd_rotate (its rotation alone is over the riser's noise bound)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's heaviest noise, gain
>= 5 sd), slow_learner (graduates within 4..6 W), late_learner (flat at s0 for 1..2 W from activation, then a normal
learner: under README's 3 windows), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one point at s0 + 0.05 gain after graduation). Every dcd_rotate env lives through its rotation, every
crash_returns env through its crash points.

Noise and visibility (sd of one point in the metric's units at every level an event visits; noise is made quieter
until it holds, else the event is not planted): regression drop >= 4 sd; stall rise >= 5 sd and a never-learner's
gap to the top >= 6 sd; switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst base sd <= burst sd / 4;
prolonged riser sd <= 0.015 gain; healthy gain >= 8 sd (noisy >= 5). sd: dcd the episodes' sd / sqrt n combined with
the rotation's sd (0.73 x the sd of the env's block shifts: more episodes cannot quiet it); brax (R1 - R0)(a0 + a1 s)
/ sqrt m; crash returns (R1 - R0) sigma / sqrt m (crash points left out); success sqrt(s (1 - s) / n).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - the rotation's shift is noise of fixed size, not an event: it stays under README's swing and oscillation sizes;
  - a demoted env's fall is labelled graduated_regression though its logged state leaves 2 when the trainer notices
    (the fall began while it was graduated), and its demotion unexpected_transition (README: a state moving backwards);
  - the trainer's demotion is decided on its EMA of the EXPECTED success (a smoothed estimate), not the noisy points;
  - brax_sparse's and dcd_rotate's W and pace are read on the judged eval series, their only per-env series.
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
CYCLE = ("dcd_rotate", "brax_sparse", "crash_returns", "demote_states")
EVAL_ONLY = ("dcd_rotate", "brax_sparse")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "dcd_rotate": "performance_metric: test_returns\n",
    "brax_sparse": "performance_metric: episode_reward\n",
    "crash_returns": "performance_metric: return\n",
    "demote_states": "performance_metric: success\n",
}
NAMES = {
    "dcd_rotate": ["MultiGrid-SixteenRooms-v0", "MultiGrid-Labyrinth-v0", "MultiGrid-Maze-v0",
                   "MultiGrid-PerfectMazeMedium-v0", "MultiGrid-SmallCorridor-v0", "MultiGrid-LargeCorridor-v0",
                   "MultiGrid-FourRooms-v0", "MultiGrid-SimpleCrossingS11N5-v0"],
    "brax_sparse": ["ant-fwd", "ant-bwd", "ant-left", "ant-right", "ant-goal-near", "ant-goal-far", "ant-jump",
                    "ant-spin"],
    "crash_returns": ["walker-flat", "walker-slope", "walker-stairs", "walker-gaps", "walker-rough",
                      "walker-stepstone", "walker-hurdles", "walker-ice"],
    "demote_states": ["key-door", "unlock-pickup", "blocked-unlock", "obstructed-maze", "multi-room-n2",
                      "multi-room-n4", "key-corridor", "lava-crossing"],
}
CURVES = ("exp", "logistic", "sqrt", "linear")
BLOCKERS = ("stag_never", "stag_freeze", "osc", "prolonged")
DCD_WIN = 0.73                                   # mean return of a solved episode: 1 - 0.9 x E[U(0.1, 0.5)]
DCD_VWIN = 0.81 * 0.4 ** 2 / 12                  # its variance


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
    noise: float = 0.0           # train noise parameter (episodes m, trials n); unused where eval only
    enoise: float | None = None  # eval noise parameter (episodes, trials)
    G: int | None = None         # eval interval in iterations
    at: int | None = None
    params: dict = field(default_factory=dict)


# --- the metric: E(s) and one point's sd ---------------------------------------------------------------

def e_map(run: dict, s) -> np.ndarray:
    """Skill -> the expected judged value in the metric's units (all higher-is-better here)."""
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    conv = run["convention"]
    if conv == "dcd_rotate":
        return DCD_WIN * s
    if conv in ("brax_sparse", "crash_returns"):
        return run["R0"] + (run["R1"] - run["R0"]) * s
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
    if conv == "dcd_rotate":
        var = s * (DCD_VWIN + DCD_WIN ** 2) - (DCD_WIN * s) ** 2
        return math.sqrt(var / par + run["rot_sd_e"] ** 2)
    span = run.get("R1", 1.0) - run.get("R0", 0.0)
    if conv == "brax_sparse":
        return span * (run["a0"] + run["a1"] * s) / math.sqrt(par)
    if conv == "crash_returns":
        return span * run["sig"] / math.sqrt(par)
    return math.sqrt(max(s * (1 - s), 0.0) / par)


def quieter(run: dict, par: float) -> float | None:
    return None if par > 3000 else float(math.ceil(par * 1.5))


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

    ok = True
    if run["convention"] not in EVAL_ONLY:
        ok = fix("noise", limit)
    if env.enoise is not None:
        ok = fix("enoise", limit) and ok
    return ok


def default_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv in EVAL_ONLY:
        return 0.0
    if conv == "crash_returns":
        return float(rng.integers(1, 3) if heavy else rng.integers(4, 17))
    return float(rng.integers(4, 9) if heavy else rng.integers(16, 65))


def eval_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "dcd_rotate":
        return float(rng.integers(4, 9) if heavy else rng.integers(10, 51))
    if conv == "brax_sparse":
        return float(rng.integers(2, 5) if heavy else rng.integers(16, 129))
    if conv == "crash_returns":
        return float(rng.integers(3, 7) if heavy else rng.integers(10, 51))
    return float(rng.integers(16, 33) if heavy else rng.integers(100, 301))


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
    """W in iterations: max(min(100 steps, 10 % span), 20 J), J the convention's planned pace."""
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


def apply_fall(env: Env, s: np.ndarray) -> np.ndarray:
    """A regression's fall (sudden or a ramp) from env.at on, to params low_s."""
    p = env.params
    i = np.arange(env.L)
    s = s.copy()
    if p["ramp"] == 0:
        s[i >= env.at] = p["low_s"]
    else:
        u = np.clip((i - env.at) / p["ramp"], 0, 1)
        m = i >= env.at
        s[m] = s[m] + (p["low_s"] - s[m]) * u[m]
    return s


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
    if ev in ("reg_warning", "reg_critical", "demote"):
        if ev == "demote":
            keep = float(rng.uniform(0.72, 0.79)) if rng.random() < 0.5 else float(rng.uniform(0.1, 0.6))
        else:
            keep = float(rng.uniform(0.72, 0.79)) if ev == "reg_warning" else float(rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        low_len = max(2 * W, 15 * G)
        need = ramp + low_len
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        env.event = "graduated_regression"
        env.variant = "demoted" if ev == "demote" else ("sudden" if ramp == 0 else "gradual")
        env.severity = "warning" if keep >= 0.7 else "critical"
        low_s = skill_at_keep(run, env, keep)
        env.params.update(keep=keep, ramp=ramp, low_s=low_s)
        if ev == "demote":
            if not run.get("demotes"):
                return False
            # the trainer's EMA (alpha 0.1) of the expected success from graduation; demotion below 0.9 E1
            ex = e_map(run, np.nan_to_num(apply_fall(env, e), nan=env.s0))
            ema, dm = E1, None
            for i in range(gp, L):
                ema = 0.9 * ema + 0.1 * ex[i]
                if i >= env.at and ema < 0.9 * E1:
                    dm = i
                    break
            if dm is None or dm > L - 3:
                return False
            env.params["demote"] = int(dm)
            rec = int(math.ceil(max(dm + max(W, 10 * G), env.at + ramp + low_len)))
            R = float(rng.uniform(0.5, 1.0) * W)
            hold = max(0.3 * W, 3 * G)
            if rng.random() < 0.5 and rec + R + hold + W <= L:
                frac = (env.s0 + 0.9 * g - low_s) / max(env.s1 - low_s, 1e-9)  # back at the 90 % line
                env.params.update(rec=rec, R=R, regrad=int(math.ceil(rec + R * max(frac, 0.0) + hold)))
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
        if env.G is None or run["convention"] in EVAL_ONLY:
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
    if v in ("sudden", "gradual", "demoted"):
        s = apply_fall(env, s)
        if v == "demoted" and "rec" in p:
            m = i >= p["rec"]
            s[m] = p["low_s"] + (env.s1 - p["low_s"]) * np.minimum((i[m] - p["rec"]) / p["R"], 1.0)
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
    s1 = 1.0 if run.get("saturated") else float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 1.0))
    W = window(run)
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=float(rng.uniform(0.8, 2.5) * W), L=run["L"],
              curve=str(rng.choice(CURVES)), noise=default_noise(run, rng))
    if has_eval:
        env.G = run["G"]
        env.enoise = eval_noise(run, rng)
    if run["convention"] == "dcd_rotate":
        K = run["K"]
        u = rng.normal(size=K)
        u = (u - u.mean()) / max(u.std(), 1e-9)
        u = u * run["rot_sd"] * (s1 - s0)
        pp = float(u.max() - u.min())
        if pp > 0.13 * (s1 - s0):
            u = u * 0.13 * (s1 - s0) / pp
        env.params["delta"] = [float(x) for x in u]
    return env


POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
        "eval_gap", "transition", "transition", "prolonged", "prolonged"]
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "slow_learner", "late_learner", "level_shift", "single_outlier"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    delta = env.params.get("delta")
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W)
    if neg == "late_learner":
        env.T = float(rng.uniform(0.8, 1.5) * W)
    if neg == "noisy_healthy":
        env.noise = default_noise(run, rng, heavy=True)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng, heavy=True)
    if not place(run, env, neg, rng):
        env.at, env.params = None, {}
        if delta is not None:
            env.params["delta"] = delta
        env.T = float(rng.uniform(0.8, 1.5) * W)
        env.noise = default_noise(run, rng)
        if env.enoise is not None:
            env.enoise = eval_noise(run, rng)
        place(run, env, "healthy", rng)
        env.event = env.variant = "healthy"


def plan_scales(run: dict, rng) -> None:
    conv = run["convention"]
    run["J"] = 1.0
    run["states"] = False
    if conv == "dcd_rotate":
        run["L"] = int(rng.integers(700, 1101))
        run["unit"] = float(rng.choice([4096, 8192]))
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
        run["G"] = int(rng.integers(2, 5))
        run["J"] = float(run["G"])
        run["K"] = int(rng.integers(3, 7))
        run["rot_sd"] = float(rng.uniform(0.02, 0.035))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.03)), float(rng.uniform(0.8, 0.95))
        run["rot_sd_e"] = DCD_WIN * run["rot_sd"] * (run["s1"] - run["s0"] + 0.03)
    elif conv == "brax_sparse":
        run["L"] = int(rng.integers(160, 301))
        total = float(rng.uniform(2e8, 1e9))
        run["unit"] = float(max(1, round(total / run["L"] / 16384)) * 16384)
        run["clock"] = np.arange(run["L"], dtype=np.int64) * int(run["unit"])
        run["G"] = 1
        run["R0"], run["R1"] = float(rng.uniform(-100, 100)), float(rng.uniform(1500, 8000))
        run["a0"], run["a1"] = float(rng.uniform(0.02, 0.05)), float(rng.uniform(0.15, 0.4))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.95))
        run["states"] = bool(rng.random() < 0.4)
    elif conv == "crash_returns":
        run["L"] = int(rng.integers(400, 801))
        run["unit"] = float(rng.choice([1000, 2048]))
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
        run["R0"], run["R1"] = float(rng.uniform(-300, -100)), float(rng.uniform(150, 800))
        span = run["R1"] - run["R0"]
        run["sig"] = float(rng.uniform(0.15, 0.35))
        run["floor"] = float(run["R0"] - rng.uniform(0.2, 0.5) * span)
        run["crash_rate"] = float(rng.uniform(0.005, 0.01))
        kinds = ["zero", "floor", "huge"]
        run["crash_kinds"] = [str(k) for k in rng.choice(kinds, size=int(rng.integers(1, 4)), replace=False)]
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(5, 13)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)
    else:
        run["L"] = int(rng.integers(400, 801))
        run["unit"] = float(rng.choice([1, 10]))
        run["clock"] = np.arange(run["L"], dtype=np.int64) * int(run["unit"])
        run["saturated"] = bool(rng.random() < 0.3)
        run["s0"] = float(rng.uniform(0.0, 0.05))
        run["s1"] = 1.0 if run["saturated"] else float(rng.uniform(0.95, 0.99))
        run["G"] = int(rng.integers(5, 11)) if rng.random() < 0.6 else None
        run["states"] = True
        run["demotes"] = True


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
    waves = 1 if conv == "dcd_rotate" else int(rng.integers(1, 3))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    has_eval = run["G"] is not None
    envs = [new_env(run, rng, names[k], starts[j % len(starts)] if j >= 2 else 0, has_eval)
            for j, k in enumerate(pick)]
    pool = [p for p in POOL if (p != "eval_gap" or (has_eval and conv not in EVAL_ONLY))
            and (p != "transition" or run["states"]) and not (p == "prolonged" and conv == "dcd_rotate")]
    if conv == "demote_states":
        pool += ["demote", "demote", "demote"]
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

def dcd_points(s: np.ndarray, deltas: np.ndarray, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Mean return and solved share of n test episodes per entry, each at skill s + its block's shift."""
    p = np.clip(s + deltas, 0.0, 1.0)
    solved = rng.random((len(p), n)) < p[:, None]
    ret = np.where(solved, 1 - 0.9 * rng.uniform(0.1, 0.5, (len(p), n)), 0.0)
    return ret.mean(1), solved.mean(1)


def crash(values: np.ndarray, run: dict, rng) -> tuple[np.ndarray, list]:
    """Env-server crash points: one value at 0, at the floor or far above the top; >= 30 points apart."""
    n = len(values)
    out, hits = values.copy(), []
    if n < 10:
        return out, hits
    k = int(rng.binomial(n, run["crash_rate"]))
    span = run["R1"] - run["R0"]
    for pos in rng.permutation(np.arange(5, n - 2)):
        if len(hits) >= k:
            break
        if any(abs(pos - h) < 30 for h, _ in hits):
            continue
        kind = str(rng.choice(run["crash_kinds"]))
        out[pos] = 0.0 if kind == "zero" else (run["floor"] if kind == "floor"
                                               else run["R1"] + float(rng.uniform(10, 100)) * span)
        hits.append((int(pos), kind))
    return out, sorted(hits)


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    conv = run["convention"]
    on = np.arange(env.unlock, env.L)
    if env.G:
        ev_its = on[on % env.G == (env.G - 1 if env.G > 1 else 0)]
        if env.variant == "eval_gap":
            ev_its = ev_its[ev_its < env.at]
    else:
        ev_its = np.array([], int)
    tr_its = np.array([], int) if conv in EVAL_ONLY else on
    st, se = np.clip(s[tr_its], 0, 1), np.clip(s[ev_its], 0, 1)
    out = {"eval_extra": {}}
    if conv == "dcd_rotate":
        tr = np.array([])
        block = (ev_its // env.G) % run["K"]
        deltas = np.asarray(env.params["delta"])[block]
        ev, sol = dcd_points(se, deltas, int(env.enoise), rng)
        out["eval_extra"] = {"solved": sol, "block": block}
    elif conv == "brax_sparse":
        tr = np.array([])
        span = run["R1"] - run["R0"]
        ep_sd = span * (run["a0"] + run["a1"] * se)
        ev = e_map(run, se) + rng.normal(0, 1, len(se)) * ep_sd / math.sqrt(env.enoise)
        out["eval_extra"] = {"std": ep_sd * rng.uniform(0.85, 1.15, len(se)),
                             "length": np.round(1000 * np.clip(0.15 + 0.85 * se + rng.normal(0, 0.02, len(se)),
                                                               0.05, 1.0))}
    elif conv == "crash_returns":
        span = run["R1"] - run["R0"]
        tr = e_map(run, st) + rng.normal(0, 1, len(st)) * span * run["sig"] / math.sqrt(env.noise)
        ev = e_map(run, se) + rng.normal(0, 1, len(se)) * span * run["sig"] / math.sqrt(env.enoise) \
            if len(se) else np.array([])
        tr, hits_tr = crash(tr, run, rng)
        ev, hits_ev = crash(ev, run, rng)
        env.params["crashes"] = {"train": [(int(tr_its[p]), k) for p, k in hits_tr],
                                 "eval": [(int(ev_its[p]), k) for p, k in hits_ev]}
    else:
        n_tr = int(env.noise)
        tr = rng.binomial(n_tr, st) / n_tr
        n_ev = int(env.enoise) if env.enoise else 1
        ev = rng.binomial(n_ev, se) / n_ev if len(se) else np.array([])
    out.update(train=(tr_its, tr), eval=(ev_its, ev))
    return out


def state_series(env: Env, gp: int | None, its: np.ndarray) -> list[tuple[int, int]]:
    out = []
    p = env.params
    for i in its:
        v = 0 if i < env.unlock else (2 if gp is not None and i >= gp else 1)
        if env.variant == "revisit" and env.at <= i < env.at + p["length"]:
            v = 1
        if env.variant == "demoted" and i >= p["demote"] and ("regrad" not in p or i < p["regrad"]):
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
              G_env: float | None, st_its: np.ndarray | None) -> list[dict]:
    """its: the iterations of the env's judged points (train or eval); ev_its its eval iterations; st_its its
    logged state iterations; W_env, G_env in steps."""
    if env.event not in EVENTS:
        return []
    clock = run["clock"]
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    v, p = env.variant, env.params
    out = []
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v == "freeze":
        flat = float(e_map(run, env.s0 + p["fr"] * (env.s1 - env.s0)))
        rise = flat - E0
        a = int(math.ceil(env.unlock + p["R"]))
        near = np.flatnonzero((np.arange(len(e)) >= a) & (e >= flat - 0.1 * rise))
        t0 = int(near[0]) if len(near) else a
    elif v == "riser":
        return [mk(run, env, int(clock[its[0]]) + int(round(10 * W_env)))]
    elif v == "eval_gap":
        return [mk(run, env, int(clock[ev_its[-1]]) + int(round(G_env)))]
    elif v == "revisit":
        t0 = env.at
    elif v in ("sudden", "gradual", "demoted"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gE))
        t0 = int(below[0])
        if v == "demoted" and st_its is not None:
            back = st_its[st_its >= p["demote"]]
            if len(back):
                out.append(mk(run, env, int(clock[back[0]]), typ="unexpected_transition"))
    elif v == "burst":
        a, B = env.at, p["length"]
        judged_sd = point_sd(run, env.enoise if run["convention"] in EVAL_ONLY else env.noise, env.s1)
        ev_sd = point_sd(run, env.enoise, env.s1) if env.enoise is not None else judged_sd
        ev_set = set(int(x) for x in ev_its)
        off = [i for i in its if a <= i < a + B
               and E1 - e[i] > max(0.15 * gE, 4 * (min(judged_sd, ev_sd) if i in ev_set else judged_sd))]
        if not off:
            return []
        t0 = off[0]
    elif v == "switch":
        t0 = p["phases"][0][0]
    else:
        raise ValueError(v)
    ok = its[its >= t0]
    if len(ok):
        out.insert(0, mk(run, env, int(clock[ok[0]])))
    return out


def mk(run: dict, env: Env, onset: int, typ: str | None = None) -> dict:
    return dict(run=run["name"], env=env.name, type=typ or env.event, onset=int(onset), severity=env.severity
                if typ is None else None, shape=f"{run['convention']}/{env.variant}", variant=env.variant)


# --- writers ---------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0


def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def write_dcd(folder: Path, run: dict, data: dict, rng) -> None:
    """dcd's FileWriter: a row per update, test columns filled at test intervals (empty otherwise)."""
    _tests_on_path()
    from writers import DcdFileWriter

    tests: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for k, (i, v) in enumerate(zip(*d["eval"])):
            t = tests.setdefault(int(i), {})
            t[f"test_returns:{env.name}"] = float(v)
            t[f"solved_rate:{env.name}"] = float(d["eval_extra"]["solved"][k])
    w = DcdFileWriter(folder / "ued-accel-rotating")
    for i in range(run["L"]):
        stats = {"steps": int(run["clock"][i]), "mean_agent_return": float(np.round(rng.normal(0.3, 0.1), 4)),
                 "agent_pg_loss": float(np.round(rng.normal(0, 0.01), 5)),
                 "agent_value_loss": float(np.round(abs(rng.normal(0.02, 0.01)), 5)), "level_replay_prob": 0.8}
        stats.update(tests.get(i, {}))
        w.log(stats, WALL0 + 20.0 * i)
    w.close()


def write_brax(folder: Path, run: dict, data: dict, rng) -> None:
    """One W&B offline run logged with step= Brax's num_steps; a row per eval."""
    _tests_on_path()
    from writers import write_wandb

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        ex = d["eval_extra"]
        for k, (i, v) in enumerate(zip(*d["eval"])):
            r = rows.setdefault(int(i), {})
            r[f"eval/{env.name}/episode_reward"] = float(v)
            r[f"eval/{env.name}/episode_reward_std"] = float(ex["std"][k])
            r[f"eval/{env.name}/avg_episode_length"] = float(ex["length"][k])
        for i, v in d.get("states", []):
            rows.setdefault(int(i), {})[f"curriculum/{env.name}/state"] = int(v)
    its = sorted(rows)
    for n, i in enumerate(its):
        rows[i]["training/sps"] = float(np.round(rng.uniform(2e5, 4e5), 1))
        rows[i]["training/walltime"] = float(np.round(30.0 * n + rng.uniform(0, 2), 2))
    write_wandb(folder / "wandb", [rows[i] for i in its], steps=[int(run["clock"][i]) for i in its],
                run_id=run["trial"], name=run["name"])


def write_crash(folder: Path, run: dict, data: dict) -> None:
    """tensorboardX, one SummaryWriter; global_step = env steps."""
    from tensorboardX import SummaryWriter

    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), []).append((f"train/{env.name}/return", v))
        for i, v in zip(*d["eval"]):
            rows.setdefault(int(i), []).append((f"eval/{env.name}/return", v))
        for i, v in d.get("states", []):
            rows.setdefault(int(i), []).append((f"curriculum/{env.name}/state", v))
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=1 << 20)
    for i in sorted(rows):
        t = int(run["clock"][i])
        for tag, v in rows[i]:
            w.add_scalar(tag, float(v), t, walltime=WALL0 + 2.0 * i)
    w.close()


def write_demote(folder: Path, run: dict, data: dict) -> None:
    """One W&B offline run logged with step= the trainer step; states beside every row."""
    _tests_on_path()
    from writers import write_wandb

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), {})[f"train/{env.name}/success"] = float(v)
        for i, v in zip(*d["eval"]):
            rows.setdefault(int(i), {})[f"eval/{env.name}/success"] = float(v)
        for i, v in d.get("states", []):
            rows.setdefault(int(i), {})[f"curriculum/{env.name}/state"] = int(v)
    its = sorted(rows)
    write_wandb(folder / "wandb", [rows[i] for i in its], steps=[int(run["clock"][i]) for i in its],
                run_id=run["trial"], name=run["name"])


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
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        name = f"x{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'seventeenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
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
            d = observe(run, env, s, orng)
            tr_its = np.asarray(d["train"][0], int)
            ev_its = np.asarray(d["eval"][0], int)
            st_its = None
            if run["states"]:
                st_its = np.unique(np.concatenate([tr_its, ev_its])).astype(int)
                d["states"] = state_series(env, gp, st_its)
            data[env.name] = d
            ev_ok = ev_its[np.isfinite(np.asarray(d["eval"][1], float))] if len(ev_its) else ev_its
            judged = ev_ok if conv in EVAL_ONLY else np.unique(np.concatenate([tr_its, ev_ok])).astype(int)
            J_env = pace(clock[ev_ok] if conv in EVAL_ONLY else clock[tr_its])
            W_env = max(min(100.0, 0.1 * span), 20.0 * J_env)
            G_env = float(np.median(np.diff(clock[ev_its]))) if len(ev_its) >= 2 else None
            env.params.update(W_env=W_env, G_env=G_env, J_env=J_env)
            tol.append(max(W_env / 10.0, G_env or J_env))
            labs = label_for(run, env, e_map(run, np.nan_to_num(s, nan=env.s0)), judged, ev_its, W_env, G_env,
                             st_its)
            if labs and labs[0]["type"] == "prolonged_training" and labs[0]["onset"] > clock[-1]:
                env.event = env.variant = "riser_short"  # its 10 windows outlast the run: no event after all
                labs = []
            labels.extend(labs)
        if conv == "dcd_rotate":
            write_dcd(folder, run, data, np.random.default_rng(rseed + 2))
        elif conv == "brax_sparse":
            write_brax(folder, run, data, np.random.default_rng(rseed + 2))
        elif conv == "crash_returns":
            write_crash(folder, run, data)
        else:
            write_demote(folder, run, data)
        meta = {k: v for k, v in run.items() if k not in ("envs", "clock")}
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
