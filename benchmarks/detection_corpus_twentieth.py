"""The twentieth detection corpus (`python benchmarks/detection.py --corpus twentieth`): written by a helper from the
user-facing contract only (README's rule table, key profiles, user profiles, `step_key` and `count_metric`, metric
direction, what a rate is, logging shapes, the noise section, what `unknown` means; log-conventions.md; the other
corpora's label conventions and tests/writers.py), without reading the rules' or the analysis code, and without
looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentieth-<VERSION>-<n>runs-s<seed>, never in the repo; 60
runs a seed cycling through CYCLE (10 legged, 20 grpo_val, 10 craftax, 20 minihack), one group folder per convention
with its curriwatch.yaml (a user profile each: none of these frameworks has a built-in profile). Chosen for what the
nineteen other corpora cover least: a LEGGED ROBOT TERRAIN CURRICULUM (rsl_rl/legged_gym: train-only, one point per
PPO iteration, the tracking reward of the robots that reset in it, split per terrain type, NaN where none of a type
reset, a run-level series on a second (wall-clock) step axis in the same event file); VERL VALIDATION PER DATA SOURCE
(eval-only LLM-RL accuracies keyed `val-core/{data_source}/acc/mean@{n}` whose env ids hold `/`, on a fixed problem
set: greedy decoding or n samples a problem, noise below a binomial's because problems differ in difficulty; a
curriculum sampler's states in half the runs, locked sources evaluated all along); CRAFTAX ACHIEVEMENTS (22
per-achievement percentages from one W&B run logged WITHOUT `step=`, every point a share of the episodes that ended in
that PPO update — fewer as agents live longer — some achievements never unlocked, some found late); and MINIHACK TASKS
through torchbeast's FileWriter CSV (a row per learner batch, each task's mean return over the few episodes of it that
ended in the batch, empty when none did, columns that appear in `fields.csv` when a task unlocks, the real step in a
`step` column):

  legged     tensorboardX as rsl_rl's OnPolicyRunner writes it (leggedrobotics/rsl_rl@v1.0.2,
             rsl_rl/runners/on_policy_runner.py:86 a SummaryWriter per run, :144-177 `log`: every key of the episode
             infos as `Episode/{key}` at the iteration `it`, then `Loss/value_function|surrogate|learning_rate`,
             `Policy/mean_noise_std`, `Perf/*`, `Train/mean_reward`, `Train/mean_episode_length` at `it` and their
             `/time` copies at the accumulated seconds; written here: the Loss and Policy keys, `Perf/total_fps`,
             `Train/mean_reward`, `Train/mean_episode_length` and `Train/mean_reward/time`), in legged_gym's
             `logs/{experiment}/{%b%d_%H-%M-%S}_{run_name}/` (leggedrobotics/legged_gym@8fa29ac,
             legged_gym/utils/task_registry.py:139-140). legged_gym fills the episode infos at each reset with
             `rew_{term}` = the reset robots' mean episode sum / `max_episode_length_s` (legged_robot.py:177-183; the
             reward scales are multiplied by dt, so a robot that tracks its velocity command for the whole 20 s
             episode scores 1 on `rew_tracking_lin_vel`) and `terrain_level`; terrain types are columns
             (`terrain_proportions` [0.1, 0.1, 0.35, 0.25, 0.2], legged_robot_config.py:58-64; utils/terrain.py:
             84-140 smooth and rough slopes, stairs up and down, discrete obstacles, stepping stones, gaps, pits),
             robots are assigned to a type by column (legged_robot.py:709-713), 4,096 robots (config :35), 24 steps
             a robot an iteration (config :233). The user splits the episode infos per terrain type
             (`rew_tracking_lin_vel/{type}`, `terrain_level/{type}`); a type with no
             reset in an iteration gives NaN (the mean of no robots), which rsl_rl writes as is. 1,000..2,000
             iterations (max_iterations 1500, config :234); 4..6 types; in 60 % a type curriculum
             that unlocks the harder types in a second wave (no robot on a locked type: no points). A user profile
             claims `Episode/{rew_*|terrain_level}/{type}` (split train; performance `rew_tracking_lin_vel`).
             TRAIN ONLY. Noise: the mean over the k robots of the type that reset (k Poisson, robots x 24 /
             episode length, episodes 50 steps long at first and 1,000 once they walk), sd 0.12..0.2 a robot, plus a
             slow AR(1) wander (phi 0.6..0.9, up to 0.4 of the top's point sd): very light (gain / sd 15..60).
  grpo_val   one W&B OFFLINE run as verl's Tracking logs it (volcengine/verl@b178a3c, verl/utils/tracking.py:162-165
             `log(data, step)`): validation before training at step 0 (verl/trainer/ppo/ray_trainer.py:1330-1334),
             then every `test_freq` (5, 10 or 20) global steps and at the last (:1621-1630), merged into that step's
             training metrics; per data source `val-core/{data_source}/acc/mean@{n}` (:680-697: the core variable is
             `acc` when the reward function returns it, as math_dapo's does with `score` = +1 / -1, verl/utils/
             reward_score/math_dapo.py:262-271), `val-aux/{data_source}/{score,reward}/mean@{n}` and, with n > 1,
             `acc/std@{n}`, `acc/best@{n}/mean`, `acc/maj@{n}/mean` (verl/trainer/ppo/metric_utils.py:511-642);
             run-level `critic/score/mean`, `actor/entropy`, `actor/kl_loss`, `actor/pg_clipfrac`,
             `response_length/mean`, `timing_s/step` every step (unclaimed). Decoding: greedy (the default val_kwargs
             n: 1, do_sample: False, verl/trainer/config/rollout/rollout.yaml:132-151) in half the runs, else n = 4,
             8 or 16 samples. Data sources (env ids holding `/`): `openai/gsm8k`, `countdown/3num`,
             `knights-knaves/5ppl`, `math/level_3`, ... 100..400 evals (500..3,000 steps). A fixed set of N =
             128..500 problems a source, problem difficulties spread (a problem's chance sigma(theta - d_i), greedy:
             Phi((theta - d_i) / tau), tau 0.3..0.8); the skill sets theta so that the set's mean chance is E(s): a
             point is the mean over
             the problems of Binomial(n, q_i) / n, on a 1 / (n N) lattice, its sd sqrt(sum q(1 - q) / n) / N — under a
             binomial's over n N when difficulties differ. In half the runs a curriculum sampler logs
             `curriculum/{data_source}/state` 0/1/2 at every step and unlocks sources in 1..3 waves; the validation
             set is fixed, so a locked source is evaluated from step 0, at its base accuracy (E0) until it unlocks.
             EVAL ONLY (verl logs no per-source training accuracy). A user profile claims the three.
  craftax    one W&B OFFLINE run as Craftax_Baselines' ppo.py logs it (MichaelTMatthews/Craftax_Baselines@7ce36fa):
             per PPO update the info means weighted by `returned_episode` (ppo.py:448-451), handed to
             `batch_log` by a `jax.debug.callback` (ppo.py:581-592), which drops NaN values and logs the keys whose
             name holds "achievements" as one-element arrays (`np.array(agg)`, logz/batch_logging.py:38-66) and calls
             `wandb.log(agg_logs)` WITHOUT `step=` (:83): W&B's `_step` is the row counter, one row an update (the
             first two updates, in which no episode ended, log an empty row and a row of `sps` alone: `sps` is
             added from the second log on).
             Craftax-Classic's info holds `Achievements/{name}` = 100 if the ending episode unlocked it
             (MichaelTMatthews/Craftax@c3c2e0d, craftax/craftax_classic/envs/common.py:5-12), its 22 achievements
             (craftax_classic/constants.py:109-131), so a point is the percent of the episodes that ended in the
             update that unlocked it: 100 Binomial(k, s) / k, k Poisson(NUM_ENVS x 64 / episode length), the same k
             for every achievement of a row; episodes lengthen from ~150 steps to 950..2,650 as the agent learns to
             survive, so k falls from hundreds to a few dozen (NUM_ENVS 1,024 — ppo.py:671-674 — 2,048 or 4,096).
             1,200..2,500 updates. Tiers: 12 easy achievements learned fast to the run's top (90..97 %), 6 middle ones
             learned slower, 4 hard ones (iron, diamond) in 75 % never unlocked (exactly 0 %), found late, stalled low
             or rising slowly, else learned late or slowly. A user profile claims `Achievements/{name}` (metric
             `achieved`, split train); the run-level `episode_return`, `episode_length`, `achievements`, `sps` stay
             unclaimed. TRAIN ONLY.
  minihack   torchbeast's FileWriter as MiniHack's polybeast learner uses it (facebookresearch/minihack@09eaa7e,
             minihack/agent/polybeast/polybeast_learner.py:424-494: `stats["step"]` += unroll_length x batch_size
             (80 x 32, config.yaml:68-71), `mean_episode_return` over the episodes that ended in the batch, None —
             an empty CSV cell — when none did, a row only when at least one episode ended; core/file_writer.py:174-204
             as in facebookresearch/torchbeast@0af07b0 torchbeast/core/file_writer.py:175-: `_tick`, `_time`,
             fieldnames grow as keys appear, each growth a line of fields.csv, `# fields` written at tick 0; meta.json
             and out.log beside). The user's multi-task extension adds per task `mean_episode_return/{task}`,
             `mean_episode_step/{task}` and `num_episodes/{task}` (None when no episode of the task ended), and in
             40 % `curriculum/{task}/state` 0/1/2 for every task at every row; the `stats` dict persists, so a task's
             keys appear (a new fields.csv line) when it unlocks and stay. Rewards as the config's (:49-53: win 1, lose
             0, -0.001 a step): a task's episode returns are 1 - 0.001 x length on success, -0.001 x length on a
             timeout or a death. 2,000..5,000 rows (5e6..1.3e7 steps); 4..8 tasks unlocked in 1..3 waves; the 256
             actors shared among the unlocked tasks, so a task has k ~ Poisson(2,560 / (active tasks x episode
             length)) episodes a row: 1..3 while it fails (long timeouts), dozens once it solves (short episodes);
             rows where k = 0 leave its cells empty. A user profile claims `mean_episode_return|mean_episode_step|
             num_episodes/{task}` (split train, `count_metric: num_episodes`, `step_key: step`) and the states.
             TRAIN ONLY; HEAVY, BIMODAL noise (the mean of a handful of success / failure returns).

Truth. Each env has a skill curve s in [0, 1] on its run's iteration grid (iteration = PPO iteration, global step,
update, learner batch), from its unlock: a learner goes from s0 to s1 over T iterations (exp, logistic, sqrt or linear;
T 0.8..2.5 W) and is flat at s1 after; a LATE LEARNER (a clean negative) first stays at s0 for 1..2 W. The EXPECTED
judged value is E(s) = A + (B - A) s (legged, grpo_val: A 0, B 1; craftax: A 0, B 100; minihack: per task, A = the mean
failure return, B = the mean success return). E0 = E(s0), E1 = E(s1); fractions of the gain are of E1 - E0. The envs of
a run share one scale (s0 within 0.02 of the run's, s1 within 0.015), except craftax's hard tier (s0 = 0) and minihack
(per-task A and B).
  J  pace               the env's judged series' logging pace in steps (README's: the median interval when regular,
                        else the mean of the intervals under 3x it)
  W  stagnation window  max(min(100 steps, 10 % of the run's span), 20 J), in steps (per env for labels; planning uses
                        the convention's planned pace)
  G  eval interval      grpo_val only: the median interval between evals (test_freq)
  Q  tolerance unit     the coarsest env of the run: max over its envs of max(W / 10, G, or J where not evaluated), in
                        steps = `tolerance_unit` in plan.json; a detection matches a label within 2 Q (the scorer)
"Graduated" (truth) = E has reached E0 + 0.9 (E1 - E0) and then held max(0.3 W, 3 G) more iterations; logged states go
to 2 there.

In a run the first two envs are clean learners from step 0; each later env carries an event with probability 0.65 (up
to 3 draws from the pool until one fits, else a clean negative; at most two prolonged risers a run), and at least half
the envs (and two) learn to the top. Craftax by tier (CRAFTAX_FATES): an easy achievement whose rate can move once
learned (food, water, sleep, plants, zombies) carries an event in 25 % (at most two a run), a middle one in 30 %, a hard
one in 75 %; the others are clean negatives.

Labels (onset in steps; "first point" = the env's first logged finite point of the judged metric at or after the
event's true start; an env carries at most one label):
  graduated_regression   after graduation + max(W, 10 G): sudden or gradual (straight ramp in s over 0.5..1.5 W) fall
                         to keep 0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W, 15 G)
                         left). Onset = first point at which E keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W; craftax's never-unlocked achievements
                         at exactly 0), onset = its first point; freeze: a linear rise over >= max(0.4 W, 6 J) to
                         0.2..0.5
                         of the gain, then flat and active >= 5 W to the end; onset = first point of the flat; late
                         discovery (craftax, minihack): flat at s0 for 5..7 W from activation, then a normal learner
                         (a stall README's 4 windows and more long that progress ended), onset = its first point
  performance_volatility after graduation + max(W, 10 G): burst (max(W, 20 G) iterations of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 G); onset = first point whose expected
                         value
                         is off by > max(0.15 gain, 4 sd of one point)); switch (Markov: s1 and s1 - 0.4..0.6 gain,
                         dwells of D..3 D, D = max(4 J, 4 G; 8 points in craftax, 12 in minihack), >= 9 phases, to the
                         end; onset = first point of the first low phase); lifelong oscillation of an env that never
                         learns (sinus in s from activation, mid 0.35..0.55 of the gain, peak-to-peak 0.45..0.7 of it,
                         period 8..16 judged points, >= 4 periods; onset = its first point)
  unexpected_transition  logged states (grpo_val, minihack): after graduation + margin the state goes back to 1 for
                         0.5..1.5 W, then 2 again; onset = the first logged state point with the backward value
  eval_gap               grpo_val: after graduation + margin the source is dropped from the validation set (its keys
                         stop, >= max(5 x max(50 steps, G), 2 W) left) while the run goes on; onset = last eval + G
  prolonged_training     a steady riser, LINEAR IN E (0.62 of the gain over its whole active life of 12.5..18 W —
                         README's stall test asks a window's rise to add up to half of min_delta —, active to the end;
                         from the first point, or, in runs with a type curriculum or logged states, unlocked 12.5..15 W
                         before the end; none in minihack, whose noise hides a slow rise from any window); onset = its
                         first point + 10 W (its own W, in steps)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (legged: a type with 5..10 % of the
robots; grpo_val: a source of 30..60 problems; minihack: a task whose successes take 3..5x longer, fewer episodes a row;
gain >= 5 sd), slow_learner (graduates within 4..6 W), late_learner (flat at s0 for 1..2 W, then a normal learner),
level_shift (+0.04..0.06 gain after graduation, where there is room), single_outlier (one point at s0 + 0.05 gain after
graduation; craftax: none — its points are shares of many episodes), locked_eval (grpo_val with states: evaluated at its
base for >= 2 W while locked, then a normal learner).

Noise and visibility (sd of one point in the metric's units at every level an event visits; minihack: of a mean of 5
of its points — a single point is the mean of 1..3 episodes while a task fails; noise is made quieter — more robots of
the type, a bigger problem set — until it holds, else the event is not planted): regression drop >= 4 sd; stall rise
>= 5 sd and a never-learner's gap to the top >= 6 sd; switching gap >= 5 sd; oscillation peak-to-peak >= 6 sd; burst
base sd <= burst sd / 4; prolonged riser: its rise over a window >= 4 standard errors of a line's slope fitted to the
window's points (sd <= rise x sqrt(points / 12) / 4); healthy gain >= 8 sd (noisy >= 5).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - a never-unlocked Craftax achievement (exactly 0 % all run, beside achievements learned to 90 % +) is a stalled env,
    and so is one unlocked only after 5..7 windows at 0 %;
  - a locked source of a fixed validation set, evaluated at its base accuracy while its logged state is 0, is not
    stalled there: its stagnation and its prolonged training count from its activation;
  - NaN points (no robot of the type reset) and empty CSV cells are missing points, not values.
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
SMALL_RUNS = 4
CYCLE = ("legged", "grpo_val", "craftax", "minihack", "grpo_val", "minihack")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "legged": """\
profiles:
  legged_terrain:
    patterns:
      - {regex: '^Episode/(?P<metric>rew_[a-z_]+|terrain_level)/(?P<env>[a-z_]+)$', split: train}
    performance_metric: rew_tracking_lin_vel
