"""The third detection corpus (`python benchmarks/detection.py --corpus third`): written apart from the
rules and from the two other corpora, to measure how far their scores carry to logs made otherwise.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-third-<VERSION>-<n>runs-s<seed>. Meant to be
read for its totals, never tuned on.

Conventions (group folders; the runs cycle through CYCLE):
  sb3            Stable-Baselines3 (tests/rl_writers.py SB3Logger: Logger.record/dump call for call), RL-Zoo
                 layout `{run}/{EnvId}/PPO_1`, one env per SB3 run (1..3 per benchmark run), step =
                 num_timesteps (2,048 per iteration); `rollout/ep_rew_mean` is the mean of the last 100
                 episodes (real smoothing), EvalCallback `eval/mean_reward` (mean of n_eval episodes)
                 every k iterations, some runs without EvalCallback
  cleanrl        CleanRL `charts/episodic_return|length` per finished episode at irregular global_step
                 (dense, 1,500..10,000 points, single-episode noise), run folder
                 `{env_id}__ppo__{seed}__{time}`, one env per folder (1..2 per benchmark run)
  mlagents       ML-Agents (tests/writers.py MLAgentsStats): `Environment/Cumulative Reward` (mean of the
                 episodes of each summary period; periods without an episode log nothing) per behavior
                 folder `results/{run}/{behavior}`, summary_freq 1,000 or 10,000 steps; train only
  tinker         tinker-cookbook metrics.jsonl (tests/writers.py TinkerJsonLogger): `env/{tag}/reward/total`
                 with `env/{tag}/total_episodes` (the count) per batch, `test/env/{tag}/reward/total` every k
                 batches, `env/all/*` aggregate; rewards are correctness rates with beta-binomial noise
  atropos_proc   Atropos process mode: one W&B offline run per env, name `{env}-2026-01-01-{id}`, group =
                 the benchmark run, bare `train/percent_correct` / `eval/percent_correct` logged with step=
  generic_wandb  generic `train|eval/{env}/reward` + `curriculum/{env}/state` in one W&B offline run with
                 step= in env frames (1,000 per iteration), NaN stretches in train
  userprof_*     a user profile `by_env/{env}/{split}-{metric}` (split train|valid), state `by_env/{env}/phase`,
                 tensorboardX; metric `score` (0..100, higher) or `nll` (3.0 -> 0.4, lower is better,
                 declared `direction: lower`; the name does not read as a loss); short (60 points), mid and
                 long (10,000 points) runs, steps of 1 or 1,000, eval-only runs, eval every 1..50
Curves     logistic, exponential approach, staircase, slow linear drift; starts late (unlock)
Noise      gauss, contaminated gauss (3 % outliers of 6 sd), multiplicative, uniform, heteroscedastic
           (sd grows with the level), beta-binomial (rates; overdispersed); levels very low .. heavy
Time       iterations i; step(i) per convention. J = the judged series' logging interval (train when
           logged, else eval), W = max(min(100 steps, 10 % of the span), 20 J) (the README's stagnation
           window), Q = max(W / 10, the judged interval) = `tolerance_unit` (steps) of the run.
Labels (onset in steps; an env carries at most one):
  graduated_regression  after graduation + margin, a sudden or gradual (over 0.5..2 W) fall to keep 0.74..0.8
                        (warning) or 0.2..0.55 (critical) of the gain, lasting to the end (>= max(2 W, 12
                        judged points)); onset = where the true curve first keeps < 0.85 of the gain (the
                        README's first_step: the first point below the line)
  training_stagnation   a learner freezes at 0.15..0.5 of its range (or never learns: onset = activation) and
                        stays active and flat >= 4 W; onset = first flat step
  performance_volatility  (burst) noise of sd 0.2..0.3 of the range for max(1..1.5 W, 20 judged points) after
                        graduation; (regime) Markov switching between two levels 0.45..0.6 apart, dwell times
                        of >= 3 judged points, to the end (>= max(2 W, 24 judged points)); (sinus) oscillation
                        of peak-to-peak 0.5..0.7 with a period of 8..16 judged points; regime/sinus either
                        after graduation (onset = its start) or lifelong (onset = activation)
  unexpected_transition explicit state 2 -> 1 or 2 -> 0 (graduated back to active/locked); onset = that step
  eval_gap              evals stop >= max(8 x max(50 steps, eval interval), 2 W) before the end while
                        training logs on; onset = the first scheduled eval that did not come
  prolonged_training    a steady riser (skill s0 -> 0.62 over the whole run, ~0.04 per W) in a run cut to
                        12.5..15.5 W; onset = activation + 10 W (siblings graduate within 3 W, so the
                        2 x median rule does not move it)
Clean negatives: healthy, noisy_healthy (heavy noise), slow_learner (linear drift graduating at 4..7 W),
level_shift (+0.03 / -0.03 after graduation), single_outlier (one judged point at skill 0.05),
top_plateau (at the top from its first point; only beside siblings that show the scale), late_healthy
(unlocked in the second half). In one-env runs (SB3, CleanRL) a stall is only an env that never learns: a
learner frozen part way is the top of its own range there, which no reader of the plot could call a stall.
Visibility: an event's judged noise sd (skill units) is at most 0.3 x the drop (regression), 0.08 (burst,
stagnation), a fifth of the switching gap, a third of the sinus amplitude, 0.04 (prolonged riser).
"""
from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the writers the tests use

