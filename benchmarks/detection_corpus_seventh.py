"""The seventh detection corpus (`python benchmarks/detection.py --corpus seventh`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, logging shapes, what
`unknown` means), without reading the rules' or the analysis code, and without looking at which cases curriwatch
misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-seventh-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen for what the six other corpora lack:

  rllib_ma       Ray Tune trial folders of an RLlib NEW-API-STACK MULTI-AGENT run (result.json + progress.csv +
                 params.json, tests/writers.write_tune_trial: Ray's JsonLoggerCallback / CSVLoggerCallback calls):
                 one RLModule per task, its return under `env_runners/module_episode_returns_mean/{module}` and
                 `evaluation/env_runners/module_episode_returns_mean/{module}` (ray b4e102b,
                 rllib/env/multi_agent_env_runner.py MultiAgentEnvRunner._log_episode_metrics: logged with
                 window = metrics_num_episodes_for_smoothing (100) — a ROLLING MEAN of the module's last 100
                 episodes), beside `agent_episode_returns_mean/{agent}`, `episode_return_mean`, `learners/{module}/…`;
                 step `num_env_steps_sampled_lifetime` (ray rllib/utils/metrics/__init__.py NUM_ENV_STEPS_SAMPLED_
                 LIFETIME; 4,000..16,000 env steps an iteration, some runs restored at 1..40 M); read through a USER
                 PROFILE (curriwatch.yaml: regexes over the flattened keys, `step_key`, forced with `profile:`).
                 A module appears once its task is unlocked (no key before); evaluation every 2/5/10 iterations of
                 100 episodes (a whole window: the logged eval is that evaluation's mean) or none; an evaluation env
                 that stops playing a graduated task (eval gap). Returns at LARGE SCALE of either sign
                 (-20,000..-2,000, -3,000..+5,000, 0..40,000).
  tbx_scalars    tensorboardX `add_scalars("success/train", {env: rate, …})` (and `success/eval`, and
                 `add_scalars("curriculum/state", {env: 0/1/2})` in half the runs): one event file per env in
                 SUBFOLDERS `success/train/{env}/` (README: tensorboardX's `a/b/x`, read back as tag `a/b/x`), a
                 run-level `lr` in the run folder; read through user profiles (regex on `success|fail_rate/
                 (train|eval)/{env}`). SUCCESS RATES FROM TINY BATCHES (binomial over 4..8 episodes a training step,
                 8..16 an eval; noise is only made quieter where a planted event needs it, so mostly large events
                 are planted), or FAIL RATES (1 - success) made lower-is-better by `overrides: [{run: "*_fail",
                 direction: lower}]`; evals at IRREGULAR steps (gaps 0.5..1.5 x the mean); TRAIN-ONLY envs beside
                 evaluated siblings; steps of 1 (the stagnation window then 10 % of the run's span) or 10.
  wandb_many     a generic `train|eval/{env}/reward` (+ `curriculum/{env}/state` as the WORDS locked / active /
                 graduated in half the runs) W&B OFFLINE run with 60..150 ENVS, logged WITHOUT step= but with
                 `define_metric("train/*" | "eval/*" | "curriculum/*", step_metric="env_frames")`: steps in ENV
                 FRAMES (1 M or 4 M a logging step) from 0, 250 M or 600 M (up to ~1.8e9); 200..300 points an env;
                 rewards in [-1, 1] (the mean of n +-1 episode outcomes, or gaussian); envs unlocked in waves.
  long_frames    generic tensorboardX, VERY LONG: 1..3 envs of 16,000..28,000 training points each, steps in env
                 frames (4,096 or 16,384 a point) starting at 0, 120 M or 350 M; evals every 40..100 points
                 (irregular in 30 % of the runs); `curriculum/{env}/state` numbers in 40 %; rates (binomial 32..128)
                 or returns (gaussian, Laplace or AR(1) noise); slow learners (0.02..0.08 of the run); sharp falls
                 and SLOW DRIFTS (a ramp over 5..40 windows), NOISE BURSTS, REGIME SWITCHING, SUSTAINED OSCILLATION.
  tune_csv_sweep one trial of a Ray Tune SWEEP (`PPO_{env}_{id}_{k}_lr=…`) with ONLY progress.csv and params.json (no
                 result.json: the README's fallback), old RLlib API stack keys (`episode_reward_mean` — the mean
                 of this iteration's episodes padded with the last ones to 100: ray rllib
                 optimizers/policy_optimizer.py collect_metrics(min_history=100) — `sampler_results/…`,
                 `info/learner/…`, `timesteps_total`); the CSV header is fixed by the first result (Ray's
                 CSVLoggerCallback, ray/tune/logger/csv.py:59-68), so evaluation keys reach it only when the first
                 iteration evaluated (evaluation_interval 1, 30 % of the trials): otherwise TRAIN-ONLY; short
                 (150..420 iterations), one env (params.json `env`), MuJoCo-like returns.

Truth.  Time is in iterations i = 0..L-1; step(i) per convention (rllib_ma step0 + U (i+1); tbx_scalars step0 + u i;
wandb_many and long_frames step0 + U i; tune_csv_sweep U (i+1)). Every env has a skill s(i) in [0, 1] (none before
its unlock), mapped to its metric by value = a + b s (fail rate: 1 - s). A learner goes from s0 to s1 over T
iterations (exp, logistic, sqrt or linear) and is flat at s1 from T on. In a run the envs share one scale (starts
within 0.03, tops within 0.03), so a sibling shows where the top is.
  J  judged interval      the train logging interval (every convention logs training every iteration)
  W  stagnation window    max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation): 20
                          iterations everywhere but tbx_scalars with steps of 1, where it is min(100, 0.1 x span)
                          when that is more
  G  eval interval        the README pace of the env's evals (the median interval when regular, else the mean of
                          the intervals under 3 x the median), else J
  Q  tolerance unit       max(W / 10, G) in steps = `tolerance_unit` in plan.json; a detection matches a label
                          within 2 Q (benchmarks/detection.py). A rolling mean (rllib_ma, tune_csv_sweep: 100 episodes,
                          2.5..10 iterations) smears every change over its window: Q is at least half the window there
"Graduated" (truth) = the skill has reached s0 + 0.9 (s1 - s0) and then held max(0.3 W, 3 G) more; logged states go
to 2 there. Healthy learners reach their top within 1.2..3 W (long_frames: 0.02..0.08 of the run).

Labels (an env carries at most one; onset in steps; "first point" = the first logged point of the env's
performance, train or eval, at or after the event's true start; for a rolling mean, the first training point where
its EXPECTED value (the same window over the true curve) crosses, so the window's lag is in the label):
  graduated_regression   after graduation + max(W, 10 G): sudden, gradual (ramp over 0.5..1.5 W; long_frames: a
                         slow drift over 5..40 W) or temporary (back after max(2 W, 20 G)) fall to keep 0.72..0.79
                         (warning) or 0.1..0.6 (critical) of the gain, lasting >= max(2 W, 15 G) (30 points for tiny
                         batches); onset = first point at/after the true curve (or a rolling mean's expected value)
                         first keeps < 0.85 of the gain (README first_step)
  training_stagnation    never: flat at s0 from activation for >= 6 W (onset = its first point); freeze: a learner
                         stops at 0.2..0.5 of its gain (below 0.55 absolute for a rate) after a rise of >= max(0.4 W,
                         6 J, 2 rolling windows), flat and active >= 5 W to the end (onset = first point of the flat
                         stretch; a rolling mean's flat stretch starts half a window later). Unbounded metrics need
                         as many learners as stalls beside them; one-env runs of returns only have `never`
  performance_volatility after graduation + margin: switch (held and held - 0.4..0.6 gain, dwells >= max(4 J, 4 G)
                         — 8 points for tiny batches, 2 windows for a rolling mean; Markov, each capped at twice the
                         mean dwell so the rhythm holds — >= 8 changes, to the end or
                         stopping after 10..14 phases, after a calm hold at the top of >= 3 dwells; onset = first low
                         phase), osc (a rectified sine below the held level, held - p2p |sin(pi t / P)|: it leaves the
                         level at full pace, where a cosine's start would blur the onset over a quarter period; p2p
                         0.4..0.7 gain, P 8..16 G (and >= 4 rolling windows), 6..10 periods or to the end, after a
                         calm hold of >= 2 periods; onset = its first point) or burst (no rolling means: max(W, 20 G)
                         of points scattered |N(0, 0.2..0.3 gain)| below the held level, then calm >= max(W, 15 G);
                         onset = its first point off by > max(0.15 gain, 4 sd))
  unexpected_transition  logged states: 2 -> 1 after graduation (a lesson revisited) for 0.5..1.5 W, then 2 again;
                         onset = the first logged state point with the backward value
  eval_gap               after graduation + margin the env's evals stop for the rest of the run (>= max(8 x max(50
                         steps, G), 2 W) left) while the run goes on; onset = last eval + the env's eval pace
  prolonged_training     a steady riser (0.045..0.06 gain per W, at most 0.68 of it at the run's end: it never
                         flattens) in a multi-env run of 12.5..15 W whose siblings graduate within 3 W (one-env
                         tune_csv_sweep trials: alone); onset = its first point + 10 W
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (heavy noise), single_outlier (one
judged point at 0.05 of the gain; not for rolling means), level_up (+0.03..0.05 gain after graduation where there is
room), drift (a slow -0.04..-0.07 gain decline after graduation), pause (rises to 0.35..0.6 of its gain, flat for
1..2 W, then learns on and graduates: README's staircase pause), late_healthy (unlocked at 0.35..0.55 of the run),
train_only (tbx_scalars: an env never evaluated beside evaluated siblings: no eval gap — it never had evals to stop).

Noise (skill units). Visibility bounds (the judged series' point sd at every level the event visits; noise made
quieter, same family, until met): regression <= drop / 4; stagnation <= min(0.05, 0.2 x rise); switching <= gap / 5;
oscillation <= peak-to-peak / 6; burst base <= min(0.04, burst sd / 4); prolonged riser <= 0.03. Tiny-batch
(tbx_scalars) events get twice these bounds and last longer (a careful reader smooths binomial-4 points over a
window: a fall of twice the point sd over 30+ points is plain), and no bursts or waves. Rolling means (rllib_ma,
tune_csv_sweep) get half these bounds on their point sd (episode sd / 10): their noise wanders for a window.
"""
from __future__ import annotations

