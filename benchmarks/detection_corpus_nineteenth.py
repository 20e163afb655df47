"""The nineteenth detection corpus (`python benchmarks/detection.py --corpus nineteenth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction and
thresholds, what a rate is, logging shapes, the noise section, what `unknown` means; the design notes;
log-conventions.md; the profiles' key spellings; tests/writers.py), without reading the rules' or the analysis code,
and without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-nineteenth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed (a PBT slot is one population: 4 member runs, each its own folder). Runs cycle through CYCLE; one
group folder per convention (its curriwatch.yaml in the group folder, where the scorer reads it). Chosen for what the
eighteen other corpora cover least (their docstrings): none writes EVAL SCALARS LATE, into the event file after train
rows of later steps and stamped with the step their test began (an asynchronous test worker), at steps off the train
grid and at a cadence that slows as episodes lengthen; none logs garage's per-task Meta-World keys
(`{task}/SuccessRate`, dowel's TensorBoard output at `TotalEnvSteps`) under a user profile, with tasks whose success
CEILINGS differ (some capped well below 1) and the trainer's own PER-TASK GRADUATION THRESHOLDS as per-run, per-env
`overrides:`; none has a TRAIN SERIES AND AN EVAL SERIES OF ONE METRIC NAME THAT DISAGREE (reward hacking: the
proxy reward model's train score keeps rising while the gold eval score falls), with a stderr series beside the
evals; none has POPULATION-BASED TRAINING, whose exploits replace a member's weights by another's (jumps of the
curve at perturbation intervals, up and down):

  async_eval     tensorboardX, one SummaryWriter: `train/{env}/mean_score` at every log row (the learner's
                 log_interval, 100, 250 or 500 training steps; 400..800 rows), `eval/{env}/mean_score` with
                 `std_score`, `max_score`, `min_score` (config `performance_metric: mean_score`),
                 `curriculum/{env}/state` 0/1/2 at the train rows in 50 %, `Train/lr` (unclaimed). Breakout-mode-like
                 envs on one scale: E = A + (B - A) s (A 0..2, B 30..400); a train point the mean of m = 2..8
                 episodes (heavy 1..2) of sd (B - A) x 0.15..0.35, a test the mean of 8, 16 or 32 (heavy 4..8).
                 Each env has its test actor as EfficientZero's (YeWR/EfficientZero@468bb03, core/test.py:17-49): it
                 polls the learner's counter (every 30 s: 0..0.3 log intervals), starts a test once counter >=
                 test_interval x episodes (:26; test_interval 3..8 log intervals), on the weights of that moment
                 (:28), and hands `(counter, scores)` to the shared storage when done (:46, core/storage.py:99-100,
                 106-148); a test lasts test_interval x (0.3 + 1.2 s + 0..0.3) (episodes lengthen as the agent
                 improves), so a slow one is followed at once by the next. The learner's `_log` every log_interval
                 (core/train.py:407-408) writes its train scalars, then the results handed over since, at the
                 counter the test began (core/log.py:134: `add_scalar('train/{}'.format(key), np.mean(val),
                 test_counter)`): eval steps are off the train grid, written after train rows of later steps, and
                 their interval varies (G = its median). A test shows the skill of the log row its counter falls in.
  mt_tasks       tensorboardX as garage's MTSAC logs through dowel (rlworkgroup/garage@2d594803,
                 rlworkgroup/dowel@23c6600): every epoch, `log_multitask_performance` (src/garage/_functions.py:177-230)
                 records, per evaluated task, `{task}/Iteration|NumEpisodes|AverageDiscountedReturn|AverageReturn|
                 StdReturn|TerminationRate|SuccessRate` (:262-273), then `Average/*`, the losses and
                 `ReplayBuffer/buffer_size`; MTSAC evaluates every epoch (torch/algos/sac.py:203-231,
                 torch/algos/mtsac.py:192-218; 500 evaluation points in examples/torch/mtsac_metaworld_mt10.py:102-106)
                 and records `TotalEnvSteps` (sac.py:230), dowel's TensorBoardOutput (experiment/experiment.py:328-329,
                 x_axis 'TotalEnvSteps' at :386) writes every tabular key at that x value and not the x key itself
                 (dowel/tensor_board_output.py:96-124). 300..600 epochs of 20,000, 40,000 or 50,000 env steps; EVAL ONLY
                 (no per-task train series). A curriculum wrapper unlocks tasks in 1..2 waves (a locked task is not
                 evaluated) and, in 50 %, records `{task}/CurriculumState` 0/1/2 for every task every epoch (locked
                 ones too). A user profile claims `{task}/SuccessRate|AverageReturn` (split eval) and the state; the
                 rest is unclaimed. 4..8 Meta-World tasks, each with its own ceiling (reach 0.92..0.99, push 0.55..0.9,
                 pick-place 0.25..0.6, peg-insert-side 0.2..0.5, ...; s0 0..0.06): E = s, no shared scale. A point is
                 binomial over n episodes, one n a run (5 x the eval envs of a task: 5, 15, 25, 50, 100 or 200; the
                 largest any env of the run needs). The trainer's per-task threshold (a multiple of 0.05 at or under
                 E0 + 0.9 gain) is in the group's curriwatch.yaml as `overrides: - {run: NAME, env: TASK, graduation:
                 {stop_threshold: ...}}`.
  reward_hacking W&B OFFLINE run, step= the trainer step (800..2,000 steps): `train/{task}/score`, the proxy reward
                 model's mean score over the batch's n = 64..512 samples (heavy 8..32; sd 0.25..0.4 a sample,
                 gaussian, clipped to [0, 1]), E(s) + bias (0..0.06); `eval/{task}/score`, the GOLD accuracy on N =
                 128..512 held-out problems (heavy 32..64; binomial) every 5..10 steps, with
                 `eval/{task}/score_stderr` = sqrt(p (1 - p) / N); `curriculum/{task}/state` in 50 %; run-level
                 `actor/entropy`, `actor/kl`, `response_length/mean` (unclaimed). Config `performance_metric: score`.
                 E = A + (B - A) s, A 0.05..0.25 (the base model), B 0.6..0.92. Every regression here is a reward
                 hack: the gold accuracy falls (sudden or a ramp) while the train score rises from E1 + bias by
                 0.04..0.12 over max(the fall's ramp, W / 2).
  pbt            one population of 4 members (Ray Tune's PBT semantics, python/ray/tune/schedulers/pbt.py @0089a633:
                 the bottom trial clones the top one's state, explore() perturbs a continuous hyperparameter x 1.2 or
                 0.8 or resamples it with resample_probability 0.25, :69-76), each member its own run folder
                 `{name}_m{k}` written by its own tensorboardX SummaryWriter: `train|eval/{env}/reward` (config
                 `performance_metric: reward`), `pbt/lr` and `pbt/exploited_from` (unclaimed). dm_control-like envs
                 on one scale (A 0..40, B 650..950), 400..800 iterations of 50,000 or 100,000 frames, evals every
                 5..12 iterations (the mean of m_eval episodes), the train point the mean of m_train = 16..64
                 episodes (both raised until a fall keeping 0.79 of the gain is 4 sd). Each member learns every
                 unlocked env at its own speed (x 0.6..1.6; an env's curve as below with T 0.8..2.5 W); its
                 curriculum graduates an env 0.3 W (3 evals) after it first reached 90 % of its gain and then only
                 replays it (0.1..0.2 x the episodes: its train point is noisier). Every perturbation_interval (0.6..1.5
                 W) the member whose training reward over the envs its curriculum trains now is the lowest clones the
                 best one's state (progress on every env, curriculum, weights' losses) and takes its speed x 1.2 or 0.8
                 (resampled in 25 %): curves jump at those iterations, up or down. INTERFERENCE (40 % of populations):
                 once the last env (unlocked at 0.15..0.35 of the run) has trained a while (a lag of 0.3..1 W, then a
                 hazard of 1 / (0.5..1.5 W) an iteration), a member's weights lose env 0 for good — it keeps
                 0.72..0.79 (warning) or 0.1..0.6 (critical) of its gain, sudden or a ramp over 0.5..1.5 W; nothing
                 relearns it (it is graduated: replay only, and the PBT score does not weigh it); a clone made after
                 takes the loss with the weights (`inherited`: the recipient's curve falls at the exploit). A
                 population is redrawn until no member's path is ambiguous (a graduated env that fell under the 85 %
                 line and was rescued by an exploit, a fall before graduation + margin or with too little left, an
                 env that never graduated), else drawn without interference.

Truth (as the eighteenth's). Each env has a skill curve s in [0, 1] on its iteration grid (from its unlock): a
learner goes from s0 to s1 over T iterations (exp, logistic, sqrt or linear; T 0.8..2.5 W) and is flat at s1 after;
a LATE LEARNER (a clean negative) first stays at s0 for 1..2 W. The EXPECTED judged value is E(s) = A + (B - A) s
(higher is better everywhere; mt_tasks A = 0, B = 1). E0 = E(s0), E1 = E(s1); fractions of the gain are of E1 - E0.
The envs of a run share one scale (s0 within 0.02 of the run's, s1 within 0.015), except mt_tasks (each task its
own ceiling). PBT paths are simulated as above; everything else is planned.
  J  pace               an env's logging pace in steps of its train series (finite points; mt_tasks: of its evals):
                        README's (the median interval when regular, else the mean of the intervals under 3x it);
                        planning uses 1 iteration
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in steps (per env for labels; the planning
                        W in iterations takes the planning J and the step per iteration)
  G  eval interval      the env's median interval between evals, in steps (async_eval: planning takes 1.8 x
                        test_interval, the spacing at the top)
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G, or J where not evaluated), in
                        steps = `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more iterations; logged states
go to 2 there (mt_tasks: the trainer's threshold was met there). Healthy learners reach their top within 0.8..2.5 W.

In a run (async_eval, mt_tasks, reward_hacking) the first two envs are clean learners from step 0; each later env
carries an event with probability 0.65 (up to 3 draws from the pool until one fits; else a clean negative; at most
two prolonged risers a run), and at least half the envs (and two) learn to the top.

Labels (onset in steps; "first point" = the env's first logged finite point of the judged metric, train or eval, at
or after the event's true start — reward_hacking's regressions: its first EVAL point, the gold score being the one
that falls; an env carries at most one label):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp in s over 0.5..1.5 W) fall
                         to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain (in E), to the end (>= max(2
                         W, 15 G) left). Onset = first point at which E keeps < 0.85 of the gain. pbt: each member whose
                         path shows the interference's loss (`forgot`: its own; `inherited`: from the exploit's clone),
                         severity by the kept share at the end
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point, beside >= 2
                         siblings that learn; freeze: a linear rise over >= max(0.4 W, 6) to 0.2..0.5 of the gain, then
                         flat and active >= 5 W to the end (mt_tasks: under the task's own threshold, never graduated
                         by the trainer); onset = first point at which E is within a tenth of the rise of the flat level
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) iterations of s scattered |N(0,
                         0.2..0.3 gain)| below the held level, then calm >= max(W, 15 G); onset = first point whose
                         expected value is off by > max(0.15 gain, 4 sd of its own series)); switch (Markov: s1 and s1
                         - 0.4..0.6 gain, dwells of max(4 J, 4 G)..3x that, >= 9 phases, to the end; onset = first
                         point of the first low phase); lifelong oscillation of an env that never learns (sinus in s
                         from activation, mid 0.35..0.55 of the gain, peak-to-peak 0.45..0.7 of it, period 8..16
                         judged points, >= 4 periods; onset = its first point)
  unexpected_transition  logged states: after graduation + margin the state goes back to 1 for 0.5..1.5 W, then 2
                         again (revisit); onset = the first logged state point with the backward value
  eval_gap               after graduation + margin the env's evals stop for the rest of the run (>= max(5 x max(50
                         steps, G), 2 W) left) while the run goes on (async_eval: its test actor dies; mt_tasks: the
                         wrapper stops evaluating the task; reward_hacking: its held-out set is dropped); onset = last
                         eval + G (README first_step)
  prolonged_training     a steady riser, LINEAR IN E (0.62 of the gain over its whole active life of >= 12.5 W), active
                         to the end, unlocked at 0; onset = its first point + 10 W (its own W, in steps)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (the convention's heaviest noise, gain
>= 5 sd), slow_learner (graduates within 4..6 W), late_learner (flat at s0 for 1..2 W from activation, then a normal
learner: under README's 3 windows), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one point at s0 + 0.05 gain after graduation), proxy_drift (reward_hacking: after graduation the proxy
train score drifts up by 0.04..0.12 over 0.5..1.5 W while the gold eval holds), a Meta-World task that learned to a
ceiling well below its siblings' and that its trainer graduated at its own threshold, and pbt's members without the
loss (`jump_up` / `jump_down`: an exploit moved the curve by over 0.1 of the gain; a graduated env never fell under
its 85 % line). Every async_eval env lives through its late, off-grid evals.

Noise and visibility (sd of one point in the metric's units at every level an event visits; noise is made quieter —
more episodes, samples or problems a point — until it holds, else the event is not planted): regression drop >= 4
sd; stall rise >= 5 sd and a never-learner's gap to the top >= 6 sd; switching gap >= 5 sd; oscillation
peak-to-peak >= 6 sd; burst base sd <= burst sd / 4; prolonged riser sd <= 0.015 gain; healthy gain >= 8 sd (noisy
>= 5; a clean negative that cannot be made so keeps its noise). sd: returns (B - A) sigma / sqrt m; success
sqrt(s (1 - s) / n); the proxy score rm_sd / sqrt n; the gold score sqrt(p (1 - p) / N).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - an asynchronous test shows the weights of the counter it is stamped with, however late it is written;
  - a task graduated by its trainer at its own threshold is not stalled, whatever its siblings reach (in mt_tasks
    runs without logged states the trainer's thresholds are in the config's overrides, nowhere in the logs);
  - of one metric name, the eval series is the one judged: a proxy train score that keeps rising over a falling gold
    eval score is a regression, one that rises over a holding gold score is no event;
  - a PBT exploit's jump up is no event, nor a jump down that stays above the 85 % line; a member that takes a lost
    env with the weights it clones regressed at that exploit.
"""
from __future__ import annotations

