"""The eleventh detection corpus (`python benchmarks/detection.py --corpus eleventh`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction,
logging shapes, what `unknown` means, the noise section; the design notes; log-conventions.md), without reading
the rules' or the analysis code, and without looking at which cases curriwatch misses. Meant to be read for its
totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-eleventh-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen for what the ten other corpora cover least (their docstrings: no
torch `SummaryWriter.add_scalars` layout with its `{main_tag}_{key}` underscore subfolders, no TF2-style TENSOR
scalars (`.v2` event files), no RLlib old-API `custom_metrics/{k}_mean|_min|_max`, no CleanRL `dqn.py`, no returns
with a FLOOR (timeouts) other than 0, no bimodal per-episode noise (timeout or goal), no episode lengths that move
the step counter as the agent learns, no W&B group of worker runs in generic keys, no re-locked envs (2 -> 0 -> 2),
no runs of tens of points beside runs of thousands, no healthy slow sag after graduation):

  torch_scalars  torch.utils.tensorboard's layout (reproduced with tensorboardX's FileWriter, call for call as
                 torch/utils/tensorboard/writer.py add_scalars: one FileWriter per key in the subfolder
                 `{log_dir}/{main_tag.replace("/", "_")}_{key}`, its tag the main tag, simple_value scalars; the
                 root writer holds only the file version and a `charts/learning_rate` add_scalar(new_style=True),
                 a TENSOR scalar): `add_scalars("return/train", {env: v})`, `add_scalars("return/eval", …)` at
                 IRREGULAR times (gaps 0.5..1.5 x the mean 5..15 points) in 70 % of the runs,
                 `add_scalars("curriculum/state", {env: 0/1/2})` in half; README reads `a_b_x` as tag `a/b/x`;
                 a user profile `torchlab` (`return/(train|eval)/{env}`, `curriculum/state/{env}`). Steps in ENV
                 FRAMES (4,096 or 16,384 a point). Returns with a FLOOR: MountainCar-like (timeout -200, learned
                 top -130..-80) or Acrobot-like (-500, top -110..-70); a point is the mean of 4..16 episodes, each
                 max(floor, floor + span (s + sigma Z)) with sigma 0.15..0.4: the noise is clipped at the floor
                 (a never-learner sits near it, its noise squeezed). 3..7 envs in 1..3 waves.
  tune_custom    a Ray Tune trial (tests/writers.write_tune_trial: Ray's JSON + CSV logger calls) of RLlib's OLD
                 API stack training one multi-task env: per task `custom_metrics/{task}_success_mean|_min|_max`
                 and `custom_metrics/{task}_len_mean` (RLlib's custom metric summary), `evaluation/custom_metrics/
                 {task}_success_mean` every 3..10 iterations of 20..50 episodes a task (70 %), `episode_reward_
                 mean`, `episodes_this_iter`, step `timesteps_total` (4,000 an iteration); a task's keys appear
                 only once it is unlocked (in result.json alone: the CSV header is the first result's) and are
                 ABSENT in an iteration where none of its episodes finished; a user profile `rllib_tasks` with
                 `step_key: timesteps_total`, forced with `profile:` (the built-in `tune` profile claims every
                 `custom_metrics/…` key as a metric of the trial's one env, so it would claim more). The success
                 mean is over the task's finished episodes of the iteration, a Poisson(3..20) number of them:
                 BINOMIAL NOISE WHOSE n CHANGES EVERY POINT, no count column. 30 % of the runs are SHORT (40..90
                 iterations: only clean negatives, some still rising at the end), the others long (400..800).
  cleanrl_dqn    CleanRL `dqn.py` (tests/rl_writers: its run name and hyperparameter text; the loop of
                 cleanrl/dqn.py :163-216 reproduced): `charts/episodic_return` and `charts/episodic_length` per
                 finished episode at its global_step, `losses/td_loss`, `losses/q_values`, `charts/SPS` every 100
                 steps after learning_starts, and in half the folders the saved model's `eval/episodic_return`
                 at steps 0..9 (README: left out); 1..2 folders `{EnvId}__dqn__{seed}__{time}` per benchmark run,
                 each its own one-env curriwatch run. MountainCar-v0 (timeout -200, goal in 100..140 steps) or
                 Acrobot-v1 (timeout -500, goal in 200..300 steps): an episode either TIMES OUT (the floor, exactly)
                 or reaches the goal in N(Lg, 0.05..0.15 span) steps — BIMODAL single-episode noise — and its
                 length is its step count, so the STEP COUNTER'S PACE CHANGES AS THE AGENT LEARNS. Skill = the
                 probability of reaching the goal. 300..700 episodes.
  tf2_tensor     TF2-style `tf.summary.scalar` output (tensorboardX's FileWriter, `.v2` file suffix, every value
                 a TENSOR scalar: DT_FLOAT, plugin `scalars`) in the generic layout `train|eval/{env}/reward`
                 (+ `curriculum/{env}/state` in half the runs); LONG runs at steps of 1 (1,200..3,000 points, so
                 README's window is its plain 100 steps); rewards a + b s (a -1..-0.2, b 1..1.8); Laplace noise
                 or gaussian noise with 2 % DOWNWARD outliers of 5..8 sd (a crashed episode); evals every 20..60
                 steps (60 %); 3..6 envs in 1..2 waves. Logged states: a graduated env may be REVISITED (2 -> 1 ->
                 2) or RE-LOCKED (2 -> 0 -> 2, its training rows absent while locked).
  wandb_group    SEVERAL W&B OFFLINE RUNS OF ONE EXPERIMENT (tests/writers.write_wandb with step= and `group=`): 2..3
                 worker runs `{exp}-worker{k}`, each training its share of the experiment's tasks (dealt round
                 robin), generic keys
                 `train|eval/{env}/success` and `curriculum/{env}/state` as the WORDS locked / active / graduated
                 (60 %); README groups them into one run. Steps are UPDATES (1 an iteration: README's window is
                 then 10 % of the run's span) or ENV FRAMES (2,048 an iteration); success rates binomial over
                 16..64 episodes, evals every 5..15 iterations over 64..128 (70 %); 3..7 tasks in 1..3 waves.

Truth. Each env has a skill curve s (higher is better, in [0, 1]) on its point grid (one point an iteration — an
episode in cleanrl_dqn — from its unlock), mapped to its metric by value = a + b s; noise is drawn around it. A
learner goes from s0 to s1 over T points (exp, logistic, sqrt or linear) and is flat at s1 after. The envs of a
multi-env run share one scale (s0 within 0.02 of the run's, s1 within 0.015). e is the EXPECTED JUDGED series in
skill units: s itself, except torch_scalars, where it is E[max(0, s + sigma Z)] (the floor clips the episodes: the
mean's expectation is above s near the floor). E0 = e(s0), E1 = e(s1); all fractions of the gain below are of
E1 - E0 and read on e (in torch_scalars a planned level is set by inverting e).
  J  judged interval     the env's training logging pace in steps, README's: the median interval when nearly every
                         interval is a whole multiple of it, else the mean of the intervals under 3 x the median
                         (cleanrl_dqn: from the written episode steps; elsewhere the step unit U)
  W  stagnation window   max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation), in steps;
                         events are placed with W in points (cleanrl_dqn: 20 x floor / Lg points, never fewer
                         than the window's points at any pace)
  G  eval interval       the env's eval pace (README's, from its written eval steps), else J
  Q  tolerance unit      the coarsest env of the benchmark run: max over its envs of max(W / 10, G), in steps =
                         `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer's rule)
"Graduated" (truth) = e has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more; logged states go to 2
there. Healthy learners reach their top within 0.8..2.5 W (short tune runs: within 0.15..0.4 of the run).

Labels (an env carries at most one; onset in steps; "first point" = the env's first logged point, train or eval,
at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp over 0.5..1.5 W) fall to
                         keep 0.72..0.79 (warning) or 0.1..0.6 (critical; cleanrl_dqn 0..0.35) of the gain, lasting
                         to the end (>= max(2 W, 15 G)). Onset = first point at which e keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point — in a
                         multi-env run beside >= 2 siblings (and half the envs) that learn to the shared top; in
                         cleanrl_dqn README's "only env of a run that never learned" (an agent that always times
                         out: its points are the floor exactly). freeze (multi-env runs only): a linear rise of >=
                         max(0.4 W, 6 J) to 0.2..0.5 of the gain (a rate never above 0.5), then flat and active >= 5
                         W to the end; onset = first point of the flat stretch
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) points of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 G); onset = first burst point off by >
                         max(0.15 gain, 4 sd)); switch (Markov: s1 and s1 - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x
                         that, >= 8 changes, to the end; onset = first point of the first low phase); lifelong
                         oscillation of an env that never learns (sinus from activation, mid 0.35..0.55 of the gain,
                         peak-to-peak 0.45..0.7 of it, period 8..25 points, >= 4 periods; onset = its first point).
                         Multi-env runs only
  unexpected_transition  logged states (torch_scalars, tf2_tensor, wandb_group): after graduation + margin the state
                         goes back for 0.5..1.5 W — to 1 (revisited) or, in tf2_tensor, to 0 (re-locked, its training
                         rows absent meanwhile) — then 2 again; onset = the first logged state point with the
                         backward value
  eval_gap               evaluated envs: after graduation + margin the env's evals stop for the rest of the run (>=
                         max(5 x max(50 steps, G), 2 W) of steps left, README fires past 3 x) while its training
                         goes on; onset = last eval + G (README first_step)
  prolonged_training     a steady linear riser (0.62 of the gain spread over its whole active life of >= 12.5 W, so
                         0.04..0.05 gain per W: it never flattens near the top) active to the end, in a run whose
                         learners graduate within 3 W (no slow learner beside it); onset = its first point + 10 W.
                         Multi-env long runs only
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's noise at its
heaviest: 2..3 episodes a point in torch_scalars, Poisson(2..4) episodes in tune_custom, binomial over 4..8 trials in
wandb_group — README's binomial noise of small batches —, Laplace or outlier scale doubled in tf2_tensor; quieted
only as far as its gain >= 5 sd), slow_learner
(graduates within 4..6 W), level_shift (+0.04..0.06 gain after graduation, where a rate has room), single_outlier
(one point at s0 + 0.05 gain after graduation; not cleanrl_dqn, where single bad episodes are the noise itself),
sag (tf2_tensor: after graduation a slow straight drift over 2..6 W down to keep 0.90..0.94, then flat: above
README's 0.85 line), leaky_top (cleanrl_dqn: the learned goal rate only 0.88..0.94, so timeouts keep coming at the
top), still_rising (short tune runs: a learner cut off by the run's end at 0.5..0.8 of its gain, active far less
than 10 W), and every env of a later wave.

Noise and visibility (skill units: the share of the gain). The judged series' point sd at every level the event
visits must meet a bound; noise is made quieter (same family: more episodes or trials, a smaller scale) until it
does: regression drop >= 4 sd; stall (freeze) rise >= 5 sd, a never-learner's gap to the siblings' top >= 6 sd;
switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst base sd <= min(0.04, burst sd / 4); prolonged riser
sd <= 0.015; healthy learners' gain >= 8 sd (noisy_healthy >= 5 sd). sd per family: clipped episodes sigma /
sqrt(n) (the unclipped bound); binomial sqrt(p(1-p)/n); Poisson-many episodes as binomial over max(1, lambda - 2
sqrt(lambda)); Laplace sqrt(2) b; gaussian with outliers sigma sqrt(1 + 0.02 k^2); cleanrl_dqn's single episodes
sqrt(p(1-p) + p sigma_L^2) / sqrt(10): the bound is on the mean of 10 episodes (half a window), as a single
episode's outcome is a coin — where that cannot meet the bound the event is not planted there.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - cleanrl_dqn's one-env folders carry only events README defines without siblings (a stall = never learned);
  - the tolerance unit is the run's coarsest env's;
  - a re-locked env is not trained while locked (its training rows stop), its evals go on;
  - a wandb_group benchmark run is its whole folder (the scorer names runs by their first path component).
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
CYCLE = ("torch_scalars", "tune_custom", "cleanrl_dqn", "tf2_tensor", "wandb_group")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "torch_scalars": """\
profiles:
  torchlab:
    patterns:
      - {regex: '^return/(?P<split>train|eval)/(?P<env>[^/]+)$', metric: return}
      - {regex: '^curriculum/state/(?P<env>[^/]+)$', split: state, metric: state}
    performance_metric: return