""",
    "grpo_val": """\
profiles:
  verl_val:
    patterns:
      - {regex: '^val-core/(?P<env>.+)/acc/mean@[0-9]+$', split: eval, metric: acc}
      - {regex: '^val-aux/(?P<env>.+)/(?P<metric>score|reward)/mean@[0-9]+$', split: eval}
      - {regex: '^curriculum/(?P<env>.+)/state$', split: state, metric: state}
    performance_metric: acc
""",
    "craftax": """\
profiles:
  craftax:
    patterns:
      - {regex: '^Achievements/(?P<env>[a-z_]+)$', split: train, metric: achieved}
    performance_metric: achieved
""",
    "minihack": """\
profiles:
  polybeast_tasks:
    patterns:
      - {regex: '^(?P<metric>mean_episode_return|mean_episode_step|num_episodes)/(?P<env>MiniHack-[A-Za-z0-9-]+)$',
         split: train}
      - {regex: '^curriculum/(?P<env>MiniHack-[A-Za-z0-9-]+)/state$', split: state, metric: state}
    performance_metric: mean_episode_return
    step_key: step
    count_metric: num_episodes
""",
}
# legged_gym terrain types (terrain.py:104-140) and their share of the columns (terrain_proportions, extended)
LEGGED_TYPES = {"smooth_slope": 0.1, "rough_slope": 0.1, "stairs_up": 0.35, "stairs_down": 0.25, "discrete": 0.2,
                "stepping_stones": 0.15, "gaps": 0.1, "pits": 0.08}
LEGGED_EASY = ("smooth_slope", "rough_slope")
GRPO_SOURCES = ["openai/gsm8k", "countdown/3num", "countdown/4num", "knights-knaves/3ppl", "knights-knaves/5ppl",
                "knights-knaves/7ppl", "math/level_1-2", "math/level_3", "math/level_4", "arith/mul-5digit",
                "sudoku/4x4"]
CRAFTAX_EASY = ["collect_wood", "place_table", "eat_cow", "collect_sapling", "collect_drink", "make_wood_pickaxe",
                "make_wood_sword", "place_plant", "defeat_zombie", "collect_stone", "place_stone", "wake_up"]
# the easy achievements whose rate can move once learned (sleep, food, water, plants, zombies at night)
CRAFTAX_VOLATILE = ["eat_cow", "collect_sapling", "collect_drink", "place_plant", "defeat_zombie", "wake_up"]
CRAFTAX_MID = ["eat_plant", "defeat_skeleton", "make_stone_pickaxe", "make_stone_sword", "place_furnace",
               "collect_coal"]
CRAFTAX_HARD = ["collect_iron", "collect_diamond", "make_iron_pickaxe", "make_iron_sword"]
CRAFTAX_ORDER = ["collect_wood", "place_table", "eat_cow", "collect_sapling", "collect_drink", "make_wood_pickaxe",
                 "make_wood_sword", "place_plant", "defeat_zombie", "collect_stone", "place_stone", "eat_plant",
                 "defeat_skeleton", "make_stone_pickaxe", "make_stone_sword", "wake_up", "place_furnace",
                 "collect_coal", "collect_iron", "collect_diamond", "make_iron_pickaxe", "make_iron_sword"]
# MiniHack tasks: (max episode steps, mean length of a successful episode)
MINIHACK_TASKS = {
    "MiniHack-Room-5x5-v0": (100, 8), "MiniHack-Room-15x15-v0": (300, 28), "MiniHack-Room-Random-15x15-v0": (300, 30),
    "MiniHack-Room-Dark-15x15-v0": (300, 45), "MiniHack-Room-Monster-15x15-v0": (300, 35),
    "MiniHack-Room-Trap-15x15-v0": (300, 32), "MiniHack-Corridor-R2-v0": (400, 60),
    "MiniHack-Corridor-R3-v0": (400, 90), "MiniHack-KeyRoom-S5-v0": (200, 25), "MiniHack-MazeWalk-9x9-v0": (300, 40),
    "MiniHack-River-Narrow-v0": (350, 55), "MiniHack-LavaCross-Levitate-Potion-Inv-v0": (200, 20),
}
CURVES = ("exp", "logistic", "sqrt", "linear")
BLOCKERS = ("stag_never", "stag_freeze", "osc", "prolonged")
POOLS = {
    "legged": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
               "prolonged", "prolonged", "prolonged"],
    "grpo_val": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze", "osc",
                 "eval_gap", "eval_gap", "transition", "transition", "prolonged", "prolonged"],
    "minihack": ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "stag_never", "stag_freeze",
                 "stag_late", "transition", "transition"],
}
NEG_POOL = ["healthy", "healthy", "noisy_healthy", "slow_learner", "late_learner", "level_shift", "single_outlier"]
# craftax: per tier, the chance of an event and the pool it is drawn from; otherwise a negative from the tier's pool
CRAFTAX_FATES = {
    "easy": (0.25, ["reg_warning", "reg_critical", "reg_critical", "burst", "switch", "osc"],
             ["healthy", "healthy", "healthy", "late_learner", "level_shift"]),
    "mid": (0.3, ["stag_freeze", "prolonged", "reg_critical", "reg_warning"], ["healthy", "slow_learner",
                                                                             "late_learner"]),
    "hard": (0.75, ["stag_never", "stag_never", "stag_late", "stag_freeze", "prolonged"], ["slow_learner",
                                                                                         "late_learner"]),
}
WALL0 = 1_700_000_000.0


@dataclass
class Env:
    name: str
    unlock: int
    s0: float
    s1: float
    T: float
    L: int
    A: float = 0.0
    B: float = 1.0
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    noise: float | None = None   # convention's noise parameter (robots of the type, problems of the set)
    G: int | None = None         # eval interval in iterations (grpo_val)
    at: int | None = None
    tier: str = ""
    params: dict = field(default_factory=dict)


# --- the metric ----------------------------------------------------------------------------------------

def e_map(env: Env, s) -> np.ndarray:
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    return env.A + (env.B - env.A) * s


def E_levels(env: Env) -> tuple[float, float]:
    return float(e_map(env, env.s0)), float(e_map(env, env.s1))


def skill_at_keep(env: Env, keep: float) -> float:
    return float(env.s0 + keep * (env.s1 - env.s0))  # E is linear in s


def legged_eplen(s):
    """Episode length (steps) of a robot at tracking skill s: falls at first, the full 20 s (1,000 steps) later."""
    return np.maximum(1000.0 * (0.05 + 0.95 * np.clip(s, 0, 1) ** 1.5), 30.0)


def minihack_eplen(env: Env, s):
    s = np.clip(s, 0, 1)
    return s * env.params["len_s"] + (1 - s) * env.params["len_f"]


def craftax_k(run: dict, its) -> np.ndarray:
    """Expected episodes ending in an update: NUM_ENVS x 64 / the run's episode length then."""
    its = np.asarray(its, float)
    eplen = 150.0 + run["ep_top"] * (1 - np.exp(-its / run["ep_tau"]))
    return run["num_envs"] * 64.0 / eplen