import csv
import json
import math
import os
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the writers the tests use

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 5
CYCLE = ("rllib_ma", "tbx_scalars", "wandb_many", "long_frames", "tune_csv_sweep")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
RLLIB_CONFIG = """\
profile: rllib_ma
profiles:
  rllib_ma:
    patterns:
      - {regex: '^env_runners/module_episode_returns_mean/(?P<env>[^/]+)$', split: train, metric: return_mean}
      - {regex: '^evaluation/env_runners/module_episode_returns_mean/(?P<env>[^/]+)$', split: eval, metric: return_mean}
    performance_metric: return_mean
    step_key: num_env_steps_sampled_lifetime
"""
TBX_CONFIG = """\
profiles:
  tbx_success:
    patterns:
      - {regex: '^success/(?P<split>train|eval)/(?P<env>[^/]+)$', metric: success}
      - {regex: '^curriculum/state/(?P<env>[^/]+)$', split: state, metric: state}
    performance_metric: success
  tbx_fail:
    patterns:
      - {regex: '^fail_rate/(?P<split>train|eval)/(?P<env>[^/]+)$', metric: fail_rate}
      - {regex: '^curriculum/state/(?P<env>[^/]+)$', split: state, metric: state}
    performance_metric: fail_rate
overrides:
  - {run: "*_fail", env: "*", direction: lower}
"""
CONFIGS = {"rllib_ma": RLLIB_CONFIG, "tbx_scalars": TBX_CONFIG}
MODULES = ["walker", "runner", "climber", "pusher", "kicker", "balancer", "diver", "jumper"]
TBX_ENVS = ["reach", "push", "pick", "place", "stack", "door", "drawer", "button", "lever", "peg", "slide"]
LONG_ENVS = ["arena", "maze", "forage", "harvest", "escort"]
TUNE_ENVS = {"Hopper-v4": (0.0, 3200.0), "Walker2d-v4": (0.0, 4500.0), "HalfCheetah-v4": (-300.0, 6300.0),
             "Ant-v4": (-500.0, 6000.0), "BipedalWalker-v3": (-120.0, 440.0), "Pendulum-v1": (-1500.0, 1350.0),
             "LunarLanderContinuous-v2": (-250.0, 520.0)}
RLLIB_KINDS = {"neg_large": (-20000.0, 18000.0), "cross": (-3000.0, 8000.0), "pos_large": (0.0, 40000.0)}


@dataclass
class Env:
    name: str
    unlock: int
    s0: float
    s1: float
    curve: str
    T: float
    noise: tuple                 # the training series' noise
    enoise: tuple | None = None  # the eval series' noise (None: never evaluated)
    event: str = "healthy"
    variant: str = ""
    at: int | None = None
    severity: str | None = None
    params: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- noise

def point_sd(noise: tuple, level: float) -> float:
    """A logged point's sd in skill units at a level."""
    kind = noise[0]
    if kind in ("binom", "pm1"):
        p = min(max(level, 0.0), 1.0)
        return math.sqrt(max(p * (1 - p), 0.0025) / noise[1])
    if kind == "episodes":  # a mean of 100 episodes (a rolling window, or one evaluation)
        return noise[1] / 10.0
    return float(noise[1])


def quieter(noise: tuple) -> tuple:
    if noise[0] in ("binom", "pm1"):
        return (noise[0], int(noise[1]) * 2)
    return (noise[0], noise[1] * 0.75, *noise[2:])


def shrink(env: Env, limit: float, levels) -> None:
    for _ in range(80):
        if max(point_sd(env.noise, lv) for lv in levels) > limit:
            env.noise = quieter(env.noise)
        elif env.enoise is not None and max(point_sd(env.enoise, lv) for lv in levels) > limit:
            env.enoise = quieter(env.enoise)
        else:
            return


def draw(noise: tuple, s: np.ndarray, rng) -> np.ndarray:
    """Observed skill-unit values around s (binomial lattices stay on [0, 1])."""
    kind = noise[0]
    if kind in ("binom", "pm1"):
        return rng.binomial(int(noise[1]), np.clip(s, 0, 1)) / int(noise[1])
    if kind == "gauss":
        return s + rng.normal(0, noise[1], len(s))
    if kind == "laplace":
        return s + rng.laplace(0, noise[1] / math.sqrt(2), len(s))
    if kind == "ar1":
        rho = noise[2]
        e = rng.normal(0, noise[1] * math.sqrt(1 - rho * rho), len(s))
        out = np.empty(len(s))
        prev = rng.normal(0, noise[1])
        for k in range(len(s)):
            prev = rho * prev + e[k]
            out[k] = prev
        return s + out
    if kind == "episodes":  # one evaluation's mean of 100 episodes
        return s + rng.normal(0, noise[1] / 10.0, len(s))
    raise ValueError(kind)


def rolling_episodes(s: np.ndarray, counts: np.ndarray, ep_sd: float, rng, window: int = 100):
    """RLlib's smoothed return: per iteration `counts[i]` episodes around s[i]; the logged value is the mean of the
    last max(counts[i], window) episodes (old stack: this iteration's padded with history to 100; new stack: a
    window of 100). Returns (logged, expected) per iteration."""
    eps = np.repeat(s, counts) + rng.normal(0, ep_sd, int(counts.sum()))
    exp_eps = np.repeat(s, counts)
    ends = np.cumsum(counts)
    n = np.minimum(np.maximum(counts, window), ends)
    c = np.concatenate([[0.0], np.cumsum(eps)])
    ce = np.concatenate([[0.0], np.cumsum(exp_eps)])
    return (c[ends] - c[ends - n]) / n, (ce[ends] - ce[ends - n]) / n


# --------------------------------------------------------------------------- truth