""",
    "tune_custom": """\
profiles:
  rllib_tasks:
    patterns:
      - {regex: '^custom_metrics/(?P<env>[a-z0-9-]+)_(?P<metric>success_mean|success_min|success_max|len_mean)$', split: train}
      - {regex: '^evaluation/custom_metrics/(?P<env>[a-z0-9-]+)_(?P<metric>success_mean|success_min|success_max|len_mean)$', split: eval}
    performance_metric: success_mean
    step_key: timesteps_total
profile: rllib_tasks
""",
    "wandb_group": "performance_metric: success\n",
}
TASKS = ["reach", "push", "pick-place", "door-open", "drawer-close", "button-press", "window-open", "peg-insert",
         "lever-pull"]
MAZES = ["maze-s", "maze-m", "maze-l", "keycorridor", "lavagap", "doorkey", "unlock", "obstructed", "crossing"]
GAMES = ["pong", "catch", "breakout", "freeway", "invaders", "asterix", "seaquest", "boxing", "tennis"]
SKILLS = ["arith", "logic", "sorting", "parity", "copy", "reverse", "addition", "count", "dedup"]
CURVES = ("exp", "logistic", "sqrt", "linear")
MULTI = ("torch_scalars", "tune_custom", "tf2_tensor", "wandb_group")


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
    G: int | None = None       # mean eval gap in points (None: no evals)
    at: int | None = None
    L: int = 0                 # points of the env's grid (cleanrl_dqn: its episodes)
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
    L = env.L
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
    elif v == "still_rising":
        s[on] = env.s0 + g * np.minimum(x[on] / env.T, 1.0)
    else:
        s[on] = env.s0 + g * f_curve(env.curve, x[on] / env.T)
    return s


def _phi(z):
    return np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)


def _Phi(z):
    z = np.asarray(z, dtype=float)
    return 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2))) if z.ndim else 0.5 * (1 + math.erf(z / math.sqrt(2)))


def judged(conv: str, env: Env, s):
    """The expected judged value in skill units: E[max(0, s + sigma Z)] for torch_scalars' floored episodes."""
    s = np.asarray(s, dtype=float)
    if conv != "torch_scalars":
        return s.copy() if s.ndim else float(s)
    sig = env.noise[1]
    z = s / sig
    out = s * _Phi(z) + sig * _phi(z)
    return out


