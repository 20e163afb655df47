"""The eighteenth detection corpus (`python benchmarks/detection.py --corpus eighteenth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, what a rate is, logging shapes, the noise section, what `unknown` means; the design notes;
log-conventions.md; the profiles' key spellings; tests/writers.py), without reading the rules' or the analysis code,
and without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-eighteenth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml in the group folder,
where the scorer reads it). Chosen for what the seventeen other corpora cover least (their docstrings): none logs
SEED REPLICAS of one task as envs of ONE run (`{task}_s{k}`: PureJaxRL-style vmapped seeds, siblings on exactly one
scale, each replica with its own events) — the fourteenth's sibling seeds are separate runs; none logs a D4RL-style
NORMALIZED SCORE (0 random, 100 expert, tops of 70..110: neither a rate nor a raw return, may pass 100 and dip below
0), nor evals on a DOUBLING warm-up schedule; none writes one run from TWO DDP RANKS, each with its own SummaryWriter
on the same log_dir (two event files of one folder holding the same tags at the same steps: README's "a later file of
the run" rule); none logs states ONLY AT TRANSITIONS (a sparse state series, as words), and none judges a negative,
higher-is-better LOG-LIKELIHOOD; none has runs of 5,000..9,000 points an env whose Student-t noise level DRIFTS
slowly (x0.5..0.7 to x1.4..1.8 over hundreds to thousands of iterations) with events brief against the run, NaN
points and a resume that rewrites a span from a checkpoint in a second event file:

  seed_replicas  W&B OFFLINE run (tests/writers.write_wandb, step= env steps, 2,048 or 4,096 an iteration, 300..600
                 iterations), generic keys `train|eval/{task}_s{k}/normalized_score` (config `performance_metric:
                 normalized_score`), run-level `perf/sps` (unclaimed); no states. 2..3 tasks (a task unlocked in 1..2
                 waves) x K = 2..3 replicas, each replica an env. E = A + (B - A) s (A -3..5, B 70..110); a train point
                 is the mean of m episodes (m 2..8; heavy 1..2), each of sd (B - A) x 0.15..0.35; evals (70 %) the
                 mean of 5..20 episodes (heavy 2..3) after 1, 2, 4, 8, ... iterations from the task's unlock (while
                 under G), then every G = 5..12 iterations.
  ddp_ranks      tensorboardX, two SummaryWriters on one run folder (torch's file names
                 `events.out.tfevents.{time}.{host}.{pid}.0`; one node with two pids, or two nodes; rank 1's file
                 started 0..3 s after rank 0's): BOTH ranks write `train/{env}/success` at every iteration (each the
                 success rate of its own local batch: binomial n 16..64, heavy 4..8; independent draws of the same
                 truth), rank 0 alone `eval/{env}/success` (binomial 64..256, heavy 16..32; every 5..10 iterations
                 in 60 %) and `curriculum/{env}/state` 0/1/2 at every row (50 %). Steps = samples over both ranks
                 (512 or 2,048 an iteration), 400..800 iterations. Config `performance_metric: success`. Whichever
                 rank's value the reader keeps (README: the later file's, a `duplicate_points` issue) or combines,
                 the truth is the same; the planned noise is one rank's.
  transition_states  W&B OFFLINE run, step= the trainer step (1 or 10 an iteration, 400..800 iterations): an
                 imitation curriculum's `train|eval/{task}/log_likelihood` (the mean per-token log-likelihood of the
                 demonstrations: E = A + (B - A) s, A -4.0..-2.5, B -0.6..-0.2; negative, higher is better; config
                 `performance_metric: log_likelihood`, `direction: higher`), gaussian, a point the mean of B
                 sequences of sd 0.6..1.2 nats (train B 16..64, heavy 4..8; evals every 5..10 iterations in 60 %, B
                 128..512, heavy 16..32). `curriculum/{task}/state` as the WORDS locked / active / graduated,
                 logged ONLY AT TRANSITIONS: its value at step 0 (locked for a later wave) and a row wherever it
                 changes (active at unlock, graduated at the truth's graduation, back to active and graduated again
                 for a revisit).
  long_drift     tensorboardX generic `train|eval/{game}/return` (config `performance_metric: return`),
                 `curriculum/{game}/state` 0/1/2 at every row in 30 %; procgen-like returns E = A + (B - A) s (A
                 0..2, B 8..40), 5,000..9,000 iterations of 1,000 or 4,000 env frames; evals every 20..50 iterations
                 in 50 %. A point is E + (B - A) sigma d(t) t_df / sqrt(m) (sigma 0.2..0.4, STUDENT t of df 3..5, m
                 4..16, heavy 1..2; evals m 10..30, heavy 3..5), d(t) the run's DRIFTING noise level (a random walk
                 smoothed over 500..2,000 iterations, scaled into [lo 0.5..0.7, hi 1.4..1.8]); NaN points at a rate
                 0.05..0.2 % (np.mean of no finished episode). The job dies at 40..80 % of the run and is RESUMED
                 from a checkpoint 50..300 iterations back by a new SummaryWriter (a second event file, started
                 later): the span [ckpt, crash) is written twice, with fresh draws (the last write is the one
                 labelled). Events are brief against the run (W = 20 iterations).

Truth (as the seventeenth's). Each env has a skill curve s in [0, 1] on its iteration grid (from its unlock): a
learner goes from s0 to s1 over T iterations (exp, logistic, sqrt or linear; T 0.8..2.5 W) and is flat at s1 after;
a LATE LEARNER (a clean negative) first stays at s0 for 1..2 W. The EXPECTED judged value is E(s) = A + (B - A) s
(higher is better everywhere; ddp_ranks A = 0, B = 1). E0 = E(s0), E1 = E(s1); fractions of the gain are of E1 -
E0. The envs of a run share one scale (s0 within 0.02 of the run's, s1 within 0.015).
  J  pace               an env's logging pace in steps of its train series (finite points): README's (the median
                        interval when regular, else the mean of the intervals under 3x it); planning uses 1 iteration
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in steps (per env for labels; the planning
                        W in iterations takes the planning J and the mean step per iteration)
  G  eval interval      the env's median interval between evals, in steps
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G, or J where not evaluated), in
                        steps = `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more iterations; logged states
go to 2 there. Healthy learners reach their top within 0.8..2.5 W.

In a run the first two envs are clean learners from step 0 (seed_replicas: the first task's replicas 0 and 1); each
later env carries an event with probability 0.65 (up to 3 draws from the pool until one fits; else a clean
negative), and at least half the envs (and two) learn to the shared top.

Labels (onset in steps; "first point" = the env's first logged finite point of the judged metric, train or eval, at
or after the event's true start; an env carries at most one label):
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
  unexpected_transition  logged states (ddp_ranks, long_drift where logged; transition_states always): after
                         graduation + margin the state goes back to 1 for 0.5..1.5 W, then 2 again (revisit); onset =
                         the first logged state point with the backward value (transition_states: its transition row)
  eval_gap               evaluated envs: after graduation + margin the env's evals stop for the rest of the run (>=
                         max(5 x max(50 steps, G), 2 W) left) while the run goes on; onset = last eval + G (README
                         first_step)
  prolonged_training     a steady riser, LINEAR IN E (0.62 of the gain over its whole active life of >= 12.5 W), active
                         to the end, unlocked at 0; onset = its first point + 10 W (its own W, in steps)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's heaviest noise, gain
>= 5 sd), slow_learner (graduates within 4..6 W), late_learner (flat at s0 for 1..2 W from activation, then a normal
learner: under README's 3 windows), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one point at s0 + 0.05 gain after graduation). Every long_drift env lives through its drift, NaN
points and resume; every ddp_ranks env through its two writers.

Noise and visibility (sd of one point in the metric's units at every level an event visits; noise is made quieter —
more episodes, trials or sequences a point — until it holds, else the event is not planted): regression drop >= 4
sd; stall rise >= 5 sd and a never-learner's gap to the top >= 6 sd; switching gap >= 5 sd; oscillation
peak-to-peak >= 6 sd; burst base sd <= burst sd / 4; prolonged riser sd <= 0.015 gain; healthy gain >= 8 sd (noisy
>= 5). sd: normalized score (B - A) sigma / sqrt m; success sqrt(s (1 - s) / n) (one rank's batch); log-likelihood
seq_sd / sqrt B; long_drift (B - A) sigma sqrt(df / (df - 2)) hi / sqrt m (the t's sd at the TOP of the drift).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - the replicas of one task are separate envs; an event of one replica is that env's alone, its siblings are the
    shared scale that shows it;
  - the two DDP ranks' train values are two observations of one truth: the label does not depend on which the reader
    keeps; the planned noise (and the burst onset's 4 sd) is one rank's;
  - sparse transition states hold from their row to the next: a revisit's onset is its transition row;
  - the drifting noise level is noise, never an event; planning (and the burst onset) uses its top;
  - a NaN point is no point: onsets go to the next finite one; in long_drift the resumed writer's values are the
    points labelled.
"""
from __future__ import annotations

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
SMALL_RUNS = 4
CYCLE = ("seed_replicas", "ddp_ranks", "transition_states", "long_drift")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "seed_replicas": "performance_metric: normalized_score\n",
    "ddp_ranks": "performance_metric: success\n",
    "transition_states": "performance_metric: log_likelihood\ndirection: higher\n",
    "long_drift": "performance_metric: return\n",
}
NAMES = {
    "seed_replicas": ["hopper", "walker2d", "halfcheetah", "ant", "swimmer", "humanoid-stand"],
    "ddp_ranks": ["PickCube", "StackCube", "PegInsertionSide", "PlugCharger", "OpenCabinetDrawer", "TurnFaucet",
                  "PushT", "LiftPegUpright"],
    "transition_states": ["reach", "push", "pick-place", "door-open", "drawer-close", "button-press", "peg-insert",
                          "window-open"],
    "long_drift": ["coinrun", "starpilot", "bigfish", "bossfight", "caveflyer", "chaser", "climber", "dodgeball"],
}
WORDS = {0: "locked", 1: "active", 2: "graduated"}
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
    noise: float = 0.0           # train noise parameter (episodes m, trials n); unused where eval only
    enoise: float | None = None  # eval noise parameter (episodes, trials)
    G: int | None = None         # eval interval in iterations
    at: int | None = None
    params: dict = field(default_factory=dict)




