"""The sixth detection corpus (`python benchmarks/detection.py --corpus sixth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, lesson curricula, direction and thresholds,
logging shapes, what `unknown` means; the design notes; log-conventions.md; issue 9; profiles.py for the key
spellings), without reading the rules' or the analysis code, and without looking at which cases curriwatch
misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-sixth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen for what the five other corpora lack:

  mlagents_lessons  Unity ML-Agents LESSON curricula (tests/writers.MLAgentsRun: StatsReporter + TensorboardWriter
                 call for call): `results/{run_id}/{behavior}/`, 1..2 behaviors, one environment parameter
                 (`Environment/Lesson Number/{param}`, lessons 0..K-1, K 3..5) beside `Environment/Cumulative
                 Reward` (the mean of the period's episodes, 3..40 of them) every summary_freq (1,000 or 10,000
                 steps); rewards in [-1, 1], [0, 1] or 0..10. The first labelled LESSON events of any corpus:
                 advances that hold, that dip and recover within README's recovery window, that collapse
                 (not back within it), and falls back to lesson 0 (a `--resume` without training_status.json)
                 followed by quick re-advances.
  sb3_wandb_levels  Stable-Baselines3 PPO trained level after level (tests/rl_writers.SB3OnPolicy:
                 `learn(tb_log_name=f"level_{k}", reset_num_timesteps=False)`, so num_timesteps runs on and the
                 100-episode `rollout/ep_rew_mean` buffer carries the previous level's episodes into the next),
                 EvalCallback (`eval/mean_reward` of 5..20 episodes every 4..8 iterations, ONLY the level being
                 trained), each level its own W&B run MIRRORING TensorBoard (`sync_tensorboard=True`: one row per
                 TensorBoard step with every tag and `global_step`, logged without step=; reproduced from the
                 dumps, then written by wandb offline), named `level_{k}`, all in one W&B group (the benchmark
                 run): README's grouped SB3 curriculum, whose graduated levels lose their evals. Returns
                 CartPole-like 0..500 or Pendulum-like -1500..-150.
  cleanrl_track  CleanRL `ppo.py --track` (tests/rl_writers.cleanrl_ppo's calls, mirrored to W&B as
                 sync_tensorboard mirrors them: a row per TensorBoard step, `global_step`, the last episode of a
                 step kept), one W&B run per env (1..2 per benchmark run, no group) named
                 `{env_id}__ppo__{seed}__{time}`; 2 envs x 64 steps an iteration, a point per finished episode
                 (single-episode noise, staggered ends), HUGE returns (-300..12,000 or 10,000..120,000),
                 200..450 iterations; learners reach their top within 2..5 W.
  generic_offset generic `train|eval/{env}/success` (+ `curriculum/{env}/state` in half the runs), tensorboardX,
                 config `performance_metric: success`: success rates NEAR THE BOUNDS (start 0..0.03, top
                 0.96..0.995; binomial over 32..256 episodes, the lattice at 0 and 1), steps starting at a LARGE
                 OFFSET (0, 1.5 M or 20 M), SPARSE logging (a point every 1,000 or 5,000 steps), a step JUMP in
                 40 % of the runs (the counter skips 30..120 intervals early in the run), a few NaN values
                 (1.5 % of the train points) and, in 30 % of the runs, every train row written twice (a logger
                 hooked twice: identical duplicates); eval every 5 or 10 points, or none; 2..6 envs.

Truth.  Time is in iterations i; step(i) per convention (ML-Agents (i+1) x summary_freq; SB3 the dump's
num_timesteps, 256 per iteration; CleanRL each episode's global_step, 128 per iteration; generic step0 +
unit x (i + jump)). Every env has a skill s(i) in [0, 1], mapped to its metric by value = a + b * s. A learner
goes from s0 to s1 over T iterations (exp, logistic, sqrt or linear) and is flat at s1 from T on.
  J  judged interval      the train logging pace (README's: the median interval when regular, else the mean of the
                          intervals under 3 x the median: CleanRL's per-episode steps)
  W  stagnation window    max(min(100 steps, 10 % of the run's span), 20 J) (README: training_stagnation); with
                          these step units always 20 J
  G  eval interval        the eval interval, else J
  Q  tolerance unit       max(W / 10, G) in steps = `tolerance_unit` in plan.json; a detection matches a label
                          within 2 Q (benchmarks/detection.py)
"Graduated" (truth) = the skill has reached s0 + 0.9 (s1 - s0) and then held max(0.3 W, 3 G) more; logged states
go to 2 there. Healthy learners reach their top within 1.2..3 W.

Labels (an env carries at most one event, except an SB3 level's eval_gap beside an event of its own; onset in
steps; "first point" = the first finite logged point of the env's performance, train or eval, at or after the
event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden, gradual (ramp over 0.5..1.5 W) or temporary
                         (sudden, back after max(2 W, 20 G); CleanRL and generic only) fall to s0 + keep (s1 - s0),
                         keep 0.72..0.79 -> warning, 0.1..0.6 -> critical, lasting >= max(2 W, 15 G) (an SB3 level's
                         to the end of its training). Onset = first point at or after the true curve first keeps
                         < 0.85 of the gain (README first_step)
  training_stagnation    never: flat at s0 from activation for >= 6 W (onset = first point: CleanRL, the last SB3
                         level, generic); freeze (generic, several envs): a learner stops at 0.2..0.5 of its gain
                         after a rise of >= 0.4 W, flat and active >= 5 W to the end (onset = first point of the
                         flat stretch)
  performance_volatility after graduation + margin: switch (held and held - 0.4..0.6 gain, dwells >= 4 judged points
                         and >= 4 G, >= 8 changes, to the end or the level's end; onset = first low phase) or burst
                         (generic and CleanRL: max(W, 20 G) of points scattered |N(0, 0.2..0.3 gain)| below the held
                         level, then calm >= max(W, 15 G); onset = first point off by > max(0.15 gain, 4 sd))
  unexpected_transition  generic with logged states: 2 -> 1 after graduation for 0.5..1.5 W, then 2 again; onset =
                         the first logged state point with the backward value
  eval_gap               SB3 levels: every level but the last, whose evals stop when its training ends while the run
                         goes on (>= 4 W of later levels; README: "an eval_gap for every graduated level that SB3's
                         EvalCallback no longer evaluates"); generic train+eval: evals stop after graduation +
                         margin for the rest of the run (>= max(8 x max(50 steps, G), 2 W)). Onset = last eval +
                         the env's eval interval
  prolonged_training     generic, runs of >= 3 envs without a jump: a steady riser (0.045..0.06 gain per W, never
                         above 0.68 of it) in a run of 12.5..15 W whose siblings graduate within 3 W; onset = its
                         first point + 10 W
  lesson_reward_collapse ML-Agents: after an advance the reward falls to keep 0.1..0.4 of README's lesson gain (held
                         = the lesson before's last level, start = where the env began) and climbs back linearly,
                         crossing the 0.85 line only 1.5..1.8 x the recovery window (2 x the steps the lesson before
                         took, which is 1.2..1.5 W) after the advance; onset = the first reward point after the
                         advance step (README leaves the advance step's own point out). Severity: critical when the
                         true curve keeps < 0.7 at the window's end (always, by construction)
  lesson_regression      ML-Agents: the lesson index falls back to 0 (a resume that lost training_status.json) during
                         a later lesson's plateau, then re-advances one lesson every 3..6 periods to where it was;
                         the reward holds (the agent masters the easier lessons); onset = the step of the fall back
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (heavy noise), single_outlier
(one judged point at 0.05 of the gain), level_up (a sudden +0.03..0.05 gain after graduation where there is room),
late_healthy (generic: unlocked at 0.35..0.55 of the run); ML-Agents advances that hold (dip to keep >= 0.9) or
recover (dip to keep 0.35..0.7, back at the held level within 0.3..0.5 x the recovery window, at most 1.5 W);
every ML-Agents
lesson stay is under 8 W (no prolonged lesson), every stay is flat only above 0.85 of the gain.

Noise (skill units): binomial (generic rates; 32..256 trials), gaussian per episode (SB3: eval mean of 5..20
episodes of sd 0.04..0.2, train the 100-episode rolling mean; CleanRL single episodes of sd 0.02..0.08;
ML-Agents the mean of 3..40 episodes of sd 0.05..0.25). Heavy (noisy negatives only): episode sd 0.2..0.3 (SB3,
CleanRL: single episodes 0.12), binomial 8..12, ML-Agents episodes 0.4.
Visibility bounds (the judged series' point sd, at every level the event visits): regression <= drop / 4;
switching <= gap / 5; burst base <= min(0.04, burst sd / 4); stagnation <= min(0.05, 0.2 x the rise before a
freeze); prolonged riser <= 0.03; lesson collapse <= min(0.03, drop / 6). Noise is made quieter (same family)
until it meets the bound.
"""
from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the writers the tests use
sys.path.insert(0, str(Path(__file__).resolve().parent))