def inv_judged(conv: str, env: Env, target: float) -> float:
    if conv != "torch_scalars":
        return float(target)
    lo, hi = -1.0, 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if judged(conv, env, mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def ends(conv: str, env: Env) -> tuple[float, float]:
    return float(judged(conv, env, env.s0)), float(judged(conv, env, env.s1))


def grad_point(conv: str, env: Env, e: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc", "still_rising"):
        return None
    E0, E1 = ends(conv, env)
    thr = E0 + 0.9 * (E1 - E0)
    hit = np.flatnonzero(e >= thr - 1e-12)
    if not len(hit):
        return None
    hold = max(0.3 * W, 3 * (env.G or 1))
    return int(math.ceil(hit[0] + hold))


# --- noise -----------------------------------------------------------------------------------------

def point_sd(noise: tuple, s: float) -> float:
    """Point sd in skill units at skill s."""
    kind = noise[0]
    s = float(np.clip(s, 0.0, 1.0))
    p = min(max(s, 0.01), 0.99)
    if kind == "binom":
        return math.sqrt(p * (1 - p) / noise[1])
    if kind == "pois":
        lam = noise[1]
        n = max(1.0, lam - 2 * math.sqrt(lam))
        return math.sqrt(p * (1 - p) / n)
    if kind == "clipep":
        return noise[1] / math.sqrt(noise[2])
    if kind == "laplace":
        return math.sqrt(2) * noise[1]
    if kind == "contam":
        return noise[1] * math.sqrt(1 + 0.02 * noise[2] ** 2)
    if kind == "mix":
        return math.sqrt(s * (1 - s) + s * noise[1] ** 2) / math.sqrt(10)
    return noise[1]


def quieter(noise: tuple) -> tuple:
    kind = noise[0]
    if kind == "binom":
        return ("binom", int(math.ceil(noise[1] * 1.5)))
    if kind == "pois":
        return ("pois", noise[1] * 1.5)
    if kind == "clipep":
        return ("clipep", noise[1], int(math.ceil(noise[2] * 1.5)))
    if kind == "contam":
        return ("contam", noise[1] * 0.8, noise[2])
    if kind == "mix":
        return noise  # a coin cannot be made quieter
    return (kind, noise[1] * 0.8) + tuple(noise[2:])


def draw(noise: tuple, m: np.ndarray, rng) -> np.ndarray:
    """One noisy draw (skill units) around skill array m."""
    kind = noise[0]
    if kind == "binom":
        return rng.binomial(int(noise[1]), np.clip(m, 0.0, 1.0)) / int(noise[1])
    if kind == "clipep":
        sig, n = noise[1], int(noise[2])
        eps = np.maximum(m[:, None] + rng.normal(0.0, sig, size=(len(m), n)), 0.0)
        return eps.mean(axis=1)
    if kind == "laplace":
        return m + rng.laplace(0.0, noise[1], size=m.shape)
    if kind == "contam":
        z = rng.normal(0.0, noise[1], size=m.shape)
        out = rng.random(m.shape) < 0.02
        z[out] -= noise[2] * noise[1]
        return m + z
    return m + rng.normal(0.0, noise[1], size=m.shape)


# --- planning --------------------------------------------------------------------------------------

def window(run: dict, env: Env | None = None) -> float:
    """W in points: max(min(100 steps, 10 % span), 20 J); cleanrl_dqn: 20 x floor / Lg points (placement)."""
    if run["convention"] == "cleanrl_dqn":
        e = env or run["envs"][0]
        return 20.0 * e.params.get("floor", run["floor"]) / e.params["Lg"]
    U, L = run["unit"], run["L"]
    return max(min(100.0 / U, 0.1 * (L - 1)), 20.0)


def make_visible(run: dict, env: Env, levels, limit: float) -> bool:
    """Quiet env.noise (and env.enoise) until the point sd at every level is <= limit (skill units)."""
    for _ in range(40):
        if max(point_sd(env.noise, lv) for lv in levels) <= limit:
            break
        q = quieter(env.noise)
        if q == env.noise:
            return False
        env.noise = q
    if env.enoise is not None:
        for _ in range(40):
            if max(point_sd(env.enoise, lv) for lv in levels) <= limit:
                break
            env.enoise = quieter(env.enoise)
    return max(point_sd(env.noise, lv) for lv in levels) <= limit + 1e-12


def default_noise(run: dict, rng, heavy: bool = False) -> tuple:
    conv = run["convention"]
    if conv == "torch_scalars":
        return ("clipep", float(rng.uniform(0.15, 0.4)), int(rng.integers(2, 4)) if heavy else int(rng.integers(4, 17)))
    if conv == "tune_custom":
        return ("pois", float(rng.uniform(2, 4)) if heavy else float(rng.uniform(3, 20)))
    if conv == "cleanrl_dqn":
        return ("mix", float(rng.uniform(0.1, 0.2) if heavy else rng.uniform(0.05, 0.15)))
    if conv == "tf2_tensor":
        k = 2.0 if heavy else 1.0
        if rng.random() < 0.5:
            return ("laplace", float(rng.uniform(0.015, 0.04) * k))
        return ("contam", float(rng.uniform(0.02, 0.05) * k), float(rng.uniform(5, 8)))
    return ("binom", int(rng.integers(4, 9)) if heavy else int(rng.integers(16, 65)))


def eval_noise(run: dict, rng) -> tuple | None:
    conv = run["convention"]
    if conv == "torch_scalars":
        return ("clipep", None, int(rng.integers(10, 31)))  # sigma: the env's own episodes
    if conv == "tune_custom":
        return ("binom", int(rng.integers(20, 51)))
    if conv == "tf2_tensor":
        return ("gauss", float(rng.uniform(0.01, 0.025)))
    if conv == "wandb_group":
        return ("binom", int(rng.integers(64, 129)))
    return None


def gain(conv: str, env: Env) -> float:
    E0, E1 = ends(conv, env)
    return E1 - E0


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    conv = run["convention"]
    L, W = env.L, window(run, env)
    g = env.s1 - env.s0
    G = env.G or 1
    if ev in ("stag_never", "stag_freeze", "osc", "prolonged"):
        env.variant = {"stag_never": "never", "stag_freeze": "freeze", "osc": "osc", "prolonged": "riser"}[ev]
        env.event = "performance_volatility" if ev == "osc" else (
            "prolonged_training" if ev == "prolonged" else "training_stagnation")
        active = L - env.unlock
        if ev == "stag_never":
            if active < 6 * W:
                return False
            if conv == "cleanrl_dqn":
                return True  # the floor exactly (s0 = 0) or a few lucky goals: flat either way
            return make_visible(run, env, [env.s0, env.s1], g / 6)
        if ev == "stag_freeze":
            R = max(0.4 * W, 6.0) * rng.uniform(1.0, 2.0)
            fr = float(rng.uniform(0.2, 0.5))
            if conv == "wandb_group" or conv == "tune_custom":
                fr = min(fr, (0.5 - env.s0) / g)
            if active < R + 5 * W:
                return False
            env.params.update(R=float(R), fr=fr)
            return make_visible(run, env, [env.s0, env.s0 + fr * g], 0.2 * fr * g)
        if ev == "osc":
            P = float(rng.uniform(8, 25))
            if active < 4 * P:
                return False
            pp = float(rng.uniform(0.45, 0.7))
            mid = float(rng.uniform(0.35, 0.55))
            env.params.update(P=P, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)))
            return make_visible(run, env, [env.s0 + g * (mid - pp / 2), env.s0 + g * (mid + pp / 2)], pp * g / 6)
        if active < 12.5 * W:
            return False
        env.params["rate"] = 0.62 * W / active
        return make_visible(run, env, [env.s0, env.s0 + 0.62 * g], 0.015 * g)
    if ev == "still_rising":
        env.event = env.variant = ev
        env.T = float((L - env.unlock) / rng.uniform(0.5, 0.8))
        return make_visible(run, env, [env.s0, env.s1], g / 8)
    # learners: events after graduation
    e = judged(conv, env, base_curve(env, W))
    gp = grad_point(conv, env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G)
    start = gp + margin
    gj = gain(conv, env)
    E0, E1 = ends(conv, env)
    if ev in ("healthy", "noisy_healthy", "slow_learner", "late", "leaky_top"):
        if (gp + 0.2 * L > L) if run.get("short") else (gp + 2 * W > L):
            return False
        env.event = env.variant = ev
        return make_visible(run, env, [env.s0, env.s1], g / (5 if ev in ("noisy_healthy", "leaky_top") else 8)) \
            or conv == "cleanrl_dqn"
    if ev == "level_shift":
        d = float(rng.uniform(0.04, 0.06)) * g
        if conv in ("tune_custom", "wandb_group") and env.s1 + d > 0.99:
            return False
        if start + 2 * W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.3) * (L - start - 2 * W))
        env.params["d"] = d
        return make_visible(run, env, [env.s0, env.s1], g / 8)
    if ev == "single_outlier":
        if start + W > L and not run.get("short"):
            return False
        if gp + 5 > L:
            return False
        env.event = env.variant = ev
        lo = min(start, L - 3) if not run.get("short") else gp + 1
        env.at = int(lo + rng.uniform(0, 1) * max(0, L - lo - (W if not run.get("short") else 3)))
        env.at = min(env.at, L - 2)
        return make_visible(run, env, [env.s0, env.s1], g / 8)
    if ev == "sag":
        ramp = int(rng.uniform(2, 6) * W)
        if start + ramp + W > L:
            return False
        keep = float(rng.uniform(0.90, 0.94))
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.5) * (L - start - ramp - W))
        env.params.update(keep=keep, ramp=ramp)
        return make_visible(run, env, [env.s0, env.s1], g / 10)
    if ev in ("reg_warning", "reg_critical"):
        if conv == "cleanrl_dqn":
            keep = float(rng.uniform(0.0, 0.35))
        else:
            keep = float(rng.uniform(0.72, 0.79) if ev == "reg_warning" else rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        need = ramp + max(2 * W, 15 * G)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        env.event, env.variant = "graduated_regression", "sudden" if ramp == 0 else "gradual"
        env.severity = "warning" if keep >= 0.7 else "critical"
        low_s = inv_judged(conv, env, E0 + keep * gj)
        env.params.update(keep=keep, ramp=ramp, low_s=low_s)
        drop = (1 - keep) * gj
        return make_visible(run, env, [env.s1, low_s, env.s0], drop / 4.0)
    if ev == "burst":
        B = int(max(W, 20 * G))
        need = B + max(W, 15 * G)
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - need))
        bsd = float(rng.uniform(0.2, 0.3))
        env.event, env.variant = "performance_volatility", "burst"
        env.params.update(length=B, bsd=bsd)
        return make_visible(run, env, [env.s1, env.s1 - bsd * g], min(0.04, bsd / 4) * g)
    if ev == "switch":
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
        return make_visible(run, env, [env.s1, env.s1 - gap * g], gap * g / 5)
    if ev == "eval_gap":
        if env.G is None:
            return False
        need = max(5 * max(50.0 / run["unit"], G), 2 * W) + 2 * G
        if start + need > L:
            return False
        env.at = int(start + rng.uniform(0, 0.5) * (L - start - need))
        env.event = env.variant = "eval_gap"
        return make_visible(run, env, [env.s0, env.s1], g / 8)
    if ev == "transition":
        if not run.get("states"):
            return False
        length = int(rng.uniform(0.5, 1.5) * W)
        if start + length + W > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - length - W))
        relock = conv == "tf2_tensor" and rng.random() < 0.5
        env.event, env.variant = "unexpected_transition", "relock" if relock else "revisit"
        env.params["length"] = length
        return make_visible(run, env, [env.s0, env.s1], g / 8)
    raise ValueError(ev)