# --- the metric: E(s) and one point's sd ---------------------------------------------------------------

def e_map(run: dict, s) -> np.ndarray:
    """Skill -> the expected judged value in the metric's units (linear in every convention; higher is better)."""
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    return run["A"] + (run["B"] - run["A"]) * s


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
    """sd of one point in the metric's units at skill s; par is the env's noise parameter (episodes, trials or
    sequences behind a point). long_drift: at the top of its drifting noise level."""
    conv = run["convention"]
    s = min(max(float(s), 0.0), 1.0)
    span = run["B"] - run["A"]
    if conv == "seed_replicas":
        return span * run["sig"] / math.sqrt(par)
    if conv == "ddp_ranks":
        return math.sqrt(max(s * (1 - s), 0.0) / par)
    if conv == "transition_states":
        return run["seq_sd"] / math.sqrt(par)
    df = run["df"]
    return span * run["sig"] * math.sqrt(df / (df - 2)) * run["drift_hi"] / math.sqrt(par)


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

    ok = fix("noise", limit)
    if env.enoise is not None:
        ok = fix("enoise", limit) and ok
    return ok


def default_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "seed_replicas":
        return float(rng.integers(1, 3) if heavy else rng.integers(2, 9))
    if conv == "long_drift":
        return float(rng.integers(1, 3) if heavy else rng.integers(4, 17))
    return float(rng.integers(4, 9) if heavy else rng.integers(16, 65))


