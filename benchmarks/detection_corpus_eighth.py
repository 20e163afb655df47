"""The eighth detection corpus (`python benchmarks/detection.py --corpus eighth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles and overrides, metric direction,
logging shapes, what `unknown` means; the design notes; log-conventions.md), without reading the rules' or the
analysis code, and without looking at which cases curriwatch misses. Meant to be read for its totals, never
tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-eighth-<VERSION>-<n>runs-s<seed>, never in the repo;
~60 runs a seed. Runs cycle through CYCLE; one group folder per convention (its curriwatch.yaml, if any, in the
group folder, where the scorer reads it). Chosen for what the seven other corpora lack:

  episode_outcomes  generic tensorboardX `train/{env}/success` logged ONCE PER FINISHED EPISODE as a raw 0/1
                 outcome (plus `train/{env}/episode_length`) at IRREGULAR env steps: several tasks trained at
                 once, each finishing Poisson(0.6..1.6) episodes an iteration of 512 env steps, each at its own
                 step inside the iteration (two episodes of a task ending at one step are two writes, combined by
                 the reader); config `performance_metric: success`. Half the runs also evaluate (`eval/{env}/
                 success`, the rate over 20..50 eval episodes every 10..20 iterations); `curriculum/{env}/state`
                 (0/1/2) in 40 %. The only per-point noise is the outcome's own Bernoulli noise.
  plr_pool       a PROCEDURALLY GENERATED LEVEL POOL (DCD / Robust-PLR style) as one W&B OFFLINE run logged with
                 step= (env steps, 8,192 or 16,384 an update): 24..43 levels `train/lvl_{seed}/reward`, each
                 logged only in the updates that replayed it (each level replayed with probability 0.06..0.14 an
                 update, so 100..300 irregular points a level), its value the mean MiniGrid-style return of the 1..2
                 episodes played on it (0 when unsolved, else 0.9..0.97 x (1 - 0.1 U)); levels enter the buffer over
                 the first 35 % of the run; run-level `plr/*` keys (unclaimed). Train only, no states.
  mixed_suite    ONE RUN OF DIFFERENT METRIC KINDS through a user profile `suite` (tensorboardX tags
                 `suite/{env}/train`, `suite/{env}/eval`, state `suite/{env}/stage` 0/1/2 in half the runs, metric
                 fixed `score`): success rates (`*-success`, binomial 16..128), PERCENT correct (`*-pct`, 0..100,
                 binomial over 50..400 or near-deterministic), returns (`*-return`, -1500..-150 or 0..500,
                 gaussian or Student t df 3), STEPS TO GOAL (`*-steps`, 400 -> 40 integers, log-normal noise) and an
                 energy COST (`*-cost`, 50 -> 12) — the last two LOWER IS BETTER, declared only by overrides
                 `{env: "*-steps", direction: lower}`, `{env: "*-cost", direction: lower}`; 2..4 kinds in each run
                 of 3..6 envs; steps of 1 or 100 an iteration; eval every 5..20 iterations (runs of >= 30..45 evals).
  evaldense_regret generic tensorboardX `eval/{env}/regret` EVERY 1..2 ITERATIONS and `train/{env}/regret` only
                 every 10..25 (EVALS DENSER THAN TRAINING), or evals alone (30 %); config `performance_metric:
                 regret` (LOWER IS BETTER, read from the name; regret = R (1 - skill) >= 0, clipped at 0, R 2..200
                 shared by the run's envs); `curriculum/{env}/state` in 40 %; steps of 10 or 1,000; 40 % of the runs
                 RESUMED FROM A CHECKPOINT: the job died at 40..80 % of the run and a second SummaryWriter (a second
                 event file in the same folder, started an hour later) rewrote the last 5..20 % of the run with new
                 noise (README: last write wins).
  pct_resumed    W&B OFFLINE runs logged with step=, a user profile `puzzles` (`puzzles/{env}/train_solved_pct`,
                 `puzzles/{env}/eval_solved_pct`, state words `puzzles/{env}/status` in 40 %): PERCENT of puzzles
                 solved (100 k / n; train n 16..64, eval n 100..400, evals every 8..20 iterations, jittered
                 +-30 %);
                 60 % of the runs RESUMED under the same run id (a second `offline-run-…-{id}` folder): either
                 rewinding 3..30 iterations (overlap) or after a LONG LOGGING PAUSE (the middle attempt's folder
                 lost: nothing logged by any key for 5..12 % of the run while training went on).

Truth.  Time is in iterations i = 0..L-1; step(i) = unit x i (+ an in-iteration offset for episodes; + unit for
PLR's updates). Every env has a skill s(i) in [0, 1] (none before its unlock), mapped to its metric by its
expected value a + b s (b < 0 for steps, cost and regret: skill is always higher-is-better; a percent is 100 s).
A learner goes from s0 to s1 over T iterations (exp, logistic, sqrt or linear) and is flat at s1 from T on. In a
run the envs of one kind share one scale (starts within 0.05, tops within 0.04), so a sibling shows the top.
  J  judged interval      README's logging pace of the env's training points (the median interval when regular,
                          else the mean of the intervals under 3 x the median: per-episode and PLR points), its
                          evals' pace when it logs only evals
  W  stagnation window    max(min(100 steps, 10 % of the run's span), 20 J) (README training_stagnation), per env
  G  eval interval        the env's eval pace, else J
  Q  tolerance unit       max(median W / 10, median G) over the run's envs, in steps = `tolerance_unit` in plan.json
                          (the envs of a run log at one nominal pace); a detection matches a label within 2 Q
"Graduated" (truth) = the skill has reached s0 + 0.9 (s1 - s0) and then held max(0.3 W, 3 G) more; logged states go
to 2 there. Healthy learners reach their top within 0.8..2.5 W.

Labels (an env carries at most one; onset in steps; "first point" = the first logged point of the env's
performance, train or eval, at or after the event's true start):
  graduated_regression   after graduation + max(W, 10 G): sudden, gradual (ramp over 0.5..1.5 W) or temporary (back
                         after max(2 W, 20 G)) fall to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain,
                         lasting >= max(2 W, 15 G); raw 0/1 outcomes and PLR returns only critical (keep 0.05..0.45)
                         lasting >= max(3 W, 15 G). Onset = first point at/after the true curve first keeps < 0.85 of
                         the gain (README first_step)
  training_stagnation    never: flat at s0 from activation for >= 6 W (onset = its first point); freeze: a learner
                         stops at 0.2..0.5 of its gain (below 0.55 absolute for a rate) after a rise of >= max(0.4 W,
                         6 J), flat and active >= 5 W to the end (onset = first point of the flat stretch). Only on
                         rates (0/1 outcomes, `*-success`) or in runs where the env's own kind has learners beside it
                         (PLR levels, percent and regret runs: learners >= 2 and >= half the run): README's shared
                         scale; a percent / return / steps / cost env is never labelled stalled in a mixed run, whose
                         siblings are on other scales (README: it "stays unjudged")
  performance_volatility after graduation + margin, after a calm hold: switch (held and held - 0.4..0.6 gain — 0.5..0.7
                         for 0/1 outcomes and PLR —, Markov dwells >= max(4 J, 4 G) — >= 25 outcomes / >= 14 replays
                         for 0/1 and PLR —, capped at twice the mean dwell, >= 8 changes, to the end or stopping after
                         10..14 phases; onset = the first low phase), osc (held - p2p |sin(pi t / P)|, p2p 0.4..0.7
                         gain, P 6..12 G (>= 8 J), 4..8 periods (>= 2 W) or to the end; onset = its first point; not
                         on 0/1 or PLR) or
                         burst (max(W, 20 G) of points scattered |N(0, 0.2..0.3 gain)| below the held level, then calm
                         >= max(W, 15 G); onset = its first point off by > max(0.15 gain, 4 sd); not on 0/1 or PLR,
                         whose single points already span the range)
  unexpected_transition  logged states: 2 -> 1 after graduation (a task revisited) for 0.5..1.5 W, then 2 again;
                         onset = the first logged state point with the backward value
  eval_gap               evaluated envs of runs that also train: after graduation + margin the env's evals stop for
                         the rest of the run (>= max(8 x max(50 steps, G), 2 W) left) while the run goes on; onset =
                         last eval + the env's eval pace (README first_step)
  prolonged_training     a steady riser (0.045..0.06 gain per W, at most 0.68 of the gain at the run's end: it never
                         flattens) in a multi-env run of >= 12.5 W whose siblings graduate within 3 W; onset = its
                         first point + 10 W, W from its own logged points (README)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (heavy noise; not for 0/1 or PLR,
whose noise is fixed), single_outlier (one judged point at 0.05 of the gain; evals only where they exist, never a
0/1 outcome), level_up (+0.03..0.05 gain after graduation where there is room), drift (a slow -0.04..-0.07 gain
decline after graduation), pause (rises to 0.35..0.6 of its gain, flat 1..2 W, then learns on: README's staircase
pause), late_healthy (unlocked at 0.35..0.55 of the run). A resume (overlap or pause) and the percent, regret and
mixed scales are never events by themselves.

Noise (skill units). Visibility bounds (the judged series' point sd at every level the event visits; noise made
quieter, same family, until met): regression <= drop / 4; stagnation <= min(0.05, 0.2 x rise); switching <= gap / 5;
oscillation <= peak-to-peak / 6; burst base <= min(0.04, burst sd / 4); prolonged riser <= 0.03. Raw 0/1 outcomes
and PLR returns cannot be made quieter: their events are the large, long ones above, and the bounds are checked on
a reader's 20-point smoothing (the point sd / sqrt(20)) at twice their size (2.5 x for a stall, which a reader
judges over its whole flat stretch of >= 5 W), as the seventh corpus reads tiny batches. A PLR run plants events on
at most 5 of its levels (20 % drawn), the others are clean negatives. Near-deterministic envs (sd 0.001..0.003) are drawn in mixed_suite, evaldense_regret and pct_resumed.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a 0/1 outcome per episode is a rate of one trial (README: values on a 1/n lattice, n <= 256); its events are
    labelled only where a reader smoothing 20 outcomes would see them;
  - a PLR level is an env of the run (README: env ids are data); levels of one maze family share one scale (all
    start unsolved at ~0 and top within 0.9..0.97 x 0.95), so an unsolvable level flat near 0 is labelled stalled
    from its first point beside its learning siblings;
  - a long logging pause of the whole run (pct_resumed) is no event: its steps still count for prolonged_training
    (README counts steps), and the first point after it dates any event whose true start fell inside it;
  - the W&B resumed folders and the second event file are one run (README: run groups, last write wins), so the
    rewritten stretch is judged on its second writing.
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
CYCLE = ("episode_outcomes", "plr_pool", "mixed_suite", "evaldense_regret", "pct_resumed")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")

EPISODE_CONFIG = "performance_metric: success\n"
REGRET_CONFIG = "performance_metric: regret\n"
SUITE_CONFIG = """\
profiles:
  suite:
    patterns:
      - {regex: '^suite/(?P<env>[^/]+)/(?P<split>train|eval)$', metric: score}
      - {regex: '^suite/(?P<env>[^/]+)/stage$', split: state, metric: state}
    performance_metric: score