# grpo_val: a fixed problem set; difficulties spread (quantiles, no draw), a chance per problem at ability theta
_THETA = np.linspace(-14.0, 14.0, 1401)


def grpo_problem_q(env: Env, theta) -> np.ndarray:
    N = int(env.noise)
    d = env.params["spread"] * _norm_ppf((np.arange(N) + 0.5) / N)
    x = np.asarray(theta, float)[..., None] - d
    if env.params["n"] == 1:
        return _norm_cdf(x / env.params["tau"])
    return 1.0 / (1.0 + np.exp(-x))


def grpo_theta(env: Env, E) -> np.ndarray:
    key = (int(env.noise), env.params["spread"], env.params["n"], env.params.get("tau"))
    cache = env.params.setdefault("_cache", {})
    if key not in cache:
        cache[key] = grpo_problem_q(env, _THETA).mean(axis=-1)
    return np.interp(np.asarray(E, float), cache[key], _THETA)


def _norm_cdf(x):
    return 0.5 * (1.0 + np.vectorize(math.erf)(np.asarray(x, float) / math.sqrt(2.0)))


def _norm_ppf(p):
    p = np.asarray(p, float)
    # Acklam's rational approximation (enough for quantile spacing)
    a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
         -3.066479806614716e+01, 2.506628277459239e+00]
    b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
         -1.328068155288572e+01]
    c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
         4.374664141464968e+00, 2.938163982698783e+00]
    d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    out = np.empty_like(p)
    lo, hi = p < 0.02425, p > 1 - 0.02425
    mid = ~(lo | hi)
    q = np.sqrt(-2 * np.log(p[lo]))
    out[lo] = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    q = np.sqrt(-2 * np.log(1 - p[hi]))
    out[hi] = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    q = p[mid] - 0.5
    r = q * q
    out[mid] = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    return out