import copy
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
CYCLE = ("async_eval", "mt_tasks", "reward_hacking", "pbt")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
MT_PROFILE = """\
profiles:
  garage_mt:
    patterns:
      - {regex: '^(?P<env>[a-z0-9-]+-v2)/(?P<metric>SuccessRate|AverageReturn)$', split: eval}
      - {regex: '^(?P<env>[a-z0-9-]+-v2)/CurriculumState$', split: state, metric: state}
    performance_metric: SuccessRate
"""
CONFIGS = {
    "async_eval": "performance_metric: mean_score\n",
    "reward_hacking": "performance_metric: score\n",
    "pbt": "performance_metric: reward\n",
}
NAMES = {
    "async_eval": ["Breakout-m0-d0", "Breakout-m4-d0", "Breakout-m8-d0", "Breakout-m12-d0", "Breakout-m0-d1",
                   "Breakout-m4-d1", "Breakout-m8-d1", "Breakout-m12-d1"],
    "reward_hacking": ["arith-2digit", "arith-4digit", "gsm8k", "math-l1", "math-l2", "math-l3", "countdown-3",
                       "countdown-4"],
    "pbt": ["walker-walk", "walker-run", "cheetah-run", "hopper-hop", "quadruped-run", "finger-spin",
            "reacher-hard", "cartpole-swingup"],
}
# Meta-World tasks and the range of the success rate MTSAC-like learners end at (some capped well below 1)
MT_TASKS = {
    "reach-v2": (0.92, 0.99), "push-v2": (0.55, 0.9), "pick-place-v2": (0.25, 0.6), "door-open-v2": (0.85, 0.99),
    "drawer-open-v2": (0.8, 0.99), "drawer-close-v2": (0.92, 0.99), "button-press-topdown-v2": (0.75, 0.95),
    "peg-insert-side-v2": (0.2, 0.5), "window-open-v2": (0.85, 0.99), "window-close-v2": (0.75, 0.95),
    "basketball-v2": (0.3, 0.7), "hammer-v2": (0.5, 0.9), "sweep-into-v2": (0.6, 0.95), "lever-pull-v2": (0.4, 0.8),
    "coffee-push-v2": (0.4, 0.8), "plate-slide-v2": (0.7, 0.99),
}
MT_EPISODES = (5, 15, 25, 50, 100, 200)  # num_evaluation_episodes x eval envs per task
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
    noise: float | None = None   # train noise parameter (episodes, samples); None: no train series
    enoise: float | None = None  # eval noise parameter (episodes, problems)
    G: int | None = None         # eval interval in iterations (async_eval: the tester's test_interval)
    at: int | None = None
    params: dict = field(default_factory=dict)


