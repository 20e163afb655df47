"""The thirty-fifth detection corpus (`python benchmarks/detection.py --corpus thirtyfifth`): written by a helper from
the user-facing contract only (README's rule table, key profiles and user profiles — `env: "{run}"` with `run_env`, a
fixed `split:` and `metric:`, `rolling_mean:` —, `health_monitoring:`, what a rate is, logging shapes, which files are
read, what `unknown` means; detection.py's label format and scorer; the thirty-fourth corpus as the example of the
interface — the truth, placement and labelling helpers below are its, with observation models for the new trainers —),
without reading the analysis code and without looking at which cases curriwatch misses. Meant to be read for its
totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-thirtyfifth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (20 mappo, 20 lerobot, 20 habitat), one group folder per convention, each with
the curriwatch.yaml a user of that trainer would write from the README (no built-in profile reads any of the three, and
no corpus before this one used them). Every run is one env (one SMAC map or MPE scenario, one LeRobot env, one Habitat
benchmark), as these trainers log them:

  mappo     marlbenchmark/on-policy@de66d7a4b23fac2513f56f96f73b3f5cb96695ac (MAPPO): onpolicy/runner/shared/
            base_runner.py:5 (tensorboardX's SummaryWriter), :55-61 (`{run_dir}/logs`), :170-187 (log_train and log_env:
            `writter.add_scalars(k, {k: v}, total_num_steps)` — tensorboardX writes each into a subfolder
            `logs/{k}/{k}/` with the tag `k`, beside the root writer's own file —, or `wandb.log({k: v},
            step=total_num_steps)` when use_wandb); onpolicy/runner/shared/smac_runner.py:48 (total_num_steps = (episode
            + 1) · episode_length · n_rollout_threads), :54-90 (every log_interval episodes `incre_win_rate`: battles
            won over battles played since the last log, 0.0 when none ended; `dead_ratio`), :95-96 (eval every
            eval_interval episodes), :153-159 (`average_step_rewards` beside the losses), :213-222
            (`eval_average_episode_rewards` through log_env and `eval_win_rate` over eval_episodes);
            onpolicy/runner/shared/mpe_runner.py:43-78 (`agent%i/individual_rewards` and `average_episode_rewards` =
            mean buffer reward × episode_length), :178-183 (`eval_average_episode_rewards`); onpolicy/config.py:179
            (`--use_wandb` is store_false: W&B by default, passing the flag means TensorBoard), :279-284 (log_interval
            5, eval_interval 25, eval_episodes 32); onpolicy/scripts/train/train_smac.py:168-199
            (`results/{env_name}/{map_name}/{algorithm_name}/{experiment_name}`, W&B's dir there, TensorBoard's in a
            new `run{N}` below it), :172-186 (the W&B run's name from the algorithm, experiment and seed; its group
            commented out); onpolicy/scripts/train/train_mpe.py:99-128 (`results/MPE/{scenario_name}/…`);
            onpolicy/scripts/train_smac_scripts/train_smac_1c3s5z.sh (8 threads, episode_length 400, 10M steps,
            --use_eval --eval_episodes 32); onpolicy/scripts/train_mpe_scripts/train_mpe_spread.sh (128 threads,
            episode_length 25, 20M steps, no --use_eval: train only). SMAC runs are judged on their win rates (train:
            the battles of the last log_interval episodes, ~100–250; eval: 32 battles), MPE runs on their mean return,
            negative (simple_spread −190 → −115).
  lerobot   huggingface/lerobot@7427f31801f944f5ec9ce53cda02862ce7d1638b: src/lerobot/common/wandb_utils.py:81-124
            (wandb.init(id=, name=job_name, dir=output_dir, resume="must" when resuming the same id)), :162-207
            (log_dict: every key as `{mode}/{k}`, values not int/float/str dropped with a warning — the per-suite
            dicts of eval_info never reach W&B —, `wandb.log(data, step=step)`); src/lerobot/scripts/lerobot_train.py:
            758-782 (every log_freq steps the train tracker: `train/loss`, `grad_norm`, `lr`, `update_s`,
            `dataloading_s`, `steps`, `samples`, `episodes`, `epochs`), :845-900 (every env_eval_freq steps
            eval_policy_all over n_episodes, `eval/pc_success` — a percentage —, `eval/avg_sum_reward`, `eval/eval_s`
            with the tracker's counters, at the step); src/lerobot/utils/logging_utils.py:257-267 (to_dict);
            src/lerobot/configs/train.py:116-124, :142-154, :293-297 (steps 100,000, env_eval_freq 20,000, log_freq
            200, save_freq 20,000; job_name `{env.type}_{policy.type}`; --resume goes on from the last checkpoint);
            src/lerobot/configs/default.py:98-111 (project `lerobot`, eval n_episodes 50). Eval only (no training
            success), one env a run, found by `run_env` in the W&B run's name; a third of the runs killed and resumed
            from their last checkpoint into a second `offline-run-…-{id}` folder of the same id (the steps after that
            checkpoint logged again).
  habitat   facebookresearch/habitat-lab@0fb6f43ffe806a8088a171b036336c093bcf604e: habitat-baselines/
            habitat_baselines/common/tensorboard_utils.py:13-52 (torch's SummaryWriter in `tensorboard_dir`);
            habitat_baselines/rl/ppo/ppo_trainer.py:288-289 (window_episode_stats: deques of reward_window_size (50)
            cumulative episode stats), :524-557 (one appended every update), :560-605 (every update `reward` and
            `metrics/{k}` = the window's delta over its episode count — a rolling mean over the episodes that ended in
            the last 49 updates —, `learner/*`, `perf/*`, at num_steps_done), :672-700 (a preempted job resumes from its
            resume state with `purge_step=num_steps_done`), :789-797 (checkpoints with extra_state step),
            :875-897 (eval of a checkpoint at its step); habitat_baselines/common/base_trainer.py:67-167 (eval, a
            process of its own, polls the checkpoints and writes into the same tensorboard_dir), :203 and :268-300
            (the first checkpoint after the first update, then one whenever percent_done passes the last one's +
            1 / num_checkpoints; the resume state every save_resume_state_interval (100) updates);
            habitat_baselines/rl/ppo/habitat_evaluator.py:318-339 (`eval_reward/average_reward`, `eval_metrics/{k}` —
            success, spl, softspl, distance_to_goal — the means over the eval episodes); habitat_baselines/config/
            pointnav/ppo_pointnav.yaml (num_environments 6, num_steps 128, reward_window_size 50, num_checkpoints 100,
            test_episode_count -1). PointNav / ImageNav success; a third of the runs train only (no eval job), judged
            on the rolling mean (the user declares `rolling_mean: train`); a quarter preempted and resumed (a second
            event file from the last resume state, with TensorBoard's purge records). Steps are env frames, so the
            user sets `health_monitoring: stagnation_window` in frames (the README's "steps, in the run's own step
            unit").

Truth (the thirty-fourth's): each env has a skill s in [0, 1] at a fractional point index x = (step − step0) / G, G the
judged series' interval. Observations: SMAC eval Binomial(32, s) / 32, training Binomial(N, 0.9 s) / N with N ~
Poisson(battles of log_interval episodes); MPE lo + (hi − lo) s + N(0, sd) per log (sd 0.8–5 on a gain of 60–85);
LeRobot 100 · Binomial(n_episodes, s) / n_episodes (n 50, or 20 / 100); Habitat eval Binomial(episodes, s) / episodes
(994, 500 or 200), training per update Poisson(frames / episode length) episodes each a success with probability s,
logged as the mean over the last 49 updates' episodes. Labels, clean negatives and visibility are the thirty-fourth's;
the stagnation window (and so the margins and prolonged_training's limit) is counted at the pace of the training series
where there is one (MAPPO's logs, Habitat's updates), else at the evals' (LeRobot), with Habitat's configured window.
Rolling means (Habitat train-only runs): the labels of a fall are where the expected rolling mean crosses the line; a
stall's onset is half the mean's window after the freeze; no volatility is planted there (the mean smooths swings of a
few updates away).
unexpected_transition, eval_gap: none of the three trainers logs a state, nor stops evaluating one env of several.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - MAPPO's SMAC and MPE runs share one group folder and one curriwatch.yaml holding two profiles (win rates; returns):
    detection picks the one that claims most tags per run (a SMAC run also logs `eval_average_episode_rewards`);
  - torch is not installed on the machine that built this corpus: Habitat's event files are written with tensorboardX's
    FileWriter as Summary protos of simple_value scalars (what torch's add_scalar writes), and the resumed job's file
    opens with the file_version and SessionLog.START events at purge_step that SummaryWriter(purge_step=) writes;
  - LeRobot's `eval/video`, Habitat's videos and checkpoints, MAPPO's models are not written.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import struct
import sys
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 3
CYCLE = ("mappo", "lerobot", "habitat")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
SMAC_MAPS = {"3m": (0.95, 1.0), "8m": (0.93, 1.0), "2s3z": (0.9, 1.0), "1c3s5z": (0.9, 1.0), "3s5z": (0.85, 1.0),
             "2s_vs_1sc": (0.9, 1.0), "3s_vs_5z": (0.8, 0.98), "5m_vs_6m": (0.75, 0.9), "10m_vs_11m": (0.8, 0.97),
             "MMM2": (0.8, 0.95), "6h_vs_8z": (0.75, 0.88), "corridor": (0.78, 0.95), "27m_vs_30m": (0.8, 0.95),
             "so_many_baneling": (0.9, 1.0), "bane_vs_bane": (0.9, 1.0), "25m": (0.9, 1.0)}
# MPE scenario: (start return range, final return range, num_agents)
MPE_SCENARIOS = {"simple_spread": ((-200, -175), (-125, -110), 3), "simple_reference": ((-75, -60), (-22, -16), 2),
                 "simple_speaker_listener": ((-90, -70), (-20, -12), 2)}
# LeRobot (env.type, policy.type): (final success range, avg_sum_reward of a success)
LEROBOT = {("pusht", "diffusion"): ((0.6, 0.8), 150.0), ("pusht", "vqbet"): ((0.55, 0.75), 150.0),
           ("aloha", "act"): ((0.75, 0.95), 600.0), ("xarm", "tdmpc"): ((0.7, 0.9), 120.0),
           ("libero", "smolvla"): ((0.75, 0.95), 1.0), ("libero", "pi0"): ((0.8, 0.97), 1.0),
           ("metaworld", "smolvla"): ((0.7, 0.92), 1.0)}
HABITAT = {"pointnav_gibson": (0.85, 0.97, 994), "pointnav_hm3d": (0.8, 0.95, 1000), "pointnav_mp3d": (0.78, 0.92, 495),
           "imagenav_gibson": (0.75, 0.88, 1007)}
HOSTS = ("dgx-a100-2", "gpu-node-07", "h100-sxm-3", "ws-4090")
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

def sample_spec(spec: dict, s, rng, counts=None) -> tuple[np.ndarray, dict]:
    s = np.clip(np.atleast_1d(np.asarray(s, float)), 0, 1)
    n = len(s)
    mode = spec["mode"]
    if mode == "binom":
        k = rng.binomial(spec["n"], s)
        return spec.get("scale", 1.0) * k / spec["n"], {"count": np.full(n, spec["n"])}
    if mode == "gauss":
        return spec["lo"] + (spec["hi"] - spec["lo"]) * s + rng.normal(0.0, spec["sd"], n), {"count": np.full(n, 1)}
    if mode == "online":
        cnt = rng.poisson(spec["lam"], n) if counts is None else np.asarray(counts)
        k = rng.binomial(cnt, np.clip(spec.get("mult", 1.0) * s, 0, 1))
        return k / np.maximum(cnt, 1), {"count": cnt}
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
    """README: a metric whose values all lie in [0, 1] is a rate: win and success rates, not LeRobot's percentage nor
    MPE's returns."""
    spec = env.params["judged_spec"]
    return spec["mode"] != "gauss" and spec.get("scale", 1.0) == 1.0


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