def truth(run: dict, env: Env) -> np.ndarray:
    """The skill per point (NaN before unlock), events applied; draws of bursts/switching are seeded."""
    L, W = env.L, window(run, env)
    g = env.s1 - env.s0
    s = base_curve(env, W)
    p, v = env.params, env.variant
    rng = np.random.default_rng(zlib.crc32(f"{run['name']}/{env.name}".encode()))
    i = np.arange(L)
    if v in ("sudden", "gradual", "sag"):
        lowv = p["low_s"] if v != "sag" else env.s0 + p["keep"] * g
        if p["ramp"] == 0:
            s[i >= env.at] = lowv
        else:
            u = np.clip((i - env.at) / p["ramp"], 0, 1)
            m = i >= env.at
            s[m] = s[m] + (lowv - s[m]) * u[m]
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
    return s


def new_env(run: dict, rng, name: str, unlock: int, has_eval: bool) -> Env:
    conv = run["convention"]
    s0 = float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0.0, 1.0))
    s1 = float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 1.0))
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=1.0, curve=str(rng.choice(CURVES)),
              noise=default_noise(run, rng), L=run["L"])
    if conv == "cleanrl_dqn":
        env.params["Lg"] = float(rng.uniform(*run["Lg_range"]))
    W = window(run, env)
    env.T = float(rng.uniform(0.15, 0.4) * run["L"]) if run.get("short") else float(rng.uniform(0.8, 2.5) * W)
    if has_eval:
        env.G = run["G"]
        env.enoise = eval_noise(run, rng)
        if env.enoise[0] == "clipep":
            env.enoise = ("clipep", env.noise[1], env.enoise[2])
    return env