from detection_corpus_fifth import Env, curve_f, pace, reach90  # noqa: E402  (curve shapes, README's pace)

VERSION = 2  # 2: no lesson stay over 8 W (1: a recovered advance after a long lesson made the last one 12 W)
# Seen while building it (not turned into labels): a step JUMP makes curriwatch report an eval_gap on every
# evaluated env of the run, though training logged nothing in the hole either (labelled: no eval gap).
N_RUNS = 60
SMALL_RUNS = 8
CYCLE = ("mlagents_lessons", "sb3_wandb_levels", "generic_offset", "cleanrl_track")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training", "lesson_reward_collapse", "lesson_regression")
CONFIGS = {"generic_offset": "performance_metric: success\n"}
PARAMS = ("wall_height", "goal_distance", "block_size", "num_obstacles")
BEHAVIORS = ("Walker", "Pusher", "Crawler", "Striker")
CLEANRL_ENVS = {"mujoco": ["HalfCheetah-v4", "Walker2d-v4", "Ant-v4", "Humanoid-v4"],
                "huge": ["BraxAnt-v0", "BraxHumanoid-v0", "IsaacAnymal-v1"]}
GENERIC_ENVS = ["pick_cube", "stack2", "stack3", "open_drawer", "push_t", "peg_insert", "lift_bar", "turn_valve"]
KINDS = {  # value = a + b * skill
    "success": (0.0, 1.0), "cartpole": (0.0, 500.0), "pendulum": (-1500.0, 1350.0),
    "mujoco": (-300.0, 12300.0), "huge": (10000.0, 110000.0),
    "pm1": (-1.0, 2.0), "unit": (0.0, 1.0), "ten": (0.0, 10.0),
}


# --------------------------------------------------------------------------- noise

def point_sd(env: Env, level: float) -> float:
    """The judged series' point sd in skill units at a level."""
    kind, v = env.noise
    if kind == "binom":
        p = min(max(level, 0.0), 1.0)
        return math.sqrt(max(p * (1 - p), 0.0025) / v)
    return float(v) / math.sqrt(env.params.get("n_avg", 1))


def shrink(env: Env, limit: float, levels) -> None:
    for _ in range(80):
        if max(point_sd(env, lv) for lv in levels) <= limit:
            return
        kind, v = env.noise
        env.noise = (kind, int(v * 2)) if kind == "binom" else (kind, v * 0.75)


def observe(env: Env, s: np.ndarray, rng, n_avg: int | None = None) -> np.ndarray:
    kind, v = env.noise
    if kind == "binom":
        return rng.binomial(int(v), np.clip(s, 0, 1)) / int(v)
    n = n_avg or 1
    return s + rng.normal(0, v / math.sqrt(n), len(s))


# --------------------------------------------------------------------------- truth