def base_f(env: Env, x: np.ndarray) -> np.ndarray:
    """The share of the gain reached x iterations after the unlock."""
    c = env.curve
    x = np.asarray(x, dtype=float)
    if c == "flat":
        return np.zeros_like(x)
    if c == "riser":
        return np.minimum(np.clip(x, 0, None) * env.params["slope"], env.params["cap"])
    if c == "pause":
        p = env.params
        t1, P, t2, f1 = p["t1"], p["pause"], p["t2"], p["f1"]
        return np.where(x < t1, f1 * np.clip(x / t1, 0, 1),
                        np.where(x < t1 + P, f1, f1 + (1 - f1) * np.clip((x - t1 - P) / t2, 0, 1)))
    u = np.clip(x / env.T, 0, 1)
    if c == "exp":
        return (1 - np.exp(-4 * u)) / (1 - math.exp(-4))
    if c == "logistic":
        lo, hi = 1 / (1 + math.exp(5)), 1 / (1 + math.exp(-5))
        return (1 / (1 + np.exp(-10 * (u - 0.5))) - lo) / (hi - lo)
    if c == "sqrt":
        return np.sqrt(u)
    return u


def curve_span(env: Env) -> float:
    if env.curve == "pause":
        return env.params["t1"] + env.params["pause"] + env.params["t2"]
    return env.T


def reach90(env: Env) -> float | None:
    if env.curve in ("flat", "riser"):
        return None
    x = np.linspace(0, curve_span(env), 8001)
    return float(x[np.flatnonzero(base_f(env, x) >= 0.9 - 1e-12)[0]])


def env_G(env: Env, run: dict) -> float:
    """The pace of the env's judged series: its evals', else its training's (a train-only env)."""
    return run["G"] if env.enoise is not None else run["J"]


def grad_it(env: Env, run: dict) -> float | None:
    """True graduation (iteration): 90 % of the gain reached, then held max(0.3 W, 3 G)."""
    if env.event in ("training_stagnation", "prolonged_training"):
        return None
    r = reach90(env)
    return None if r is None else env.unlock + r + max(0.3 * run["W"], 3 * env_G(env, run))


def truth(env: Env, run: dict, rng) -> tuple[np.ndarray, int | None]:
    L = run["L"]
    it = np.arange(L, dtype=float)
    gain = env.s1 - env.s0
    s = env.s0 + gain * base_f(env, it - env.unlock)
    held, a, p, v = env.s1, env.at, env.params, env.variant
    true_at = a
    if env.event == "graduated_regression":
        low = env.s0 + p["keep"] * gain
        frac = np.clip((it - a + 1) / p["fall"], 0, 1)
        s = np.where(it >= a, held + (low - held) * frac, s)
        if v == "temporary":
            s = np.where(it >= a + p["back"], held, s)
        true_at = int(np.flatnonzero((it >= a) & (s < env.s0 + 0.85 * gain - 1e-12))[0])
    elif env.event == "training_stagnation" and v == "freeze":
        s = np.where(it >= a, s[a], s)
    elif env.event == "performance_volatility" and v == "switch":
        lvl = np.full(L, held)
        i, high, phases = a, False, 0
        while i < L and (p["phases"] is None or phases < p["phases"]):
            # Markov dwells, capped at 2 x their mean: a phase 4 x longer than the others would end one unstable
            # period and start another (README: switching keeps a rhythm), which makes the onset ambiguous
            d = max(p["dmin"], rng.exponential(max(p["dwell"] - p["dmin"] / 2, 1)) + p["dmin"] / 2)
            d = int(min(d, 2 * p["dwell"]))
            lvl[i:i + d] = held if high else held - p["gap"] * gain
            i += d
            high = not high
            phases += 1
        s = np.where(it >= a, lvl, s)
    elif env.event == "performance_volatility" and v == "osc":
        # a rectified sine below the held level: it leaves the level at its full pace (a cosine's start would
        # blur the onset over a quarter period), back at the level once a period
        m = (it >= a) & (it < a + p["span"])
        s = np.where(m, held - p["p2p"] * gain * np.abs(np.sin(np.pi * (it - a) / p["period"])), s)
    elif env.event == "performance_volatility" and v == "burst":
        m = (it >= a) & (it < a + p["length"])
        z = np.abs(rng.normal(0, 1, L))
        s = np.where(m, held - z * p["bsd"] * gain, s)
    elif env.event == "level_up":
        s = np.where(it >= a, s + p["shift"] * gain, s)
    elif env.event == "drift":
        s = np.where(it >= a, s - p["down"] * gain * np.clip((it - a) / p["ramp"], 0, 1), s)
    s = np.clip(s, 0, 1)
    s[it < env.unlock] = np.nan
    return s, true_at


def pace(steps) -> float:
    """README's logging pace: the median interval when regular, else the mean of the intervals under 3 x median."""
    d = np.diff(np.unique(np.asarray(steps, dtype=float)))
    if not len(d):
        return 1.0
    med = float(np.median(d))
    ratio = d / med
    if np.mean(np.abs(ratio - np.round(ratio)) < 1e-6) > 0.9:
        return med
    return float(d[d < 3 * med].mean())


# --------------------------------------------------------------------------- placing events

def vis(run: dict) -> float:
    """Visibility factor on the bounds: tiny-batch runs are read smoothed (2 x); a rolling mean's point sd
    understates its slow wander (one window long), so it gets half the bounds."""
    if run.get("tiny"):
        return 2.0
    return 0.5 if run.get("win") else 1.0


