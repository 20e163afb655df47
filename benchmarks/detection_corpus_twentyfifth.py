"""The twenty-fifth detection corpus (`python benchmarks/detection.py --corpus twentyfifth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles with `env: "{run}"`, `run_env`,
metric direction, what a rate is, logging shapes, what `unknown` means; detection.py's label format and scorer; the
twenty-third and twenty-fourth corpora as examples of the interface; tests/writers.py), without reading the analysis
code and without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentyfifth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (10 her, 20 allenact, 20 skyrl, 10 ppo2), one group folder per convention, each
with a curriwatch.yaml forcing a user profile. Chosen for what the twenty-four other corpora do not cover: OPENAI
BASELINES' logger with its `tensorboard` output format (one TF Summary holding every key of a `dumpkvs` per event, its
step the number of dumps so far from 1, written by TF's EventsWriter into `{logdir}/tb/`, beside the `csv` format's
progress.csv and log.txt; HER also writes params.json there), as HER (per-epoch `test/success_rate` over n_test_rollouts
x rollout_batch_size x MPI ranks episodes, and the exploring workers' `train/success_rate`) and PPO2 (`eprewmean`, the
mean return of the last 100 episodes of a deque, NaN until one ended) write it, one logdir per task of a sequential
curriculum; ALLENACT's runner (one tensorboardX file of `train-metrics/…` at the rollout-step count and `valid-metrics/…`
of each saved checkpoint evaluated by the valid worker, written when it finishes, behind training points of later
steps; a user's multi-task ObjectNav whose Task.metrics() adds `{object_type}/success` and `/spl`); and SKYRL's
evaluation per data source (`eval/{data_source}/avg_score` and `pass_at_{n}` on a fixed eval set, before training at
step 0 and every `eval_interval` steps, `step=global_step`, through its W&B tracker or its TensorBoard adapter; resumed
from the latest checkpoint, the W&B run under the same id by WANDB_RUN_ID/WANDB_RESUME, the TensorBoard one as a
second event file in TENSORBOARD_DIR):

  her / ppo2  openai/baselines@ea25b9e8b234e6ee1bca43083f8f3cf974143998: baselines/logger.py:102-137 CSVOutputFormat
             (progress.csv), :139-172 TensorBoardOutputFormat (`self.step = 1`, `prefix = 'events'` in the `tb` dir,
             `pywrap_tensorflow.EventsWriter` -> `events.out.tfevents.{time}.{host}`, one `tf.Summary` of every kv,
             `event.step = self.step`, `self.step += 1` per dump), :174-187 `make_output_format` ('tensorboard' ->
             `tb{suffix}`), :319-335 `dumpkvs` (every output format gets the same dict), :372-399 `configure`
             (OPENAI_LOGDIR, OPENAI_LOG_FORMAT default 'stdout,log,csv': the user adds `tensorboard`, a value
             docs/viz/viz.ipynb:96-97 documents; rank > 0 logs only 'log'). HER: baselines/her/her.py:22-63 per epoch n_cycles rollouts of training, then n_test_rollouts
             evaluator rollouts, `record_tabular('epoch')`, `test/*`, `train/*`, `stats_*`, `dump_tabular()` on rank 0;
             :100-118 params.json written into logger.get_dir(); baselines/her/rollout.py:37, 131, 141, 156-168
             success_history (deque of each rollout's batch success rate, cleared every epoch), logs `success_rate`,
             `mean_Q`, `episode` (the cumulative episode count); baselines/her/ddpg.py:406-416 `stats_o|g/mean|std`;
             baselines/her/experiment/config.py:10-56 n_cycles 50 (FetchReach 10), rollout_batch_size 2,
             n_test_rollouts 10. A sequential curriculum over Fetch / Hand tasks, one `OPENAI_LOGDIR=logs/her/{task}` per
             task, 1..8 MPI ranks (the rank mean of equal-sized rates is the rate over all episodes: n = 20 x ranks test
             episodes a point), 60..300 epochs, evals every epoch beside the exploring workers' lower train rate.
             PPO2: baselines/ppo2/ppo2.py:118-150 `epinfobuf = deque(maxlen=100)` extended by each update's finished
             episodes, :186-210 at `update % log_interval == 0 or update == 1` the `misc/*`, `fps`, `eprewmean`,
             `eplenmean` (`safemean`: NaN when no episode ended yet, :220-222), `loss/*` and `dumpkvs`;
             baselines/ppo2/defaults.py:1-23 log_interval=1 for mujoco and atari. One run per game of a suite (Atari-like
             scores on their own scales, 0.2..2 episodes an update; MuJoCo-like returns with falls, 2..10), TRAIN ONLY,
             400..2,400 updates. User profiles: `test|train/success_rate` (eval | train) and `eprewmean` (train), `env:
             "{run}"`, `run_env` = the task folder.
  allenact   allenai/allenact@d055fc9d4533f086e0340fe0a838ed42c28d932e: allenact/algorithms/onpolicy_sync/runner.py:
             822-858 `log_writer_path` (default FLAT: `{output_dir}/tb/{tag}/{start_time}`; allenact/main.py:91-98),
             :961-978 `_update_keys` (`{mode}-losses/…`, else `{mode}-metrics/{key}` / `{mode}-misc/{key}`), :980-1235
             `_process_logging_packages` (`train-misc/pipeline_stage`, `train-misc/{storage}_total_experiences`, each
             metric's mean over the packages at `training_steps`, `train-misc/approx_fps`,
             `{mode}-misc/num_tasks_completed_since_last_log`; valid packages go through the train logger when training,
             :992-996), :1307-1322 `log_and_close`: SummaryWriter with `filename_suffix=__{mode}_{start time}`;
             allenact/utils/experiment_utils.py:172-229 ScalarMeanTracker (a key's mean over the tasks that reported
             it: absent from an interval in which none did), :241-306 LoggingPackage, add_metrics_dict at :290 (each finished
             task's metrics dict), :511-529 `save_interval`, `metric_accumulate_interval`;
             allenact_plugins/robothor_plugin/robothor_tasks.py:389-410 ObjectNavTask.metrics (`success`,
             `total_reward`, `dist_to_target`, `spl`). A user's ObjectNav over 4..9 object types whose metrics dict
             also carries `{object_type}/success` and `{object_type}/spl`; types added to the task sampler in a second
             wave in 40 % of the runs; training points every metric_accumulate_interval (a rate over the 1..30 episodes
             of the type that ended there, absent when none did), and every checkpoint (each 5..10 training points)
             evaluated on a fixed validation set of 12..40 episodes a type of unequal difficulty, its points written
             1..3 training points late. User profile `^(?P<split>train|valid)-metrics/(?P<env>[A-Z][A-Za-z]+)/
             (?P<metric>success|spl)$` (`valid` an alias of eval).
  skyrl      NovaSky-AI/SkyRL@a9564572eb8e91076be43c1bd5e4615e3de17265: skyrl/train/evaluate.py:40-143 `evaluate`
             groups the generator outputs by each sample's `data_source` and adds `eval/all/*`;
             skyrl/train/utils/trainer_utils.py:220-264 `sanitize_data_source` ('/' -> '_'),
             `calculate_per_dataset_metrics` (`eval/{ds}/avg_score`, `eval/{ds}/pass_at_{n}`,
             `eval/{ds}/mean_positive_reward`); skyrl/train/generators/utils.py:184-230 avg_score = the mean reward,
             pass_at_n = the share of problems with a positive reward among their n samples; skyrl/train/trainer.py:
             283-285 resume from the latest checkpoint (`resume_mode` "latest"), :301-307 eval before training at
             `global_step` (0, or the resumed step), :315 training from step 1, :506-545 `trainer/epoch|global_step`, an
             eval when `global_step % eval_interval == 0` or at the last step, one `tracker.log(..., step=global_step,
             commit=True)` a step; skyrl/train/utils/tracking.py:36-83 `wandb.init(project, name)` or the TensorBoard
             adapter (:207-224, `TENSORBOARD_DIR`, `add_scalar(key, value, step)`); skyrl/train/config/config.py:1253
             eval_n_samples_per_prompt 1, :1358 resume_mode "latest", :1373 ckpt_interval 10, :1436-1438
             eval_before_train, eval_interval 5. A multi-source RL run over 3..6 synthetic reasoning sources of one
             difficulty band (tops within 0.04 of a run-wide level), every source in the training mix from step 0, eval
             sets of 60..400 problems of unequal difficulty (1..8 samples each), EVAL ONLY per source (training rewards
             are logged only over the whole batch, `reward/avg_raw_reward`); 70 % through W&B offline, 30 % TensorBoard;
             30 % crash and resume from the last checkpoint (ckpt_interval 10..40): the steps since it are logged again.
             User profile `^eval/(?P<env>…)/(?P<metric>avg_score|pass_at_[0-9]+)$`, its env alternation spelling out
             "any name but `all`" (RE2 has no lookahead).

Truth. Each env has a skill s in [0, 1] at a fractional point index x = (step - activation) / G, G the env's judged
interval (her: 1 epoch; ppo2: 1 update; allenact: the checkpoint interval; skyrl: eval_interval). Judged values: her a
Binomial(n, s) / n; allenact's validation and skyrl's evals the mean outcome over a fixed set of problems of unequal
difficulty (p_i = sigmoid(logit s + b_i), b_i fixed per problem: less noisy than a binomial), so the expected value is
point_mean(s) (simulated), not s; ppo2 the mean of the last 100 episodes, each A + (B - A) clip(s + sd_ep N(0, 1)) with
rare catastrophes. A run's envs (allenact types, skyrl sources) start within 0.04 of its s0 and top within 0.04 of its
s1; her tasks and ppo2 games are runs of their own. Learners rise from s0 to s1 over T = 0.8..2.5 W points (exp,
logistic, sqrt or linear) and hold.
  W  stagnation window  max(min(100 steps, 10 % of the span), 20 G), in steps (the judged series' points)
  Q  tolerance unit     max over the run's envs of max(W / 10, G) = `tolerance_unit` in plan.json; a detection matches
                        a label within 2 Q (the scorer)
"Graduated" (truth) = s has reached s0 + 0.9 (s1 - s0) and then held 0.3 W more (ppo2: + the 100 episodes of its
window).

Labels (onset in steps; "first point" = the env's first judged point at or after the event's true start; one label an
env; in allenact and skyrl runs the first two envs are clean learners and each later one carries an event with
probability 0.65; single-env runs (her tasks, ppo2 games) carry an event with probability 0.55):
  graduated_regression   after graduation + max(W, 10 points): sudden or gradual (ramp over 0.5..1.5 W) fall to keep
                         0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W, 15 points)
                         left). Onset = first judged point whose EXPECTED logged value keeps < 0.85 of the gain (ppo2:
                         the expected 100-episode mean, which crosses the line a part of its window after the
                         episodes fell)
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point (rates: her,
                         allenact, skyrl; ppo2 returns only as its run's only env, README "the only env of a run that
                         never learned ... is stalled"); freeze (rates only): a linear rise over 0.4..0.8 W to 0.2..0.5
                         of the gain, then flat >= 5 W to the end, onset = the first point of the flat
  performance_volatility rates only (her, allenact, skyrl; a 100-episode mean smooths any burst into a slow wander), after
                         graduation + max(W, 10 points): burst (max(W, 20 points) of s scattered |N(0, 0.2..0.3 gain)|
                         below the held level, then calm >= max(W, 15 points) to the end; onset = first point whose
                         expected value is off by > max(0.15 gain, 4 sd)); switch (Markov: s1 and s1 - 0.4..0.6 gain,
                         dwells 6..18 points, >= 9 phases, to the end; onset = first point of the first low phase); wave
                         (s1 - a gain (1 - cos 2 pi (x - at) / P) / 2, a 0.45..0.7, P 8..20 points, >= 4 periods; onset
                         = first point 0.15 gain below the held level); dip (keep 0.1..0.5 for 3..6 points, then back;
                         onset = first point below 0.85 of the gain)
  prolonged_training     (twice as likely as the other events) her, ppo2 and allenact: a steady riser, LINEAR in s (0.62
                         of the gain over the whole series); onset = activation + max(10 Wp, 2 x the median time the
                         run's graduated siblings took to graduate), Wp = max(min(100 steps, 10 % of the span), 20
                         TRAINING intervals) (README: the prolonged window holds 20 points of the env's training
                         logging). None in skyrl (eval only: 10 windows of 20 evals are longer than its runs)
  (eval_gap, unexpected_transition: none of these conventions stops its evals or logs states)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (trials halved until the gain is 5..8
sd), slow_learner (T 3..4.5 W, graduates), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one judged point at s0 + 0.05 gain after graduation; ppo2: one catastrophic episode at its floor).

Visibility (sd of one judged point simulated with the convention's own averaging; the trials a point averages are
doubled up to 3 times until it holds, else the env becomes a clean learner): regression drop >= 4 sd; stall rise >= 5
sd, a never-learner's gap to the top >= 6 sd; switching gap and wave amplitude >= 5 sd; dip drop >= 5 sd; burst sd >= 4
x base sd; prolonged riser: its rise over 4 windows >= 4 standard errors of a line fitted to their points; healthy gain
>= 8 sd (noisy 5..8).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - her and ppo2 env ids come from `run_env` on the task folder (`logs/her/{task}`), each task a run of its own; the
    HER logdir holds params.json and progress.csv as well as `tb/` (what baselines writes), read however curriwatch
    reads such a folder;
  - AllenAct's valid worker evaluates every saved checkpoint; its points carry the checkpoint's step;
  - SkyRL resumes keep the W&B id (WANDB_RUN_ID + WANDB_RESUME=allow): without it every resume is a W&B run of its own
    with the same name, which only `--group` reads as one.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 6
CYCLE = ("her", "allenact", "skyrl", "ppo2", "allenact", "skyrl")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "her": """\
profiles:
  baselines_her:
    patterns:
      - {regex: '^test/(?P<metric>success_rate)$', env: "{run}", split: eval}
      - {regex: '^train/(?P<metric>success_rate)$', env: "{run}", split: train}
    performance_metric: success_rate
    run_env: 'logs/her/(?P<env>[A-Za-z]+-v[0-9]+)'