# --- the metric: E(s) and one point's sd ---------------------------------------------------------------

def e_map(run: dict, s) -> np.ndarray:
    """Skill -> the expected judged value in the metric's units (linear; higher is better)."""
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    return run["A"] + (run["B"] - run["A"]) * s


_GRID = np.linspace(0.0, 1.0, 4001)


def e_inv(run: dict, e) -> np.ndarray:
    return np.interp(np.asarray(e, float), e_map(run, _GRID), _GRID)


def E_levels(run: dict, env: Env) -> tuple[float, float]:
    return float(e_map(run, env.s0)), float(e_map(run, env.s1))


def skill_at_keep(run: dict, env: Env, keep: float) -> float:
    E0, E1 = E_levels(run, env)
    return float(e_inv(run, E0 + keep * (E1 - E0)))


def point_sd(run: dict, par: float, s: float, split: str = "train") -> float:
    """sd of one point in the metric's units at skill s; par is the noise parameter of that split (episodes,
    samples, problems)."""
    conv = run["convention"]
    s = min(max(float(s), 0.0), 1.0)
    span = run["B"] - run["A"]
    if conv in ("async_eval", "pbt"):
        return span * run["sig"] / math.sqrt(par)
    if conv == "mt_tasks":
        return math.sqrt(max(s * (1 - s), 0.0) / par)
    if split == "train":  # reward_hacking: the reward model's scores of the batch's samples
        return run["rm_sd"] / math.sqrt(par)
    p = float(e_map(run, s))
    return math.sqrt(max(p * (1 - p), 0.0) / par)


def quieter(run: dict, par: float) -> float | None:
    if run["convention"] == "mt_tasks":
        bigger = [n for n in MT_EPISODES if n > par]
        return float(bigger[0]) if bigger else None
    return None if par > 3000 else float(math.ceil(par * 1.5))


def make_visible(run: dict, env: Env, levels, limit: float) -> bool:
    def fix(attr: str, split: str) -> bool:
        for _ in range(60):
            par = getattr(env, attr)
            if max(point_sd(run, par, lv, split) for lv in levels) <= limit + 1e-12:
                return True
            q = quieter(run, par)
            if q is None:
                return False
            setattr(env, attr, q)
        return False

    ok = True
    if env.noise is not None:
        ok = fix("noise", "train")
    if env.enoise is not None:
        ok = fix("enoise", "eval") and ok
    return ok


def default_noise(run: dict, rng, heavy: bool = False) -> float | None:
    conv = run["convention"]
    if conv == "mt_tasks":
        return None
    if conv in ("async_eval", "pbt"):
        return float(rng.integers(1, 3) if heavy else rng.integers(2, 9))
    return float(rng.integers(8, 33) if heavy else rng.integers(64, 513))


def eval_noise(run: dict, rng, heavy: bool = False) -> float:
    conv = run["convention"]
    if conv == "async_eval":
        return float(rng.integers(4, 9) if heavy else rng.choice([8, 16, 32]))
    if conv == "mt_tasks":
        return float(5 if heavy else rng.choice([5, 15, 25]))
    if conv == "pbt":
        return float(rng.integers(2, 4) if heavy else rng.integers(5, 21))
    return float(rng.integers(32, 65) if heavy else rng.integers(128, 513))


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


def fc(curve: str, u: float) -> float:
    """f_curve of one number (the PBT simulation's inner loop)."""
    u = min(max(u, 0.0), 1.0)
    if curve == "exp":
        return (1 - math.exp(-5 * u)) / (1 - math.exp(-5))
    if curve == "logistic":
        lo, hi = 1 / (1 + math.exp(6)), 1 / (1 + math.exp(-6))
        return (1 / (1 + math.exp(-12 * (u - 0.5))) - lo) / (hi - lo)
    if curve == "sqrt":
        return math.sqrt(u)
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


def eff_G(run: dict, env: Env) -> float:
    """The planned eval spacing in iterations (async_eval: tests slow down to 1.8 x test_interval at the top)."""
    return (env.G or 1) * run.get("g_stretch", 1.0)


def grad_point(run: dict, env: Env, s: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc"):
        return None
    e = e_map(run, np.nan_to_num(s, nan=-1.0))
    E0, E1 = E_levels(run, env)
    hit = np.flatnonzero((e >= E0 + 0.9 * (E1 - E0) - 1e-12) & ~np.isnan(s))
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + max(0.3 * W, 3 * eff_G(run, env))))


def apply_fall(env: Env, s: np.ndarray) -> np.ndarray:
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
    G = eff_G(run, env)
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
            env.params["fr"] = (top - env.s0) / g
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
    if ev == "proxy_drift":  # reward_hacking: the reward model's score drifts up, the gold accuracy holds
        ramp = int(rng.uniform(0.5, 1.5) * W)
        if start + ramp + W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.5) * (L - start - ramp - W))
        env.params.update(rise=float(rng.uniform(0.04, 0.12)), hramp=max(ramp, 1))
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
        if run["convention"] == "reward_hacking":  # the proxy reward rises while the gold accuracy falls
            env.params.update(rise=float(rng.uniform(0.04, 0.12)), hramp=max(ramp, int(0.5 * W), 1))
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
    if run["convention"] == "mt_tasks":
        lo, hi = MT_TASKS[name]
        s0 = float(rng.uniform(0.0, 0.06))
        s1 = float(min(rng.uniform(lo, hi), 0.99))
    else:
        s0 = float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0.0, 1.0))
        s1 = float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 1.0))
    W = window(run)
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=float(rng.uniform(0.8, 2.5) * W), L=run["L"],
              curve=str(rng.choice(CURVES)), noise=default_noise(run, rng))
    if has_eval:
        env.G = int(run["G"] if run["convention"] != "async_eval" else rng.integers(3, 9))
        env.enoise = eval_noise(run, rng)
    return env