def place_event(env: Env, ev: str, run: dict, rng, *, allow=("sudden", "gradual", "temporary"),
                vols=("switch", "osc", "burst"), stalls=("never", "freeze")) -> bool:
    """Place an event on a planned learner; False (nothing changed) when there is no room."""
    W, J, L = run["W"], run["J"], run["L"]
    G = env_G(env, run)
    gain = env.s1 - env.s0
    held = env.s1
    k = vis(run)
    win = run.get("win", 0.0)  # a rolling mean's window, in iterations
    if ev == "training_stagnation":
        variant = str(rng.choice(list(stalls)))
        if variant == "never":
            if L - env.unlock < 6 * W:
                return False
            env.event, env.variant, env.curve, env.at = ev, "never", "flat", env.unlock
            shrink(env, k * 0.05, [env.s0])
            return True
        curve = str(rng.choice(["exp", "linear", "sqrt"]))
        T = float(rng.uniform(2.0, 4.0) * W)
        frac = float(rng.uniform(0.2, 0.5))
        if run.get("rate"):
            frac = min(frac, (0.55 - env.s0) / gain)
        probe = Env(env.name, env.unlock, env.s0, env.s1, curve, T, env.noise)
        u = np.linspace(0, T, 8001)
        at = env.unlock + u[int(np.flatnonzero(base_f(probe, u) >= frac)[0])]
        at = int(math.ceil(max(at, env.unlock + max(0.4 * W, 6 * J, 2 * win))))
        frac = float(base_f(probe, np.array([at - env.unlock]))[0])
        if frac > 0.55 or frac < 0.15 or L - at < 5 * W:
            return False
        env.event, env.variant, env.curve, env.T, env.at = ev, "freeze", curve, T, at
        shrink(env, min(k * 0.05, 0.2 * k * frac * gain), [env.s0, env.s0 + frac * gain])
        return True
    g = grad_it(env, run)
    if g is None:
        return False
    start = g + max(W, 10 * G)
    free = L - start
    if ev == "graduated_regression":
        variant = str(rng.choice(list(allow)))
        sev = str(rng.choice(["warning", "critical"]))
        if run.get("tiny") and rng.random() < 0.6:
            sev = "critical"
        keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        last = max(2 * W, 15 * G, 30 * J if run.get("tiny") else 0)
        if variant == "gradual":
            slow = run["convention"] == "long_frames"  # a slow drift over many windows
            fall = float(rng.uniform(5, 40) * W) if slow else float(rng.uniform(0.5, 1.5) * W)
        else:
            fall = 1.0
        back = max(2 * W, 20 * G, 30 * J if run.get("tiny") else 0) if variant == "temporary" else 0.0
        need = fall + last + back + 2 * win
        if free <= need:
            return False
        env.event, env.variant, env.severity = ev, variant, sev
        env.at = int(rng.uniform(start, L - need))
        env.params.update(keep=keep, fall=fall, back=back)
        drop = (1 - keep) * gain
        shrink(env, k * 0.25 * drop, [held, held - drop])
        return True
    if ev == "performance_volatility":
        variant = str(rng.choice(list(vols)))
        if variant == "burst":
            length = float(max(W, 20 * G))
            need = length + max(W, 15 * G)
            if free <= need:
                return False
            bsd = float(rng.uniform(0.2, 0.3))
            env.params.update(length=length, bsd=bsd)
            shrink(env, k * min(0.04, bsd * gain / 4), [held, max(held - 2 * bsd * gain, 0.0)])
            env.at = int(rng.uniform(start, L - need))
        elif variant == "osc":
            period = float(rng.uniform(8, 16) * max(G, J))
            period = max(period, 4 * win, 8 * J)
            n_per = float(rng.uniform(6, 10))
            span = max(n_per * period, 2 * W)
            to_end = rng.random() < 0.5
            need = span + (0 if to_end else max(W, 10 * G))
            if free <= need:
                return False
            p2p = float(rng.uniform(0.4, 0.7))
            # a calm hold first: the wave's start is plain
            start = max(start, env.unlock + curve_span(env) + 2 * period)
            if L - start <= need:
                return False
            env.at = int(rng.uniform(start, L - need))
            if to_end:
                span = L - env.at
            env.params.update(period=period, span=span, p2p=p2p)
            shrink(env, k * p2p * gain / 6, [held, held - p2p * gain])
        else:
            dmin = max(4 * J, 4 * G, 8 * J if run.get("tiny") else 0, 2 * win)
            dwell = float(dmin * rng.uniform(1.0, 2.0))
            gap = float(rng.uniform(0.5, 0.7) if run.get("tiny") else rng.uniform(0.4, 0.6))
            phases = None if rng.random() < 0.5 else int(rng.integers(10, 15))
            need = max(2 * W, 10 * dwell) + (0 if phases is None else max(W, 10 * G) + 6 * dwell)
            if free <= need:
                return False
            start = max(start, env.unlock + curve_span(env) + 3 * dwell)  # the held stretch is no first high phase
            if L - start <= need:
                return False
            env.params.update(dwell=dwell, dmin=dmin, gap=gap, phases=phases)
            shrink(env, k * gap * gain / 5, [held, held - gap * gain])
            env.at = int(rng.uniform(start, L - need))
        env.event, env.variant = ev, variant
        return True
    if ev == "unexpected_transition":
        back = float(rng.uniform(0.5, 1.5) * W)
        if free <= back + W:
            return False
        env.event, env.variant = ev, "revisit"
        env.at = int(rng.uniform(start, L - back - W))
        env.params["back_for"] = back
        return True
    if ev == "eval_gap":
        if env.enoise is None:
            return False
        g50 = max(50.0 / run["unit"], G)
        need = max(8 * g50, 2 * W) + 2 * G
        if free <= need:
            return False
        env.event, env.variant = ev, "stop"
        env.at = int(rng.uniform(start, L - need))
        return True
    return False


def place_negative(env: Env, run: dict, rng, heavy: tuple, heavy_eval: tuple | None, pool) -> None:
    W, L = run["W"], run["L"]
    G = env_G(env, run)
    neg = str(rng.choice(list(pool)))
    g = grad_it(env, run)
    if neg == "noisy_healthy":
        env.noise = heavy
        if env.enoise is not None:
            env.enoise = heavy_eval
    elif neg in ("single_outlier", "level_up", "drift"):
        if g is None or L - (g + max(W, 10 * G)) <= 4 * W:
            neg = "healthy"
        else:
            env.at = int(rng.uniform(g + max(W, 10 * G), L - 3 * W))
            if neg == "level_up":
                up = float(rng.uniform(0.03, 0.05))
                if 1.0 - env.s1 < up * (env.s1 - env.s0) + 0.01:
                    neg, env.at = "healthy", None
                else:
                    env.params["shift"] = up
            elif neg == "drift":
                env.params.update(down=float(rng.uniform(0.04, 0.07)), ramp=float(rng.uniform(1, 3) * W))
    elif neg == "pause":
        env.curve = "pause"
        env.params.update(f1=float(rng.uniform(0.35, 0.6)), t1=float(rng.uniform(0.5, 1.0) * W),
                          pause=float(rng.uniform(1.0, 2.0) * W), t2=float(rng.uniform(0.5, 1.2) * W))
        gg = grad_it(env, run)
        if gg is None or gg + 2 * W > L:
            env.curve, neg = "exp", "healthy"
            for key in ("f1", "t1", "pause", "t2"):
                env.params.pop(key)
    elif neg == "late_healthy":
        unlock = int(rng.uniform(0.35, 0.55) * L)
        T = min(env.T, 0.25 * L)
        if unlock + T + 3 * W > L or T < 1.2 * W:
            neg = "healthy"
        else:
            env.unlock, env.T = unlock, T
    env.event = neg


def make_prolonged(env: Env, run: dict) -> None:
    W = run["W"]
    env.unlock = 0
    env.event, env.variant, env.curve = "prolonged_training", "riser", "riser"
    # a share of the gain per iteration: a steady climb that never flattens within the run (at most 0.68 at its end)
    env.params.update(slope=min(float(run["rng_slope"]) / W, 0.68 / max(run["L"] - 1, 1)), cap=0.68)
    env.at = 0
    shrink(env, max(vis(run), 1.0) * 0.03, [env.s0, env.s0 + 0.7 * (env.s1 - env.s0)])


def stall_budget_ok(envs: list[Env], bounded: bool) -> bool:
    """One more stall keeps at least as many learners as stalls? (unbounded metrics: README's shared scale needs
    siblings that reach the top; rates stall against [0, 1] whatever the siblings do)."""
    if bounded:
        return True
    stalls = sum(e.event in ("training_stagnation", "prolonged_training") for e in envs)
    return stalls + 1 <= len(envs) // 2


def plan_envs(run: dict, rng, envs: list[Env], pool: list[str], neg_pool, heavy, heavy_eval, *,
              p_event: float, bounded: bool, **kw) -> None:
    """Events on some envs, clean negatives on the rest (env 0 is the riser of a prolonged run)."""
    for k, env in enumerate(envs):
        if run.get("prolonged") and k == 0:
            make_prolonged(env, run)
            continue
        if rng.random() < p_event:
            for _ in range(3):
                ev = str(rng.choice(pool))
                if ev == "training_stagnation" and not stall_budget_ok(envs, bounded):
                    continue
                saved = (env.curve, env.T, env.noise, env.enoise, dict(env.params))
                if place_event(env, ev, run, rng, **kw):
                    break
                env.curve, env.T, env.noise, env.enoise, env.params = saved
                env.event, env.variant, env.at, env.severity = "healthy", "", None, None
        if env.event == "healthy":
            pool_k = [x for x in neg_pool if not (run.get("prolonged") and x in ("pause", "late_healthy"))]
            place_negative(env, run, rng, heavy, heavy_eval, pool_k)


# --------------------------------------------------------------------------- series and labels

def logged_states(env: Env, run: dict) -> np.ndarray:
    L = run["L"]
    it = np.arange(L)
    state = np.where(it < env.unlock, 0, 1)
    g = grad_it(env, run)
    if g is not None:
        state = np.where(it >= math.ceil(g), 2, state)
    if env.event == "unexpected_transition":
        state = np.where((it >= env.at) & (it < env.at + env.params["back_for"]), 1, state)
    return state


def burst_onset(env: Env, s: np.ndarray, judged: np.ndarray) -> int:
    gain = env.s1 - env.s0
    sd = max(point_sd(n, env.s1) for n in (env.noise, env.enoise) if n is not None)
    off = np.abs(s - env.s1) > max(0.15 * gain, 4 * sd)
    a, length = env.at, env.params["length"]
    cand = judged[(judged >= a) & (judged < a + length)]
    hit = cand[off[cand]]
    return int(hit[0]) if len(hit) else a