profile: baselines_her
""",
    "ppo2": """\
profiles:
  baselines_ppo2:
    patterns:
      - {regex: '^eprewmean$', env: "{run}", split: train, metric: return}
    performance_metric: return
    run_env: 'logs/ppo2/(?P<env>[A-Za-z0-9]+-v[0-9]+)'
profile: baselines_ppo2
""",
    "allenact": """\
profiles:
  allenact_objnav:
    patterns:
      - regex: '^(?P<split>train|valid)-metrics/(?P<env>[A-Z][A-Za-z]+)/(?P<metric>success|spl)$'
    performance_metric: success
profile: allenact_objnav
""",
    "skyrl": """\
profiles:
  skyrl_sources:
    patterns:
      - regex: '^eval/(?P<env>[^/]{4,}|[^/a][^/]{0,2}|a[^/l][^/]?|al[^/l])/(?P<metric>avg_score|pass_at_[0-9]+)$'
        split: eval
    performance_metric: avg_score
profile: skyrl_sources
""",
}
HER_TASKS = ("FetchReach-v1", "FetchPush-v1", "FetchPickAndPlace-v1", "HandReach-v0", "HandManipulateBlockRotateZ-v0",
             "HandManipulateEggRotate-v0", "HandManipulatePenRotate-v0")
PPO2_GAMES = {  # task: (A, B, sd_ep, catastrophe prob, cap, floor, episodes an update at s=0, at s=1)
    "BreakoutNoFrameskip-v4": (1.5, 380.0, 0.15, 0.04, 1.15, 0.0, 1.6, 0.25),
    "PongNoFrameskip-v4": (-20.5, 20.0, 0.06, 0.0, 1.02, 0.0, 1.2, 0.35),
    "SeaquestNoFrameskip-v4": (70.0, 1800.0, 0.2, 0.05, 1.2, 0.0, 1.4, 0.5),
    "QbertNoFrameskip-v4": (160.0, 14000.0, 0.15, 0.05, 1.15, 0.0, 1.3, 0.3),
    "Hopper-v2": (20.0, 2300.0, 0.18, 0.06, 1.25, 0.0, 10.0, 2.1),
    "Walker2d-v2": (0.0, 3200.0, 0.2, 0.05, 1.2, 0.0, 9.0, 2.05),
    "HalfCheetah-v2": (-280.0, 1800.0, 0.12, 0.02, 1.15, -0.05, 2.05, 2.05),
    "Swimmer-v2": (10.0, 110.0, 0.1, 0.0, 1.1, 0.0, 2.05, 2.05),
}
OBJECTS = ("AlarmClock", "Apple", "BaseballBat", "BasketBall", "Bowl", "GarbageCan", "HousePlant", "Laptop", "Mug",
           "SprayBottle", "Television", "Vase")
SOURCES = ("gsm8k_easy", "countdown3", "arith_chain", "knights_knaves", "sudoku_4x4", "maze_path", "word_sort",
           "list_functions", "letter_count", "syllogism")
HOSTS = ("tpu-vm-1", "gpu-node-07", "ws-4090", "dgx-a100-2")


@dataclass
class Env:
    name: str
    L: int               # judged points (nominal)
    G: float             # steps between judged points
    step0: int           # activation step (point 0)
    s0: float
    s1: float
    T: float
    kind: str = "binom"  # binom | fixedset | rolling
    n: float = 20.0      # trials a judged point averages
    curve: str = "exp"
    event: str = "healthy"
    variant: str = "healthy"
    severity: str | None = None
    at: float | None = None
    knob: float = 1.0
    params: dict = field(default_factory=dict)

    def trials(self) -> int:
        return max(1, int(round(self.n * self.knob)))


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

def _logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def fixedset_probs(env: Env, s) -> np.ndarray:
    """Per problem of the fixed eval set: its solve probability at skill s (rows: entries of s)."""
    b = env.params["difficulty"][:env.trials()]
    s = np.atleast_1d(np.asarray(s, float))
    z = _logit(s)[:, None] + b[None, :]
    p = 1 / (1 + np.exp(-z))
    return np.where(s[:, None] <= 1e-4, 0.0, np.where(s[:, None] >= 1 - 1e-4, 1.0, p))


def fixedset_values(env: Env, s, rng) -> np.ndarray:
    """The mean outcome over the fixed set (k samples per problem) at each skill in s."""
    p = fixedset_probs(env, s)
    k = env.params.get("samples", 1)
    return rng.binomial(k, p).sum(axis=1) / (k * p.shape[1])


def ep_returns(env: Env, s, rng) -> np.ndarray:
    """ppo2: one episode's return per entry of s."""
    p = env.params
    s = np.asarray(s, float)
    u = s + p["sd_ep"] * rng.standard_normal(len(s))
    bad = rng.random(len(s)) < p["cat"]
    u = np.where(bad, rng.uniform(p["floor"], np.maximum(s, 0.1) * 0.5), u)
    u = np.clip(u, p["floor"], p["cap"])
    return p["A"] + (p["B"] - p["A"]) * u


