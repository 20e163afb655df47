"""The thirty-sixth detection corpus (`python benchmarks/detection.py --corpus thirtysixth`): written by a helper from
the user-facing contract only (README's rule table, key profiles and user profiles — `env: "{run}"` with `run_env`,
`step_key`, a fixed `split:` and `metric:` —, what a rate is, logging shapes, which files are read, what `unknown`
means; detection.py's label format and scorer; the thirty-fifth corpus as the example of the interface — the truth,
placement and labelling helpers below are its, the planning of several envs a run the thirty-fourth's, with
observation models for the new trainers —), without reading the analysis code and without looking at which cases
curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-thirtysixth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (20 corl, 20 rlkit, 20 oat), one group folder per convention, each with the
curriwatch.yaml a user of that trainer would write from the README (no built-in profile reads any of the three, and no
corpus before this one used them):

  corl   tinkoff-ai/CORL@6afec90484bbf47dee05fdf525e26a3ebe028e9b (offline RL on D4RL, one dataset a run):
         algorithms/offline/iql.py:30-63 (TrainConfig: eval_freq 5e3, n_episodes 10, max_timesteps 1e6; `name` made
         `{name}-{env}-{uuid4[:8]}`), :178-187 (wandb.init(config, project, group, name, id=str(uuid4())) without
         `dir`: ./wandb), :605-639 (the update's log_dict every iteration at step=total_it; every eval_freq iterations
         `d4rl_normalized_score` = 100 x the D4RL-normalized mean return of n_episodes episodes, logged again at the
         same step); algorithms/offline/td3_bc.py:476-510 and cql.py:955-982 (the same two calls);
         algorithms/finetune/cal_ql.py:1128-1230 (offline_iterations then online_iterations; `offline_iter` /
         `online_iter`; the online episodes' `train/d4rl_normalized_episode_return`, `train/is_success`,
         `train/regret`; `eval/d4rl_normalized_score`, and for goal envs in the online phase `eval/success_rate`,
         `eval/regret`); algorithms/offline/rebrac.py:600-607 (its own wandb.init, same naming), :722-760 (a row an
         epoch `{"epoch": e, "ReBRAC/…"}` and, every eval_every epochs and at the last, a row of its own with `epoch`,
         `eval/return_mean`, `eval/normalized_score_mean`, … — wandb.log without step=, so W&B's step counts rows);
         algorithms/offline/edac.py:596-627 (EDAC, the same keys as `eval/reward_mean`, rows every
         log_every updates); configs/offline/iql/hopper/medium_v2.yaml (group
         `iql-hopper-medium-v2-multiseed-v0`: seeds of a dataset share a W&B group),
         configs/finetune/cal_ql/antmaze/medium_play_v2.yaml (eval_freq 50000, n_episodes 100). Eval-only as
         judged (the user's profile claims the evaluation's score alone): locomotion scores 0 → 45-100 (the mean of
         10 episodes, hoppers and walkers tripping now and then), pen-cloned's wide spread, antmaze 100 x k/10 (or
         k/100).
  rlkit  rail-berkeley/rlkit@ac45a9db24b89d97369bef302487273bcc3e3d84: rlkit/launchers/launcher_util.py:180-216
         (create_exp_name `{exp_prefix}_{%Y_%m_%d_%H_%M_%S}_{exp_id:04d}--s-{seed}` under
         `{LOCAL_LOG_DIR}/{exp_prefix with _ as -}/`), :223-274 (setup_logger: variant.json, progress.csv,
         debug.log); rlkit/launchers/conf.py (LOCAL_LOG_DIR `data`); rlkit/core/batch_rl_algorithm.py:46-100 (per
         epoch the evaluation paths first, then the exploration paths of the train loop);
         rlkit/core/rl_algorithm.py:83-141 (_log_stats: `epoch`, `replay_buffer/`, `trainer/`, `expl/`, `eval/`,
         `time/`, `Epoch`); rlkit/core/eval_util.py:13-66 (`Returns Mean/Std/Max/Min`, `Num Paths`, `Average
         Returns`); rlkit/samplers/data_collector/path_collector.py:77-88 (`num steps total`, `num paths total`,
         `path length …`); rlkit/core/logging.py:273-307 (dump_tabular: csv.DictWriter over the FIRST row's sorted
         keys, extrasaction "ignore", the header once); examples/sac.py:84-100 (5000 eval steps, 1000 expl steps
         and 1000 trains a loop, max_path_length 1000). Returns of either sign and scales far apart (HalfCheetah
         −300 → 11,000, Hopper and Walker that trip, Pendulum −1,400 → −150 over 25 eval episodes, DQN's CartPole
         capped at 200); train (`expl/`, one or five exploring episodes) and eval (`eval/`, 5 or 25 episodes) every
         epoch, placed at `expl/num steps total` (the user's `step_key`).
  oat    sail-sg/oat@c1a074c320ff5ca9fe9a4f669bf05208e2f310be (LLM RL): oat/learners/base.py:80-83 (exp_name
         `{wb_run_name}_{%m%dT%H:%M:%S}`), :184-199 (wandb.init(project="oat-llm", group=wb_group, name=exp_name)
         without `dir`), :335-413 (eval_and_log before training at steps 0, a learner step a loop with
         eval_and_log, a last eval_and_log(eval=True) after the loop at steps N + 1), :503-521 (_should_do: an
         evaluation every eval_steps), :523-581 (train, eval, actor and `misc/*` in one `wandb.log(logs_dict)`
         without step=); oat/experiment/run_math_rl.py:414-449 (each benchmark of the eval DatasetDict evaluated and
         renamed `eval/{benchmark}/{accuracy,score,response_tok_len,eval_count,elapse,rm_win_rate}`, beside
         `eval/average/…`); oat/args.py:173-198 (eval_temperature 0, eval_n 1, eval_steps 20, logging_steps 1);
         examples/math_rl.sh:67-72 (eval_steps 16, --eval_data ./data/evaluation_suite). Several benchmarks a run,
         eval only, greedy accuracy on a fixed set of problems (Binomial(problems, s) / problems: MATH500's 500,
         GSM8K's 1319, AIME's 30, …).

Truth (the thirty-fifth's): each env has a skill s in [0, 1] at a fractional point index x = (step − step0) / G, G the
judged series' interval (CORL's eval_freq or eval_every epochs, rlkit's env steps an epoch, oat's eval_steps).
Observations: CORL locomotion and rlkit: the mean of n episodes' returns, each N(lo + (hi − lo) s, ep_sd), a share of
them tripping early; antmaze 100 · Binomial(n, s) / n; oat Binomial(problems, s) / problems. Labels, clean negatives and
visibility are the thirty-fifth's (the thirty-fourth's for oat's several benchmarks a run); the stagnation window
(and so the margins and prolonged_training's limit) is counted at the judged series' pace, 20 of its points (README:
`stagnation_window` 100 steps widened to hold 20 points; every series here logs in larger steps). No stall is planted
on a rate above 0.5 (README: a rate above 60 % of its range stalls nowhere).
unexpected_transition, eval_gap: none of the three trainers logs a state, nor stops evaluating one env of several.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - oat's hard benchmarks (AIME, AMC, Minerva, OlympiadBench) plateau below 0.6 of accuracy: read by the README as a
    stall (a rate flat below 70 % of its range, no shared ceiling — their levels differ), each is planted as a
    `training_stagnation` (flat from the start, or a climb that stops a fifth to a half of the way); a run too short
    to show a stall (under 6 windows) leaves it out of the suite;
  - CORL's profile claims the evaluation's score only (its finetune runs' online episodes, `train/…`, are left out:
    their pace, an episode every few hundred updates, would make the stagnation window a sliver of one eval interval);
  - CORL's torch trainers log the update's dict every iteration (a million W&B rows); here every 500-2500
    iterations (the rows the profile reads, the evaluations, are all written);
  - oat's profile names its benchmarks (RE2 has no lookahead to leave `eval/average/…` out otherwise);
  - models, checkpoints, params.pkl and W&B media are not written.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 3
CYCLE = ("corl", "rlkit", "oat")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
# CORL D4RL datasets: normalized score at the start (lo) and at the end (hi) of training, the sd of one evaluation
# episode's normalized score, the share of episodes that fall (hopper, walker: the agent trips and the episode ends
# early); antmaze is 100 x the share of episodes that reached the goal (a sparse reward of 1)
D4RL = {"halfcheetah-medium-v2": dict(lo=(-2.0, 4.0), hi=(43.0, 50.0), ep_sd=(0.6, 2.0), fall=(0.0, 0.0)),
        "halfcheetah-medium-expert-v2": dict(lo=(-1.0, 5.0), hi=(86.0, 96.0), ep_sd=(2.0, 6.0), fall=(0.0, 0.02)),
        "hopper-medium-v2": dict(lo=(1.0, 8.0), hi=(55.0, 100.0), ep_sd=(3.0, 9.0), fall=(0.02, 0.1)),
        "hopper-medium-replay-v2": dict(lo=(1.0, 6.0), hi=(70.0, 100.0), ep_sd=(4.0, 12.0), fall=(0.03, 0.12)),
        "walker2d-medium-v2": dict(lo=(-0.5, 5.0), hi=(72.0, 86.0), ep_sd=(2.0, 6.0), fall=(0.01, 0.06)),
        "walker2d-medium-replay-v2": dict(lo=(-0.5, 5.0), hi=(70.0, 92.0), ep_sd=(3.0, 8.0), fall=(0.02, 0.08)),
        "pen-cloned-v1": dict(lo=(-3.0, 10.0), hi=(60.0, 100.0), ep_sd=(25.0, 45.0), fall=(0.0, 0.0)),
        "antmaze-umaze-v2": dict(succ=(0.78, 0.97)), "antmaze-umaze-diverse-v2": dict(succ=(0.6, 0.85)),
        "antmaze-medium-play-v2": dict(succ=(0.6, 0.85)), "antmaze-medium-diverse-v2": dict(succ=(0.55, 0.85))}
LOCO = [k for k, v in D4RL.items() if "succ" not in v and not k.startswith("pen")]
ANTMAZE = [k for k, v in D4RL.items() if "succ" in v]
# rlkit gym envs: (return at the start, return at the end, one episode's sd, share of falls, max_path_length, cap)
RLKIT = {"HalfCheetah-v2": ((-350.0, -250.0), (8000.0, 11500.0), (60.0, 250.0), (0.0, 0.0), 1000, None),
         "Hopper-v2": ((10.0, 60.0), (2800.0, 3500.0), (40.0, 150.0), (0.03, 0.1), 1000, None),
         "Walker2d-v2": ((-5.0, 60.0), (3800.0, 5000.0), (80.0, 300.0), (0.02, 0.08), 1000, None),
         "Ant-v2": ((-120.0, -20.0), (3000.0, 5500.0), (100.0, 400.0), (0.01, 0.05), 1000, None),
         "Pendulum-v0": ((-1450.0, -1200.0), (-190.0, -140.0), (60.0, 120.0), (0.0, 0.0), 200, None),
         "CartPole-v0": ((15.0, 30.0), (196.0, 205.0), (4.0, 20.0), (0.0, 0.0), 200, 200.0)}
# oat evaluation suites (`--eval_data`, a DatasetDict of benchmarks): problems, accuracy at the start, at the end
OAT_EASY = {"math": (500, (0.3, 0.5), (0.72, 0.84)), "gsm8k": (1319, (0.45, 0.7), (0.82, 0.9)),
            "svamp": (1000, (0.5, 0.72), (0.86, 0.93)), "asdiv": (2096, (0.55, 0.72), (0.86, 0.94))}
OAT_HARD = {"aime": (30, (0.0, 0.1), (0.13, 0.3)), "amc": (83, (0.15, 0.3), (0.4, 0.55)),
            "minerva": (272, (0.08, 0.18), (0.25, 0.38)), "olympiad_bench": (675, (0.12, 0.22), (0.3, 0.42))}
WALL0 = 1.764e9

@dataclass
class Env:
    name: str
    L: int               # judged points (nominal)
    G: float             # steps between judged points
    step0: int           # activation step (point 0)
    s0: float
    s1: float
    T: float
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    at: float | None = None
    params: dict = field(default_factory=dict)


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


# --- observation models ------------------------------------------------------------------------------------------
# A spec says how one logged value arises from the skill s: mode "binom" (n episodes, each a success with
# probability s; times `scale`, 100 for a percentage), "gauss" (a return lo + (hi - lo) s + N(0, sd)) or "online" (a
# Poisson(lam) number of episodes, each a success with probability mult · s; successes over max(count, 1): 0 when
# none played).

# --- observation models ------------------------------------------------------------------------------------------
# A spec says how one logged value arises from the skill s: mode "binom" (n episodes or problems, each a success
# with probability s; times `scale`, 100 for a D4RL antmaze score) or "episodes" (the mean of n episodes' returns,
# each N(m, ep_sd) around m = lo + (hi - lo) · mult · s, a share `fall` of them ending early at
# lo + (m - lo) · U(0.05, 0.6) — a hopper that trips —, capped at `cap` where the env caps its return: CartPole's 200).

def sample_spec(spec: dict, s, rng, counts=None) -> tuple[np.ndarray, dict]:
    s = np.clip(np.atleast_1d(np.asarray(s, float)), 0, 1)
    n = len(s)
    mode = spec["mode"]
    if mode == "binom":
        k = rng.binomial(spec["n"], s)
        return spec.get("scale", 1.0) * k / spec["n"], {"count": np.full(n, spec["n"])}
    if mode == "episodes":
        lo, hi, k = spec["lo"], spec["hi"], int(spec["n"])
        m = lo + (hi - lo) * np.clip(spec.get("mult", 1.0) * s, 0, 1)
        eps = rng.normal(m[:, None], spec["ep_sd"], (n, k))
        if spec.get("fall", 0.0) > 0:
            f = rng.random((n, k)) < spec["fall"]
            eps = np.where(f, lo + (m[:, None] - lo) * rng.uniform(0.05, 0.6, (n, k)), eps)
        if spec.get("cap") is not None:
            eps = np.minimum(eps, spec["cap"])
        return eps.mean(axis=1), {"count": np.full(n, k)}
    raise ValueError(mode)

_GRID = np.linspace(0.0, 1.0, 26)


def _stats(env: Env) -> tuple[np.ndarray, np.ndarray]:
    st = env.params.get("_stats")
    if st is None:
        spec = env.params["judged_spec"]
        rng = np.random.default_rng(4242)
        means, sds = [], []
        for g in _GRID:
            v, _ = sample_spec(spec, np.full(300, g), rng)
            v = v[np.isfinite(v)]
            means.append(float(v.mean()) if len(v) else float(g))
            sds.append(float(v.std()) if len(v) > 2 else 0.0)
        st = (np.array(means), np.array(sds))
        env.params["_stats"] = st
    return st


def point_mean(env: Env, s: float) -> float:
    return float(np.interp(s, _GRID, _stats(env)[0]))


def point_sd(env: Env, s: float) -> float:
    return float(np.interp(s, _GRID, _stats(env)[1]))


def gain_E(env: Env, lo: float, hi: float) -> float:
    return abs(point_mean(env, hi) - point_mean(env, lo))


# --- truth ---------------------------------------------------------------------------------------------------------

def truth(env: Env, x) -> np.ndarray:
    """Skill at (fractional) point index x."""
    x = np.asarray(x, float)
    g = env.s1 - env.s0
    v, p = env.variant, env.params
    if v == "never":
        s = np.full(len(x), env.s0)
    elif v == "freeze":
        s = env.s0 + p["fr"] * g * np.minimum(np.maximum(x, 0) / p["R"], 1.0)
    elif v == "riser":
        s = env.s0 + p["rate"] * g * np.maximum(x, 0)
    else:
        s = env.s0 + g * f_curve(env.curve, np.maximum(x, 0.0) / env.T)
    if v in ("sudden", "gradual"):
        R, keep_s = p["R"], env.s0 + p["keep"] * g
        if v == "sudden":
            s = np.where(x >= env.at, keep_s, s)
        else:
            ramp = (x >= env.at) & (x < env.at + R)
            s = np.where(ramp, env.s1 + (keep_s - env.s1) * (x - env.at) / R, s)
            s = np.where(x >= env.at + R, keep_s, s)
    elif v == "dip":
        s = np.where((x >= env.at) & (x < env.at + p["D"]), env.s0 + p["keep"] * g, s)
    elif v == "burst":
        k = np.floor(x - env.at).astype(int)
        inb = (k >= 0) & (k < p["length"])
        drops = np.asarray(p["drops"])
        s = np.where(inb, env.s1 - drops[np.clip(k, 0, len(drops) - 1)], s)
    elif v == "switch":
        for lo, hi in p["phases"]:
            s = np.where((x >= lo) & (x < hi), env.s1 - p["gap"] * g, s)
    elif v == "wave":
        ph = 2 * math.pi * (x - env.at) / p["P"]
        s = np.where(x >= env.at, env.s1 - p["amp"] * g * (1 - np.cos(ph)) / 2, s)
    elif v == "level_shift":
        s = np.where(x >= env.at, env.s1 + p["shift"] * g, s)
    return np.clip(s, 0, 1)


def learn_end(env: Env, W: float) -> int:
    x = np.arange(env.L, dtype=float)
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, x / env.T)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    return int(math.ceil(hit[0] + 0.3 * W)) if len(hit) else env.L




def is_rate(env: Env, reaches_top: bool = True) -> bool:
    """README: a metric whose values all lie in [0, 1] is a rate: oat's accuracies, not CORL's normalized scores (an
    antmaze score is 100 x a share) nor rlkit's returns."""
    spec = env.params["judged_spec"]
    return spec["mode"] == "binom" and spec.get("scale", 1.0) == 1.0