VERSION = 3  # 3: prolonged onset = first step + 10 W in steps (CleanRL's irregular steps); 2: 2: prolonged runs cut to 12.5..15.5 W (the riser never flattens); one-env runs: no frozen stalls
N_RUNS = 60
SMALL_RUNS = 15
CYCLE = ("sb3", "cleanrl", "mlagents", "tinker", "userprof_score", "userprof_nll", "sb3", "atropos_proc",
         "cleanrl", "mlagents", "tinker", "generic_wandb", "userprof_score", "sb3", "userprof_nll")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "top_plateau",
             "late_healthy")
WALL0 = 1.7e9
USERPROF_CONFIG = """\
profiles:
  arena:
    patterns:
      - regex: '^by_env/(?P<env>[A-Za-z0-9_.-]+)/(?P<split>train|valid)-(?P<metric>[a-z]+)$'
      - {regex: '^by_env/(?P<env>[A-Za-z0-9_.-]+)/phase$', split: state, metric: state}
    performance_metric: %s
"""
# value = a + b * skill
KINDS = {"cartpole": (0.0, 500.0), "pendulum": (-1500.0, 1350.0), "mujoco": (-100.0, 3100.0),
         "pm1": (-1.0, 2.0), "rate": (0.0, 1.0), "score": (0.0, 100.0), "nll": (3.0, -2.6),
         "lunar": (-250.0, 500.0)}


@dataclass
class TEnv:
    name: str
    unlock: int
    curve: str
    T: float  # iterations to ~the top
    s0: float = 0.05
    s1: float = 0.95
    noise: tuple = ("gauss", 0.03)
    event: str = "healthy"
    variant: str = ""
    onset: int | None = None  # iteration
    severity: str | None = None
    params: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- noise

def noise_sd(noise: tuple, level: float = 0.5) -> float:
    fam, a = noise[0], noise[1]
    if fam == "betabinom":
        n, phi = a, noise[2]
        return math.sqrt(level * (1 - level) / n * (1 + (n - 1) / (phi + 1)))
    if fam == "contam":
        return a * 1.3
    if fam == "mult":
        return a * max(level, 0.3)
    if fam == "hetero":
        return a * (0.3 + 1.4 * level)
    return a  # gauss, uniform


def draw_noise(rng, rate: bool, heavy: bool = False) -> tuple:
    fams = ["gauss", "contam", "mult", "uniform", "hetero"] + (["betabinom", "betabinom"] if rate else [])
    fam = str(rng.choice(fams))
    if fam == "betabinom":
        n = int(rng.choice([8, 16, 32, 64, 128]))
        phi = float(rng.choice([2.0, 5.0, 15.0, 50.0]))
        if heavy:
            n, phi = min(n, 16), min(phi, 5.0)
        return ("betabinom", n, phi)
    level = float(rng.choice([0.003, 0.015, 0.04, 0.08, 0.12])) if not heavy else float(rng.uniform(0.15, 0.25))
    return (fam, level)


def shrink(noise: tuple, limit: float, rng) -> tuple:
    """The same family, made quiet enough that the judged series shows the event."""
    while noise_sd(noise) > limit:
        if noise[0] == "betabinom":
            n, phi = noise[1] * 2, noise[2] * 2
            noise = ("betabinom", n, phi)
        else:
            noise = (noise[0], noise[1] * 0.6)
    return noise


def apply_noise(noise: tuple, s: np.ndarray, rng, rate: bool) -> np.ndarray:
    fam = noise[0]
    if fam == "betabinom":
        n, phi = noise[1], noise[2]
        p = np.clip(s, 1e-3, 1 - 1e-3)
        q = rng.beta(p * phi, (1 - p) * phi)
        return rng.binomial(n, q) / n
    a = noise[1]
    if fam == "gauss":
        x = s + rng.normal(0, a, len(s))
    elif fam == "contam":
        e = rng.normal(0, a, len(s))
        out = rng.random(len(s)) < 0.03
        e[out] = rng.normal(0, 6 * a, out.sum())
        x = s + e
    elif fam == "mult":
        x = s * (1 + rng.normal(0, a, len(s))) + rng.normal(0, 0.002, len(s))
    elif fam == "uniform":
        x = s + rng.uniform(-math.sqrt(3) * a, math.sqrt(3) * a, len(s))
    else:  # hetero
        x = s + rng.normal(0, 1, len(s)) * a * (0.3 + 1.4 * np.clip(s, 0, 1))
    return np.clip(x, 0, 1) if rate else x


# --------------------------------------------------------------------------- run plans

def shape_of(conv: str, rng) -> dict:
    """Iterations L, step per iteration, train interval (iterations; 0 = none), eval interval (0 = none)."""
    if conv == "sb3":
        L = int(rng.choice([60, 200, 400, 700]))
        ev = 0 if L == 60 or rng.random() < 0.3 else int(rng.choice([4, 5, 10]))
        return dict(L=L, unit=2048, train=1, eval=ev, n_envs=int(rng.integers(1, 4)), shared=False,
                    eval_drop=float(rng.choice([0.0, 0.05])))
    if conv == "cleanrl":
        L = int(rng.choice([1500, 4000, 10000]))
        return dict(L=L, unit=None, train=1, eval=0, n_envs=int(rng.integers(1, 3)), shared=False, eval_drop=0.0)
    if conv == "mlagents":
        L = int(rng.choice([60, 250, 500, 900]))
        return dict(L=L, unit=int(rng.choice([1000, 10000])), train=1, eval=0, n_envs=int(rng.integers(2, 5)),
                    shared=True, eval_drop=0.0)
    if conv == "tinker":
        L = int(rng.choice([60, 300, 600, 1200]))
        return dict(L=L, unit=1, train=1, eval=int(rng.choice([2, 5, 10])) if L > 60 else 2,
                    n_envs=int(rng.integers(2, 5)), shared=True, eval_drop=float(rng.choice([0.0, 0.08])))
    if conv == "atropos_proc":
        return dict(L=int(rng.choice([400, 800])), unit=1, train=1, eval=int(rng.choice([5, 10])), n_envs=3,
                    shared=True, eval_drop=0.05)
    if conv == "generic_wandb":
        return dict(L=int(rng.choice([300, 600])), unit=1000, train=1, eval=int(rng.choice([5, 10])),
                    n_envs=int(rng.integers(3, 6)), shared=True, eval_drop=0.05, nan_gaps=True)
    # userprof_*
    L = int(rng.choice([60, 400, 1500, 10000]))
    eval_only = L in (400, 1500) and rng.random() < 0.35
    ev = 1 if L == 60 else int(rng.choice([10, 25, 50])) if L == 10000 else int(rng.choice([1, 5, 10]))
    if eval_only:
        ev = int(rng.choice([1, 2, 5]))
    return dict(L=L, unit=int(rng.choice([1, 1000])), train=0 if eval_only else 1, eval=ev,
                n_envs=int(rng.integers(2, 5)), shared=True, eval_drop=float(rng.choice([0.0, 0.1])),
                nan_gaps=L >= 400 and rng.random() < 0.4)


