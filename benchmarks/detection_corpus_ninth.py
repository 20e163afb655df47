"""The ninth detection corpus (`python benchmarks/detection.py --corpus ninth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and `count_metric`, metric direction,
logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md), without reading
the rules' or the analysis code, and without looking at which cases curriwatch misses. Meant to be read for its
totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-ninth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen for what the eight other corpora cover least (their docstrings:
no tinker W&B run, no `count_metric`, no per-env logging paces, no drifting noise level, no lower-is-better
metric crossing zero, no run of short-lived envs whose training stops at graduation outside Marin):

  tinker_wandb   tinker-cookbook's W&B run ALONE (W&B offline, `step=i_batch`, no metrics.jsonl beside it): LLM-RL
                 per-task correctness `env/{tag}/reward/total` (+ `env/{tag}/correct`, `env/{tag}/format`,
                 `env/{tag}/by_group/frac_mixed|frac_all_good|frac_all_bad`, `env/{tag}/total_episodes` = the count),
                 the `env/all/…` aggregate, `optim/lr`, `progress/done_frac`, `time/total`. Each batch holds 4..8
                 groups of 4..16 rollouts drawn among the unlocked tags (so a tag is logged only in the batches that
                 drew it: irregular per-tag paces; a batch always holds 2+ tags, as tinker logs per-tag keys only
                 then); the point is the mean of groups x group_size 0/1 outcomes (binomial over 4..128 trials,
                 more only where a visibility bound asks: very noisy, its count in `total_episodes`). The test evaluator (`test/env/{tag}/reward/total`, 48..200 problems) runs every 4..8
                 batches in 70 % of the runs; 4..8 tags, unlocked in 2..3 waves; 260..420 batches.
  userprof_count tensorboardX, a USER PROFILE with `count_metric`: `tasks/{env}/train/acc` + `tasks/{env}/train/n`
                 (the number of problems behind the point, VARYING POINT TO POINT, log-uniform from 3..5 to 64,
                 scaled up only where a visibility bound asks: the per-point noise differs 4x within one series) and `tasks/{env}/eval/acc` + `tasks/{env}/eval/n` (100..400
                 problems, every 10..25 steps, 70 % of the runs), state `tasks/{env}/stage` 0/1/2 in half the runs;
                 steps of 1 (gradient steps), 600..1,500 of them; 3..6 envs.
  score_twopace  generic tensorboardX `train|eval/{env}/reward` (+ `curriculum/{env}/state` in half the runs), Atari-like
                 SCORES 0..1,000 (a + b s, a 0..150, b 500..850), steps of 256 env frames; TWO LOGGING PACES in one run
                 (half the envs log train every iteration, the others every 3..8), evals every 10..20 iterations for
                 all envs in 60 % of the runs; envs UNLOCKED IN 2..3 WAVES; AR(1) noise (phi 0.5..0.9) or gaussian,
                 and in half the runs a DRIFTING NOISE LEVEL (the sd grows or shrinks linearly x0.5 <-> x2 over the
                 run); 4..10 envs, 400..900 iterations.
  cost_long      tensorboardX, a user profile `plant` (`ctl/train|eval/{env}/cost`): a COST (LOWER IS BETTER, read from
                 the metric's name `cost`) that CROSSES ZERO (start +20..+60, the learned top -20..-80: a net energy
                 cost, negative = surplus); HEAVY-TAILED noise (Student t df 3..5, or gaussian with 2 % outliers of
                 8 sd); VERY LONG runs with FEW EVALS: 1,500..3,000 training points (steps of 100), evals every
                 50..120 points (about 25..60 evals in all); 3..5 envs, two from step 0, the others within 10 %.
  many_short     generic W&B OFFLINE run logged with step= (100 steps an iteration): 30..60 envs `{family}-{k}`
                 (rates: binomial over 16..64 episodes for training, 64..128 for evals) UNLOCKED IN WAVES of 5..12,
                 each TRAINED ONLY WHILE ACTIVE (its training rows stop at graduation, as a curriculum that stops
                 sampling graduated tasks does; they come back while a revisited task is active again), evaluated
                 every 5..10 iterations from its unlock to the end, `curriculum/{env}/state` 1/2 logged with every
                 point of the env; 400..600 iterations. Events on at most 10 envs a run, the rest clean.

Truth.  Time is in iterations i = 0..L-1; step(i) = unit x i. Every env has a skill s(i) in [0, 1] (none before its
unlock), mapped to its metric by its expected value (rates: s; scores: a + b s; cost: c0 - b s: skill is always
higher-is-better). A learner goes from s0 to s1 over T iterations (exp, logistic, sqrt or linear) and is flat at s1
from T on. The envs of a run share one scale (starts within 0.02 of the run's, tops within 0.015), so a sibling
shows the top.
  J  judged interval      README's logging pace of the env's training points (the median interval when nearly every
                          interval is a whole multiple of it, else the mean of the intervals under 3 x the median),
                          its evals' pace when it logs only evals
  W  stagnation window    max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation), per env
  G  eval interval        the env's eval pace, else J
  Q  tolerance unit       the coarsest env of the run: max over its envs of max(W / 10, G), in steps = `tolerance_unit`
                          in plan.json (per-env paces differ in score_twopace and tinker_wandb; the scorer has one unit
                          a run); a detection matches a label within 2 Q
"Graduated" (truth) = the skill has reached s0 + 0.9 (s1 - s0) and then held max(0.3 W, 3 G) more; logged states go
to 2 there (many_short stops the env's training there). Healthy learners reach their top within 0.8..2.5 W.

Labels (an env carries at most one; onset in steps; "first point" = the first logged point of the env's
performance, train or eval, at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp over 0.5..1.5 W) fall to
                         s0 + keep (s1 - s0), lasting to the end (>= max(2 W, 15 G)); keep 0.72..0.79 -> warning,
                         0.1..0.6 -> critical (README: critical below 0.70). Onset = first point at or after the true
                         curve first keeps < 0.85 of the gain (README first_step)
  training_stagnation    never: flat at s0 from activation for >= 6 W to the end (onset = its first point); freeze: a
                         learner stops at 0.2..0.5 of its gain (never above 0.5 absolute for a rate: README's 70 %
                         of the range) after a rise of >= max(0.4 W, 6 J), flat and active >= 5 W to the end (onset =
                         first point of the flat stretch). Scores and costs (no bound) only in runs where at least
                         half the envs and two of them learn to the shared top (README: the shared scale shows the top)
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) of points scattered |N(0, 0.2..0.3 gain)|
                         below the held level, then calm >= max(W, 15 G); onset = its first point off by > max(0.15
                         gain, 4 sd)); switch (Markov: held and held - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x that,
                         >= 8 changes, to the end; onset = the first point of the first low phase); or a lifelong
                         oscillation of an env that never learns (sinus from activation, mid at 0.35..0.55 of the
                         scale's gain, peak-to-peak 0.45..0.7 of it, period 8..25 judged points, >= 4 periods; onset
                         = its first point)
  unexpected_transition  logged states: 2 -> 1 after graduation + margin for 0.5..1.5 W, then 2 again; onset = the
                         first logged state point with the backward value
  eval_gap               evaluated envs of runs that also train: after graduation + margin the env's evals stop for the
                         rest of the run (>= max(8 x max(50 steps, G), 2 W) left) while the run goes on; onset = last
                         eval + the env's eval pace (README first_step)
  prolonged_training     a steady riser (0.045..0.06 gain per W, capped at 0.68 of the gain: it never flattens near the
                         top) active >= 12.5 W to the end, in a run whose learners graduate within 3 W (no slow_learner
                         beside it); onset = its first point + 10 W, W from its own logged points (README)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (heavy noise: point sd 0.08..0.12 of
the scale, binomial over 6..10, a count of 3..10; never given a run's drifting noise on top), slow_learner (graduates within 5..7 W), level_shift (+0.03..0.05 gain after
graduation, where a rate has room), single_outlier (one judged point at 0.05 of the gain after graduation), pause
(rises to 0.35..0.6 of its gain, flat 1..2 W, then learns on: README's staircase pause), drift_noise (healthy, its
noise sd drifting x0.5 -> x2 or back over the run: README's per-block noise), and every env of a later wave (healthy,
unlocked late).

Noise (skill units). Visibility bounds (the judged series' point sd at every level the event visits; the other
series, where both are logged, at twice the bound; noise made quieter, same family — more trials for rates,
smaller sd otherwise — until met): regression <= drop / 4; stagnation <= min(0.05, 0.2 x rise); switching <= gap /
5; oscillation <= peak-to-peak / 6; burst base <= min(0.04, burst sd / 4); prolonged riser <= 0.03. For a binomial
rate the sd is sqrt(p (1 - p) / n) at the level (n: the smallest group count for tinker, the geometric mean of the
count's range for userprof_count); for AR(1) and t noise the marginal sd, times the drift multiplier's largest value.
LOW-SIGNAL tier: in tinker_wandb, userprof_count and score_twopace, 30 % of the regressions, freezes and switching
of TRAIN-JUDGED envs (no
evals: Q >= W / 10 = 2 J, so the 2 Q tolerance window holds >= 4 judged points) are allowed twice the point bound
(a fall of >= 2 point sds, a switching gap >= 2.5 sds, a stall's rise >= 2.5 sds): over the tolerance window the
event's mean shift is then still >= 4 standard errors (2 sd / (sd / sqrt 4)), and every such event spans >= 16
judged points (regressions >= 2 W = 40 J, switching phases >= 4 J, bursts are never low-signal). Such labels carry
`tier: "low"` (shape `.../low`).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a tinker tag is trained only in the batches that drew it; its pace is README's (missed points at a whole
    multiple of the median interval count as missed, else the mean of the short intervals);
  - W&B and TensorBoard write the same step at most once per key here (no combined observations);
  - many_short's training rows stop at graduation while its evals and logged states go on: README's curriculum
    evidence and its logged states agree; a never-learner or riser is trained to the end;
  - a cost crossing zero is judged on its own gain (start - top, in cost units): README's relative thresholds;
  - the tolerance unit is the run's coarsest env's, so fast envs of a two-pace run are matched more loosely.
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
CYCLE = ("tinker_wandb", "userprof_count", "score_twopace", "cost_long", "many_short")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
COUNT_CONFIG = """\
profiles:
  tasks:
    patterns:
      - regex: '^tasks/(?P<env>[^/]+)/(?P<split>train|eval)/(?P<metric>acc|n)$'
      - {regex: '^tasks/(?P<env>[^/]+)/stage$', split: state, metric: state}
    performance_metric: acc
    count_metric: n