def plan_mappo(run: dict, rng) -> tuple[list[Env], float]:
    smac = bool(rng.random() < 0.7)
    run.update(family="smac" if smac else "mpe", tb=bool(rng.random() < 0.5), log_interval=5,
               exp=str(rng.choice(["check", "mappo", "base", "rnn_ppo15", "debug"])),
               mappo_seed=int(rng.integers(1, 6)), algo=str(rng.choice(["rmappo", "rmappo", "mappo"])))
    li = 5
    if smac:
        name = str(rng.choice(list(SMAC_MAPS)))
        threads, ep_len = [(8, 400), (8, 400), (4, 400), (8, 200)][int(rng.integers(4))]
        per_ep = threads * ep_len
        ei = int(rng.choice([25, 25, 10, 50]))
        use_eval = bool(rng.random() < 0.85)
        if use_eval:
            n = int(rng.integers(60, 161))
            episodes = ei * (n - 1) + int(rng.integers(1, ei + 1))
        else:
            n = int(rng.integers(300, 701))
            episodes = li * (n - 1) + int(rng.integers(1, li + 1))
        battle = float(rng.uniform(40, 150))  # steps a battle lasts on this map (all threads' battles end in a log)
        lo, hi = SMAC_MAPS[name]
        s0, s1 = float(rng.uniform(0.0, 0.1)), float(min(0.995, rng.uniform(lo, hi)))
        train = dict(mode="online", lam=li * per_ep / battle, mult=0.9)
        ev = dict(mode="binom", n=32)
        G = ei * per_ep if use_eval else li * per_ep
        env = _new_env(name, n, G, per_ep, s0, s1, ev if use_eval else train, li * per_ep)
        env.params["train_spec"] = train
        run.update(threads=threads, episode_length=ep_len, eval_interval=ei, use_eval=use_eval, episodes=episodes,
                   battle=battle)
    else:
        name = str(rng.choice(list(MPE_SCENARIOS)))
        (a0, a1), (b0, b1), agents = MPE_SCENARIOS[name]
        threads, ep_len = [(128, 25), (128, 25), (64, 25), (32, 25)][int(rng.integers(4))]
        per_ep = threads * ep_len
        n = int(rng.integers(400, 1251))
        episodes = li * (n - 1) + int(rng.integers(1, li + 1))
        spec = dict(mode="gauss", lo=float(rng.uniform(a0, a1)), hi=float(rng.uniform(b0, b1)),
                    sd=float(rng.uniform(0.8, 5.0)))
        env = _new_env(name, n, li * per_ep, per_ep, float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.9, 0.95)),
                       spec, li * per_ep)
        env.params["train_spec"] = spec
        run.update(threads=threads, episode_length=ep_len, eval_interval=25, use_eval=False, episodes=episodes,
                   num_agents=agents)
    run["total_steps"] = run["episodes"] * per_ep
    return [env], float(run["total_steps"] - per_ep)