def eval_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "seed_replicas":
        return float(rng.integers(2, 4) if heavy else rng.integers(5, 21))
    if conv == "long_drift":
        return float(rng.integers(3, 6) if heavy else rng.integers(10, 31))
    if conv == "ddp_ranks":
        return float(rng.integers(16, 33) if heavy else rng.integers(64, 257))
    return float(rng.integers(16, 33) if heavy else rng.integers(128, 513))


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
    if ev in ("reg_warning", "reg_critical"):
        keep = float(rng.uniform(0.72, 0.79)) if ev == "reg_warning" else float(rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        low_len = max(2 * W, 15 * G)
        need = ramp + low_len
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
        s = apply_fall(env, s)
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
        env.enoise = eval_noise(run, rng)
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
            env.enoise = eval_noise(run, rng, heavy=True)
    if not place(run, env, neg, rng):
        env.at, env.params = None, {}
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
    run["G"] = None
    if conv == "seed_replicas":
        run["L"] = int(rng.integers(300, 601))
        run["unit"] = float(rng.choice([2048, 4096]))
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
        run["A"], run["B"] = float(rng.uniform(-3, 5)), float(rng.uniform(70, 110))
        run["sig"] = float(rng.uniform(0.15, 0.35))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(5, 13)) if rng.random() < 0.7 else None
        run["K"] = int(rng.integers(2, 4))
    elif conv == "ddp_ranks":
        run["L"] = int(rng.integers(400, 801))
        run["unit"] = float(rng.choice([512, 2048]))
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
        run["A"], run["B"] = 0.0, 1.0
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.97))
        run["G"] = int(rng.integers(5, 11)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.5)
        multi = bool(rng.random() < 0.5)
        pid = int(rng.integers(2000, 60000))
        run["ranks"] = [{"host": "gpu-node-3", "pid": pid, "lag": 0},
                        {"host": "gpu-node-7" if multi else "gpu-node-3",
                         "pid": int(rng.integers(2000, 60000)) if multi else pid + int(rng.integers(1, 40)),
                         "lag": int(rng.integers(0, 4))}]
    elif conv == "transition_states":
        run["L"] = int(rng.integers(400, 801))
        run["unit"] = float(rng.choice([1, 10]))
        run["clock"] = np.arange(run["L"], dtype=np.int64) * int(run["unit"])
        run["A"], run["B"] = float(rng.uniform(-4.0, -2.5)), float(rng.uniform(-0.6, -0.2))
        run["seq_sd"] = float(rng.uniform(0.6, 1.2))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(5, 11)) if rng.random() < 0.6 else None
        run["states"] = True
    else:
        run["L"] = int(rng.integers(5000, 9001))
        run["unit"] = float(rng.choice([1000, 4000]))
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
        run["A"], run["B"] = float(rng.uniform(0, 2)), float(rng.uniform(8, 40))
        run["sig"] = float(rng.uniform(0.2, 0.4))
        run["df"] = int(rng.choice([3, 4, 5]))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(20, 51)) if rng.random() < 0.5 else None
        run["states"] = bool(rng.random() < 0.3)
        run["nan_rate"] = float(rng.uniform(0.0005, 0.002))
        # the simulator's noise level drifts slowly: a smoothed random walk in log, scaled into [lo, hi]
        lo, hi = float(rng.uniform(0.5, 0.7)), float(rng.uniform(1.4, 1.8))
        corr = int(rng.integers(500, 2001))
        walk = np.cumsum(rng.normal(size=run["L"] + 2 * corr))
        ker = np.exp(-0.5 * (np.arange(-2 * corr, 2 * corr + 1) / (corr / 2)) ** 2)
        sm = np.convolve(walk, ker / ker.sum(), mode="same")[corr:corr + run["L"]]
        sm = (sm - sm.min()) / max(sm.max() - sm.min(), 1e-9)
        run["drift"] = np.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * sm)
        run["drift_lo"], run["drift_hi"], run["drift_corr"] = lo, hi, corr
        crash = int(rng.uniform(0.4, 0.8) * run["L"])
        run["resume"] = {"crash": crash, "ckpt": crash - int(rng.integers(50, 301))}


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
    has_eval = run["G"] is not None
    if conv == "seed_replicas":
        tasks = [names[k] for k in rng.choice(len(names), size=int(rng.integers(2, 4)), replace=False)]
        waves = int(rng.integers(1, 3))
        starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
        slots = [(f"{t}_s{k}", starts[j % len(starts)] if j else 0) for j, t in enumerate(tasks)
                 for k in range(run["K"])]
    else:
        n = int(rng.integers(3, 7))
        waves = int(rng.integers(1, 3))
        starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
        pick = rng.choice(len(names), size=n, replace=False)
        slots = [(names[k], starts[j % len(starts)] if j >= 2 else 0) for j, k in enumerate(pick)]
    envs = [new_env(run, rng, nm, unlock, has_eval) for nm, unlock in slots]
    pool = [p for p in POOL if (p != "eval_gap" or has_eval) and (p != "transition" or run["states"])]
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