"""
COST_CONFIG = """\
profiles:
  plant:
    patterns:
      - regex: '^ctl/(?P<split>train|eval)/(?P<env>[^/]+)/(?P<metric>cost)$'
    performance_metric: cost
"""
CONFIGS = {"userprof_count": COUNT_CONFIG, "cost_long": COST_CONFIG}
TAGS = ["gsm8k", "math500", "arith", "countdown", "logic", "sudoku", "codecontest", "aime", "mbpp", "gpqa"]
TASKS = ["add", "sort", "parity", "copy", "reverse", "dyck", "count", "lookup", "modmul"]
GAMES = ["pong", "breakout", "qbert", "seaquest", "freeway", "boxing", "enduro", "asterix", "krull", "tennis", "frostbite"]
PLANTS = ["boiler", "chiller", "pump", "furnace", "turbine", "heatpump"]
FAMILIES = ["maze", "key", "lava", "door", "crossing", "dyn", "memory", "fetch"]
CURVES = ("exp", "logistic", "sqrt", "linear")
GAUSSIAN_FAMILIES = ("gauss", "ar1", "t", "cont")


@dataclass
class Env:
    name: str
    kind: str                       # rate | score | cost
    unlock: int
    s0: float
    s1: float
    T: float = 1.0
    curve: str = "exp"
    noise: tuple = ("gauss", 0.02)
    enoise: tuple | None = None
    tr_its: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    ev_its: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    event: str = "healthy"
    variant: str = ""
    severity: str | None = None
    at: int | None = None
    params: dict = field(default_factory=dict)
    J: float = 1.0
    G: float = 1.0
    W: float = 20.0
    tier: str = "clear"
    drift: tuple | None = None      # noise multiplier m0 -> m1 over the run
    wave: int = 0


# --- curves and truth ----------------------------------------------------------------------------

def f_curve(curve: str, x):
    x = np.clip(np.asarray(x, float), 0.0, 1.0)
    if curve == "exp":
        return (1 - np.exp(-4 * x)) / (1 - math.exp(-4))
    if curve == "logistic":
        lo, hi = 1 / (1 + math.exp(5)), 1 / (1 + math.exp(-5))
        return (1 / (1 + np.exp(-10 * (x - 0.5))) - lo) / (hi - lo)
    if curve == "sqrt":
        return np.sqrt(x)
    return x


def inv_curve(curve: str, y: float) -> float:
    xs = np.linspace(0, 1, 4001)
    return float(xs[np.argmax(f_curve(curve, xs) >= y - 1e-12)])


def learns(env: Env) -> bool:
    return env.variant not in ("never", "freeze", "prolonged", "osc")


def reach90(env: Env) -> float:
    return env.unlock + env.T * inv_curve(env.curve, 0.9)


def grad_it(env: Env) -> float | None:
    if not learns(env):
        return None
    r = reach90(env)
    if env.variant == "pause":
        r += env.params["P"]
    return r + max(0.3 * env.W, 3 * env.G)


def post_start(env: Env) -> float:
    """Earliest iteration for an after-graduation event: graduation, flat top, plus the margin."""
    return max(grad_it(env), env.unlock + env.T) + max(env.W, 10 * env.G)


def truth(env: Env, L: int) -> tuple[np.ndarray, int | None]:
    """Skill per iteration (NaN before the unlock) and the event's true start (iteration) where it has one."""
    s = np.full(L, np.nan)
    i = np.arange(L, dtype=float)
    act = i >= env.unlock
    gain = env.s1 - env.s0
    x = (i - env.unlock) / env.T
    true_at = None
    v = env.variant
    if v == "never":
        s[act] = env.s0
        true_at = env.unlock
    elif v == "osc":
        p = env.params
        s[act] = p["mid"] + p["amp"] * np.sin(2 * np.pi * (i[act] - env.unlock) / p["P"])
        true_at = env.unlock
    elif v == "prolonged":
        s[act] = env.s0 + gain * np.minimum(env.params["rate"] * (i[act] - env.unlock) / env.W, 0.68)
    elif v == "freeze":
        xf = inv_curve(env.curve, env.params["fr"])
        s[act] = env.s0 + gain * f_curve(env.curve, np.minimum(x[act], xf))
        true_at = int(math.ceil(env.unlock + xf * env.T))
    elif v == "pause":
        xf = inv_curve(env.curve, env.params["fr"])
        tf = env.unlock + xf * env.T
        ii = np.where(i < tf, i, np.where(i < tf + env.params["P"], tf, i - env.params["P"]))
        s[act] = env.s0 + gain * f_curve(env.curve, (ii[act] - env.unlock) / env.T)
    else:
        s[act] = env.s0 + gain * f_curve(env.curve, x[act])
    if env.event == "graduated_regression":
        at, keep = env.at, env.params["keep"]
        low = env.s0 + keep * gain
        R = env.params.get("ramp", 0.0)
        after = i >= at
        if R > 0:
            frac = np.clip((i - at) / R, 0, 1)
            s[after] = (env.s1 + (low - env.s1) * frac)[after]
        else:
            s[after] = low
        kept = (s - env.s0) / gain
        true_at = int(np.flatnonzero(after & (kept < 0.85))[0])
    elif env.variant == "switch":
        g = env.params["gap"] * gain
        for a, b in env.params["low_phases"]:
            s[a:b] = env.s1 - g
        true_at = env.at
    elif env.variant == "level_shift":
        s[i >= env.at] += env.params["shift"] * gain
    if env.kind == "rate":
        s = np.where(np.isnan(s), np.nan, np.clip(s, 0.0, 1.0))
    return s, true_at