def event_onset(env: Env, run: dict, d: dict, true_at: int) -> int | None:
    """The label's onset iteration (see the docstring), or None when nothing is logged after it."""
    tr, ev = d["train_it"], d["eval_it"]
    t0 = env.unlock if env.variant == "never" else true_at
    cands = []
    e_after = ev[ev >= t0]
    if len(e_after):
        cands.append(int(e_after[0]))
    if d.get("expected") is not None:  # a rolling mean: where its expected value shows the event
        gain = env.s1 - env.s0
        if env.event == "graduated_regression":
            ok = tr[(tr >= true_at) & (d["expected"] < env.s0 + 0.85 * gain - 1e-12)]
        elif env.variant == "freeze":
            ok = tr[tr >= t0 + run["win"] / 2]
        else:
            ok = tr[tr >= t0]
    else:
        ok = tr[tr >= t0]
    if len(ok):
        cands.append(int(ok[0]))
    return min(cands) if cands else None


def make_label(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant or env.curve}", variant=env.variant,
                noise=str(env.noise[0]))


def env_data(env: Env, run: dict, rng, eval_its: np.ndarray, *,
             rolling: np.ndarray | None = None) -> tuple[dict, dict | None]:
    """Train/eval iterations and skill-unit values of one env, and its label (if it carries an event).
    rolling: per-iteration episode counts when training is logged as RLlib's rolling mean."""
    L, W = run["L"], run["W"]
    s, true_at = truth(env, run, rng)
    tr = np.arange(env.unlock, L)
    evs = eval_its[eval_its >= env.unlock] if env.enoise is not None else np.zeros(0, int)
    if env.event == "eval_gap":
        evs = evs[evs <= env.at]
    if env.event == "performance_volatility" and env.variant == "burst":
        true_at = burst_onset(env, s, np.union1d(tr, evs))
    sk = np.where(np.isnan(s), env.s0, s)
    expected = None
    if rolling is not None:
        train, expected = rolling_episodes(sk[tr], rolling[tr], env.noise[1], rng)
    else:
        train = draw(env.noise, sk[tr], rng)
    ev_vals = draw(env.enoise, sk[evs], rng) if len(evs) else np.zeros(0)
    if env.event == "single_outlier":
        low = env.s0 + 0.05 * (env.s1 - env.s0)

        def on_lattice(noise: tuple) -> float:  # a rate's outlier is still a count of episodes
            return round(low * noise[1]) / noise[1] if noise[0] in ("binom", "pm1") else low

        if len(evs):
            j = int(np.searchsorted(evs, env.at))
            ev_vals[min(j, len(evs) - 1)] = on_lattice(env.enoise)
        else:
            train[int(np.searchsorted(tr, env.at))] = on_lattice(env.noise)
    d = {"train_it": tr, "train": train, "eval_it": evs, "eval": ev_vals, "expected": expected,
         "state": logged_states(env, run), "grad": grad_it(env, run), "s": s}
    lab = None
    step = run["step_of"]
    if env.event == "eval_gap":
        own = pace(step(eval_its[eval_its >= env.unlock]))
        lab = make_label(run, env, step(evs[-1]) + own)
    elif env.event == "prolonged_training":
        lab = make_label(run, env, step(tr[0]) + 10 * W * run["unit"])
    elif env.event == "unexpected_transition":
        st = d["state"]
        lab = make_label(run, env, step(np.flatnonzero((np.arange(L) >= env.at) & (st == 1))[0]))
    elif env.event in EVENTS:
        on = event_onset(env, run, d, true_at)
        if on is not None:
            lab = make_label(run, env, step(on))
    return d, lab


def stepper(step0: int, unit: int, off: int):
    """step(i) = step0 + unit * (i + off), for an iteration or an array of them."""
    def step(i):
        if np.ndim(i):
            return np.asarray(step0 + unit * (np.asarray(i) + off), dtype=np.int64)
        return int(step0 + unit * (int(i) + off))
    return step


def windows(run: dict) -> None:
    """W, Q in iterations from the run's logging (README: training_stagnation's window, the tolerance unit; a
    rolling mean cannot place an event closer than half its window, so that is the least Q there)."""
    U = run["unit"]
    span = U * (run["L"] - 1)
    W_steps = max(min(100.0, 0.1 * span), 20 * run["J"] * U)
    run["W"] = W_steps / U
    run["Q"] = max(run["W"] / 10, run["G"], run.get("win", 0.0) / 2)


# --------------------------------------------------------------------------- rllib_ma (Tune, new API stack)

def plan_rllib(run: dict, rng) -> None:
    U = int(rng.choice([4000, 8000, 16000]))
    E = int(rng.choice([10, 20, 40]))  # episodes a module completes per iteration
    e = int(rng.choice([0, 2, 5, 10]))
    kind = str(rng.choice(list(RLLIB_KINDS)))
    n = int(rng.integers(2, 7))
    prolonged = n >= 3 and rng.random() < 0.25
    step0 = int(rng.choice([0, 0, int(rng.integers(1, 41)) * 1_000_000]))
    run.update(unit=U, E=E, eval_every=e, kind=kind, step0=step0, J=1.0, G=float(e or 1), prolonged=prolonged,
               win=100.0 / E, L=int(rng.integers(300, 701)))
    run["step_of"] = stepper(step0, U, 1)
    windows(run)
    if prolonged:
        run["L"] = int(math.ceil(rng.uniform(12.5, 15.0) * run["W"]))
        windows(run)
    run["rng_slope"] = float(rng.uniform(0.045, 0.06))
    W = run["W"]
    s0r, topr = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.88, 0.97))
    names = [str(x) for x in rng.permutation(MODULES)[:n]]
    envs = []
    for k, nm in enumerate(names):
        unlock = int(rng.uniform(0.05, 0.2) * run["L"]) if (k and rng.random() < 0.4) else 0
        if prolonged:
            unlock = min(unlock, int(1.5 * W))
        ep = ("episodes", float(rng.uniform(0.15, 0.5)))
        env = Env(nm, unlock, s0r + float(rng.uniform(0, 0.03)), topr - float(rng.uniform(0, 0.03)),
                  str(rng.choice(["exp", "logistic", "sqrt", "linear"])), float(rng.uniform(1.2, 3.0) * W), ep,
                  ep if e else None)
        if prolonged:
            env.T = min(env.T, 2.5 * W)
        envs.append(env)
    run["envs"] = envs
    pool = ["graduated_regression"] * 3 + ["training_stagnation"] * 2 + ["performance_volatility"] * 3
    if e:
        pool += ["eval_gap"] * 2
    negatives = ["healthy", "healthy", "noisy_healthy", "level_up", "drift", "pause", "late_healthy"]
    plan_envs(run, rng, envs, pool, negatives,
              ("episodes", 1.0), ("episodes", 1.0) if e else None, p_event=0.6, bounded=False,
              allow=("sudden", "gradual"), vols=("switch", "osc"))
    for env in envs:
        if env.event == "late_healthy" and envs.index(env) == 0:
            env.event, env.unlock = "healthy", 0


def series_rllib(run: dict, rng) -> tuple[dict, list[dict]]:
    L, e = run["L"], run["eval_every"]
    eval_its = np.arange(L)[(np.arange(L) + 1) % e == 0] if e else np.zeros(0, int)
    data, labels = {}, []
    for env in run["envs"]:
        counts = np.maximum(1, np.round(run["E"] * rng.uniform(0.8, 1.2, L))).astype(int)
        d, lab = env_data(env, run, rng, eval_its, rolling=counts)
        d["counts"] = counts
        data[env.name] = d
        if lab:
            labels.append(lab)
    return data, labels