def kind_of(conv: str, rng) -> str:
    return {"sb3": str(rng.choice(["cartpole", "pendulum", "mujoco", "lunar"])),
            "cleanrl": str(rng.choice(["cartpole", "lunar", "mujoco"])),
            "mlagents": str(rng.choice(["pm1", "rate"])), "tinker": "rate", "atropos_proc": "rate",
            "generic_wandb": str(rng.choice(["pm1", "rate"])), "userprof_score": "score",
            "userprof_nll": "nll"}[conv]


ENV_NAMES = {
    "sb3": ["CartPole-v1", "Acrobot-v1", "LunarLander-v3", "Pendulum-v1", "HalfCheetah-v4", "Hopper-v4"],
    "cleanrl": ["CartPole-v1", "LunarLander-v3", "Hopper-v4", "Walker2d-v4", "MountainCar-v0"],
    "mlagents": ["Walker", "Crawler", "PushBlock", "WallJump", "Pyramids", "SoccerTwos"],
    "tinker": ["gsm8k", "math500", "arith_easy", "arith_hard", "countdown", "twenty_q"],
    "atropos_proc": ["gsm8k_server", "letter_count", "tool_calling"],
    "generic_wandb": ["room1", "room2", "key_door", "maze_s", "maze_m", "maze_l"],
    "userprof_score": ["arena-1v1", "arena-2v2", "arena.ffa", "duel_easy", "duel_hard"],
    "userprof_nll": ["lm.tiny", "lm.small", "lm-code", "lm-math", "lm_long"],
}