POOL = ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
        "eval_gap", "transition", "transition", "prolonged", "prolonged", "prolonged"]
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
    if conv == "async_eval":
        run["L"] = int(rng.integers(400, 801))
        run["unit"] = float(rng.choice([100, 250, 500]))  # the learner's log_interval (training steps)
        run["clock"] = np.arange(run["L"], dtype=np.int64) * int(run["unit"])
        run["A"], run["B"] = float(rng.uniform(0, 2)), float(rng.uniform(30, 400))
        run["sig"] = float(rng.uniform(0.15, 0.35))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.85, 0.95))
        run["G"] = 1  # every env has its tester; its own test_interval is drawn per env
        run["g_stretch"] = 1.8
        run["states"] = bool(rng.random() < 0.5)
    elif conv == "mt_tasks":
        run["L"] = int(rng.integers(300, 601))
        run["unit"] = float(rng.choice([20_000, 40_000, 50_000]))  # TotalEnvSteps per epoch
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
        run["A"], run["B"] = 0.0, 1.0
        run["G"] = 1  # MTSAC evaluates every epoch
        run["states"] = bool(rng.random() < 0.5)
    else:  # reward_hacking
        run["L"] = int(rng.integers(800, 2001))
        run["unit"] = 1.0
        run["clock"] = np.arange(1, run["L"] + 1, dtype=np.int64)
        run["A"], run["B"] = float(rng.uniform(0.05, 0.25)), float(rng.uniform(0.6, 0.92))
        run["rm_sd"] = float(rng.uniform(0.25, 0.4))
        run["bias"] = float(rng.uniform(0.0, 0.06))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.85, 0.95))
        run["G"] = int(rng.integers(5, 11))
        run["states"] = bool(rng.random() < 0.5)


def draw_event(run: dict, env: Env, pool: list[str], rng, n_prolonged: int) -> str | None:
    unlock = env.unlock
    for _try in range(3):
        ev = str(rng.choice(pool))
        if ev == "prolonged" and n_prolonged >= 2:
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
    has_eval = run["G"] is not None
    if conv == "mt_tasks":
        names = list(MT_TASKS)
        n = int(rng.integers(4, 9))
    else:
        names = NAMES[conv]
        n = int(rng.integers(3, 7))
    waves = int(rng.integers(1, 3))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    pick = rng.choice(len(names), size=n, replace=False)
    slots = [(names[k], starts[j % len(starts)] if j >= 2 else 0) for j, k in enumerate(pick)]
    envs = [new_env(run, rng, nm, unlock, has_eval) for nm, unlock in slots]
    pool = [p for p in POOL if (p != "eval_gap" or has_eval) and (p != "transition" or run["states"])]
    neg_pool = NEG_POOL + (["proxy_drift", "proxy_drift"] if conv == "reward_hacking" else [])
    n_prolonged = 0
    for j, env in enumerate(envs):
        if j >= 2 and rng.random() < 0.65:
            ev = draw_event(run, env, pool, rng, n_prolonged)
            if ev is not None:
                n_prolonged += ev == "prolonged"
                continue
        apply_negative(run, env, str(rng.choice(neg_pool if j >= 2 else NEG_POOL[:3])), rng)
    if n_prolonged:  # README: at least twice the median time the graduated envs took
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
    if conv == "mt_tasks":
        # one evaluation size for every task of the run (episodes x eval envs per task): the largest any needs
        n = max(e.enoise for e in envs)
        for env in envs:
            env.enoise = n
        # the trainer's own per-task threshold: a multiple of 0.05 at or under 90 % of the gain
        for env in envs:
            E0, E1 = E_levels(run, env)
            env.params["stop_threshold"] = max(0.05, math.floor(20 * (E0 + 0.9 * (E1 - E0)) + 1e-9) / 20)


# --- observing -------------------------------------------------------------------------------------