def write_rllib(folder: Path, run: dict, data: dict, rng) -> None:
    from writers import write_tune_trial

    a, b = RLLIB_KINDS[run["kind"]]
    L, U = run["L"], run["unit"]
    step = run["step_of"]
    envs = run["envs"]
    vals = {env.name: {"tr": dict(zip(data[env.name]["train_it"].tolist(), data[env.name]["train"].tolist())),
                       "ev": dict(zip(data[env.name]["eval_it"].tolist(), data[env.name]["eval"].tolist()))}
            for env in envs}
    results, t_total = [], 0.0
    lifetime_eps = 0
    for i in range(L):
        mods = {env.name: a + b * vals[env.name]["tr"][i] for env in envs if i in vals[env.name]["tr"]}
        n_eps = int(sum(data[env.name]["counts"][i] for env in envs if i >= env.unlock))
        lifetime_eps += n_eps
        dt = float(rng.uniform(9, 14))
        t_total += dt
        r = {
            "env_runners": {
                "episode_return_mean": float(sum(mods.values())) if mods else None,
                "episode_len_mean": float(rng.uniform(180, 220)),
                "num_episodes": n_eps,
                "num_env_steps_sampled": U,
                "num_env_steps_sampled_lifetime": step(i),
                "module_episode_returns_mean": mods,
                "agent_episode_returns_mean": {f"{m}_0": v for m, v in mods.items()},
            },
            "learners": {**{m: {"total_loss": float(rng.uniform(0.1, 2.0)), "vf_loss": float(rng.uniform(0.1, 5.0)),
                                "entropy": float(rng.uniform(0.5, 1.5))} for m in mods},
                         "__all_modules__": {"num_env_steps_trained": U}},
            "num_env_steps_sampled_lifetime": step(i),
            "num_episodes_lifetime": lifetime_eps,
            "training_iteration": i + 1,
            "iterations_since_restore": i + 1,
            "time_this_iter_s": dt,
            "time_total_s": t_total,
            "done": i == L - 1,
            "trial_id": run["trial_id"],
            "date": "2026-02-01_10-00-00",
            "timestamp": 1_769_940_000 + int(t_total),
            "pid": 4242,
            "hostname": "head-node",
            "node_ip": "10.0.0.2",
        }
        ev = {env.name: a + b * vals[env.name]["ev"][i] for env in envs if i in vals[env.name]["ev"]}
        if run["eval_every"] and (i + 1) % run["eval_every"] == 0:
            r["evaluation"] = {"env_runners": {"module_episode_returns_mean": ev,
                                               "episode_return_mean": float(sum(ev.values())) if ev else None,
                                               "num_episodes": 100}}
        if r["env_runners"]["episode_return_mean"] is None:
            del r["env_runners"]["episode_return_mean"]
        results.append(r)
    config = {"env": "multitask_curriculum", "framework": "torch", "num_env_runners": 2, "train_batch_size": U,
              "evaluation_interval": run["eval_every"] or None, "evaluation_duration": 100,
              "metrics_num_episodes_for_smoothing": 100, "policies": sorted(e.name for e in envs)}
    trial = f"PPO_multitask_curriculum_{run['trial_id']}_00000_0_2026-02-01_10-00-00"
    write_tune_trial(folder / trial, results, config)


# --------------------------------------------------------------------------- tbx_scalars (add_scalars, tiny batches)

def plan_tbx(run: dict, rng) -> None:
    fail = rng.random() < 0.35
    if fail:
        run["name"] += "_fail"
    u = int(rng.choice([1, 10]))
    n = int(rng.integers(3, 10))
    prolonged = u == 10 and n >= 3 and rng.random() < 0.3
    gmean = int(rng.choice([3, 5, 8, 12]))
    L = int(rng.integers(300, 1001))
    run.update(unit=u, step0=int(rng.choice([0, 0, 5000])), J=1.0, metric="fail_rate" if fail else "success",
               explicit=bool(rng.random() < 0.5), tiny=True, rate=True, prolonged=prolonged, L=L, gmean=gmean)
    step0 = run["step0"]
    run["step_of"] = stepper(step0, u, 0)
    run["G"] = float(gmean)
    windows(run)
    if prolonged:
        run["L"] = int(math.ceil(rng.uniform(12.5, 15.0) * run["W"]))
        windows(run)
    # the run's irregular eval schedule (one for every evaluated env), then its README pace
    its, i = [], int(gmean * rng.uniform(0.5, 1.5))
    while i < run["L"]:
        its.append(i)
        i += max(1, int(round(gmean * rng.uniform(0.5, 1.5))))
    run["eval_sched"] = np.asarray(its, int)
    run["G"] = pace(run["eval_sched"])
    windows(run)
    run["rng_slope"] = float(rng.uniform(0.045, 0.06))
    W = run["W"]
    s0r, topr = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.9, 0.97))
    names = [str(x) for x in rng.permutation(TBX_ENVS)[:n]]
    envs = []
    for k, nm in enumerate(names):
        unlock = int(rng.uniform(0.05, 0.2) * run["L"]) if (k and rng.random() < 0.4) else 0
        if prolonged:
            unlock = min(unlock, int(1.5 * W))
        evaluated = k == 0 or rng.random() >= 0.25
        env = Env(nm, unlock, s0r + float(rng.uniform(0, 0.03)), topr - float(rng.uniform(0, 0.03)),
                  str(rng.choice(["exp", "logistic", "sqrt", "linear"])), float(rng.uniform(1.2, 3.0) * W),
                  ("binom", int(rng.choice([4, 5, 6, 8]))),
                  ("binom", int(rng.choice([8, 10, 16]))) if evaluated else None)
        if prolonged:
            env.T = min(env.T, 2.5 * W)
        envs.append(env)
    run["envs"] = envs
    pool = (["graduated_regression"] * 3 + ["training_stagnation"] * 2 + ["performance_volatility"] * 3
            + ["eval_gap"] * 2)
    if run["explicit"]:
        pool += ["unexpected_transition"] * 2
    plan_envs(run, rng, envs, pool, ["healthy", "healthy", "noisy_healthy", "single_outlier", "level_up", "pause",
                                     "late_healthy"],
              ("binom", 3), ("binom", 4), p_event=0.55, bounded=True, vols=("switch",))
    for k, env in enumerate(envs):
        if env.event == "late_healthy" and k == 0:
            env.event, env.unlock = "healthy", 0
        if env.event == "healthy" and env.enoise is None:
            env.event = "train_only"


def series_each(run: dict, rng, eval_its=None) -> tuple[dict, list[dict]]:
    """Each env's series by env_data on the run's eval schedule (tbx_scalars, long_frames; wandb_many's
    every eval_every iterations)."""
    data, labels = {}, []
    for env in run["envs"]:
        d, lab = env_data(env, run, rng, run["eval_sched"] if eval_its is None else eval_its)
        data[env.name] = d
        if lab:
            labels.append(lab)
    return data, labels


def write_tbx(folder: Path, run: dict, data: dict, rng) -> None:
    from tensorboardX import SummaryWriter

    step = run["step_of"]
    metric = run["metric"]
    to_metric = (lambda x: 1.0 - x) if metric == "fail_rate" else (lambda x: x)
    L = run["L"]
    train = {i: {} for i in range(L)}
    evals = {i: {} for i in range(L)}
    states = {i: {} for i in range(L)}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(d["train_it"].tolist(), d["train"].tolist()):
            train[i][env.name] = float(to_metric(v))
        for i, v in zip(d["eval_it"].tolist(), d["eval"].tolist()):
            evals[i][env.name] = float(to_metric(v))
        if run["explicit"]:
            st, last = d["state"], None
            for i in range(L):
                if i % 5 == 0 or st[i] != last:
                    states[i][env.name] = int(st[i])
                    last = st[i]
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000)
    for i in range(L):
        wt = 1.772e9 + 20.0 * i
        if i % 10 == 0:
            w.add_scalar("lr", 3e-4 * 0.999 ** i, step(i), walltime=wt)
        if train[i]:
            w.add_scalars(f"{metric}/train", train[i], step(i), walltime=wt)
        if evals[i]:
            w.add_scalars(f"{metric}/eval", evals[i], step(i), walltime=wt + 5)
        if states[i]:
            w.add_scalars("curriculum/state", states[i], step(i), walltime=wt)
    w.close()


# --------------------------------------------------------------------------- wandb_many (60..150 envs, define_metric)