def plan_run(name: str, conv: str, rng) -> dict:
    seed = int(rng.integers(1 << 31))
    sh = shape_of(conv, rng)
    kind = kind_of(conv, rng)
    L, unit = sh["L"], sh["unit"]
    explicit = conv == "generic_wandb" or (conv.startswith("userprof") and rng.random() < 0.6)
    # judged interval (iterations), window W (iterations), event unit Q (iterations)
    G = sh["eval"] if sh["eval"] else sh["train"]
    J = sh["train"] or sh["eval"]
    step_unit = unit or float(np.mean(np.diff(cleanrl_steps({"seed": seed, "L": L}))))
    span = L * step_unit
    # cleanrl: J in steps is the median gap between distinct episode steps, W counted in points
    j_steps = J * step_unit if unit else float(np.median(np.diff(np.unique(cleanrl_steps({"seed": seed, "L": L})))))
    W = max(min(100.0, 0.1 * span), 20 * j_steps) / step_unit
    # prolonged_training needs a run that ends while its riser still climbs: 12.5..15.5 windows long
    prolonged_run = bool(sh["train"]) and rng.random() < 0.3
    if prolonged_run:
        L = sh["L"] = int(rng.uniform(12.5, 15.5) * max(100.0, 20 * j_steps) / step_unit)
        if not unit:
            step_unit = float(np.mean(np.diff(cleanrl_steps({"seed": seed, "L": L}))))
        span = L * step_unit
        W = max(min(100.0, 0.1 * span), 20 * j_steps) / step_unit
    Q = max(W / 10, G)
    rate = kind == "rate"
    names = list(rng.permutation(ENV_NAMES[conv]))[: sh["n_envs"]]
    if conv == "atropos_proc":
        names = list(ENV_NAMES[conv])
    envs = []
    for k, nm in enumerate(names):
        late = sh["shared"] and k > 0 and rng.random() < 0.5
        unlock = int(rng.uniform(0.05, 0.3) * L) if late else 0
        if conv == "tinker" and k < 2:
            unlock = 0  # tinker logs per-tag keys only for batches that hold several tags
        curve = str(rng.choice(["logistic", "exp", "staircase", "linear"]))
        T = float(rng.uniform(1.5, 3.0) * W) if prolonged_run else float(rng.uniform(1.5, 5.0) * W)
        T = max(T, 8 * G)
        s0 = float(rng.uniform(0.0, 0.15))
        s1 = float(rng.uniform(0.85, 0.98))
        env = TEnv(str(nm), unlock, curve, T, s0, s1, draw_noise(rng, rate))
        env.params["stairs"] = sorted(rng.uniform(0.05, 0.9, int(rng.integers(2, 5))).tolist())
        grad = unlock + T
        margin = max(W, 10 * G)
        free = L - (grad + margin)
        r = rng.random()
        if prolonged_run and k == 0:
            env.unlock = unlock = 0
            env.event, env.curve = "prolonged_training", "riser"
            env.onset = int(round(10 * W))
            env.noise = shrink(env.noise, 0.04, rng)
        elif r < 0.52:
            pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
                    "performance_volatility"]
            if explicit:
                pool += ["unexpected_transition"]
            if sh["eval"] and sh["train"]:
                pool += ["eval_gap"]
            if conv == "sb3" and not sh["eval"]:  # a 100-episode mean smooths bursts and swings away
                pool = [p for p in pool if p != "performance_volatility"]
            ev = str(rng.choice(pool))
            if ev == "graduated_regression":
                need = max(2 * W, 12 * G)
                if free > need:
                    env.event = ev
                    env.variant = str(rng.choice(["sudden", "gradual"]))
                    env.severity = str(rng.choice(["warning", "critical"]))
                    keep = rng.uniform(0.74, 0.8) if env.severity == "warning" else rng.uniform(0.2, 0.55)
                    env.params["keep"] = float(keep)
                    env.params["fall"] = int(rng.uniform(0.5, 2.0) * W) if env.variant == "gradual" else 1
                    # a long gradual fall may not fit after the margin: it then starts right after it (the
                    # same draw as before wherever it fits, so other seeds' corpora are unchanged)
                    start = int(rng.uniform(grad + margin, max(grad + margin, L - need - env.params["fall"] * 0.5)))
                    env.params["fall_start"] = start
                    drop = (1 - keep) * (s1 - s0)
                    env.noise = shrink(env.noise, 0.3 * drop, rng)
            elif ev == "training_stagnation":
                if L - unlock > 6 * W:
                    env.event = ev
                    # one env per run (SB3, CleanRL): a stall is the top of its own range, no sibling
                    # shows the scale, so only an env that never learns is a stall there
                    if rng.random() < 0.25 or not sh["shared"]:
                        env.variant = "never"
                        env.onset = unlock
                        env.curve = "flat"
                    else:
                        env.variant = "freeze"
                        env.curve = str(rng.choice(["exp", "linear", "logistic"]))
                        env.T = float(rng.uniform(2.5, 4) * W)
                        env.onset = int(unlock + rng.uniform(0.6, 1.5) * W)
                        if env.curve == "logistic":
                            env.onset = int(unlock + 0.5 * env.T + rng.uniform(0.0, 0.3) * W)
                    env.noise = shrink(env.noise, 0.08, rng)
            elif ev == "performance_volatility":
                v = str(rng.choice(["burst", "regime", "sinus", "regime_life", "sinus_life"]))
                period = float(rng.uniform(8, 16) * G)
                dwell = max(3 * G, 0.3 * W)
                if v == "burst":
                    length = int(max(rng.uniform(1.0, 1.5) * W, 20 * G))
                    if free > length + W:
                        env.event, env.variant = ev, v
                        env.onset = int(rng.uniform(grad + margin, L - length - W))
                        env.params["length"] = length
                        env.params["burst_sd"] = float(rng.uniform(0.2, 0.3))
                        env.noise = shrink(env.noise, 0.08, rng)
                elif v in ("regime", "sinus"):
                    need = max(2 * W, 24 * G, 3 * period)
                    if free > need:
                        env.event, env.variant = ev, v
                        env.onset = int(rng.uniform(grad + margin, L - need))
                else:
                    if L - unlock > max(3 * W, 30 * G, 4 * period):
                        env.event, env.variant = ev, v
                        env.onset = unlock
                if env.event == ev and v != "burst":
                    env.params.update(period=period, dwell=dwell, amp=float(rng.uniform(0.25, 0.35)),
                                      gap=float(rng.uniform(0.45, 0.6)))
                    lim = env.params["amp"] / 3 if "sinus" in v else env.params["gap"] / 5
                    env.noise = shrink(env.noise, lim, rng)
            elif ev == "unexpected_transition":
                if free > 3 * W:
                    env.event = ev
                    env.variant = str(rng.choice(["2to1", "2to1", "2to0"]))
                    env.onset = int(rng.uniform(grad + margin + W, L - 2 * W))
                    env.params["back_for"] = int(rng.uniform(2, 8) * W)
            elif ev == "eval_gap":
                ev_steps = sh["eval"] * step_unit
                need = max(8 * max(50, ev_steps) / step_unit, 2 * W)
                if free > need + 2 * sh["eval"]:
                    env.event = ev
                    on = int(rng.uniform(grad + margin, L - need))
                    env.onset = on - on % sh["eval"] + sh["eval"]  # the first scheduled eval that never comes
        if env.event == "healthy" and env.event != "prolonged_training":
            neg = str(rng.choice(NEGATIVES))
            if neg == "single_outlier" and conv == "sb3" and not sh["eval"]:
                neg = "healthy"  # one bad iteration is 5..25 iterations of the 100-episode mean
            if neg == "noisy_healthy":
                env.noise = draw_noise(rng, rate, heavy=True)
            elif neg == "slow_learner":
                if L - unlock > 9 * W:
                    env.curve, env.T = "linear", float(rng.uniform(4, 7) * W)
                else:
                    neg = "healthy"
            elif neg == "level_shift":
                if free > W:
                    env.params.update(shift_at=int(rng.uniform(grad + margin, L - W / 2)),
                                      shift=float(rng.choice([0.03, -0.03])))
                else:
                    neg = "healthy"
            elif neg == "single_outlier":
                if free > 10 * G:
                    env.params["at"] = int(rng.uniform(grad + margin, L - 5 * G))
                else:
                    neg = "healthy"
            elif neg == "top_plateau" and not sh["shared"]:
                neg = "healthy"  # alone in its run, flat at the top looks like never learning
            elif neg == "top_plateau":
                env.curve = "flat"
                env.s0 = env.s1
            elif neg == "late_healthy":
                if sh["shared"] and k > 0 and L > 10 * W:
                    env.unlock = int(rng.uniform(0.4, 0.55) * L)
                    env.T = min(env.T, 0.3 * L)
                else:
                    neg = "healthy"
            env.event = neg
        if prolonged_run and env.event != "prolonged_training":
            env.T = min(env.T, 3 * W)
        env.params["ep_per_it"] = 20 if conv == "sb3" and not sh["eval"] else int(rng.choice([4, 10, 20]))
        envs.append(env)
    return dict(name=name, convention=conv, kind=kind, explicit=explicit, L=L, unit=unit, train_every=sh["train"],
                eval_every=sh["eval"], eval_drop=sh["eval_drop"], nan_gaps=bool(sh.get("nan_gaps")),
                W=W, Q=Q, G=G, envs=envs, seed=seed)