def plan_lerobot(run: dict, rng) -> tuple[list[Env], float]:
    keys = list(LEROBOT)
    etype, ptype = keys[int(rng.integers(len(keys)))]
    (lo, hi), rsucc = LEROBOT[(etype, ptype)]
    ef = int(rng.choice([2000, 2500, 5000, 10000]))
    L = int(rng.integers(100, 201))
    steps = L * ef
    log_freq = next(f for f in (200, 500, 1000, 2000, 5000) if steps / f <= 1500)
    n_ep = int(rng.choice([50, 50, 50, 20, 100]))
    if rng.random() < 0.7:
        job = f"{etype}_{ptype}"  # configs/train.py:293-297
    else:
        job = f"{ptype}_{etype}_{rng.choice(['transfer_cube', 'insertion', 'keypoints', 'spatial', 'v2', 'so100'])}"
    run.update(env_type=etype, policy=ptype, env_eval_freq=ef, steps=steps, log_freq=log_freq, n_episodes=n_ep,
               job_name=job, batch_size=int(rng.choice([8, 32, 64])), num_frames=int(rng.integers(20_000, 300_000)),
               rsucc=rsucc, save_freq=int(rng.choice([20_000, 10_000, 5_000])))
    env = _new_env(etype, L, ef, ef, float(rng.uniform(0.0, 0.08)), float(rng.uniform(lo, hi)),
                   dict(mode="binom", n=n_ep, scale=100.0), ef)
    run["resume"] = None
    if rng.random() < 0.35:
        c = int(rng.uniform(0.3, 0.8) * steps)
        ck = c - c % run["save_freq"]
        if ck > 0 and c - ck >= log_freq:
            run["resume"] = (ck, c)  # killed after step c, resumed from the checkpoint at ck
    return [env], float(steps - ef)