# --- noise ----------------------------------------------------------------------------------------

def point_sd(noise: tuple, level: float) -> float:
    fam = noise[0]
    if fam == "binom":
        p = min(max(level, 0.0), 1.0)
        return math.sqrt(max(p * (1 - p), 0.25 / noise[1]) / noise[1])
    if fam == "binvar":
        n = math.sqrt(noise[1] * noise[2])
        p = min(max(level, 0.0), 1.0)
        return math.sqrt(max(p * (1 - p), 0.25 / n) / n)
    if fam == "t":
        return noise[1] * math.sqrt(noise[2] / (noise[2] - 2))
    return noise[1]


def quieter(noise: tuple) -> tuple:
    fam = noise[0]
    if fam == "binom":
        return ("binom", int(math.ceil(noise[1] * 1.5)))
    if fam == "binvar":
        return ("binvar", int(math.ceil(noise[1] * 1.5)), int(math.ceil(noise[2] * 1.5)))
    return (fam, noise[1] * 0.8) + tuple(noise[2:])


def drift_max(env: Env) -> float:
    return max(env.drift) if env.drift else 1.0


def shrink(env: Env, limit: float, levels) -> None:
    """Make the judged series (eval where logged, else train) meet `limit` (skill sd) at every level, the other
    series twice it."""
    judged_eval = len(env.ev_its) > 0
    m = drift_max(env)
    for attr, lim in (("noise", limit * (2.0 if judged_eval else 1.0)),
                      ("enoise", limit if judged_eval else None)):
        nz = getattr(env, attr)
        if nz is None or lim is None:
            continue
        if attr == "noise" and not len(env.tr_its):
            continue
        for _ in range(80):
            sd = max(point_sd(nz, lv) for lv in levels) * (m if nz[0] in GAUSSIAN_FAMILIES else 1.0)
            if sd <= lim:
                break
            nz = quieter(nz)
        setattr(env, attr, nz)


def draw(noise: tuple, s: np.ndarray, its: np.ndarray, L: int, rng, drift, counts=None):
    """Noisy skill-unit values (rates: k / n) and the per-point trial counts (NaN where none)."""
    fam = noise[0]
    n_pts = len(s)
    cnt = np.full(n_pts, np.nan)
    if fam == "binom":
        n = np.full(n_pts, noise[1]) if counts is None else counts
        k = rng.binomial(n.astype(int), np.clip(s, 0, 1))
        return k / n, n.astype(float)
    if fam == "binvar":
        n = np.round(np.exp(rng.uniform(math.log(noise[1]), math.log(noise[2]), n_pts))).astype(int)
        n = np.maximum(n, 1)
        k = rng.binomial(n, np.clip(s, 0, 1))
        return k / n, n.astype(float)
    m = np.ones(n_pts) if not drift else drift[0] + (drift[1] - drift[0]) * its / max(L - 1, 1)
    if fam == "gauss":
        e = rng.normal(0, noise[1], n_pts)
    elif fam == "ar1":
        phi = noise[2]
        e = np.zeros(n_pts)
        inn = rng.normal(0, noise[1] * math.sqrt(1 - phi * phi), n_pts)
        prev = rng.normal(0, noise[1])
        for j in range(n_pts):
            prev = phi * prev + inn[j]
            e[j] = prev
    elif fam == "t":
        e = noise[1] * rng.standard_t(noise[2], n_pts)
    elif fam == "cont":
        e = rng.normal(0, noise[1], n_pts)
        out = rng.random(n_pts) < 0.02
        e[out] = rng.choice([-8, 8], out.sum()) * noise[1]
    else:
        raise ValueError(fam)
    return s + e * m, cnt


# --- paces ----------------------------------------------------------------------------------------

