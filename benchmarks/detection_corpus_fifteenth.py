"""The fifteenth detection corpus (`python benchmarks/detection.py --corpus fifteenth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md; the
profiles' key spellings), without reading the rules' or the analysis code, and without looking at which cases
curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-fifteenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml in the group folder,
where the scorer reads it). Chosen for what the fourteen other corpora cover least (their docstrings): no SEQUENTIAL
(continual-learning) curriculum that trains ONE task at a time, advances when it graduates and measures FORGETTING
on retention evals of every task seen so far (a graduated task then has evals only, and its fall is forgetting);
no evaluator that evaluates ONE env per WALL-CLOCK slot in ROUND-ROBIN (each env's eval interval in steps then
depends on the trainer's throughput, which drifts, and on how many envs are unlocked) written by its OWN
SummaryWriter beside the trainer's in one run folder; no LEARNING-PROGRESS sampler whose per-env training pace
follows the env's own progress (dense while it learns or falls, sparse once flat, so the density of a series moves
with its events); no Atropos env-process group in which some envs are ALREADY SOLVED by the base model (at their top
from their first point, judged on the run's shared scale) and then forget:

  continual_seq  tensorboardX, a USER PROFILE `continual` (forced with `profile:`): `train/{task}/success` (split
                 train), RETENTION evals `retention/{task}/success` (a fixed `split: eval`), `curriculum/{task}/state`
                 0/1/2 in half the runs. Continual-World-like tasks trained ONE AT A TIME: task k+1 unlocks at the
                 step task k graduates (truth below) and task k's TRAINING STOPS there (README: an env whose training
                 rows stop while its evals go on is graduated at its last training step); every task seen so far is
                 evaluated every 3..8 iterations to the end (binomial over 100..300 episodes; training binomial over
                 32..128). The last task trains to the end of the run (the curriculum ran out of tasks or budget:
                 4..7 tasks, a new one only while >= 3 W remain); a task that never graduates (a stall, an
                 oscillation, a slow riser) BLOCKS the curriculum and is the last. Events of the earlier tasks are
                 judged on retention evals alone (forgetting: sudden or gradual regressions, bursts, switching, an
                 eval worker that drops the task: eval_gap); a revisit (unexpected_transition) sends a graduated
                 task back to 1 AND trains it again for that stretch. Steps of 1 or 100; 500..800 iterations.
  rr_wallclock   tensorboardX, generic `train|eval/{env}/reward` (returns R s, R 200..1,000, LAPLACE noise, sd R
                 sigma: heavier tails than gaussian), `curriculum/{env}/state` in 40 %. TWO WRITERS IN ONE RUN FOLDER:
                 the trainer's SummaryWriter (train every iteration, states; wall time = the iteration's end) and an
                 EVALUATOR process's own SummaryWriter (its event file started 5 s later) that wakes every `slot`
                 wall seconds (0.7..1.6 x the base time of an iteration), evaluates the NEXT env in ROUND-ROBIN among
                 the unlocked ones at the trainer's last finished iteration, and logs `eval/{env}/reward` (sd / 2..3).
                 The trainer's seconds per iteration (20..60) grow 12 % per unlocked env, x lognormal(0, 0.15) jitter,
                 and in half the runs a SLOW STRETCH (x1.6..2.2 for 5..15 % of the run): each env's eval interval in
                 iterations is IRREGULAR and LENGTHENS as envs unlock (and shortens when an env leaves the rotation:
                 eval_gap). 3..5 envs in 1..2 waves; steps of 1 or 1,000 frames an iteration; 500..800 iterations.
  lp_sampler     tensorboardX, generic `train|eval/{env}/success` (MiniGrid-like rates), `curriculum/{env}/state` in
                 40 %. A LEARNING-PROGRESS SAMPLER: at each iteration an env is in the batch (and logged) with chance
                 q = q_min + (1 - q_min) min(1, LP / 0.1), LP = |s(t) - s(t - 10)| / gain (q_min 0.3..0.5): dense while
                 it learns, falls, switches or oscillates, sparse (every 2..3 iterations, irregularly) once flat; the
                 point is a binomial rate over the env's 16..64 episodes. Evals of every unlocked env every 6..12
                 iterations (binomial 100..300) in 60 %. 4..7 envs in 1..2 waves; steps of 1 or 50; 900..1,300
                 iterations.
  pretrained_top Atropos env processes (README's atropos profile, forced with `profile: atropos`): one W&B OFFLINE
                 run per env process (tests/writers.write_wandb, `group=` the benchmark run, name `{env}_0`, step=
                 the trainer step), keys `{env}_0_train/percent_correct` (binomial over 32..128 rollouts) and
                 `{env}_0_eval/percent_correct` every 10..20 steps in 60 % (100..300 problems). Each process logs at
                 its OWN PACE (every 1 or 2 trainer steps). LLM-RL: 45 % of the envs after the first two are ALREADY
                 SOLVED by the base model (at s1 from their first point; README: an env that learned nothing but sits
                 at the top, beside siblings that show the scale, graduates once it held that); their events come
                 after 45 % of their life (README asks the first half to sit at the top) and their gain is read
                 from the RUN's shared start (the learners' s0 within 0.02 of it). 4..6 envs in 1..2 waves (a process
                 that joined later); 380..600 steps.

Truth. Each env has a skill curve s in [0, 1] on its iteration grid (from its unlock): a learner goes from s0 to s1
over T iterations (exp, logistic, sqrt or linear; T 0.8..2.5 W, continual_seq 0.8..2 W) and is flat at s1 after; an
already-solved env is s1 throughout. The EXPECTED judged value (higher is better everywhere) is s for the rates and
R s for rr_wallclock; E0 = E(s0), E1 = E(s1), fractions of the gain are of E1 - E0 (for an already-solved env E0 is
the run's shared start). The envs of a run share one scale (s0 within 0.02 of the run's, s1 within 0.015).
  J  pace               an env's training logging pace in iterations: README's (the median interval when regular,
                        else the mean of the intervals under 3x it), from its logged points (lp_sampler 1..3, Atropos
                        1 or 2, else 1); planning uses the convention's slowest (1 / q_min, 2, 1)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in iterations (per env for labels; the
                        planning W takes the slowest J)
  G  eval interval      the env's median interval between evals in iterations (rr_wallclock: measured from the
                        evaluator's schedule; planning used n_envs x slot x 1.3 / base seconds per iteration)
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G, or J where not evaluated),
                        in steps = `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more; logged states go to 2
there, and continual_seq advances to the next task (the graduated task's training stops) there. Healthy learners reach
their top within 0.8..2.5 W.

In a run the first two envs (continual_seq: the first two tasks) are clean learners from step 0; each later env
carries an event with probability 0.65 (up to 3 draws from the convention's pool until one fits; else a clean
negative), and at least half the envs (and two) learn to the shared top (already-solved envs not counted).

Labels (an env carries at most one; onset in steps; "first point" = the env's first logged point, train or eval, at
or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G) (an already-solved env: also after 45 % of its life): sudden
                         or gradual (straight ramp over 0.5..1.5 W) fall to keep 0.72..0.79 (warning) or 0.1..0.6
                         (critical) of the gain, to the end (>= max(2 W, 15 G) left). Onset = first point at which E
                         keeps < 0.85 of the gain (continual_seq's earlier tasks: a retention eval)
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point, beside >= 2
                         siblings that learn to the shared top; freeze: a linear rise over >= max(0.4 W, 6) to 0.2..0.5
                         of the gain, then flat and active >= 5 W to the end; onset = first point at which E is within
                         a tenth of the rise of the flat level
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) iterations of s scattered |N(0,
                         0.2..0.3 gain)| below the held level, then calm >= max(W, 15 G); onset = first point, train
                         or eval, whose expected value is off by > max(0.15 gain, 4 sd of its own series)); switch
                         (Markov: s1 and s1 - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x that, >= 9 phases, to the
                         end; onset = first point of the first low phase); lifelong oscillation of an env that never
                         learns (sinus from activation, mid 0.35..0.55 of the gain, peak-to-peak 0.45..0.7 of it,
                         period 8..16 judged points, >= 4 periods; onset = its first point)
  unexpected_transition  logged states: after graduation + margin the state goes back to 1 for 0.5..1.5 W, then 2
                         again; onset = the first logged state point with the backward value
  eval_gap               evaluated envs: after graduation + margin the env's evals stop for the rest of the run (>=
                         max(5 x max(50 steps, G), 2 W) left) while the run goes on (rr_wallclock: the env leaves the
                         evaluator's rotation); onset = last eval + G (README first_step)
  prolonged_training     a steady linear riser (0.62 of the gain over its whole active life of >= 12.5 W) active to
                         the end (unlocked at 0, except continual_seq's last task, unlocked when the one before it
                         graduated); onset = its first point + 10 W (its own W)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's heaviest noise, gain
>= 5 sd), slow_learner (graduates within 4..6 W; continual_seq 3..4 W), level_shift (+0.04..0.06 gain after
graduation, where there is room), single_outlier (one point at s0 + 0.05 gain after graduation); already-solved envs
are healthy, noisy_healthy, level_shift or single_outlier when clean; continual_seq's graduated tasks whose training
stopped and whose retention evals hold are clean.

Noise and visibility (sd of one point in the metric's units at every level an event visits; noise is made quieter
until it holds, else the event is not planted): regression drop >= 4 sd; stall rise >= 5 sd and a never-learner's
gap to the top >= 6 sd; switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst base sd <= burst sd / 4;
prolonged riser sd <= 0.015 gain; healthy gain >= 8 sd (noisy >= 5). sd: rates sqrt(s (1 - s) / n); rr_wallclock
R sigma (Laplace scale sigma / sqrt 2).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a continual task whose training stopped at graduation is judged on its retention evals alone; its forgetting is a
    graduated_regression (never a stall: it is graduated), and a revisit trains it again while its state is 1;
  - the round-robin evaluator's eval_gap onset uses the env's median eval interval, though its intervals drift;
  - lp_sampler's W (for the prolonged onset and the tolerance) uses README's pace of the env's whole training
    series, though its density changes with its progress;
  - an already-solved env's gain runs from the run's shared start (README's scale), never from its own first point.
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
CYCLE = ("continual_seq", "rr_wallclock", "lp_sampler", "pretrained_top")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "continual_seq": """\
profile: continual
profiles:
  continual:
    patterns:
      - {regex: '^train/(?P<env>[^/]+)/(?P<metric>success)$', split: train}
      - {regex: '^retention/(?P<env>[^/]+)/(?P<metric>success)$', split: eval}
      - {regex: '^curriculum/(?P<env>[^/]+)/state$', split: state, metric: state}
    performance_metric: success