MULTI_POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
              "eval_gap", "transition", "prolonged"]
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run, env)
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W / 1.0)
    if neg == "noisy_healthy":
        env.noise = default_noise(run, rng, heavy=True)
    if neg == "leaky_top":
        env.s1 = float(rng.uniform(0.88, 0.94))
    if not place(run, env, neg, rng):
        env.T = float(rng.uniform(0.15, 0.3) * env.L) if run.get("short") else float(rng.uniform(0.8, 1.5) * W)
        env.event = env.variant = "healthy"
        env.noise = default_noise(run, rng)
        if env.enoise and env.enoise[0] == "clipep":
            env.enoise = ("clipep", env.noise[1], env.enoise[2])
        place(run, env, "healthy", rng)
        env.event = env.variant = "healthy"


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    run["envs"] = []
    if conv == "cleanrl_dqn":
        run["unit"] = 1
        if rng.random() < 0.5:
            run["env_ids"], run["floor"], run["Lg_range"] = ["MountainCar-v0"], 200.0, (100, 140)
        else:
            run["env_ids"], run["floor"], run["Lg_range"] = ["Acrobot-v1"], 500.0, (200, 300)
        if rng.random() < 0.5:
            run["env_ids"] = ["MountainCar-v0", "Acrobot-v1"]
        run["L"] = int(rng.integers(300, 701))
        run["G"] = None
        for env_id in run["env_ids"]:
            floor = 200.0 if env_id.startswith("Mountain") else 500.0
            run["floor"], run["Lg_range"] = floor, ((100, 140) if floor == 200 else (200, 300))
            run["s0"], run["s1"] = (0.0 if rng.random() < 0.6 else float(rng.uniform(0.0, 0.05))), \
                float(rng.uniform(0.96, 1.0))
            env = new_env(run, rng, env_id, 0, False)
            env.params["floor"] = floor
            if rng.random() < 0.5:
                ev = str(rng.choice(["reg_critical", "reg_critical", "stag_never"]))
                if ev == "stag_never":
                    env.s0 = 0.0 if rng.random() < 0.6 else env.s0
                if not place(run, env, ev, rng):
                    env = new_env(run, rng, env_id, 0, False)
                    env.params["floor"] = floor
                    apply_negative(run, env, "healthy", rng)
            else:
                apply_negative(run, env, str(rng.choice(["healthy", "healthy", "slow_learner", "leaky_top"])), rng)
            run["envs"].append(env)
        return
    if conv == "torch_scalars":
        run["unit"] = int(rng.choice([4096, 16384]))
        run["first"] = run["unit"]
        if rng.random() < 0.5:
            run["floor"], run["top"] = -200.0, float(rng.uniform(-130, -80))
        else:
            run["floor"], run["top"] = -500.0, float(rng.uniform(-110, -70))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.85, 1.0))
        run["L"] = int(rng.integers(320, 621))
        run["G"] = int(rng.integers(5, 16)) if rng.random() < 0.7 else None
        run["states"] = bool(rng.random() < 0.5)
        names, n = MAZES, int(rng.integers(3, 8))
    elif conv == "tune_custom":
        run["unit"], run["first"] = 4000, 4000
        run["short"] = bool(rng.random() < 0.3)
        run["L"] = int(rng.integers(40, 91)) if run["short"] else int(rng.integers(400, 801))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.8, 0.95))
        run["G"] = int(rng.integers(3, 11)) if rng.random() < 0.7 else None
        run["states"] = False
        names, n = TASKS, int(rng.integers(3, 7))
    elif conv == "tf2_tensor":
        run["unit"], run["first"] = 1, 0
        run["L"] = int(rng.integers(1200, 3001))
        run["a"], run["b"] = float(rng.uniform(-1.0, -0.2)), float(rng.uniform(1.0, 1.8))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.85, 1.0))
        run["G"] = int(rng.integers(20, 61)) if rng.random() < 0.6 else None
        run["states"] = bool(rng.random() < 0.5)
        names, n = GAMES, int(rng.integers(3, 7))
    else:
        run["unit"] = int(rng.choice([1, 2048]))
        run["first"] = 0
        run["L"] = int(rng.integers(320, 601))
        run["s0"], run["s1"] = float(rng.uniform(0.02, 0.12)), float(rng.uniform(0.82, 0.95))
        run["G"] = int(rng.integers(5, 16)) if rng.random() < 0.7 else None
        run["states"] = bool(rng.random() < 0.6)
        names, n = SKILLS, int(rng.integers(3, 8))
    W = window(run)
    waves = 1 if run.get("short") else int(rng.integers(1, 4 if conv != "tf2_tensor" else 3))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    envs = [new_env(run, rng, names[k], starts[j % waves] if j >= 2 else 0, run["G"] is not None)
            for j, k in enumerate(pick)]
    if run.get("short"):
        for env in envs:
            apply_negative(run, env, str(rng.choice(["healthy", "noisy_healthy", "still_rising", "single_outlier"])),
                           rng)
        run["envs"] = envs
        return
    pool = [p for p in MULTI_POOL if (p != "eval_gap" or run["G"]) and (p != "transition" or run.get("states"))]
    neg_pool = NEG_POOL + (["sag", "sag"] if conv == "tf2_tensor" else [])
    has_prolonged = False
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.55:
            ev = str(rng.choice(pool))
            if ev == "prolonged" and has_prolonged:
                ev = "reg_critical"
            if ev == "prolonged":
                env.unlock = 0
            if place(run, env, ev, rng):
                has_prolonged |= ev == "prolonged"
                continue
            fresh = new_env(run, rng, env.name, env.unlock, run["G"] is not None)
            envs[j] = env = fresh
        neg = "late" if env.unlock > 0 else str(rng.choice(neg_pool))
        apply_negative(run, env, neg, rng)
    if has_prolonged:  # README: at least twice the median time the graduated envs took; no slow learner beside it
        for env in envs:
            if env.variant == "slow_learner":
                env.T = float(rng.uniform(0.8, 1.5) * W)
                env.event = env.variant = "healthy"
            elif env.event not in EVENTS and env.T > 1.5 * W:
                env.T = float(rng.uniform(0.8, 1.5) * W)
    learners = [e for e in envs if e.variant not in ("never", "freeze", "riser", "osc")]
    if len(learners) < max(2, len(envs) / 2):
        for k, e in enumerate(list(envs)):
            if e.variant in ("never", "freeze", "osc") and len(learners) < max(2, len(envs) / 2):
                fresh = new_env(run, rng, e.name, e.unlock, run["G"] is not None)
                apply_negative(run, fresh, "healthy", rng)
                envs[k] = fresh
                learners.append(fresh)
    run["envs"] = envs