def pace(its) -> float:
    its = np.unique(np.asarray(its, float))
    if len(its) < 2:
        return 1.0
    d = np.diff(its)
    med = float(np.median(d))
    r = d / med
    if np.mean(np.abs(r - np.round(r)) < 1e-9) >= 0.9:
        return med
    return float(d[d < 3 * med].mean())


def set_paces(env: Env, run: dict) -> None:
    U, L = run["unit"], run["L"]
    judged = env.tr_its if len(env.tr_its) else env.ev_its
    env.J = pace(judged)
    env.G = pace(env.ev_its) if len(env.ev_its) > 1 else env.J
    env.W = max(min(100.0 / U, 0.1 * (L - 1)), 20 * env.J)


# --- events ---------------------------------------------------------------------------------------

def judged_pace(env: Env) -> float:
    return env.G if len(env.ev_its) else env.J


def learner(env: Env, run: dict, rng) -> None:
    env.T = float(rng.uniform(0.8, 2.5) * env.W)
    env.curve = str(rng.choice(CURVES))


def tier_factor(env: Env, run: dict, rng) -> float:
    if run["convention"] in ("tinker_wandb", "userprof_count", "score_twopace") and not len(env.ev_its) \
            and rng.random() < 0.3:
        env.tier = "low"
        return 2.0
    return 1.0


def place_event(env: Env, ev: str, run: dict, rng) -> bool:
    L = run["L"]
    W, G, J = env.W, env.G, env.J
    gain = env.s1 - env.s0
    learner(env, run, rng)
    if ev == "graduated_regression":
        post = post_start(env)
        dur = max(2 * W, 15 * G)
        R = float(rng.uniform(0.5, 1.5) * W) if rng.random() < 0.45 else 0.0
        if post + R + dur > L - 1:
            return False
        env.at = int(rng.uniform(post, L - 1 - dur - R))
        warn = rng.random() < 0.4
        keep = float(rng.uniform(0.72, 0.79) if warn else rng.uniform(0.1, 0.6))
        env.params.update(keep=keep, ramp=R)
        env.severity = "warning" if warn else "critical"
        env.variant = "gradual" if R else "sudden"
        f = tier_factor(env, run, rng)
        shrink(env, f * (1 - keep) * gain / 4, [env.s1, env.s0 + keep * gain])
    elif ev == "training_stagnation":
        if run["kind"] != "rate":
            pass  # checked for the run as a whole in plan_events
        if rng.random() < 0.4:
            if env.unlock + 6 * W > L - 1:
                return False
            env.variant = "never"
            shrink(env, 0.05, [env.s0])
        else:
            fr_hi = 0.5 if run["kind"] != "rate" else min(0.5, (0.5 - env.s0) / gain)
            if fr_hi < 0.2:
                return False
            fr = float(rng.uniform(0.2, fr_hi))
            xf = inv_curve(env.curve, fr)
            need = max(0.4 * W, 6 * J)
            if xf * env.T < need:
                env.T = need / max(xf, 1e-6) * 1.05
            tf = env.unlock + xf * env.T
            if tf + 5 * W > L - 1:
                return False
            env.variant = "freeze"
            env.params["fr"] = fr
            f = tier_factor(env, run, rng)
            shrink(env, f * min(0.05, 0.2 * fr * gain), [env.s0, env.s0 + fr * gain])
    elif ev == "performance_volatility":
        opts = ["burst", "switch", "osc"]
        rng.shuffle(opts)
        for v in opts:
            if v == "osc":
                P = float(rng.uniform(8, 25) * judged_pace(env))
                if env.unlock + 4 * P > L - 1 or rng.random() < 0.3:
                    continue
                mid = env.s0 + float(rng.uniform(0.35, 0.55)) * gain
                p2p = float(rng.uniform(0.45, 0.7)) * gain
                env.variant = "osc"
                env.params.update(mid=mid, amp=p2p / 2, P=P)
                shrink(env, p2p / 6, [mid - p2p / 2, mid, mid + p2p / 2])
                return True
            post = post_start(env)
            if v == "burst":
                blen = max(W, 20 * G)
                calm = max(W, 15 * G)
                if post + blen + calm > L - 1:
                    continue
                env.at = int(rng.uniform(post, L - 1 - blen - calm))
                bsd = float(rng.uniform(0.2, 0.3)) * gain
                env.variant = "burst"
                env.params.update(length=blen, bsd=bsd)
                shrink(env, min(0.04, bsd / 4), [env.s1])
                return True
            # switch
            dmin = max(4 * J, 4 * G)
            if post + 12 * dmin > L - 1:
                continue
            env.at = int(post)
            f = tier_factor(env, run, rng)
            phases, t, low = [], env.at, True
            while t < L:
                d = int(round(min(dmin + rng.exponential(0.5 * dmin), 3 * dmin)))
                if low:
                    phases.append((t, min(t + d, L)))
                t += d
                low = not low
            changes = 2 * len(phases) - 1
            if changes < 8:
                env.tier = "clear"
                continue
            gap = float(rng.uniform(0.4, 0.6))
            env.variant = "switch"
            env.params.update(gap=gap, low_phases=phases, dwell_min=dmin)
            shrink(env, f * gap * gain / 5, [env.s1, env.s1 - gap * gain])
            return True
        return False
    elif ev == "unexpected_transition":
        if not run["states"]:
            return False
        post = post_start(env)
        ln = float(rng.uniform(0.5, 1.5) * W)
        if post + ln + W > L - 1:
            return False
        env.at = int(rng.uniform(post, L - 1 - ln - W))
        env.variant = "revisit"
        env.params["length"] = ln
    elif ev == "eval_gap":
        if not len(env.ev_its) or not len(env.tr_its) and run["convention"] != "many_short":
            return False
        post = post_start(env)
        left = max(8 * max(50.0 / run["unit"], G), 2 * W)
        if post + left > L - 1:
            return False
        env.at = int(rng.uniform(post, L - 1 - left))
        env.variant = "stop"
    elif ev == "prolonged_training":
        if env.unlock + 12.5 * W > L - 1:
            return False
        env.variant = "prolonged"
        env.params["rate"] = float(rng.uniform(0.045, 0.06))
        shrink(env, 0.03, [env.s0, env.s0 + 0.68 * gain])
    else:
        raise ValueError(ev)
    return True