def plan_habitat(run: dict, rng) -> tuple[list[Env], float]:
    bench = str(rng.choice(list(HABITAT)))
    lo, hi, n_val = HABITAT[bench]
    ne, ns = int(rng.choice([4, 6, 8, 16])), 128
    upd = ne * ns
    U = int(rng.integers(1200, 2601))
    total = U * upd
    nck = int(rng.choice([50, 100, 100]))
    # base_trainer.py:268-283: a checkpoint once percent_done passes the last one's + 1 / num_checkpoints (strictly)
    ck, last = [], -1.0
    for u in range(1, U + 1):
        pct = u * upd / total
        if last + 1.0 / nck < pct:
            ck.append(u)
            last = pct
    train_only = bool(rng.random() < 0.33)
    tc = int(rng.choice([-1, 500, 200]))
    n_eval = n_val if tc == -1 else tc
    ep_len = float(rng.uniform(70, 160))
    lam = upd / ep_len
    s0, s1 = float(rng.uniform(0.0, 0.04)), float(rng.uniform(lo, hi))
    exp = str(rng.choice(["ddppo_resnet18", "ppo_se_resneXt50", "ver_depth", "ppo_rgb"]))
    run.update(bench=bench, num_envs=ne, num_steps=ns, updates=U, total_steps=total, num_checkpoints=nck,
               ckpt_updates=ck, train_only=train_only, test_episode_count=tc, ep_len=ep_len, exp=exp, sw=100_000)
    train = dict(mode="online", lam=lam)
    if train_only:
        env = _new_env(bench, U, upd, upd, s0, s1, dict(mode="online", lam=49 * lam), upd, roll=49)
    else:
        gap = ck[1] - ck[0]
        env = _new_env(bench, len(ck), gap * upd, ck[0] * upd, s0, s1, dict(mode="binom", n=n_eval), upd)
    env.params["train_spec"] = train
    run["resume"] = None
    if rng.random() < 0.25:
        k = int(rng.integers(int(0.3 * U), int(0.8 * U)))
        r = (k + 1) - (k + 1) % 100  # the resume state of the update before (num_updates_done + 1) % 100 == 0
        if r > 0 and k - r >= 5:
            run["resume"] = (r, k)  # killed after update k, resumed after update r
    return [env], float(total - upd)


PLANNERS = {"mappo": plan_mappo, "lerobot": plan_lerobot, "habitat": plan_habitat}


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
    """One env a run (all three trainers): the thirty-fourth's single-env planning."""
    conv = run["convention"]
    envs, total = PLANNERS[conv](run, rng)
    run["envs"] = envs
    run["single"] = True
    (env,) = envs
    W = window(env.params["pace"], total, run.get("sw", 100)) / env.G  # the window at the training pace (README)
    env.params["W"] = env.params["Wp"] = W
    env.T = float(rng.uniform(0.8, 2.5)) * W
    env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
    env.params["pro_after"] = 10 * W
    if env.T + 2 * W >= env.L:
        env.T = max(0.8 * W, (env.L - 2 * W) * 0.8)
    env.T = min(env.T, max(1.5, float(rng.uniform(0.3, 0.9)) * env.params["pro_after"]))
    pool = POOL + ["prolonged_training"]
    if env.params.get("roll"):  # a rolling mean of 49 updates smooths swings of a few updates away
        pool = [p for p in pool if p != "performance_volatility"]
    assign(run, env, W, 0.7, pool, rng)
    _limits_single(env, total)


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