def tester_schedule(run: dict, env: Env, s: np.ndarray, rng) -> list[tuple[int, int, int, float]]:
    """EfficientZero's test actor for one env (core/test.py:17-49): it polls the learner's counter, starts a
    test once counter >= test_interval x episodes (so after a slow test it starts the next at once), on the
    weights of that moment, and hands (counter, scores) to the shared storage when the test is done; the
    learner writes them at its next _log, stamped with that counter. Returns (iteration of the weights,
    counter, log iteration that writes it, done) per test."""
    if not env.G:
        return []
    unit, L, G = run["unit"], run["L"], env.G
    clock = run["clock"]
    end = float(clock[-1])
    k = int(math.ceil(clock[env.unlock] / (G * unit)))
    tau = float(clock[env.unlock]) + rng.uniform(0, 0.3) * unit
    out = []
    while True:
        c = int(max(k * G * unit, tau) + rng.uniform(0, 0.3) * unit)  # the 30 s poll
        if c > end:
            break
        i = int(c // unit)
        if env.variant == "eval_gap" and i >= env.at:  # the test actor died
            break
        lvl = float(np.clip(np.nan_to_num(s[i], nan=0.0), 0, 1))
        done = c + G * unit * (0.3 + 1.2 * lvl + rng.uniform(0, 0.3))  # longer episodes as it plays better
        w = int(math.ceil(done / unit))
        if w >= L:
            break
        out.append((i, c, w, float(done)))
        k += 1
        tau = done + rng.uniform(0, 0.3) * unit
    return out


def eval_iterations(run: dict, env: Env) -> np.ndarray:
    on = np.arange(env.unlock, env.L)
    if not env.G:
        return np.array([], int)
    if run["convention"] == "mt_tasks":
        ev = on
    else:
        ev = on[on % env.G == (env.G - 1 if env.G > 1 else 0)]
    if env.variant == "eval_gap":
        ev = ev[ev < env.at]
    return ev


def ramp_u(env: Env, its: np.ndarray) -> np.ndarray:
    return np.clip((its - env.at) / env.params["hramp"], 0, 1)


def draw(run: dict, env: Env, s: np.ndarray, its: np.ndarray, par: float, rng, split: str) -> np.ndarray:
    """One logged value per point at skill s (already taken at its)."""
    conv = run["convention"]
    if not len(its):
        return np.array([])
    E = e_map(run, s)
    span = run["B"] - run["A"]
    if conv in ("async_eval", "pbt"):
        return E + rng.normal(0, 1, len(its)) * span * run["sig"] / math.sqrt(par)
    if conv == "mt_tasks":
        n = int(par)
        return rng.binomial(n, np.clip(s, 0, 1)) / n
    if split == "eval":  # gold accuracy on N held-out problems
        n = int(par)
        return rng.binomial(n, np.clip(E, 0, 1)) / n
    mean = E + run["bias"]  # the proxy reward model's mean score over the batch
    if env.variant in ("sudden", "gradual"):
        E1 = float(e_map(run, env.s1))
        after = its >= env.at
        mean = np.where(after, E1 + run["bias"] + env.params["rise"] * ramp_u(env, its), mean)
    elif env.variant == "proxy_drift":
        mean = mean + env.params["rise"] * ramp_u(env, its)
    out = np.minimum(mean, 0.99) + rng.normal(0, 1, len(its)) * run["rm_sd"] / math.sqrt(par)
    return np.clip(out, 0.0, 1.0)


def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    """Per series (its, steps, values): its is the iteration whose skill the point shows, steps its logged step."""
    conv, clock = run["convention"], run["clock"]
    out = {}
    if env.noise is not None:
        tr_its = np.arange(env.unlock, env.L)
        out["train"] = (tr_its, clock[tr_its], draw(run, env, np.clip(s[tr_its], 0, 1), tr_its, env.noise, rng,
                                                    "train"))
    else:
        out["train"] = (np.array([], int), np.array([], np.int64), np.array([]))
    if conv == "async_eval":
        sched = tester_schedule(run, env, s, rng)
        ev_its = np.array([x[0] for x in sched], int)
        ev_steps = np.array([x[1] for x in sched], np.int64)
        out["eval_write"] = [(x[2], x[3]) for x in sched]
    else:
        ev_its = eval_iterations(run, env)
        ev_steps = clock[ev_its]
    vals = draw(run, env, np.clip(s[ev_its], 0, 1), ev_its, env.enoise or 1.0, rng, "eval")
    out["eval"] = (ev_its, ev_steps, vals)
    if conv == "async_eval" and len(ev_its):  # the test's std / max / min over its episodes
        k = int(env.enoise)
        span = run["B"] - run["A"]
        eps = e_map(run, np.clip(s[ev_its], 0, 1))[:, None] + rng.normal(0, 1, (len(ev_its), k)) * span * run["sig"]
        eps = eps - eps.mean(axis=1, keepdims=True) + vals[:, None]
        out["eval_stats"] = (eps.std(axis=1), eps.max(axis=1), eps.min(axis=1))
    return out


def state_value(env: Env, gp: int | None, i: int) -> int:
    v = 0 if i < env.unlock else (2 if gp is not None and i >= gp else 1)
    if env.variant == "revisit" and env.at <= i < env.at + env.params["length"]:
        v = 1
    return v


# --- labelling -------------------------------------------------------------------------------------

def pace(steps: np.ndarray) -> float:
    """README's logging pace: the median interval when regular, else the mean of the intervals under 3x it."""
    steps = np.asarray(steps, float)
    if len(steps) < 2:
        return 1.0
    d = np.diff(np.sort(steps))
    med = float(np.median(d))
    if med <= 0:
        return 1.0
    if np.all(np.abs(d / med - np.round(d / med)) < 1e-9):
        return med
    return float(d[d < 3 * med].mean())


def first_at(pts_its: np.ndarray, pts_steps: np.ndarray, t0: int) -> int | None:
    ok = np.flatnonzero(pts_its >= t0)
    return int(pts_steps[ok[0]]) if len(ok) else None


def label_for(run: dict, env: Env, e: np.ndarray, pts: tuple, ev_pts: tuple, st_steps: np.ndarray | None,
              W_env: float, G_env: float | None) -> list[dict]:
    """pts: (its, steps) of the env's judged points (train and eval, by step); ev_pts: its evals; st_steps: the
    steps of its logged state points; W_env, G_env in steps."""
    if env.event not in EVENTS:
        return []
    its, steps = pts
    E0, E1 = E_levels(run, env)
    gE = E1 - E0
    v, p = env.variant, env.params
    if v in ("never", "osc"):
        onset = first_at(its, steps, env.unlock)
    elif v == "freeze":
        flat = float(e_map(run, env.s0 + p["fr"] * (env.s1 - env.s0)))
        a = int(math.ceil(env.unlock + p["R"]))
        near = np.flatnonzero((np.arange(len(e)) >= a) & (e >= flat - 0.1 * (flat - E0)))
        onset = first_at(its, steps, int(near[0]) if len(near) else a)
    elif v == "riser":
        onset = int(steps[0]) + int(round(10 * W_env))
        return [mk(run, env, onset)] if onset <= run["clock"][-1] else []
    elif v == "eval_gap":
        return [mk(run, env, int(ev_pts[1][-1]) + int(round(G_env)))]
    elif v == "revisit":
        ok = st_steps[st_steps >= run["clock"][env.at]]
        onset = int(ok[0]) if len(ok) else None
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gE))
        jits, jsteps = ev_pts if run["convention"] == "reward_hacking" else pts  # the proxy never falls
        onset = first_at(jits, jsteps, int(below[0]))
    elif v == "burst":
        a, B = env.at, p["length"]
        ev_set = set(int(x) for x in ev_pts[1])
        tr_sd = point_sd(run, env.noise, env.s1, "train") if env.noise is not None else math.inf
        ev_sd = point_sd(run, env.enoise, env.s1, "eval") if env.enoise is not None else math.inf
        onset = None
        for i, st in zip(its, steps):
            sd = min(tr_sd, ev_sd) if int(st) in ev_set else tr_sd
            if a <= i < a + B and E1 - e[i] > max(0.15 * gE, 4 * sd):
                onset = int(st)
                break
    elif v == "switch":
        onset = first_at(its, steps, p["phases"][0][0])
    else:
        raise ValueError(v)
    return [] if onset is None else [mk(run, env, onset)]


def mk(run: dict, env: Env, onset: int, typ: str | None = None) -> dict:
    return dict(run=run["name"], env=env.name, type=typ or env.event, onset=int(onset), severity=env.severity
                if typ is None else None, shape=f"{run['convention']}/{env.variant}", variant=env.variant)


def judged_points(conv: str, d: dict) -> tuple[tuple, tuple, np.ndarray, np.ndarray]:
    """(its, steps) of the judged points (finite train and eval, sorted by step), of the evals, and the train
    and eval steps."""
    tr_its, tr_steps, tr = d["train"]
    ev_its, ev_steps, ev = d["eval"]
    tm = np.isfinite(np.asarray(tr, float)) if len(tr) else np.zeros(0, bool)
    em = np.isfinite(np.asarray(ev, float)) if len(ev) else np.zeros(0, bool)
    its = np.concatenate([np.asarray(tr_its, int)[tm], np.asarray(ev_its, int)[em]])
    steps = np.concatenate([np.asarray(tr_steps, np.int64)[tm], np.asarray(ev_steps, np.int64)[em]])
    order = np.lexsort((its, steps))
    its, steps = its[order], steps[order]
    keep = np.r_[True, np.diff(steps) != 0] if len(steps) else np.zeros(0, bool)
    return ((its[keep], steps[keep]), (np.asarray(ev_its, int)[em], np.asarray(ev_steps, np.int64)[em]),
            np.asarray(tr_steps, np.int64)[tm], np.asarray(ev_steps, np.int64)[em])


# --- PBT -------------------------------------------------------------------------------------------

PBT_P = 4


def pbt_sd(run: dict, m: float) -> float:
    return (run["B"] - run["A"]) * run["sig"] / math.sqrt(m)


def plan_pbt(run: dict, rng) -> None:
    run["J"] = 1.0
    run["states"] = False
    run["L"] = int(rng.integers(400, 801))
    run["unit"] = float(rng.choice([50_000, 100_000]))  # env frames an iteration (dm_control: 1,000 a episode)
    run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * int(run["unit"])
    run["A"], run["B"] = float(rng.uniform(0, 40)), float(rng.uniform(650, 950))
    run["sig"] = float(rng.uniform(0.1, 0.25))
    run["s0"], run["s1"] = float(rng.uniform(0.0, 0.04)), float(rng.uniform(0.85, 0.95))
    run["G"] = int(rng.integers(5, 13))
    W = window(run)
    run["R"] = int(round(rng.uniform(0.6, 1.5) * W))  # perturbation_interval, iterations
    run["replay"] = float(rng.uniform(0.1, 0.2))  # a graduated env's share of the episodes of an active one
    n = int(rng.integers(3, 6))
    waves = int(rng.integers(1, 3))
    starts = [0] + sorted(int(rng.uniform(0.1, 0.3) * run["L"]) for _ in range(waves - 1))
    run["interference"] = bool(rng.random() < 0.4)
    names = NAMES["pbt"]
    pick = rng.choice(len(names), size=n, replace=False)
    run["envs"] = []
    for j, k in enumerate(pick):
        env = new_env(run, rng, names[k], starts[j % len(starts)] if j >= 2 else 0, True)
        env.G = run["G"]
        run["envs"].append(env)
    if run["interference"]:  # the env whose learning makes the members forget env 0 comes in a late wave
        run["envs"][-1].unlock = int(rng.uniform(0.15, 0.35) * run["L"])
    # one noise level for the population: a fall keeping 0.79 of the gain is 4 sd of an eval point and of an
    # active env's train point (a graduated env's train point, over replay x fewer episodes, is noisier)
    gE = min(float(e_map(run, e.s1) - e_map(run, e.s0)) for e in run["envs"])
    need = ((run["B"] - run["A"]) * run["sig"] / (0.21 * gE / 4.0)) ** 2
    run["m_train"] = float(max(int(rng.integers(16, 65)), math.ceil(need)))
    run["m_eval"] = float(max(int(rng.integers(5, 21)), math.ceil(need)))
    for env in run["envs"]:
        env.noise, env.enoise = run["m_train"], run["m_eval"]