def place_negative(env: Env, neg: str, run: dict, rng) -> bool:
    L = run["L"]
    W = env.W
    gain = env.s1 - env.s0
    learner(env, run, rng)
    if neg == "slow_learner":
        env.T = float(rng.uniform(5, 7) * W)
        if env.unlock + env.T + 2 * W > L - 1:
            return False
    elif neg == "noisy_healthy":
        if env.noise[0] in ("binom",):
            env.noise = ("binom", int(rng.integers(6, 11)))
        elif env.noise[0] == "binvar":
            env.noise = ("binvar", 3, 10)
        else:
            env.noise = (env.noise[0], float(rng.uniform(0.08, 0.12))) + tuple(env.noise[2:])
        if env.enoise is not None:
            env.enoise = ("binom", int(rng.integers(6, 11))) if env.kind == "rate" else \
                (env.enoise[0], float(rng.uniform(0.08, 0.12))) + tuple(env.enoise[2:])
    elif neg in ("level_shift", "single_outlier"):
        post = post_start(env)
        if post + 2 * W > L - 1:
            return False
        env.at = int(rng.uniform(post, L - 1 - W))
        if neg == "level_shift":
            shift = float(rng.uniform(0.03, 0.05))
            if env.kind == "rate" and env.s1 + shift * gain > 0.99:
                return False
            env.params["shift"] = shift
    elif neg == "pause":
        fr = float(rng.uniform(0.35, 0.6))
        P = float(rng.uniform(1, 2) * W)
        if env.unlock + env.T + P + 2 * W > L - 1:
            return False
        env.params.update(fr=fr, P=P)
    elif neg == "drift_noise":
        if env.noise[0] not in GAUSSIAN_FAMILIES:
            return False
        env.drift = (0.5, 2.0) if rng.random() < 0.5 else (2.0, 0.5)
    elif neg != "healthy":
        raise ValueError(neg)
    env.event = neg
    env.variant = neg
    return True


def plan_events(run: dict, rng, envs: list[Env], pool, neg_pool, p_event: float, max_events: int = 99) -> None:
    n_ev = 0
    order = list(range(len(envs)))
    rng.shuffle(order)
    has_prolonged = False
    for k in order:
        env = envs[k]
        if n_ev < max_events and rng.random() < p_event:
            ev = str(rng.choice(pool))
            if ev == "prolonged_training" and has_prolonged:
                ev = "graduated_regression"
            if place_event(env, ev, run, rng):
                env.event = ev
                n_ev += 1
                has_prolonged |= ev == "prolonged_training"
                continue
            reset(env)
        negs = [n for n in neg_pool if not (has_prolonged and n == "slow_learner")]
        neg = str(rng.choice(negs))
        if not place_negative(env, neg, run, rng):
            reset(env)
            place_negative(env, "healthy", run, rng)
    # a prolonged riser needs siblings that graduate within 3 W (no slow learner), and unbounded stalls need
    # learners beside them (README's shared scale)
    if has_prolonged:
        for env in envs:
            if env.event == "slow_learner":
                reset(env)
                place_negative(env, "healthy", run, rng)
    n_learn = sum(learns(e) for e in envs)
    if run["kind"] != "rate" and (n_learn < 2 or n_learn < len(envs) / 2):
        for env in envs:
            if env.event == "training_stagnation" or env.variant == "osc" or env.event == "prolonged_training":
                reset(env)
                place_negative(env, "healthy", run, rng)


def reset(env: Env) -> None:
    base = env.params.get("_base")
    env.event, env.variant, env.severity, env.at, env.tier, env.drift = "healthy", "", None, None, "clear", None
    env.params = {k: v for k, v in env.params.items() if k in ("_base", "groups", "every")}
    env.noise, env.enoise = base


# --- observation and labels -----------------------------------------------------------------------

def observe(env: Env, run: dict, rng, s: np.ndarray) -> dict:
    L = run["L"]
    gain = env.s1 - env.s0
    out = {}
    judged = "eval" if len(env.ev_its) else "train"
    for split, its, nz in (("train", env.tr_its, env.noise), ("eval", env.ev_its, env.enoise)):
        its = np.asarray(its, int)
        if not len(its):
            out[split] = (its, np.zeros(0), np.zeros(0), np.zeros(0))
            continue
        sk = s[its].copy()
        if env.variant == "burst":
            inb = (its >= env.at) & (its < env.at + env.params["length"])
            sk[inb] = env.s1 - np.abs(rng.normal(0, env.params["bsd"], inb.sum()))
        if env.variant == "single_outlier" and split == judged:
            j = int(np.searchsorted(its, env.at))
            if j < len(its):
                sk[j] = env.s0 + 0.05 * gain
        if env.kind == "rate":
            sk = np.clip(sk, 0, 1)
        counts = run.get("counts", {}).get((env.name, split))
        val, cnt = draw(nz, sk, its, L, rng, env.drift, counts)
        out[split] = (its, sk, val, cnt)
    return out


def to_metric(run: dict, v: np.ndarray) -> np.ndarray:
    if run["kind"] == "rate":
        return v
    return run["a"] + run["b"] * v


def state_series(env: Env, run: dict, its: np.ndarray) -> np.ndarray:
    g = grad_it(env)
    st = np.ones(len(its))
    if g is not None:
        st[its >= math.ceil(g)] = 2
    if env.event == "unexpected_transition":
        st[(its >= env.at) & (its < env.at + env.params["length"])] = 1
    return st


def make_label(run: dict, env: Env, onset: int) -> dict:
    shape = f"{run['convention']}/{env.variant}" + ("/low" if env.tier == "low" else "")
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=shape, variant=env.variant, kind=run["kind"], noise=str(env.noise[0]), tier=env.tier)


def label_for(env: Env, run: dict, obs: dict, true_at: int | None, state_its: np.ndarray | None) -> dict | None:
    if env.event not in EVENTS:
        return None
    U = run["unit"]
    its = np.concatenate([obs["train"][0], obs["eval"][0]])
    sk = np.concatenate([obs["train"][1], obs["eval"][1]])
    order = np.argsort(its, kind="stable")
    its, sk = its[order], sk[order]
    if not len(its):
        return None
    if env.event == "eval_gap":
        ev = obs["eval"][0]
        return make_label(run, env, int(round((ev[-1] + env.G) * U)))
    if env.event == "prolonged_training":
        return make_label(run, env, int(round((its[0] + 10 * env.W) * U)))
    if env.event == "unexpected_transition":
        sits = np.asarray(state_its)
        back = sits[(sits >= env.at) & (sits < env.at + env.params["length"])]
        return make_label(run, env, int(back[0] * U)) if len(back) else None
    if env.variant == "burst":
        gain = env.s1 - env.s0
        sd = max(point_sd(env.noise, env.s1), point_sd(env.enoise, env.s1) if env.enoise else 0.0)
        thr = max(0.15 * gain, 4 * sd)
        off = np.flatnonzero((its >= env.at) & (its < env.at + env.params["length"]) & (env.s1 - sk > thr))
        return make_label(run, env, int(its[off[0]] * U)) if len(off) else None
    t0 = env.unlock if env.variant in ("never", "osc") else true_at
    ok = np.flatnonzero(its >= t0)
    return make_label(run, env, int(its[ok[0]] * U)) if len(ok) else None