overrides:
  - {env: "*-steps", direction: lower}
  - {env: "*-cost", direction: lower}
"""
PUZZLE_CONFIG = """\
profiles:
  puzzles:
    patterns:
      - regex: '^puzzles/(?P<env>[^/]+)/(?P<split>train|eval)_(?P<metric>solved_pct)$'
      - {regex: '^puzzles/(?P<env>[^/]+)/status$', split: state, metric: state}
    performance_metric: solved_pct
"""
CONFIGS = {"episode_outcomes": EPISODE_CONFIG, "mixed_suite": SUITE_CONFIG, "evaldense_regret": REGRET_CONFIG,
           "pct_resumed": PUZZLE_CONFIG}
TASKS = ["reach", "push", "open", "stack", "sort", "pour", "wipe", "turn"]
SUITE_NAMES = ["nav", "grasp", "swing", "maze", "arm", "hop", "quiz", "dock", "lift", "spin"]
PUZZLES = ["sudoku4", "kenken", "nonogram", "sokoban", "hanoi", "lights", "kakuro", "bridges"]
REGRET_ENVS = ["bandit-a", "bandit-b", "gridworld", "chain", "riverswim", "deepsea", "catch"]
KINDS = {  # kind -> (a, b): expected value = a + b * skill
    "rate": (0.0, 1.0), "pct": (0.0, 100.0), "ret_neg": (-1500.0, 1350.0), "ret_pos": (0.0, 500.0),
    "steps": (400.0, -360.0), "cost": (50.0, -38.0),
}
SUITE_SUFFIX = {"rate": "success", "pct": "pct", "ret_neg": "return", "ret_pos": "return", "steps": "steps",
                "cost": "cost"}
FIXED = ("bern", "plr")  # noise families that cannot be made quieter


@dataclass
class Env:
    name: str
    kind: str
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
    # logging schedule (iterations, steps) and paces in iterations, set by the planner
    J: float = 1.0
    G: float = 1.0
    W: float = 20.0


# --------------------------------------------------------------------------- noise

def point_sd(noise: tuple, level: float) -> float:
    """A logged point's sd in skill units at a level (0/1 outcomes and PLR returns: a 20-point smoothing's)."""
    kind = noise[0]
    p = min(max(level, 0.0), 1.0)
    if kind == "binom":
        return math.sqrt(max(p * (1 - p), 0.0025) / noise[1])
    if kind == "bern":
        return math.sqrt(max(p * (1 - p), 0.0025)) / math.sqrt(20)
    if kind == "plr":  # m episodes, solved ~ Bernoulli(p), return (1 - 0.1 U) / 0.95 in skill units
        return math.sqrt(max(p * (1 - p), 0.0025) / noise[1]) / math.sqrt(20)
    if kind == "t3":
        return float(noise[1])
    if kind == "lognorm":  # relative sd of a steps / cost metric, taken at the metric's own level
        return float(noise[1]) * noise[2]
    return float(noise[1])


def quieter(noise: tuple) -> tuple:
    if noise[0] in FIXED:
        return noise
    if noise[0] == "binom":
        return (noise[0], int(noise[1]) * 2)
    return (noise[0], noise[1] * 0.75, *noise[2:])


def shrink(env: Env, limit: float, levels, fixed_factor: float = 2.0) -> bool:
    """Make the env's noise quieter until its point sd meets the bound at every level; False when it cannot (a fixed
    family over twice the bound)."""
    for _ in range(80):
        tr = max(point_sd(env.noise, lv) for lv in levels)
        ev = max(point_sd(env.enoise, lv) for lv in levels) if env.enoise is not None else 0.0
        if env.noise[0] in FIXED:
            if env.enoise is not None and ev > limit and env.enoise[0] not in FIXED:
                env.enoise = quieter(env.enoise)
                continue
            return tr <= fixed_factor * limit
        if tr > limit:
            env.noise = quieter(env.noise)
        elif ev > limit:
            env.enoise = quieter(env.enoise)
        else:
            return True
    return False


def draw(noise: tuple, s: np.ndarray, rng) -> np.ndarray:
    """Observed skill-unit values around s."""
    kind = noise[0]
    s = np.asarray(s, dtype=float)
    if kind == "binom":
        return rng.binomial(int(noise[1]), np.clip(s, 0, 1)) / int(noise[1])
    if kind == "bern":
        return rng.binomial(1, np.clip(s, 0, 1)).astype(float)
    if kind == "plr":
        m = int(noise[1])
        solved = rng.binomial(1, np.clip(s, 0, 1)[:, None], (len(s), m))
        ret = solved * (1 - 0.1 * rng.uniform(0, 1, (len(s), m))) / 0.95
        return ret.mean(axis=1)
    if kind in ("gauss", "near"):
        return s + rng.normal(0, noise[1], len(s))
    if kind == "t3":
        return s + rng.standard_t(3, len(s)) * noise[1] / math.sqrt(3.0)
    if kind == "lognorm":  # handled in metric units by to_metric
        return s.copy()
    raise ValueError(kind)


def to_metric(env: Env, obs: np.ndarray, noise: tuple, rng, run: dict) -> np.ndarray:
    """Skill-unit observations -> the env's logged values."""
    if env.kind == "regret":
        R = run["R"]
        return np.maximum(R * (1.0 - obs), 0.0)
    if env.kind == "plr":
        return env.params["c"] * 0.95 * obs
    if env.kind in ("rate", "bern"):
        return np.clip(obs, 0, 1)
    if env.kind == "pct":
        return np.clip(100.0 * obs, 0, 100)
    a, b = KINDS[env.kind]
    if noise[0] == "lognorm":
        v = (a + b * obs) * np.exp(rng.normal(0, noise[1], len(obs)))
        return np.round(v) if env.kind == "steps" else v
    v = a + b * obs
    return np.round(v) if env.kind == "steps" else v


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