def point_sd(run: dict, env: Env, s: float) -> float:
    """sd of one judged point at skill s (minihack: of a mean of 5 points), in the metric's units."""
    conv = run["convention"]
    s = min(max(float(s), 0.0), 1.0)
    if conv == "legged":
        k = env.noise * 24.0 / float(legged_eplen(s))
        top = env.noise * 24.0 / 1000.0
        return math.sqrt(env.params["sig"] ** 2 / k + (env.params["ar"] * env.params["sig"]) ** 2 / top)
    if conv == "grpo_val":
        q = grpo_problem_q(env, grpo_theta(env, e_map(env, s)))
        return math.sqrt(float(np.sum(q * (1 - q))) / env.params["n"]) / env.noise
    if conv == "craftax":
        k = float(craftax_k(run, run["L"] - 1))
        return 100.0 * math.sqrt(s * (1 - s) / k)
    k = 2560.0 / (run["n_active_max"] * float(minihack_eplen(env, s)))
    k = max(k, 0.5)
    return (env.B - env.A) * math.sqrt(s * (1 - s) / k + 0.0004) / math.sqrt(5.0)


def quieter(run: dict, env: Env) -> bool:
    conv = run["convention"]
    if conv == "legged" and env.noise < 4 * env.params["robots0"]:
        env.noise = float(math.ceil(env.noise * 1.5))
        return True
    if conv == "grpo_val" and env.noise < 1000:
        env.noise = float(min(1000, math.ceil(env.noise * 1.5)))
        return True
    return False


def make_visible(run: dict, env: Env, levels, limit: float) -> bool:
    for _ in range(40):
        if max(point_sd(run, env, lv) for lv in levels) <= limit + 1e-12:
            return True
        if not quieter(run, env):
            return False
    return False


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


def window(run: dict) -> float:
    """W in iterations: max(min(100 steps, 10 % span), 20 J), J the convention's planned pace."""
    return max(min(100.0 / run["unit"], 0.1 * (run["L"] - 1)), 20.0 * run["P"])


def base_curve(env: Env) -> np.ndarray:
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
        s[on] = env.s0 + p["rate"] * g * x[on]
    elif v == "osc":
        s[on] = env.s0 + g * (p["mid"] + 0.5 * p["pp"] * np.sin(2 * np.pi * x[on] / p["P"] + p["phase"]))
    else:
        delay = p.get("delay", 0.0)
        s[on] = env.s0 + g * f_curve(env.curve, np.maximum(x[on] - delay, 0.0) / env.T)
    return s


def grad_point(run: dict, env: Env, s: np.ndarray, W: float) -> int | None:
    if env.variant in ("never", "freeze", "riser", "osc"):
        return None
    e = e_map(env, np.nan_to_num(s, nan=-1.0))
    E0, E1 = E_levels(env)
    hit = np.flatnonzero((e >= E0 + 0.9 * (E1 - E0) - 1e-12) & ~np.isnan(s))
    if not len(hit):
        return None
    return int(math.ceil(hit[0] + max(0.3 * W, 3 * (env.G or 1))))


def place(run: dict, env: Env, ev: str, rng) -> bool:
    """Give env event ev (or a negative) fitting in the run; False when it does not fit."""
    L, W = env.L, window(run)
    conv = run["convention"]
    g = env.s1 - env.s0
    E0, E1 = E_levels(env)
    gE = E1 - E0
    G = env.G or 1
    P = run["P"]
    if ev in BLOCKERS:
        env.variant = {"stag_never": "never", "stag_freeze": "freeze", "osc": "osc", "prolonged": "riser"}[ev]
        env.event = {"osc": "performance_volatility", "prolonged": "prolonged_training"}.get(ev, "training_stagnation")
        active = L - env.unlock
        if ev == "stag_never":
            if active < 6 * W:
                return False
            return make_visible(run, env, [env.s0, env.s1], gE / 6)
        if ev == "stag_freeze":
            R = max(0.4 * W, 6.0 * P) * rng.uniform(1.0, 2.0)
            fr = float(rng.uniform(0.2, 0.5))
            if active < R + 5 * W:
                return False
            env.params.update(R=float(R), fr=fr)
            return make_visible(run, env, [env.s0, env.s0 + fr * g], 0.2 * fr * gE)
        if ev == "osc":
            Pd = float(rng.uniform(8, 16)) * max(P, G)
            if active < 4 * Pd:
                return False
            pp, mid = float(rng.uniform(0.45, 0.7)), float(rng.uniform(0.35, 0.55))
            env.params.update(P=Pd, pp=pp, mid=mid, phase=float(rng.uniform(0, 2 * np.pi)))
            return make_visible(run, env, [env.s0 + g * (mid - pp / 2), env.s0 + g * (mid + pp / 2)], pp * gE / 6)
        if not 12.5 * W <= active <= 18 * W:  # README: a window's rise adds up to half of min_delta at least
            return False
        env.params["rate"] = 0.62 / active
        # its rise over one window (0.62 W / active of the gain, 0.04..0.05) a t of 4 against a line's fit over the
        # window's points: no window of it reads flat
        n_w = W / P
        limit = 0.62 * W / active * gE * math.sqrt(n_w / 12.0) / 4.0
        env.params["sd_limit"] = limit
        return make_visible(run, env, [env.s0, env.s0 + 0.31 * g, env.s0 + 0.62 * g], limit)
    if ev == "stag_late":
        D = float(rng.uniform(5, 7) * W)
        if env.unlock + D + env.T + 3 * W > L:
            return False
        env.params["delay"] = D
        env.event, env.variant = "training_stagnation", "late_discovery"
        return make_visible(run, env, [env.s0, env.s1], gE / 6)
    if ev == "late_learner":
        env.params["delay"] = float(rng.uniform(1.0, 2.0) * W)
    e = base_curve(env)
    gp = grad_point(run, env, e, W)
    if gp is None:
        return False
    margin = max(W, 10 * G) if env.G else W
    start = gp + margin
    if ev in ("healthy", "noisy_healthy", "slow_learner", "late_learner"):
        if gp + 2 * W > L:
            return False
        env.event = env.variant = ev
        return make_visible(run, env, [env.s0, env.s1], gE / (5 if ev == "noisy_healthy" else 8))
    if ev == "level_shift":
        d = float(rng.uniform(0.04, 0.06)) * g
        top = 0.99 if conv != "craftax" else 0.985
        if env.s1 + d > top or start + 2 * W > L:
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 0.3) * (L - start - 2 * W))
        env.params["d"] = d
        return make_visible(run, env, [env.s0, env.s1 + d], gE / 8)
    if ev == "single_outlier":
        if start + W > L or conv == "craftax":
            return False
        env.event = env.variant = ev
        env.at = int(start + rng.uniform(0, 1) * max(0, L - start - W))
        return make_visible(run, env, [env.s0, env.s1], gE / 8)
    if ev in ("reg_warning", "reg_critical"):
        keep = float(rng.uniform(0.72, 0.79)) if ev == "reg_warning" else float(rng.uniform(0.1, 0.6))
        ramp = 0 if rng.random() < 0.5 else int(rng.uniform(0.5, 1.5) * W)
        low_len = max(2 * W, 15 * G) if env.G else 2 * W
        if start + ramp + low_len > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - ramp - low_len))
        env.event = "graduated_regression"
        env.variant = "sudden" if ramp == 0 else "gradual"
        env.severity = "warning" if keep >= 0.7 else "critical"
        low_s = skill_at_keep(env, keep)
        env.params.update(keep=keep, ramp=ramp, low_s=low_s)
        return make_visible(run, env, [env.s1, low_s, env.s0], (1 - keep) * gE / 4.0)
    if ev == "burst":
        B = int(max(W, 20 * G)) if env.G else int(W)
        calm = max(W, 15 * G) if env.G else W
        if start + B + calm > L:
            return False
        env.at = int(start + rng.uniform(0, 1) * (L - start - B - calm))
        bsd = float(rng.uniform(0.2, 0.3))
        env.event, env.variant = "performance_volatility", "burst"
        env.params.update(length=B, bsd=bsd)
        return make_visible(run, env, [env.s1, env.s1 - bsd * g], bsd * gE / 4)
    if ev == "switch":
        dmin = int(math.ceil(max(4 * P, 4 * G, {"craftax": 8, "minihack": 12}.get(conv, 0))))
        if start + 18 * dmin > L:
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
        low_s = skill_at_keep(env, 1 - gap)
        env.params.update(gap=gap, phases=phases, low_s=low_s)
        return make_visible(run, env, [env.s1, low_s], gap * gE / 5)
    if ev == "eval_gap":
        if not env.G:
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
    s = base_curve(env)
    p, v = env.params, env.variant
    rng = np.random.default_rng(zlib.crc32(f"{run['name']}/{env.name}".encode()))
    i = np.arange(env.L)
    if v in ("sudden", "gradual"):
        if p["ramp"] == 0:
            s[i >= env.at] = p["low_s"]
        else:
            u = np.clip((i - env.at) / p["ramp"], 0, 1)
            m = i >= env.at
            s[m] = s[m] + (p["low_s"] - s[m]) * u[m]
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