def ep_expect(env: Env, s) -> np.ndarray:
    """ppo2: the expected return of an episode at skill s (simulated once per level, interpolated)."""
    grid = env.params.get("_grid")
    if grid is None:
        lv = np.linspace(0, 1, 51)
        rng = np.random.default_rng(777)
        grid = np.array([ep_returns(env, np.full(4000, v), rng).mean() for v in lv])
        env.params["_grid"] = grid
    return np.interp(np.asarray(s, float), np.linspace(0, 1, 51), grid)


def sim_points(env: Env, s: float, k: int, rng) -> np.ndarray:
    """k independent judged values at a constant skill s."""
    if env.kind == "binom":
        return rng.binomial(env.trials(), np.clip(s, 0, 1), k) / env.trials()
    if env.kind == "fixedset":
        return fixedset_values(env, np.full(k, s), rng)
    return np.array([ep_returns(env, np.full(100, s), rng).mean() for _ in range(k)])


def point_sd(env: Env, s: float) -> float:
    return float(np.std(sim_points(env, s, 300, np.random.default_rng(12345))))


def point_mean(env: Env, s: float) -> float:
    if env.kind == "binom":
        return float(s)
    if env.kind == "fixedset":
        return float(fixedset_probs(env, np.array([s])).mean())
    return float(ep_expect(env, np.array([s]))[0])


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
    lag = env.params.get("lag", 0.0)  # ppo2: the 100 episodes of its window
    return int(math.ceil(hit[0] + 0.3 * W + lag)) if len(hit) else env.L