def grad_of(env: Env, G: float) -> float | None:
    if env.event in ("training_stagnation", "prolonged_training"):
        return None
    r = reach90(env)
    return None if r is None else env.unlock + r + env.params["wait"]


def truth(env: Env, L: int, G: float, rng, judged_its: np.ndarray) -> tuple[np.ndarray, int | None]:
    it = np.arange(L, dtype=float)
    gain = env.s1 - env.s0
    s = env.s0 + gain * curve_f(env, (it - env.unlock) / env.T)
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
        i, high = a, False
        while i < L:
            d = int(max(p["dmin"], rng.exponential(max(p["dwell"] - p["dmin"] / 2, 1)) + p["dmin"] / 2))
            lvl[i:i + d] = held if high else held - p["gap"] * gain
            i += d
            high = not high
        s = np.where(it >= a, lvl, s)
    elif env.event == "performance_volatility" and v == "burst":
        m = (it >= a) & (it < a + p["length"])
        z = np.abs(rng.normal(0, 1, L))
        s = np.where(m, held - z * p["bsd"] * gain, s)
        s = np.clip(s, 0, 1)
        off = m & (np.abs(s - held) > max(0.15 * gain, 4 * point_sd(env, held)))
        cand = judged_its[judged_its >= a]
        hit = cand[off[cand]]
        true_at = int(hit[0]) if len(hit) else a
    elif env.event == "level_up":
        s = np.where(it >= a, s + p["shift"] * gain, s)
    s = np.clip(s, 0, 1)
    s[it < env.unlock] = np.nan
    if "stop" in p:
        s[it >= p["stop"]] = np.nan
    return s, true_at


def new_env(name: str, unlock: int, s0: float, s1: float, noise: tuple, W: float, G: float, rng) -> Env:
    curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
    env = Env(name, unlock, curve, float(rng.uniform(1.2, 3.0) * W), s0, s1, noise)
    env.params["wait"] = max(0.3 * W, 3 * G)
    return env


def try_event(env: Env, ev: str, W: float, G: float, J: float, end: int, rng, *, room_after: float = 0.0,
              allow=("sudden", "gradual", "temporary"), vol=("switch", "burst")) -> bool:
    """Place a post-graduation event (regression, volatility, transition, gap) or a stall; False if no room."""
    gain = env.s1 - env.s0
    held = env.s1
    if ev == "training_stagnation":
        variant = env.params.get("stall", "never")
        if variant == "never":
            if end - env.unlock < 6 * W:
                return False
            env.event, env.variant, env.curve, env.at = ev, "never", "flat", env.unlock
            shrink(env, 0.05, [env.s0])
            return True
        curve = str(rng.choice(["exp", "linear", "sqrt"]))
        T = float(rng.uniform(2.0, 4.0) * W)
        frac = float(rng.uniform(0.2, 0.5))
        frac = min(frac, (0.6 - env.s0) / gain)
        probe = Env(env.name, env.unlock, curve, T, env.s0, env.s1, env.noise)
        u = np.linspace(0, 1, 4001)
        at = int(env.unlock + u[int(np.flatnonzero(curve_f(probe, u) >= frac)[0])] * T)
        at = max(at, int(math.ceil(env.unlock + max(0.4 * W, 6 * J))))
        frac = float(curve_f(probe, np.array([(at - env.unlock) / T]))[0])
        if frac > 0.55 or frac < 0.15 or end - at < 5 * W:
            return False
        env.event, env.variant, env.curve, env.T, env.at = ev, "freeze", curve, T, at
        shrink(env, min(0.05, 0.2 * frac * gain), [env.s0, env.s0 + frac * gain])
        return True
    g = grad_of(env, G)
    if g is None:
        return False
    start = g + max(W, 10 * G)
    free = end - start
    if ev == "graduated_regression":
        variant = str(rng.choice(list(allow)))
        sev = str(rng.choice(["warning", "critical"]))
        keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        last = max(2 * W, 15 * G)
        fall = float(rng.uniform(0.5, 1.5) * W) if variant == "gradual" else 1.0
        back = max(2 * W, 20 * G) if variant == "temporary" else 0.0
        need = fall + last + back + (0 if variant == "temporary" else room_after)
        if free <= need:
            return False
        env.event, env.variant, env.severity = ev, variant, sev
        env.at = int(rng.uniform(start, end - need))
        if variant != "temporary":
            env.at = max(env.at, int(end - need - 2 * W))  # falls last to the end (of the level)
        env.params.update(keep=keep, fall=fall, back=back)
        drop = (1 - keep) * gain
        shrink(env, 0.25 * drop, [held, held - drop])
        return True
    if ev == "performance_volatility":
        variant = str(rng.choice(list(vol)))
        if variant == "burst":
            length = float(max(W, 20 * G))
            need = length + max(W, 15 * G)
            if free <= need:
                return False
            bsd = float(rng.uniform(0.2, 0.3))
            env.params.update(length=length, bsd=bsd)
            shrink(env, min(0.04, bsd * gain / 4), [held, held - 2 * bsd * gain])
            env.at = int(rng.uniform(start, end - need))
        else:
            dmin = max(4 * J, 4 * G)
            dwell = float(dmin * rng.uniform(1.0, 2.0))
            gap = float(rng.uniform(0.4, 0.6))
            need = max(2 * W, 10 * dwell)
            if free <= need:
                return False
            env.params.update(dwell=dwell, dmin=dmin, gap=gap)
            shrink(env, gap * gain / 5, [held, held - gap * gain])
            env.at = int(max(start, end - need - float(rng.uniform(0, 1)) * W))
        env.event, env.variant = ev, variant
        return True
    if ev == "unexpected_transition":
        back = float(rng.uniform(0.5, 1.5) * W)
        if free <= back + W:
            return False
        env.event, env.variant = ev, "2to1"
        env.at = int(rng.uniform(start, end - back - W))
        env.params["back_for"] = back
        return True
    if ev == "eval_gap":
        g50 = max(50.0 / env.params["unit"], G)
        need = max(8 * g50, 2 * W) + 2 * G
        if free <= need:
            return False
        env.event, env.variant = ev, "stop"
        env.at = int(rng.uniform(start, end - need))
        return True
    return False