def pbt_simulate(run: dict, speeds: np.ndarray, forget: dict | None, sim_seed: int) -> dict:
    """The population, iteration by iteration. Each member's progress on each unlocked env grows at its speed;
    its curriculum graduates an env 0.3 W (at least 3 evals) after it first reached 90 % of its gain, and from
    then trains it on replay only (replay x the episodes: its train point is noisier). Every perturbation_interval
    the member whose last training reward (the mean over the episodes trained, so a graduated env weighs replay
    x an active one) is the lowest clones the best one's state — progress, curriculum, forgetting — and takes its
    speed x 1.2 or 0.8, or a resampled one in 25 % (Ray Tune's exploit and explore). Interference (forget): once a
    member has trained env y for a while (lag, then at random with hazard h an iteration), its weights lose env x for
    good (a fall to keep of x's gain, sudden or
    a ramp; x is graduated and only replayed, nothing relearns it); a clone carries the loss with the weights."""
    rng = np.random.default_rng(sim_seed)
    envs, L, P = run["envs"], run["L"], PBT_P
    W = window(run)
    hold = int(math.ceil(max(0.3 * W, 3 * (run["G"] or 1))))
    nE = len(envs)
    T = np.array([e.T for e in envs])
    unlock = np.array([e.unlock for e in envs])
    s0 = np.array([e.s0 for e in envs])
    g = np.array([e.s1 - e.s0 for e in envs])
    curves = [e.curve for e in envs]
    E0 = e_map(run, s0)
    line9 = E0 + 0.9 * (e_map(run, s0 + g) - E0)
    prog = np.zeros((P, nE))
    hit = np.full((P, nE), -1)  # the iteration each member's curriculum saw env e reach 90 % of its gain
    v = speeds.copy()
    F = [[None] * nE for _ in range(P)]
    first = [None] * P  # (iteration, "own" | "inherited") the member's weights first lost x
    S = np.full((P, nE, L), np.nan)
    noise = rng.normal(size=(P, nE, L))
    coin, coin2 = rng.random(L), rng.random(L)
    fresh = np.exp(rng.uniform(math.log(0.6), math.log(1.6), L))
    hz = rng.random((P, L))  # interference strikes each member at random (hazard h an iteration) once y is trained
    obs = np.full((P, nE, L), np.nan)
    grad = np.zeros((P, nE, L), bool)
    exploits, vhist = [], np.zeros((P, L))
    sd = pbt_sd(run, run["m_train"])
    sd_replay = pbt_sd(run, max(1.0, round(run["replay"] * run["m_train"])))
    for t in range(L):
        for m in range(P):
            for e in range(nE):
                if t > unlock[e]:
                    prog[m, e] = min(prog[m, e] + v[m] / T[e], 1.0)
            if forget is not None and F[m][forget["x"]] is None and t >= unlock[forget["y"]] + forget["lag"] \
                    and hz[m, t] < forget["h"]:
                x = forget["x"]
                F[m][x] = dict(a=t, ramp=forget["ramp"], low=forget["low"], pre=float(S[m, x, t - 1]))
                if first[m] is None:
                    first[m] = (t, "own")
            for e in range(nE):
                if t < unlock[e]:
                    continue
                s = s0[e] + g[e] * fc(curves[e], prog[m, e])
                fz = F[m][e]
                if fz is not None and t >= fz["a"]:
                    u = 1.0 if fz["ramp"] == 0 else min(1.0, (t - fz["a"] + 1) / fz["ramp"])
                    s = fz["pre"] + (fz["low"] - fz["pre"]) * u
                S[m, e, t] = s
                if hit[m, e] < 0 and float(e_map(run, s)) >= line9[e] - 1e-12:
                    hit[m, e] = t
        grad[:, :, t] = (hit >= 0) & (t >= hit + hold)
        vhist[:, t] = v
        sds = np.where(grad[:, :, t], sd_replay, sd)
        obs[:, :, t] = e_map(run, np.nan_to_num(S[:, :, t], nan=0.0)) + noise[:, :, t] * sds
        obs[:, unlock > t, t] = np.nan
        if t > 0 and t % run["R"] == 0 and t < L - 1:
            # the PBT metric: the mean reward of the envs the curriculum trains now (all, once all graduated)
            wts = np.where(grad[:, :, t], 0.0, 1.0) * (unlock <= t)[None, :]
            wts[wts.sum(axis=1) == 0] = (unlock <= t).astype(float)
            score = np.sum(np.nan_to_num(obs[:, :, t]) * wts, axis=1) / wts.sum(axis=1)
            bottom, top = int(np.argmin(score)), int(np.argmax(score))
            if bottom != top:
                if forget is not None and first[bottom] is None and F[top][forget["x"]] is not None:
                    first[bottom] = (t + 1, "inherited")
                prog[bottom] = prog[top]
                hit[bottom] = hit[top]
                F[bottom] = copy.deepcopy(F[top])
                v[bottom] = fresh[t] if coin2[t] < 0.25 else v[top] * (1.2 if coin[t] > 0.5 else 0.8)
                exploits.append((t, bottom, top))
    return dict(S=S, obs=obs, grad=grad, exploits=exploits, speeds=vhist, first=first)


def pbt_truth_check(run: dict, sim: dict, forget: dict | None) -> dict | None:
    """Per member and env: None when a path is ambiguous (a graduated env that fell under the 85 % line and came
    back, fell before graduation + margin, with too little left, or an env that never graduated), else the
    graduation points and the iterations where the labelled falls crossed the line."""
    W = window(run)
    G = run["G"] or 1
    margin, low_len = max(W, 10 * G), max(2 * W, 15 * G)
    out = {}
    for m in range(PBT_P):
        for k, env in enumerate(run["envs"]):
            E = e_map(run, np.nan_to_num(sim["S"][m, k], nan=-1.0))
            E0, E1 = E_levels(run, env)
            gE = E1 - E0
            on = np.arange(run["L"]) >= env.unlock
            hit = np.flatnonzero(on & (E >= E0 + 0.9 * gE - 1e-12))
            if not len(hit):
                return None
            gp = int(math.ceil(hit[0] + max(0.3 * W, 3 * G)))
            if gp + 2 * W > run["L"]:
                return None
            below = np.flatnonzero(on & (np.arange(run["L"]) >= hit[0]) & (E < E0 + 0.85 * gE))
            cross = None
            if len(below):
                cross = int(below[0])
                if cross < gp + margin or run["L"] - cross < low_len or not np.all(E[cross:] < E0 + 0.85 * gE):
                    return None
                keep = (E[-1] - E0) / gE
                if 0.6 < keep < 0.72:
                    return None
            out[(m, k)] = dict(gp=gp, cross=cross, keep=float((E[-1] - E0) / gE))
    return out