def place(run: dict, env: Env, ev: str, W: float, rng) -> bool:
    L = env.L
    g = env.s1 - env.s0
    single = run.get("single", False)
    if ev == "graduated_regression":
        grad = learn_end(env, W)
        margin, tail = max(W, 10), max(2 * W, 15)
        variant = str(rng.choice(["sudden", "gradual"]))
        R = float(rng.uniform(0.5, 1.5)) * W if variant == "gradual" else 0.0
        lo, hi = grad + margin, L - tail - R
        if int(lo) >= int(hi):
            return False
        sev = str(rng.choice(["warning", "critical"]))
        keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        env.event, env.variant, env.severity, env.at = ev, variant, sev, int(rng.integers(int(lo), int(hi)))
        env.params.update(keep=keep, R=R)
        ks = env.s0 + keep * g
        return gain_E(env, ks, env.s1) >= 4 * max(point_sd(env, env.s1), point_sd(env, ks))
    if ev == "training_stagnation":
        variant = str(rng.choice(["never", "freeze"])) if is_rate(env, reaches_top=False) else "never"
        if variant == "never":
            if L < 6 * W:
                return False
            if is_rate(env) and env.s0 > 0.5:  # README: a rate above 60 % of its range stalls nowhere
                return False
            env.event, env.variant = ev, variant
            return gain_E(env, env.s0, env.s1) >= 6 * max(point_sd(env, env.s0), 1e-9)
        R = float(rng.uniform(max(0.4 * W, 6), max(0.8 * W, 7)))
        if single and R + 1 > env.params["pro_after"]:
            return False
        if L - R < 5 * W:
            return False
        fr = float(rng.uniform(0.2, 0.5))
        env.event, env.variant = ev, variant
        env.params.update(R=R, fr=fr)
        fs = env.s0 + fr * g
        if is_rate(env) and fs > 0.5:
            return False
        return gain_E(env, env.s0, fs) >= 5 * point_sd(env, fs)
    if ev == "performance_volatility":
        grad = learn_end(env, W)
        margin = max(W, 10)
        variant = str(rng.choice(["burst", "switch", "wave", "dip"]))
        if variant == "burst":
            B = int(math.ceil(max(W, 20)))
            calm = max(W, 15)
            lo, hi = grad + margin, L - calm - B
            if int(lo) >= int(hi):
                return False
            c = float(rng.uniform(0.2, 0.3))
            drops = np.minimum(np.abs(rng.normal(0, c * g, B)), 0.95 * g)
            env.event, env.variant, env.at = ev, variant, int(rng.integers(int(lo), int(hi)))
            env.params.update(length=B, drops=drops, c=c)
            return c * gain_E(env, env.s0, env.s1) >= 4 * point_sd(env, env.s1)
        if variant == "dip":
            D = int(rng.integers(3, 7))
            lo, hi = grad + margin, L - max(W, 15) - D
            if int(lo) >= int(hi):
                return False
            keep = float(rng.uniform(0.1, 0.5))
            env.event, env.variant, env.at = ev, variant, int(rng.integers(int(lo), int(hi)))
            env.params.update(D=D, keep=keep)
            ks = env.s0 + keep * g
            return gain_E(env, ks, env.s1) >= 5 * max(point_sd(env, env.s1), point_sd(env, ks))
        if variant == "wave":
            P = float(rng.uniform(8, 20))
            amp = float(rng.uniform(0.45, 0.7))
            start = int(grad + margin)
            if L - start < 4 * P or L - start < 2 * W:
                return False
            env.event, env.variant, env.at = ev, variant, start
            env.params.update(P=P, amp=amp)
            return gain_E(env, env.s1 - amp * g, env.s1) >= 5 * point_sd(env, env.s1 - 0.5 * amp * g)
        gap = float(rng.uniform(0.4, 0.6))
        D = 6
        start = int(grad + margin)
        phases, t, low, count = [], start, True, 0
        while t < L:
            dwell = int(round(float(rng.uniform(D, 3 * D))))
            if low:
                phases.append((t, min(L, t + dwell)))
            t += dwell
            low = not low
            count += 1
        if count < 9 or start >= L:
            return False
        env.event, env.variant, env.at = ev, variant, start
        env.params.update(gap=gap, phases=phases)
        ls = env.s1 - gap * g
        return gain_E(env, ls, env.s1) >= 5 * max(point_sd(env, env.s1), point_sd(env, ls))
    if ev == "prolonged_training":
        if run.get("n_risers", 0) >= 2:
            return False
        first = env.params["pro_after"]
        if L - 1 < first + 10:
            return False
        rate_ = 0.62 / max(L - 1, 1)
        env.event, env.variant = ev, "riser"
        env.params.update(rate=rate_)
        sd = point_sd(env, env.s0 + 0.3 * g)
        se_rise = sd * math.sqrt(12.0 / max(4 * W, 3))
        if gain_E(env, env.s0, env.s0 + rate_ * g * 4 * W) >= 4 * se_rise:
            run["n_risers"] = run.get("n_risers", 0) + 1
            return True
        return False
    raise ValueError(ev)


NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")


def apply_negative(env: Env, neg: str, W: float, rng) -> None:
    L, g = env.L, env.s1 - env.s0
    env.event = env.variant = neg
    if neg == "noisy_healthy":
        pass  # the episodes behind a point are the run's own: its noise is what it is
    elif neg == "slow_learner":
        T = float(rng.uniform(3.0, 4.5)) * W
        if T + 2 * W < L:
            env.T = T
        else:
            env.event = env.variant = "healthy"
    elif neg == "level_shift":
        grad = learn_end(env, W)
        shift = float(rng.uniform(0.04, 0.06))
        room = env.s1 + shift * g <= 0.995
        lo, hi = grad + max(W, 10), L - max(W, 15)
        if room and int(lo) < int(hi):
            env.at = int(rng.integers(int(lo), int(hi)))
            env.params["shift"] = shift
        else:
            env.event = env.variant = "healthy"
    elif neg == "single_outlier":
        grad = learn_end(env, W)
        lo, hi = grad + max(W, 10), L - max(W, 10)
        if int(lo) < int(hi):
            env.at = int(rng.integers(int(lo), int(hi)))
        else:
            env.event = env.variant = "healthy"
    if env.variant == "healthy":
        env.event = "healthy"


def assign(run: dict, env: Env, W: float, p_event: float, pool: list[str], rng) -> None:
    if env.T + 2 * W >= env.L:
        env.T = max(0.8 * W, (env.L - 2 * W) * 0.8)
    if rng.random() < p_event:
        for _ in range(3):
            ev = str(rng.choice(pool))
            saved = (dict(env.params), env.T)
            if place(run, env, ev, W, rng):
                return
            env.params, env.T = saved
            env.event, env.variant, env.severity, env.at = "healthy", "healthy", None, None
    apply_negative(env, str(rng.choice(NEGATIVES)), W, rng)