_PROTO: dict = {}


def _proto():
    if not _PROTO:
        from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
        from tensorboardX.proto.tensor_pb2 import TensorProto
        from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

        _PROTO.update(Summary=Summary, TensorProto=TensorProto, Shape=TensorShapeProto,
                      scalars=SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars")),
                      text=SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text")))
    return _PROTO


def _simple(items: list[tuple[str, float]]):
    S = _proto()["Summary"]
    return S(value=[S.Value(tag=k, simple_value=float(v)) for k, v in items])


def _tf2_scalar(tag: str, value: float):
    """TF2's tf.summary.scalar: a float32 scalar tensor, plugin "scalars"; the C++ summary writer stores a numeric
    tensor with AsProtoTensorContent, so its value is 4 little-endian bytes of tensor_content."""
    P = _proto()
    t = P["TensorProto"](dtype="DT_FLOAT", tensor_shape=P["Shape"](), tensor_content=struct.pack("<f", float(value)))
    return P["Summary"](value=[P["Summary"].Value(tag=tag, tensor=t, metadata=P["scalars"])])


def _text(tag: str, text: str):
    P = _proto()
    t = P["TensorProto"](dtype="DT_STRING", tensor_shape=P["Shape"](dim=[P["Shape"].Dim(size=1)]),
                         string_val=[text.encode()])
    return P["Summary"](value=[P["Summary"].Value(tag=tag, tensor=t, metadata=P["text"])])


def _event_file(dest: Path, events: list[tuple[int, object, float]], name: str) -> None:
    """events: (step, Summary, walltime) in write order, through tensorboardX's FileWriter; the file renamed as the
    trainer's writer names it."""
    from tensorboardX import FileWriter

    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fw = FileWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        for step, summ, wall in events:
            fw.add_summary(summ, int(step), walltime=wall)
        fw.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, dest / name)


def _wandb_run(dest_parent: Path, rows: list[dict], *, rid: str, project: str, name: str, group: str | None,
               config: dict, defines: list[tuple[str, dict]], stamp: str, steps: list[int] | None = None,
               tags: list[str] | None = None) -> None:
    """The real wandb (offline): define_metric calls, then `log(row)` a row (with `step=` where steps are given);
    `run-{id}.wandb` copied to `{dest_parent}/wandb/offline-run-{stamp}-{id}/`."""
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(id=rid, project=project, name=name, group=group, config=config, mode="offline", dir=tmp,
                        tags=tags,
                        settings=wandb.Settings(x_disable_stats=True, console="off"))
        for key, kw in defines:
            wr.define_metric(key, **kw)
        for k, row in enumerate(rows):
            if steps is None:
                wr.log(row)
            else:
                wr.log(row, step=int(steps[k]))
        wr.finish()
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
        wait_until_complete(src)
        dest = dest_parent / "wandb" / f"offline-run-{stamp}-{rid}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


def _rid(run: dict) -> str:
    return "".join("abcdefghijklmnopqrstuvwxyz0123456789"[(run["seed"] >> (5 * k)) % 36] for k in range(8))


# --- writers ---------------------------------------------------------------------------------------------------------

def _judged(judged: dict) -> dict:
    return {k: np.array(sorted(set(v)), dtype=np.int64) for k, v in judged.items()}