def eval_iterations(run: dict, env: Env) -> np.ndarray:
    on = np.arange(env.unlock, env.L)
    if not env.G:
        return np.array([], int)
    mask = on % env.G == (env.G - 1 if env.G > 1 else 0)
    if run["convention"] == "seed_replicas":  # a doubling warm-up: after 1, 2, 4, 8 ... iterations, then every G
        x = on - env.unlock + 1
        mask |= ((x & (x - 1)) == 0) & (x < env.G)
    ev = on[mask]
    if env.variant == "eval_gap":
        ev = ev[ev < env.at]
    return ev


def draw(run: dict, env: Env, s: np.ndarray, its: np.ndarray, par: float, rng) -> np.ndarray:
    """One logged value per iteration in its, at skill s (already taken at its)."""
    conv = run["convention"]
    if not len(its):
        return np.array([])
    E = e_map(run, s)
    span = run["B"] - run["A"]
    if conv == "seed_replicas":
        return E + rng.normal(0, 1, len(its)) * span * run["sig"] / math.sqrt(par)
    if conv == "ddp_ranks":
        n = int(par)
        return rng.binomial(n, np.clip(s, 0, 1)) / n
    if conv == "transition_states":
        return E + rng.normal(0, 1, len(its)) * run["seq_sd"] / math.sqrt(par)
    t = rng.standard_t(run["df"], len(its))
    out = E + t * span * run["sig"] * run["drift"][its] / math.sqrt(par)
    out[rng.random(len(its)) < run["nan_rate"]] = np.nan  # np.mean of no finished episode
    return out


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    conv = run["convention"]
    tr_its = np.arange(env.unlock, env.L)
    ev_its = eval_iterations(run, env)
    st, se = np.clip(s[tr_its], 0, 1), np.clip(s[ev_its], 0, 1)
    tr = draw(run, env, st, tr_its, env.noise, rng)
    ev = draw(run, env, se, ev_its, env.enoise or 1.0, rng)
    out = {"train": (tr_its, tr), "eval": (ev_its, ev)}
    if conv == "ddp_ranks":  # rank 1's own local batch at the same steps
        out["train_rank1"] = (tr_its, draw(run, env, st, tr_its, env.noise, rng))
    if conv == "long_drift":  # the resumed job replays [ckpt, crash): new draws there are the last write
        r = run["resume"]
        first_tr, first_ev = tr.copy(), ev.copy()
        m = (tr_its >= r["ckpt"]) & (tr_its < r["crash"])
        tr = tr.copy()
        tr[m] = draw(run, env, st[m], tr_its[m], env.noise, rng)
        me = (ev_its >= r["ckpt"]) & (ev_its < r["crash"])
        ev = ev.copy()
        if me.any():
            ev[me] = draw(run, env, se[me], ev_its[me], env.enoise or 1.0, rng)
        out.update(train=(tr_its, tr), eval=(ev_its, ev), train_first=(tr_its, first_tr),
                   eval_first=(ev_its, first_ev))
    return out