def window(pace: float, span: float, sw: float = 100.0) -> float:
    """The stagnation window in steps: max(min(stagnation_window, 10 % of the span), 20 points at the pace)."""
    return max(min(float(sw), 0.1 * span), 20.0 * pace)


GRADUATING = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "sudden", "gradual", "dip",
              "burst", "switch", "wave")
POOL = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
        "performance_volatility"]


def grad_points(env: Env, span: float) -> float:
    """Points from activation to the README's graduation: 90 % of the gain reached, then held for plateau_window (50
    steps, at most 5 % of the span, at least 3 points of the training series)."""
    x = np.arange(env.L, dtype=float)
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, x / env.T)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    hold = max(3.0, min(50.0, 0.05 * span) / env.G)
    return float(hit[0] + hold) if len(hit) else float(env.L)


# --- planning ------------------------------------------------------------------------------------------------------

def _new_env(name: str, L: int, G: float, step0: int, s0: float, s1: float, judged: dict, pace: float,
             **params) -> Env:
    e = Env(name, int(L), float(G), int(step0), float(s0), float(s1), 0.0)
    e.params.update(judged_spec=judged, eval_spec=judged, train_spec=None, pace=float(pace), **params)
    return e


def _u(rng, lohi) -> float:
    return float(rng.uniform(*lohi))


def plan_corl(run: dict, rng) -> tuple[list[Env], float]:
    """One D4RL dataset a run; its score every eval_freq updates (torch algorithms) or eval_every epochs (ReBRAC,
    EDAC)."""
    style = str(rng.choice(["offline", "offline", "finetune", "epoch"]))
    if style == "offline":
        algo = str(rng.choice(["IQL", "TD3_BC", "CQL", "BC"]))
        pool = LOCO + (["antmaze-umaze-v2", "antmaze-medium-play-v2"] if algo in ("IQL", "CQL") else [])
        dataset = str(rng.choice(pool))
        max_t, ef = [(1_000_000, 5000), (1_000_000, 10000), (500_000, 5000), (500_000, 10000),
                     (300_000, 5000)][int(rng.integers(5))]
        L, G, step0, n_ep = max_t // ef, ef, ef, 10
        run.update(max_timesteps=max_t, eval_freq=ef, tlog=int(rng.choice([500, 1000, 2500])))
    elif style == "finetune":
        algo = str(rng.choice(["Cal-QL", "IQL", "CQL", "SPOT"]))
        dataset = str(rng.choice(ANTMAZE + ["pen-cloned-v1"]))
        off, ef = [(1_000_000, 25_000), (1_000_000, 50_000), (500_000, 10_000), (500_000, 25_000),
                   (250_000, 5_000), (250_000, 10_000)][int(rng.integers(6))]
        L, G, step0 = 2 * off // ef, ef, ef
        n_ep = 100 if dataset.startswith("antmaze") else 10  # configs/finetune/*/antmaze/*.yaml: n_episodes 100
        run.update(offline_iterations=off, online_iterations=off, eval_freq=ef, tlog=int(rng.choice([1000, 2500])))
    else:
        algo = str(rng.choice(["ReBRAC", "EDAC", "SAC-N", "LB-SAC"]))
        dataset = str(rng.choice(LOCO + (["antmaze-umaze-v2"] if algo == "ReBRAC" else [])))
        E, ev = [(1000, 5), (1000, 10), (500, 5), (300, 5), (600, 10)][int(rng.integers(5))]
        epochs = [e for e in range(E) if e % ev == 0 or e == E - 1]  # rebrac.py:740, edac.py:608
        L, G, step0 = len(epochs), ev, 0
        n_ep = 100 if dataset.startswith("antmaze") else 10
        run.update(num_epochs=E, eval_every=ev, eval_epochs=epochs)
    d = D4RL[dataset]
    if "succ" in d:
        spec = dict(mode="binom", n=n_ep, scale=100.0)
        s0, s1 = float(rng.uniform(0.0, 0.08)), _u(rng, d["succ"])
    else:
        spec = dict(mode="episodes", n=n_ep, lo=_u(rng, d["lo"]), hi=_u(rng, d["hi"]) / 0.95,
                    ep_sd=_u(rng, d["ep_sd"]), fall=_u(rng, d["fall"]))
        s0, s1 = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.92, 0.98))
    run.update(style=style, algo=algo, dataset=dataset, n_episodes=n_ep, corl_seed=int(rng.integers(0, 4)))
    env = _new_env(dataset, L, G, step0, s0, s1, spec, G)
    span = float((L - 1) * G)
    return [env], span