def place_negative(env: Env, W: float, G: float, end: int, rng, heavy_noise: tuple, pool=None) -> None:
    neg = str(rng.choice(pool or ["healthy", "healthy", "noisy_healthy", "single_outlier", "level_up"]))
    g = grad_of(env, G)
    if neg == "noisy_healthy":
        env.noise = heavy_noise
    elif neg in ("single_outlier", "level_up"):
        if g is None or end - (g + max(W, 10 * G)) <= 3 * W:
            neg = "healthy"
        else:
            env.at = int(rng.uniform(g + max(W, 10 * G), end - 2 * W))
            if neg == "level_up":
                up = float(rng.uniform(0.03, 0.05))
                if 1.0 - env.s1 < up * (env.s1 - env.s0) + 0.01:
                    neg = "healthy"
                else:
                    env.params["shift"] = up
    env.event = neg


def first_point(its: np.ndarray, vals: np.ndarray, at: int) -> int | None:
    ok = its[(its >= at) & np.isfinite(vals)]
    return int(ok[0]) if len(ok) else None


# --------------------------------------------------------------------------- generic_offset

def plan_generic(run: dict, rng) -> None:
    unit = int(rng.choice([1000, 5000]))
    ev = int(rng.choice([0, 5, 10]))
    n_envs = int(rng.integers(2, 7))
    L = int(rng.choice([300, 600, 1000]))
    W, J = 20.0, 1.0
    G = float(ev or 1)
    prolonged = n_envs >= 3 and rng.random() < 0.25
    jump = None if prolonged or rng.random() >= 0.4 else (int(rng.uniform(0.05, 0.15) * L), int(rng.integers(30, 121)))
    if prolonged:
        L = int(math.ceil(rng.uniform(12.5, 15.0) * W))
    run.update(unit=unit, eval_every=ev, L=L, W=W, J=J, G=G, Q=max(W / 10, G), jump=jump,
               step0=int(rng.choice([0, 1_500_000, 20_000_000])), explicit=bool(rng.random() < 0.5),
               dup=bool(rng.random() < 0.3), prolonged=prolonged)
    s0 = float(rng.uniform(0.0, 0.03))
    top = float(rng.uniform(0.96, 0.995))
    names = [str(x) for x in rng.permutation(GENERIC_ENVS)[:n_envs]]
    after_jump = (jump[0] + int(W)) if jump else 0
    envs = []
    for k, nm in enumerate(names):
        unlock = int(rng.uniform(0.03, 0.2) * L) if (k and rng.random() < 0.4) else 0
        if prolonged:
            unlock = min(unlock, int(1.5 * W))
        noise = ("binom", int(rng.choice([32, 64, 128, 256])))
        env = new_env(nm, unlock, s0 + float(rng.uniform(0, 0.02)), top - float(rng.uniform(0, 0.02)), noise, W, G, rng)
        env.params["unit"] = unit
        env.params["stall"] = str(rng.choice(["freeze", "never"]))
        if prolonged:
            env.T = min(env.T, 2.5 * W)
        envs.append(env)
    run["envs"] = envs
    pool = ["graduated_regression"] * 3 + ["training_stagnation"] * 2 + ["performance_volatility"] * 3
    if run["explicit"]:
        pool += ["unexpected_transition"] * 2
    if ev:
        pool += ["eval_gap"] * 2
    for k, env in enumerate(envs):
        if prolonged and k == 0:
            env.unlock = 0
            env.event, env.curve = "prolonged_training", "riser"
            env.params["slope_T"] = min(float(rng.uniform(0.045, 0.06)) * (L - 1) / W, 0.68)
            env.T = L - 1
            shrink(env, 0.03, [env.s0, env.s0 + 0.7 * (env.s1 - env.s0)])
            continue
        if rng.random() < 0.6:
            for _ in range(3):
                if try_event(env, str(rng.choice(pool)), W, G, J, L, rng) and env.at >= after_jump:
                    break
                env.event, env.variant, env.at, env.severity = "healthy", "", None, None
                env.curve = env.curve if env.curve != "flat" else "exp"
        if env.event == "healthy":
            place_negative(env, W, G, L, rng, ("binom", int(rng.choice([8, 10, 12]))),
                           ["healthy", "healthy", "noisy_healthy", "single_outlier", "level_up", "late_healthy"])
            if env.event == "late_healthy":
                if k == 0 or prolonged:
                    env.event = "healthy"
                else:
                    env.unlock = int(rng.uniform(0.35, 0.55) * L)
                    env.T = min(env.T, 0.25 * L)
                    if env.unlock + env.T + 3 * W > L or env.T < 1.2 * W:
                        env.unlock, env.event = 0, "healthy"


def gen_step(run: dict, i) -> int:
    i = int(i)
    extra = run["jump"][1] if run["jump"] and i >= run["jump"][0] else 0
    return int(run["step0"] + run["unit"] * (i + extra))