def grad_it(env: Env) -> float | None:
    """True graduation (iteration): 90 % of the gain reached, then held max(0.3 W, 3 G)."""
    if env.event in ("training_stagnation", "prolonged_training"):
        return None
    r = reach90(env)
    return None if r is None else env.unlock + r + max(0.3 * env.W, 3 * env.G)


def truth(env: Env, L: int, rng) -> tuple[np.ndarray, int | None]:
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
            d = max(p["dmin"], rng.exponential(max(p["dwell"] - p["dmin"] / 2, 1)) + p["dmin"] / 2)
            d = int(math.ceil(min(d, 2 * p["dwell"])))
            lvl[i:i + d] = held if high else held - p["gap"] * gain
            i += d
            high = not high
            phases += 1
        s = np.where(it >= a, lvl, s)
    elif env.event == "performance_volatility" and v == "osc":
        m = (it >= a) & (it < a + p["span"])
        s = np.where(m, held - p["p2p"] * gain * np.abs(np.sin(np.pi * (it - a) / p["period"])), s)
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


def window_steps(judged_steps, span: float) -> float:
    """README's stagnation window in steps for a series logged at these steps."""
    return max(min(100.0, 0.1 * span), 20.0 * pace(judged_steps))


# --------------------------------------------------------------------------- placing events

def place_event(env: Env, ev: str, run: dict, rng, *, vols=("switch", "osc", "burst"),
                stalls=("never", "freeze")) -> bool:
    """Place an event on a planned learner; False (the env is left as it was) when there is no room."""
    W, J, G, L = env.W, env.J, env.G, run["L"]
    gain = env.s1 - env.s0
    held = env.s1
    fixed = env.noise[0] in FIXED
    backup = (env.noise, env.enoise, env.curve, env.T, dict(env.params))

    def undo() -> bool:
        env.noise, env.enoise, env.curve, env.T, env.params = backup[0], backup[1], backup[2], backup[3], backup[4]
        env.event, env.variant, env.at, env.severity = "healthy", "", None, None
        return False

    if ev == "training_stagnation":
        variant = str(rng.choice(list(stalls)))
        if variant == "never":
            if L - env.unlock < 6 * W:
                return False
            env.event, env.variant, env.curve, env.at = ev, "never", "flat", env.unlock
            if env.kind == "plr":
                env.s0 = float(rng.uniform(0.0, 0.04))
            return shrink(env, 0.05, [env.s0], 2.5) or undo()
        curve = str(rng.choice(["exp", "linear", "sqrt"]))
        T = float(rng.uniform(2.0, 4.0) * W)
        frac = float(rng.uniform(0.2, 0.5))
        if env.kind in ("rate", "bern", "pct", "plr"):
            frac = min(frac, (0.55 - env.s0) / gain)
        probe = Env(env.name, env.kind, env.unlock, env.s0, env.s1, curve, T, env.noise)
        u = np.linspace(0, T, 8001)
        at = env.unlock + u[int(np.flatnonzero(base_f(probe, u) >= frac)[0])]
        at = int(math.ceil(max(at, env.unlock + max(0.4 * W, 6 * J))))
        frac = float(base_f(probe, np.array([at - env.unlock]))[0])
        if frac > 0.55 or frac < 0.15 or L - at < 5 * W:
            return False
        env.event, env.variant, env.curve, env.T, env.at = ev, "freeze", curve, T, at
        return shrink(env, min(0.05, 0.2 * frac * gain), [env.s0, env.s0 + frac * gain], 2.5) or undo()
    g = grad_it(env)
    if g is None:
        return False
    start = g + max(W, 10 * G)
    free = L - start
    if ev == "graduated_regression":
        variant = str(rng.choice(["sudden", "gradual", "temporary"] if not fixed else ["sudden", "gradual"]))
        sev = "critical" if fixed else str(rng.choice(["warning", "critical"]))
        if fixed:
            keep = float(rng.uniform(0.05, 0.45))
        else:
            keep = float(rng.uniform(0.72, 0.79) if sev == "warning" else rng.uniform(0.1, 0.6))
        last = max(3 * W if fixed else 2 * W, 15 * G)
        fall = float(rng.uniform(0.5, 1.5) * W) if variant == "gradual" else 1.0
        back = max(2 * W, 20 * G) if variant == "temporary" else 0.0
        need = fall + last + back
        if free <= need:
            return False
        env.event, env.variant, env.severity = ev, variant, sev
        env.at = int(rng.uniform(start, L - need))
        env.params.update(keep=keep, fall=fall, back=back)
        drop = (1 - keep) * gain
        return shrink(env, 0.25 * drop, [held, held - drop]) or undo()
    if ev == "performance_volatility":
        variant = "switch" if fixed else str(rng.choice(list(vols)))
        if variant == "burst":
            length = float(max(W, 20 * G))
            need = length + max(W, 15 * G)
            if free <= need:
                return False
            bsd = float(rng.uniform(0.2, 0.3))
            env.params.update(length=length, bsd=bsd)
            env.at = int(rng.uniform(start, L - need))
            env.event, env.variant = ev, variant
            return shrink(env, min(0.04, bsd * gain / 4), [held, max(held - 2 * bsd * gain, 0.0)]) or undo()
        if variant == "osc":
            period = float(max(rng.uniform(6, 12) * max(G, J), 8 * J))
            n_per = float(rng.uniform(4, 8))
            span = max(n_per * period, 2 * W)
            to_end = rng.random() < 0.5
            need = span + (0 if to_end else max(W, 10 * G))
            start = max(start, env.unlock + curve_span(env) + 2 * period)
            if L - start <= need:
                return False
            p2p = float(rng.uniform(0.4, 0.7))
            env.at = int(rng.uniform(start, L - need))
            if to_end:
                span = L - env.at
            env.params.update(period=period, span=span, p2p=p2p)
            env.event, env.variant = ev, variant
            return shrink(env, p2p * gain / 6, [held, held - p2p * gain]) or undo()
        if env.kind == "bern":
            dmin = max(4 * J, 4 * G, 25 * J)
        elif env.kind == "plr":
            dmin = max(4 * J, 14 * J)
        else:
            dmin = max(4 * J, 4 * G)
        dwell = float(dmin * rng.uniform(1.0, 1.8))
        gap = float(rng.uniform(0.5, 0.7) if fixed else rng.uniform(0.4, 0.6))
        gap = min(gap, (held - 0.02) / gain)
        phases = None if rng.random() < 0.5 else int(rng.integers(10, 15))
        need = max(2 * W, 10 * dwell) + (0 if phases is None else max(W, 10 * G) + 6 * dwell)
        start = max(start, env.unlock + curve_span(env) + 3 * dwell)  # the held stretch is no first high phase
        if L - start <= need or gap < 0.4:
            return False
        env.params.update(dwell=dwell, dmin=dmin, gap=gap, phases=phases)
        env.at = int(rng.uniform(start, L - need))
        env.event, env.variant = ev, variant
        return shrink(env, gap * gain / 5, [held, held - gap * gain]) or undo()
    if ev == "unexpected_transition":
        if not run.get("states"):
            return False
        back = float(rng.uniform(0.5, 1.5) * W)
        if free <= back + W:
            return False
        env.event, env.variant = ev, "revisit"
        env.at = int(rng.uniform(start, L - back - W))
        env.params["back_for"] = back
        return True
    if ev == "eval_gap":
        if env.enoise is None or not run.get("trains", True):
            return False
        g50 = max(50.0 / run["unit"], G)
        need = max(8 * g50, 2 * W) + 2 * G
        if free <= need:
            return False
        env.event, env.variant = ev, "stop"
        env.at = int(rng.uniform(start, L - need))
        return True
    return False