def plan_population(run: dict, rng) -> tuple[dict, dict, dict | None]:
    """Draw speeds (and, where planned, the interference's q, keep and ramp) until every path is unambiguous."""
    W = window(run)
    forget = None
    if run["interference"]:
        x, y = 0, len(run["envs"]) - 1
        crit = rng.random() < 0.6
        keep = float(rng.uniform(0.1, 0.6) if crit else rng.uniform(0.72, 0.79))
        forget = dict(x=x, y=y, keep=keep, low=skill_at_keep(run, run["envs"][x], keep))
    for _draw in range(60):
        speeds = np.exp(rng.uniform(math.log(0.6), math.log(1.6), PBT_P))
        sim_seed = int(rng.integers(1 << 31))
        if forget is not None:
            forget.update(lag=int(rng.uniform(0.3, 1.0) * W), h=1.0 / (float(rng.uniform(0.5, 1.5)) * W),
                          ramp=0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W))
        sim = pbt_simulate(run, speeds, forget, sim_seed)
        chk = pbt_truth_check(run, sim, forget)
        if chk is None:
            continue
        if forget is not None and not any(chk[(m, forget["x"])]["cross"] is not None for m in range(PBT_P)):
            continue
        return sim, chk, forget
    if forget is not None:  # no unambiguous population with the interference: one without it
        run["interference"] = False
        return plan_population(run, rng)
    raise RuntimeError("no unambiguous PBT population in 60 draws")


# --- writers ---------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0


def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def _tb_write(folder: Path, events: list[tuple[str, float, int, float]]) -> None:
    """One tensorboardX SummaryWriter writing (tag, value, step, walltime) in the given order."""
    from tensorboardX import SummaryWriter

    folder.mkdir(parents=True, exist_ok=True)
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=1 << 20)
    for tag, v, step, wall in events:
        w.add_scalar(tag, float(v), int(step), walltime=wall)
    w.close()


def write_async(folder: Path, run: dict, data: dict, states: dict) -> None:
    """EfficientZero-style: the learner's _log at every log_interval writes the train scalars of its step, then
    every test result handed over since the last log, stamped with the counter the test started at
    (core/log.py:134): evals land in the event file after train rows of later steps."""
    events = []
    pending: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        ev_its, ev_steps, ev = d["eval"]
        stats = d.get("eval_stats")
        for j, (w, done) in enumerate(d.get("eval_write", [])):
            rows = [(f"eval/{env.name}/mean_score", ev[j], int(ev_steps[j]))]
            if stats is not None:
                rows += [(f"eval/{env.name}/std_score", stats[0][j], int(ev_steps[j])),
                         (f"eval/{env.name}/max_score", stats[1][j], int(ev_steps[j])),
                         (f"eval/{env.name}/min_score", stats[2][j], int(ev_steps[j]))]
            pending.setdefault(w, []).append((done, rows))
    train = {}
    for env in run["envs"]:
        tr_its, tr_steps, tr = data[env.name]["train"]
        for i, v in zip(tr_its, tr):
            train.setdefault(int(i), []).append((f"train/{env.name}/mean_score", v))
        for i, v in states.get(env.name, []):
            train.setdefault(int(i), []).append((f"curriculum/{env.name}/state", v))
    wall = WALL0
    for i in range(run["L"]):
        step = int(run["clock"][i])
        for tag, v in train.get(i, []):
            events.append((tag, v, step, wall))
        events.append(("Train/lr", 0.1 * (0.1 if i > 0.7 * run["L"] else 1.0), step, wall))
        for _done, rows in sorted(pending.get(i, []), key=lambda x: x[0]):
            for tag, v, st in rows:
                events.append((tag, v, st, wall + 0.5))
        wall += 2.0
    _tb_write(folder, events)


def write_mt(folder: Path, run: dict, data: dict, states: dict, rng) -> None:
    """garage's MTSAC through dowel's TensorBoardOutput (x_axis TotalEnvSteps): per epoch the tabular keys of
    log_multitask_performance for every evaluated task ({task}/Iteration, NumEpisodes, AverageReturn,
    TerminationRate, SuccessRate, ...), Average/*, the losses, and the curriculum wrapper's
    {task}/CurriculumState, all at the epoch's TotalEnvSteps."""
    by_it: dict[int, dict] = {}
    for env in run["envs"]:
        ev_its, _steps, ev = data[env.name]["eval"]
        n = int(env.enoise)
        for i, v in zip(ev_its, ev):
            ret = 150.0 + 4300.0 * v + rng.normal(0, 120.0 / math.sqrt(n))
            by_it.setdefault(int(i), {})[env.name] = (v, ret, n)
    state_by_it: dict[int, dict] = {}
    for name, ser in states.items():
        for i, v in ser:
            state_by_it.setdefault(int(i), {})[name] = v
    events = []
    for i in range(run["L"]):
        step = int(run["clock"][i])
        wall = WALL0 + 30.0 * i
        tasks = by_it.get(i, {})
        for name, (v, ret, n) in tasks.items():
            for key, val in (("Iteration", i), ("NumEpisodes", n), ("AverageDiscountedReturn", 0.31 * ret),
                             ("AverageReturn", ret), ("StdReturn", 40.0 + 300 * v * (1 - v)),
                             ("TerminationRate", 0.0), ("SuccessRate", v)):
                events.append((f"{name}/{key}", val, step, wall))
        if tasks:
            succ = float(np.mean([t[0] for t in tasks.values()]))
            events += [("Average/Iteration", i, step, wall), ("Average/SuccessRate", succ, step, wall),
                       ("Average/AverageReturn", float(np.mean([t[1] for t in tasks.values()])), step, wall)]
        events += [("AlphaTemperature/mean", 0.05 + 0.5 * math.exp(-i / 60.0), step, wall),
                   ("Policy/Loss", -40.0 - 0.05 * i + rng.normal(0, 2), step, wall),
                   ("QF/Qf1Loss", 3.0 + rng.gamma(2.0, 0.5), step, wall),
                   ("QF/Qf2Loss", 3.0 + rng.gamma(2.0, 0.5), step, wall),
                   ("ReplayBuffer/buffer_size", min(1_000_000, step), step, wall)]
        for name, v in state_by_it.get(i, {}).items():
            events.append((f"{name}/CurriculumState", v, step, wall))
    _tb_write(folder, events)


def write_rh(folder: Path, run: dict, data: dict, states: dict, rng) -> None:
    """One W&B offline run, step= the trainer step: train/{task}/score (the reward model's mean score of the
    batch), eval/{task}/score (gold accuracy on the held-out set) with eval/{task}/score_stderr, states."""
    _tests_on_path()
    from writers import write_wandb

    rows: dict[int, dict] = {}
    for env in run["envs"]:
        d = data[env.name]
        for i, v in zip(d["train"][0], d["train"][2]):
            rows.setdefault(int(i), {})[f"train/{env.name}/score"] = float(v)
        for i, v in zip(d["eval"][0], d["eval"][2]):
            rows.setdefault(int(i), {})[f"eval/{env.name}/score"] = float(v)
            rows[int(i)][f"eval/{env.name}/score_stderr"] = float(math.sqrt(max(v * (1 - v), 0.0) / env.enoise))
        for i, v in states.get(env.name, []):
            rows.setdefault(int(i), {})[f"curriculum/{env.name}/state"] = int(v)
    its = sorted(rows)
    for i in its:
        rows[i]["actor/entropy"] = float(0.9 * math.exp(-i / 400.0) + rng.normal(0, 0.01))
        rows[i]["actor/kl"] = float(abs(rng.normal(0.002 * (1 + i / 200.0), 0.001)))
        rows[i]["response_length/mean"] = float(300 + 0.4 * i + rng.normal(0, 15))
    write_wandb(folder / "wandb", [rows[i] for i in its], steps=[int(run["clock"][i]) for i in its],
                run_id=run["trial"], name=run["name"])