# --------------------------------------------------------------------------- truth

def base_curve(env: TEnv, t: np.ndarray) -> np.ndarray:
    s0, s1, T = env.s0, env.s1, env.T
    if env.curve == "flat":
        return np.full(len(t), s0)
    if env.curve == "exp":
        return s0 + (s1 - s0) * (1 - np.exp(-3 * t / T))
    if env.curve == "logistic":
        return s0 + (s1 - s0) / (1 + np.exp(-(t - T / 2) / (T / 10)))
    if env.curve == "linear":
        return s0 + (s1 - s0) * np.minimum(t / T, 1)
    if env.curve == "riser":  # prolonged: a steady climb to 0.62 at the run's end (~0.04 per W), never graduating
        return env.s0 + (0.62 - env.s0) * t / env.params["span"]
    # staircase: jumps (ramps of 3 % of T) at the given fractions of T
    stairs = env.params["stairs"]
    s = np.full(len(t), s0, dtype=float)
    for j, at in enumerate(stairs):
        step = (s1 - s0) / len(stairs)
        s += step * np.clip((t - at * T) / (0.03 * T), 0, 1)
    return s


def truth(env: TEnv, run: dict, rng) -> tuple[np.ndarray, np.ndarray, int | None, int | None]:
    """Skill per iteration (NaN before unlock), explicit state per iteration, true graduation, label onset."""
    L = run["L"]
    it = np.arange(L)
    t = np.maximum(it - env.unlock, 0).astype(float)
    env.params["W"] = run["W"]
    env.params["span"] = L - env.unlock
    s = base_curve(env, t)
    state = np.where(it < env.unlock, 0, 1)
    onset = env.onset
    if env.event == "training_stagnation" and env.variant == "freeze":
        level = s[env.onset]
        if level > env.s0 + 0.5 * (env.s1 - env.s0) or level < env.s0 + 0.15 * (env.s1 - env.s0):
            level = env.s0 + float(rng.uniform(0.2, 0.45)) * (env.s1 - env.s0)
            # re-time the freeze at the point the curve reaches that level
            reach = np.flatnonzero((s >= level) & (it >= env.unlock))
            onset = env.onset = int(reach[0]) if len(reach) else env.onset
        s[it >= env.onset] = level
    gl = env.s0 + 0.9 * (env.s1 - env.s0)
    crossed = np.flatnonzero((s >= gl - 1e-9) & (it >= env.unlock))
    never = env.event in ("training_stagnation", "prolonged_training") or env.variant.endswith("_life")
    grad = int(crossed[0]) if len(crossed) and not never else None
    if env.event == "top_plateau":
        grad = env.unlock
    if grad is not None:
        # the trainer graduates once the plateau held for a while
        state_grad = min(L - 1, grad + int(max(5, 0.5 * run["W"])))
        state = np.where(it >= state_grad, 2, state)
        env.params["state_grad"] = state_grad
    gain = env.s1 - env.s0
    if env.event == "graduated_regression":
        keep = env.params["keep"]
        a, fall = env.params["fall_start"], env.params["fall"]
        low = env.s0 + keep * gain
        frac = np.clip((it - a + 1) / fall, 0, 1)
        s = np.where(it >= a, env.s1 + (low - env.s1) * frac, s)
        line = env.s0 + 0.85 * gain
        seen = s
        if run["convention"] == "sb3" and not run["eval_every"]:  # judged on the 100-episode mean
            m = int(math.ceil(100 / env.params["ep_per_it"]))
            seen = np.convolve(s, np.ones(m) / m, mode="full")[:L]
        onset = int(np.flatnonzero((it >= a) & (seen < line))[0])
    elif env.event == "performance_volatility":
        v, p = env.variant, env.params
        on = env.onset
        if v == "burst":
            m = (it >= on) & (it < on + p["length"])
            s = np.where(m, s - 0.1 * gain + rng.normal(0, p["burst_sd"] * gain, L), s)
            s = np.clip(s, 0, 1)
        elif v.startswith("sinus"):
            hi = env.s1 if v == "sinus" else env.s0 + 0.8 * gain
            mid = hi - p["amp"] * gain
            ph = (it - on) / p["period"]
            s = np.where(it >= on, mid + p["amp"] * gain * np.cos(2 * np.pi * ph), s)
        else:  # regime switching: geometric dwell times, at least 3 judged points
            hi = env.s1 if v == "regime" else env.s0 + 0.8 * gain
            lo = hi - p["gap"] * gain
            lvl = np.full(L, np.nan)
            i, high = on, v == "regime_life" and rng.random() < 0.5
            if v == "regime":
                high = False  # the first phase after graduation is the low one
            while i < L:
                d = int(max(3 * run["G"], rng.exponential(p["dwell"]) + 2 * run["G"]))
                lvl[i:i + d] = hi if high else lo
                i += d
                high = not high
            s = np.where(it >= on, lvl, s)
    elif env.event == "unexpected_transition":
        back = 1 if env.variant == "2to1" else 0
        end = env.onset + env.params["back_for"]
        state = np.where((it >= env.onset) & (it < end), back, state)
    elif env.event == "level_shift":
        s = np.where(it >= env.params["shift_at"], np.clip(s + env.params["shift"] * gain, 0, 1), s)
    s = s.astype(float)
    s[it < env.unlock] = np.nan
    return s, state, grad, onset