def place_negative(env: Env, run: dict, rng, heavy: tuple | None, heavy_eval: tuple | None, pool) -> None:
    W, G, L = env.W, env.G, run["L"]
    neg = str(rng.choice(list(pool)))
    g = grad_it(env)
    if neg == "noisy_healthy":
        if heavy is None:
            neg = "healthy"
        else:
            env.noise = heavy
            if env.enoise is not None and heavy_eval is not None:
                env.enoise = heavy_eval
    elif neg in ("single_outlier", "level_up", "drift"):
        if g is None or L - (g + max(W, 10 * G)) <= 4 * W or (neg == "single_outlier" and env.noise[0] == "bern"
                                                            and env.enoise is None):
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
                env.params.update(down=float(rng.uniform(0.04, 0.07)), ramp=float(rng.uniform(3, 6) * W))
    elif neg == "pause":
        env.curve = "pause"
        env.params.update(f1=float(rng.uniform(0.35, 0.6)), t1=float(rng.uniform(0.5, 1.0) * W),
                          pause=float(rng.uniform(1.0, 2.0) * W), t2=float(rng.uniform(0.5, 1.2) * W))
        gg = grad_it(env)
        if gg is None or gg + 2 * W > L:
            env.curve, neg = "exp", "healthy"
            for key in ("f1", "t1", "pause", "t2"):
                env.params.pop(key)
    elif neg == "late_healthy":
        unlock = int(rng.uniform(0.35, 0.55) * L)
        T = min(env.T, 0.25 * L)
        if unlock + T + 3 * W > L or T < 0.8 * W:
            neg = "healthy"
        else:
            env.unlock, env.T = unlock, T
    env.event = neg


def make_prolonged(env: Env, run: dict, rng) -> bool:
    W, L = env.W, run["L"]
    if L - env.unlock < 12.5 * W:
        return False
    env.event, env.variant, env.curve = "prolonged_training", "riser", "riser"
    slope = float(rng.uniform(0.045, 0.06)) / W
    env.params.update(slope=min(slope, 0.68 / max(L - env.unlock - 1, 1)), cap=0.68)
    env.at = env.unlock
    if env.kind == "plr":
        env.s0 = float(rng.uniform(0.0, 0.05))
    ok = shrink(env, 0.03, [env.s0, env.s0 + 0.7 * (env.s1 - env.s0)])
    if not ok:
        env.event, env.variant, env.curve, env.at = "healthy", "", "exp", None
    return ok


def plan_events(run: dict, rng, envs: list[Env], pool: list[str], neg_pool, heavy, heavy_eval, *, p_event: float,
                stall_ok, max_events: int | None = None, prolonged: bool = False) -> None:
    """Events on some envs, clean negatives on the rest; a prolonged riser first when asked (its siblings then learn
    within 3 W). stall_ok(env, envs) says whether one more stall keeps the run's scale readable."""
    n_ev = 0
    for k, env in enumerate(envs):
        if prolonged and k == 0:
            if make_prolonged(env, run, rng):
                n_ev += 1
                continue
        if (max_events is None or n_ev < max_events) and rng.random() < p_event:
            ev = str(rng.choice(pool))
            if ev == "training_stagnation" and not stall_ok(env, envs):
                ev = "graduated_regression"
            if place_event(env, ev, run, rng):
                n_ev += 1
                continue
        place_negative(env, run, rng, heavy(env) if callable(heavy) else heavy,
                       heavy_eval(env) if callable(heavy_eval) else heavy_eval, neg_pool)


def learners_ok(env: Env, envs: list[Env]) -> bool:
    """One more stall keeps at least 2 learners and at least as many learners as stalls (README's shared scale)."""
    stalls = sum(e.event in ("training_stagnation", "prolonged_training") for e in envs if e is not env)
    return stalls + 1 <= (len(envs) - stalls - 1) and len(envs) - stalls - 1 >= 2


# --------------------------------------------------------------------------- observations and labels

def logged_states(env: Env, L: int) -> np.ndarray:
    """0 locked, 1 active, 2 graduated per iteration (plus the revisit of an unexpected transition)."""
    it = np.arange(L)
    st = np.where(it < env.unlock, 0, 1)
    g = grad_it(env)
    if g is not None:
        st = np.where(it >= math.ceil(g), 2, st)
    if env.event == "unexpected_transition":
        st = np.where((it >= env.at) & (it < env.at + env.params["back_for"]), 1, st)
    return st


