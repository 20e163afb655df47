"""The wide detection corpus (`python benchmarks/detection.py --corpus wide`): conventions, metric
kinds, noise and logging shapes the default corpus does not have, scored by the same scorer.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-wide-<VERSION>-<n>runs-s<seed>, never in the
repo. Every run is written by the real writer or by code reproducing the framework's logging call for
call (file:line cited at each writer). Meant to be read for its totals, not tuned on.

Conventions (one group folder each, round robin over the runs):
  atropos_wandb  W&B offline, one run per env process grouped by `group=` (NousResearch/atropos 296a0bc,
                 atroposlib/envs/base.py:487-499),
                 keys `{env}_0_train|eval/percent_correct` logged WITH step= (base.py:682-688); the env logs
                 only at trainer steps it took part in (irregular train steps) and an eval still running
                 at the next eval step is skipped (base.py:1033-1050: jittered evals, never two in a row)
  tune           Ray Tune trial folders (result.json, progress.csv, params.json) by Ray's own
                 JsonLoggerCallback / CSVLoggerCallback when ray[tune] imports, else tests/writers.py's
                 call-for-call copy; RLlib keys `env_runners/episode_return_mean` and
                 `evaluation/env_runners/episode_return_mean` (env from params.json), or per env
                 `env_runners/{env}/…` (keys appearing later are only in result.json); step =
                 `timesteps_total` (1,000 / 4,000 / 16,000 per iteration)
  dcd            facebookresearch/dcd FileWriter (tests/writers.py DcdFileWriter, util/filewriter.py:161-228):
                 logs.csv + fields.csv, `test_returns:{env}` (performance) and `solved_rate:{env}` (of 20) every
                 test interval, a row per update, step `steps` (2,048 / 8,192 env steps per update): eval-only
  roll_stdout    ROLL's stdout tracker log (tests/writers.py write_roll_stdout, roll/utils/tracking.py:161):
                 `metrics_tag: {"step": N, "metrics": {…}}` lines, `env/{tag}/success`, `val/env/{tag}/success`
  tinker_tb      tensorboardX, tinker-style per-tag keys `env/{tag}/reward` beside the `env/all/reward`
                 aggregate (tinker-cookbook 9dfcc3a, tinker_cookbook/rl/metric_util.py:89,94 builds
                 `env/{tag}/{k}` and `env/all/{k}`), several batches logged under one step; curriwatch.yaml
                 `performance_metric: reward`. tinker's own k is `reward/total`, which the roll profile reads
                 as env `{tag}/reward`, metric `total`: not used here (a profile gap, not a corpus shape)
  mylab2_*       a second user profile (regex in the group's curriwatch.yaml): `metrics/{metric}/train|valid/{env}`,
                 state `curriculum/phase/{env}` (numbers in TensorBoard, the words locked/active/graduated in
                 W&B), env ids with `-` and `.`; written by tensorboardX or W&B offline with step=;
                 metrics `error_rate` and `val_loss` (lower is better, recognised by name), `steps_to_goal`
                 (lower is better, declared: `direction: lower`), `return` crossing zero (-50..+50)
  generic_units  generic `train|eval/{env}/reward` + `curriculum/{env}/state` (tensorboardX) with steps counted
                 in env frames (1,000 or 2,048 per iteration), jittered evals, late unlocks
Metric kinds   success rates; returns 0..200, -200..-20, 1e3..1e4, -50..+50, 0..1, rewards -1..+1; error rate,
               val loss, steps to goal (lower is better)
Noise          binomial (n 4..128, rates only), gaussian (several sizes), Student t (df 3), AR(1) (phi
               0.5..0.9), and gaussian whose sd grows with the metric's magnitude; heavier draws of each
               for the noisy negatives
Shapes         train+eval, eval-only, train-only; eval every 1..200 iterations, jittered; train every k;
               irregular train steps; several observations per step; steps in larger units; 500..5,000
               logging points; envs unlocked late; states logged (explicit) or inferred

Time is generated in iterations i = 0..L-1 (step = unit × (i + offset)); every label is stated in steps.
  J  (judged interval)   the train logging interval, or the eval interval when only eval is logged
  W  (stagnation window) max(100 steps, 20 × J): the README's 100-step window widened to hold 20 points
  Q  (event unit)        max(W / 10, the eval interval; the train interval when nothing is evaluated)
The scorer's tolerance unit for a run (`tolerance_unit` in plan.json) is Q in steps: on the default
corpus's shapes it is the eval interval, as there.

Labels (same semantics as the default corpus, in the units above; an env may carry two labels):
  graduated_regression  keeps 0.7..0.8 (warning) / 0.25..0.45 (critical) of the learned gain from onset to
                        the run's end (>= max(2 W, 12 Q) after it); onset = first step of the fall
  training_stagnation   a slow learner stops at a low level at unlock + 0.6..1.5 W and stays active,
                        flat for >= 4 W; onset = first flat step
  performance_volatility  a burst after graduation, max(0.8..1.6 W, 20 judged points) long, swings of ~0.5 of
                        the skill scale alternating every ~judged point (onset = burst start); or lifelong
                        switching between skill 0.2 and 0.85, regimes of max(0.45..0.8 W, 4 J, 3 evals),
                        for at least two periods (onset = activation)
  unexpected_transition explicit state graduated -> active, staying active <= 8 W; onset = that step
  eval_gap              the env's evals stop (>= max(8 x max(50 steps, eval interval), 2 W) before the run
                        ends) while the run goes on; onset = the first scheduled eval that did not come
  prolonged_training    active without graduating for more than 10 W: a steady riser (+0.03..0.045 skill per
                        W, never plateauing, below 0.65) whose span is 11.5..13 W; onset = activation + 10 W.
                        Spans between 8 W and 11.5 W are never generated (no ambiguous cases). A stagnant env
                        active >= 11.5 W is labelled as stagnant only: one event, one incident (its stall is
                        why it stays active)
  clean negatives       healthy, noisy_healthy (heavy noise), slow_learner (graduates at 3..5 W), level_shift
                        (+0.02 / -0.03 after graduation), single_outlier (one judged point at skill 0.05)
Visibility: an event's noise is drawn until its sd (skill units; binomial taken at p = 0.5) is at most
half the drop for a regression (which lasts >= 12 judged points), 0.1 for a burst, 0.12 for lifelong
switching, 0.08 for stagnation and 0.03 for a prolonged riser; clean negatives take any noise (AR(1)
noise is kept small enough that its wanders never look like a 15 % fall of the gain).
"""
from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the writers the tests use