def write_mappo(folder: Path, run: dict, rng) -> dict:
    """on-policy's shared runners: a log every log_interval episodes, an eval every eval_interval (SMAC with
    --use_eval), through tensorboardX's add_scalars (one subfolder a key) or wandb.log({k: v}, step=) a key at a
    time."""
    (env,) = run["envs"]
    smac = run["family"] == "smac"
    per_ep = run["threads"] * run["episode_length"]
    li, ei = run["log_interval"], run["eval_interval"]
    base = folder / "results" / ("StarCraft2" if smac else "MPE") / env.name / run["algo"] / run["exp"]
    judged: dict[str, list[int]] = {env.name: []}
    logs: list[tuple[int, str, float, float]] = []  # (step, key, value, walltime) in the order logged
    wall = WALL0 + float(run["seed"] % 10 ** 6)
    sps = float(rng.uniform(1500, 6000) if smac else rng.uniform(8000, 30000))
    for episode in range(run["episodes"]):
        gs = (episode + 1) * per_ep  # smac_runner.py:48
        t = wall + gs / sps
        if episode % li == 0:
            infos = {}
            if smac:
                s = _skill(env, gs)
                spec = dict(env.params["train_spec"])
                if episode == 0:
                    spec["lam"] = spec["lam"] / li  # the first log holds one episode's battles
                v = float(sample_spec(spec, [s], rng)[0][0])  # incre_win_rate, 0.0 when no battle ended
                logs.append((gs, "incre_win_rate", v, t))
                if not run["use_eval"]:
                    judged[env.name].append(gs)
                infos.update(value_loss=abs(rng.normal(0.3 * (1 - s) + 0.05, 0.03)),
                             policy_loss=rng.normal(-0.01, 0.005), dist_entropy=rng.uniform(0.3, 2.0) * (1.2 - s),
                             actor_grad_norm=abs(rng.normal(0.4, 0.1)), critic_grad_norm=abs(rng.normal(1.5, 0.4)),
                             ratio=rng.normal(1.0, 0.003), dead_ratio=rng.uniform(0.1, 0.5) * (1 - 0.5 * s),
                             average_step_rewards=rng.normal(0.05 + 0.1 * s, 0.01))
            else:
                s = _skill(env, gs)
                ret = float(sample_spec(env.params["train_spec"], [s], rng)[0][0])
                judged[env.name].append(gs)
                infos.update(value_loss=abs(rng.normal(5.0 * (1 - s) + 1, 0.3)), policy_loss=rng.normal(-0.01, 0.005),
                             dist_entropy=rng.uniform(1.0, 1.6) * (1.1 - 0.3 * s),
                             actor_grad_norm=abs(rng.normal(0.2, 0.05)), critic_grad_norm=abs(rng.normal(3.0, 0.8)),
                             ratio=rng.normal(1.0, 0.003), average_episode_rewards=ret)
            for k, v in infos.items():  # log_train (base_runner.py:163-174, mpe_runner.py:72-74)
                logs.append((gs, k, float(v), t))
            if not smac:  # log_env of the agents' individual rewards (mpe_runner.py:61-75)
                for a in range(run["num_agents"]):
                    logs.append((gs, f"agent{a}/individual_rewards", float(rng.normal(-0.4 * (1.2 - s), 0.1)), t))
        if smac and run["use_eval"] and episode % ei == 0:  # smac_runner.py:95-96, eval() :161-222
            s = _skill(env, gs)
            v = float(sample_spec(env.params["judged_spec"], [s], rng)[0][0])
            judged[env.name].append(gs)
            logs.append((gs, "eval_average_episode_rewards", float(4.0 + 16.0 * v + rng.normal(0, 0.5)), t + 20))
            logs.append((gs, "eval_win_rate", v, t + 20))
    if run["tb"]:
        from tensorboardX import SummaryWriter

        rd = base / f"run{run.get('run_n', 1)}"
        w = SummaryWriter(str(rd / "logs"), flush_secs=3600, max_queue=100_000)  # base_runner.py:55-61
        for gs, k, v, t in logs:
            w.add_scalars(k, {k: v}, gs, walltime=t)
        w.close()
    else:
        rows = [{k: v} for gs, k, v, t in logs]
        cfg = {"env_name": "StarCraft2" if smac else "MPE", "algorithm_name": run["algo"],
               "experiment_name": run["exp"], "seed": run["mappo_seed"], "n_rollout_threads": run["threads"],
               "episode_length": run["episode_length"], "num_env_steps": run["total_steps"],
               "use_eval": run["use_eval"],
               "eval_interval": ei, "log_interval": li, "eval_episodes": 32,
               ("map_name" if smac else "scenario_name"): env.name}
        _wandb_run(base, rows, rid=_rid(run), project=cfg["env_name"], name=f"{run['algo']}_{run['exp']}_seed"
                   f"{run['mappo_seed']}", group=None, config=cfg, defines=[], steps=[l[0] for l in logs],
                   stamp=f"2026050{int(rng.integers(1, 10))}_{int(rng.integers(10, 24))}{int(rng.integers(10, 60))}"
                         f"{int(rng.integers(10, 60))}")
    return _judged(judged)