""",
    "rr_wallclock": "performance_metric: reward\n",
    "lp_sampler": "performance_metric: success\n",
    "pretrained_top": "profile: atropos\n",
}
NAMES = {
    "continual_seq": ["reach", "push", "pick-place", "door-open", "drawer-close", "button-press", "peg-insert",
                      "window-open", "faucet-turn", "lever-pull"],
    "rr_wallclock": ["hopper", "walker", "cheetah", "ant", "swimmer", "reacher", "humanoid-stand"],
    "lp_sampler": ["maze-s", "maze-m", "maze-l", "keycorridor", "lava-gap", "obstructed", "multiroom", "unlock-pickup",
                   "blocked-unlock"],
    "pretrained_top": ["gsm8k", "math-algebra", "math-geometry", "countdown", "sudoku-lite", "logic-grid", "mbpp",
                       "humaneval", "tool-use"],
}
CURVES = ("exp", "logistic", "sqrt", "linear")
RATES = ("continual_seq", "lp_sampler", "pretrained_top")
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
    noise: float = 0.05          # train noise parameter (trials n for rates, sigma / R for rr_wallclock returns)
    enoise: float | None = None  # eval noise parameter
    G: int | None = None         # eval interval in iterations (rr_wallclock: a planned estimate)
    at: int | None = None
    pace: int = 1                # pretrained_top: the env process logs every `pace` trainer steps
    top: bool = False            # pretrained_top: at its top from its first point (the base model solves it)
    train_end: int | None = None  # continual_seq: training stops here (the curriculum advanced)
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
    elif v == "riser":
        s[on] = env.s0 + p["rate"] * g * x[on]
    elif v == "osc":
        s[on] = env.s0 + g * (p["mid"] + 0.5 * p["pp"] * np.sin(2 * np.pi * x[on] / p["P"] + p["phase"]))
    elif env.top:
        s[on] = env.s1
    else:
        s[on] = env.s0 + g * f_curve(env.curve, x[on] / env.T)
    return s


def e_map(run: dict, s) -> np.ndarray:
    """Skill -> the expected judged value in the metric's units (all higher-is-better here)."""
    s = np.asarray(s, float)
    if run["convention"] == "rr_wallclock":
        return run["R"] * s
    return s.copy()