def series_generic(run: dict, rng) -> tuple[dict, list[dict]]:
    L, G, W = run["L"], run["G"], run["W"]
    data, labels = {}, []
    for env in run["envs"]:
        tr = np.arange(env.unlock, L)
        evs = np.arange(0, L, run["eval_every"]) if run["eval_every"] else np.array([], int)
        evs = evs[evs >= env.unlock]
        s, true_at = truth(env, L, G, rng, np.union1d(tr, evs))
        gap_last = None
        if env.event == "eval_gap":
            evs = evs[evs <= env.at]
            gap_last = int(evs[-1])
        sk = np.where(np.isnan(s), env.s0, s)
        train = observe(env, np.clip(sk[tr] - 0.01, 0, 1), rng)
        ev_vals = observe(env, sk[evs], rng) if len(evs) else np.zeros(0)
        judged = "train"
        if env.event == "single_outlier":
            j = int(np.searchsorted(tr, env.at))
            train[j] = env.s0 + 0.05 * (env.s1 - env.s0)
        state = np.where(np.arange(L) < env.unlock, 0, 1)
        g = grad_of(env, G)
        if g is not None:
            state = np.where(np.arange(L) >= g, 2, state)
        if env.event == "unexpected_transition":
            state = np.where((np.arange(L) >= env.at) & (np.arange(L) < env.at + env.params["back_for"]), 1, state)
        # the label
        onset = None
        all_its = np.concatenate([tr, evs])
        all_vals = np.concatenate([train, ev_vals])
        order = np.argsort(all_its, kind="stable")
        all_its, all_vals = all_its[order], all_vals[order]
        if env.event == "eval_gap":
            onset = gen_step(run, gap_last) + int(run["eval_every"] * run["unit"])
        elif env.event == "unexpected_transition":
            bad = np.flatnonzero((np.arange(L) >= env.at) & (state == 1))
            onset = gen_step(run, bad[0])
        elif env.event == "prolonged_training":
            onset = gen_step(run, tr[0]) + int(10 * W * run["unit"])
        elif env.event in EVENTS:
            t0 = env.unlock if env.variant == "never" else true_at
            fp = first_point(all_its, all_vals, t0)
            onset = gen_step(run, fp) if fp is not None else None
        # NaN values (1.5 % of train points), never near the event's onset
        nan_at = rng.random(len(tr)) < 0.015
        if env.event in EVENTS and env.at is not None:
            nan_at &= np.abs(tr - (true_at if true_at is not None else env.at)) > 3
        nan_at &= np.abs(tr - tr[0]) > 3
        train = np.where(nan_at, np.nan, train)
        data[env.name] = {"train_it": tr, "train": train, "eval_it": evs, "eval": ev_vals, "state": state,
                          "judged": judged, "grad": g}
        if onset is not None and env.event in EVENTS:
            labels.append(label(run, env, onset))
    return data, labels


def write_generic(folder: Path, run: dict, data: dict) -> None:
    import logging

    from tensorboardX import SummaryWriter

    logging.getLogger("tensorboardX.x2num").setLevel(logging.ERROR)  # the NaN values are meant

    rows: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(d["train_it"], d["train"]):
            rows.setdefault(int(i), []).append((f"train/{env.name}/success", float(v)))
            if run["dup"]:
                rows[int(i)].append((f"train/{env.name}/success", float(v)))
            if run["explicit"]:
                rows[int(i)].append((f"curriculum/{env.name}/state", int(d["state"][i])))
        for i, v in zip(d["eval_it"], d["eval"]):
            rows.setdefault(int(i), []).append((f"eval/{env.name}/success", float(v)))
        if run["explicit"]:
            for i in range(0, env.unlock, 10):
                rows.setdefault(i, []).append((f"curriculum/{env.name}/state", 0))
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000)
    for i in sorted(rows):
        for tag, v in rows[i]:
            w.add_scalar(tag, v, gen_step(run, i), walltime=1.76e9 + 30 * i)
    w.close()


# --------------------------------------------------------------------------- SB3 levels mirrored to W&B

SB3_ITER = 256  # n_envs 4 x n_steps 64 timesteps per iteration


def plan_sb3(run: dict, rng) -> None:
    K = int(rng.integers(3, 6))
    e = int(rng.choice([4, 5, 8]))
    W, J, G = 20.0, 1.0, float(e)
    kind = str(rng.choice(["cartpole", "pendulum"]))
    run.update(unit=SB3_ITER, eval_every=e, W=W, J=J, G=G, Q=max(W / 10, G), kind=kind,
               n_eval=int(rng.choice([5, 10, 20])))
    envs, start = [], 0
    for k in range(K):
        last = k == K - 1
        s0 = float(rng.uniform(0.03, 0.12))
        s1 = float(rng.uniform(0.9, 0.96))
        ep_sd = float(rng.uniform(0.04, 0.2))
        env = new_env(f"level_{k}", start, s0, s1, ("gauss", ep_sd), W, G, rng)
        env.params["n_avg"] = 4 * run["n_eval"]  # the eval mean: episodes of sd ep_sd / 2, n_eval of them
        env.params["level"] = k
        env.T = float(rng.uniform(1.2, 2.5) * W)
        length = int(reach90(env) + env.params["wait"] + rng.uniform(1.5, 3.0) * W)
        r = rng.random()
        placed = False
        if last and r < 0.3:
            length = int(rng.uniform(6.5, 8) * W)
            env.params["stall"] = "never"
            placed = try_event(env, "training_stagnation", W, G, J, start + length, rng)
        elif r < 0.6:
            ev = str(rng.choice(["graduated_regression", "graduated_regression", "performance_volatility"]))
            need = max(W, 10 * G) + (max(2 * W, 15 * G) + 1.5 * W if ev == "graduated_regression" else max(2 * W, 10 * 2 * 4 * G))
            length = int(reach90(env) + env.params["wait"] + need + rng.uniform(0.3, 1.0) * W)
            placed = try_event(env, ev, W, G, J, start + length, rng, allow=("sudden", "gradual"), vol=("switch",))
        if not placed:
            env.event, env.variant, env.at, env.severity = "healthy", "", None, None
            env.curve = env.curve if env.curve != "flat" else "exp"
            place_negative(env, W, G, start + length, rng, ("gauss", float(rng.uniform(0.2, 0.3))),
                           ["healthy", "healthy", "noisy_healthy", "level_up"])
        env.params["stop"] = start + length
        envs.append(env)
        start += length
    run["L"] = start
    run["envs"] = envs