# --------------------------------------------------------------------------- observation schedules

def schedules(run: dict, env: TEnv, rng) -> tuple[np.ndarray, np.ndarray]:
    """Iterations with a train point and with an eval point for one env."""
    L = run["L"]
    it = np.arange(env.unlock, L)
    train = it[(it - env.unlock) % run["train_every"] == 0] if run["train_every"] else np.array([], int)
    if not run["eval_every"]:
        return train, np.array([], int)
    ev = np.arange(0, L, run["eval_every"])
    ev = ev[ev >= env.unlock]
    if env.event == "eval_gap":
        ev = ev[ev < env.onset]
    keep = np.ones(len(ev), bool)
    if run["eval_drop"] and env.event != "eval_gap":
        drop = rng.random(len(ev)) < run["eval_drop"]
        drop[1:] &= ~drop[:-1]  # never two in a row
        drop[:3] = False
        keep &= ~drop
    return train, ev[keep]


def env_series(run: dict, env: TEnv, rng) -> dict:
    s, state, grad, onset = truth(env, run, rng)
    rate = run["kind"] == "rate"
    tr, ev = schedules(run, env, rng)
    out = {"s": s, "state": state, "grad": grad, "onset": onset, "train_it": tr, "eval_it": ev}
    out["train"] = apply_noise(env.noise, np.clip(s[tr] - 0.01, 0, 1) if len(tr) else s[tr], rng, rate) \
        if len(tr) else np.array([])
    out["eval"] = apply_noise(env.noise, s[ev], rng, rate) if len(ev) else np.array([])
    if env.event == "single_outlier":
        judged = "eval" if len(ev) else "train"
        its = out[f"{judged}_it"]
        j = int(np.searchsorted(its, env.params["at"]))
        if j < len(its):
            out[judged][j] = 0.05
    return out


def to_metric(kind: str, x: np.ndarray) -> np.ndarray:
    a, b = KINDS[kind]
    v = a + b * x
    if kind == "cartpole":
        v = np.clip(v, 0, 500)
    return v


# --------------------------------------------------------------------------- writers

def _rng(run, k=0):
    return np.random.default_rng(run["seed"] + 1000 + k)


def write_sb3(folder: Path, run: dict, data: dict) -> list[str]:
    """Per env an RL-Zoo folder `{EnvId}/PPO_1`: SB3Logger record/dump in OnPolicyAlgorithm's order:
    rollout/* every iteration from the 100-episode buffer, EvalCallback's eval/* at its calls."""
    from collections import deque

    from rl_writers import SB3Logger

    for k, env in enumerate(run["envs"]):
        d = data[env.name]
        rng = _rng(run, k)
        log = SB3Logger(folder / env.name, "PPO")
        buf: deque = deque(maxlen=100)
        ep_per_it = env.params["ep_per_it"]
        ev_set = {int(i): j for j, i in enumerate(d["eval_it"])}
        tr_idx = {int(i): j for j, i in enumerate(d["train_it"])}
        for i in range(run["L"]):
            n_ts = (i + 1) * run["unit"]
            if i in ev_set:  # the callback fires during the rollout, before the iteration's dump
                log.record("eval/mean_reward", float(to_metric(run["kind"], np.array([d["eval"][ev_set[i]]]))[0]))
                log.record("eval/mean_ep_length", 200.0)
                log.record("time/total_timesteps", n_ts, exclude="tensorboard")
                log.dump(n_ts)
            if i in tr_idx:
                # episodes of this iteration: the iteration's noisy level is their mean, spread around it
                lvl = d["train"][tr_idx[i]]
                eps = lvl + rng.normal(0, 0.02, ep_per_it)
                buf.extend(to_metric(run["kind"], eps).tolist())
                log.record("time/iterations", i + 1, exclude="tensorboard")
                log.record("rollout/ep_rew_mean", float(np.mean(buf)))
                log.record("rollout/ep_len_mean", 200.0)
                log.record("time/fps", 1500)
                log.record("time/total_timesteps", n_ts, exclude="tensorboard")
                log.dump(step=n_ts)
            log.record("train/loss", 0.1)
            log.record("train/entropy_loss", -0.5)
        log.close()
    return [e.name for e in run["envs"]]


def cleanrl_steps(run: dict) -> np.ndarray:
    """global_step of each finished episode: 4 envs, gaps of 24..72 steps in multiples of 4, some
    episodes ending together (combined by the reader)."""
    rng = np.random.default_rng(run["seed"] + 7)
    gaps = 4 * rng.integers(6, 19, run["L"])
    gaps[rng.random(run["L"]) < 0.08] = 0
    gaps[0] = max(gaps[0], 4)
    return np.cumsum(gaps)