def E_levels(run: dict, env: Env) -> tuple[float, float]:
    return float(e_map(run, np.array([env.s0]))[0]), float(e_map(run, np.array([env.s1]))[0])


def grad_point(run: dict, env: Env, s: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc"):
        return None
    e = e_map(run, s)
    E0, E1 = E_levels(run, env)
    hit = np.flatnonzero(e >= E0 + 0.9 * (E1 - E0) - 1e-12)
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + max(0.3 * W, 3 * (env.G or 1))))


def skill_at_keep(run: dict, env: Env, keep: float) -> float:
    return env.s0 + keep * (env.s1 - env.s0)  # e_map is linear in s


# --- noise -----------------------------------------------------------------------------------------

def point_sd(run: dict, par: float, s: float) -> float:
    """sd of one point in the metric's units at skill s; par is the env's noise parameter."""
    if run["convention"] == "rr_wallclock":
        return run["R"] * par
    s = min(max(float(s), 0.0), 1.0)
    return math.sqrt(max(s * (1 - s), 0.0) / par)


def quieter(run: dict, par: float) -> float | None:
    if run["convention"] == "rr_wallclock":
        return None if par < 1e-4 else par / 1.5
    return None if par > 4000 else float(math.ceil(par * 1.5))


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
    if conv == "rr_wallclock":
        return float(rng.uniform(0.07, 0.1) if heavy else rng.uniform(0.02, 0.06))
    if conv == "lp_sampler":
        return float(rng.integers(8, 13) if heavy else rng.integers(16, 65))
    return float(rng.integers(12, 25) if heavy else rng.integers(32, 129))