def new_env(run: dict, rng, name: str, unlock: int, tier: str = "") -> Env:
    conv = run["convention"]
    W = window(run)
    s0 = float(np.clip(run["s0"] + rng.uniform(-0.02, 0.02), 0.0, 1.0))
    s1 = float(np.clip(run["s1"] + rng.uniform(-0.015, 0.015), 0.0, 0.995))
    env = Env(name=name, unlock=unlock, s0=s0, s1=s1, T=float(rng.uniform(0.8, 2.5) * W), L=run["L"],
              curve=str(rng.choice(CURVES)), tier=tier)
    if conv == "legged":
        share = LEGGED_TYPES[name] / run["prop_sum"]
        env.params.update(sig=float(rng.uniform(0.12, 0.2)), ar=float(rng.uniform(0.0, 0.4)),
                          phi=float(rng.uniform(0.6, 0.9)), robots0=4096.0 * share)
        env.noise = env.params["robots0"]
    elif conv == "grpo_val":
        env.G = run["G"]
        env.noise = float(rng.choice([128, 256, 500]))
        env.params.update(n=run["n"], tau=run["tau"], spread=float(rng.uniform(1.0, 2.5)))
    elif conv == "craftax":
        env.A, env.B = 0.0, 100.0
        if tier == "easy":
            env.T = float(rng.uniform(0.3, 1.5) * W)
        elif tier == "mid":
            env.T = float(rng.uniform(1.0, 2.5) * W)
        else:
            env.s0 = 0.0
            env.T = float(rng.uniform(1.0, 2.5) * W)
    else:
        Lf, Ls = MINIHACK_TASKS[name]
        # failures: a timeout at Lf (80 %) or a death at 5..Lf steps (20 %)
        env.params.update(len_s=float(Ls) * rng.uniform(0.8, 1.2), len_f=0.8 * Lf + 0.2 * (5 + Lf) / 2, Lf=Lf)
        env.A = -0.001 * env.params["len_f"]
        env.B = 1.0 - 0.001 * env.params["len_s"]
    return env


def set_noisy(run: dict, env: Env, rng) -> None:
    conv = run["convention"]
    if conv == "legged":
        env.params["robots0"] = 4096.0 * float(rng.uniform(0.05, 0.1))
        env.noise = env.params["robots0"]
    elif conv == "grpo_val":
        env.noise = float(rng.integers(30, 61))
    elif conv == "minihack":
        env.params["len_s"] *= float(rng.uniform(3, 5))
        env.B = 1.0 - 0.001 * env.params["len_s"]


def apply_negative(run: dict, env: Env, neg: str, rng) -> None:
    W = window(run)
    if neg == "slow_learner":
        env.T = float(rng.uniform(4, 6) * W)
    if neg == "late_learner":
        env.T = float(rng.uniform(0.8, 1.5) * W)
    if neg == "noisy_healthy":
        if run["convention"] == "craftax":
            neg = "healthy"
        else:
            set_noisy(run, env, rng)
    if not place(run, env, neg, rng):
        fresh = new_env(run, rng, env.name, env.unlock, env.tier)
        fresh.T = float(rng.uniform(0.8, 1.5) * W) if env.tier != "easy" else fresh.T
        env.__dict__.update(fresh.__dict__)
        place(run, env, "healthy", rng)
        env.event = env.variant = "healthy"


def draw_event(run: dict, env: Env, pool: list[str], rng, n_prolonged: int) -> str | None:
    unlock = env.unlock
    for _try in range(3):
        ev = str(rng.choice(pool))
        if ev == "prolonged" and n_prolonged >= 2:
            ev = "reg_critical"
        if ev == "prolonged":  # active 12.5..15 windows to the end: from the first point, or unlocked late
            late = run.get("late_unlock", False)
            W = window(run)
            env.unlock = int(run["L"] - rng.uniform(12.5, 15.0) * W) if late else run["first"]
            if run["G"]:
                env.unlock -= env.unlock % run["G"]
            if env.unlock < run["first"]:
                env.unlock = run["first"]
        if place(run, env, ev, rng):
            return ev
        fresh = new_env(run, rng, env.name, unlock, env.tier)
        env.__dict__.update(fresh.__dict__)
    return None


def plan_scales(run: dict, rng) -> None:
    conv = run["convention"]
    run["P"], run["unit"], run["G"], run["states"], run["first"] = 1.0, 1.0, None, False, 0
    if conv == "legged":
        run["L"] = int(rng.integers(1000, 2001))  # max_iterations 1500 in legged_gym's config
        run["clock"] = np.arange(run["L"], dtype=np.int64)
        run["s0"], run["s1"] = float(rng.uniform(0.03, 0.08)), float(rng.uniform(0.82, 0.92))
    elif conv == "grpo_val":
        f = int(rng.choice([5, 5, 10, 10, 20]))
        n_ev = int(rng.integers(100, min(400, 3000 // f) + 1))
        run["L"] = f * n_ev + 1
        run["clock"] = np.arange(run["L"], dtype=np.int64)
        run["P"], run["G"] = float(f), f
        run["states"] = bool(rng.random() < 0.5)
        run["late_unlock"] = run["states"]
        run["n"] = 1 if rng.random() < 0.5 else int(rng.choice([4, 8, 16]))
        run["tau"] = float(rng.uniform(0.3, 0.8))
        run["s0"], run["s1"] = float(rng.uniform(0.03, 0.2)), float(rng.uniform(0.82, 0.95))
    elif conv == "craftax":
        run["L"] = int(rng.integers(1200, 2501))
        run["clock"] = np.arange(run["L"], dtype=np.int64)
        run["num_envs"] = int(rng.choice([1024, 1024, 1024, 2048, 4096]))
        run["ep_top"] = float(rng.uniform(800, 2500))
        run["ep_tau"] = float(run["L"] * rng.uniform(0.15, 0.35))
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.03)), float(rng.uniform(0.9, 0.97))
        run["first"] = 2  # the first two updates end no episode: empty rows
    else:
        run["L"] = int(rng.integers(2000, 5001))
        run["unit"] = 2560.0  # unroll_length x batch_size
        run["clock"] = (np.arange(run["L"], dtype=np.int64) + 1) * 2560
        run["states"] = bool(rng.random() < 0.4)
        run["s0"], run["s1"] = float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.88, 0.97))


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    plan_scales(run, rng)
    W = window(run)
    L = run["L"]
    n_prolonged = 0
    if conv == "craftax":
        envs = []
        for name in CRAFTAX_ORDER:
            tier = "easy" if name in CRAFTAX_EASY else ("mid" if name in CRAFTAX_MID else "hard")
            envs.append(new_env(run, rng, name, 2, tier))
        n_easy_events = 0
        for env in envs:
            p, pool, negs = CRAFTAX_FATES[env.tier]
            if rng.random() < p and not (env.tier == "easy" and (n_easy_events >= 2 or
                                                                 env.name not in CRAFTAX_VOLATILE)):
                ev = draw_event(run, env, pool, rng, n_prolonged)
                if ev is not None:
                    n_prolonged += ev == "prolonged"
                    n_easy_events += env.tier == "easy"
                    continue
            apply_negative(run, env, str(rng.choice(negs)), rng)
    else:
        if conv == "legged":
            n = int(rng.integers(4, 7))
            names = list(LEGGED_TYPES)
            pick = list(rng.choice(len(names), size=n, replace=False))
            chosen = [names[k] for k in pick]
            run["prop_sum"] = sum(LEGGED_TYPES[c] for c in chosen)
            # the easy types first (a type curriculum starts there)
            chosen.sort(key=lambda c: (c not in LEGGED_EASY, LEGGED_TYPES[c] < 0.2))
            second = int(rng.uniform(0.15, 0.3) * L) if rng.random() < 0.6 else 0
            run["late_unlock"] = bool(second)
            slots = [(c, second if (j >= 2 and second and c not in LEGGED_EASY and j % 2 == 0) else 0)
                     for j, c in enumerate(chosen)]
        else:
            names = GRPO_SOURCES if conv == "grpo_val" else list(MINIHACK_TASKS)
            n = int(rng.integers(3, 8)) if conv == "grpo_val" else int(rng.integers(4, 9))
            pick = rng.choice(len(names), size=n, replace=False)
            waves = int(rng.integers(1, 4)) if (conv == "minihack" or run["states"]) else 1
            starts = [0] + sorted(int(rng.uniform(0.1, 0.35) * L) for _ in range(waves - 1))
            slots = [(names[k], starts[j % len(starts)] if j >= 2 else 0) for j, k in enumerate(pick)]
            if conv == "grpo_val":  # a source unlocks at an eval step
                slots = [(nm, int(u - u % run["G"])) for nm, u in slots]
        run["n_active_max"] = len(slots)
        envs = [new_env(run, rng, nm, u) for nm, u in slots]
        pool = [p for p in POOLS[conv] if (p != "eval_gap" or run["G"]) and (p != "transition" or run["states"])]
        for j, env in enumerate(envs):
            if j >= 2 and rng.random() < 0.65:
                ev = draw_event(run, env, pool, rng, n_prolonged)
                if ev is not None:
                    n_prolonged += ev == "prolonged"
                    continue
            apply_negative(run, env, str(rng.choice(NEG_POOL if j >= 2 else NEG_POOL[:3])), rng)
    if n_prolonged:  # README: at least twice the median time the graduated envs took
        for env in envs:
            if env.event not in EVENTS and (env.T > 1.5 * W or env.variant == "late_learner"):
                fresh = new_env(run, rng, env.name, env.unlock, env.tier)
                fresh.T = float(rng.uniform(0.5, 1.5) * W)
                env.__dict__.update(fresh.__dict__)
                place(run, env, "healthy", rng)
                env.event = env.variant = "healthy"
    learners = [e for e in envs if e.variant not in ("never", "freeze", "riser", "osc", "late_discovery")]
    for k, e in enumerate(list(envs)):
        if len(learners) >= max(2, len(envs) / 2):
            break
        if e.variant in ("never", "freeze", "osc", "late_discovery") and e.tier != "hard":
            fresh = new_env(run, rng, e.name, e.unlock, e.tier)
            apply_negative(run, fresh, "healthy", rng)
            envs[k] = fresh
            learners.append(fresh)
    if run["states"]:
        for env in envs:
            if env.event == "healthy" and env.unlock >= 2 * W and conv == "grpo_val":
                env.variant = "locked_eval"
    run["envs"] = envs