def write_cleanrl(folder: Path, run: dict, data: dict) -> None:
    from tensorboardX import SummaryWriter

    steps = cleanrl_steps(run)
    for k, env in enumerate(run["envs"]):
        d = data[env.name]
        rn = f"{env.name}__ppo__{k + 1}__{1700000000 + k}"
        w = SummaryWriter(str(folder / rn), flush_secs=3600, max_queue=100_000)
        w.add_text("hyperparameters", "|param|value|\n|-|-|\n|env_id|%s|" % env.name, walltime=WALL0)
        vals = to_metric(run["kind"], d["train"])
        last = -1
        for i, v in zip(d["train_it"], vals):
            gs = int(steps[i])
            w.add_scalar("charts/episodic_return", np.float32(v), gs, walltime=WALL0 + gs / 1000)
            w.add_scalar("charts/episodic_length", np.int32(200), gs, walltime=WALL0 + gs / 1000)
            if gs // 512 != last // 512:
                w.add_scalar("charts/SPS", 5000, gs, walltime=WALL0 + gs / 1000)
                w.add_scalar("losses/value_loss", 1.0, gs, walltime=WALL0 + gs / 1000)
            last = gs
        w.close()


def write_mlagents(folder: Path, run: dict, data: dict) -> None:
    from writers import MLAgentsStats

    stats = MLAgentsStats(folder / "results", run["name"])
    rng = _rng(run)
    idx = {e.name: {int(i): j for j, i in enumerate(data[e.name]["train_it"])} for e in run["envs"]}
    for e in run["envs"]:
        stats.add_hyperparameters(e.name, {"trainer_type": "ppo", "summary_freq": run["unit"]})
    n_eps = {e.name: int(rng.choice([3, 8, 20])) for e in run["envs"]}
    for i in range(run["L"]):
        step = (i + 1) * run["unit"]
        for e in run["envs"]:
            j = idx[e.name].get(i)
            if j is None:
                continue
            lvl = data[e.name]["train"][j]
            if rng.random() < 0.03:  # a summary period without a finished episode: no point
                stats.add_stat(e.name, "Is Training", 1.0)
                stats.add_stat(e.name, "Losses/Value Loss", 0.1)
                stats.write_stats(e.name, step)
                continue
            eps = to_metric(run["kind"], lvl + rng.normal(0, 0.01, n_eps[e.name]))
            for r in eps:
                stats.add_stat(e.name, "Environment/Cumulative Reward", float(r), "histogram")
                stats.add_stat(e.name, "Environment/Episode Length", 200.0)
            stats.add_stat(e.name, "Losses/Value Loss", 0.1)
            stats.add_stat(e.name, "Policy/Entropy", 1.0)
            stats.add_stat(e.name, "Is Training", 1.0)
            stats.write_stats(e.name, step)
    stats.close()


def write_tinker(folder: Path, run: dict, data: dict) -> None:
    from writers import TinkerJsonLogger

    log = TinkerJsonLogger(folder)
    rng = _rng(run)
    n_by = {e.name: (e.noise[1] if e.noise[0] == "betabinom" else int(rng.choice([16, 32, 64]))) for e in run["envs"]}
    tr = {e.name: {int(i): j for j, i in enumerate(data[e.name]["train_it"])} for e in run["envs"]}
    ev = {e.name: {int(i): j for j, i in enumerate(data[e.name]["eval_it"])} for e in run["envs"]}
    for i in range(run["L"]):
        row: dict = {"progress/batch": i, "progress/done_frac": i / run["L"], "optim/lr": 1e-5}
        tot, n_all = 0.0, 0
        for e in run["envs"]:
            j = tr[e.name].get(i)
            if j is None:
                continue
            v, n = float(data[e.name]["train"][j]), n_by[e.name]
            row[f"env/{e.name}/reward/total"] = v
            row[f"env/{e.name}/total_episodes"] = n
            row[f"env/{e.name}/by_group/frac_mixed"] = float(rng.uniform(0.2, 0.6))
            row[f"env/{e.name}/ac_tokens_per_turn"] = float(rng.uniform(100, 400))
            tot += v * n
            n_all += n
        if n_all:
            row["env/all/reward/total"] = tot / n_all
            row["env/all/total_episodes"] = n_all
        for e in run["envs"]:
            j = ev[e.name].get(i)
            if j is not None:
                row[f"test/env/{e.name}/reward/total"] = float(data[e.name]["eval"][j])
                row[f"test/env/{e.name}/total_episodes"] = 100
        row["time/total"] = 12.0
        log.log_metrics(row, step=i)


def _rows(run: dict, data: dict, key, with_state: bool) -> dict[int, dict]:
    rows: dict[int, dict] = {}
    nan_rng = _rng(run, 99)
    for e in run["envs"]:
        d = data[e.name]
        tv = to_metric(run["kind"], d["train"]) if len(d["train"]) else []
        if run["nan_gaps"] and len(tv) > 100:  # a stretch of NaN values (a broken reward), healthy time
            tv = np.array(tv, dtype=float)
            a = int(nan_rng.integers(10, len(tv) - 20))
            tv[a:a + int(nan_rng.integers(3, 9))] = np.nan
        for i, v in zip(d["train_it"], tv):
            rows.setdefault(int(i), {})[key(e.name, "train")] = float(v)
        for i, v in zip(d["eval_it"], to_metric(run["kind"], d["eval"]) if len(d["eval"]) else []):
            rows.setdefault(int(i), {})[key(e.name, "eval")] = float(v)
        if with_state:
            every = run["eval_every"] or 10
            for i in range(0, run["L"], every):
                rows.setdefault(i, {})[key(e.name, "state")] = int(d["state"][i])
            # a backward move between two logged states is logged where it happens
            if e.event == "unexpected_transition":
                rows.setdefault(e.onset, {})[key(e.name, "state")] = int(d["state"][e.onset])
    return dict(sorted(rows.items()))


def _wandb(dest: Path, runs: list) -> None:
    """W&B offline runs logged with step= (the wide corpus's writer: each `.wandb` file copied once wandb
    wrote its exit record)."""
    os.environ["WANDB_MODE"] = "offline"
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from detection_corpus_wide import _wandb_runs

    _wandb_runs(dest, runs)