def eval_noise(run: dict, rng, train_par: float) -> float:
    if run["convention"] == "rr_wallclock":
        return train_par / float(rng.uniform(2, 3))
    return float(rng.integers(100, 301))


# --- planning --------------------------------------------------------------------------------------

def window(run: dict) -> float:
    """W in iterations: max(min(100 steps, 10 % span), 20 J), J the convention's slowest planned train pace."""
    return max(min(100.0 / run["unit"], 0.1 * (run["L"] - 1)), 20.0 * run.get("J", 1.0))


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    L, W = env.L, window(run)
    g = env.s1 - env.s0
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    G = env.G or 1
    sd_of = lambda lv: [e_map(run, np.array([x]))[0] for x in lv]  # noqa: E731
    if ev in BLOCKERS:
        if env.top:
            return False
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
            rise = fr * gE
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
        if active < 12.5 * W:
            return False
        env.params["rate"] = 0.62 / active
        return make_visible(run, env, [env.s0, env.s0 + 0.62 * g], 0.015 * gE)
    e = base_curve(env, W)
    gp = grad_point(run, env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G)
    start = gp + margin
    if env.top:  # README: a top-from-the-start env's first half must sit at its top
        start = max(start, int(env.unlock + 0.45 * (L - env.unlock)))
    if ev in ("healthy", "noisy_healthy", "slow_learner"):
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
        dmin = int(math.ceil(max(4 * run.get("J", 1.0), 4 * G)))
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
        a, b = sd_of([env.s1 - gap * g, env.s1])
        return make_visible(run, env, [env.s1, env.s1 - gap * g], (b - a) / 5)
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
    tmax = 2.0 if run["convention"] == "continual_seq" else 2.5
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=float(rng.uniform(0.8, tmax) * W), L=run["L"],
              curve=str(rng.choice(CURVES)), noise=default_noise(run, rng))
    if run["convention"] == "pretrained_top":
        env.pace = int(rng.choice(run["paces"]))
    if has_eval:
        env.G = run["G"]
        env.enoise = eval_noise(run, rng, env.noise)
    return env


POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
        "eval_gap", "transition", "transition", "prolonged", "prolonged"]
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    if neg == "slow_learner":
        env.T = float(rng.uniform(3, 4) * W) if run["convention"] == "continual_seq" else float(rng.uniform(4, 6) * W)
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
    run["J"] = 1.0
    if conv == "continual_seq":
        run["unit"] = int(rng.choice([1, 100]))
        run["L"] = int(rng.integers(500, 801))
        run["s0"], run["s1"] = float(rng.uniform(0.02, 0.08)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(3, 9))
        run["states"] = bool(rng.random() < 0.5)
    elif conv == "rr_wallclock":
        run["unit"] = int(rng.choice([1, 1000]))
        run["L"] = int(rng.integers(500, 801))
        run["R"] = float(rng.uniform(200, 1000))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.95))
        run["states"] = bool(rng.random() < 0.4)
        run["spi"] = float(rng.uniform(20, 60))            # wall seconds per iteration at base speed
        run["slot"] = run["spi"] * float(rng.uniform(0.7, 1.6))  # evaluator: one env per slot of wall time
        run["n_envs"] = int(rng.integers(3, 6))
        run["G"] = int(math.ceil(run["n_envs"] * run["slot"] / run["spi"] * 1.3))  # planning estimate
        if rng.random() < 0.5:
            a = int(rng.uniform(0.2, 0.7) * run["L"])
            run["slow"] = (a, a + int(rng.uniform(0.05, 0.15) * run["L"]), float(rng.uniform(1.6, 2.2)))
    elif conv == "lp_sampler":
        run["unit"] = int(rng.choice([1, 50]))
        run["L"] = int(rng.integers(900, 1301))
        run["q_min"] = float(rng.uniform(0.3, 0.5))
        run["J"] = 1.0 / run["q_min"]
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.8, 0.95))
        run["G"] = int(rng.integers(6, 13)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.4)
    else:
        run["unit"] = 1
        run["L"] = int(rng.integers(380, 601))
        run["paces"] = [1, 2] if rng.random() < 0.6 else [1]
        run["J"] = float(max(run["paces"]))
        run["s0"], run["s1"] = float(rng.uniform(0.02, 0.1)), float(rng.uniform(0.8, 0.92))
        run["G"] = int(rng.integers(10, 21)) if rng.random() < 0.6 else None
        run["states"] = False


def draw_event(run: dict, env: Env, pool: list[str], rng, has_prolonged: bool) -> str | None:
    unlock = env.unlock
    for _try in range(3):
        ev = str(rng.choice(pool))
        if ev == "prolonged" and has_prolonged:
            ev = "reg_critical"
        if ev == "prolonged" and run["convention"] != "continual_seq":
            env.unlock = 0
        if place(run, env, ev, rng):
            return ev
        fresh = new_env(run, rng, env.name, unlock, env.G is not None)
        fresh.top = env.top
        if env.top:
            fresh.s0 = run["s0"]
        env.__dict__.update(fresh.__dict__)
    return None


def plan_continual(run: dict, rng) -> None:
    """Tasks one at a time: the next unlocks when the current graduates (its training stops there); the last task
    trains to the end; a task that never graduates (stall, oscillation, slow riser) blocks the curriculum."""
    W = window(run)
    names = list(rng.permutation(NAMES["continual_seq"]))
    max_tasks = int(rng.integers(4, 8))
    pool = [p for p in POOL if p != "transition" or run["states"]]
    pool = [p for p in pool if p not in BLOCKERS] * 2 + [p for p in pool if p in BLOCKERS]  # forgetting first
    envs, unlock = [], 0
    for k in range(max_tasks):
        env = new_env(run, rng, str(names[k]), unlock, True)
        ev = None
        if k >= 2 and rng.random() < 0.65:
            ev = draw_event(run, env, pool, rng, False)
        if ev is None:
            apply_negative(run, env, str(rng.choice(NEG_POOL if k >= 2 else NEG_POOL[:3])), rng)
        envs.append(env)
        gp = grad_point(run, env, base_curve(env, W), W)
        if ev in BLOCKERS or gp is None or gp > run["L"] - 3 * W or k == max_tasks - 1:
            break
        env.train_end = gp
        unlock = gp
    run["envs"] = envs


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    plan_scales(run, rng)
    if conv == "continual_seq":
        plan_continual(run, rng)
        return
    W = window(run)
    names = NAMES[conv]
    n = run["n_envs"] if conv == "rr_wallclock" else int(rng.integers(4, 7 if conv == "pretrained_top" else 8))
    waves = int(rng.integers(1, 3))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    has_eval = run["G"] is not None or conv == "rr_wallclock"
    envs = []
    for j, k in enumerate(pick):
        env = new_env(run, rng, names[k], starts[j % len(starts)] if j >= 2 else 0, has_eval)
        if conv == "pretrained_top" and j >= 2 and rng.random() < 0.45:
            env.top, env.s0 = True, run["s0"]
        envs.append(env)
    pool = [p for p in POOL if (p != "eval_gap" or has_eval) and (p != "transition" or run.get("states"))]
    has_prolonged = False
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.65:
            epool = [p for p in pool if not (env.top and p in BLOCKERS)]
            ev = draw_event(run, env, epool, rng, has_prolonged)
            if ev is not None:
                has_prolonged |= ev == "prolonged"
                continue
        neg_pool = NEG_POOL if j >= 2 else NEG_POOL[:3]
        if env.top:
            neg_pool = ["healthy", "noisy_healthy", "single_outlier", "level_shift"]
        apply_negative(run, env, str(rng.choice(neg_pool)), rng)
    if has_prolonged:  # README: at least twice the median time the graduated envs took
        for env in envs:
            if env.event not in EVENTS and env.T > 1.5 * W:
                env.T = float(rng.uniform(0.8, 1.5) * W)
                env.event = env.variant = "healthy"
    learners = [e for e in envs if e.variant not in ("never", "freeze", "riser", "osc") and not e.top]
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