def write_pbt_member(folder: Path, run: dict, member: int, sim: dict, data: dict) -> None:
    events = []
    per_it: dict[int, list] = {}
    for env in run["envs"]:
        d = data[env.name]
        for split in ("train", "eval"):
            for i, v in zip(d[split][0], d[split][2]):
                per_it.setdefault(int(i), []).append((f"{split}/{env.name}/reward", v))
    exploited = {t: top for t, bottom, top in sim["exploits"] if bottom == member}
    for i in range(run["L"]):
        step, wall = int(run["clock"][i]), WALL0 + 4.0 * i + 0.01 * member
        for tag, v in per_it.get(i, []):
            events.append((tag, v, step, wall))
        events.append(("pbt/lr", 3e-4 * float(sim["speeds"][member, i]), step, wall))
        if i in exploited:
            events.append(("pbt/exploited_from", exploited[i], step, wall))
    _tb_write(folder, events)


# --- build -----------------------------------------------------------------------------------------

def finish_env(run: dict, env: Env, d: dict, span: float) -> tuple[tuple, tuple, float, float | None, float]:
    """Judged points, W_env, G_env, J_env of an observed env."""
    pts, ev_pts, tr_steps, ev_steps = judged_points(run["convention"], d)
    J_env = pace(tr_steps) if len(tr_steps) >= 2 else pace(ev_steps)
    W_env = max(min(100.0, 0.1 * span), 20.0 * J_env)
    G_env = float(np.median(np.diff(np.sort(ev_steps)))) if len(ev_steps) >= 2 else None
    return pts, ev_pts, W_env, G_env, J_env


def build_standard(root: Path, run: dict, labels: list[dict], rseed: int) -> dict:
    conv = run["convention"]
    prng = np.random.default_rng(rseed)
    plan_run(run, prng)
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    orng = np.random.default_rng(rseed + 1)
    W = window(run)
    clock = run["clock"]
    span = float(clock[-1] - clock[0])
    data, states, tol = {}, {}, []
    for env in run["envs"]:
        s = truth(run, env)
        gp = grad_point(run, env, base_curve(run, env), W)
        env.params["graduated_point"] = gp
        d = observe(run, env, s, orng)
        data[env.name] = d
        st_steps = None
        if run["states"]:
            if conv == "mt_tasks":  # the wrapper records every task's state every epoch, locked ones too
                st_its = np.arange(run["L"])
            else:
                st_its = np.asarray(d["train"][0], int)
            states[env.name] = [(int(i), state_value(env, gp, int(i))) for i in st_its]
            st_steps = clock[st_its]
        pts, ev_pts, W_env, G_env, J_env = finish_env(run, env, d, span)
        env.params.update(W_env=W_env, G_env=G_env, J_env=J_env)
        tol.append(max(W_env / 10.0, G_env or J_env))
        labs = label_for(run, env, e_map(run, np.nan_to_num(s, nan=env.s0)), pts, ev_pts, st_steps, W_env, G_env)
        if env.variant == "riser" and not labs:
            env.event = env.variant = "riser_short"  # its 10 windows outlast the run: no event after all
        labels.extend(labs)
    if conv == "async_eval":
        write_async(folder, run, data, states)
    elif conv == "mt_tasks":
        write_mt(folder, run, data, states, np.random.default_rng(rseed + 2))
    else:
        write_rh(folder, run, data, states, np.random.default_rng(rseed + 2))
    write_plan(folder, run, tol, W)
    return run


def build_pbt(root: Path, run: dict, labels: list[dict], rseed: int) -> list[dict]:
    """One population: PBT_P member runs, each its own folder {name}_m{k} (one SummaryWriter per member)."""
    prng = np.random.default_rng(rseed)
    plan_pbt(run, prng)
    sim, chk, forget = plan_population(run, prng)
    W = window(run)
    clock = run["clock"]
    span = float(clock[-1] - clock[0])
    orng = np.random.default_rng(rseed + 1)
    metas = []
    for m in range(PBT_P):
        mrun = dict(run, name=f"{run['name']}_m{m}", member=m)
        envs = [copy.deepcopy(e) for e in run["envs"]]
        mrun["envs"] = envs
        data, tol = {}, []
        for k, env in enumerate(envs):
            S = sim["S"][m, k]
            tr_its = np.arange(env.unlock, env.L)
            tr = sim["obs"][m, k, tr_its]
            ev_its = eval_iterations(mrun, env)
            ev = draw(mrun, env, np.clip(S[ev_its], 0, 1), ev_its, env.enoise or 1.0, orng, "eval")
            d = {"train": (tr_its, clock[tr_its], tr), "eval": (ev_its, clock[ev_its], ev)}
            data[env.name] = d
            pts, ev_pts, W_env, G_env, J_env = finish_env(mrun, env, d, span)
            c = chk[(m, k)]
            jumps = [float(e_map(mrun, S[t + 1]) - e_map(mrun, S[t])) for t, b, _top in sim["exploits"]
                     if b == m and t + 1 < env.L and t >= env.unlock]
            gE = float(e_map(mrun, env.s1) - e_map(mrun, env.s0))
            env.params = dict(graduated_point=c["gp"], W_env=W_env, G_env=G_env, J_env=J_env,
                              exploit_jumps=[round(j / gE, 3) for j in jumps])
            if c["cross"] is not None:
                env.event = "graduated_regression"
                env.variant = "forgot" if sim["first"][m][1] == "own" else "inherited"
                env.severity = "warning" if c["keep"] >= 0.7 else "critical"
                env.at = c["cross"]
                env.params["keep"] = c["keep"]
                onset = first_at(pts[0], pts[1], c["cross"])
                if onset is not None:
                    labels.append(mk(mrun, env, onset))
            else:
                up = any(j > 0.1 * gE for j in jumps)
                down = any(j < -0.1 * gE for j in jumps)
                env.event = "healthy"
                env.variant = "jump_down" if down else ("jump_up" if up else "healthy")
            tol.append(max(W_env / 10.0, G_env or J_env))
        folder = root / "pbt" / mrun["name"]
        write_pbt_member(folder, mrun, m, sim, data)
        mrun["exploits"] = [list(x) for x in sim["exploits"]]
        mrun["forget"] = forget
        write_plan(folder, mrun, tol, W)
        metas.append(mrun)
    return metas


def write_plan(folder: Path, run: dict, tol: list[float], W: float) -> None:
    meta = {k: v for k, v in run.items() if k not in ("envs", "clock")}
    clock = run["clock"]
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


def mt_config(runs: list[dict]) -> str:
    """The user profile and the trainer's per-task graduation thresholds (overrides by run and env glob)."""
    lines = [MT_PROFILE, "overrides:\n"]
    for run in runs:
        for env in run["envs"]:
            lines.append(f"  - {{run: \"{run['name']}\", env: \"{env.name}\", "
                         f"graduation: {{stop_threshold: {env.params['stop_threshold']:.2f}}}}}\n")
    return "".join(lines)


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    mt_runs = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        name = f"z{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'nineteenth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
        run = dict(name=name, convention=conv, seed=rseed, trial=trial)
        if conv == "pbt":
            build_pbt(root, run, labels, rseed)
        else:
            build_standard(root, run, labels, rseed)
            if conv == "mt_tasks":
                mt_runs.append(run)
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    if (root / "mt_tasks").is_dir():
        (root / "mt_tasks" / "curriwatch.yaml").write_text(mt_config(mt_runs))
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
    if isinstance(o, tuple):
        return list(o)
    return str(o)