def observe(env: Env, run: dict, rng, s: np.ndarray, tr_it: np.ndarray, ev_it: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Skill-unit observations of the train and eval points (with a burst's scatter and a single outlier), and the
    skill each point was drawn around (for the burst onset)."""
    sk = np.where(np.isnan(s), env.s0, s)
    st, se = sk[tr_it].copy(), sk[ev_it].copy()
    if env.event == "performance_volatility" and env.variant == "burst":
        gain = env.s1 - env.s0
        lo, hi = env.at, env.at + env.params["length"]
        for arr, its in ((st, tr_it), (se, ev_it)):
            m = (its >= lo) & (its < hi)
            arr[m] = arr[m] - np.abs(rng.normal(0, env.params["bsd"] * gain, int(m.sum())))
        st, se = np.clip(st, 0, 1), np.clip(se, 0, 1)
    tr = draw(env.noise, st, rng)
    ev = draw(env.enoise, se, rng) if len(ev_it) else np.zeros(0)
    if env.event == "single_outlier":
        low = env.s0 + 0.05 * (env.s1 - env.s0)
        if len(ev_it):
            j = min(int(np.searchsorted(ev_it, env.at)), len(ev_it) - 1)
            ev[j] = round(low * env.enoise[1]) / env.enoise[1] if env.enoise[0] == "binom" else low
        else:
            j = min(int(np.searchsorted(tr_it, env.at)), len(tr_it) - 1)
            tr[j] = round(low * env.noise[1]) / env.noise[1] if env.noise[0] == "binom" else low
    return tr, ev, st, se


def make_label(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant or env.curve}", variant=env.variant,
                kind=env.kind, noise=str(env.noise[0]))


def label_for(env: Env, run: dict, d: dict, true_at: int | None) -> dict | None:
    """The env's label from its logged points (d: tr_it/tr_step, ev_it/ev_step, st/se the skill drawn around)."""
    if env.event not in EVENTS:
        return None
    its = np.concatenate([d["tr_it"], d["ev_it"]])
    steps = np.concatenate([d["tr_step"], d["ev_step"]])
    order = np.lexsort((steps,))
    its, steps = its[order], steps[order]
    if not len(steps):
        return None
    if env.event == "eval_gap":
        own = pace(d["ev_step_all"])
        return make_label(run, env, int(round(d["ev_step"][-1] + own)))
    if env.event == "prolonged_training":
        judged = d["tr_step"] if len(d["tr_step"]) else d["ev_step"]
        W_steps = window_steps(judged, run["span"])
        return make_label(run, env, int(round(steps[0] + 10 * W_steps)))
    if env.event == "unexpected_transition":
        sst, sit = d["state_step"], d["state_it"]
        back = np.flatnonzero((sit >= env.at) & (d["state_val"] == 1))
        return make_label(run, env, int(sst[back[0]])) if len(back) else None
    if env.event == "performance_volatility" and env.variant == "burst":
        gain = env.s1 - env.s0
        sd = max(point_sd(env.noise, env.s1), point_sd(env.enoise, env.s1) if env.enoise else 0.0)
        thr = max(0.15 * gain, 4 * sd)
        drawn = np.concatenate([d["st"], d["se"]])[order]
        off = np.flatnonzero((its >= env.at) & (its < env.at + env.params["length"]) & (env.s1 - drawn > thr))
        return make_label(run, env, int(steps[off[0]])) if len(off) else None
    t0 = env.unlock if env.variant == "never" else true_at
    ok = np.flatnonzero(its >= t0)
    return make_label(run, env, int(steps[ok[0]])) if len(ok) else None


def finish_run(run: dict) -> None:
    """The run's tolerance unit: max(median W / 10, median G) over its envs, in iterations."""
    Ws = [e.W for e in run["envs"]]
    Gs = [e.G for e in run["envs"]]
    run["W"] = float(np.median(Ws))
    run["G"] = float(np.median(Gs))
    run["Q"] = max(run["W"] / 10, run["G"])


def set_paces(env: Env, run: dict, tr_steps: np.ndarray, ev_steps: np.ndarray) -> None:
    """J, G, W of an env (iterations) from its full-run schedule (README's pace)."""
    U = run["unit"]
    judged = tr_steps if len(tr_steps) else ev_steps
    env.J = pace(judged) / U
    env.G = pace(ev_steps) / U if len(ev_steps) > 1 else env.J
    env.W = window_steps(judged, run["span"]) / U



# --------------------------------------------------------------------------- episode_outcomes

def plan_episodes(run: dict, rng) -> None:
    run.update(unit=512, L=int(rng.integers(260, 480)), states=bool(rng.random() < 0.4),
               evals=bool(rng.random() < 0.5), lam=float(rng.choice([0.6, 1.0, 1.6])))
    run["span"] = run["unit"] * (run["L"] - 1)
    L, U = run["L"], run["unit"]
    n = int(rng.integers(2, 5))
    run["eval_every"] = int(rng.integers(10, 21))
    n_eval = int(rng.integers(20, 51))
    s0r, s1r = float(rng.uniform(0.02, 0.1)), float(rng.uniform(0.88, 0.95))
    envs, sched = [], {}
    names = list(rng.permutation(TASKS)[:n])
    for k, name in enumerate(names):
        counts = rng.poisson(run["lam"], L)
        its = np.repeat(np.arange(L), counts)
        offs = rng.integers(0, U, len(its))
        steps = its * U + offs
        o = np.argsort(steps, kind="stable")
        its, steps = its[o], steps[o]
        ev_its = np.arange(run["eval_every"] - 1, L, run["eval_every"]) if run["evals"] else np.zeros(0, int)
        env = Env(str(name), "bern", 0, s0r + float(rng.uniform(0, 0.03)), s1r + float(rng.uniform(0, 0.03)),
                  "exp", 1.0, ("bern",), ("binom", n_eval) if run["evals"] else None)
        set_paces(env, run, steps, U * (ev_its + 1))
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        env.T = float(rng.uniform(0.8, 2.2) * env.W)
        env.unlock = 0 if k == 0 or rng.random() < 0.4 else int(rng.uniform(0.05, 0.2) * L)
        envs.append(env)
        sched[env.name] = (its, steps, ev_its)
    run["envs"], run["sched"] = envs, sched
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility"]
    if run["evals"]:
        pool.append("eval_gap")
    if run["states"]:
        pool.append("unexpected_transition")
    prolonged = n >= 2 and rng.random() < 0.3
    if prolonged:
        envs[0].unlock = 0
    plan_events(run, rng, envs, pool, ["healthy", "healthy", "single_outlier", "level_up", "drift", "pause",
                                       "late_healthy"], None, ("binom", 8), p_event=0.6,
                stall_ok=lambda e, es: True, prolonged=prolonged)
    finish_run(run)


def series_sched(run: dict, rng) -> tuple[dict, list[dict]]:
    """Per env: observations over its schedule (run["sched"]: train iterations, train steps, eval iterations)."""
    L, U = run["L"], run["unit"]
    data, labels = {}, []
    for env in run["envs"]:
        tr_it_all, tr_step_all, ev_it_all = run["sched"][env.name]
        s, true_at = truth(env, L, rng)
        keep = tr_it_all >= env.unlock
        tr_it, tr_step = tr_it_all[keep], tr_step_all[keep]
        ev_it = ev_it_all[ev_it_all >= env.unlock] if env.enoise is not None else np.zeros(0, int)
        ev_step_all = run["eval_step"](ev_it)
        if env.event == "eval_gap":
            ev_it = ev_it[ev_it <= env.at]
        ev_step = run["eval_step"](ev_it)
        tr, ev, st, se = observe(env, run, rng, s, tr_it, ev_it)
        d = {"tr_it": tr_it, "tr_step": tr_step, "ev_it": ev_it, "ev_step": ev_step, "ev_step_all": ev_step_all,
             "train": to_metric(env, tr, env.noise, rng, run),
             "eval": to_metric(env, ev, env.enoise, rng, run) if len(ev_it) else np.zeros(0),
             "st": st, "se": se, "s": s}
        if run.get("states"):
            st_it = np.arange(0, L, run.get("state_every", 1))
            res = run.get("resume")
            if res and res.get("kind") == "pause":  # nothing is logged in a pause, states neither
                st_it = st_it[(st_it < res["crash"]) | (st_it >= res["resume"])]
            d.update(state_it=st_it, state_step=run["state_step"](st_it), state_val=logged_states(env, L)[st_it])
        lab = label_for(env, run, d, true_at)
        if lab:
            labels.append(lab)
        data[env.name] = d
    return data, labels


def write_episodes(folder: Path, run: dict, data: dict, rng) -> None:
    from tensorboardX import SummaryWriter

    U = run["unit"]
    pts = []
    for name, d in data.items():
        for st, v in zip(d["tr_step"], d["train"]):
            pts.append((int(st), 0, f"train/{name}/success", float(v)))
            # the episode's length: shorter as the task is mastered (not the performance metric)
            pts.append((int(st), 1, f"train/{name}/episode_length", float(rng.integers(20, 200) if v < 0.5 else
                                                                              rng.integers(10, 80))))
        for st, v in zip(d["ev_step"], d["eval"]):
            pts.append((int(st), 2, f"eval/{name}/success", float(v)))
        if "state_step" in d:
            for st, v in zip(d["state_step"], d["state_val"]):
                pts.append((int(st), 3, f"curriculum/{name}/state", float(v)))
    pts.sort(key=lambda p: (p[0], p[1]))
    w = SummaryWriter(str(folder), flush_secs=3600)
    for st, _k, tag, v in pts:
        w.add_scalar(tag, v, st, walltime=1_700_000_000.0 + st / U * 2.0)
    w.close()


# --------------------------------------------------------------------------- plr_pool

def plan_plr(run: dict, rng) -> None:
    run.update(unit=int(rng.choice([8192, 16384])), states=False, evals=False, trains=True)
    n = int(rng.integers(24, 44))
    rho = float(rng.uniform(0.06, 0.14))
    # W ~ 20 / rho updates (a little less: README's pace of Poisson gaps); prolonged runs need 12.5 W
    L = int(rng.uniform(14, 18) / rho * 20 * 0.75)
    run["L"] = L
    run["span"] = run["unit"] * L
    U = run["unit"]
    run["eval_every"] = 0
    envs, sched = [], {}
    seeds = rng.choice(100000, n, replace=False)
    c_run = float(rng.uniform(0.9, 0.95))
    for k in range(n):
        w = float(rng.uniform(0.75, 1.3))
        rep = rng.random(L) < min(rho * w, 0.5)
        its = np.flatnonzero(rep)
        steps = U * (its + 1)
        m = int(rng.choice([1, 2]))
        env = Env(f"lvl_{int(seeds[k]):05d}", "plr", 0, float(rng.uniform(0.0, 0.06)),
                  float(rng.uniform(0.9, 0.98)), "exp", 1.0, ("plr", m), None)
        env.params["c"] = c_run + float(rng.uniform(0, 0.02))
        set_paces(env, run, steps, np.zeros(0))
        env.curve = str(rng.choice(["exp", "logistic", "sqrt"]))
        env.T = float(rng.uniform(0.8, 2.2) * env.W)
        env.unlock = 0 if rng.random() < 0.6 else int(rng.uniform(0.02, 0.35) * L)
        envs.append(env)
        sched[env.name] = (its, steps, np.zeros(0, int))
    run["envs"], run["sched"] = envs, sched
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "training_stagnation",
            "performance_volatility"]
    plan_events(run, rng, envs, pool, ["healthy", "healthy", "healthy", "late_healthy", "pause"], None, None,
                p_event=0.2, max_events=5, stall_ok=learners_ok, prolonged=rng.random() < 0.4)
    finish_run(run)


def write_plr(folder: Path, run: dict, data: dict, rng) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import writers

    U, L = run["unit"], run["L"]
    rows: dict[int, dict] = {}
    for name, d in data.items():
        for st, v in zip(d["tr_step"], d["train"]):
            rows.setdefault(int(st), {})[f"train/{name}/reward"] = float(v)
    steps = sorted(rows)
    out = []
    for k, st in enumerate(steps):
        row = rows[st]
        row["plr/buffer_size"] = float(sum(1 for e in run["envs"] if e.unlock * U < st))
        row["plr/mean_score"] = float(np.mean(list(v for key, v in row.items() if key.startswith("train/"))))
        row["plr/replay_decision"] = float(rng.random() < 0.5)
        out.append(row)
    writers.write_wandb(folder / "wandb", out, steps=steps, run_id=run["trial_id"], name=run["name"])


# --------------------------------------------------------------------------- mixed_suite

def plan_suite(run: dict, rng) -> None:
    unit = int(rng.choice([1, 100]))
    E = int(rng.integers(5, 21))
    # room for an event after graduation + max(W, 10 G) and its max(2 W, 15 G): 30..45 evals at least
    L = int(max(rng.integers(320, 720), rng.uniform(30, 45) * E))
    run.update(unit=unit, L=L, states=bool(rng.random() < 0.5), evals=True, trains=True)
    run["span"] = unit * (run["L"] - 1)
    run["eval_every"] = E
    n = int(rng.integers(3, 7))
    n_kinds = int(rng.integers(2, min(4, n) + 1))
    kinds = list(rng.choice(["rate", "pct", "ret_neg", "ret_pos", "steps", "cost"], n_kinds, replace=False))
    kinds += list(rng.choice(kinds, n - n_kinds))
    names = list(rng.permutation(SUITE_NAMES)[:n])
    envs, sched = [], {}
    tr_it = np.arange(L)
    ev_it = np.arange(0, L, E)
    for name, kind in zip(names, kinds):
        env = Env(f"{name}-{SUITE_SUFFIX[kind]}", kind, 0, float(rng.uniform(0.02, 0.08)),
                  float(rng.uniform(0.9, 0.97)), "exp", 1.0, ("gauss", 0.02))
        if kind == "rate":
            env.noise, env.enoise = ("binom", int(rng.choice([16, 32, 64, 128]))), ("binom", int(rng.choice([64, 128, 256])))
        elif kind == "pct":
            if rng.random() < 0.4:
                env.noise, env.enoise = ("near", float(rng.uniform(0.001, 0.003))), ("near", float(rng.uniform(0.001, 0.003)))
            else:
                env.noise, env.enoise = ("binom", int(rng.integers(50, 401))), ("binom", int(rng.integers(100, 401)))
        elif kind in ("ret_neg", "ret_pos"):
            fam = str(rng.choice(["gauss", "t3"]))
            env.noise, env.enoise = (fam, float(rng.uniform(0.01, 0.04))), (fam, float(rng.uniform(0.01, 0.03)))
        elif kind == "steps":
            env.noise, env.enoise = ("lognorm", float(rng.uniform(0.02, 0.06)), 0.0), ("lognorm", float(rng.uniform(0.02, 0.05)), 0.0)
        else:  # cost
            if rng.random() < 0.4:
                env.noise, env.enoise = ("near", float(rng.uniform(0.001, 0.003))), ("near", float(rng.uniform(0.001, 0.003)))
            else:
                env.noise, env.enoise = ("gauss", float(rng.uniform(0.01, 0.03))), ("gauss", float(rng.uniform(0.01, 0.03)))
        fix_lognorm(env)
        set_paces(env, run, unit * tr_it, unit * ev_it)
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        env.T = float(rng.uniform(0.8, 2.2) * env.W)
        envs.append(env)
        sched[env.name] = (tr_it, unit * tr_it, ev_it)
    for k, env in enumerate(envs):
        if k and rng.random() < 0.4:
            env.unlock = int(rng.uniform(0.05, 0.2) * L)
    run["envs"], run["sched"] = envs, sched
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility", "eval_gap"]
    if run["states"]:
        pool.append("unexpected_transition")

    def heavy(env):
        return {"rate": ("binom", 8), "pct": ("binom", 10)}.get(env.kind, ("gauss", float(rng.uniform(0.08, 0.12))))

    # a stall only on a rate (README: a rate stalls against [0, 1]; the others' siblings are on other scales)
    plan_events(run, rng, envs, pool, ["healthy", "noisy_healthy", "single_outlier", "level_up", "drift", "pause",
                                       "late_healthy"], heavy, heavy,
                p_event=0.6, stall_ok=lambda e, es: e.kind == "rate", prolonged=rng.random() < 0.3)
    for env in envs:
        fix_lognorm(env)
    finish_run(run)


def fix_lognorm(env: Env) -> None:
    """A log-normal metric's relative sd in skill units at its worst level (its largest value)."""
    for attr in ("noise", "enoise"):
        nz = getattr(env, attr)
        if nz is not None and nz[0] == "lognorm":
            a, b = KINDS[env.kind]
            setattr(env, attr, ("lognorm", nz[1], abs(a) / abs(b)))


def write_suite(folder: Path, run: dict, data: dict, rng) -> None:
    from tensorboardX import SummaryWriter

    pts = []
    for name, d in data.items():
        for st, v in zip(d["tr_step"], d["train"]):
            pts.append((int(st), 0, f"suite/{name}/train", float(v)))
        for st, v in zip(d["ev_step"], d["eval"]):
            pts.append((int(st), 1, f"suite/{name}/eval", float(v)))
        if "state_step" in d:
            for st, v in zip(d["state_step"], d["state_val"]):
                pts.append((int(st), 2, f"suite/{name}/stage", float(v)))
    pts.sort(key=lambda p: (p[0], p[1]))
    w = SummaryWriter(str(folder), flush_secs=3600)
    for st, _k, tag, v in pts:
        w.add_scalar(tag, v, st, walltime=1_700_000_000.0 + st / run["unit"])
        if _k == 1 and rng.random() < 0.02:  # a run-level key now and then
            w.add_scalar("optim/lr", 3e-4, st, walltime=1_700_000_000.0 + st / run["unit"])
    w.close()


# --------------------------------------------------------------------------- evaldense_regret

def plan_regret(run: dict, rng) -> None:
    unit = int(rng.choice([10, 1000]))
    trains = bool(rng.random() < 0.7)
    E = int(rng.choice([1, 2]))
    K = int(rng.choice([5, 10, 20]))
    # the window is 20 training points (or 20 evals when only evals are logged): a run of 9..14 windows
    L = int(rng.uniform(9, 14) * 20 * (K if trains else E))
    L = max(L, int(rng.integers(400, 700)))
    run.update(unit=unit, L=L, states=bool(rng.random() < 0.4), evals=True, trains=trains,
               R=float(rng.choice([2.0, 10.0, 50.0, 200.0])))
    run["span"] = unit * (run["L"] - 1)
    run["eval_every"], run["train_every"] = E, K
    n = int(rng.integers(2, 6))
    tr_it = np.arange(0, L, K) if trains else np.zeros(0, int)
    ev_it = np.arange(0, L, E)
    envs, sched = [], {}
    s0r, s1r = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.9, 0.95))
    for k, name in enumerate(rng.permutation(REGRET_ENVS)[:n]):
        fam = str(rng.choice(["gauss", "gauss", "near", "t3"]))
        sd = float(rng.uniform(0.001, 0.003)) if fam == "near" else float(rng.uniform(0.01, 0.04))
        env = Env(str(name), "regret", 0, s0r + float(rng.uniform(0, 0.04)), s1r + float(rng.uniform(0, 0.04)),
                  "exp", 1.0, (fam, sd), (fam, sd * float(rng.uniform(0.5, 1.0))))
        set_paces(env, run, unit * tr_it, unit * ev_it)
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        env.T = float(rng.uniform(0.8, 2.2) * env.W)
        env.unlock = 0 if k == 0 or rng.random() < 0.5 else int(rng.uniform(0.03, 0.15) * L)
        envs.append(env)
        sched[env.name] = (tr_it, unit * tr_it, ev_it)
    run["envs"], run["sched"] = envs, sched
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility", "eval_gap"]
    if run["states"]:
        pool.append("unexpected_transition")
    run["resume"] = None
    if rng.random() < 0.4:
        crash = int(rng.uniform(0.4, 0.8) * L)
        run["resume"] = {"crash": crash, "ckpt": int(crash - rng.uniform(0.05, 0.2) * L)}
    plan_events(run, rng, envs, pool, ["healthy", "noisy_healthy", "single_outlier", "drift", "pause",
                                       "late_healthy"],
                lambda e: ("gauss", float(rng.uniform(0.08, 0.12))), lambda e: ("gauss", float(rng.uniform(0.06, 0.1))),
                p_event=0.6, stall_ok=learners_ok, prolonged=n >= 3 and rng.random() < 0.3)
    finish_run(run)