def wall_clock(run: dict) -> np.ndarray:
    """rr_wallclock: the wall second each iteration ends (throughput slows as envs unlock and in a slow stretch)."""
    L = run["L"]
    i = np.arange(L)
    active = np.array([sum(1 for e in run["envs"] if e.unlock <= k) for k in i])
    factor = 1 + 0.12 * (active - 1)
    if run.get("slow"):
        a, b, f = run["slow"]
        factor = np.where((i >= a) & (i < b), factor * f, factor)
    rng = np.random.default_rng(zlib.crc32(f"{run['name']}/clock".encode()))
    return np.cumsum(run["spi"] * factor * rng.lognormal(0, 0.15, L))


def rr_schedule(run: dict, t_end: np.ndarray) -> dict[str, list[tuple[int, float]]]:
    """The evaluator: every `slot` wall seconds it evaluates the NEXT env in turn among the unlocked ones (an eval_gap
    env leaves the rotation at its `at`), at the trainer's last finished iteration."""
    out: dict[str, list[tuple[int, float]]] = {e.name: [] for e in run["envs"]}
    ptr, t = 0, run["slot"]
    envs = run["envs"]
    while t < t_end[-1]:
        it = int(np.searchsorted(t_end, t, side="right")) - 1
        if it >= 0:
            elig = [e for e in envs if e.unlock <= it and not (e.variant == "eval_gap" and it >= e.at)]
            if elig:
                e = elig[ptr % len(elig)]
                ptr += 1
                if not out[e.name] or out[e.name][-1][0] != it:
                    out[e.name].append((it, t))
        t += run["slot"]
    return out


def lp_pace(run: dict, env: Env, s: np.ndarray) -> np.ndarray:
    """lp_sampler: the chance an env is in an iteration's batch, from its learning progress over the last 10."""
    g = max(env.s1 - env.s0, 1e-6)
    prev = np.concatenate([np.full(10, np.nan), s[:-10]])
    prev = np.where(np.isnan(prev), np.where(np.isnan(s), np.nan, env.s0 if not env.top else env.s1), prev)
    lp = np.abs(s - prev) / g
    return run["q_min"] + (1 - run["q_min"]) * np.minimum(np.nan_to_num(lp) / 0.1, 1.0)


def draw(run: dict, par: float, s: np.ndarray, rng) -> np.ndarray:
    s = np.clip(s, 0.0, 1.0)
    if run["convention"] == "rr_wallclock":
        return run["R"] * (s + rng.laplace(0.0, par / math.sqrt(2), len(s)))
    n = int(par)
    return rng.binomial(n, s) / n


def observe(run: dict, env: Env, s: np.ndarray, rng, sched=None, t_end=None) -> dict:
    conv = run["convention"]
    on = np.arange(env.unlock, env.L)
    ev_wall = None
    if conv == "rr_wallclock":
        ev_its = np.array([i for i, _t in sched[env.name]], int)
        ev_wall = np.array([t for _i, t in sched[env.name]], float)
    elif env.G:
        ev_its = on[on % env.G == env.G - 1]
        if env.variant == "eval_gap":
            ev_its = ev_its[ev_its < env.at]
    else:
        ev_its = np.array([], int)
    if conv == "continual_seq":
        end = env.train_end if env.train_end is not None else env.L
        keep = on < end
        if env.variant == "revisit":
            keep |= (on >= env.at) & (on < env.at + env.params["length"])
        tr_its = on[keep]
    elif conv == "lp_sampler":
        q = lp_pace(run, env, s)[on]
        tr_its = on[rng.random(len(on)) < q]
        if not len(tr_its) or tr_its[0] != env.unlock:
            tr_its = np.concatenate([[env.unlock], tr_its])
    elif conv == "pretrained_top":
        tr_its = on[(on - env.unlock) % env.pace == 0]
    else:
        tr_its = on
    tr = draw(run, env.noise, s[tr_its], rng)
    ev = draw(run, env.enoise, s[ev_its], rng) if len(ev_its) else np.array([])
    return {"train": (tr_its, tr), "eval": (ev_its, ev), "eval_wall": ev_wall}