# --- conventions: planning ------------------------------------------------------------------------

def scale(run: dict, rng) -> None:
    if run["kind"] == "rate":
        run["s0"], run["s1"] = float(rng.uniform(0.02, 0.12)), float(rng.uniform(0.86, 0.95))
    else:
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.88, 0.98))


def new_env(run: dict, rng, name: str, unlock: int, noise, enoise, wave: int = 0) -> Env:
    e = Env(name=name, kind=run["kind"], unlock=int(unlock),
            s0=float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0, 1)),
            s1=float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0, 1)), noise=noise, enoise=enoise, wave=wave)
    e.params["_base"] = (noise, enoise)
    return e


def waves(rng, n: int, L: int, k: int, latest: float) -> list[int]:
    """Unlock iteration per env: k waves, the first at 0."""
    starts = [0] + sorted(int(rng.uniform(0.12, latest) * L) for _ in range(k - 1))
    return [starts[min(j * k // n, k - 1)] for j in range(n)]


def plan_tinker(run: dict, rng) -> None:
    run.update(kind="rate", unit=1, L=int(rng.integers(260, 421)), states=False)
    scale(run, rng)
    L = run["L"]
    K = int(rng.integers(4, 9))
    names = list(rng.choice(TAGS, K, replace=False))
    nw = int(rng.integers(2, 4))
    unl = waves(rng, K, L, nw, 0.35)
    unl[1] = 0  # a batch always holds two unlocked tags
    gpb = int(rng.integers(4, 9))
    gs = int(rng.choice([4, 8, 16]))
    counts = np.zeros((K, L), int)
    for b in range(L):
        act = [k for k in range(K) if unl[k] <= b]
        pick = rng.choice(act, gpb)
        if len(set(pick.tolist())) < 2:
            pick[0] = rng.choice([k for k in act if k != pick[1]])
        for k in pick:
            counts[k, b] += 1
    evals = rng.random() < 0.7
    E = int(rng.integers(4, 9))
    run.update(groups_per_batch=gpb, group_size=gs, evals=evals, eval_every=E)
    envs = []
    for k in range(K):
        tr = np.flatnonzero(counts[k] > 0)
        ev = np.arange(unl[k] + (E - unl[k] % E) % E, L, E) if evals else np.zeros(0, int)
        e = new_env(run, rng, names[k], unl[k], ("binom", gs), ("binom", int(rng.integers(48, 201))) if evals else None,
                    wave=int(unl[k] > 0))
        e.tr_its, e.ev_its = tr, ev
        e.params["groups"] = counts[k, tr].tolist()
        set_paces(e, run)
        envs.append(e)
    run["envs"] = envs
    plan_events(run, rng, envs, ["graduated_regression", "training_stagnation", "performance_volatility",
                                 "eval_gap", "prolonged_training"],
                ["healthy", "healthy", "noisy_healthy", "slow_learner", "single_outlier", "pause"], p_event=0.5)


def plan_count(run: dict, rng) -> None:
    run.update(kind="rate", unit=1, L=int(rng.integers(600, 1501)), states=bool(rng.random() < 0.5))
    scale(run, rng)
    L = run["L"]
    K = int(rng.integers(3, 7))
    names = list(rng.choice(TASKS, K, replace=False))
    unl = waves(rng, K, L, int(rng.integers(1, 3)), 0.3)
    evals = rng.random() < 0.7
    E = int(rng.integers(10, 26))
    lo = int(rng.integers(3, 6))
    run.update(evals=evals, eval_every=E)
    envs = []
    for k in range(K):
        e = new_env(run, rng, names[k], unl[k], ("binvar", lo, 64), ("binom", int(rng.integers(100, 401))) if evals else None,
                    wave=int(unl[k] > 0))
        e.tr_its = np.arange(unl[k], L)
        e.ev_its = np.arange(unl[k] + (E - unl[k] % E) % E, L, E) if evals else np.zeros(0, int)
        set_paces(e, run)
        envs.append(e)
    run["envs"] = envs
    pool = ["graduated_regression", "training_stagnation", "performance_volatility", "prolonged_training"]
    if evals:
        pool.append("eval_gap")
    if run["states"]:
        pool.append("unexpected_transition")
    plan_events(run, rng, envs, pool, ["healthy", "healthy", "noisy_healthy", "slow_learner", "single_outlier",
                                       "level_shift", "pause"], p_event=0.5)


def plan_score(run: dict, rng) -> None:
    run.update(kind="score", unit=256, L=int(rng.integers(400, 901)), states=bool(rng.random() < 0.5))
    scale(run, rng)
    run["a"], run["b"] = float(rng.uniform(0, 150)), float(rng.uniform(500, 850))
    L = run["L"]
    K = int(rng.integers(4, 11))
    names = list(rng.choice(GAMES, K, replace=False))
    unl = waves(rng, K, L, int(rng.integers(2, 4)), 0.3)
    evals = rng.random() < 0.6
    E = int(rng.integers(10, 21))
    slow_k = int(rng.integers(3, 9))
    drifting = rng.random() < 0.5
    run.update(evals=evals, eval_every=E, slow_every=slow_k, drifting=drifting)
    envs = []
    perm = rng.permutation(K)
    for j in range(K):
        k_every = 1 if perm[j] % 2 == 0 else slow_k
        fam = "ar1" if rng.random() < 0.6 else "gauss"
        sd = float(rng.uniform(0.01, 0.06))
        nz = ("ar1", sd, float(rng.uniform(0.5, 0.9))) if fam == "ar1" else ("gauss", sd)
        enz = ("gauss", float(rng.uniform(0.008, 0.04))) if evals else None
        e = new_env(run, rng, names[j], unl[j], nz, enz, wave=int(unl[j] > 0))
        e.params["every"] = k_every
        e.tr_its = np.arange(unl[j], L, k_every)
        e.ev_its = np.arange(unl[j] + (E - unl[j] % E) % E, L, E) if evals else np.zeros(0, int)
        set_paces(e, run)
        envs.append(e)
    run["envs"] = envs
    pool = ["graduated_regression", "training_stagnation", "performance_volatility", "prolonged_training"]
    if evals:
        pool.append("eval_gap")
    if run["states"]:
        pool.append("unexpected_transition")
    negs = ["healthy", "healthy", "noisy_healthy", "slow_learner", "single_outlier", "level_shift", "pause",
            "drift_noise"]
    plan_events(run, rng, envs, pool, negs, p_event=0.45)
    if drifting:  # the run's noise level drifts for every gaussian env (a negative's drift stays as planned)
        d = (0.5, 2.0) if rng.random() < 0.5 else (2.0, 0.5)
        for e in envs:
            if e.drift is None and e.event != "noisy_healthy":
                e.drift = d
                # the events' visibility bounds hold at the drift's largest multiplier: re-shrink
                reshrink(e)


def reshrink(e: Env) -> None:
    gain = e.s1 - e.s0
    if e.event == "graduated_regression":
        keep = e.params["keep"]
        f = 2.0 if e.tier == "low" else 1.0
        shrink(e, f * (1 - keep) * gain / 4, [e.s1, e.s0 + keep * gain])
    elif e.variant == "freeze":
        f = 2.0 if e.tier == "low" else 1.0
        shrink(e, f * min(0.05, 0.2 * e.params["fr"] * gain), [e.s0])
    elif e.variant == "never":
        shrink(e, 0.05, [e.s0])
    elif e.variant == "burst":
        shrink(e, min(0.04, e.params["bsd"] / 4), [e.s1])
    elif e.variant == "switch":
        f = 2.0 if e.tier == "low" else 1.0
        shrink(e, f * e.params["gap"] * gain / 5, [e.s1, e.s1 - e.params["gap"] * gain])
    elif e.variant == "osc":
        shrink(e, e.params["amp"] / 3, [e.params["mid"]])
    elif e.variant == "prolonged":
        shrink(e, 0.03, [e.s0])


def plan_cost(run: dict, rng) -> None:
    run.update(kind="cost", unit=100, L=int(rng.integers(1500, 3001)), states=False)
    scale(run, rng)
    c0 = float(rng.uniform(20, 60))
    top = float(rng.uniform(-80, -20))
    run["a"], run["b"] = c0, (top - c0) / run["s1"]  # cost = c0 + b s, b < 0
    L = run["L"]
    K = int(rng.integers(3, 6))
    names = list(rng.choice(PLANTS, K, replace=False))
    E = int(rng.integers(50, max(51, min(120, (L - 150) // 25))))
    run.update(evals=True, eval_every=E)
    envs = []
    for j in range(K):
        unlock = 0 if j < 2 else int(rng.integers(0, max(1, L // 10)))
        if rng.random() < 0.6:
            nz = ("t", float(rng.uniform(0.01, 0.04)), float(rng.uniform(3, 5)))
            enz = ("t", float(rng.uniform(0.006, 0.025)), float(rng.uniform(3, 5)))
        else:
            nz = ("cont", float(rng.uniform(0.01, 0.05)))
            enz = ("cont", float(rng.uniform(0.006, 0.03)))
        e = new_env(run, rng, names[j], unlock, nz, enz)
        e.tr_its = np.arange(unlock, L)
        e.ev_its = np.arange(unlock + (E - unlock % E) % E, L, E)
        set_paces(e, run)
        envs.append(e)
    run["envs"] = envs
    plan_events(run, rng, envs, ["graduated_regression", "training_stagnation", "performance_volatility",
                                 "eval_gap", "prolonged_training"],
                ["healthy", "healthy", "noisy_healthy", "single_outlier", "level_shift", "pause", "drift_noise"],
                p_event=0.5)


def plan_many(run: dict, rng) -> None:
    run.update(kind="rate", unit=100, L=int(rng.integers(400, 601)), states=True)
    scale(run, rng)
    L = run["L"]
    K = int(rng.integers(30, 61))
    fams = list(rng.choice(FAMILIES, 3, replace=False))
    names = [f"{fams[j % 3]}-{j:02d}" for j in range(K)]
    wsize = int(rng.integers(5, 13))
    nw = int(math.ceil(K / wsize))
    gapw = int(rng.integers(25, 45))
    last = max(L - 1 - 6 * 20, 0)
    E = int(rng.integers(5, 11))
    run.update(evals=True, eval_every=E, wave_size=wsize, wave_gap=gapw)
    envs = []
    for j in range(K):
        unlock = min((j // wsize) * gapw, last)
        e = new_env(run, rng, names[j], unlock, ("binom", int(rng.integers(16, 65))),
                    ("binom", int(rng.integers(64, 129))), wave=j // wsize)
        e.tr_its = np.arange(unlock, L)
        e.ev_its = np.arange(unlock + (E - unlock % E) % E, L, E)
        set_paces(e, run)
        envs.append(e)
    run["envs"] = envs
    plan_events(run, rng, envs, ["graduated_regression", "training_stagnation", "performance_volatility",
                                 "eval_gap", "prolonged_training", "unexpected_transition"],
                ["healthy", "healthy", "healthy", "noisy_healthy", "single_outlier", "level_shift"],
                p_event=0.25, max_events=10)
    # training rows stop at graduation (back while a revisited task is active again)
    for e in envs:
        g = grad_it(e)
        if g is None:
            continue
        keep = e.tr_its < math.ceil(g)
        if e.event == "unexpected_transition":
            keep |= (e.tr_its >= e.at) & (e.tr_its < e.at + e.params["length"])
        e.tr_its = e.tr_its[keep]


def finish_run(run: dict) -> None:
    for e in run["envs"]:
        if e.event == "eval_gap":
            e.ev_its = e.ev_its[e.ev_its < e.at]
    run["Q"] = max(max(e.W / 10, e.G) for e in run["envs"])
    run["W"] = float(np.median([e.W for e in run["envs"]]))
    run["G"] = float(np.median([e.G for e in run["envs"]]))


# --- conventions: writing -------------------------------------------------------------------------

def _writers():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import writers

    return writers


def write_tinker(folder: Path, run: dict, data: dict, rng) -> None:
    L = run["L"]
    rows = [dict() for _ in range(L)]
    for e in run["envs"]:
        tr_its, _sk, val, cnt = data[e.name]["train"]
        gs = e.noise[1]
        for it, v, n in zip(tr_its, val, cnt):
            r = rows[it]
            k = int(round(v * n))
            ng = max(1, int(round(n / gs)))
            r[f"env/{e.name}/reward/total"] = float(v)
            r[f"env/{e.name}/correct"] = float(v)
            r[f"env/{e.name}/format"] = float(min(1.0, 0.93 + 0.07 * rng.random()))
            r[f"env/{e.name}/total_episodes"] = float(n)
            allgood = float(rng.binomial(ng, v ** min(gs, 6)) / ng)
            allbad = float(rng.binomial(ng, (1 - v) ** min(gs, 6)) / ng)
            r[f"env/{e.name}/by_group/frac_all_good"] = allgood
            r[f"env/{e.name}/by_group/frac_all_bad"] = allbad
            r[f"env/{e.name}/by_group/frac_mixed"] = max(0.0, 1 - allgood - allbad)
            r.setdefault("_k", 0)
            r["_k"] += k
            r.setdefault("_n", 0)
            r["_n"] += n
        ev_its, _sk, val, _cnt = data[e.name]["eval"]
        for it, v in zip(ev_its, val):
            rows[it][f"test/env/{e.name}/reward/total"] = float(v)
    steps = []
    out = []
    for b, r in enumerate(rows):
        k, n = r.pop("_k", 0), r.pop("_n", 0)
        r["env/all/reward/total"] = float(k / n) if n else 0.0
        r["env/all/total_episodes"] = float(n)
        tests = [v for kk, v in r.items() if kk.startswith("test/env/")]
        if tests:
            r["test/env/all/reward/total"] = float(np.mean(tests))
        r["optim/lr"] = 4e-5
        r["progress/done_frac"] = (b + 1) / L
        r["time/total"] = 20.0 + 3 * rng.random()
        out.append(r)
        steps.append(b)
    _writers().write_wandb(folder / "wandb", out, steps=steps, run_id=run["trial_id"], name=run["name"])


def write_count(folder: Path, run: dict, data: dict, rng) -> None:
    series: dict[str, list] = {}
    for e in run["envs"]:
        for split in ("train", "eval"):
            its, _sk, val, cnt = data[e.name][split]
            series[f"tasks/{e.name}/{split}/acc"] = [(int(i), float(v)) for i, v in zip(its, val)]
            series[f"tasks/{e.name}/{split}/n"] = [(int(i), float(n)) for i, n in zip(its, cnt)]
        if run["states"]:
            series[f"tasks/{e.name}/stage"] = [(int(i), float(v)) for i, v in zip(*data[e.name]["state"])]
    series["optim/lr"] = [(i, 1e-5) for i in range(0, run["L"], 50)]
    _writers().write_tb(folder, {k: v for k, v in series.items() if v})


def write_score(folder: Path, run: dict, data: dict, rng) -> None:
    U = run["unit"]
    series: dict[str, list] = {}
    for e in run["envs"]:
        for split in ("train", "eval"):
            its, _sk, val, _cnt = data[e.name][split]
            series[f"{split}/{e.name}/reward"] = [(int(i * U), float(v)) for i, v in zip(its, to_metric(run, val))]
        if run["states"]:
            series[f"curriculum/{e.name}/state"] = [(int(i * U), float(v)) for i, v in zip(*data[e.name]["state"])]
    series["time/fps"] = [(i * U, 3000.0 + 200 * rng.random()) for i in range(0, run["L"], 10)]
    _writers().write_tb(folder, {k: v for k, v in series.items() if v})


def write_cost(folder: Path, run: dict, data: dict, rng) -> None:
    U = run["unit"]
    series: dict[str, list] = {}
    for e in run["envs"]:
        for split in ("train", "eval"):
            its, _sk, val, _cnt = data[e.name][split]
            series[f"ctl/{split}/{e.name}/cost"] = [(int(i * U), float(v)) for i, v in zip(its, to_metric(run, val))]
    _writers().write_tb(folder, {k: v for k, v in series.items() if v})


def write_many(folder: Path, run: dict, data: dict, rng) -> None:
    U, L = run["unit"], run["L"]
    rows = [dict() for _ in range(L)]
    for e in run["envs"]:
        for split in ("train", "eval"):
            its, _sk, val, _cnt = data[e.name][split]
            for i, v in zip(its, val):
                rows[i][f"{split}/{e.name}/reward"] = float(v)
        for i, v in zip(*data[e.name]["state"]):
            rows[i][f"curriculum/{e.name}/state"] = float(v)
    keep = [i for i in range(L) if rows[i]]
    _writers().write_wandb(folder / "wandb", [rows[i] for i in keep], steps=[i * U for i in keep],
                           run_id=run["trial_id"], name=run["name"])


PLANNERS = {"tinker_wandb": (plan_tinker, write_tinker), "userprof_count": (plan_count, write_count),
            "score_twopace": (plan_score, write_score), "cost_long": (plan_cost, write_cost),
            "many_short": (plan_many, write_many)}


def series_for(run: dict, rng) -> tuple[dict, list[dict]]:
    data, labels = {}, []
    for e in run["envs"]:
        s, true_at = truth(e, run["L"])
        if run["convention"] == "tinker_wandb":
            run.setdefault("counts", {})[(e.name, "train")] = np.asarray(e.params["groups"], int) * e.noise[1]
        d = observe(e, run, rng, s)
        st_its = None
        if run["states"]:
            st_its = np.union1d(np.union1d(d["train"][0], d["eval"][0]),
                                np.asarray([e.unlock] + ([math.ceil(grad_it(e))] if grad_it(e) is not None else [])
                                           + ([e.at, int(math.ceil(e.at + e.params["length"]))]
                                              if e.event == "unexpected_transition" else []), int))
            st_its = st_its[(st_its >= e.unlock) & (st_its < run["L"])]
            d["state"] = (st_its, state_series(e, run, st_its))
        data[e.name] = d
        lab = label_for(e, run, d, true_at, st_its)
        if lab is not None:
            labels.append(lab)
        elif e.event in EVENTS:  # nothing logged where the event is: it is no event of the log
            e.event, e.variant = "healthy", "unlabelled"
    return data, labels


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)
    plans = []
    for i in range(n_runs):
        conv = CYCLE[i % len(CYCLE)]
        run = dict(name=f"n{i:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        run["trial_id"] = f"n{zlib.crc32(f'ninth-{seed}-{i}'.encode()) & 0xFFFFFF:06x}"
        PLANNERS[conv][0](run, np.random.default_rng(run["seed"]))
        finish_run(run)
        plans.append(run)
    labels: list[dict] = []
    for run in plans:
        rrng = np.random.default_rng(run["seed"] + 1)
        conv = run["convention"]
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        data, lab = series_for(run, rrng)
        PLANNERS[conv][1](folder, run, data, rrng)
        labels += lab
        U = run["unit"]
        meta = {k: v for k, v in run.items() if k not in ("envs", "counts")}
        meta.update(tolerance_unit=int(round(run["Q"] * U)), window_steps=run["W"] * U,
                    eval_every=int(round(run["G"] * U)))
        meta["envs"] = [{"name": e.name, "kind": e.kind, "event": e.event, "variant": e.variant, "curve": e.curve,
                         "severity": e.severity, "tier": e.tier, "noise": list(e.noise),
                         "eval_noise": list(e.enoise) if e.enoise else None, "drift": e.drift, "unlock": e.unlock,
                         "wave": e.wave, "T": e.T, "at": e.at, "s0": e.s0, "s1": e.s1, "J": e.J, "G": e.G,
                         "W": e.W, "graduated_it": grad_it(e),
                         "params": {k: v for k, v in e.params.items() if k not in ("_base", "groups")}}
                        for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