def write_regret(folder: Path, run: dict, data: dict, rng) -> None:
    """One SummaryWriter, or (resumed) a first one that dies at `crash` and a second one an hour later that rewrites
    from `ckpt` on with new noise (the job re-ran those iterations from its checkpoint)."""
    from tensorboardX import SummaryWriter

    pts = []
    for name, d in data.items():
        if name.startswith("__"):
            continue
        for it, st, v in zip(d["tr_it"], d["tr_step"], d["train"]):
            pts.append((int(st), 0, int(it), f"train/{name}/regret", float(v)))
        for it, st, v in zip(d["ev_it"], d["ev_step"], d["eval"]):
            pts.append((int(st), 1, int(it), f"eval/{name}/regret", float(v)))
        if "state_step" in d:
            for it, st, v in zip(d["state_it"], d["state_step"], d["state_val"]):
                pts.append((int(st), 2, int(it), f"curriculum/{name}/state", float(v)))
    pts.sort(key=lambda p: (p[0], p[1]))
    res = run.get("resume")
    if not res:
        w = SummaryWriter(str(folder), flush_secs=3600)
        for st, _k, it, tag, v in pts:
            w.add_scalar(tag, v, st, walltime=1_700_000_000.0 + it * 5.0)
        w.close()
        return
    crash, ckpt = res["crash"], res["ckpt"]
    first_noise = data["__first__"]
    w = SummaryWriter(str(folder), flush_secs=3600)
    for st, _k, it, tag, v in pts:
        if it >= crash:
            break
        if it >= ckpt and tag in first_noise and it in first_noise[tag]:
            v = first_noise[tag][it]  # the first attempt's value, rewritten later
        w.add_scalar(tag, v, st, walltime=1_700_000_000.0 + it * 5.0)
    w.close()
    w = SummaryWriter(str(folder), flush_secs=3600, filename_suffix=".resumed")
    for st, _k, it, tag, v in pts:
        if it >= ckpt:
            w.add_scalar(tag, v, st, walltime=1_700_000_000.0 + crash * 5.0 + 3600.0 + (it - ckpt) * 5.0)
    w.close()