def state_series(env: Env, gp: int | None, its: np.ndarray) -> list[tuple[int, int]]:
    out = []
    for i in its:
        v = 0 if i < env.unlock else (2 if gp is not None and i >= gp else 1)
        if env.variant == "revisit" and env.at <= i < env.at + env.params["length"]:
            v = 1
        out.append((int(i), v))
    return out


# --- labelling -------------------------------------------------------------------------------------

def train_pace(its: np.ndarray) -> float:
    """README's logging pace: the median interval when regular, else the mean of the intervals under 3x it."""
    if len(its) < 2:
        return 1.0
    d = np.diff(its).astype(float)
    med = float(np.median(d))
    if np.all(np.abs(d / med - np.round(d / med)) < 1e-9):
        return med
    return float(d[d < 3 * med].mean())


def env_window(run: dict, env: Env, tr_its: np.ndarray) -> float:
    """W of this env in iterations: max(min(100 steps, 10 % span), 20 x its training pace)."""
    return max(min(100.0 / run["unit"], 0.1 * (run["L"] - 1)), 20.0 * train_pace(tr_its))


def env_G(env: Env, ev_its: np.ndarray) -> float | None:
    if len(ev_its) >= 2:
        return float(np.median(np.diff(ev_its)))
    return float(env.G) if env.G else None


def label_for(run: dict, env: Env, e: np.ndarray, its: np.ndarray, ev_its: np.ndarray, W: float,
              W_env: float, G_env: float | None) -> dict | None:
    if env.event not in EVENTS:
        return None
    step = lambda i: int(run["first"] + int(i) * run["unit"])  # noqa: E731
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    v, p = env.variant, env.params
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v == "freeze":
        flat = E0 + p["fr"] * gE
        rise = flat - E0
        a = int(math.ceil(env.unlock + p["R"]))
        near = np.flatnonzero((np.arange(len(e)) >= a) & (e >= flat - 0.1 * rise))
        t0 = int(near[0]) if len(near) else a
    elif v == "riser":
        return mk(run, env, step(its[0]) + int(round(10 * W_env * run["unit"])))
    elif v == "eval_gap":
        return mk(run, env, step(ev_its[-1]) + int(round(G_env * run["unit"])))
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
                shape=f"{run['convention']}/{env.variant}{'/top' if env.top else ''}", variant=env.variant)


# --- writers ---------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0


def _step(run: dict, i) -> int:
    return int(run["first"] + int(i) * run["unit"])


def _writer(folder: Path):
    from tensorboardX import SummaryWriter

    return SummaryWriter(str(folder), flush_secs=3600, max_queue=1 << 20)


def _close_named(w, folder: Path, start: float, who: str) -> None:
    """Close the writer and name its event file by the wall second its process started (two writers of one folder
    would otherwise share a name)."""
    w.close()
    for f in folder.glob("events.out.tfevents.*"):
        if not f.name.endswith(("-0", ".writer")):
            f.rename(folder / f"events.out.tfevents.{int(start)}.{who}-0")


def write_tb(folder: Path, run: dict, data: dict, train_key, eval_key, state_key, walls=None) -> None:
    """The trainer's SummaryWriter: train values and states (and, where no separate evaluator runs, the evals)."""
    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), []).append((train_key(env.name), v))
        if eval_key:
            for i, v in zip(*d["eval"]):
                rows.setdefault(int(i), []).append((eval_key(env.name), v))
        if run.get("states"):
            for i, v in d["states"]:
                rows.setdefault(int(i), []).append((state_key(env.name), v))
    w = _writer(folder)
    for i in sorted(rows):
        wt = WALL0 + (walls[i] if walls is not None else 3.0 * i)
        for tag, v in rows[i]:
            w.add_scalar(tag, float(v), _step(run, i), walltime=wt)
    _close_named(w, folder, WALL0, "trainer")