def series_sb3(run: dict, rng) -> tuple[dict, list[dict]]:
    L, G, W, e = run["L"], run["G"], run["W"], run["eval_every"]
    a, b = KINDS[run["kind"]]
    data, labels = {}, []
    for env in run["envs"]:
        stop = env.params["stop"]
        tr = np.arange(env.unlock, stop)
        # EvalCallback fires at n_calls % eval_freq == 0: the last vector step of every e-th iteration overall
        evs = tr[(tr + 1) % e == 0]
        s, true_at = truth(env, L, G, rng, np.union1d(tr, evs))
        data[env.name] = {"train_it": tr, "eval_it": evs, "s": s, "grad": grad_of(env, G)}
        onset = None
        if env.event in EVENTS:
            t0 = env.unlock if env.variant == "never" else true_at
            ok = tr[tr >= t0]
            onset = sb3_step(ok[0]) if len(ok) else None
            if onset is not None:
                labels.append(label(run, env, onset))
        if env is not run["envs"][-1] and len(evs):
            gap = dict(run=run["name"], env=env.name, type="eval_gap", onset=sb3_step(evs[-1]) + e * SB3_ITER,
                       severity="warning" if grad_of(env, G) is not None else "info", kind=run["kind"],
                       shape=f"{run['convention']}/level_done", variant="level_done")
            labels.append(gap)
    return data, labels


def sb3_step(i) -> int:
    return int((int(i) + 1) * SB3_ITER)


def write_sb3(folder: Path, run: dict, data: dict, rng) -> None:
    """One SB3 agent, one learn() per level (reset_num_timesteps=False); each learn() mirrored to its own W&B run
    of the group as sync_tensorboard mirrors it: a row per TensorBoard step, logged without step=."""
    import rl_writers
    from writers import write_wandb

    a, b = KINDS[run["kind"]]
    dumps: list = []

    class Mirrored(rl_writers.SB3Logger):
        def dump(self, step: int = 0) -> None:
            row = {k: float(v) for (k, v), (_, ex) in zip(sorted(self.name_to_value.items()),
                                                          sorted(self.name_to_excluded.items()))
                   if not (ex is not None and "tensorboard" in ex) and not isinstance(v, str)}
            if dumps and dumps[-1][0] == step:
                dumps[-1][1].update(row)
            else:
                dumps.append((step, row))
            super().dump(step)

    saved = rl_writers.SB3Logger
    rl_writers.SB3Logger = Mirrored
    try:
        with tempfile.TemporaryDirectory() as tmp:
            agent = rl_writers.SB3OnPolicy(tmp, n_envs=4, n_steps=64, episode_length=32, noise=1.0,
                                           eval_freq=run["eval_every"] * 64, n_eval_episodes=run["n_eval"],
                                           seed=run["seed"] % (1 << 30))
            for env in run["envs"]:
                d = data[env.name]
                ep = env.noise[1] * abs(b)  # the episodes' sd (the eval mean's is ep / 2 / sqrt(n_eval))
                agent.noise = agent.episodes.noise = ep
                returns = [float(a + b * x) for x in np.nan_to_num(d["s"][d["train_it"]], nan=env.s0)]
                dumps.clear()
                agent.learn(returns, tb_log_name=env.name, reset_num_timesteps=False)
                rows = [dict(r, global_step=st) for st, r in dumps]
                write_wandb(folder / "wandb", rows, run_id=f"{run['name'].replace('_', '-')}-{env.name.replace('_', '')}",
                            group=run["name"], name=env.name, stamp=f"20260401_0{env.params['level']}0000")
    finally:
        rl_writers.SB3Logger = saved


# --------------------------------------------------------------------------- CleanRL --track

CLEANRL_ITER = 128  # num_envs 2 x num_steps 64


def plan_cleanrl(run: dict, rng) -> None:
    kind = str(rng.choice(["mujoco", "huge"]))
    L = int(rng.integers(200, 451))
    n = int(rng.choice([1, 1, 2]))
    ep_len = int(rng.choice([32, 64]))
    # episodes end at staggered steps: the logging pace, README's way (computed on the planned steps below)
    steps = cleanrl_episode_steps(L, ep_len)
    J = pace(steps) / CLEANRL_ITER  # in iterations
    W = max(min(100.0, 0.1 * (steps[-1] - steps[0])), 20 * pace(steps)) / CLEANRL_ITER
    G = J
    run.update(unit=CLEANRL_ITER, L=L, W=W, J=J, G=G, Q=max(W / 10, G), kind=kind, ep_len=ep_len, eval_every=0)
    names = [str(x) for x in rng.permutation(CLEANRL_ENVS[kind])[:n]]
    envs = []
    for nm in names:
        env = new_env(nm, 0, float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.85, 0.97)),
                      ("gauss", float(rng.uniform(0.02, 0.08))), W, G, rng)
        env.T = float(rng.uniform(2.0, 5.0) * W)
        env.params["stall"] = "never"
        if rng.random() < 0.6:
            ev = str(rng.choice(["graduated_regression", "graduated_regression", "performance_volatility",
                                 "performance_volatility", "training_stagnation"]))
            if not try_event(env, ev, W, G, J, L, rng):
                env.event, env.variant, env.at, env.severity = "healthy", "", None, None
                env.curve = env.curve if env.curve != "flat" else "exp"
        if env.event == "healthy":
            place_negative(env, W, G, L, rng, ("gauss", 0.12))
        envs.append(env)
    run["envs"] = envs


def cleanrl_episode_steps(L: int, ep_len: int) -> np.ndarray:
    """global_step of each finished episode in tests/rl_writers.cleanrl_ppo (2 envs, 64 steps an iteration)."""
    left = [ep_len - 7 * i % ep_len or ep_len for i in range(2)]
    out, gs = [], 0
    for _ in range(L * 64):
        gs += 2
        for i in range(2):
            left[i] -= 1
            if not left[i]:
                left[i] = ep_len
                out.append(gs)
    return np.unique(np.asarray(out, float))