def plan_rlkit(run: dict, rng) -> tuple[list[Env], float]:
    """One gym env a run (SAC, TD3, DDPG; DQN on CartPole); a progress.csv row every epoch: the evaluation paths
    collected at its start, the exploration paths of its train loop."""
    name = str(rng.choice(list(RLKIT)))
    lo, hi, ep_sd, fall, path, cap = RLKIT[name]
    algo = "DQN" if name == "CartPole-v0" else str(rng.choice(["SAC", "SAC", "TD3", "DDPG"]))
    expl = 1000  # num_expl_steps_per_train_loop (examples/sac.py, td3.py, ddpg.py, dqn_and_double_dqn.py)
    n_eval = max(1, (1000 if name == "CartPole-v0" else 5000) // path)
    E = int(rng.integers(150, 701)) if path == 1000 else int(rng.integers(100, 301))
    before = int(rng.choice([1000, 10000])) if path == 1000 else 1000
    ev = dict(mode="episodes", n=n_eval, lo=_u(rng, lo), hi=_u(rng, hi), ep_sd=_u(rng, ep_sd), fall=_u(rng, fall),
              cap=cap)
    train = dict(ev, n=max(1, expl // path), mult=float(rng.uniform(0.88, 0.96)), ep_sd=ev["ep_sd"] * 1.5)
    run.update(env_id=name, algo=algo, num_epochs=E, expl_steps=expl, min_steps=before, max_path_length=path,
               eval_steps=n_eval * path, rlkit_seed=int(rng.integers(0, 5)), exp_id=int(rng.integers(0, 4)))
    env = _new_env(name, E, expl, before + expl, float(rng.uniform(0.0, 0.03)), float(rng.uniform(0.92, 0.98)),
                   ev, expl)
    env.params["train_spec"] = train
    return [env], float((E - 1) * expl)


def plan_oat(run: dict, rng) -> tuple[list[Env], float]:
    """oat's math RL: the benchmarks of `--eval_data` evaluated every eval_steps learner steps (greedy, one sample a
    problem), one W&B row a step; the first evaluation before training, the last after it."""
    e = int(rng.choice([4, 8, 8, 16]))
    L = int(rng.integers(45, 201))
    N = (L - 2) * e + int(rng.integers(0, e))  # steps 1..N; evals at 0, e, 2e, ..., and N + 1
    names = [str(x) for x in rng.permutation(list(OAT_EASY))[:int(rng.integers(2, 5))]]
    hard = [str(x) for x in rng.permutation(list(OAT_HARD))[:int(rng.choice([0, 1, 1, 2]))]]
    run.update(eval_steps=e, steps=N, model=str(rng.choice(["Qwen2.5-Math-1.5B", "Qwen2.5-Math-7B",
                                                                "Llama-3.2-3B-Instruct", "Qwen2.5-3B"])),
               algo=str(rng.choice(["drgrpo", "grpo", "ppo"])), hard=hard)
    evals = list(range(0, N + 1, e)) + [N + 1]
    run["eval_at"] = evals
    envs = []
    for b in names:
        n, a, z = OAT_EASY[b]
        envs.append(_new_env(b, len(evals), e, 0, _u(rng, a), _u(rng, z), dict(mode="binom", n=n), e))
    for b in hard:  # the plateau lies about fr (0.2-0.5) of the way to s1: a hard set's freeze (README: a stall)
        n, a, z = OAT_HARD[b]
        s0, plat = _u(rng, a), _u(rng, z)
        env = _new_env(b, len(evals), e, 0, s0, min(0.99, s0 + (plat - s0) / 0.35), dict(mode="binom", n=n), e)
        env.params["hard"] = True
        envs.append(env)
    return envs, float(N + 1)


PLANNERS = {"corl": plan_corl, "rlkit": plan_rlkit, "oat": plan_oat}


def _limits_single(env: Env, span: float) -> None:
    """One env a run (the thirtieth corpus's rule): an event env is made to graduate within its prolonged limit; a clean
    env that graduates after it is prolonged_training; a riser's label comes at the limit."""
    lim = env.params["pro_after"]
    if env.event in EVENTS and env.variant in GRADUATING:
        for _ in range(8):
            if grad_points(env, span) <= lim - 1:
                break
            env.T = max(1.0, env.T * 0.6)
    elif env.event not in EVENTS and env.variant in GRADUATING and grad_points(env, span) > lim + 1 \
            and env.L - 1 > lim + 10:
        env.event = "prolonged_training"
    if env.variant == "riser" and env.L - 1 < lim + 10:
        env.event = env.variant = "healthy"
        env.params.pop("rate", None)




def plan_run(run: dict, rng) -> None:
    """CORL and rlkit: the thirty-fifth's single-env planning; oat: the thirty-fourth's planning of several envs (the
    first one or two clean), its hard benchmarks each a planned stall (README: a rate flat below 60 % of its range
    is stalled; a run too short to show it leaves the benchmark out of the suite)."""
    conv = run["convention"]
    envs, total = PLANNERS[conv](run, rng)
    Ws = []
    for env in envs:
        W = window(env.params["pace"], total) / env.G  # the window at the judged series' pace (README)
        env.params["W"] = env.params["Wp"] = W
        env.T = float(rng.uniform(0.8, 2.5)) * W
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if len(envs) == 1:
        run["envs"] = envs
        run["single"] = True
        env, W = envs[0], Ws[0]
        env.params["pro_after"] = 10 * W
        if env.T + 2 * W >= env.L:
            env.T = max(0.8 * W, (env.L - 2 * W) * 0.8)
        env.T = min(env.T, max(1.5, float(rng.uniform(0.3, 0.9)) * env.params["pro_after"]))
        assign(run, env, W, 0.7, POOL + ["prolonged_training"], rng)
        _limits_single(env, total)
        return
    keep, kW = [], []
    for env, W in zip(envs, Ws):
        if env.params.get("hard"):
            env.params["pro_after"] = 10 * W
            if not any(place(run, env, "training_stagnation", W, rng) for _ in range(3)):
                continue
        keep.append(env)
        kW.append(W)
    envs, Ws = keep, kW
    run["envs"] = envs
    run["hard"] = [e.name for e in envs if e.params.get("hard")]
    free = [k for k, e in enumerate(envs) if not e.params.get("hard")]
    n_clean = 1 if len(free) <= 3 else 2
    grads = [grad_points(envs[k], total) for k in free[:n_clean]]
    for j, k in enumerate(free):
        env = envs[k]
        env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)))
        assign(run, env, Ws[k], 0.0 if j < n_clean else 0.65, POOL + ["prolonged_training"], rng)
    # README: at least twice the median time the run's graduated envs took -- every graduated sibling
    grads = [grad_points(e, total) for e in envs if e.variant in GRADUATING]
    lim = 2 * float(np.median(grads)) if grads else 0.0
    for k, env in enumerate(envs):  # an event env graduates within the limit (its event is its one label)
        if env.event in EVENTS and env.variant in GRADUATING and grad_points(env, total) > \
                max(10 * env.params["Wp"], lim) - 2:
            env.T = max(0.8 * Ws[k], env.T * 0.6)
    grads = [grad_points(e, total) for e in envs if e.variant in GRADUATING]
    for k, env in enumerate(envs):
        limit = max(10 * env.params["Wp"], 2 * float(np.median(grads)) if grads else 0.0)
        if env.event not in EVENTS and env.variant in GRADUATING and grad_points(env, total) > limit + 1 \
                and env.L - 1 > limit + 10:
            env.event = "prolonged_training"
            env.params["pro_after"] = limit
            continue
        if env.variant != "riser":
            continue
        env.params["pro_after"] = limit
        if env.L - 1 < env.params["pro_after"] + 10:
            env.event = env.variant = "healthy"
            env.params.pop("rate", None)


# --- labelling -------------------------------------------------------------------------------------------------------

def label_for(run: dict, env: Env, steps: np.ndarray) -> list[dict]:
    """steps: the env's judged points (sorted, unique)."""
    if env.event not in EVENTS or not len(steps):
        return []
    x = (steps.astype(float) - env.step0) / env.G
    s = truth(env, x)
    g = env.s1 - env.s0
    v, p = env.variant, env.params

    def first_at(x0):
        ok = np.flatnonzero(x >= x0 - 1e-9)
        return int(steps[ok[0]]) if len(ok) else None

    if v == "never":
        onset = first_at(0)
    elif v == "freeze":  # a rolling mean bends from the freeze to a window later: its break lies about halfway
        onset = first_at(p["R"] + p.get("roll", 0) / 2.0)
    elif v == "riser" or env.event == "prolonged_training":
        onset = int(round(p.get("first_logged", env.step0) + p["pro_after"] * env.G))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual", "dip"):
        ev = np.array([point_mean(env, u) for u in s])
        if p.get("roll"):  # the logged value: the mean over the last `roll` updates' episodes (the first: its own)
            c = np.concatenate([[0.0], np.cumsum(ev)])
            i = np.arange(len(ev))
            lo = np.maximum(np.minimum(i, 1), i + 1 - p["roll"])
            ev = (c[i + 1] - c[lo]) / (i + 1 - lo)
        m0, m1 = point_mean(env, env.s0), point_mean(env, env.s1)
        kept = (ev - m0) / (m1 - m0)
        below = np.flatnonzero((x >= env.at) & (kept < 0.85 - 1e-12))
        onset = int(steps[below[0]]) if len(below) else None
    elif v in ("burst", "wave"):
        sd = point_sd(env, env.s1)
        gE = gain_E(env, env.s0, env.s1)
        onset = None
        if v == "wave":
            off = np.flatnonzero((x >= env.at) & (s < env.s1 - 0.15 * g))
            onset = int(steps[off[0]]) if len(off) else None
        else:
            for lim in (max(0.15 * gE, 4 * sd), 0.15 * gE):
                for i in np.flatnonzero((x >= env.at) & (x < env.at + p["length"])):
                    if gain_E(env, s[i], env.s1) > lim:
                        onset = int(steps[i])
                        break
                if onset is not None:
                    break
            if onset is None:
                onset = first_at(env.at)
    elif v == "switch":
        onset = first_at(p["phases"][0][0])
    else:
        raise ValueError(v)
    if onset is None:
        return []
    return [dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                 shape=f"{run['convention']}/{env.variant}", variant=env.variant, task=env.name)]