VERSION = 2  # 2: stagnant envs no longer carry a prolonged_training label as well
N_RUNS = 120
SMALL_RUNS = 20
STAGNATION_WINDOW = 100
MIN_POINTS = 20
EVALUATION_FREQUENCY = 50  # curriwatch's default evaluation_frequency: eval gaps are judged against it
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")
GROUPS = ("atropos_wandb", "tune", "dcd", "roll_stdout", "tinker_tb", "mylab2_error", "mylab2_loss",
          "mylab2_steps", "mylab2_return", "generic_units")
WALL0 = 1.7e9
# how often each event is drawn (stagnation is placed more often than the others succeed: weighed down)
POOL_WEIGHTS = {"graduated_regression": 1.3, "training_stagnation": 0.7, "performance_volatility": 1.1,
                "eval_gap": 0.9, "unexpected_transition": 1.3}

# value = a + b * skill; `rate`: skill observed as a binomial proportion is allowed, and clipped to [0, 1]
KINDS = {
    "success": (0.0, 1.0, True), "error_rate": (1.0, -1.0, True), "val_loss": (2.55, -2.5, False),
    "steps_to_goal": (500.0, -480.0, False), "return_0_200": (0.0, 200.0, False),
    "return_neg": (-200.0, 180.0, False), "return_big": (1000.0, 9000.0, False),
    "return_cross": (-50.0, 100.0, False), "return01": (0.0, 1.0, False), "reward_pm1": (-1.0, 2.0, False),
}
MYLAB2 = {  # subgroup -> (kind, metric name, config line)
    "mylab2_error": ("error_rate", "error_rate", ""),
    "mylab2_loss": ("val_loss", "val_loss", ""),
    "mylab2_steps": ("steps_to_goal", "steps_to_goal", "direction: lower\n"),
    "mylab2_return": ("return_cross", "return", ""),
}
MYLAB2_CONFIG = """\
profiles:
  mylab2:
    patterns:
      - regex: '^metrics/(?P<metric>[a-z_]+)/(?P<split>train|valid)/(?P<env>[A-Za-z0-9_.-]+)$'
      - {regex: '^curriculum/phase/(?P<env>[A-Za-z0-9_.-]+)$', split: state, metric: state}
    performance_metric: %s
"""
STATE_WORDS = ("locked", "active", "graduated")


@dataclass
class WEnv:
    name: str
    unlock: int  # iteration
    tau: float  # iterations
    kind: str
    noise: tuple
    event: str = "healthy"
    onset: int | None = None  # iteration
    severity: str | None = None
    params: dict = field(default_factory=dict)
    extra: list = field(default_factory=list)  # further labels [(type, onset iteration)]


# --- noise ---------------------------------------------------------------------------------------

def noise_sd(noise: tuple, kind: str) -> float:
    """The noise's sd in skill units (binomial at p = 0.5, magnitude-scaled at the scale's far end)."""
    a, b, _ = KINDS[kind]
    name, *p = noise
    if name == "binom":
        return 0.5 / math.sqrt(p[0])
    if name == "t3":
        return p[0] * math.sqrt(3.0)
    if name == "prop":
        return p[0] * max(abs(a), abs(a + b)) / abs(b)
    return p[-1]  # gauss (sigma), ar1 (phi, sigma)


def draw_noise(rng: np.random.Generator, kind: str, heavy: bool = False, fam: str | None = None) -> tuple:
    rate = KINDS[kind][2]
    families = ["gauss", "t3", "ar1", "prop"] + (["binom", "binom"] if rate else [])
    fam = fam or str(rng.choice(families))
    if fam == "binom":
        n = int(rng.choice([4, 6, 8]) if heavy else round(2 ** rng.uniform(2, 7)))
        return ("binom", n)
    if fam == "gauss":
        return ("gauss", float(rng.uniform(0.08, 0.12) if heavy else rng.choice([0.005, 0.015, 0.03, 0.05])))
    if fam == "t3":
        return ("t3", float(0.05 if heavy else rng.uniform(0.005, 0.025)))
    if fam == "ar1":
        # autocorrelated noise wanders: kept small enough that a wander is never a 15 % fall of the gain
        return ("ar1", float(0.9 if heavy else rng.uniform(0.5, 0.9)), float(0.025 if heavy else rng.uniform(0.01, 0.025)))
    return ("prop", float(0.12 if heavy else rng.uniform(0.01, 0.05)))