def series_cleanrl(run: dict, rng) -> tuple[dict, list[dict]]:
    L, G, W = run["L"], run["G"], run["W"]
    data, labels = {}, []
    its = np.arange(L)
    for env in run["envs"]:
        s, true_at = truth(env, L, G, rng, its)
        data[env.name] = {"s": s, "grad": grad_of(env, G)}
        if env.event in EVENTS:
            t0 = 0 if env.variant == "never" else true_at
            # the first episode ending in iteration t0 (episodes of iteration i end in ((i)*256, (i+1)*256])
            steps = cleanrl_episode_steps(t0 + 1, run["ep_len"])
            st = steps[steps > t0 * CLEANRL_ITER]
            labels.append(label(run, env, int(st[0]) if len(st) else (t0 + 1) * CLEANRL_ITER))
    return data, labels


def write_cleanrl(folder: Path, run: dict, data: dict, rng) -> None:
    import rl_writers
    from writers import write_wandb

    a, b = KINDS[run["kind"]]
    for k, env in enumerate(run["envs"]):
        records: list = []

        class Mirror:
            def add_scalar(self, tag, value, step, walltime=None):
                records.append((int(step), tag, float(value)))

            def add_text(self, *args, **kwargs):
                pass

            def close(self):
                pass

        saved = rl_writers._cleanrl_writer
        rl_writers._cleanrl_writer = lambda runs_dir, run_name, args: Mirror()
        try:
            s = np.nan_to_num(data[env.name]["s"], nan=env.s0)
            rets = [float(a + b * x) for x in s]
            seed = int(rng.integers(1, 100))
            if env.event == "single_outlier":
                rets[env.at] = float(a + b * (env.s0 + 0.05 * (env.s1 - env.s0)))
            rl_writers.cleanrl_ppo(folder, env.name, rets, seed=seed, num_envs=2, num_steps=64,
                                   episode_length=run["ep_len"], noise=env.noise[1] * abs(b))
        finally:
            rl_writers._cleanrl_writer = saved
        rows: list[dict] = []
        cur = None
        for step, tag, v in records:
            if step != cur:
                rows.append({"global_step": step})
                cur = step
            rows[-1][tag] = v
        run_name = rl_writers.cleanrl_run_name(env.name, "ppo", seed)
        write_wandb(folder / "wandb", rows, run_id=f"{zlib.crc32((run['name'] + env.name).encode()) & 0xFFFFFFF:07x}",
                    name=run_name, stamp=f"20260501_0{k}0000")


# --------------------------------------------------------------------------- ML-Agents lessons

def plan_mlagents(run: dict, rng) -> None:
    F = int(rng.choice([1000, 10000]))
    W, J, G = 20.0, 1.0, 1.0
    K = int(rng.integers(3, 6))
    nb = int(rng.choice([1, 1, 2]))
    kind = str(rng.choice(["pm1", "unit", "ten"]))
    run.update(unit=F, W=W, J=J, G=G, Q=max(W / 10, G), kind=kind, eval_every=0,
               param=str(rng.choice(PARAMS)), K=K)
    behaviors = [str(x) for x in rng.permutation(BEHAVIORS)[:nb]]
    s_init = float(rng.uniform(0.03, 0.12))
    top = float(rng.uniform(0.9, 0.95))
    # lesson 0: a rise over T0, then a hold; later lessons: a dip at the advance and a recovery, then a hold
    envs = []
    for nm in behaviors:
        env = Env(nm, 0, "exp", float(rng.uniform(0.8, 1.5) * W), s_init + float(rng.uniform(0, 0.03)),
                  top - float(rng.uniform(0, 0.02)), ("gauss", float(rng.uniform(0.05, 0.25))))
        env.params.update(n_avg=int(rng.integers(3, 41)), advances=[])
        envs.append(env)
    T0 = max(e.T for e in envs)
    starts = [0]
    dur0 = int(math.ceil(T0 + rng.uniform(0.3, 0.7) * W))
    durs = [dur0]
    fallback = None
    for lesson in range(1, K):
        prev = durs[-1]
        window = max(2 * prev, 5)
        need = 0.0
        for env in envs:
            r = rng.random()
            if r < 0.5 and 1.2 * W <= prev <= 1.5 * W:
                keep = float(rng.uniform(0.1, 0.4))
                cross = float(rng.uniform(1.5, 1.8) * window)
                R = cross * (1 - keep) / (0.85 - keep)
                adv = dict(type="collapse", keep=keep, R=R, window=window)
                need = max(need, R + 0.4 * W)
            elif r < 0.75:
                keep = float(rng.uniform(0.35, 0.7))
                R = float(min(rng.uniform(0.3, 0.5) * window, 1.5 * W))
                adv = dict(type="recovered", keep=keep, R=R, window=window)
                need = max(need, R + 0.5 * W)
            else:
                keep = float(rng.uniform(0.9, 0.97))
                R = float(rng.uniform(0.2, 0.5) * W)
                adv = dict(type="held", keep=keep, R=R, window=window)
                need = max(need, R + 0.5 * W)
            env.params["advances"].append(adv)
        base = float(rng.uniform(1.2, 1.5) if rng.random() < 0.7 else rng.uniform(1.7, 2.6)) * W
        dur = int(math.ceil(max(need, base)))
        starts.append(starts[-1] + durs[-1])
        durs.append(dur)
    # the last lesson lasts at least until its recovery is judged, and a fall back may come in its plateau
    last_adv_need = max(max(adv["R"], adv["window"] if adv["type"] == "collapse" else 0.0)
                        for adv in (e.params["advances"][-1] for e in envs))
    durs[-1] = int(math.ceil(max(durs[-1], last_adv_need + rng.uniform(0.8, 1.5) * W)))
    if rng.random() < 0.35:
        d = int(rng.integers(3, 7))
        at = starts[-1] + int(max(e.params["advances"][-1]["R"] for e in envs) + 0.3 * W) + int(rng.integers(0, 10))
        fallback = (at, d)
        durs[-1] = max(durs[-1], at - starts[-1] + (K - 1) * d + int(1.0 * W))
    run["starts"], run["durs"], run["fallback"] = starts, durs, fallback
    run["L"] = starts[-1] + durs[-1]
    for env in envs:
        env.params["starts"] = starts
        colls = [k for k, adv in enumerate(env.params["advances"]) if adv["type"] == "collapse"]
        env.event = "lesson_reward_collapse" if colls else "healthy"
        if colls:
            # visibility: the dip's points are well apart from the line
            drop = min(1 - env.params["advances"][k]["keep"] for k in colls) * (env.s1 - env.s0)
            shrink(env, min(0.03, drop / 6), [env.s1])
    run["envs"] = envs