def _skill(env: Env, step: float) -> float:
    """The policy's skill at a step."""
    x = (float(step) - env.step0) / env.G
    if env.variant == "single_outlier" and abs(x - env.at) < 0.5:
        return env.s0 + 0.05 * (env.s1 - env.s0)
    return float(truth(env, np.array([x]))[0])


def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def _rid(run: dict) -> str:
    return "".join("abcdefghijklmnopqrstuvwxyz0123456789"[(run["seed"] >> (5 * k)) % 36] for k in range(8))


# --- writers ---------------------------------------------------------------------------------------------------------

def _judged(judged: dict) -> dict:
    return {k: np.array(sorted(set(v)), dtype=np.int64) for k, v in judged.items()}


def _wandb_run(dest_parent: Path, rows: list[dict], *, rid: str, project: str, name: str, group: str | None,
               config: dict, stamp: str, steps: list[int | None] | None = None) -> None:
    """The real wandb (offline): `log(row)` a row, with `step=` where the trainer passes one (rows at the step W&B
    is already on merge into its row, as wandb does); `run-{id}.wandb` copied to
    `{dest_parent}/wandb/offline-run-{stamp}-{id}/` (the trainers call wandb.init without `dir`: ./wandb)."""
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(id=rid, project=project, name=name, group=group, config=config, mode="offline", dir=tmp,
                        settings=wandb.Settings(x_disable_stats=True, console="off"))
        for k, row in enumerate(rows):
            st = None if steps is None else steps[k]
            if st is None:
                wr.log(row)
            else:
                wr.log(row, step=int(st))
        wr.finish()
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
        wait_until_complete(src)
        dest = dest_parent / "wandb" / f"offline-run-{stamp}-{rid}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


def _uuid(rng) -> str:
    h = "".join("0123456789abcdef"[int(x)] for x in rng.integers(0, 16, 32))
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(rng.integers(4))]}{h[17:20]}-{h[20:]}"


def _stamp(rng) -> str:
    return f"2026{int(rng.integers(4, 7)):02d}{int(rng.integers(1, 29)):02d}_{int(rng.integers(0, 24)):02d}" \
           f"{int(rng.integers(0, 60)):02d}{int(rng.integers(0, 60)):02d}"


def write_corl(folder: Path, run: dict, rng) -> dict:
    """CORL's single-file trainers: a W&B run per job (wandb.init without `dir`, id uuid4, name
    `{name}-{env}-{uuid[:8]}`, group from the config); the torch trainers log the update's dict at step=total_it and the
    evaluation at the same step, ReBRAC/EDAC-style trainers log rows without step= that carry `epoch`."""
    (env,) = run["envs"]
    style, algo, ds = run["style"], run["algo"], run["dataset"]
    judged: dict[str, list[int]] = {env.name: []}
    rows: list[dict] = []
    steps: list[int | None] = []
    uid = _uuid(rng)
    name = f"{algo.lower() if style == 'epoch' and algo == 'ReBRAC' else algo}-{ds}-{uid[:8]}"
    group = f"{algo.lower()}-{ds}-multiseed-v0"
    goal = ds.startswith("antmaze") or ds.startswith("pen")
    if style in ("offline", "finetune"):
        total = run["max_timesteps"] if style == "offline" else run["offline_iterations"] + run["online_iterations"]
        ef, tlog = run["eval_freq"], run["tlog"]
        key = "d4rl_normalized_score" if style == "offline" else "eval/d4rl_normalized_score"
        successes: list[float] = []
        for it in sorted(set(range(tlog, total + 1, tlog)) | set(range(ef, total + 1, ef))):
            s = _skill(env, it)
            # trainer.train(batch): the update's losses (iql.py:416-460, td3_bc.py:334-350, cql.py:708-789)
            if algo == "TD3_BC":
                row = {"critic_loss": abs(rng.normal(3.0 * (1.2 - s), 0.4)), "actor_loss": rng.normal(-200 * s, 5)}
            elif algo in ("IQL", "SPOT"):
                row = {"value_loss": abs(rng.normal(0.5, 0.1)), "q_loss": abs(rng.normal(2.0, 0.5)),
                       "actor_loss": rng.normal(-1.0 - s, 0.2)}
            elif algo == "BC":
                row = {"actor_loss": abs(rng.normal(0.1 + 0.4 * (1 - s), 0.02))}
            else:
                row = {"policy_loss": rng.normal(-50 * s, 3), "qf1_loss": abs(rng.normal(20, 5)),
                       "qf2_loss": abs(rng.normal(20, 5)), "alpha": float(rng.uniform(0.05, 0.3)),
                       "cql_min_qf1_loss": rng.normal(-3, 1), "average_qf1": rng.normal(100 * s, 5)}
            if style == "finetune":  # cal_ql.py:1193-1196; the online phase's last finished episode (:1160-1178)
                off = run["offline_iterations"]
                if it <= off:
                    row["offline_iter"] = it - 1
                else:
                    row["online_iter"] = it - 1 - off
                    ok = float(rng.random() < (s if goal else 0.0))
                    successes.append(ok)
                    ret = float(sample_spec(dict(env.params["judged_spec"], n=1), [s], rng)[0][0])
                    row.update({"train/episode_return": ret / 100.0 if ds.startswith("antmaze") else ret * 30,
                                "train/d4rl_normalized_episode_return": ret,
                                "train/episode_length": int(rng.integers(200, 1001))})
                    if goal:
                        row.update({"train/regret": float(np.mean(1 - np.array(successes))), "train/is_success": ok})
            rows.append({k: float(v) for k, v in row.items()})
            steps.append(it)
            if it % ef == 0:  # iql.py:614-639: eval_actor over n_episodes, the D4RL score x 100, at total_it
                v = float(sample_spec(env.params["judged_spec"], [s], rng)[0][0])
                ev = {key: v}
                if style == "finetune" and it > run["offline_iterations"] and goal:  # cal_ql.py:1212-1215
                    ev["eval/success_rate"] = float(rng.binomial(run["n_episodes"], s) / run["n_episodes"])
                    ev["eval/regret"] = float(np.mean(1 - np.array(successes))) if successes else 1.0
                rows.append(ev)
                steps.append(it)
                judged[env.name].append(it)
        cfg = {"env": ds, "seed": run["corl_seed"], "eval_freq": ef, "n_episodes": run["n_episodes"],
               "project": "CORL", "group": group, "name": name, "device": "cuda", "batch_size": 256}
        cfg.update({"max_timesteps": total} if style == "offline" else
                   {"offline_iterations": run["offline_iterations"], "online_iterations": run["online_iterations"]})
    else:  # rebrac.py:722-760 (a row an epoch, the evaluation a row of its own); edac.py:596-627 (every log_every)
        E = run["num_epochs"]
        evs = set(run["eval_epochs"])
        per = 1 if algo in ("ReBRAC", "LB-SAC") else 2
        for ep in range(E):
            s = _skill(env, ep)
            for _ in range(per):
                if algo == "ReBRAC":
                    row = {f"ReBRAC/{k}": v for k, v in (
                        ("critic_loss", abs(rng.normal(1.0, 0.3))), ("q_min", rng.normal(300 * s, 10)),
                        ("actor_loss", rng.normal(-1.0, 0.1)), ("batch_entropy", rng.normal(1.0, 0.1)),
                        ("bc_mse_policy", abs(rng.normal(0.05, 0.01))), ("bc_mse_random", abs(rng.normal(0.8, 0.1))),
                        ("action_mse", abs(rng.normal(0.1, 0.02))))}
                else:
                    row = {"actor_loss": rng.normal(-300 * s, 10), "critic_loss": abs(rng.normal(40, 10)),
                           "alpha_loss": rng.normal(0, 0.1), "batch_entropy": rng.normal(-3, 0.5),
                           "alpha": float(rng.uniform(0.001, 0.01)), "q_policy_std": abs(rng.normal(5, 1)),
                           "q_random_std": abs(rng.normal(30, 5))}
                rows.append({"epoch": ep, **{k: float(v) for k, v in row.items()}})
            if ep in evs:
                v = float(sample_spec(env.params["judged_spec"], [s], rng)[0][0])
                scale = 3000.0 if not ds.startswith("antmaze") else 0.01
                ev = {"epoch": ep, "eval/return_mean" if algo == "ReBRAC" else "eval/reward_mean": v * scale / 100,
                      "eval/return_std" if algo == "ReBRAC" else "eval/reward_std": abs(rng.normal(2.0, 0.5)),
                      "eval/normalized_score_mean": v, "eval/normalized_score_std": abs(rng.normal(2.0, 0.5))}
                rows.append(ev)
                judged[env.name].append(ep)
        steps = None
        cfg = {"dataset_name" if algo == "ReBRAC" else "env_name": ds, "num_epochs": E,
               "eval_every": run["eval_every"], "eval_episodes": run["n_episodes"],
               "project": "ReBRAC" if algo == "ReBRAC" else "CORL", "group": group, "name": name}
    _wandb_run(folder, rows, rid=uid, project=cfg["project"], name=name, group=group, config=cfg,
               stamp=_stamp(rng), steps=steps)
    return _judged(judged)