def write_evaluator(folder: Path, run: dict, data: dict) -> None:
    """rr_wallclock's evaluator process: its own SummaryWriter in the run folder, one env per wall-clock slot."""
    pts = []
    for env in run["envs"]:
        d = data[env.name]
        for i, v, t in zip(d["eval"][0], d["eval"][1], d["eval_wall"]):
            pts.append((t, int(i), env.name, float(v)))
    w = _writer(folder)
    for t, i, name, v in sorted(pts):
        w.add_scalar(f"eval/{name}/reward", v, _step(run, i), walltime=WALL0 + t)
    _close_named(w, folder, WALL0 + 5, "evaluator")


def write_atropos(folder: Path, run: dict, data: dict) -> None:
    """One W&B offline run per env process (group = the benchmark run), keys `{env}_0_train|eval/percent_correct`,
    logged with step= the trainer step at the process's own pace."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from writers import write_wandb

    for env in run["envs"]:
        d = data[env.name]
        rows: dict[int, dict] = {}
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), {})[f"{env.name}_0_train/percent_correct"] = float(v)
        for i, v in zip(*d["eval"]):
            rows.setdefault(int(i), {})[f"{env.name}_0_eval/percent_correct"] = float(v)
        its = sorted(rows)
        write_wandb(folder / "wandb", [rows[i] for i in its], steps=[_step(run, i) for i in its],
                    run_id=f"{run['trial']}-{env.name}", group=run["name"], name=f"{env.name}_0")


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
        name = f"q{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'fifteenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
        prng = np.random.default_rng(rseed)
        run = dict(name=name, convention=conv, seed=rseed, trial=trial)
        plan_run(run, prng)
        folder = root / conv / name
        folder.mkdir(parents=True, exist_ok=True)
        orng = np.random.default_rng(rseed + 1)
        W = window(run)
        t_end = wall_clock(run) if conv == "rr_wallclock" else None
        sched = rr_schedule(run, t_end) if conv == "rr_wallclock" else None
        data, tol = {}, []
        for env in run["envs"]:
            s = truth(run, env)
            gp = grad_point(run, env, base_curve(env, W), W)
            env.params["graduated_point"] = gp
            d = observe(run, env, s, orng, sched, t_end)
            if run.get("states"):
                st_its = np.unique(np.concatenate([d["train"][0], d["eval"][0]])).astype(int)
                d["states"] = state_series(env, gp, st_its)
            data[env.name] = d
            tr_its = np.asarray(d["train"][0], int)
            ev_its = np.asarray(d["eval"][0], int)
            W_env = env_window(run, env, tr_its)
            G_env = env_G(env, ev_its)
            env.params.update(W_env=W_env, G_env=G_env)
            tol.append(max(W_env * run["unit"] / 10.0, (G_env or train_pace(tr_its)) * run["unit"]))
            its = np.unique(np.concatenate([tr_its, ev_its])).astype(int)
            lab = label_for(run, env, e_map(run, s), its, ev_its, W, W_env, G_env)
            if lab:
                labels.append(lab)
        if conv == "continual_seq":
            write_tb(folder, run, data, lambda n: f"train/{n}/success", lambda n: f"retention/{n}/success",
                     lambda n: f"curriculum/{n}/state")
        elif conv == "rr_wallclock":
            write_tb(folder, run, data, lambda n: f"train/{n}/reward", None, lambda n: f"curriculum/{n}/state",
                     walls=t_end)
            write_evaluator(folder, run, data)
        elif conv == "lp_sampler":
            write_tb(folder, run, data, lambda n: f"train/{n}/success", lambda n: f"eval/{n}/success",
                     lambda n: f"curriculum/{n}/state")
        else:
            write_atropos(folder, run, data)
        meta = {k: v for k, v in run.items() if k not in ("envs",)}
        meta.update(tolerance_unit=int(round(max(tol))), window_steps=W * run["unit"],
                    eval_every=int((run.get("G") or 1) * run["unit"]))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                         "curve": e.curve, "noise": e.noise, "eval_noise": e.enoise, "unlock": e.unlock, "s0": e.s0,
                         "s1": e.s1, "T": e.T, "G": e.G, "at": e.at, "L": e.L, "pace": e.pace, "top": e.top,
                         "train_end": e.train_end,
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