def lesson_index(run: dict) -> np.ndarray:
    L = run["L"]
    idx = np.zeros(L, int)
    for k, st in enumerate(run["starts"]):
        idx[st:] = k
    if run["fallback"]:
        at, d = run["fallback"]
        K = run["K"]
        for j in range(K - 1):
            idx[at + j * d: at + (j + 1) * d] = j
    return idx


def lesson_truth(env: Env, run: dict) -> np.ndarray:
    L = run["L"]
    it = np.arange(L, dtype=float)
    gain = env.s1 - env.s0
    s = env.s0 + gain * (1 - np.exp(-5 * np.clip(it / env.T, 0, 1))) / (1 - math.exp(-5))
    for k, adv in enumerate(env.params["advances"]):
        a = run["starts"][k + 1]
        low = env.s0 + adv["keep"] * gain
        # the advance step's own point was played before the advance: the dip starts at the next period
        u = np.clip((it - a) / adv["R"], 0, 1)
        if adv["type"] == "collapse":
            rec = low + (env.s1 - low) * u
        else:
            rec = low + (env.s1 - low) * (1 - np.exp(-4 * u)) / (1 - math.exp(-4))
        s = np.where(it > a, rec, s)
    return np.clip(s, 0, 1)


def series_mlagents(run: dict, rng) -> tuple[dict, list[dict]]:
    data, labels = {}, []
    F = run["unit"]
    idx = lesson_index(run)
    for env in run["envs"]:
        s = lesson_truth(env, run)
        data[env.name] = {"s": s}
        for k, adv in enumerate(env.params["advances"]):
            if adv["type"] != "collapse":
                continue
            a = run["starts"][k + 1]
            gain = env.s1 - env.s0
            end = int(a + adv["window"])
            keep_end = (s[min(end, run["L"] - 1)] - env.s0) / gain
            labels.append(dict(run=run["name"], env=env.name, type="lesson_reward_collapse", onset=(a + 2) * F,
                               severity="critical" if keep_end < 0.7 else "warning", kind=run["kind"],
                               shape=f"{run['convention']}/collapse", variant="collapse"))
        if run["fallback"]:
            at, _d = run["fallback"]
            labels.append(dict(run=run["name"], env=env.name, type="lesson_regression", onset=(at + 1) * F,
                               severity="warning", kind=run["kind"], shape=f"{run['convention']}/fallback",
                               variant="fallback"))
    data["_lessons"] = idx
    return data, labels


def write_mlagents(folder: Path, run: dict, data: dict, rng) -> None:
    from writers import MLAgentsRun

    a, b = KINDS[run["kind"]]
    F = run["unit"]
    idx = data["_lessons"]
    ml = MLAgentsRun(folder / "results", run["name"], tuple(e.name for e in run["envs"]),
                     config={"trainer_type": "ppo", "summary_freq": F})
    for i in range(run["L"]):
        episodes = {}
        for env in run["envs"]:
            n = env.params["n_avg"]
            s = data[env.name]["s"][i]
            episodes[env.name] = [float(a + b * x) for x in s + rng.normal(0, env.noise[1], n)]
        ml.summary((i + 1) * F, {run["param"]: int(idx[i])}, episodes)
    ml.close()


# --------------------------------------------------------------------------- build

def label(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                kind=run.get("kind", "success"), shape=f"{run['convention']}/{env.variant or env.curve}",
                variant=env.variant)


PLANNERS = {"generic_offset": plan_generic, "sb3_wandb_levels": plan_sb3, "cleanrl_track": plan_cleanrl,
            "mlagents_lessons": plan_mlagents}


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    rng = np.random.default_rng(seed)
    plans = []
    for i in range(n_runs):
        conv = CYCLE[i % len(CYCLE)]
        run = dict(name=f"x{i:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        PLANNERS[conv](run, rng)
        plans.append(run)
    labels: list[dict] = []
    for run in plans:
        rrng = np.random.default_rng(run["seed"])
        conv = run["convention"]
        folder = root / conv / run["name"]
        folder.mkdir(parents=True, exist_ok=True)
        if conv == "generic_offset":
            data, lab = series_generic(run, rrng)
            write_generic(folder, run, data)
        elif conv == "sb3_wandb_levels":
            data, lab = series_sb3(run, rrng)
            write_sb3(folder, run, data, rrng)
        elif conv == "cleanrl_track":
            data, lab = series_cleanrl(run, rrng)
            write_cleanrl(folder, run, data, rrng)
        else:
            data, lab = series_mlagents(run, rrng)
            write_mlagents(folder, run, data, rrng)
        labels += lab
        unit = run["unit"]
        meta = {k: v for k, v in run.items() if k != "envs"}
        meta.update(tolerance_unit=int(round(run["Q"] * unit)), window_steps=run["W"] * unit,
                    eval_every=(run["eval_every"] or run["J"]) * unit)
        meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "curve": e.curve,
                         "severity": e.severity, "noise": list(e.noise), "unlock": e.unlock, "T": e.T,
                         "at": e.at, "s0": e.s0, "s1": e.s1,
                         "graduated_it": (grad_of(e, run["G"]) if e.event != "lesson_reward_collapse"
                                          and conv != "mlagents_lessons" else None),
                         "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in e.params.items()}}
                        for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