# --- observing and labelling -----------------------------------------------------------------------

def eval_points(run: dict, env: Env, on: np.ndarray, rng) -> np.ndarray:
    if not env.G or not len(on):
        return np.array([], int)
    if run["convention"] == "torch_scalars":  # irregular: gaps 0.5..1.5 x the mean
        pts, t = [], on[0] + int(rng.integers(1, env.G + 1))
        while t <= on[-1]:
            pts.append(t)
            t += max(1, int(round(env.G * rng.uniform(0.5, 1.5))))
        return np.array(pts, int)
    return on[(on - env.unlock) % env.G == env.G - 1]


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    on = np.flatnonzero(~np.isnan(s))
    train_on = on
    if env.variant == "relock":
        train_on = on[(on < env.at) | (on >= env.at + env.params["length"])]
    if env.noise[0] == "pois":
        n = rng.poisson(env.noise[1], size=len(train_on))
        keep = n > 0
        train_on, n = train_on[keep], n[keep]
        k = rng.binomial(n, np.clip(s[train_on], 0, 1))
        tr = k / n
        extra = {"n": n, "k": k}
    else:
        tr = draw(env.noise, s[train_on], rng)
        extra = {}
    ev_its = eval_points(run, env, on, rng)
    if env.variant == "eval_gap":
        ev_its = ev_its[ev_its < env.at]
    ev_vals = draw(env.enoise, s[ev_its], rng) if len(ev_its) else None
    return {"train": (train_on, tr), "eval": (ev_its, ev_vals), "extra": extra}


def state_series(run: dict, env: Env, gp: int | None) -> list[tuple[int, int]]:
    out = []
    for i in range(env.L):
        if i < env.unlock:
            v = 0
        elif gp is not None and i >= gp and env.variant not in ("never", "freeze", "riser", "osc"):
            v = 2
        else:
            v = 1
        if env.variant in ("revisit", "relock") and env.at <= i < env.at + env.params["length"]:
            v = 1 if env.variant == "revisit" else 0
        out.append((i, v))
    return out


def pace(steps) -> float:
    """README's logging pace: the median interval when nearly every interval is a whole multiple of it, else the
    mean of the intervals under 3 x the median."""
    st = np.unique(np.asarray(steps, dtype=float))
    if len(st) < 2:
        return 1.0
    d = np.diff(st)
    med = float(np.median(d))
    ratio = d / med
    if np.mean(np.abs(ratio - np.round(ratio)) < 1e-6) >= 0.9:
        return med
    return float(np.mean(d[d < 3 * med]))


def label_for(run: dict, env: Env, s: np.ndarray, e: np.ndarray, obs: dict, steps: np.ndarray,
              W_steps: float, G_steps: float) -> dict | None:
    if env.event not in EVENTS:
        return None
    conv = run["convention"]
    its = np.unique(np.concatenate([obs["train"][0], obs["eval"][0]])).astype(int)
    E0, E1 = ends(conv, env)
    gj = E1 - E0
    t0 = None
    v = env.variant
    if v in ("never", "osc"):
        t0 = env.unlock
    elif v == "freeze":
        t0 = env.unlock + env.params["R"]
    elif v == "riser":
        return mk(run, env, int(steps[its[0]] + round(10 * W_steps)))
    elif v == "eval_gap":
        ev = obs["eval"][0]
        return mk(run, env, int(steps[ev[-1]] + round(G_steps)))
    elif v in ("revisit", "relock"):
        t0 = env.at
        return mk(run, env, int(steps[t0]))  # states are logged at every point
    elif v in ("sudden", "gradual"):
        line = E0 + 0.85 * gj
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < line))
        t0 = int(below[0])
    elif v == "burst":
        sd = point_sd(env.noise, env.s1)
        thr = max(0.15 * gj, 4 * sd)
        a, B = env.at, env.params["length"]
        off = [i for i in range(a, a + B) if E1 - e[i] > thr]
        if not off:
            return None
        t0 = off[0]
    elif v == "switch":
        t0 = env.params["phases"][0][0]
    ok = its[its >= t0 - 1e-9]
    return mk(run, env, int(steps[ok[0]])) if len(ok) else None