def _stats_dict(name: str, data, prefix: str = "") -> dict:
    """eval_util.create_stats_ordered_dict: Mean, Std, Max, Min."""
    a = np.asarray(data, float)
    return {f"{prefix}{name} Mean": float(a.mean()), f"{prefix}{name} Std": float(a.std()),
            f"{prefix}{name} Max": float(a.max()), f"{prefix}{name} Min": float(a.min())}


def write_rlkit(folder: Path, run: dict, rng) -> dict:
    """rlkit's BatchRLAlgorithm: per epoch, evaluation paths (discard_incomplete_paths) collected first, then the
    exploration paths of the train loop; _log_stats records every diagnostic and dump_tabular writes a progress.csv row
    with csv.DictWriter over the first row's sorted keys; setup_logger's folder holds variant.json and debug.log."""
    (env,) = run["envs"]
    prefix = f"{run['algo'].lower()}-{env.name}"
    ts = f"2026_05_{int(rng.integers(1, 29)):02d}_{int(rng.integers(0, 24)):02d}_{int(rng.integers(0, 60)):02d}_" \
         f"{int(rng.integers(0, 60)):02d}"
    log_dir = folder / "data" / prefix.replace("_", "-") / f"{prefix}_{ts}_{run['exp_id']:04d}--s-{run['rlkit_seed']}"
    log_dir.mkdir(parents=True, exist_ok=True)
    judged: dict[str, list[int]] = {env.name: []}
    path, expl, before = run["max_path_length"], run["expl_steps"], run["min_steps"]
    ev_spec, tr_spec = env.params["judged_spec"], env.params["train_spec"]
    n_ev, n_tr = ev_spec["n"], tr_spec["n"]
    total_t, expl_paths, eval_paths, keys, buf = 0.0, 0, 0, None, io.StringIO()
    variant = {"algorithm": run["algo"], "version": "normal", "layer_size": 256, "replay_buffer_size": 1000000,
               "env_id": env.name, "algorithm_kwargs": {
                   "num_epochs": run["num_epochs"], "num_eval_steps_per_epoch": run["eval_steps"],
                   "num_trains_per_train_loop": 1000, "num_expl_steps_per_train_loop": expl,
                   "min_num_steps_before_training": before, "max_path_length": path, "batch_size": 256}}
    (log_dir / "variant.json").write_text(json.dumps(variant, indent=2, sort_keys=True))
    log = []
    for epoch in range(run["num_epochs"]):
        step = before + (epoch + 1) * expl
        s = _skill(env, step)
        ev_eps = sample_spec(dict(ev_spec, n=1), np.full(n_ev, s), rng)[0]
        tr_eps = sample_spec(dict(tr_spec, n=1), np.full(n_tr, s), rng)[0]
        expl_paths += n_tr
        eval_paths += n_ev
        judged[env.name].append(step)
        row: dict = {"epoch": epoch, "replay_buffer/size": min(step, 1_000_000)}
        if run["algo"] == "DQN":
            row.update({"trainer/QF Loss": abs(rng.normal(1.0, 0.3)), **_stats_dict(
                "Y Predictions", rng.normal(50 * s, 5, 8), "trainer/")})
        else:
            row.update({"trainer/QF1 Loss": abs(rng.normal(10, 3)), "trainer/QF2 Loss": abs(rng.normal(10, 3)),
                        "trainer/Policy Loss": rng.normal(-300 * s, 10),
                        **_stats_dict("Q1 Predictions", rng.normal(300 * s, 20, 8), "trainer/"),
                        **_stats_dict("Q Targets", rng.normal(300 * s, 20, 8), "trainer/")})
            if run["algo"] == "SAC":
                row.update({**_stats_dict("Log Pis", rng.normal(-2, 0.5, 8), "trainer/"),
                            **_stats_dict("Policy mu", rng.normal(0, 0.5, 8), "trainer/"),
                            **_stats_dict("Policy log std", rng.normal(-1.5, 0.3, 8), "trainer/"),
                            "trainer/Alpha": float(rng.uniform(0.02, 0.2)), "trainer/Alpha Loss": rng.normal(0, 0.3)})
        for pre, eps, n, tot, steps_tot in (("expl/", tr_eps, n_tr, expl_paths, before + (epoch + 1) * expl),
                                            ("eval/", ev_eps, n_ev, eval_paths, (epoch + 1) * run["eval_steps"])):
            row.update({f"{pre}num steps total": steps_tot, f"{pre}num paths total": tot,
                        **_stats_dict("path length", np.full(n, path), pre),
                        **_stats_dict("Rewards", eps / path + rng.normal(0, 0.05, n), pre),
                        **_stats_dict("Returns", eps, pre),
                        **_stats_dict("Actions", rng.normal(0, 0.6, 16), pre),
                        f"{pre}Num Paths": n, f"{pre}Average Returns": float(np.mean(eps))})
        times = {"data storing": rng.uniform(0.01, 0.05), "evaluation sampling": rng.uniform(2, 8),
                 "exploration sampling": rng.uniform(0.5, 2), "logging": rng.uniform(0.01, 0.05),
                 "saving": rng.uniform(0.01, 0.1), "training": rng.uniform(8, 30)}
        ep_t = float(sum(times.values()))
        total_t += ep_t
        row.update({f"time/{k} (s)": float(v) for k, v in sorted(times.items())})
        row.update({"time/epoch (s)": ep_t, "time/total (s)": total_t, "Epoch": epoch})
        if keys is None:  # logging.py:283-304: only the first iteration's keys, sorted; the header once
            keys = sorted(row)
            w = csv.DictWriter(buf, fieldnames=keys, extrasaction="ignore")
            w.writeheader()
        w.writerow(row)
        log.append(f"2026-05-01 12:{epoch // 60 % 60:02d}:{epoch % 60:02d}.000000 UTC | Epoch {epoch} finished")
    (log_dir / "progress.csv").write_text(buf.getvalue())
    (log_dir / "debug.log").write_text("\n".join(log) + "\n")
    return _judged(judged)