def visible(env: Env, check) -> bool:
    base = env.knob
    if env.kind == "rolling":
        return bool(check())
    for k in (1.0, 2.0, 4.0, 8.0):
        env.knob = base * k
        if check():
            return True
    env.knob = base
    return False


def place(run: dict, env: Env, ev: str, W: float, rng) -> bool:
    L = env.L
    g = env.s1 - env.s0
    conv = run["convention"]
    rate = conv != "ppo2"
    if ev == "graduated_regression":
        grad = learn_end(env, W)
        lag = env.params.get("lag", 0.0)
        margin, tail = max(W, 10), max(2 * W, 15) + lag
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
        return visible(env, lambda: gain_E(env, ks, env.s1) >= 4 * max(point_sd(env, env.s1), point_sd(env, ks)))
    if ev == "training_stagnation":
        variant = str(rng.choice(["never", "freeze"])) if rate else "never"
        if variant == "never":
            if L < 6 * W:
                return False
            env.event, env.variant = ev, variant
            return visible(env, lambda: gain_E(env, env.s0, env.s1) >= 6 * max(point_sd(env, env.s0), 1e-9))
        R = float(rng.uniform(max(0.4 * W, 6), max(0.8 * W, 7)))
        if L - R < 5 * W:
            return False
        fr = float(rng.uniform(0.2, 0.5))
        env.event, env.variant = ev, variant
        env.params.update(R=R, fr=fr)
        fs = env.s0 + fr * g
        return visible(env, lambda: gain_E(env, env.s0, fs) >= 5 * point_sd(env, fs))
    if ev == "performance_volatility":
        if not rate:
            return False
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
            return visible(env, lambda: c * gain_E(env, env.s0, env.s1) >= 4 * point_sd(env, env.s1))
        if variant == "dip":
            D = int(rng.integers(3, 7))
            lo, hi = grad + margin, L - max(W, 15) - D
            if int(lo) >= int(hi):
                return False
            keep = float(rng.uniform(0.1, 0.5))
            env.event, env.variant, env.at = ev, variant, int(rng.integers(int(lo), int(hi)))
            env.params.update(D=D, keep=keep)
            ks = env.s0 + keep * g
            return visible(env, lambda: gain_E(env, ks, env.s1) >= 5 * max(point_sd(env, env.s1), point_sd(env, ks)))
        if variant == "wave":
            P = float(rng.uniform(8, 20))
            amp = float(rng.uniform(0.45, 0.7))
            start = int(grad + margin)
            if L - start < 4 * P or L - start < 2 * W:
                return False
            env.event, env.variant, env.at = ev, variant, start
            env.params.update(P=P, amp=amp)
            return visible(env, lambda: gain_E(env, env.s1 - amp * g, env.s1) >= 5 * point_sd(env, env.s1 - 0.5 * amp * g))
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
        return visible(env, lambda: gain_E(env, ls, env.s1) >= 5 * max(point_sd(env, env.s1), point_sd(env, ls)))
    if ev == "prolonged_training":
        if conv == "skyrl" or run.get("n_risers", 0) >= 2:
            return False
        first = env.params["pro_after"]
        if L - 1 < first + 10:
            return False
        rate_ = 0.62 / max(L - 1, 1)
        env.event, env.variant = ev, "riser"
        env.params.update(rate=rate_)

        def riser_ok():  # a climb seen as one over 4 windows (the least a stall that progress ends lasts)
            sd = point_sd(env, env.s0 + 0.3 * g)
            se_rise = sd * math.sqrt(12.0 / max(4 * W, 3))
            return gain_E(env, env.s0, env.s0 + rate_ * g * 4 * W) >= 4 * se_rise
        if visible(env, riser_ok):
            run["n_risers"] = run.get("n_risers", 0) + 1
            return True
        return False
    raise ValueError(ev)


NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")


def apply_negative(env: Env, neg: str, W: float, rng) -> None:
    L, g = env.L, env.s1 - env.s0
    env.event = env.variant = neg
    if neg == "noisy_healthy":
        if env.kind == "rolling":
            env.params["sd_ep"] *= 2.0
        else:
            for _ in range(6):
                if gain_E(env, env.s0, env.s1) / max(point_sd(env, 0.5 * (env.s0 + env.s1)), 1e-9) < 8 or \
                        env.trials() <= 2:
                    break
                env.knob *= 0.5
            if gain_E(env, env.s0, env.s1) < 5 * point_sd(env, 0.5 * (env.s0 + env.s1)):
                env.knob *= 2
    elif neg == "slow_learner":
        T = float(rng.uniform(3.0, 4.5)) * W
        if T + 2 * W + env.params.get("lag", 0.0) < L:
            env.T = T
        else:
            env.event = env.variant = "healthy"
    elif neg == "level_shift":
        grad = learn_end(env, W)
        shift = float(rng.uniform(0.04, 0.06))
        room = env.s1 + shift * g <= (0.995 if env.kind != "rolling" else 1.0)
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
    visible(env, lambda: gain_E(env, env.s0, env.s1) >= 8 * point_sd(env, 0.5 * (env.s0 + env.s1)))
    lag = env.params.get("lag", 0.0)
    if env.T + 2 * W + lag >= env.L:
        env.T = max(0.8 * W, (env.L - 2 * W - lag) * 0.8)
    if rng.random() < p_event:
        for _ in range(3):
            ev = str(rng.choice(pool))
            saved = (env.knob, dict(env.params))
            if place(run, env, ev, W, rng):
                return
            env.knob, env.params = saved
            env.event, env.variant, env.severity, env.at = "healthy", "healthy", None, None
    apply_negative(env, str(rng.choice(NEGATIVES)), W, rng)


def window(G: float, span: float) -> float:
    """The stagnation window in steps: max(min(100, 10 % of the span), 20 points)."""
    return max(min(100.0, 0.1 * span), 20.0 * G)


# --- planning ------------------------------------------------------------------------------------------------------

def _difficulty(rng, m: int, spread: float) -> np.ndarray:
    return rng.normal(0.0, spread, m)


def plan_her(run: dict, rng) -> list[Env]:
    tasks = [str(t) for t in rng.permutation(HER_TASKS)[:int(rng.integers(2, 5))]]
    ranks = int(rng.choice([1, 1, 2, 4, 8]))
    run.update(ranks=ranks, tasks=tasks)
    envs = []
    for t in tasks:
        N = int(rng.integers(60, 301))
        e = Env(t, N, 1.0, 1, float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.88, 0.99)), 0.0, kind="binom",
                n=20.0 * ranks)
        n_cycles = 10 if t == "FetchReach-v1" else 50
        e.params.update(ranks=ranks, n_cycles=n_cycles, host=str(rng.choice(HOSTS)),
                        t0=1.62e9 + float(rng.integers(0, 10 ** 7)), secs=float(rng.uniform(20, 120)))
        envs.append(e)
    return envs