# --- observing -------------------------------------------------------------------------------------

def observe(run: dict, env: Env, s: np.ndarray, rng) -> dict:
    """The judged series (its, steps, values) of the env, split train / eval, and what its writer needs beside."""
    conv, clock, L = run["convention"], run["clock"], run["L"]
    empty = (np.array([], int), np.array([], np.int64), np.array([]))
    out = {"train": empty, "eval": empty}
    if conv == "legged":
        its = np.arange(env.unlock, L)
        sk = np.clip(s[its], 0, 1)
        k = rng.poisson(env.noise * 24.0 / legged_eplen(sk))
        sig, phi = env.params["sig"], env.params["phi"]
        a_sd = env.params["ar"] * sig / math.sqrt(env.noise * 24.0 / 1000.0)
        z = np.zeros(len(its))
        innov = rng.normal(0, a_sd * math.sqrt(1 - phi * phi), len(its))
        for t in range(1, len(its)):
            z[t] = phi * z[t - 1] + innov[t]
        vals = e_map(env, sk) + z + rng.normal(0, 1, len(its)) * sig / np.sqrt(np.maximum(k, 1))
        vals = np.clip(vals, 0.0, 1.0)
        vals[k == 0] = np.nan
        out["train"] = (its, clock[its], vals)
        out["k"] = k
    elif conv == "grpo_val":
        ev_its = np.arange(0, L, env.G)
        if env.variant == "eval_gap":
            ev_its = ev_its[ev_its < env.at]
        s_obs = np.where(np.isnan(s), env.s0, s)  # a locked source of the fixed set is evaluated at its base
        q = grpo_problem_q(env, grpo_theta(env, e_map(env, s_obs[ev_its])))
        n = env.params["n"]
        phat = rng.binomial(n, q) / n
        vals = phat.mean(axis=1)
        out["eval"] = (ev_its, clock[ev_its], vals)
        out["aux"] = {"std": np.sqrt(phat * (1 - phat)).mean(axis=1), "best": (1 - (1 - phat) ** n).mean(axis=1),
                      "maj": np.where(phat > 0.5, 1.0, np.where(phat == 0.5, 0.5, 0.0)).mean(axis=1)}
    elif conv == "craftax":
        its = np.arange(env.unlock, L)
        k = run["k_row"][its]
        vals = 100.0 * rng.binomial(k, np.clip(s[its], 0, 1)) / k
        out["train"] = (its, clock[its], vals)
    else:
        its = np.arange(env.unlock, L)
        sk = np.clip(s[its], 0, 1)
        lam = 2560.0 / (run["n_active"][its] * minihack_eplen(env, sk))
        k = rng.poisson(lam)
        ns = rng.binomial(k, sk)
        nf = k - ns
        nd = rng.binomial(nf, 0.2)
        nt = nf - nd
        Ls, Lf = env.params["len_s"], env.params["Lf"]
        # summed lengths of the successes (each 0.6..1.4 x Ls) and of the deaths (5..Lf), clipped to what can be
        len_s = np.clip(ns * Ls + np.sqrt(ns) * Ls * 0.231 * rng.normal(size=len(its)), 0.6 * Ls * ns, 1.4 * Ls * ns)
        len_d = np.clip(nd * (5 + Lf) / 2 + np.sqrt(nd) * (Lf - 5) / math.sqrt(12) * rng.normal(size=len(its)),
                        5.0 * nd, float(Lf) * nd)
        steps_sum = len_s + nt * Lf + len_d
        with np.errstate(invalid="ignore", divide="ignore"):
            ret = (ns - 0.001 * steps_sum) / k
            estep = steps_sum / k
        ok = k > 0
        out["train"] = (its[ok], clock[its[ok]], ret[ok])
        out["k"] = (its, k, estep)
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
    if np.mean(np.abs(d / med - np.round(d / med)) < 1e-9) >= 0.98:
        return med
    return float(d[d < 3 * med].mean())


def first_at(pts_its: np.ndarray, pts_steps: np.ndarray, t0: int) -> int | None:
    ok = np.flatnonzero(pts_its >= t0)
    return int(pts_steps[ok[0]]) if len(ok) else None


def judged_points(d: dict) -> tuple[tuple, tuple]:
    """(its, steps) of the judged points (finite; eval where the env has evals, else train) and of its evals."""
    ev_its, ev_steps, ev = d["eval"]
    tr_its, tr_steps, tr = d["train"]
    if len(ev):
        m = np.isfinite(np.asarray(ev, float))
        return (ev_its[m], ev_steps[m]), (ev_its[m], ev_steps[m])
    m = np.isfinite(np.asarray(tr, float))
    return (tr_its[m], tr_steps[m]), (np.array([], int), np.array([], np.int64))


def mk(run: dict, env: Env, onset: int) -> dict:
    return dict(run=run["name"], env=env.name, type=env.event, onset=int(onset), severity=env.severity,
                shape=f"{run['convention']}/{env.variant}", variant=env.variant)