def mk(run: dict, env: Env, onset: int) -> dict:
    shape = f"{run['convention']}/{env.variant}" + ("/short" if run.get("short") else "")
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=shape, variant=env.variant, noise=str(env.noise[0]), tier=env.tier)


# --- writers ---------------------------------------------------------------------------------------

def _tests():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import rl_writers
    import writers

    return writers, rl_writers


WALL0 = 1_700_000_000.0


_PROTO: dict = {}


def _scalar(tag: str, value: float, tensor: bool):
    if not _PROTO:
        from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
        from tensorboardX.proto.tensor_pb2 import TensorProto

        _PROTO.update(Summary=Summary, TensorProto=TensorProto,
                      md=SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars")))
    Summary = _PROTO["Summary"]
    if not tensor:
        return Summary(value=[Summary.Value(tag=tag, simple_value=float(value))])
    # torch's scalar(new_style=True) / TF2's tf.summary.scalar: a DT_FLOAT scalar tensor, plugin "scalars"
    t = _PROTO["TensorProto"](dtype="DT_FLOAT", float_val=[float(value)])
    return Summary(value=[Summary.Value(tag=tag, tensor=t, metadata=_PROTO["md"])])


def write_torch(folder: Path, run: dict, data: dict) -> None:
    """torch SummaryWriter.add_scalars: FileWriter(f"{log_dir}/{main_tag.replace('/', '_')}_{key}") per key."""
    from tensorboardX.writer import FileWriter

    root = folder / f"ppo_maze_{run['trial']}"
    main = FileWriter(str(root), max_queue=1 << 20, flush_secs=3600)
    writers: dict[str, FileWriter] = {}
    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        tr_its, tr = d["train"]
        for i, v in zip(tr_its, tr):
            rows.setdefault(int(i), []).append(("return/train", env.name, v))
        ev_its, ev = d["eval"]
        if ev is not None:
            for i, v in zip(ev_its, ev):
                rows.setdefault(int(i), []).append(("return/eval", env.name, v))
        if run.get("states"):
            for i, v in d["states"]:
                rows.setdefault(int(i), []).append(("curriculum/state", env.name, float(v)))
    for i in sorted(rows):
        step = step_of(run, i)
        wall = WALL0 + step / 10000
        for main_tag, key, v in rows[i]:
            fw_tag = str(root) + "/" + main_tag.replace("/", "_") + "_" + key
            fw = writers.get(fw_tag)
            if fw is None:
                fw = writers[fw_tag] = FileWriter(fw_tag, max_queue=1 << 20, flush_secs=3600)
            fw.add_summary(_scalar(main_tag, v, False), step, wall)
        main.add_summary(_scalar("charts/learning_rate", 2.5e-4, True), step, wall)
    for fw in writers.values():
        fw.close()
    main.close()


def write_tune(folder: Path, run: dict, data: dict) -> None:
    w, _ = _tests()
    L = run["L"]
    results = []
    per: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        tr_its, tr = d["train"]
        n, k = d["extra"]["n"], d["extra"]["k"]
        for j, i in enumerate(tr_its):
            c = per.setdefault(int(i), {"cm": {}, "ev": {}, "eps": 0})
            c["cm"][f"{env.name}_success_mean"] = float(tr[j])
            c["cm"][f"{env.name}_success_min"] = float(k[j] == n[j])
            c["cm"][f"{env.name}_success_max"] = float(k[j] > 0)
            c["cm"][f"{env.name}_len_mean"] = float(150 - 80 * tr[j])
            c["eps"] += int(n[j])
        ev_its, ev = d["eval"]
        if ev is not None:
            for i, v in zip(ev_its, ev):
                per.setdefault(int(i), {"cm": {}, "ev": {}, "eps": 0})["ev"][f"{env.name}_success_mean"] = float(v)
    for i in range(L):
        c = per.get(i, {"cm": {}, "ev": {}, "eps": 0})
        r = {"episode_reward_mean": float(np.mean([v for kk, v in c["cm"].items() if kk.endswith("_success_mean")]
                                                   or [0.0])),
             "episodes_this_iter": c["eps"], "custom_metrics": dict(c["cm"]),
             "timesteps_total": step_of(run, i), "training_iteration": i + 1, "done": i == L - 1,
             "time_this_iter_s": 3.1, "timestamp": 1_700_000_000 + 4 * i, "trial_id": f"{run['trial']}_00000",
             "pid": 4242, "info": {"learner": {"default_policy": {"learner_stats": {"cur_lr": 5e-5}}}}}
        if c["ev"]:
            r["evaluation"] = {"custom_metrics": dict(c["ev"]), "episode_reward_mean": 0.0}
        results.append(r)
    trial = folder / f"PPO_MultiTaskEnv_{run['trial']}_00000_0_2026-01-01_00-00-00"
    w.write_tune_trial(trial, results, {"env": "MultiTaskEnv", "lr": 5e-5, "num_workers": 4,
                                        "evaluation_interval": run["G"]})


def write_cleanrl(folder: Path, run: dict, data: dict) -> None:
    _, rl = _tests()
    for k, env in enumerate(run["envs"]):
        d = data[env.name]
        seed = int(run["seed"] % 1000) + k
        writer = rl._cleanrl_writer(folder, rl.cleanrl_run_name(env.name, "dqn", seed),
                                    {"exp_name": "dqn", "seed": seed, "env_id": env.name,
                                     "total_timesteps": int(d["steps"][-1] + 1), "learning_starts": 10000})
        events = []
        for r, ln, st in zip(d["returns"], d["lengths"], d["steps"]):
            events.append((int(st), 0, "charts/episodic_return", np.float32(r)))
            events.append((int(st), 1, "charts/episodic_length", np.int32(ln)))
        for gs in range(10100, int(d["steps"][-1]) + 1, 100):  # dqn.py :194-207, train_frequency 10
            events.append((gs, 2, "losses/td_loss", 0.1))
            events.append((gs, 3, "losses/q_values", -50.0))
            events.append((gs, 4, "charts/SPS", 1000))
        for st, _o, tag, v in sorted(events, key=lambda x: (x[0], x[1])):
            writer.add_scalar(tag, v, st, walltime=WALL0 + st / 1000)
        if d["save_model"]:  # dqn.py :221-238: the saved model's evaluation, at the episode index
            for idx in range(10):
                writer.add_scalar("eval/episodic_return", np.float32(d["returns"][-1]), idx,
                                  walltime=WALL0 + 1e6 + idx)
        writer.close()


def write_tf2(folder: Path, run: dict, data: dict) -> None:
    from tensorboardX.writer import FileWriter

    fw = FileWriter(str(folder / "logs"), max_queue=1 << 20, flush_secs=3600, filename_suffix=".v2")
    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(*d["train"]):
            rows.setdefault(int(i), []).append((f"train/{env.name}/reward", v))
        ev_its, ev = d["eval"]
        if ev is not None:
            for i, v in zip(ev_its, ev):
                rows.setdefault(int(i), []).append((f"eval/{env.name}/reward", v))
        if run.get("states"):
            for i, v in d["states"]:
                rows.setdefault(int(i), []).append((f"curriculum/{env.name}/state", float(v)))
    for i in sorted(rows):
        step = step_of(run, i)
        for tag, v in rows[i]:
            fw.add_summary(_scalar(tag, v, True), step, WALL0 + step)
    fw.close()


WORDS = {0: "locked", 1: "active", 2: "graduated"}


def write_wandb_group(folder: Path, run: dict, data: dict) -> None:
    w, _ = _tests()
    owners = run["workers"]
    for k, names in enumerate(owners):
        rows, steps = [], []
        for i in range(run["L"]):
            row = {}
            for name in names:
                d = data[name]
                j = d["tmap"].get(i)
                if j is not None:
                    row[f"train/{name}/success"] = float(d["train"][1][j])
                je = d["emap"].get(i)
                if je is not None:
                    row[f"eval/{name}/success"] = float(d["eval"][1][je])
                if run.get("states"):
                    row[f"curriculum/{name}/state"] = WORDS[d["states"][i][1]]
            if row:
                rows.append(row)
                steps.append(step_of(run, i))
        w.write_wandb(folder / "wandb", rows, steps=steps, run_id=f"{run['trial']}w{k}", group=f"exp-{run['trial']}",
                      name=f"exp-{run['trial']}-worker{k}")


WRITERS = {"torch_scalars": write_torch, "tune_custom": write_tune, "cleanrl_dqn": write_cleanrl,
           "tf2_tensor": write_tf2, "wandb_group": write_wandb_group}


def step_of(run: dict, i) -> int:
    return int(run["first"] + int(i) * run["unit"])


# --- cleanrl_dqn episodes ------------------------------------------------------------------------------

def dqn_episodes(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    """Each episode: goal (probability s) in N(Lg, sigma_L span) steps, else the timeout; return = -length."""
    floor, Lg = env.params["floor"], env.params["Lg"]
    span = floor - Lg
    p = np.clip(s, 0.0, 1.0)
    goal = rng.random(len(s)) < p
    ln = np.where(goal, np.clip(np.round(Lg + rng.normal(0, env.noise[1] * span, len(s))), 40, floor - 1), floor)
    ln = ln.astype(int)
    steps = np.cumsum(ln) - 1  # dqn.py logs at the global_step of the episode's last step
    returns = -ln.astype(float)
    return {"returns": returns, "lengths": ln, "steps": steps}


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"e{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        run["trial"] = f"{zlib.crc32(f'eleventh-{seed}-{r}'.encode()) & 0xFFFFF:05x}"
        prng = np.random.default_rng(run["seed"])
        plan_run(run, prng)
        if conv == "wandb_group":
            names = [e.name for e in run["envs"]]
            nw = 3 if prng.random() < 0.25 and len(names) >= 3 else 2
            order = list(prng.permutation(len(names)))
            run["workers"] = [[names[j] for j in order[k::nw]] for k in range(nw)]
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        orng = np.random.default_rng(run["seed"] + 1)
        data, tol = {}, []
        for env in run["envs"]:
            W = window(run, env)
            if env.enoise is not None and env.enoise[0] == "clipep":  # eval episodes: the env's own sigma
                env.enoise = ("clipep", env.noise[1], env.enoise[2])
            s = truth(run, env)
            e = judged(conv, env, s)
            d: dict = {"s": s}
            if conv == "cleanrl_dqn":
                ep = dqn_episodes(run, env, s, orng)
                d.update(ep, save_model=bool(orng.random() < 0.5))
                steps = ep["steps"]
                obs = {"train": (np.arange(env.L), ep["returns"]), "eval": (np.array([], int), None), "extra": {}}
                J = pace(steps)
                W_steps = max(min(100.0, 0.1 * (steps[-1] - steps[0])), 20 * J)
                G_steps = J
            else:
                obs = observe(run, env, s, orng)
                metric = metric_fn(run)
                tr_its, tr = obs["train"]
                obs_m = {"train": (tr_its, metric(tr)),
                         "eval": (obs["eval"][0], metric(obs["eval"][1]) if obs["eval"][1] is not None else None),
                         "extra": obs["extra"]}
                d.update(obs_m)
                steps = np.array([step_of(run, i) for i in range(env.L)])
                W_steps = W * run["unit"]
                ev_steps = steps[obs["eval"][0]] if len(obs["eval"][0]) else []
                G_steps = pace(ev_steps) if len(ev_steps) >= 2 else run["unit"]
                d["tmap"] = {int(i): j for j, i in enumerate(tr_its)}
                d["emap"] = {int(i): j for j, i in enumerate(obs["eval"][0])}
            gp = grad_point(conv, env, judged(conv, env, base_curve(env, W)), W)
            env.params["graduated_point"] = gp
            if run.get("states"):
                d["states"] = state_series(run, env, gp)
            data[env.name] = d
            tol.append(max(W_steps / 10.0, G_steps))
            env.params["W_steps"], env.params["G_steps"] = float(W_steps), float(G_steps)
            lab = label_for(run, env, s, e, obs, steps, W_steps, G_steps)
            if lab:
                labels.append(lab)
        WRITERS[conv](folder, run, data)
        meta = {k: v for k, v in run.items() if k not in ("envs",)}
        meta.update(tolerance_unit=int(round(max(tol))), window_steps=max(e.params["W_steps"] for e in run["envs"]),
                    eval_every=int(round(max(e.params["G_steps"] for e in run["envs"]))))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                         "tier": e.tier, "curve": e.curve, "noise": list(e.noise),
                         "eval_noise": list(e.enoise) if e.enoise else None, "unlock": e.unlock,
                         "s0": e.s0, "s1": e.s1, "T": e.T, "G": e.G, "at": e.at, "L": e.L,
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
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def metric_fn(run: dict):
    conv = run["convention"]
    if conv == "torch_scalars":
        span = run["top"] - run["floor"]
        return lambda x: run["floor"] + span * np.asarray(x)
    if conv == "tf2_tensor":
        return lambda x: run["a"] + run["b"] * np.asarray(x)
    return lambda x: np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