def plan_many(run: dict, rng) -> None:
    U = int(rng.choice([1_048_576, 4_194_304]))
    step0 = int(rng.choice([0, 250_000_000, 600_000_000]))
    e = int(rng.choice([2, 4]))
    n = int(rng.integers(60, 151))
    prolonged = rng.random() < 0.3
    run.update(unit=U, step0=step0, eval_every=e, J=1.0, G=float(e), words=bool(rng.random() < 0.5),
               prolonged=prolonged, L=int(rng.integers(200, 301)), n_envs=n)
    run["step_of"] = stepper(step0, U, 0)
    windows(run)
    if prolonged:
        run["L"] = int(math.ceil(rng.uniform(12.5, 15.0) * run["W"]))
        windows(run)
    run["rng_slope"] = float(rng.uniform(0.045, 0.06))
    W, L = run["W"], run["L"]
    s0r, topr = float(rng.uniform(0.02, 0.12)), float(rng.uniform(0.88, 0.96))
    pm1 = rng.random() < 0.6
    envs = []
    prefix = str(rng.choice(["maze", "lvl", "room", "task"]))
    for k in range(n):
        unlock = 0 if (k == 0 or rng.random() < 0.55) else int(10 * round(rng.uniform(0.05, 0.3) * L / 10))
        if prolonged:
            unlock = min(unlock, int(1.5 * W))
        if pm1:
            nn = int(rng.choice([16, 32, 64]))
            noise, enoise = ("pm1", nn), ("pm1", 2 * nn)
        else:
            sd = float(rng.uniform(0.01, 0.03))
            noise, enoise = ("gauss", sd), ("gauss", sd * 0.8)
        env = Env(f"{prefix}_{k:03d}", unlock, s0r + float(rng.uniform(0, 0.03)), topr - float(rng.uniform(0, 0.03)),
                  str(rng.choice(["exp", "logistic", "sqrt", "linear"])), float(rng.uniform(1.2, 2.5) * W),
                  noise, enoise)
        envs.append(env)
    run["envs"] = envs
    pool = (["graduated_regression"] * 3 + ["training_stagnation"] * 2 + ["performance_volatility"] * 3
            + ["eval_gap"] * 2)
    if run["words"]:
        pool += ["unexpected_transition"] * 2
    heavy = ("pm1", 6) if pm1 else ("gauss", 0.09)
    plan_envs(run, rng, envs, pool, ["healthy", "healthy", "healthy", "noisy_healthy", "single_outlier", "level_up",
                                     "drift", "pause"],
              heavy, ("pm1", 8) if pm1 else ("gauss", 0.08), p_event=0.06, bounded=False,
              vols=("switch", "burst"))


def series_many(run: dict, rng) -> tuple[dict, list[dict]]:
    return series_each(run, rng, np.arange(0, run["L"], run["eval_every"]))


def write_many(folder: Path, run: dict, data: dict, rng) -> None:
    from writers import write_wandb

    step = run["step_of"]
    L = run["L"]
    rows = [{"env_frames": step(i)} for i in range(L)]
    words = ("locked", "active", "graduated")
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(d["train_it"].tolist(), d["train"].tolist()):
            rows[i][f"train/{env.name}/reward"] = float(2 * v - 1)
        for i, v in zip(d["eval_it"].tolist(), d["eval"].tolist()):
            rows[i][f"eval/{env.name}/reward"] = float(2 * v - 1)
        if run["words"]:
            for i in range(L):
                rows[i][f"curriculum/{env.name}/state"] = words[int(d["state"][i])]
    for i in range(L):
        rows[i]["learner/entropy"] = float(1.5 * 0.995 ** i)
    rid = f"{zlib.crc32(run['name'].encode()) & 0xFFFFFFF:07x}m"
    write_wandb(folder / "wandb", rows, run_id=rid, name=run["name"],
                define_metrics=(("train/*", "env_frames"), ("eval/*", "env_frames"), ("curriculum/*", "env_frames")),
                stamp="20260301_120000")


# --------------------------------------------------------------------------- long_frames (20k+ points an env)

def plan_long(run: dict, rng) -> None:
    n = int(rng.choice([1, 1, 2, 2, 3]))
    U = int(rng.choice([4096, 16384]))
    step0 = int(rng.choice([0, 120_000_000, 350_000_000]))
    L = int(rng.integers(16000, 28001))
    e = int(rng.choice([40, 60, 100]))
    irregular = rng.random() < 0.3
    rate = rng.random() < 0.4
    run.update(unit=U, step0=step0, L=L, J=1.0, rate=rate, explicit=bool(rng.random() < 0.4), emean=e,
               irregular=irregular, kind="rate" if rate else "return",
               scale=(0.0, 1.0) if rate else (float(rng.uniform(-500, 0)), float(rng.uniform(300, 5000))))
    run["step_of"] = stepper(step0, U, 0)
    if irregular:
        its, i = [], int(e * rng.uniform(0.5, 1.5))
        while i < L:
            its.append(i)
            i += max(1, int(round(e * rng.uniform(0.5, 1.5))))
        run["eval_sched"] = np.asarray(its, int)
    else:
        run["eval_sched"] = np.arange(e - 1, L, e)
    run["G"] = pace(run["eval_sched"])
    windows(run)
    s0r, topr = float(rng.uniform(0.02, 0.1)), float(rng.uniform(0.88, 0.96))
    names = [str(x) for x in rng.permutation(LONG_ENVS)[:n]]
    envs = []
    for k, nm in enumerate(names):
        unlock = 0 if k == 0 or rng.random() < 0.5 else int(rng.uniform(0.1, 0.3) * L)
        if rate:
            nt = int(rng.choice([32, 64, 128]))
            noise, enoise = ("binom", nt), ("binom", 2 * nt)
        else:
            fam = str(rng.choice(["gauss", "laplace", "ar1"]))
            sd = float(rng.uniform(0.01, 0.05))
            noise = (fam, sd, float(rng.uniform(0.3, 0.7))) if fam == "ar1" else (fam, sd)
            enoise = ("gauss", sd * float(rng.uniform(0.5, 1.0)))
        env = Env(nm, unlock, s0r + float(rng.uniform(0, 0.03)), topr - float(rng.uniform(0, 0.03)),
                  str(rng.choice(["exp", "logistic", "sqrt", "linear"])), float(rng.uniform(0.02, 0.08) * L),
                  noise, enoise)
        envs.append(env)
    run["envs"] = envs
    pool = ["graduated_regression"] * 3 + ["performance_volatility"] * 3 + ["eval_gap"]
    if rate or n >= 2:  # one env of returns: its flat level could be its own top (no stall labelled there)
        pool += ["training_stagnation"] * 2
    if run["explicit"]:
        pool += ["unexpected_transition"]
    heavy = ("binom", 8) if rate else ("gauss", 0.1)
    # two envs of returns: a stall beside a sibling that learns (stall_budget_ok)
    plan_envs(run, rng, envs, pool, ["healthy", "healthy", "noisy_healthy", "single_outlier", "level_up", "drift"],
              heavy, ("binom", 16) if rate else ("gauss", 0.08), p_event=0.8, bounded=rate)


def write_long(folder: Path, run: dict, data: dict, rng) -> None:
    from tensorboardX import SummaryWriter

    a, b = run["scale"]
    step = run["step_of"]
    L = run["L"]
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=200_000)
    per_it: list[list] = [[] for _ in range(L)]
    for env in run["envs"]:
        d = data[env.name]
        tag = f"train/{env.name}/reward"
        for i, v in zip(d["train_it"].tolist(), (a + b * d["train"]).tolist()):
            per_it[i].append((tag, v))
        tag = f"eval/{env.name}/reward"
        for i, v in zip(d["eval_it"].tolist(), (a + b * d["eval"]).tolist()):
            per_it[i].append((tag, v))
        if run["explicit"]:
            st, last = d["state"], None
            tag = f"curriculum/{env.name}/state"
            for i in range(L):
                if i % 50 == 0 or st[i] != last:
                    per_it[i].append((tag, float(st[i])))
                    last = st[i]
    for i in range(L):
        st, wt = step(i), 1.773e9 + 3.0 * i
        for tag, v in per_it[i]:
            w.add_scalar(tag, v, st, walltime=wt)
    w.close()