def noise_for(rng: np.random.Generator, kind: str, limit: float | None) -> tuple:
    """A noise draw whose sd is at most `limit` (None: any): the family first, so that a family
    with a few large draws (binomial at small n) keeps its share."""
    for _ in range(10):
        fam = draw_noise(rng, kind)[0]
        for _ in range(20):
            noise = draw_noise(rng, kind, fam=fam)
            if limit is None or noise_sd(noise, kind) <= limit:
                return noise
    return ("gauss", round(limit / 2, 4))


def observe(kind: str, noise: tuple, s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Noisy observations of skill `s` (one series, in order), mapped to the metric's units."""
    a, b, rate = KINDS[kind]
    name, *p = noise
    if name == "binom":
        x = rng.binomial(p[0], np.clip(s, 0, 1)) / p[0]
    elif name == "gauss":
        x = s + rng.normal(0, p[0], s.shape)
    elif name == "t3":
        x = s + p[0] * rng.standard_t(3, s.shape)
    elif name == "ar1":
        phi, sigma = p
        z = rng.normal(0, sigma * math.sqrt(1 - phi * phi), s.shape)
        e = np.empty_like(z)
        prev = rng.normal(0, sigma, s.shape[1:]) if s.ndim > 1 else rng.normal(0, sigma)
        for i in range(len(z)):
            prev = phi * prev + z[i]
            e[i] = prev
        x = s + e
    else:  # prop: sd grows with the metric's magnitude
        x = s + rng.normal(0, 1, s.shape) * p[0] * np.abs(a + b * s) / abs(b)
    if rate or kind == "return01":
        x = np.clip(x, 0, 1)
    return a + b * x


# --- run plans -----------------------------------------------------------------------------------

def _logu(rng, lo, hi) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _shape(conv: str, rng) -> dict:
    """Step unit, intervals, shape and writer of one run of convention `conv` (iterations)."""
    r = rng.random()
    d = {"unit": 1, "offset": 0, "train_every": 1, "eval_every": None, "jitter": False, "multi": 1,
         "irregular": None, "explicit": False, "writer": "tensorboard", "single_env": False}
    if conv == "atropos_wandb":
        d.update(writer="wandb", irregular=float(rng.uniform(0.5, 1.0)),
                 eval_every=None if r < 0.25 else int(rng.choice([5, 10, 20, 50, 100])))
        d["jitter"] = d["eval_every"] is not None  # skipped evals
    elif conv == "tune":
        d.update(writer="tune", unit=int(rng.choice([1000, 4000, 16000])), offset=1,
                 eval_every=None if r < 0.25 else int(rng.choice([1, 2, 5, 10, 20])),
                 single_env=bool(rng.random() < 0.4))
    elif conv == "dcd":
        d.update(writer="dcd", unit=int(rng.choice([2048, 8192])), offset=1, train_every=None,
                 eval_every=int(rng.choice([5, 10, 25, 50, 100])))
    elif conv == "roll_stdout":
        d.update(writer="roll", eval_every=None if r < 0.2 else int(rng.choice([5, 10, 20, 25, 50])))
    elif conv == "tinker_tb":
        d.update(train_every=int(rng.choice([1, 2, 5])), multi=int(rng.choice([1, 2, 4])))
    elif conv.startswith("mylab2"):
        shape = "dense" if r < 0.5 else ("eval_only" if r < 0.75 else "train_only")
        d.update(writer="wandb" if rng.random() < 0.4 else "tensorboard", unit=int(rng.choice([1, 10])),
                 train_every=None if shape == "eval_only" else int(rng.choice([1, 2, 5, 10])),
                 eval_every=None if shape == "train_only" else int(rng.choice([1, 5, 10, 25, 50, 100, 200])),
                 explicit=bool(rng.random() < 0.6))
        d["jitter"] = d["eval_every"] is not None and d["eval_every"] > 1 and bool(rng.random() < 0.4)
        d["multi"] = int(rng.choice([2, 3])) if d["writer"] == "tensorboard" and d["train_every"] \
            and rng.random() < 0.3 else 1
    elif conv == "generic_units":
        d.update(unit=int(rng.choice([1000, 2048])), train_every=int(rng.choice([1, 2])),
                 eval_every=int(rng.choice([5, 10, 20, 40])), explicit=bool(rng.random() < 0.7),
                 jitter=bool(rng.random() < 0.5), multi=int(rng.choice([1, 1, 2])))
    return d


def _scales(d: dict) -> tuple[int, int, int, int]:
    """J, W, Q (iterations) and the densest series' interval, for a run shape."""
    train = d["train_every"]
    if train is not None and d["irregular"]:
        train = 1.0 / d["irregular"]
    j = train if train is not None else d["eval_every"]
    w = max(math.ceil(STAGNATION_WINDOW / d["unit"]), math.ceil(MIN_POINTS * j))
    q = max(math.ceil(w / 10), d["eval_every"] or math.ceil(j))
    return j, w, q, (d["train_every"] or d["eval_every"])


def plan_run(name: str, conv: str, rng: np.random.Generator, points: tuple = (500, 5000)) -> dict:
    for _ in range(100):
        d = _shape(conv, rng)
        j, w, q, dense = _scales(d)
        n_points = _logu(rng, *points)
        length = int(n_points * dense)
        length = max(length, 14 * w, 60 * q)
        rows = length if d["writer"] in ("dcd", "tune", "roll") else length / dense
        if length / dense <= 5000 and rows <= 60000:
            break
    else:  # pragma: no cover - the shapes above always fit within a few draws
        raise RuntimeError(f"no shape fits for {conv}")
    kind = {"atropos_wandb": "success", "roll_stdout": "success",
            "tune": str(rng.choice(["return_0_200", "return_neg", "return_big", "return_cross"])),
            "dcd": str(rng.choice(["return01", "return_0_200", "return_neg"])),
            "tinker_tb": str(rng.choice(["success", "reward_pm1"])),
            "generic_units": str(rng.choice(["success", "return_0_200"]))}.get(conv) or MYLAB2[conv][0]
    run = dict(d, name=name, convention=conv, kind=kind, length=length, J=j, W=w, Q=q,
               shape="dense" if d["train_every"] and d["eval_every"] else
               ("eval_only" if d["eval_every"] else "train_only"),
               seed=int(rng.integers(1 << 31)))
    run["tolerance_unit"] = int(q * d["unit"])
    run["envs"] = plan_envs(run, rng)
    run["eval_iters"] = eval_schedule(run, rng)
    return run


def eval_schedule(run: dict, rng) -> list[int] | None:
    """The run's eval iterations (an eval covers every unlocked env); jittered evals vary in spacing,
    Atropos' skip one now and then (never two in a row)."""
    e = run["eval_every"]
    if e is None:
        return None
    if run["convention"] == "atropos_wandb":
        out, skipped = [], False
        for i in range(0, run["length"], e):
            skip = not skipped and i > 0 and rng.random() < 0.15
            skipped = skip
            if not skip:
                out.append(i)
        return out
    if run["jitter"]:
        out, i = [], 0
        while i < run["length"]:
            out.append(i)
            i += max(1, int(round(e * rng.uniform(0.5, 1.5))))
        return out
    return list(range(0, run["length"], e))


def plan_envs(run: dict, rng) -> list[WEnv]:
    L, W = run["length"], run["W"]
    conv = run["convention"]
    n = 1 if run["single_env"] else int(rng.integers(2, 5 if conv == "dcd" else 6))
    names = env_names(conv, n, rng)
    late = n > 1 and conv != "dcd" and rng.random() < 0.3
    unlock = 0
    prolonged_at = int(rng.integers(n)) if rng.random() < 0.15 else -1
    envs = []
    for k in range(n):
        if k and conv != "dcd":
            unlock += int(rng.uniform(0.3, 1.0) * W)
        u = int(rng.uniform(0.35, 0.55) * L) if late and k == n - 1 else unlock
        env = WEnv(names[k], u, float(rng.uniform(0.3, 0.9) * W), run["kind"], ("gauss", 0.0),
                   params={"s0": float(rng.uniform(0.02, 0.1)), "s1": float(rng.uniform(0.9, 0.98))})
        limit = _place(env, run, rng, k == prolonged_at)
        if env.event == "noisy_healthy":
            env.noise = draw_noise(rng, env.kind, heavy=True)
        else:
            env.noise = noise_for(rng, env.kind, limit)
        envs.append(env)
    return envs


def _grad_est(env: WEnv) -> int:
    return int(env.unlock + env.tau * math.log(10)) + 1


def _place(env: WEnv, run: dict, rng, prolonged: bool) -> float | None:
    """Choose the env's event (or clean negative) and place it; returns the noise limit it needs."""
    L, W, Q, J = run["length"], run["W"], run["Q"], run["J"]
    ev, unit = run["eval_every"], run["unit"]
    pe = ev or math.ceil(J)  # the judged interval once graduated (eval while graduated)
    has_eval = ev is not None
    if prolonged and L >= int(11.5 * W) + 1:
        env.event = "prolonged_training"
        env.unlock = int(rng.uniform(max(0, L - 13 * W), L - 11.5 * W))
        env.params["rate"] = float(rng.uniform(0.03, 0.045))
        env.onset = env.unlock + 10 * W
        return 0.03
    start_min = _grad_est(env) + max(int(1.5 * W), 8 * Q)
    pool = ["graduated_regression", "training_stagnation", "performance_volatility"]
    if has_eval and run["convention"] != "dcd" and (run["train_every"] or not run["single_env"]):
        pool.append("eval_gap")
    if run["explicit"]:
        pool.append("unexpected_transition")
    if rng.random() < 0.55:
        weights = np.array([POOL_WEIGHTS[t] for t in pool])
        ev_type = str(rng.choice(pool, p=weights / weights.sum()))
        env.event = ev_type
        if ev_type == "graduated_regression":
            env.severity = str(rng.choice(["warning", "critical"]))
            keep = float(rng.uniform(0.7, 0.8) if env.severity == "warning" else rng.uniform(0.25, 0.45))
            env.params["keep"] = keep
            hi = L - max(2 * W, 12 * Q)
            if start_min < hi:
                env.onset = int(rng.integers(start_min, hi))
                gain = env.params["s1"] - env.params["s0"]
                return (1 - keep) * gain / 2
        elif ev_type == "training_stagnation":
            env.tau = float(rng.uniform(1.5, 2.5) * W)
            span = L - env.unlock
            # A third stay active for more than 10 W; the others end within 8 W. A stalled env that stays
            # active is one event: its stagnation (prolonged_training would repeat it; not labelled).
            if span > 8 * W and (span < 11.5 * W or rng.random() < 0.65):
                env.unlock = L - int(rng.uniform(6, 8) * W)
            env.onset = env.unlock + int(rng.uniform(0.6, 1.5) * W)
            if L - env.onset >= 4 * W:
                return 0.08
        elif ev_type == "performance_volatility":
            half = max(int(rng.uniform(0.45, 0.8) * W), 4 * math.ceil(J), 3 * (ev or 0))
            if rng.random() < 0.5 and half <= 0.8 * W + 1:
                if L - env.unlock > 8 * W:
                    env.unlock = L - int(rng.uniform(5, 8) * W)
                if L - env.unlock >= 4 * half:
                    env.params.update(lifelong=True, half_period=half)
                    env.onset = env.unlock
                    return 0.12
            else:
                length = max(int(rng.uniform(0.8, 1.6) * W), 20 * pe)
                hi = L - length - max(2 * W, 8 * Q)
                if start_min < hi:
                    env.params.update(length=length, swing=max(1, int(round(rng.uniform(0.5, 1.5) * pe))))
                    env.onset = int(rng.integers(start_min, hi))
                    return 0.1
        elif ev_type == "unexpected_transition":
            lo = max(_grad_est(env) + max(W, 5 * Q), L - 8 * W)
            hi = L - max(int(1.5 * W), 6 * Q)
            if lo < hi:
                env.onset = int(rng.integers(lo, hi))
                return None
        elif ev_type == "eval_gap":
            lo = _grad_est(env) + max(W // 2, 4 * Q)
            hi = L - max(8 * max(math.ceil(EVALUATION_FREQUENCY / unit), ev), 2 * W)
            if lo < hi:
                env.onset = int(rng.integers(lo, hi))  # the last eval is the last scheduled one <= onset
                return None
        env.event, env.onset, env.severity = "healthy", None, None
        env.params.pop("keep", None)
        env.extra.clear()
        return None
    neg = str(rng.choice(NEGATIVES))
    env.event = neg
    if neg == "slow_learner":
        env.tau = float(rng.uniform(1.2, 2.0) * W)
    elif neg in ("level_shift", "single_outlier"):
        hi = L - 2 * W
        if start_min >= hi:
            env.event = "healthy"
        elif neg == "level_shift":
            env.params.update(shift_at=int(rng.integers(start_min, hi)), shift=float(rng.choice([0.02, -0.03])))
        else:
            env.params["at"] = int(rng.integers(start_min, hi))
    return None


def env_names(conv: str, n: int, rng) -> list[str]:
    base = {
        "atropos_wandb": ["gsm8k", "math", "countdown", "sudoku", "mbpp"],
        "tune": ["CartPole-v1", "Acrobot-v1", "LunarLander-v3", "Pendulum-v1", "HalfCheetah-v5"],
        "dcd": ["MultiGrid-SixteenRooms-v0", "MultiGrid-Labyrinth-v0", "MultiGrid-Maze-v0", "MultiGrid-Maze2-v0"],
        "roll_stdout": ["SimpleSokoban", "LargerSokoban", "FrozenLake", "WebShop", "Countdown"],
        "tinker_tb": ["arithmetic", "gsm8k", "twenty_questions", "math_hard", "tool_use"],
        "generic_units": ["corridor", "keydoor", "maze_s", "maze_m", "maze_l"],
    }.get(conv, ["maze-5x5", "maze-7x7", "keycorridor.s3", "keycorridor.s4", "obstructed_maze-1dl"])
    return base[:n]


# --- the truth: skill per iteration, states, graduation ------------------------------------------

def skill(env: WEnv, run: dict, rng) -> tuple[np.ndarray, np.ndarray, int | None]:
    L, W = run["length"], run["W"]
    i = np.arange(L)
    s0, s1 = env.params["s0"], env.params["s1"]
    t = np.maximum(i - env.unlock, 0)
    if env.event == "prolonged_training":
        s = s0 + env.params["rate"] * t / W
    else:
        s = s0 + (s1 - s0) * (1 - np.exp(-t / env.tau))
    s[i < env.unlock] = s0
    state = np.where(i < env.unlock, 0, 1)
    if env.event == "training_stagnation":
        s[i >= env.onset] = s[env.onset]
    if env.params.get("lifelong"):
        phase = ((i - env.unlock) // env.params["half_period"]) % 2
        s = np.where(i >= env.unlock, np.where(phase == 0, 0.2, 0.85), s0)
    grad = None
    if env.event not in ("training_stagnation", "prolonged_training") and not env.params.get("lifelong"):
        crossed = np.flatnonzero((s >= s0 + 0.9 * (s1 - s0)) & (i >= env.unlock))
        grad = int(crossed[0]) if len(crossed) else None
    if grad is not None:
        state = np.where(i >= grad, 2, state)
        if env.event == "graduated_regression":
            s[i >= env.onset] = s0 + env.params["keep"] * (s1 - s0)
        elif env.event == "level_shift":
            s[i >= env.params["shift_at"]] = np.clip(s1 + env.params["shift"], 0, 1)
        elif env.event == "unexpected_transition":
            state = np.where(i >= env.onset, 1, state)
        elif env.event == "performance_volatility":
            burst = (i >= env.onset) & (i < env.onset + env.params["length"])
            swing = np.where(((i - env.onset) // env.params["swing"]) % 2 == 0, -1.0, 1.0)
            s = np.where(burst, np.clip(s1 - 0.3 + 0.3 * swing * rng.uniform(0.7, 1.0, L), 0, 1), s)
    return s, state, grad


def series_for(run: dict) -> tuple[dict, list[dict]]:
    """Per env: the iterations and values of its train, eval and state points; and its labels."""
    rng = np.random.default_rng(run["seed"])
    L, unit, off = run["length"], run["unit"], run["offset"]
    step = lambda it: int(unit * (it + off))  # noqa: E731
    out, labels = {}, []
    for env in run["envs"]:
        s, state, grad = skill(env, run, rng)
        d = {"grad": grad, "state": state}
        if run["train_every"]:
            if run["irregular"]:
                it = np.flatnonzero((rng.random(L) < run["irregular"]) & (np.arange(L) >= env.unlock))
            else:
                it = np.arange(0, L, run["train_every"])
                it = it[it >= env.unlock]
            m = run["multi"]
            vals = observe(env.kind, env.noise, np.repeat(np.clip(s[it] + 0.02, 0, 1)[:, None], m, 1), rng)
            d["train"] = (it, vals)
        evals = None
        if run["eval_iters"] is not None:
            it = np.array([e for e in run["eval_iters"] if e >= env.unlock], dtype=np.int64)
            if env.event == "eval_gap":
                kept = it[it <= env.onset]
                env.params["last_eval"] = int(kept[-1])
                env.params["first_missing"] = int(it[len(kept)])
                it = kept
            evals = (it, observe(env.kind, env.noise, s[it], rng))
            d["eval"] = evals
        if env.event == "single_outlier":
            series = "eval" if evals is not None else "train"
            it, vals = d[series]
            k = int(np.searchsorted(it, env.params["at"]))
            a, b, _ = KINDS[env.kind]
            vals[k] = a + b * 0.05
            env.params["outlier_step"] = step(it[k])
        out[env.name] = d
        shape = f"{run['convention']}/{run['shape']}/{'explicit' if run['explicit'] else 'inferred'}"
        base = {"run": run["name"], "env": env.name, "shape": shape, "kind": env.kind, "noise": env.noise[0],
                "tags": shape_tags(run, env)}
        if env.event in EVENTS:
            onset = env.params["first_missing"] if env.event == "eval_gap" else env.onset
            labels.append(dict(base, type=env.event, onset=step(onset), severity=env.severity))
        for typ, onset in env.extra:
            labels.append(dict(base, type=typ, onset=step(onset), severity=None))
    return out, labels


def shape_tags(run: dict, env: WEnv) -> list[str]:
    tags = []
    ev = run["eval_every"]
    if run["unit"] > 1:
        tags.append("step_units")
    if run["jitter"]:
        tags.append("jittered_evals")
    if run["irregular"]:
        tags.append("irregular_train")
    if run["multi"] > 1:
        tags.append("multi_obs_per_step")
    if run["train_every"] and run["train_every"] > 1:
        tags.append("train_every_k")
    if ev and ev >= 50:
        tags.append("sparse_eval")
    if ev and ev <= 2:
        tags.append("eval_every_step")
    points = run["length"] / (run["train_every"] or ev)
    tags.append("long" if points >= 3000 else ("short" if points <= 1000 else "medium"))
    if env.unlock >= 0.35 * run["length"]:
        tags.append("late_unlock")
    if run["single_env"]:
        tags.append("single_env")
    return tags


# --- writers -------------------------------------------------------------------------------------

def _rows(run: dict, data: dict, key) -> dict[int, dict]:
    """iteration -> {tag: value or [values]} over every env; key(env, split) names the tag."""
    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        if "train" in d:
            for it, vals in zip(*d["train"]):
                rows.setdefault(int(it), {})[key(env.name, "train")] = [float(v) for v in vals]
        if "eval" in d:
            for it, v in zip(*d["eval"]):
                rows.setdefault(int(it), {})[key(env.name, "eval")] = float(v)
        if run["explicit"]:
            logged = sorted(set(d["train"][0].tolist() if "train" in d else []) |
                            set(d["eval"][0].tolist() if "eval" in d else []))
            for it in logged:
                rows.setdefault(int(it), {})[key(env.name, "state")] = int(d["state"][it])
    return dict(sorted(rows.items()))


def _first(v):
    return v[0] if isinstance(v, (list, np.ndarray)) else v


def write_tensorboard(folder: Path, run: dict, data: dict, key, aggregate: str | None = None) -> None:
    """tensorboardX SummaryWriter, step by step; several observations of a step are several add_scalar
    calls at that step; `aggregate`: the mean over the step's envs under that tag (tinker's env/all)."""
    from tensorboardX import SummaryWriter

    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000)
    unit, off = run["unit"], run["offset"]
    for it, row in _rows(run, data, key).items():
        step, wall = unit * (it + off), WALL0 + it
        for tag, v in row.items():
            for x in (v if isinstance(v, list) else [v]):
                w.add_scalar(tag, float(x), step, walltime=wall)
        if aggregate:
            train = [np.mean(v) for v in row.values() if isinstance(v, list)]
            if train:
                w.add_scalar(aggregate, float(np.mean(train)), step, walltime=wall)
    w.close()


def _wandb_runs(dest: Path, runs: list[tuple[str, dict, list[tuple[int, dict]]]]) -> None:
    """W&B offline runs logged with step=: [(run id, init kwargs, [(step, row)])]; each `.wandb` file is
    copied to dest/wandb/offline-run-…-{id}/ once wandb wrote its exit record (tests/writers.py)."""
    os.environ.setdefault("WANDB_SILENT", "true")
    import wandb
    from writers import wait_until_complete

    with tempfile.TemporaryDirectory() as tmp:
        for run_id, kwargs, rows in runs:
            r = wandb.init(project="curriwatch-bench", id=run_id, mode="offline", dir=tmp,
                           settings=wandb.Settings(x_disable_stats=True, console="off"), **kwargs)
            for step, row in rows:
                r.log(row, step=step)
            r.finish()
        wandb.teardown()
        for k, (run_id, _kwargs, _rows) in enumerate(runs):
            src = next(Path(tmp).glob(f"wandb/offline-run-*-{run_id}/run-{run_id}.wandb"))
            wait_until_complete(src)
            target = dest / "wandb" / f"offline-run-20260101_0000{k:02d}-{run_id}" / src.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)


def write_atropos(folder: Path, run: dict, data: dict, rng) -> None:
    """One W&B run per env process (Atropos serve mode): wandb.init(name=f"{wandb_name}-{date}-{id}",
    group=wandb_group) (atroposlib/envs/base.py:487-499, commit 296a0bc); every key prefixed
    `{wandb_prepend}_` = `{env}_0_` and logged with step=self.curr_step (base.py:682-688)."""
    runs = []
    for env in run["envs"]:
        prefix = f"{env.name}_0_"
        key = lambda e, split: f"{prefix}{split}/percent_correct"  # noqa: E731
        one = dict(run, envs=[env], explicit=False)
        rows = []
        for it, row in _rows(one, data, key).items():
            out = {k: _first(v) for k, v in row.items()}
            if f"{prefix}train/percent_correct" in out:
                out[f"{prefix}train/completion_lengths"] = float(rng.uniform(200, 900))
            rows.append((run["unit"] * it, out))
        rand = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 6))
        runs.append((f"{run['name']}-{env.name}", {"name": f"{env.name}-2026-01-01-{rand}", "group": run["name"]},
                     rows))
    _wandb_runs(folder, runs)


def write_mylab2_wandb(folder: Path, run: dict, data: dict, key) -> None:
    """One W&B offline run, all envs, step=; states as the words locked/active/graduated."""
    rows = []
    for it, row in _rows(run, data, key).items():
        out = {}
        for k, v in row.items():
            out[k] = STATE_WORDS[v] if k.startswith("curriculum/phase/") else _first(v)
        rows.append((run["unit"] * (it + run["offset"]), out))
    _wandb_runs(folder, [(run["name"], {"name": run["name"]}, rows)])


def write_tune(folder: Path, run: dict, data: dict, rng) -> None:
    """One trial by tests/writers.write_tune_trial: Ray's JsonLoggerCallback + CSVLoggerCallback when
    ray[tune] imports, else their calls reproduced (ray/tune/logger/json.py:52-53, csv.py:59-68)."""
    from writers import write_tune_trial

    unit, single = run["unit"], run["single_env"]
    by_iter: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for split in ("train", "eval"):
            if split in d:
                for it, v in zip(*d[split]):
                    by_iter.setdefault(int(it), {}).setdefault(split, {})[env.name] = float(_first(v))
    results = []
    for it in range(run["length"]):
        got = by_iter.get(it, {})
        r = {"training_iteration": it + 1, "timesteps_total": unit * (it + 1), "timestamp": int(WALL0) + 20 * it,
             "time_this_iter_s": 20.0, "done": it == run["length"] - 1,
             "learners": {"default_policy": {"policy_loss": float(rng.normal(0, 0.05)), "entropy": 1.0}}}
        for split, where in (("train", None), ("eval", "evaluation")):
            vals = got.get(split)
            if not vals:
                continue
            if single:
                (v,) = vals.values()
                runners = {"episode_return_mean": v, "episode_len_mean": 200.0, "num_episodes": 10}
            else:
                runners = {e: {"episode_return_mean": v, "num_episodes": 10} for e, v in vals.items()}
            if where:
                r[where] = {"env_runners": runners}
            else:
                r["env_runners"] = runners
        results.append(r)
    config = {"lr": 3e-4, "train_batch_size": unit, "evaluation_interval": run["eval_every"]}
    if single:
        config["env"] = run["envs"][0].name
    else:
        config["env_config"] = {"curriculum": [e.name for e in run["envs"]]}
    trial = folder / f"PPO_{'curriculum' if not single else run['envs'][0].name}_00000_0_lr=0.0003"
    write_tune_trial(trial, results, config)


def write_dcd(folder: Path, run: dict, data: dict, rng) -> None:
    """dcd's FileWriter (tests/writers.py DcdFileWriter): a row per update with its train stats, the
    test stats `test_returns:{env}` and `solved_rate:{env}` at test updates."""
    from writers import DcdFileWriter

    evals: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        a, b, _ = KINDS[env.kind]
        for it, v in zip(*d["eval"]):
            p = float(np.clip((v - a) / b, 0, 1))
            evals.setdefault(int(it), {})[f"test_returns:{env.name}"] = float(v)
            evals[int(it)][f"solved_rate:{env.name}"] = float(rng.binomial(20, p) / 20)
    w = DcdFileWriter(folder / "xpid")
    for it in range(run["length"]):
        stats = {"steps": run["unit"] * (it + 1), "mean_agent_return": float(rng.normal(0.3, 0.1)),
                 "agent_pg_loss": float(rng.normal(0, 0.01))}
        stats.update(evals.get(it, {}))
        w.log(stats, WALL0 + it)
    w.close()


def write_roll(folder: Path, run: dict, data: dict) -> None:
    """ROLL's stdout tracker lines (tests/writers.py write_roll_stdout; roll/utils/tracking.py:161)."""
    from writers import write_roll_stdout

    key = lambda e, split: f"env/{e}/success" if split == "train" else f"val/env/{e}/success"  # noqa: E731
    rows = []
    for it, row in _rows(run, data, key).items():
        metrics = {k: _first(v) for k, v in row.items()}
        metrics["system/tps"] = 1234.5
        rows.append((it, metrics))
    write_roll_stdout(folder / "log_rank_DRIVER_0_1.log", rows, noise=False)


def tag_key(conv: str, kind: str):
    if conv == "tinker_tb":
        return lambda e, split: f"env/{e}/reward"
    if conv == "generic_units":
        return lambda e, split: {"train": f"train/{e}/reward", "eval": f"eval/{e}/reward",
                                 "state": f"curriculum/{e}/state"}[split]
    metric = MYLAB2[conv][1]
    return lambda e, split: {"train": f"metrics/{metric}/train/{e}", "eval": f"metrics/{metric}/valid/{e}",
                             "state": f"curriculum/phase/{e}"}[split]


def write_run(root: Path, run: dict, data: dict) -> Path:
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(run["seed"] + 1)
    if conv == "atropos_wandb":
        write_atropos(folder, run, data, rng)
    elif conv == "tune":
        write_tune(folder, run, data, rng)
    elif conv == "dcd":
        write_dcd(folder, run, data, rng)
    elif conv == "roll_stdout":
        write_roll(folder, run, data)
    elif run["writer"] == "wandb":
        write_mylab2_wandb(folder, run, data, tag_key(conv, run["kind"]))
    else:
        write_tensorboard(folder, run, data, tag_key(conv, run["kind"]),
                          aggregate="env/all/reward" if conv == "tinker_tb" else None)
    return folder


def group_config(conv: str) -> str | None:
    if conv == "tinker_tb":
        return "performance_metric: reward\n"
    if conv in MYLAB2:
        return MYLAB2_CONFIG % MYLAB2[conv][1] + MYLAB2[conv][2]
    return None


def build(root: Path, n_runs: int, seed: int, points: tuple = (500, 5000)) -> list[dict]:
    """Plan, write and label `n_runs` runs (round robin over GROUPS); `points`: the range of the
    densest series' length drawn per run (tests shrink it)."""
    rng = np.random.default_rng(seed)
    plans = [plan_run(f"w{i:03d}_{GROUPS[i % len(GROUPS)]}", GROUPS[i % len(GROUPS)], rng, points)
             for i in range(n_runs)]
    labels: list[dict] = []
    for run in plans:
        data, run_labels = series_for(run)
        folder = write_run(root, run, data)
        labels += run_labels
        meta = {k: v for k, v in run.items() if k not in ("envs", "eval_iters")}
        meta["eval_every"] = run["eval_every"] and run["eval_every"] * run["unit"]
        meta["envs"] = [{"name": e.name, "event": e.event, "onset": e.onset, "severity": e.severity,
                         "kind": e.kind, "noise": list(e.noise), "unlock": e.unlock, "tau": round(e.tau, 1),
                         "graduated": data[e.name]["grad"], "extra": e.extra,
                         "params": {k: v for k, v in e.params.items()}} for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1))
    for conv in GROUPS:
        text = group_config(conv)
        if text and (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