def write_atropos_proc(folder: Path, run: dict, data: dict) -> None:
    rng = _rng(run)
    runs = []
    for e in run["envs"]:
        one = dict(run, envs=[e], nan_gaps=False)
        rows = _rows(one, {e.name: data[e.name]}, lambda env, split: f"{split}/percent_correct", False)
        out = []
        for i, row in rows.items():
            if "train/percent_correct" in row:
                row["train/completion_lengths"] = float(rng.uniform(200, 900))
            out.append((i * run["unit"], row))
        rand = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz0123456789"), 6))
        runs.append((f"{run['name']}-{e.name}".replace("_", "-"),
                     {"name": f"{e.name}-2026-01-01-{rand}", "group": run["name"]}, out))
    _wandb(folder, runs)


def write_generic_wandb(folder: Path, run: dict, data: dict) -> None:
    def key(env, split):
        return {"train": f"train/{env}/reward", "eval": f"eval/{env}/reward", "state": f"curriculum/{env}/state"}[split]

    rows = _rows(run, data, key, run["explicit"])
    _wandb(folder, [(run["name"].replace("_", "-"), {"name": run["name"]},
                     [((i + 1) * run["unit"], r) for i, r in rows.items()])])


def write_userprof(folder: Path, run: dict, data: dict) -> None:
    from tensorboardX import SummaryWriter

    metric = "score" if run["kind"] == "score" else "nll"

    def key(env, split):
        return f"by_env/{env}/phase" if split == "state" else f"by_env/{env}/{'train' if split == 'train' else 'valid'}-{metric}"

    rows = _rows(run, data, key, run["explicit"])
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000)
    for i, r in rows.items():
        for k, v in r.items():
            w.add_scalar(k, v, (i + 1) * run["unit"], walltime=WALL0 + i)
    w.close()


# --------------------------------------------------------------------------- build

def shape_tags(run: dict, env: TEnv) -> list[str]:
    tags = [f"conv:{run['convention']}", f"curve:{env.curve}", f"L:{run['L']}"]
    tags.append("eval_only" if not run["train_every"] else "train_only" if not run["eval_every"] else "train+eval")
    if run["eval_drop"]:
        tags.append("evals_missing")
    if run["nan_gaps"]:
        tags.append("nan_gaps")
    if env.unlock > 0:
        tags.append("late_unlock")
    if run["convention"] in ("generic_wandb",) or run["convention"].startswith("userprof"):
        tags.append("states_logged" if run["explicit"] else "states_inferred")
    if env.variant:
        tags.append(f"variant:{env.variant}")
    return tags


def noise_tag(noise: tuple) -> str:
    sd = noise_sd(noise)
    lvl = "verylow" if sd < 0.01 else "low" if sd < 0.03 else "mid" if sd < 0.07 else "high" if sd < 0.13 else "heavy"
    return f"{noise[0]}/{lvl}"


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    plans = [plan_run(f"t{i:03d}_{CYCLE[i % len(CYCLE)]}", CYCLE[i % len(CYCLE)], rng) for i in range(n_runs)]
    for run in plans:
        rrng = np.random.default_rng(run["seed"])
        data = {e.name: env_series(run, e, rrng) for e in run["envs"]}
        conv = run["convention"]
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        if conv == "cleanrl":
            steps = cleanrl_steps(run)
            step_of = lambda i: int(steps[min(int(i), len(steps) - 1)])  # noqa: E731
            gap = float(np.mean(np.diff(steps)))
            tol = int(round(run["Q"] * gap))
            win = run["W"] * gap
        else:
            step_of = lambda i, u=run["unit"]: int((int(i) + 1) * u)  # noqa: E731
            tol = int(round(run["Q"] * run["unit"]))
            win = run["W"] * run["unit"]
        {"sb3": write_sb3, "cleanrl": write_cleanrl, "mlagents": write_mlagents, "tinker": write_tinker,
         "atropos_proc": write_atropos_proc, "generic_wandb": write_generic_wandb}.get(
            conv, write_userprof)(folder, run, data)
        for e in run["envs"]:
            d = data[e.name]
            if e.event in EVENTS:
                onset = step_of(d["onset"])
                if e.event == "prolonged_training":  # 10 windows in steps from the first point (irregular steps)
                    onset = int(round(step_of(e.unlock) + 10 * win))
                labels.append({"run": run["name"], "env": e.name, "type": e.event, "onset": onset,
                               "severity": e.severity, "kind": run["kind"], "noise": noise_tag(e.noise),
                               "tags": shape_tags(run, e),
                               "shape": f"{conv}/{e.variant or e.curve}"})
        meta = {k: v for k, v in run.items() if k not in ("envs",)}
        meta.update(tolerance_unit=tol, window_steps=win, eval_every=(run["eval_every"] or run["train_every"] or 1)
                    * (run["unit"] or 1))
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "curve": e.curve,
                         "onset_step": step_of(data[e.name]["onset"]) if data[e.name]["onset"] is not None else None,
                         "severity": e.severity, "noise": list(e.noise), "noise_tag": noise_tag(e.noise),
                         "unlock_step": step_of(e.unlock), "T_steps": e.T * (run["unit"] or 1),
                         "graduated_step": step_of(data[e.name]["grad"]) if data[e.name]["grad"] is not None else None,
                         "params": {k: v for k, v in e.params.items() if k != "W"}}
                        for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, metric in (("userprof_score", "score"), ("userprof_nll", "nll")):
        if (root / conv).is_dir():
            text = USERPROF_CONFIG % metric + ("direction: lower\n" if conv == "userprof_nll" else "")
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