def series_regret(run: dict, rng) -> tuple[dict, list[dict]]:
    data, labels = series_sched(run, rng)
    res = run.get("resume")
    if res:  # the first attempt's values over the rewritten stretch: the same truth, other noise
        first: dict[str, dict[int, float]] = {}
        for env in run["envs"]:
            d = data[env.name]
            for split, noise, its, drawn in (("train", env.noise, d["tr_it"], d["st"]),
                                             ("eval", env.enoise, d["ev_it"], d["se"])):
                m = (its >= res["ckpt"]) & (its < res["crash"])
                if m.any():
                    vals = to_metric(env, draw(noise, drawn[m], rng), noise, rng, run)
                    first[f"{split}/{env.name}/regret"] = dict(zip(its[m].tolist(), vals.tolist()))
        data["__first__"] = first
    return data, labels


# --------------------------------------------------------------------------- pct_resumed

def plan_pct(run: dict, rng) -> None:
    unit = int(rng.choice([1, 8]))
    E = int(rng.integers(8, 21))
    L = int(max(rng.integers(320, 720), rng.uniform(32, 45) * E))
    run.update(unit=unit, L=L, states=bool(rng.random() < 0.4), evals=True, trains=True)
    run["span"] = unit * (run["L"] - 1)
    run["eval_every"] = E
    # jittered evals: each eval lands within +-30 % of its nominal iteration
    ev_it = np.unique(np.clip(np.arange(E, L, E) + rng.integers(-int(0.3 * E), int(0.3 * E) + 1, len(range(E, L, E))),
                              0, L - 1))
    n = int(rng.integers(2, 7))
    res = None
    if rng.random() < 0.6:
        crash = int(rng.uniform(0.3, 0.7) * L)
        if rng.random() < 0.5:
            res = {"kind": "overlap", "crash": crash, "resume": crash - int(rng.integers(3, 31))}
        else:
            res = {"kind": "pause", "crash": crash, "resume": crash + int(rng.uniform(0.05, 0.12) * L)}
    run["resume"] = res
    tr_it = np.arange(L)
    if res and res["kind"] == "pause":
        gap = (tr_it >= res["crash"]) & (tr_it < res["resume"])
        tr_it = tr_it[~gap]
        ev_it = ev_it[~((ev_it >= res["crash"]) & (ev_it < res["resume"]))]
    envs, sched = [], {}
    s0r, s1r = float(rng.uniform(0.02, 0.12)), float(rng.uniform(0.86, 0.94))
    for k, name in enumerate(rng.permutation(PUZZLES)[:n]):
        if rng.random() < 0.25:
            noise, enoise = ("near", float(rng.uniform(0.001, 0.003))), ("near", float(rng.uniform(0.001, 0.003)))
        else:
            noise, enoise = ("binom", int(rng.choice([16, 32, 64]))), ("binom", int(rng.choice([100, 200, 400])))
        env = Env(str(name), "pct", 0, s0r + float(rng.uniform(0, 0.04)), s1r + float(rng.uniform(0, 0.04)),
                  "exp", 1.0, noise, enoise)
        set_paces(env, run, unit * tr_it, unit * ev_it)
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        env.T = float(rng.uniform(0.8, 2.2) * env.W)
        env.unlock = 0 if k == 0 or rng.random() < 0.5 else int(rng.uniform(0.03, 0.15) * L)
        envs.append(env)
        sched[env.name] = (tr_it, unit * tr_it, ev_it)
    run["envs"], run["sched"] = envs, sched
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility", "eval_gap"]
    if run["states"]:
        pool.append("unexpected_transition")
    plan_events(run, rng, envs, pool, ["healthy", "noisy_healthy", "single_outlier", "level_up", "drift", "pause",
                                       "late_healthy"], ("binom", 8), ("binom", 12),
                p_event=0.6, stall_ok=learners_ok, prolonged=n >= 3 and rng.random() < 0.3)
    finish_run(run)