def state_value(env: Env, gp: int | None, i: int) -> int:
    v = 0 if i < env.unlock else (2 if gp is not None and i >= gp else 1)
    if env.variant == "revisit" and env.at <= i < env.at + env.params["length"]:
        v = 1
    return v


def state_series(run: dict, env: Env, gp: int | None, its: np.ndarray) -> list[tuple[int, int]]:
    """Every given iteration's state; transition_states: only the step-0 value and the transitions."""
    if run["convention"] != "transition_states":
        return [(int(i), state_value(env, gp, int(i))) for i in its]
    out, last = [], None
    for i in range(env.L):
        v = state_value(env, gp, i)
        if v != last:
            out.append((i, v))
            last = v
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
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gE))
        t0 = int(below[0])
    elif v == "burst":
        a, B = env.at, p["length"]
        judged_sd = point_sd(run, env.noise, env.s1)
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


def _rows(run: dict, data: dict, keys: dict[str, str], fields: tuple = ("train", "eval", "states")) -> dict:
    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for f in fields:
            for i, v in zip(*d[f]) if f != "states" else d.get("states", []):
                rows.setdefault(int(i), []).append((keys[f].format(env=env.name), v))
    return rows


def _tb_file(folder: Path, name: str, rows: dict[int, list], run: dict, wall) -> None:
    """One tensorboardX SummaryWriter over rows {iteration: [(tag, value)]}; its event file renamed to name
    (tensorboardX names files by the real clock: two writers of one second would share a name)."""
    from tensorboardX import SummaryWriter

    with tempfile.TemporaryDirectory() as tmp:
        w = SummaryWriter(tmp, flush_secs=3600, max_queue=1 << 20)
        for i in sorted(rows):
            t = int(run["clock"][i])
            for tag, v in rows[i]:
                w.add_scalar(tag, float(v), t, walltime=wall(i))
        w.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.move(str(src), str(folder / name))