def write_lerobot(folder: Path, run: dict, rng) -> dict:
    """lerobot_train.py's loop: step += 1, a train row every log_freq steps, an eval row every env_eval_freq steps,
    both through WandBLogger.log_dict (`{mode}/{k}`, step=step); a killed job resumed from its last checkpoint into a
    second offline folder of the same id."""
    (env,) = run["envs"]
    steps, lf, ef = run["steps"], run["log_freq"], run["env_eval_freq"]
    bs, nf = run["batch_size"], run["num_frames"]
    date = f"2026-05-{int(rng.integers(10, 29)):02d}"
    out = folder / "outputs" / "train" / date / f"{int(rng.integers(0, 24)):02d}-{int(rng.integers(0, 60)):02d}-" \
                                                f"{int(rng.integers(0, 60)):02d}_{run['job_name']}"
    judged: dict[str, list[int]] = {env.name: []}
    ep_len = float(rng.uniform(150, 400))
    res = run.get("resume")
    parts = [(1, res[1]), (res[0] + 1, steps)] if res else [(1, steps)]
    cfg = {"job_name": run["job_name"], "steps": steps, "log_freq": lf, "env_eval_freq": ef,
           "save_freq": run["save_freq"], "batch_size": bs, "env": {"type": run["env_type"]},
           "policy": {"type": run["policy"]}, "eval": {"n_episodes": run["n_episodes"]},
           "wandb": {"enable": True, "project": "lerobot", "mode": "offline"}}
    for p, (a, b) in enumerate(parts):
        rows, at = [], []
        for step in range(a, b + 1):
            if step % lf == 0:  # lerobot_train.py:758-782
                loss = 0.02 + 0.8 * math.exp(-step / (0.15 * steps)) + abs(rng.normal(0, 0.01))
                rows.append({f"train/{k}": v for k, v in (
                    ("steps", step), ("samples", step * bs), ("episodes", step * bs / ep_len),
                    ("epochs", step * bs / nf), ("loss", loss), ("grad_norm", abs(rng.normal(2.0, 0.6))),
                    ("lr", 1e-4), ("update_s", float(rng.uniform(0.08, 0.2))),
                    ("dataloading_s", float(rng.uniform(0.001, 0.02))))})
                at.append(step)
            if step % ef == 0:  # lerobot_train.py:845-900
                s = _skill(env, step)
                pc = float(sample_spec(env.params["judged_spec"], [s], rng)[0][0])
                judged[env.name].append(step)
                rows.append({f"eval/{k}": v for k, v in (
                    ("steps", step), ("samples", step * bs), ("episodes", step * bs / ep_len),
                    ("epochs", step * bs / nf),
                    ("avg_sum_reward", run["rsucc"] * (0.15 + 0.85 * pc / 100) * float(rng.uniform(0.9, 1.1))),
                    ("pc_success", pc), ("eval_s", float(rng.uniform(60, 400))))})
                at.append(step)
        stamp = f"{date.replace('-', '')}_{int(rng.integers(10, 24))}{int(rng.integers(10, 60))}" \
                f"{int(rng.integers(10, 60))}" if p == 0 else f"{date.replace('-', '')}_235959"
        _wandb_run(out, rows, rid=_rid(run), project="lerobot", name=run["job_name"], group=None, config=cfg,
                   defines=[], steps=at, stamp=stamp)
    return _judged(judged)


def _event_file_purged(dest: Path, events: list[tuple[int, object, float]], name: str, purge_step: int | None) -> None:
    """As _event_file, the file opening as torch's SummaryWriter(purge_step=) opens it: a file_version event and a
    SessionLog.START at purge_step (tensorboardX writes the same two)."""
    from tensorboardX import FileWriter
    from tensorboardX.proto.event_pb2 import Event, SessionLog

    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fw = FileWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        if purge_step is not None:
            fw.add_event(Event(step=int(purge_step), file_version="brain.Event:2"))
            fw.add_event(Event(step=int(purge_step), session_log=SessionLog(status=SessionLog.START)))
        for step, summ, wall in events:
            fw.add_summary(summ, int(step), walltime=wall)
        fw.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, dest / name)