# --------------------------------------------------------------------------- tune_csv_sweep (progress.csv only)

def plan_tune_csv(run: dict, rng) -> None:
    env_id = str(rng.choice(list(TUNE_ENVS)))
    U = int(rng.choice([1000, 2000, 4000]))
    E = int(rng.choice([15, 30, 60]))
    eval1 = rng.random() < 0.3
    prolonged = rng.random() < 0.2
    run.update(unit=U, E=E, env_id=env_id, eval1=eval1, eval_every=1 if eval1 else int(rng.choice([5, 10])),
               J=1.0, G=1.0, win=100.0 / E, L=int(rng.integers(150, 421)), prolonged=prolonged,
               lr=float(rng.choice([1e-4, 3e-4, 1e-3])), trial_index=int(rng.integers(0, 12)))
    run["step_of"] = stepper(0, U, 1)
    windows(run)
    if prolonged:
        run["L"] = int(math.ceil(rng.uniform(12.5, 15.0) * run["W"]))
        windows(run)
    run["rng_slope"] = float(rng.uniform(0.045, 0.06))
    W = run["W"]
    ep = ("episodes", float(rng.uniform(0.15, 0.5)))
    env = Env(env_id, 0, float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.85, 0.97)),
              str(rng.choice(["exp", "logistic", "sqrt", "linear"])), float(rng.uniform(1.2, 3.0) * W), ep,
              ep if eval1 else None)
    run["envs"] = [env]
    if prolonged:
        make_prolonged(env, run)
        return
    if rng.random() < 0.65:
        for _ in range(3):
            pool = ["graduated_regression"] * 3 + ["performance_volatility"] * 2 + ["training_stagnation"]
            ev = str(rng.choice(pool))
            saved = (env.curve, env.T, env.noise, env.enoise, dict(env.params))
            if place_event(env, ev, run, rng, allow=("sudden", "gradual"), vols=("switch", "osc"), stalls=("never",)):
                break
            env.curve, env.T, env.noise, env.enoise, env.params = saved
            env.event, env.variant, env.at, env.severity = "healthy", "", None, None
    if env.event == "healthy":
        place_negative(env, run, rng, ("episodes", 1.0), ("episodes", 1.0) if eval1 else None,
                       ["healthy", "healthy", "noisy_healthy", "level_up", "drift", "pause"])


def series_tune_csv(run: dict, rng) -> tuple[dict, list[dict]]:
    L = run["L"]
    env = run["envs"][0]
    eval_its = np.arange(L) if run["eval1"] else np.zeros(0, int)
    counts = np.maximum(1, np.round(run["E"] * rng.uniform(0.7, 1.3, L))).astype(int)
    d, lab = env_data(env, run, rng, eval_its, rolling=counts)
    d["counts"] = counts
    return {env.name: d}, [lab] if lab else []


def write_tune_csv(folder: Path, run: dict, data: dict, rng) -> None:
    """progress.csv as Ray's CSVLoggerCallback writes it (ray/tune/logger/csv.py:59-68: the header is the first
    result's flattened keys, later rows keep only those), params.json as JsonLoggerCallback writes it; no
    result.json (only the CSV was kept)."""
    a, b = TUNE_ENVS[run["env_id"]]
    env = run["envs"][0]
    d = data[env.name]
    step = run["step_of"]
    L = run["L"]
    k = run["trial_index"]
    trial = folder / (f"PPO_{run['env_id']}_{zlib.crc32(run['name'].encode()) & 0xFFFFF:05x}_"
                      f"{k:05d}_{k}_lr={run['lr']:.4f}_2026-03-0{1 + k % 9}_08-00-00")
    trial.mkdir(parents=True, exist_ok=True)
    config = {"env": run["env_id"], "lr": run["lr"], "train_batch_size": run["unit"], "num_workers": 2,
              "evaluation_interval": run["eval_every"], "evaluation_duration": 100, "framework": "torch"}
    (trial / "params.json").write_text(json.dumps(config, indent=2, sort_keys=True))
    tr = dict(zip(d["train_it"].tolist(), (a + b * d["train"]).tolist()))
    ev = dict(zip(d["eval_it"].tolist(), (a + b * d["eval"]).tolist()))
    t_total = 0.0
    with open(trial / "progress.csv", "w", newline="") as f:
        writer = None
        for i in range(L):
            dt = float(rng.uniform(4, 8))
            t_total += dt
            ret = tr[i]
            r = {
                "episode_reward_max": ret + abs(b) * float(rng.uniform(0.05, 0.2)),
                "episode_reward_min": ret - abs(b) * float(rng.uniform(0.05, 0.3)),
                "episode_reward_mean": ret,
                "episode_len_mean": float(rng.uniform(400, 1000)),
                "episodes_this_iter": int(d["counts"][i]),
                "num_healthy_workers": 2,
                "timesteps_total": step(i),
                "num_env_steps_sampled": step(i),
                "num_agent_steps_sampled": step(i),
                "done": i == L - 1,
                "episodes_total": int(d["counts"][:i + 1].sum()),
                "training_iteration": i + 1,
                "trial_id": f"{zlib.crc32(run['name'].encode()) & 0xFFFFF:05x}_{run['trial_index']:05d}",
                "date": "2026-03-01_08-00-00",
                "timestamp": 1_772_352_000 + int(t_total),
                "time_this_iter_s": dt,
                "time_total_s": t_total,
                "pid": 31337,
                "hostname": "worker-3",
                "node_ip": "10.0.0.7",
                "time_since_restore": t_total,
                "timesteps_since_restore": step(i),
                "iterations_since_restore": i + 1,
            }
            if i in ev:
                r["evaluation/episode_reward_mean"] = ev[i]
                r["evaluation/episode_len_mean"] = float(rng.uniform(400, 1000))
            elif (i + 1) % run["eval_every"] == 0:
                r["evaluation/episode_reward_mean"] = ret  # an evaluation the CSV's header has no column for
            r["sampler_results/episode_reward_mean"] = ret
            r["info/learner/default_policy/learner_stats/total_loss"] = float(rng.uniform(0.1, 3.0))
            r["info/learner/default_policy/learner_stats/entropy"] = float(rng.uniform(0.2, 1.5))
            if writer is None:
                writer = csv.DictWriter(f, list(r))
                writer.writeheader()
            writer.writerow({k: v for k, v in r.items() if k in writer.fieldnames})


# --------------------------------------------------------------------------- build

PLANNERS = {"rllib_ma": (plan_rllib, series_rllib, write_rllib), "tbx_scalars": (plan_tbx, series_each, write_tbx),
            "wandb_many": (plan_many, series_many, write_many), "long_frames": (plan_long, series_each, write_long),
            "tune_csv_sweep": (plan_tune_csv, series_tune_csv, write_tune_csv)}


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)
    plans = []
    for i in range(n_runs):
        conv = CYCLE[i % len(CYCLE)]
        run = dict(name=f"y{i:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        run["trial_id"] = f"{zlib.crc32(f'{seed}-{i}'.encode()) & 0xFFFFF:05x}"
        PLANNERS[conv][0](run, rng)
        plans.append(run)
    labels: list[dict] = []
    for run in plans:
        rrng = np.random.default_rng(run["seed"])
        conv = run["convention"]
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        _plan, series, write = PLANNERS[conv]
        data, lab = series(run, rrng)
        write(folder, run, data, rrng)
        labels += lab
        U = run["unit"]
        meta = {k: v for k, v in run.items() if k not in ("envs", "step_of", "eval_sched")}
        meta.update(tolerance_unit=int(round(run["Q"] * U)), window_steps=run["W"] * U,
                    eval_every=int(round(run["G"] * U)))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "curve": e.curve,
                         "severity": e.severity,
                         "noise": list(e.noise), "eval_noise": list(e.enoise) if e.enoise else None, "unlock": e.unlock,
                         "T": e.T, "at": e.at, "s0": e.s0, "s1": e.s1, "graduated_it": grad_it(e, run),
                         "params": e.params} for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