def label_for(run: dict, env: Env, pts: tuple, ev_pts: tuple, st_steps: np.ndarray | None, W_env: float,
              G_env: float | None) -> list[dict]:
    if env.event not in EVENTS:
        return []
    its, steps = pts
    if not len(its):
        return []
    s_truth = truth(run, env)
    e = e_map(env, np.nan_to_num(s_truth, nan=env.s0))
    E0, E1 = E_levels(env)
    gE = E1 - E0
    v, p = env.variant, env.params
    if v in ("never", "osc", "late_discovery"):
        onset = first_at(its, steps, env.unlock)
    elif v == "freeze":
        onset = first_at(its, steps, int(math.ceil(env.unlock + p["R"])))
    elif v == "riser":
        onset = first_at(its, steps, env.unlock) + int(round(10 * W_env))
        return [mk(run, env, onset)] if onset <= run["clock"][-1] else []
    elif v == "eval_gap":
        return [mk(run, env, int(ev_pts[1][-1]) + int(round(G_env)))]
    elif v == "revisit":
        ok = st_steps[st_steps >= run["clock"][env.at]]
        onset = int(ok[0]) if len(ok) else None
    elif v in ("sudden", "gradual"):
        below = np.flatnonzero((np.arange(len(e)) >= env.at) & (e < E0 + 0.85 * gE))
        onset = first_at(its, steps, int(below[0]))
    elif v == "burst":
        a, B = env.at, p["length"]
        sd = point_sd(run, env, env.s1)
        onset = None
        for lim in (max(0.15 * gE, 4 * sd), 0.15 * gE):
            for i, st in zip(its, steps):
                if a <= i < a + B and E1 - e[i] > lim:
                    onset = int(st)
                    break
            if onset is not None:
                break
        if onset is None:
            onset = first_at(its, steps, a)
    elif v == "switch":
        onset = first_at(its, steps, p["phases"][0][0])
    else:
        raise ValueError(v)
    return [] if onset is None else [mk(run, env, onset)]


# --- writers ---------------------------------------------------------------------------------------

def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def write_legged(folder: Path, run: dict, data: dict, rng) -> None:
    """rsl_rl's OnPolicyRunner.log (v1.0.2, :144-177) over legged_gym's per-reset episode infos split per type."""
    from tensorboardX import SummaryWriter

    logdir = folder / f"Jan01_00-00-00_{run['name']}"
    logdir.mkdir(parents=True, exist_ok=True)
    w = SummaryWriter(str(logdir), flush_secs=3600, max_queue=1 << 20)
    envs = run["envs"]
    idx = {}
    for env in envs:
        its, _steps, vals = data[env.name]["train"]
        idx[env.name] = dict(zip(its.tolist(), range(len(its))))
    tot_time, wall = 0.0, WALL0
    lr = 1e-3
    for it in range(run["L"]):
        ct, lt = float(rng.uniform(1.2, 1.8)), float(rng.uniform(0.4, 0.7))
        tot_time += ct + lt
        wall += ct + lt
        active = [e for e in envs if it >= e.unlock]
        rows = []
        means = []
        for term in ("tracking_lin_vel",):
            for env in active:
                j = idx[env.name][it]
                v = float(data[env.name]["train"][2][j])
                if term != "tracking_lin_vel" and not math.isnan(v):
                    v = {"tracking_ang_vel": 0.5 * 0.8 * v, "feet_air_time": -0.05 + 0.12 * v,
                         "torques": -0.02 - 0.03 * v, "collision": -0.4 * (1 - v) ** 2,
                         "action_rate": -0.05 - 0.03 * v}[term] + float(rng.normal(0, 0.004))
                if term == "tracking_lin_vel" and not math.isnan(v):
                    means.append(v)
                rows.append((f"Episode/rew_{term}/{env.name}", v))
        for env in active:
            j = idx[env.name][it]
            sk = data[env.name]["skill"][it]
            lvl = min(9.0, 2.5 + 5.0 * float(sk) + 0.05 * float(rng.normal()))
            rows.append((f"Episode/terrain_level/{env.name}", lvl))
        for tag, v in rows:
            w.add_scalar(tag, v, it, walltime=wall)
        lr = float(np.clip(lr * rng.choice([0.667, 1.0, 1.0, 1.5]), 1e-5, 1e-2))
        m = float(np.mean(means)) if means else 0.0
        w.add_scalar("Loss/value_function", float(abs(rng.normal(0.02 + 0.2 * math.exp(-it / 200), 0.01))), it,
                     walltime=wall)
        w.add_scalar("Loss/surrogate", float(rng.normal(-0.002, 0.002)), it, walltime=wall)
        w.add_scalar("Loss/learning_rate", lr, it, walltime=wall)
        w.add_scalar("Policy/mean_noise_std", float(1.0 * math.exp(-it / 1500) + 0.3), it, walltime=wall)
        w.add_scalar("Perf/total_fps", int(24 * 4096 / (ct + lt)), it, walltime=wall)
        mean_reward = 20.0 * (0.9 * m + 0.1) + float(rng.normal(0, 0.3))
        mean_len = float(legged_eplen(m)) + float(rng.normal(0, 10))
        w.add_scalar("Train/mean_reward", mean_reward, it, walltime=wall)
        w.add_scalar("Train/mean_episode_length", mean_len, it, walltime=wall)
        w.add_scalar("Train/mean_reward/time", mean_reward, int(tot_time), walltime=wall)
    w.close()


def write_grpo(folder: Path, run: dict, data: dict, states: dict, rng) -> None:
    """verl's Tracking.log(data, step=global_steps): step 0 the validation before training, then every step the
    training metrics, merged with the validation metrics at test_freq steps."""
    _tests_on_path()
    from writers import write_wandb

    n = run["n"]
    rows = {t: {} for t in range(run["L"])}
    for env in run["envs"]:
        d = data[env.name]
        its, _st, vals = d["eval"]
        aux = d["aux"]
        ds = env.name
        for j, t in enumerate(its.tolist()):
            acc = float(vals[j])
            r = rows[t]
            r[f"val-core/{ds}/acc/mean@{n}"] = acc
            r[f"val-aux/{ds}/score/mean@{n}"] = 2 * acc - 1
            r[f"val-aux/{ds}/reward/mean@{n}"] = 2 * acc - 1
            if n > 1:
                r[f"val-aux/{ds}/acc/std@{n}"] = float(aux["std"][j])
                r[f"val-core/{ds}/acc/best@{n}/mean"] = float(aux["best"][j])
                r[f"val-core/{ds}/acc/maj@{n}/mean"] = float(aux["maj"][j])
        for t, v in states.get(env.name, []):
            rows[t][f"curriculum/{ds}/state"] = int(v)
    for t in range(1, run["L"]):
        active = [e for e in run["envs"] if t >= e.unlock] or run["envs"][:1]
        sc = float(np.mean([e_map(e, np.nan_to_num(data[e.name]["skill"][t], nan=e.s0)) for e in active]))
        r = rows[t]
        r["critic/score/mean"] = float(2 * sc - 1 + rng.normal(0, 0.03))
        r["critic/rewards/mean"] = r["critic/score/mean"] - 0.001
        r["actor/entropy"] = float(0.6 * math.exp(-t / 600) + 0.1 + rng.normal(0, 0.01))
        r["actor/kl_loss"] = float(abs(rng.normal(0.001 * (1 + t / 300), 0.0005)))
        r["actor/pg_clipfrac"] = float(abs(rng.normal(0.002, 0.001)))
        r["response_length/mean"] = float(400 + 0.3 * t + rng.normal(0, 20))
        r["timing_s/step"] = float(rng.uniform(40, 80) + (90 if f"val-core/{run['envs'][0].name}/acc/mean@{n}" in r
                                                        else 0))
        r["training/global_step"] = t
        r["training/epoch"] = t // 200
    steps = sorted(t for t in rows if rows[t])
    write_wandb(folder / "wandb", [rows[t] for t in steps], steps=steps, run_id=run["trial"],
                name=f"grpo-{run['name']}")


def write_craftax(folder: Path, run: dict, data: dict, rng) -> None:
    """Craftax_Baselines' batch_log: one wandb.log(agg_logs) per update without step= (rows 0..L-1)."""
    _tests_on_path()
    from writers import write_wandb

    rows = [{}, {"sps": float(rng.uniform(8e4, 1.2e5))}]
    idx = {e.name: dict(zip(data[e.name]["train"][0].tolist(), range(len(data[e.name]["train"][0]))))
           for e in run["envs"]}
    for t in range(2, run["L"]):
        r, tot = {}, 0.0
        for name in CRAFTAX_ORDER:
            v = float(data[name]["train"][2][idx[name][t]])
            tot += v / 100.0
            r[f"Achievements/{name}"] = np.array([v])
        r["episode_return"] = float(tot - 0.1 + rng.normal(0, 0.05))
        r["episode_length"] = float(run["num_envs"] * 64.0 / craftax_k(run, t) + rng.normal(0, 5))
        r["achievements"] = np.array([tot])
        r["sps"] = float(rng.uniform(8e4, 1.2e5))
        rows.append(r)
    total = run["L"] * 64 * run["num_envs"]
    write_wandb(folder / "wandb", rows, steps=None, run_id=run["trial"],
                name=f"Craftax-Classic-Symbolic-v1-{int(total // 1e6)}M")