def write_habitat(folder: Path, run: dict, rng) -> dict:
    """ppo_trainer.py's loop: every update `reward` and `metrics/{k}` over the episodes of the last 49 updates, the
    learner's losses and perf, at num_steps_done; checkpoints evaluated by a separate eval job into the same folder."""
    (env,) = run["envs"]
    U, upd = run["updates"], run["num_envs"] * run["num_steps"]
    tb = folder / "data" / run["bench"] / run["exp"] / "tb"
    judged: dict[str, list[int]] = {env.name: []}
    lam = env.params["train_spec"]["lam"]
    wall = WALL0 + float(run["seed"] % 10 ** 6)
    fps = float(rng.uniform(600, 3000))
    res = run.get("resume")
    host = str(rng.choice(HOSTS))

    def episodes(u: int, r) -> np.ndarray:
        """count, reward, success, spl, softspl, distance_to_goal sums of the episodes that ended in update u."""
        s = _skill(env, u * upd)
        c = int(r.poisson(lam))
        k = int(r.binomial(c, s))
        spl = k * float(r.uniform(0.6, 0.8)) * (0.7 + 0.3 * s)
        soft = spl + (c - k) * 0.25 + k * 0.1
        dtg = (c - k) * float(r.uniform(1.0, 4.0)) * (1.2 - s) + k * 0.1
        rew = k * 2.5 + c * float(r.normal(1.0 * s, 0.3))
        return np.array([c, rew, k, spl, soft, dtg], float)

    per_update = {u: episodes(u, rng) for u in range(1, U + 1)}
    if res:  # the resumed job plays the updates after its resume state again: other episodes
        r2 = np.random.default_rng(run["seed"] + 7)
        redo = {u: episodes(u, r2) for u in range(res[0] + 1, U + 1)}
    parts = [(1, res[1], None), (res[0] + 1, U, res[0] * upd)] if res else [(1, U, None)]
    for p, (a, b, purge) in enumerate(parts):
        src = per_update if p == 0 else redo
        cum = np.zeros(6)
        win: deque = deque(maxlen=50)  # ppo_trainer.py:288-289 (reward_window_size 50)
        if p == 1:  # the resume state restores the running stats and the window (ppo_trainer.py:684-688)
            for u in range(1, a):
                cum = cum + per_update[u]
                win.append(cum.copy())
        ev = []
        t0 = wall + (a - 1) * upd / fps + p * 900.0
        for u in range(a, b + 1):
            cum = cum + src[u]
            win.append(cum.copy())
            d = win[-1] - win[0] if len(win) > 1 else win[0]  # _training_log (ppo_trainer.py:560-571)
            cnt = max(d[0], 1.0)
            gs = u * upd
            t = t0 + (u - a + 1) * upd / fps
            items = [("reward", d[1] / cnt), ("metrics/distance_to_goal", d[5] / cnt), ("metrics/softspl", d[4] / cnt),
                     ("metrics/spl", d[3] / cnt), ("metrics/success", d[2] / cnt)]
            if run["train_only"]:
                judged[env.name].append(gs)
            items += [("learner/value_loss", abs(rng.normal(0.1, 0.03))), ("learner/action_loss", rng.normal(0, 0.01)),
                      ("learner/dist_entropy", float(rng.uniform(0.5, 1.3))), ("learner/grad_norm",
                                                                             abs(rng.normal(0.3, 0.1))),
                      ("perf/fps", fps * float(rng.uniform(0.95, 1.05))), ("perf/update", float(rng.uniform(0.1, 0.3)))]
            for k, v in items:
                ev.append((gs, _simple([(k, float(v))]), t))
        _event_file_purged(tb, ev, f"events.out.tfevents.{int(t0)}.{host}.{int(rng.integers(1000, 60000))}.{p}", purge)
    if not run["train_only"]:  # the eval job (base_trainer.py:67-167, habitat_evaluator.py:318-339)
        ev = []
        t = wall + U * upd / fps + 600.0
        for j, u in enumerate(run["ckpt_updates"]):
            s = _skill(env, u * upd)
            sr = float(sample_spec(env.params["judged_spec"], [s], rng)[0][0])
            judged[env.name].append(u * upd)
            spl = sr * float(rng.uniform(0.7, 0.85))
            t += float(rng.uniform(200, 500))
            for k, v in (("eval_reward/average_reward", 2.5 * sr + rng.normal(0.5 * sr, 0.05)),
                         ("eval_metrics/distance_to_goal", (1 - sr) * float(rng.uniform(1.5, 3.5)) + 0.1),
                         ("eval_metrics/softspl", spl + 0.2 * (1 - sr)), ("eval_metrics/spl", spl),
                         ("eval_metrics/success", sr)):
                ev.append((u * upd, _simple([(k, float(v))]), t))
        _event_file_purged(tb, ev, f"events.out.tfevents.{int(t)}.{host}.{int(rng.integers(1000, 60000))}.0", None)
    return _judged(judged)


# --- build -----------------------------------------------------------------------------------------------------------

WRITERS = {"mappo": write_mappo, "lerobot": write_lerobot, "habitat": write_habitat}
CONFIGS = {
    "mappo": """\
# MAPPO (marlbenchmark/on-policy): one SMAC map or MPE scenario a run, its name in the path results/{env}/{map}/...
# tensorboardX's add_scalars(k, {k: v}) writes each key to logs/{k}/{k}/ (read as `k/k`); W&B logs `k` itself
profiles:
  mappo_smac:
    patterns:
      - {regex: '^incre_win_rate(?:/incre_win_rate)?$', env: "{run}", split: train, metric: win_rate}
      - {regex: '^eval_win_rate(?:/eval_win_rate)?$', env: "{run}", split: eval, metric: win_rate}
    performance_metric: win_rate
    run_env: '(?:StarCraft2|MPE)/(?P<env>[^/]+)/'
  mappo_mpe:
    patterns:
      - regex: '^average_episode_rewards(?:/average_episode_rewards)?$'
        env: "{run}"
        split: train
        metric: episode_return
      - regex: '^eval_average_episode_rewards(?:/eval_average_episode_rewards)?$'
        env: "{run}"
        split: eval
        metric: episode_return
    performance_metric: episode_return
    run_env: '(?:StarCraft2|MPE)/(?P<env>[^/]+)/'
""",
    "lerobot": """\
# LeRobot: eval/pc_success (a percentage of n_episodes) every env_eval_freq steps; the env type in the W&B run's name
profiles:
  lerobot:
    patterns:
      - {regex: '^eval/(?P<metric>pc_success)$', env: "{run}", split: eval}
    performance_metric: pc_success
    run_env: '(?P<env>aloha|pusht|xarm|libero|metaworld)'
""",
    "habitat": """\
# habitat-baselines PPO: training's metrics/success (the episodes of the last 49 updates) and the eval job's
# eval_metrics/success, steps in env frames; one benchmark a run, named in the path data/{benchmark}/{exp}/tb
health_monitoring:
  stagnation_window: 100000
profiles:
  habitat:
    patterns:
      - {regex: '^metrics/(?P<metric>success)$', env: "{run}", split: train}
      - {regex: '^eval_metrics/(?P<metric>success)$', env: "{run}", split: eval}
    performance_metric: success
    run_env: 'data/(?P<env>[a-z0-9_]+)/'
    rolling_mean: train
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
    rng = np.random.default_rng([seed, 35])
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