def plan_ppo2(run: dict, rng) -> list[Env]:
    games = [str(t) for t in rng.permutation(list(PPO2_GAMES))[:int(rng.integers(2, 4))]]
    run.update(tasks=games)
    envs = []
    for gm in games:
        A, B, sd, cat, cap, floor, lam0, lam1 = PPO2_GAMES[gm]
        N = int(rng.integers(400, 2401))
        e = Env(gm, N, 1.0, 1, float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.82, 0.95)), 0.0, kind="rolling",
                n=100.0)
        e.params.update(A=A, B=B, sd_ep=sd * float(rng.uniform(0.7, 1.4)), cat=cat, cap=cap, floor=floor,
                        lam0=lam0, lam1=lam1, host=str(rng.choice(HOSTS)), t0=1.55e9 + float(rng.integers(0, 10 ** 7)),
                        secs=float(rng.uniform(1.5, 6.0)))
        e.params["lag"] = 100.0 / max(min(lam0, lam1), 0.2)
        envs.append(e)
    return envs


def plan_allenact(run: dict, rng) -> tuple[list[Env], float]:
    save_every = int(rng.choice([2_000_000, 2_500_000, 5_000_000]))
    per_save = int(rng.integers(5, 11))
    acc = save_every // per_save
    n_saves = int(rng.integers(70, 171))
    total = save_every * n_saves
    types = [str(o) for o in rng.permutation(OBJECTS)[:int(rng.integers(4, 10))]]
    eps_per_acc = float(rng.uniform(8, 30)) * len(types) / 6
    run.update(save_interval=save_every, metric_accumulate_interval=acc, total_steps=total, types=types,
               eps_per_interval=eps_per_acc, start_time=f"2025-0{int(rng.integers(1, 10))}-1{int(rng.integers(0, 10))}"
               f"_0{int(rng.integers(0, 10))}-{int(rng.integers(10, 60))}-{int(rng.integers(10, 60))}",
               host=str(rng.choice(HOSTS)))
    s0r, s1r = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.8, 0.95))
    waves = rng.random() < 0.4
    m = int(rng.integers(12, 41))
    envs = []
    for k, nm in enumerate(types):
        unlock = 0
        if waves and k >= 2:
            unlock = int(rng.uniform(0.1, 0.35) * n_saves) * save_every
        L = (total - unlock) // save_every + 1
        e = Env(nm, L, float(save_every), unlock, float(np.clip(s0r + rng.uniform(-0.04, 0.04), 0, 1)),
                float(np.clip(s1r + rng.uniform(-0.04, 0.04), 0, 0.99)), 0.0, kind="fixedset", n=float(m))
        e.params["difficulty"] = _difficulty(rng, m * 8, float(rng.uniform(0.8, 1.6)))
        e.params["samples"] = 1
        e.params["train_G"] = float(acc)
        envs.append(e)
    return envs, float(total)


def plan_skyrl(run: dict, rng) -> tuple[list[Env], float]:
    ei = int(rng.choice([5, 5, 10, 10, 20]))
    n_evals = int(rng.integers(70, 181))
    total = ei * n_evals
    srcs = [str(s) for s in rng.permutation(SOURCES)[:int(rng.integers(3, 7))]]
    k = int(rng.choice([1, 1, 2, 4, 8]))
    run.update(eval_interval=ei, total_steps=total, sources=srcs, samples=k, backend="wandb" if rng.random() < 0.7
               else "tensorboard", ckpt_interval=int(rng.choice([10, 20, 40])),
               exp_name=f"grpo_{int(rng.integers(1, 9))}b_mix_{run['seed'] % 10000:04d}")
    resume = None
    if rng.random() < 0.3:
        crash = int(total * rng.uniform(0.35, 0.75))
        resume = {"crash": crash, "ckpt": crash - crash % run["ckpt_interval"]}
    run["resume"] = resume
    s0r, s1r = float(rng.uniform(0.02, 0.2)), float(rng.uniform(0.78, 0.93))
    envs = []
    for nm in srcs:
        m = int(rng.integers(60, 401))
        e = Env(nm, n_evals + 1, float(ei), 0, float(np.clip(s0r + rng.uniform(-0.04, 0.04), 0, 1)),
                float(np.clip(s1r + rng.uniform(-0.04, 0.04), 0, 0.99)), 0.0, kind="fixedset", n=float(m))
        e.params["difficulty"] = _difficulty(rng, m * 8, float(rng.uniform(1.0, 2.2)))
        e.params["samples"] = k
        envs.append(e)
    return envs, float(total)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility"]
    if conv == "her":
        envs = plan_her(run, rng)
        spans = [e.L - 1 for e in envs]
    elif conv == "ppo2":
        envs = plan_ppo2(run, rng)
        spans = [e.L - 1 for e in envs]
    elif conv == "allenact":
        envs, total = plan_allenact(run, rng)
        spans = [total] * len(envs)
    else:
        envs, total = plan_skyrl(run, rng)
        spans = [total] * len(envs)
    run["envs"] = envs
    Ws = []
    for k, env in enumerate(envs):
        W = window(env.G, spans[k]) / env.G
        env.params["W"] = W
        tG = env.params.get("train_G", env.G)
        env.params["Wp"] = window(tG, spans[k]) / env.G  # the prolonged window, in judged points
        env.T = float(rng.uniform(0.8, 2.5)) * W
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if conv in ("allenact", "skyrl"):
        grads = [grad_points(e, spans[k]) for k, e in enumerate(envs[:2])]
        for k, env in enumerate(envs):
            env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)))
            extra = ["prolonged_training"] * 2 if conv == "allenact" else []
            assign(run, env, Ws[k], 0.0 if k < 2 else 0.65, pool + extra, rng)
        # README: at least twice the median time the run's graduated envs took -- every graduated sibling, not only
        # the first two; a riser whose limit then falls past its series is made a clean learner
        grads = [grad_points(e, spans[k]) for k, e in enumerate(envs) if e.variant in GRADUATING]
        lim = 2 * float(np.median(grads)) if grads else 0.0
        for k, env in enumerate(envs):  # an event env graduates within the limit (its event is its one label)
            if env.event in EVENTS and env.variant in GRADUATING and grad_points(env, spans[k]) > \
                    max(10 * env.params["Wp"], lim) - 2:
                env.T = max(0.8 * Ws[k], env.T * 0.6)
        grads = [grad_points(e, spans[k]) for k, e in enumerate(envs) if e.variant in GRADUATING]
        for k, env in enumerate(envs):
            limit = max(10 * env.params["Wp"], 2 * float(np.median(grads)) if grads else 0.0)
            if env.event not in EVENTS and env.variant in GRADUATING and grad_points(env, spans[k]) > limit + 1 \
                    and env.L - 1 > limit + 10:
                # README: active longer than the limit without graduating is prolonged_training, however it ends
                env.event = "prolonged_training"
                env.params["pro_after"] = limit
                continue
            if env.variant != "riser":
                continue
            env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)) if grads else 0.0)
            if env.L - 1 < env.params["pro_after"] + 10:
                env.event = env.variant = "healthy"
                env.params.pop("rate", None)
    else:
        for k, env in enumerate(envs):
            env.params["pro_after"] = 10 * env.params["Wp"]
            run["n_risers"] = 0  # each task is a run of its own
            assign(run, env, Ws[k], 0.55, pool + ["prolonged_training"] * 2, rng)