def write_minihack(folder: Path, run: dict, data: dict, states: dict, rng) -> list[int]:
    """polybeast's learner: a FileWriter row per batch in which an episode ended (stats persist: a task's keys
    appear when it unlocks); returns the rows written (iterations)."""
    _tests_on_path()
    from writers import DcdFileWriter

    base = folder / f"minihack-{run['name']}"
    fw = DcdFileWriter(base)
    (base / "meta.json").write_text(json.dumps({"args": {"env": "multitask", "num_actors": 256, "batch_size": 32,
                                                         "unroll_length": 80, "penalty_step": -0.001,
                                                         "tasks": [e.name for e in run["envs"]]},
                                                "xpid": f"minihack-{run['name']}", "date_start": "2026-01-01"},
                                               indent=1))
    per = {}
    for env in run["envs"]:
        its, k, estep = data[env.name]["k"]
        per[env.name] = (dict(zip(its.tolist(), range(len(its)))), k, estep,
                         dict(zip(data[env.name]["train"][0].tolist(), data[env.name]["train"][2].tolist())))
    st_by = {}
    for name, ser in states.items():
        for t, v in ser:
            st_by.setdefault(t, {})[name] = v
    stats: dict = {}
    written = []
    wall = WALL0
    lines = []
    for t in range(run["L"]):
        wall += float(rng.uniform(0.8, 1.6))
        stats["step"] = int(run["clock"][t])
        ks, rets = 0, 0.0
        for env in run["envs"]:
            if t < env.unlock:
                continue
            pos, k, estep, vals = per[env.name]
            j = pos[t]
            if k[j] > 0:
                stats[f"mean_episode_return/{env.name}"] = vals[t]
                stats[f"mean_episode_step/{env.name}"] = float(estep[j])
                stats[f"num_episodes/{env.name}"] = int(k[j])
                ks += int(k[j])
                rets += vals[t] * int(k[j])
            else:
                stats[f"mean_episode_return/{env.name}"] = None
                stats[f"mean_episode_step/{env.name}"] = None
                stats[f"num_episodes/{env.name}"] = None
        if not ks:
            continue  # polybeast logs only when at least one episode ended
        stats["mean_episode_return"] = rets / ks
        stats["mean_episode_step"] = float(np.mean([v for kk, v in stats.items()
                                                     if kk.startswith("mean_episode_step/") and v is not None]))
        stats["total_loss"] = float(rng.normal(0.5, 0.2))
        stats["entropy_loss"] = float(-0.0005 * (1.5 + rng.normal(0, 0.05)))
        stats["pg_loss"] = float(rng.normal(0.0, 0.1))
        stats["baseline_loss"] = float(abs(rng.normal(0.2, 0.1)))
        stats["learner_queue_size"] = int(rng.integers(0, 8))
        for name, v in st_by.get(t, {}).items():
            stats[f"curriculum/{name}/state"] = int(v)
        fw.log(dict(stats), wall)
        written.append(t)
        if t % 200 == 0:
            lines.append(f"Step {stats['step']} @ {2560 / 1.2:.1f} SPS. Loss {stats['total_loss']:.3f}.")
    fw.close()
    (base / "out.log").write_text("\n".join(lines) + "\n")
    return written


# --- build -----------------------------------------------------------------------------------------

def finish_env(run: dict, d: dict, span: float) -> tuple[tuple, tuple, float, float | None, float]:
    pts, ev_pts = judged_points(d)
    J_env = pace(pts[1])
    W_env = max(min(100.0, 0.1 * span), 20.0 * J_env)
    G_env = float(np.median(np.diff(ev_pts[1]))) if len(ev_pts[1]) >= 2 else None
    return pts, ev_pts, W_env, G_env, J_env


def build_run(root: Path, run: dict, labels: list[dict], rseed: int) -> dict:
    conv = run["convention"]
    plan_run(run, np.random.default_rng(rseed))
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    orng = np.random.default_rng(rseed + 1)
    W = window(run)
    clock = run["clock"]
    L = run["L"]
    if conv == "craftax":
        run["k_row"] = np.maximum(orng.poisson(craftax_k(run, np.arange(L))), 1)
    if conv == "minihack":
        run["n_active"] = np.array([max(1, sum(e.unlock <= t for e in run["envs"])) for t in range(L)], float)
    data, truths, gps = {}, {}, {}
    for env in run["envs"]:
        s = truth(run, env)
        truths[env.name] = s
        gps[env.name] = grad_point(run, env, base_curve(env), W)
        env.params["graduated_point"] = gps[env.name]
        d = observe(run, env, s, orng)
        d["skill"] = s
        data[env.name] = d
    states = {}
    written = None
    if conv == "minihack":
        if run["states"]:
            states = {e.name: [(t, state_value(e, gps[e.name], t)) for t in range(L)] for e in run["envs"]}
        written = write_minihack(folder, run, data, states, np.random.default_rng(rseed + 2))
        keep = set(written)
        for env in run["envs"]:  # a batch with no episode at all is not logged: its points do not exist
            its, st, vals = data[env.name]["train"]
            m = np.array([int(i) in keep for i in its], bool)
            data[env.name]["train"] = (its[m], st[m], vals[m])
    elif conv == "grpo_val":
        if run["states"]:
            states = {e.name: [(t, state_value(e, gps[e.name], t)) for t in range(L)] for e in run["envs"]}
        write_grpo(folder, run, data, states, np.random.default_rng(rseed + 2))
    elif conv == "craftax":
        write_craftax(folder, run, data, np.random.default_rng(rseed + 2))
    else:
        write_legged(folder, run, data, np.random.default_rng(rseed + 2))
    span = float(clock[-1] - clock[0])
    tol = []
    for env in run["envs"]:
        d = data[env.name]
        pts, ev_pts, W_env, G_env, J_env = finish_env(run, d, span)
        env.params.update(W_env=W_env, G_env=G_env, J_env=J_env)
        tol.append(max(W_env / 10.0, G_env or J_env))
        st_steps = None
        if states:
            st_its = np.array([t for t, _v in states[env.name]], int)
            if written is not None:
                st_its = np.array(sorted(set(st_its.tolist()) & set(written)), int)
            st_steps = clock[st_its]
        labs = label_for(run, env, pts, ev_pts, st_steps, W_env, G_env)
        if env.variant == "riser" and not labs:
            env.event = env.variant = "riser_short"  # its 10 windows outlast the run: no event after all
        labels.extend(labs)
    write_plan(folder, run, tol, W)
    return run


def write_plan(folder: Path, run: dict, tol: list[float], W: float) -> None:
    meta = {k: v for k, v in run.items() if k not in ("envs", "clock", "k_row", "n_active")}
    clock = run["clock"]
    meta.update(tolerance_unit=int(round(max(tol))), window_steps=W * run["unit"],
                eval_every=int(round((run.get("G") or 1) * run["unit"])),
                first_step=int(clock[0]), last_step=int(clock[-1]))
    meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity, "tier": e.tier,
                     "curve": e.curve, "noise": e.noise, "unlock": e.unlock, "unlock_step": int(clock[e.unlock]),
                     "s0": e.s0, "s1": e.s1, "A": e.A, "B": e.B, "T": e.T, "G": e.G, "at": e.at,
                     "at_step": int(clock[e.at]) if e.at is not None else None, "L": e.L,
                     "params": {k: v for k, v in e.params.items() if k not in ("phases", "_cache")}}
                    for e in run["envs"]]
    (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("WANDB_MODE", "offline")
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    root = Path(root)
    rng = np.random.default_rng(seed)
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        name = f"t{r:03d}_{conv}"
        rseed = int(rng.integers(1 << 31))
        trial = f"{zlib.crc32(f'twentieth-{seed}-{r}'.encode()) & 0xFFFFFF:06x}"
        build_run(root, dict(name=name, convention=conv, seed=rseed, trial=trial), labels, rseed)
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
    if isinstance(o, tuple):
        return list(o)
    return str(o)