def write_oat(folder: Path, run: dict, rng) -> dict:
    """oat's learner loop (learners/base.py:330-413, :523-581): eval_and_log before training (steps 0), then a row a
    learner step (logging_steps 1) with the actor's and learner's stats and `misc/*`, the benchmarks' evaluation in it
    every eval_steps steps (run_math_rl.py:414-449: `eval/{benchmark}/…` and the `eval/average/…` aggregate), and a
    last evaluation after the loop; `wandb.log(logs_dict)` without step=, so W&B's own step counts the rows."""
    envs = run["envs"]
    judged: dict[str, list[int]] = {e.name: [] for e in envs}
    e, N = run["eval_steps"], run["steps"]
    rows = []
    sgd = 0
    for st in range(0, N + 2):
        info: dict = {}
        if st > 0 and st <= N:
            mean_s = float(np.mean([_skill(x, st) for x in envs]))
            sgd += 1
            info.update({"actor/rewards": float(np.clip(rng.normal(0.2 + 0.6 * mean_s, 0.05), 0, 1)),
                         "actor/no_eos_count": int(rng.poisson(3)), "actor/num_data": 1024,
                         "actor/response_tok_len": float(rng.normal(600 - 200 * mean_s, 30)),
                         "actor/generate_time": float(rng.uniform(40, 90)),
                         "train/pg_loss": float(rng.normal(0, 0.02)), "train/kl": float(abs(rng.normal(0.001, 3e-4))),
                         "train/entropy": float(rng.uniform(0.2, 0.6)),
                         "train/policy_grad_norm": float(abs(rng.normal(0.2, 0.05)))})
        if st % e == 0 or st == N + 1:
            accs, scores, lens = [], [], []
            for x in envs:
                s = _skill(x, st)
                acc = float(sample_spec(x.params["judged_spec"], [s], rng)[0][0])
                judged[x.name].append(st)
                n = x.params["judged_spec"]["n"]
                tl = float(rng.normal(650 - 250 * acc, 20))
                info.update({f"eval/{x.name}/rm_win_rate": 0.0, f"eval/{x.name}/score": acc,
                             f"eval/{x.name}/accuracy": acc, f"eval/{x.name}/eval_count": n,
                             f"eval/{x.name}/elapse": float(rng.uniform(20, 200)),
                             f"eval/{x.name}/response_tok_len": tl})
                accs.append(acc)
                scores.append(acc)
                lens.append(tl)
            info.update({"eval/average/accuracy": float(np.mean(accs)), "eval/average/score": float(np.mean(scores)),
                         "eval/average/response_tok_len": float(np.mean(lens))})
        if not info and st != 0:
            continue
        info.update({"misc/pi_beta_version": st, "misc/global_step": sgd, "misc/policy_sgd_step": sgd * 2,
                     "misc/pi_buffer_len": 1024, "misc/prompt_dataset_len": 57000, "misc/elapse": 120.0 * st,
                     "misc/update_interval": 1, "misc/prompt_epoch": 0, "misc/lr": 1e-6,
                     "misc/query_step": 128 * st, "misc/prompt_consumed": 128 * st})
        rows.append(info)
    name = f"{run['model'].lower().replace('.', '')}-{run['algo']}_{int(rng.integers(1, 13)):02d}" \
           f"{int(rng.integers(1, 29)):02d}T{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}:" \
           f"{int(rng.integers(0, 60)):02d}"
    cfg = {"pretrain": f"Qwen/{run['model']}", "eval_steps": e, "eval_data": "./data/evaluation_suite",
           "eval_temperature": 0.0, "eval_n": 1, "logging_steps": 1, "wb_project": "oat-llm", "algo": run["algo"]}
    _wandb_run(folder, rows, rid=_rid(run), project="oat-llm", name=name, group=None, config=cfg, stamp=_stamp(rng))
    return _judged(judged)


# --- build -----------------------------------------------------------------------------------------------------------

WRITERS = {"corl": write_corl, "rlkit": write_rlkit, "oat": write_oat}
_ENVS = "(?:halfcheetah|hopper|walker2d|antmaze|pen)-[a-z-]*v[0-9]"
CONFIGS = {
    "corl": f"""\
# CORL: one D4RL dataset a run, named in the W&B run's name `{{name}}-{{dataset}}-{{uuid8}}`; the evaluation's D4RL
# normalized score (x 100): `d4rl_normalized_score` (offline torch trainers), `eval/d4rl_normalized_score` (finetune),
# `eval/normalized_score_mean` (ReBRAC, EDAC, SAC-N, LB-SAC: rows without step=, stepped by their `epoch`)
profiles:
  corl:
    patterns:
      - {{regex: '^(?:eval/)?d4rl_normalized_score$', env: "{{run}}", split: eval, metric: normalized_score}}
    performance_metric: normalized_score
    run_env: '(?P<env>{_ENVS})'
  corl_epochs:
    patterns:
      - {{regex: '^eval/normalized_score_mean$', env: "{{run}}", split: eval, metric: normalized_score}}
    performance_metric: normalized_score
    step_key: epoch
    run_env: '(?P<env>{_ENVS})'
""",
    "rlkit": """\
# rlkit: progress.csv a run (setup_logger's data/{exp_prefix}/{exp_prefix}_{time}_{id}--s-{seed}/), the gym env id in
# the exp_prefix `{algo}-{env id}`; eval/ and expl/ Average Returns every epoch, env steps in `expl/num steps total`
profiles:
  rlkit:
    patterns:
      - {regex: '^expl/Average Returns$', env: "{run}", split: train, metric: average_return}
      - {regex: '^eval/Average Returns$', env: "{run}", split: eval, metric: average_return}
    performance_metric: average_return
    step_key: expl/num steps total
    run_env: 'data/[a-z0-9]+-(?P<env>[A-Za-z0-9]+-v[0-9]+)/'
""",
    "oat": """\
# oat (sail-sg/oat) math RL: every benchmark of --eval_data evaluated every eval_steps steps as
# eval/{benchmark}/accuracy (greedy, one sample a problem); eval/average/* (their mean) left out
profiles:
  oat:
    patterns:
      - regex: '^eval/(?P<env>math|gsm8k|svamp|asdiv|aime|amc|minerva|olympiad_bench)/(?P<metric>accuracy)$'
        split: eval
    performance_metric: accuracy
""",
}


def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    judged = WRITERS[conv](folder, run, wrng)
    tol = []
    for env in run["envs"]:
        W = env.params["W"]
        tol.append(max(W * env.G / 10.0, env.G))
        steps = judged[env.name]
        if len(steps):
            env.params["first_logged"] = int(steps[0])
        if env.event == "eval_gap":
            labels.append(dict(run=run["name"], env=env.name, type="eval_gap", onset=int(env.params["gap_onset"]),
                               severity=None, shape=f"{conv}/eval_gap", variant=env.variant, task=env.name))
            continue
        labels.extend(label_for(run, env, steps))
    meta = {k: v for k, v in run.items() if k not in ("envs",)}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(round(min(e.G for e in run["envs"]))))
    meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "L": e.L, "G": e.G, "step0": e.step0, "s0": e.s0, "s1": e.s1, "T": e.T, "curve": e.curve,
                     "at": e.at, "judged_points": int(len(judged[e.name])),
                     "params": {k: v for k, v in e.params.items()
                                if k not in ("drops", "phases", "_stats", "judged_spec", "train_spec", "eval_spec")},
                     "phases": e.params.get("phases")} for e in run["envs"]]
    (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    root = Path(root)
    rng = np.random.default_rng([seed, 36])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"z{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        build_run(root, run, labels)
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
    if isinstance(o, (tuple, set)):
        return list(o)
    return str(o)