def write_pct(folder: Path, run: dict, data: dict, rng) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import writers

    U, L = run["unit"], run["L"]
    words = {0: "locked", 1: "active", 2: "graduated"}
    rows: dict[int, dict] = {}
    for name, d in data.items():
        for it, v in zip(d["tr_it"], d["train"]):
            rows.setdefault(int(it), {})[f"puzzles/{name}/train_solved_pct"] = float(v)
        for it, v in zip(d["ev_it"], d["eval"]):
            rows.setdefault(int(it), {})[f"puzzles/{name}/eval_solved_pct"] = float(v)
        if "state_it" in d:
            for it, v in zip(d["state_it"], d["state_val"]):
                rows.setdefault(int(it), {})[f"puzzles/{name}/status"] = words[int(v)]
    res = run.get("resume")
    its = sorted(rows)
    for it in its:
        rows[it]["optim/lr"] = 1e-4
    if res and res["kind"] == "pause":
        its = [it for it in its if not (res["crash"] <= it < res["resume"])]
    if not res:
        writers.write_wandb(folder / "wandb", [rows[i] for i in its], steps=[U * i for i in its],
                            run_id=run["trial_id"], name=run["name"])
        return
    first = [i for i in its if i < res["crash"]]
    rows_first = []
    for i in first:
        row = dict(rows[i])
        if i >= res["resume"]:  # overlap: the first attempt's values there, other noise (rewritten later)
            for key in list(row):
                if key.endswith("_solved_pct"):
                    row[key] = float(np.clip(row[key] + rng.normal(0, 1.0), 0, 100))
        rows_first.append(row)
    writers.write_wandb(folder / "wandb", rows_first, steps=[U * i for i in first], run_id=run["trial_id"],
                        name=run["name"], stamp="20260101_000000")
    second = [i for i in its if i >= res["resume"]]
    writers.write_wandb(folder / "wandb", [rows[i] for i in second], steps=[U * i for i in second],
                        run_id=run["trial_id"], name=run["name"], stamp="20260101_060000")


# --------------------------------------------------------------------------- build

def _steps_of(run: dict) -> None:
    U = run["unit"]
    conv = run["convention"]
    if conv == "episode_outcomes":
        run["eval_step"] = lambda its: (U * (np.asarray(its) + 1)).astype(np.int64)
        run["state_step"] = lambda its: (U * np.asarray(its)).astype(np.int64)
        run["state_every"] = 5
    else:
        run["eval_step"] = lambda its: (U * np.asarray(its)).astype(np.int64)
        run["state_step"] = lambda its: (U * np.asarray(its)).astype(np.int64)
        run["state_every"] = 1


PLANNERS = {"episode_outcomes": (plan_episodes, series_sched, write_episodes),
            "plr_pool": (plan_plr, series_sched, write_plr),
            "mixed_suite": (plan_suite, series_sched, write_suite),
            "evaldense_regret": (plan_regret, series_regret, write_regret),
            "pct_resumed": (plan_pct, series_sched, write_pct)}


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)
    plans = []
    for i in range(n_runs):
        conv = CYCLE[i % len(CYCLE)]
        run = dict(name=f"e{i:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        run["trial_id"] = f"{zlib.crc32(f'eighth-{seed}-{i}'.encode()) & 0xFFFFFF:06x}"
        PLANNERS[conv][0](run, rng)
        _steps_of(run)
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
        meta = {k: v for k, v in run.items() if k not in ("envs", "sched", "eval_step", "state_step")}
        meta.update(tolerance_unit=int(round(run["Q"] * U)), window_steps=run["W"] * U,
                    eval_every=int(round(run["G"] * U)))
        meta["envs"] = [{"name": e.name, "kind": e.kind, "event": e.event, "variant": e.variant, "curve": e.curve,
                         "severity": e.severity, "noise": list(e.noise),
                         "eval_noise": list(e.enoise) if e.enoise else None, "unlock": e.unlock, "T": e.T,
                         "at": e.at, "s0": e.s0, "s1": e.s1, "J": e.J, "G": e.G, "W": e.W,
                         "graduated_it": grad_it(e), "params": e.params} for e in run["envs"]]
        (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=float))
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir():
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps(labels, indent=1))
    (root / "DONE").write_text("")
    return labels