GRADUATING = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "sudden", "gradual", "dip",
              "burst", "switch", "wave")


def grad_points(env: Env, span: float) -> float:
    """Points from activation to the README's graduation: 90 % of the gain reached, then held for plateau_window (50
    steps, at most 5 % of the span, at least 3 points)."""
    x = np.arange(env.L, dtype=float)
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, x / env.T)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    hold = max(3.0, min(50.0, 0.05 * span) / env.G)
    return float(hit[0] + hold) if len(hit) else float(env.L)


# --- labelling -------------------------------------------------------------------------------------------------------

def expected_judged(env: Env, x: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """The expected logged value at each judged point (ppo2: the expected 100-episode mean)."""
    if env.kind == "rolling":
        em = env.params["_expected_mean"]  # step -> expected rolling mean, from the writer
        return np.array([em.get(int(t), np.nan) for t in steps])
    return np.array([point_mean(env, v) for v in truth(env, x)])


def label_for(run: dict, env: Env, steps: np.ndarray) -> list[dict]:
    """steps: the env's judged points (sorted, unique)."""
    if env.event not in EVENTS:
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
    elif v == "freeze":
        onset = first_at(p["R"])
    elif v == "riser" or env.event == "prolonged_training":
        onset = int(round(p.get("first_logged", env.step0) + p["pro_after"] * env.G))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual", "dip"):
        ev = expected_judged(env, x, steps)
        line = point_mean(env, env.s0) + 0.85 * (point_mean(env, env.s1) - point_mean(env, env.s0))
        below = np.flatnonzero((x >= env.at) & (ev < line - 1e-12))
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


# --- writers -----------------------------------------------------------------------------------------------------------

def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


_PROTO: dict = {}


def _proto():
    if not _PROTO:
        from tensorboardX.proto import event_pb2
        from tensorboardX.proto.summary_pb2 import Summary
        _PROTO.update(Event=event_pb2.Event, Summary=Summary)
    return _PROTO


def _baselines_event_file(path: Path, dumps: list[tuple[float, int, dict]]) -> None:
    """baselines' TensorBoardOutputFormat: the file-version event, then one Event per dumpkvs holding every key as a
    simple_value of ONE Summary, at step = the dump's number from 1 (NaN values written as they are)."""
    from tensorboardX.record_writer import RecordWriter

    P = _proto()
    path.parent.mkdir(parents=True, exist_ok=True)
    rw = RecordWriter(str(path))
    t0 = dumps[0][0] if dumps else 1.6e9
    rw.write(P["Event"](wall_time=t0, file_version="brain.Event:2").SerializeToString())
    for wall, step, kvs in dumps:
        summ = P["Summary"](value=[P["Summary"].Value(tag=k, simple_value=float(v)) for k, v in kvs.items()])
        rw.write(P["Event"](wall_time=wall, step=int(step), summary=summ).SerializeToString())
    rw.flush()
    rw.close()


def _baselines_csv(path: Path, dumps: list[tuple[float, int, dict]]) -> None:
    """baselines' CSVOutputFormat: keys in the first row's order (new keys sorted and appended), empty when absent."""
    keys: list[str] = []
    rows = []
    for _w, _s, kvs in dumps:
        extra = sorted(set(kvs) - set(keys))
        keys.extend(extra)
        rows.append(kvs)
    lines = [",".join(keys)]
    for kvs in rows:
        lines.append(",".join("" if k not in kvs else ("nan" if isinstance(kvs[k], float) and math.isnan(kvs[k])
                                                       else repr(kvs[k]) if isinstance(kvs[k], float) else str(kvs[k]))
                              for k in keys))
    path.write_text("\n".join(lines) + "\n")


def _baselines_log(path: Path, dumps: list[tuple[float, int, dict]], head: str) -> None:
    out = [head]
    for _w, _s, kvs in dumps:
        width = max(len(k) for k in kvs) + 2
        bar = "-" * (width + 14)
        out.append(bar)
        for k, v in kvs.items():
            out.append(f"| {k:<{width - 2}} | {v:<9.3g} |" if isinstance(v, float) else f"| {k:<{width - 2}} | {v:<9} |")
        out.append(bar)
    path.write_text("\n".join(out) + "\n")


def write_her(folder: Path, run: dict, rng) -> dict:
    judged = {}
    for env in run["envs"]:
        p = env.params
        d = folder / "logs" / "her" / env.name
        d.mkdir(parents=True, exist_ok=True)
        prng = np.random.default_rng(run["seed"] + 31 + zlib.crc32(env.name.encode()) % 1000)
        N = env.L
        epochs = np.arange(N)
        x = epochs.astype(float)  # point index = epoch (step = epoch + 1)
        s = truth(env, x)
        n_test = env.trials()
        n_train = p["n_cycles"] * 2 * p["ranks"] * max(1, int(round(env.knob)))
        test = prng.binomial(n_test, s) / n_test
        s_train = np.clip(s * (1 - 0.3 * 0.7) - 0.02, 0, 1)  # random_eps 0.3 and action noise while exploring
        train = prng.binomial(n_train, s_train) / n_train
        if env.variant == "single_outlier":
            test[int(env.at)] = round(point_mean(env, env.s0 + 0.05 * (env.s1 - env.s0)) * n_test) / n_test
        dumps = []
        ep_test = ep_train = 0
        for e in epochs:
            ep_test += 10 * 2
            ep_train += p["n_cycles"] * 2
            q = float(-2.0 - 8.0 * (1 - s[e]) + prng.normal(0, 0.2))
            kvs = {"epoch": int(e), "test/success_rate": float(test[e]), "test/mean_Q": q, "test/episode": ep_test,
                   "train/success_rate": float(train[e]), "train/episode": ep_train,
                   "stats_o/mean": float(0.3 + prng.normal(0, 0.01)), "stats_o/std": float(0.05 + prng.normal(0, 0.002)),
                   "stats_g/mean": float(0.6 + prng.normal(0, 0.01)), "stats_g/std": float(0.1 + prng.normal(0, 0.002))}
            dumps.append((p["t0"] + (e + 1) * p["secs"], int(e) + 1, kvs))
        params = {"max_u": 1.0, "layers": 3, "hidden": 256, "network_class": "baselines.her.actor_critic:ActorCritic",
                  "Q_lr": 0.001, "pi_lr": 0.001, "buffer_size": 1000000, "polyak": 0.95, "action_l2": 1.0,
                  "clip_obs": 200.0, "scope": "ddpg", "relative_goals": False, "n_cycles": p["n_cycles"],
                  "rollout_batch_size": 2, "n_batches": 40, "batch_size": 256, "n_test_rollouts": 10,
                  "test_with_polyak": False, "random_eps": 0.3, "noise_eps": 0.2, "replay_strategy": "future",
                  "replay_k": 4, "norm_eps": 0.01, "norm_clip": 5, "bc_loss": 0, "q_filter": 0, "num_demo": 100,
                  "demo_batch_size": 128, "prm_loss_weight": 0.001, "aux_loss_weight": 0.0078, "env_name": env.name}
        (d / "params.json").write_text(json.dumps(params))
        _baselines_csv(d / "progress.csv", dumps)
        _baselines_log(d / "log.txt", dumps, f"Logging to {d.resolve()}\nTraining...")
        _baselines_event_file(d / "tb" / f"events.out.tfevents.{int(p['t0'])}.{p['host']}", dumps)
        judged[env.name] = epochs + 1
    return judged


def write_ppo2(folder: Path, run: dict, rng) -> dict:
    judged = {}
    for env in run["envs"]:
        p = env.params
        d = folder / "logs" / "ppo2" / env.name
        d.mkdir(parents=True, exist_ok=True)
        prng = np.random.default_rng(run["seed"] + 57 + zlib.crc32(env.name.encode()) % 1000)
        N = env.L
        updates = np.arange(1, N + 1)
        x = (updates - 1).astype(float)
        s = truth(env, x)
        lam = p["lam0"] + (p["lam1"] - p["lam0"]) * s
        n_eps = prng.poisson(lam)
        rets, lens, exps = [], [], []
        out_at = None
        if env.variant == "single_outlier":
            out_at = int(env.at)
        em = {}
        dumps = []
        buf_r: list[float] = []
        buf_e: list[float] = []
        buf_l: list[float] = []
        for i, u in enumerate(updates):
            k = int(n_eps[i])
            if k:
                r = ep_returns(env, np.full(k, s[i]), prng)
                if out_at is not None and i >= out_at:
                    r[0] = p["A"] + (p["B"] - p["A"]) * p["floor"]
                    out_at = None
                ex = ep_expect(env, np.full(k, s[i]))
                ln = np.maximum(10, (1000 if p["lam1"] > 2 else 2500) * (0.3 + 0.7 * s[i]) * prng.uniform(0.7, 1.3, k))
                buf_r = (buf_r + [float(v) for v in r])[-100:]
                buf_e = (buf_e + [float(v) for v in ex])[-100:]
                buf_l = (buf_l + [float(v) for v in ln])[-100:]
            rm = float(np.mean(buf_r)) if buf_r else float("nan")
            if buf_e:
                em[int(u)] = float(np.mean(buf_e))
            kvs = {"misc/serial_timesteps": int(u * 128), "misc/nupdates": int(u), "misc/total_timesteps": int(u * 1024),
                   "fps": int(1024 / p["secs"] * prng.uniform(0.9, 1.1)),
                   "misc/explained_variance": float(np.clip(0.2 + 0.7 * s[i] + prng.normal(0, 0.05), -1, 1)),
                   "eprewmean": rm, "eplenmean": float(np.mean(buf_l)) if buf_l else float("nan"),
                   "misc/time_elapsed": float(u * p["secs"])}
            for ln_name in ("policy_loss", "value_loss", "policy_entropy", "approxkl", "clipfrac"):
                kvs[f"loss/{ln_name}"] = float(abs(prng.normal(0.02, 0.01)))
            dumps.append((p["t0"] + u * p["secs"], int(u), kvs))
        p["_expected_mean"] = em
        p["first_logged"] = min(em) if em else env.step0
        _baselines_csv(d / "progress.csv", dumps)
        _baselines_log(d / "log.txt", dumps, f"Logging to {d.resolve()}")
        _baselines_event_file(d / "tb" / f"events.out.tfevents.{int(p['t0'])}.{p['host']}", dumps)
        judged[env.name] = np.array(sorted(em), dtype=np.int64)
    return judged


def write_allenact(folder: Path, run: dict, rng) -> dict:
    from tensorboardX import SummaryWriter

    prng = np.random.default_rng(run["seed"] + 71)
    acc, save, total = run["metric_accumulate_interval"], run["save_interval"], run["total_steps"]
    envs = run["envs"]
    tr_steps = np.arange(acc, total + 1, acc, dtype=np.int64)
    valid_steps = np.arange(save, total + 1, save, dtype=np.int64)
    events = []  # (order key, wall, step, tag, value)
    wall0 = 1.74e9 + float(prng.integers(0, 10 ** 6))
    secs_per_step = float(prng.uniform(1 / 900, 1 / 300))
    judged = {e.name: [] for e in envs}
    for j, t in enumerate(tr_steps):
        wall = wall0 + t * secs_per_step
        active = [e for e in envs if t > e.step0]
        succ_all, spl_all, n_all = 0.0, 0.0, 0
        for e in active:
            x = (t - e.step0) / e.G
            s = float(truth(e, np.array([x]))[0])
            k = int(prng.poisson(run["eps_per_interval"] / max(len(active), 1)))
            if k == 0:
                continue
            ok = prng.random(k) < s
            spl = np.where(ok, prng.uniform(0.45, 0.9, k), 0.0)
            e.params["first_logged"] = min(e.params.get("first_logged", int(t)), int(t))
            events.append((wall, wall, int(t), f"train-metrics/{e.name}/success", float(ok.mean())))
            events.append((wall, wall, int(t), f"train-metrics/{e.name}/spl", float(spl.mean())))
            succ_all += ok.sum()
            spl_all += spl.sum()
            n_all += k
        events.append((wall, wall, int(t), "train-misc/pipeline_stage", 0.0))
        events.append((wall, wall, int(t), "train-misc/onpolicy_total_experiences", float(t)))
        if n_all:
            events.append((wall, wall, int(t), "train-metrics/success", succ_all / n_all))
            events.append((wall, wall, int(t), "train-metrics/spl", spl_all / n_all))
            events.append((wall, wall, int(t), "train-metrics/ep_length", float(prng.uniform(60, 300))))
        for ln in ("ppo_loss/action", "ppo_loss/value", "ppo_loss/entropy", "ppo_loss/total"):
            events.append((wall, wall, int(t), f"train-losses/{ln}", float(prng.normal(0.1, 0.03))))
        events.append((wall, wall, int(t), "train-misc/approx_fps", float(1 / secs_per_step * prng.uniform(0.9, 1.1))))
        events.append((wall, wall, int(t), "train-misc/num_tasks_completed_since_last_log", float(n_all)))
    for t in valid_steps:
        late = int(prng.integers(1, 4)) * acc
        wall = wall0 + (t + late) * secs_per_step + 1.0
        n_v = 0
        for e in envs:
            if t < e.step0:
                continue
            x = (t - e.step0) / e.G
            s = truth(e, np.array([x]))
            if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
                s = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
            v = float(fixedset_values(e, s, prng)[0])
            spl = v * float(prng.uniform(0.55, 0.75))
            events.append((wall, wall, int(t), f"valid-metrics/{e.name}/success", v))
            events.append((wall, wall, int(t), f"valid-metrics/{e.name}/spl", spl))
            judged[e.name].append(int(t))
            e.params["first_logged"] = min(e.params.get("first_logged", int(t)), int(t))
            n_v += e.trials()
        events.append((wall, wall, int(t), "valid-misc/num_tasks_completed_since_last_log", float(n_v)))
    events.sort(key=lambda r: r[0])
    tag = "ObjectNav-RoboTHOR-RGB-ResNet18GRU-DDPPO"
    d = folder / "storage" / "objectnav" / "tb" / tag / run["start_time"]
    d.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000, filename_suffix=f"__train_{run['start_time']}")
        for _o, wall, step, tg, val in events:
            w.add_scalar(tg, val, step, walltime=wall)
        w.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, d / f"events.out.tfevents.{int(wall0)}.{run['host']}__train_{run['start_time']}")
    return {k: np.array(sorted(set(v)), dtype=np.int64) for k, v in judged.items()}