def write_replicas(folder: Path, run: dict, data: dict, rng) -> None:
    """One W&B offline run (PureJaxRL-style vmapped seeds), step= env steps; a row per iteration."""
    _tests_on_path()
    from writers import write_wandb

    keys = {"train": "train/{env}/normalized_score", "eval": "eval/{env}/normalized_score"}
    rows = {i: dict(kv) for i, kv in _rows(run, data, keys, ("train", "eval")).items()}
    its = sorted(rows)
    for i in its:
        rows[i]["perf/sps"] = float(np.round(rng.uniform(4e4, 9e4), 1))
    write_wandb(folder / "wandb", [rows[i] for i in its], steps=[int(run["clock"][i]) for i in its],
                run_id=run["trial"], name=run["name"])


def write_ddp(folder: Path, run: dict, data: dict) -> None:
    """Two DDP ranks each with its own SummaryWriter on the same log_dir (no rank guard): rank 0 writes its
    local train rate, the evals and the states; rank 1 its own local train rate under the same tags and steps.
    File names as torch's: events.out.tfevents.{time}.{host}.{pid}.0."""
    keys = {"train": "train/{env}/success", "eval": "eval/{env}/success", "states": "curriculum/{env}/state"}
    r0 = _rows(run, data, keys)
    r1 = _rows(run, data, {"train_rank1": "train/{env}/success"}, ("train_rank1",))
    for rank, rows in ((0, r0), (1, r1)):
        spec = run["ranks"][rank]
        name = f"events.out.tfevents.{int(WALL0) + spec['lag']}.{spec['host']}.{spec['pid']}.0"
        _tb_file(folder, name, rows, run, lambda i, lag=spec["lag"], r=rank: WALL0 + lag + 3.0 * i + 0.01 * r)


def write_translog(folder: Path, run: dict, data: dict) -> None:
    """One W&B offline run, step= the trainer step; states as words, only in the rows where they change."""
    _tests_on_path()
    from writers import write_wandb

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), {})[f"train/{env.name}/log_likelihood"] = float(v)
        for i, v in zip(*d["eval"]):
            rows.setdefault(int(i), {})[f"eval/{env.name}/log_likelihood"] = float(v)
        for i, v in d["states"]:
            rows.setdefault(int(i), {})[f"curriculum/{env.name}/state"] = WORDS[int(v)]
    its = sorted(rows)
    write_wandb(folder / "wandb", [rows[i] for i in its], steps=[int(run["clock"][i]) for i in its],
                run_id=run["trial"], name=run["name"])


def write_drift(folder: Path, run: dict, data: dict) -> None:
    """tensorboardX; the job dies at `crash` and is resumed from `ckpt` by a new SummaryWriter (a second event
    file, started later) that logs [ckpt, crash) again and goes on to the end."""
    r = run["resume"]
    keys = {"train_first": "train/{env}/return", "eval_first": "eval/{env}/return",
            "states": "curriculum/{env}/state"}
    first = {i: v for i, v in _rows(run, data, keys, ("train_first", "eval_first", "states")).items()
             if i < r["crash"]}
    keys2 = {"train": "train/{env}/return", "eval": "eval/{env}/return", "states": "curriculum/{env}/state"}
    second = {i: v for i, v in _rows(run, data, keys2).items() if i >= r["ckpt"]}
    t2 = WALL0 + 2.0 * r["crash"] + 900.0
    _tb_file(folder, f"events.out.tfevents.{int(WALL0)}.learner-0", first, run, lambda i: WALL0 + 2.0 * i)
    _tb_file(folder, f"events.out.tfevents.{int(t2)}.learner-0", second, run,
             lambda i: t2 + 2.0 * (i - r["ckpt"]))




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
        name = f"y{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'eighteenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
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
                d["states"] = state_series(run, env, gp, st_its)
                st_its = np.array([i for i, _ in d["states"]], int)
            data[env.name] = d
            tr_ok = tr_its[np.isfinite(np.asarray(d["train"][1], float))]
            ev_ok = ev_its[np.isfinite(np.asarray(d["eval"][1], float))] if len(ev_its) else ev_its
            judged = np.unique(np.concatenate([tr_ok, ev_ok])).astype(int)
            J_env = pace(clock[tr_ok])
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
        if conv == "seed_replicas":
            write_replicas(folder, run, data, np.random.default_rng(rseed + 2))
        elif conv == "ddp_ranks":
            write_ddp(folder, run, data)
        elif conv == "transition_states":
            write_translog(folder, run, data)
        else:
            write_drift(folder, run, data)
        meta = {k: v for k, v in run.items() if k not in ("envs", "clock", "drift")}
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