def _skyrl_rows(run: dict, s_from: int, s_to: int, first_eval: bool, prng) -> list[tuple[int, dict]]:
    """Rows of one trainer process: eval before training at s_from (if asked), then steps s_from+1..s_to."""
    rows = []
    ei, k = run["eval_interval"], run["samples"]

    def evals(step):
        out, allv, alln = {}, 0.0, 0
        for e in run["envs"]:
            x = (step - e.step0) / e.G
            s = truth(e, np.array([x]))
            if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
                s = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
            p = fixedset_probs(e, s)[0]
            wins = prng.binomial(k, p)
            avg = float(wins.sum() / (k * len(p)))
            out[f"eval/{e.name}/avg_score"] = avg
            out[f"eval/{e.name}/pass_at_{k}"] = float((wins > 0).mean())
            out[f"eval/{e.name}/mean_positive_reward"] = avg
            allv += wins.sum()
            alln += k * len(p)
        out["eval/all/avg_score"] = allv / alln
        out[f"eval/all/pass_at_{k}"] = float(np.mean([out[f"eval/{e.name}/pass_at_{k}"] for e in run["envs"]]))
        out["eval/all/mean_positive_reward"] = allv / alln
        out["eval/all/generate/avg_num_tokens"] = float(prng.uniform(300, 900))
        return out
    if first_eval:
        rows.append((s_from, evals(s_from)))
    for step in range(s_from + 1, s_to + 1):
        sm = np.mean([float(truth(e, np.array([(step - e.step0) / e.G]))[0]) for e in run["envs"]])
        row = {"reward/avg_raw_reward": float(np.clip(sm + prng.normal(0, 0.04), 0, 1)),
               f"reward/avg_pass_at_{max(k, 4)}": float(np.clip(sm + 0.1 + prng.normal(0, 0.04), 0, 1)),
               "policy/policy_loss": float(prng.normal(0, 0.02)), "policy/grad_norm": float(abs(prng.normal(0.3, 0.1))),
               "trainer/epoch": int(step // 100), "trainer/global_step": int(step),
               "timing/step": float(prng.uniform(40, 90)), "timing/generate": float(prng.uniform(20, 60))}
        if step % ei == 0 or step == run["total_steps"]:
            row.update(evals(step))
            row["timing/eval"] = float(prng.uniform(30, 80))
        rows.append((step, row))
    return rows


def write_skyrl(folder: Path, run: dict, rng) -> dict:
    rs = run["resume"]
    procs = [(0, rs["crash"], True), (rs["ckpt"], run["total_steps"], True)] if rs else [(0, run["total_steps"], True)]
    judged: dict[str, set] = {e.name: set() for e in run["envs"]}
    rid = f"{run['seed'] % 36 ** 8:08x}"[:8]
    for k, (a, b, first) in enumerate(procs):
        prng = np.random.default_rng(run["seed"] + 91 + 13 * k)
        rows = _skyrl_rows(run, a, b, first, prng)
        for step, row in rows:
            if any(key.endswith("/avg_score") and not key.startswith("eval/all/") for key in row):
                for e in run["envs"]:
                    judged[e.name].add(int(step))
        if run["backend"] == "wandb":
            _tests_on_path()
            import wandb
            from writers import wait_until_complete

            with tempfile.TemporaryDirectory() as tmp:
                wr = wandb.init(id=rid, project="skyrl", name=run["exp_name"], mode="offline", dir=tmp,
                                config={"trainer": {"eval_interval": run["eval_interval"], "ckpt_interval":
                                                    run["ckpt_interval"]}, "generator": {"eval_n_samples_per_prompt":
                                                                                         run["samples"]}},
                                resume="allow" if k else None,
                                settings=wandb.Settings(x_disable_stats=True, console="off"))
                for step, row in rows:
                    wr.log(row, step=int(step), commit=True)
                wr.finish()
                wandb.teardown()
                src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
                wait_until_complete(src)
                stamp = "20260301_080000" if k == 0 else "20260302_140000"
                dest = folder / "wandb" / f"offline-run-{stamp}-{rid}" / src.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)
        else:
            from tensorboardX import SummaryWriter

            d = folder / "tensorboard_log" / run["exp_name"]
            d.mkdir(parents=True, exist_ok=True)
            wall0 = 1.76e9 + k * 200000.0
            with tempfile.TemporaryDirectory() as tmp:
                w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
                for step, row in rows:
                    for key, val in row.items():
                        w.add_scalar(key, float(val), int(step), walltime=wall0 + 60.0 * (step - a))
                w.close()
                src = next(Path(tmp).glob("events.out.tfevents.*"))
                shutil.copyfile(src, d / f"events.out.tfevents.{int(wall0)}.{HOSTS[k % len(HOSTS)]}.{3120 + k}.0")
    return {k: np.array(sorted(v), dtype=np.int64) for k, v in judged.items()}


# --- build -------------------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    writer = {"her": write_her, "ppo2": write_ppo2, "allenact": write_allenact, "skyrl": write_skyrl}[conv]
    judged = writer(folder, run, wrng)
    tol = []
    for env in run["envs"]:
        W = env.params["W"]
        tol.append(max(W * env.G / 10.0, env.G))
        labels.extend(label_for(run, env, judged[env.name]))
    meta = {k: v for k, v in run.items() if k not in ("envs",)}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(round(min(e.G for e in run["envs"]))))
    meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "L": e.L, "G": e.G, "step0": e.step0, "s0": e.s0, "s1": e.s1, "T": e.T, "curve": e.curve,
                     "at": e.at, "knob": e.knob, "kind": e.kind, "trials": e.trials(),
                     "judged_points": int(len(judged[e.name])),
                     "params": {k: v for k, v in e.params.items()
                                if k not in ("drops", "phases", "difficulty", "_grid", "_expected_mean")},
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
    rng = np.random.default_rng([seed, 25])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"y{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
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
    if isinstance(o, tuple):
        return list(o)
    return str(o)
