"""The twenty-sixth detection corpus (`python benchmarks/detection.py --corpus twentysixth`): written by a helper from
the user-facing contract only (README's rule table, key profiles, user profiles with `env: "{run}"`, `run_env`,
metric direction, what a rate is, logging shapes, which files are read, what `unknown` means; detection.py's label
format and scorer; the twenty-fourth and twenty-fifth corpora as examples of the interface; tests/writers.py), without
reading the analysis code and without looking at which cases curriwatch misses. Meant to be read for its totals, never
tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentysixth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (20 smac, 20 prime, 10 gymma, 10 mtrl), one group folder per convention, each
with a curriwatch.yaml forcing a user profile. Chosen for what the twenty-five other corpora do not cover: EPYMARL's
multi-agent runs (the `tensorboard_logger` package's `log_value(key, value, t_env)` of flat stat names at the env-step
count, a test every `test_interval` env steps over `test_nepisode` greedy episodes beside training stats every
`runner_log_interval`, both at irregular steps — a test or log comes after the first episode that crosses its
interval —, one `results/tb_logs/{alg}_seed{seed}_{map}_{datetime.now()}` folder per map of a user's sweep, sacred's
FileStorageObserver JSON beside it); PRIME-RL's orchestrator (its default FileMonitor appending `{"step", "time",
**metrics}` rows to `{output_dir}/metrics.jsonl`, trainer rows interleaved in the same file, per-env keys
`train/{env}/{all|effective}/{agent}/reward/mean` every step and `eval/{env}/{subset}/{agent}/avg@{k}` rows written when
the asynchronous eval epoch completes, behind training rows of later steps; optionally its W&B monitor, rows without
`step=` stepped by `define_metric("*", step_metric="step")`; resumed from a checkpoint by appending to the same file and
starting a new W&B run); and facebookresearch MTRL's Meta-World multi-task logger (JSON lines in `{save_dir}/eval.log`
and `train.log`, per-task keys `success_env_index_{i}` whose task is only an index; KEPT although curriwatch reads no such
file, see "Not read" below):

  smac / gymma  uoe-agents/epymarl@cbc38c09588064eab978501d0f12c2cf58fa7fc2: src/run.py:46-56 `unique_token =
             f"{name}_seed{seed}_{map_name}_{datetime.datetime.now()}"` (map_name = env_args map_name, else the gymma
             `key`), `results/tb_logs/{unique_token}` and `logger.setup_tb`; src/utils/logging.py:20-24 `from
             tensorboard_logger import configure, log_value`, :85-89 `log_stat(key, value, t)` -> `log_value(key,
             value, t)`; src/run.py:189 `last_test_T = -args.test_interval - 1`, :198 `while runner.t_env <= t_max`,
             :216-231 a test of `test_nepisode` episodes once `(t_env - last_test_T) / test_interval >= 1`, :262
             `log_stat("episode", episode, t_env)` every log_interval; src/runners/episode_runner.py:40
             `log_train_stats_t = -1000000`, :127-152 env_info stats summed per episode (SMAC's `battle_won`,
             `dead_allies`, `dead_enemies`, `episode_limit`), `test_` prefix, logged when the test's episodes are
             done or every `runner_log_interval` of training, :156-186 `_log`: `{prefix}return_mean|std` and
             `{prefix}{k}_mean` = sum / n_episodes; src/config/envs/sc2.yaml:35-40 and gymma.yaml:9-14 test_nepisode
             100, test_interval 50000, runner_log_interval 10000, t_max 2050000; src/config/algs/qmix.yaml:4-7 epsilon
             1.0 -> 0.05 over 50000 steps; src/main.py:127 sacred's `results/sacred/{name}/{map_name}`. smac: SMAC maps
             (the judged `test_battle_won_mean`, a rate of 32 or 100 test episodes; pymarl's 10,000-step / 32-episode
             tests or epymarl's 50,000 / 100), gymma: LBF (normalized returns in [0, 1] on a 1/food lattice), RWARE
             (deliveries, counts) and MPE (negative returns), judged `test_return_mean` over 20..100 episodes. Each map a
             run of its own (2..4 maps a sweep), 2.05M..10.05M env steps. User profiles `^test_battle_won_mean$` /
             `^battle_won_mean$` (eval / train) and `^test_return_mean$` / `^return_mean$`, `env: "{run}"`, `run_env`
             taking the map from the token.
  prime      PrimeIntellect-ai/prime-rl@559b44772e471d1538537b8805cc77f3824a5e64:
             packages/prime-rl-configs/src/prime_rl/configs/monitors.py:26-41 FileMonitor `metrics.jsonl` on by default,
             W&B off by default (`offline` flag); src/prime_rl/monitors/file.py:25-41 append mode, `row = {"step": step,
             "time": time.time(), **sanitized}` (non-finite values dropped); src/prime_rl/monitors/wandb/monitor.py:69-91
             `wandb.init(id=None, ..., dir=output_dir)` outside shared mode (a resume is a new W&B run), :114
             `define_metric("*", step_metric="step")`, :135-136 `wandb.log({**metrics, "step": step})`;
             src/prime_rl/orchestrator/orchestrator.py:696-747 train metrics over {agg, <env>} x {all, effective},
             `batch/{env}` shares, `progress/*`, `time/*`, one row a step; :910-938 one row per completed eval epoch of
             one env, `eval/{env}/...` and `"step": float(batch.step)`; src/prime_rl/orchestrator/metrics.py:79-88
             `{prefix}/mean|max|min|p10|p90`, :244-260, :324-336, :381-388 `{prefix}/{subset}/{agent}/avg@{group_size}`
             and pass@k over the effective set; src/prime_rl/orchestrator/utils.py:181-203 pass@k / pass^k;
             src/prime_rl/orchestrator/eval_source.py:44-66 evals at step % interval == 0 and at the first trigger (not
             again on resume); packages/prime-rl-configs/src/prime_rl/configs/orchestrator.py:253-260, 297-313 eval
             num_examples, group_size, interval (default 100), skip_first_step; packages/prime-rl-configs/src/prime_rl/
             configs/rl.py:95-104, 241-252 trainer and orchestrator write into one run dir `outputs/{run.name}`;
             src/prime_rl/trainer/rl/train.py:650-693 the trainer's `perf/*`, `optim/*`, `entropy/{env}/mean` rows. A
             multi-env RL run over 3..6 verifiers environments with binary rewards, 500..2,000 steps, batch of 128..512
             rollouts split by env weight (an env absent from a step's batch has no key there); 70 % evaluate every env
             on a fixed set of 40..300 examples (group_size 1..8) every 5..25 steps, each eval row written 1..3 steps
             after its step; 30 % are train only. 35 % also mirror to an offline W&B run; 30 % crash and resume from the
             last checkpoint (ckpt interval 10..50): the steps since it are appended again and W&B gets a second run
             id. User profile on `train|eval/{env}/effective/agent/reward/mean|avg@k`, its env alternation spelling out
             "any name but `agg`" (RE2 has no lookahead).
  mtrl       facebookresearch/mtrl@e282c3f5a205970b4ad7d1c1ebae7aa9b4d56218: mtrl/logger.py:67-131 MetersGroup (one
             `{mode}.log` a meter group; without retain_logs the file is removed first; `dump` appends `json.dumps`
             of the averaged meters plus `mode`, `step`, `logbook_timestamp`), :133-201 Logger (`train/...`,
             `eval/...`; `_`-suffixed keys expanded to one per env index); config/logger/mtrl.yaml `use_tb: False`
             (the Logger never writes TensorBoard); config/metrics/metaworld.yaml the keys; mtrl/experiment/
             metaworld.py:60 episodes of 150 steps, :81-154 evaluation: `eval/success_env_index_{i}` over
             num_eval_episodes, `eval/env_index_{i}` = i (an index, not the task's name); mtrl/experiment/
             multitask.py:153-200 per episode `train/success_env_index_{i}` (0/1), evaluation every eval_freq;
             mtrl/experiment/experiment.py:97-108 resume from the latest saved step with retain_logs (appended),
             :132 `config.json` in save_dir; config/experiment/metaworld.yaml eval_freq 10000, num_eval_episodes 10;
             config/setup/metaworld.yaml save_dir `{base_path}/logs/{id}`. MT10, 1M..2M steps, eval_freq 3,000..10,000:
             an evaluation runs only at a step that is a multiple of both 150 and eval_freq (the check sits inside
             the episode-end check), so every lcm(150, eval_freq) steps, over 10..50 episodes a task.

Not read when written (a finding): MTRL's `eval.log` / `train.log` are JSON lines named `*.log`, and README then listed
no such source, so every mtrl run was missing from the report (the corpus named the group UNREAD). Since the
twenty-seventh round curriwatch reads them (readers/mtrl.py, keys as `{mode}/{key}`), and the group's profile names
`eval/success_env_index_{i}` as README now documents.

Truth. Each env has a skill s in [0, 1] at a fractional point index x = (step - activation) / G, G the env's nominal
judged interval (smac / gymma: test_interval; prime: the eval interval, or 1 step for train-only runs; mtrl:
eval_freq). Judged values: smac a Binomial(n, s) / n of test episodes; gymma the mean of n test episodes' returns
(LBF: round(food x clip(s + sd N)) / food; RWARE: Poisson(l0 + B s) deliveries; MPE: A + (B - A) clip(s + sd N));
prime evals the mean outcome over a fixed set of problems of unequal difficulty (p_i = sigmoid(logit s + b_i), k
samples each) and prime training a Binomial over that step's rollouts of the env; mtrl a Binomial(n, s) / n. A
multi-env run's envs start within 0.04 of its s0 and top within 0.04 of its s1; smac maps and gymma tasks are runs of
their own (smac tops 0.78..0.99). Learners rise from s0 to s1 (exp, logistic, sqrt or linear) over T = 0.8..2.5 W
points (prime, mtrl) or 10..45 % of the run (smac, gymma: a map learns early in its run) and hold.
  W  stagnation window  max(min(100 steps, 10 % of the span), 20 G), in steps (the judged series' points)
  Q  tolerance unit     max over the run's envs of max(W / 10, G) = `tolerance_unit` in plan.json; a detection matches
                        a label within 2 Q (the scorer)
"Graduated" (truth) = s has reached s0 + 0.9 (s1 - s0) and then held 0.3 W more.

Labels (onset in steps; "first point" = the env's first judged point at or after the event's true start; one label an
env; in prime and mtrl runs the first two envs are clean learners and each later one carries an event with probability
0.65; single-env runs (smac maps, gymma tasks) carry an event with probability 0.55):
  graduated_regression   after graduation + max(W, 10 points): sudden or gradual (ramp over 0.5..1.5 W) fall to keep
                         0.72..0.79 (warning) or 0.1..0.6 (critical) of the gain, to the end (>= max(2 W, 15 points)
                         left). Onset = first judged point whose EXPECTED value keeps < 0.85 of the gain
  training_stagnation    never: flat at s0 from activation to the end (>= 6 W), onset = its first point (rates; gymma
                         returns only as its run's only env, README "the only env of a run that never learned ... is
                         stalled"); freeze (rates only): a linear rise over 0.4..0.8 W to 0.2..0.5 of the gain, then
                         flat >= 5 W to the end, onset = the first point of the flat
  performance_volatility after graduation + max(W, 10 points): burst (max(W, 20 points) of s scattered |N(0, 0.2..0.3
                         gain)| below the held level, then calm >= max(W, 15 points) to the end; onset = first point
                         whose expected value is off by > max(0.15 gain, 4 sd)); switch (Markov: s1 and s1 - 0.4..0.6
                         gain, dwells 6..18 points, >= 9 phases, to the end; onset = first point of the first low
                         phase); wave (s1 - a gain (1 - cos 2 pi (x - at) / P) / 2, a 0.45..0.7, P 8..20 points, >= 4
                         periods; onset = first point 0.15 gain below the held level); dip (keep 0.1..0.5 for 3..6
                         points, then back; onset = first point below 0.85 of the gain)
  prolonged_training     (twice as likely as the other events) a steady riser, LINEAR in s (0.62 of the gain over the
                         whole series); onset = activation + max(10 Wp, 2 x the median time the run's graduated siblings
                         took to graduate), Wp = max(min(100 steps, 10 % of the span), 20 TRAINING intervals) (README:
                         the prolonged window holds 20 points of the env's training logging); only where that onset
                         lies 10 points before the series' end
  (eval_gap, unexpected_transition: none of these conventions stops its evals or logs states)
Clean negatives (any incident there is a false positive): healthy, noisy_healthy (trials halved until the gain is 5..8
sd), slow_learner (T 3..4.5 W, graduates), level_shift (+0.04..0.06 gain after graduation, where there is room),
single_outlier (one judged point at s0 + 0.05 gain after graduation).

Visibility (sd of one judged point simulated with the convention's own averaging; the trials a point averages are
doubled up to 3 times until it holds, else the env becomes a clean learner): regression drop >= 4 sd; stall rise >= 5
sd, a never-learner's gap to the top >= 6 sd; switching gap and wave amplitude >= 5 sd; dip drop >= 5 sd; burst sd >= 4
x base sd; prolonged riser: its rise over 4 windows >= 4 standard errors of a line fitted to their points; healthy gain
>= 8 sd (noisy 5..8).

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - EPyMARL's `tensorboard_logger` is stood in for by tensorboardX (both write `Summary.Value.simple_value` scalars into
    `events.out.tfevents.{time}.{host}`); its W&B path (every seed of a config in one W&B group) is not used;
  - smac / gymma env ids come from `run_env` on the unique token (the map or gymma key, `:` included);
  - prime's W&B monitor is enabled for the orchestrator only (a trainer W&B run holds none of the per-env keys);
    prime-rl's rollout traces (`rollouts/step_N/...`) and checkpoints are not written;
  - mtrl env ids are the env indices `0`..`9` (the only name the logs give a task).
"""
from __future__ import annotations

import datetime
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
CYCLE = ("smac", "prime", "gymma", "prime", "mtrl", "smac")
UNREAD = ()  # conventions whose files curriwatch does not read (MTRL's until the twenty-seventh round)
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
RUN_ENV = r"_seed[0-9]+_(?P<env>[^/]+)_[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]"
CONFIGS = {
    "smac": f"""\
profiles:
  epymarl_smac:
    patterns:
      - {{regex: '^test_battle_won_mean$', env: "{{run}}", split: eval, metric: battle_won}}
      - {{regex: '^battle_won_mean$', env: "{{run}}", split: train, metric: battle_won}}
    performance_metric: battle_won
    run_env: '{RUN_ENV}'
profile: epymarl_smac
""",
    "gymma": f"""\
profiles:
  epymarl_gymma:
    patterns:
      - {{regex: '^test_return_mean$', env: "{{run}}", split: eval, metric: return}}
      - {{regex: '^return_mean$', env: "{{run}}", split: train, metric: return}}
    performance_metric: return
    run_env: '{RUN_ENV}'
profile: epymarl_gymma
""",
    "prime": """\
profiles:
  prime_rl:
    patterns:
      - regex: '^train/(?P<env>[^/]{4,}|[^/a][^/]{0,2}|a[^/g][^/]?|ag[^/g])/effective/agent/reward/mean$'
        split: train
        metric: reward
      - regex: '^eval/(?P<env>[^/]+)/effective/agent/avg@[0-9]+$'
        split: eval
        metric: reward
    performance_metric: reward
profile: prime_rl
""",
    "mtrl": """\
profiles:
  mtrl_metaworld:
    patterns:
      - {regex: '^eval/success_env_index_(?P<env>[0-9]+)$', split: eval, metric: success}
    performance_metric: success
profile: mtrl_metaworld
""",
}
SMAC_MAPS = {  # map: (episode length range at s=0, at s=1; s1 range)
    "3m": ((20, 60), (18, 30), (0.95, 0.995)),
    "8m": ((25, 120), (20, 35), (0.93, 0.99)),
    "2s3z": ((40, 120), (35, 60), (0.9, 0.99)),
    "3s5z": ((50, 150), (40, 70), (0.88, 0.98)),
    "1c3s5z": ((50, 180), (40, 70), (0.9, 0.99)),
    "MMM": ((60, 150), (40, 70), (0.9, 0.99)),
    "5m_vs_6m": ((30, 70), (25, 50), (0.78, 0.88)),
    "3s_vs_5z": ((100, 250), (80, 160), (0.8, 0.95)),
    "2c_vs_64zg": ((150, 400), (60, 150), (0.85, 0.97)),
    "bane_vs_bane": ((60, 200), (40, 90), (0.9, 0.99)),
    "MMM2": ((80, 180), (60, 100), (0.78, 0.92)),
    "27m_vs_30m": ((60, 180), (50, 110), (0.78, 0.9)),
    "corridor": ((200, 400), (100, 200), (0.8, 0.93)),
}
GYMMA_TASKS = {  # key: (game, params)
    "lbforaging:Foraging-8x8-2p-3f-v3": ("lbf", dict(food=3, sd_ep=0.22, ep_len=50)),
    "lbforaging:Foraging-10x10-3p-5f-v3": ("lbf", dict(food=5, sd_ep=0.2, ep_len=50)),
    "lbforaging:Foraging-15x15-4p-5f-v3": ("lbf", dict(food=5, sd_ep=0.18, ep_len=50)),
    "lbforaging:Foraging-8x8-2p-2f-coop-v3": ("lbf", dict(food=2, sd_ep=0.25, ep_len=50)),
    "rware:rware-tiny-2ag-v2": ("rware", dict(l0=0.05, B=18.0, ep_len=500)),
    "rware:rware-small-4ag-v2": ("rware", dict(l0=0.05, B=12.0, ep_len=500)),
    "rware:rware-tiny-4ag-v2": ("rware", dict(l0=0.1, B=30.0, ep_len=500)),
    "pz-mpe-simple-spread-v3": ("mpe", dict(A=-205.0, B=-108.0, sd_ep=0.25, ep_len=25)),
    "pz-mpe-simple-speaker-listener-v4": ("mpe", dict(A=-95.0, B=-14.0, sd_ep=0.2, ep_len=25)),
    "pz-mpe-simple-tag-v3": ("mpe", dict(A=-40.0, B=30.0, sd_ep=0.3, ep_len=25)),
}
PRIME_ENVS = ("reverse-text", "alphabet-sort", "wordle", "math-python", "acereason-math", "wiki-search", "sudoku",
              "countdown", "gsm8k", "unscramble", "logic-grid", "hendrycks-math", "tool-use", "ascii-tree")
MT10 = ("reach-v2", "push-v2", "pick-place-v2", "door-open-v2", "drawer-open-v2", "drawer-close-v2",
        "button-press-topdown-v2", "peg-insert-side-v2", "window-open-v2", "window-close-v2")
HOSTS = ("dgx-h100-3", "gpu-node-12", "ws-3090", "slurm-a100-07")


@dataclass
class Env:
    name: str
    L: int               # judged points (nominal)
    G: float             # steps between judged points
    step0: int           # activation step (point 0)
    s0: float
    s1: float
    T: float
    kind: str = "binom"  # binom | fixedset | episodes
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
    """gymma: one test episode's return per entry of s."""
    p = env.params
    s = np.asarray(s, float)
    game = p["game"]
    if game == "lbf":
        u = np.clip(s + p["sd_ep"] * rng.standard_normal(len(s)), 0, 1)
        return np.round(u * p["food"]) / p["food"]
    if game == "rware":
        return rng.poisson(p["l0"] + p["B"] * np.clip(s, 0, 1)).astype(float)
    u = np.clip(s + p["sd_ep"] * rng.standard_normal(len(s)), -0.3, 1.15)
    return p["A"] + (p["B"] - p["A"]) * u


def ep_expect(env: Env, s) -> np.ndarray:
    """gymma: the expected return of an episode at skill s (simulated once per level, interpolated)."""
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
    return ep_returns(env, np.full(k * env.trials(), s), rng).reshape(k, env.trials()).mean(axis=1)


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
    return int(math.ceil(hit[0] + 0.3 * W)) if len(hit) else env.L


def visible(env: Env, check) -> bool:
    base = env.knob
    for k in (1.0, 2.0, 4.0, 8.0):
        env.knob = base * k
        if check():
            return True
    env.knob = base
    return False


def place(run: dict, env: Env, ev: str, W: float, rng) -> bool:
    L = env.L
    g = env.s1 - env.s0
    rate = env.kind != "episodes"
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
        return visible(env, lambda: gain_E(env, ks, env.s1) >= 4 * max(point_sd(env, env.s1), point_sd(env, ks)))
    if ev == "training_stagnation":
        single = run["convention"] in ("smac", "gymma")
        variant = str(rng.choice(["never", "freeze"])) if rate else "never"
        if not rate and not single:
            return False
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
        if run.get("n_risers", 0) >= 2:
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
        for _ in range(6):
            if gain_E(env, env.s0, env.s1) / max(point_sd(env, 0.5 * (env.s0 + env.s1)), 1e-9) < 8 or \
                    env.trials() <= 2:
                break
            env.knob *= 0.5
        if gain_E(env, env.s0, env.s1) < 5 * point_sd(env, 0.5 * (env.s0 + env.s1)):
            env.knob *= 2
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
    visible(env, lambda: gain_E(env, env.s0, env.s1) >= 8 * point_sd(env, 0.5 * (env.s0 + env.s1)))
    if env.T + 2 * W >= env.L:
        env.T = max(0.8 * W, (env.L - 2 * W) * 0.8)
    if rng.random() < p_event:
        for _ in range(3):
            ev = str(rng.choice(pool))
            saved = (env.knob, dict(env.params), env.T)
            if place(run, env, ev, W, rng):
                return
            env.knob, env.params, env.T = saved
            env.event, env.variant, env.severity, env.at = "healthy", "healthy", None, None
    apply_negative(env, str(rng.choice(NEGATIVES)), W, rng)


def window(G: float, span: float) -> float:
    """The stagnation window in steps: max(min(100, 10 % of the span), 20 points)."""
    return max(min(100.0, 0.1 * span), 20.0 * G)


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


# --- planning ------------------------------------------------------------------------------------------------------

def _difficulty(rng, m: int, spread: float) -> np.ndarray:
    return rng.normal(0.0, spread, m)


def plan_epymarl(run: dict, rng) -> list[Env]:
    conv = run["convention"]
    if conv == "smac":
        names = [str(t) for t in rng.permutation(list(SMAC_MAPS))[:int(rng.integers(2, 5))]]
        alg = str(rng.choice(["qmix", "qmix", "vdn", "mappo", "ippo"]))
        ti, nt = [(10000, 32), (10000, 32), (20000, 32), (50000, 100), (25000, 64)][int(rng.integers(5))]
    else:
        names = [str(t) for t in rng.permutation(list(GYMMA_TASKS))[:int(rng.integers(2, 4))]]
        alg = str(rng.choice(["mappo", "ippo", "qmix", "maa2c"]))
        ti, nt = [(50000, 100), (20000, 50), (25000, 32), (10000, 20)][int(rng.integers(4))]
    run.update(alg=alg, test_interval=ti, test_nepisode=nt, runner_log_interval=10000, learner_log_interval=10000,
               log_interval=50000, seed_arg=int(rng.integers(1, 1000)), tasks=names)
    envs = []
    for k, nm in enumerate(names):
        t_max = int(rng.choice([2050000, 5050000, 10050000] if ti >= 20000 else [2050000, 3050000, 5050000]))
        if conv == "gymma" and GYMMA_TASKS[nm][0] == "rware" and rng.random() < 0.5:
            t_max = 20050000 if ti >= 50000 else 10050000
        L = t_max // ti + 1
        if conv == "smac":
            s0, s1 = float(rng.uniform(0.0, 0.06)), float(rng.uniform(*SMAC_MAPS[nm][2]))
            e = Env(nm, L, float(ti), 0, s0, s1, 0.0, kind="binom", n=float(nt))
        else:
            game, gp = GYMMA_TASKS[nm]
            s0, s1 = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.85, 0.97))
            e = Env(nm, L, float(ti), 0, s0, s1, 0.0, kind="episodes", n=float(nt))
            e.params.update(game=game, **gp)
        e.params.update(t_max=t_max, host=str(rng.choice(HOSTS)), stamp=_stamp(rng),
                        secs_per_step=float(rng.uniform(0.8e-3, 4e-3)), train_G=10000.0)
        envs.append(e)
    return envs


def _stamp(rng) -> str:
    d = datetime.datetime(2025, 1, 1) + datetime.timedelta(seconds=int(rng.integers(0, 300 * 86400)),
                                                           microseconds=int(rng.integers(0, 10 ** 6)))
    return str(d)


def plan_prime(run: dict, rng) -> tuple[list[Env], float]:
    names = [str(t) for t in rng.permutation(PRIME_ENVS)[:int(rng.integers(3, 7))]]
    N = int(rng.integers(500, 2001))
    with_eval = bool(rng.random() < 0.7)
    ei = int(rng.choice([5, 10, 10, 20, 25])) if with_eval else 1
    if with_eval and N // ei < 60:
        ei = 5 if N < 1000 else 10
    batch = int(rng.choice([128, 256, 512]))
    gs = int(rng.choice([4, 8, 16]))
    w = rng.dirichlet(np.full(len(names), 6.0))
    k_eval = int(rng.choice([1, 1, 2, 4, 8]))
    run.update(steps=N, with_eval=with_eval, eval_interval=ei, batch_size=batch, group_size=gs, weights=w.tolist(),
               eval_group_size=k_eval, envs_names=names, wandb=bool(rng.random() < 0.35),
               ckpt_interval=int(rng.choice([10, 25, 50])), run_name=f"rl-{int(rng.integers(1, 9))}b-mix-"
               f"{run['seed'] % 100000:05d}", host=str(rng.choice(HOSTS)))
    resume = None
    if rng.random() < 0.3:
        crash = int(N * rng.uniform(0.3, 0.75))
        resume = {"crash": crash, "ckpt": crash - crash % run["ckpt_interval"]}
    run["resume"] = resume
    s0r, s1r = float(rng.uniform(0.02, 0.25)), float(rng.uniform(0.8, 0.93))
    envs = []
    for j, nm in enumerate(names):
        s0 = float(np.clip(s0r + rng.uniform(-0.04, 0.04), 0, 1))
        s1 = float(np.clip(s1r + rng.uniform(-0.04, 0.04), 0, 0.99))
        rollouts = batch * float(w[j])
        if with_eval:
            m = int(rng.integers(40, 301))
            e = Env(nm, N // ei + 1, float(ei), 0, s0, s1, 0.0, kind="fixedset", n=float(m))
            e.params["difficulty"] = _difficulty(rng, m * 8, float(rng.uniform(0.8, 2.0)))
            e.params["samples"] = k_eval
        else:
            e = Env(nm, N, 1.0, 0, s0, s1, 0.0, kind="binom", n=max(1.0, rollouts))
        e.params.update(train_G=1.0, weight=float(w[j]))
        envs.append(e)
    return envs, float(N - 1)


def plan_mtrl(run: dict, rng) -> tuple[list[Env], float]:
    ef = int(rng.choice([3000, 3000, 7500, 10000]))
    total = int(rng.choice([1000000, 1500000, 2000000]))
    lcm = ef * 150 // math.gcd(ef, 150)  # multitask.py:155-181: the eval check sits inside the episode-end check
    n_eval = int(rng.choice([10, 10, 20, 50]))
    run.update(eval_freq=ef, eval_every_steps=lcm, num_train_steps=total, num_eval_episodes=n_eval, exp_id=f"mt10_{run['seed'] % 997}",
               tasks=list(MT10))
    resume = None
    if rng.random() < 0.3:
        crash = int(total * rng.uniform(0.3, 0.75))
        resume = {"crash": crash, "ckpt": crash - crash % lcm}
    run["resume"] = resume
    s0r, s1r = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.8, 0.95))
    envs = []
    for i, _task in enumerate(MT10):
        e = Env(str(i), total // lcm + 1, float(lcm), 0, float(np.clip(s0r + rng.uniform(-0.04, 0.04), 0, 1)),
                float(np.clip(s1r + rng.uniform(-0.04, 0.04), 0, 0.99)), 0.0, kind="binom", n=float(n_eval))
        e.params.update(train_G=150.0, task=MT10[i])
        envs.append(e)
    return envs, float(total)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility"]
    if conv in ("smac", "gymma"):
        envs = plan_epymarl(run, rng)
        spans = [float(e.params["t_max"]) for e in envs]
    elif conv == "prime":
        envs, total = plan_prime(run, rng)
        spans = [total] * len(envs)
    else:
        envs, total = plan_mtrl(run, rng)
        spans = [total] * len(envs)
    run["envs"] = envs
    Ws = []
    for k, env in enumerate(envs):
        W = window(env.G, spans[k]) / env.G
        env.params["W"] = W
        env.params["Wp"] = window(env.params["train_G"], spans[k]) / env.G  # the prolonged window, in judged points
        if conv in ("smac", "gymma"):
            env.T = float(rng.uniform(0.1, 0.45)) * env.L
        else:
            env.T = float(rng.uniform(0.8, 2.5)) * W
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if conv in ("prime", "mtrl"):
        grads = [grad_points(e, spans[k]) for k, e in enumerate(envs[:2])]
        for k, env in enumerate(envs):
            env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)))
            assign(run, env, Ws[k], 0.0 if k < 2 else 0.65, pool + ["prolonged_training"] * 2, rng)
        # README: at least twice the median time the run's graduated envs took -- every graduated sibling
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
            env.params["pro_after"] = limit
            if env.L - 1 < env.params["pro_after"] + 10:
                env.event = env.variant = "healthy"
                env.params.pop("rate", None)
    else:
        for k, env in enumerate(envs):
            env.params["pro_after"] = 10 * env.params["Wp"]
            run["n_risers"] = 0  # each map is a run of its own
            assign(run, env, Ws[k], 0.55, pool + ["prolonged_training"] * 2, rng)


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
    elif v == "freeze":
        onset = first_at(p["R"])
    elif v == "riser" or env.event == "prolonged_training":
        onset = int(round(p.get("first_logged", env.step0) + p["pro_after"] * env.G))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual", "dip"):
        ev = np.array([point_mean(env, u) for u in s])
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


def _skill_at(env: Env, steps) -> np.ndarray:
    return truth(env, (np.asarray(steps, float) - env.step0) / env.G)


def _crossings(cum: np.ndarray, interval: int, first_last: float) -> np.ndarray:
    """Indices of the episodes after which `t_env - last >= interval` first holds (last = that episode's t_env)."""
    out, last = [], first_last
    while True:
        j = int(np.searchsorted(cum, last + interval, side="left"))
        if j >= len(cum):
            break
        out.append(j)
        last = cum[j]
    return np.array(out, dtype=np.int64)


def write_epymarl(folder: Path, run: dict, rng) -> dict:
    """One tensorboard_logger folder per map / task, as EPyMARL's run.py names it, and sacred's JSON beside it."""
    from tensorboardX import SummaryWriter

    judged = {}
    conv = run["convention"]
    for env in run["envs"]:
        p = env.params
        prng = np.random.default_rng(run["seed"] + 41 + zlib.crc32(env.name.encode()) % 1000)
        t_max = p["t_max"]
        if conv == "smac":
            (a0, b0), (a1, b1), _ = SMAC_MAPS[env.name]
        else:
            a0 = b0 = a1 = b1 = p["ep_len"]
        # episodes of training: lengths follow the skill at their start (a won SMAC battle ends sooner)
        n_est = int(t_max / max(1.0, 0.5 * (a1 + b1)) * 1.15) + 50
        cum = np.zeros(0)
        lens = np.zeros(0, dtype=np.int64)
        t = 0
        chunks = []
        while t <= t_max:
            ss = _skill_at(env, np.full(1, t))[0]
            lo, hi = a0 + (a1 - a0) * ss, b0 + (b1 - b0) * ss
            m = max(64, n_est // 40)
            ln = prng.integers(int(lo), int(hi) + 1, m) if hi > lo else np.full(m, int(lo))
            chunks.append(ln)
            t += int(ln.sum())
        lens = np.concatenate(chunks)
        cum = np.cumsum(lens)
        stop = int(np.searchsorted(cum, t_max, side="right")) + 1  # the loop runs while t_env <= t_max
        lens, cum = lens[:stop], cum[:stop]
        starts = cum - lens
        log_idx = _crossings(cum, run["runner_log_interval"], -1_000_000.0)
        test_idx = _crossings(cum, run["test_interval"], -run["test_interval"] - 1.0)
        learn_idx = _crossings(cum, run["learner_log_interval"], -run["learner_log_interval"] - 1.0)
        ep_idx = _crossings(cum, run["log_interval"], 0.0)
        s_ep = _skill_at(env, starts)
        eps = np.maximum(0.05, 1 - 0.95 * cum / 50000.0) if run["alg"] in ("qmix", "vdn") else np.full(len(cum), 0.0)
        s_tr = np.clip(s_ep * (1 - 0.8 * eps) * 0.97, 0, 1)
        if conv == "smac":
            won = prng.random(len(cum)) < s_tr
            ret = np.where(won, prng.uniform(19.0, 20.5, len(cum)), prng.uniform(2, 8, len(cum)) + 9 * s_tr)
        else:
            ret = ep_returns(env, s_tr, prng)
            won = None
        events = []  # (t_env, order, tag, value)
        wall0 = 1.74e9 + float(prng.integers(0, 10 ** 7))
        bounds = np.concatenate([[-1], log_idx])
        for q in range(len(log_idx)):
            a, b = bounds[q] + 1, bounds[q + 1] + 1
            tt = int(cum[log_idx[q]])
            r = ret[a:b]
            rows = {"return_mean": float(r.mean()), "return_std": float(r.std())}
            if conv == "smac":
                w = won[a:b]
                rows.update(battle_won_mean=float(w.mean()), dead_allies_mean=float(np.mean(3 * (1 - w) + prng.random(len(w)))),
                            dead_enemies_mean=float(np.mean(3 * w + 2 * prng.random(len(w)))),
                            episode_limit_mean=float(np.mean(prng.random(len(w)) < 0.05 * (1 - s_tr[a:b]))))
            rows["ep_length_mean"] = float(lens[a:b].mean())
            for k, v in rows.items():
                events.append((tt, 0, k, v))
            if run["alg"] in ("qmix", "vdn"):
                events.append((tt, 1, "epsilon", float(eps[log_idx[q]])))
        for q in learn_idx:
            tt = int(cum[q])
            if run["alg"] in ("qmix", "vdn"):
                for k in ("loss", "grad_norm", "td_error_abs", "q_taken_mean", "target_mean"):
                    events.append((tt, 2, k, float(abs(prng.normal(0.5, 0.2)))))
            else:
                for k in ("advantage_mean", "critic_loss", "pg_loss", "agent_grad_norm", "pi_max"):
                    events.append((tt, 2, k, float(abs(prng.normal(0.5, 0.2)))))
        js = []
        for q in test_idx:
            tt = int(cum[q])
            s = _skill_at(env, [tt])
            if env.variant == "single_outlier" and abs((tt - env.step0) / env.G - env.at) < 0.5:
                s = np.array([env.s0 + 0.05 * (env.s1 - env.s0)])
            n = env.trials()
            if conv == "smac":
                w = prng.random(n) < s[0]
                r = np.where(w, prng.uniform(19.0, 20.5, n), prng.uniform(2, 8, n) + 9 * s[0])
                rows = {"test_return_mean": float(r.mean()), "test_return_std": float(r.std()),
                        "test_battle_won_mean": float(w.mean()), "test_dead_allies_mean": float(np.mean(3 * (1 - w))),
                        "test_dead_enemies_mean": float(np.mean(3 * w + 1.5 * (1 - w))),
                        "test_episode_limit_mean": 0.0}
                lo, hi = a0 + (a1 - a0) * s[0], b0 + (b1 - b0) * s[0]
                rows["test_ep_length_mean"] = float(prng.uniform(lo, hi, n).mean())
            else:
                r = ep_returns(env, np.full(n, s[0]), prng)
                rows = {"test_return_mean": float(r.mean()), "test_return_std": float(r.std()),
                        "test_ep_length_mean": float(p["ep_len"])}
            for k, v in rows.items():
                events.append((tt, 3, k, v))
            js.append(tt)
        for q in ep_idx:
            events.append((int(cum[q]), 4, "episode", float(q + 1)))
        events.sort(key=lambda e: (e[0], e[1]))
        token = f"{run['alg']}_seed{run['seed_arg']}_{env.name}_{p['stamp']}"
        d = folder / "results" / "tb_logs" / token
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            w_ = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
            for tt, _o, tag, val in events:
                w_.add_scalar(tag, float(val), int(tt), walltime=wall0 + tt * p["secs_per_step"])
            w_.close()
            src = next(Path(tmp).glob("events.out.tfevents.*"))
            shutil.copyfile(src, d / f"events.out.tfevents.{int(wall0)}.{p['host']}")
        # sacred's FileStorageObserver: results/sacred/{name}/{map_name}/{id}/ (metrics.json, config.json, run.json)
        sd = folder / "results" / "sacred" / run["alg"] / env.name / "1"
        sd.mkdir(parents=True, exist_ok=True)
        metrics: dict = {}
        for tt, _o, tag, val in events:
            m = metrics.setdefault(tag, {"steps": [], "timestamps": [], "values": []})
            m["steps"].append(int(tt))
            m["timestamps"].append(datetime.datetime.fromtimestamp(wall0 + tt * p["secs_per_step"]).isoformat())
            m["values"].append(float(val))
        (sd / "metrics.json").write_text(json.dumps(metrics))
        (sd / "config.json").write_text(json.dumps({"name": run["alg"], "seed": run["seed_arg"], "env": "sc2" if conv ==
                                                    "smac" else "gymma", "env_args": {"map_name" if conv == "smac"
                                                                                      else "key": env.name},
                                                    "t_max": t_max, "test_interval": run["test_interval"],
                                                    "test_nepisode": env.trials(), "use_tensorboard": True}))
        (sd / "run.json").write_text(json.dumps({"status": "COMPLETED", "experiment": {"name": "pymarl"}}))
        judged[env.name] = np.array(sorted(set(js)), dtype=np.int64)
    return judged


def _prime_rows(run: dict, a: int, b: int, first_trigger: bool, end_normally: bool, prng) -> list[tuple[str, dict]]:
    """Rows (source, row) the orchestrator and the trainer append to metrics.jsonl for steps a..b-1 of one process."""
    envs, B, gs = run["envs"], run["batch_size"], run["group_size"]
    k = run["eval_group_size"]
    rows: list[tuple[str, dict]] = []
    pending: list[tuple[int, int, Env]] = []  # (written after step, eval step, env)
    t = 1.75e9 + a * 40.0
    for step in range(a, b):
        t += float(prng.uniform(25, 60))
        # evals fire at this step (the first trigger, else every interval); each completes 1..3 steps later
        if run["with_eval"] and ((first_trigger and step == a) or step % run["eval_interval"] == 0):
            for e in envs:
                pending.append((step + int(prng.integers(1, 4)), step, e))
        # the trainer's rows for the step before (it trains one step behind the orchestrator)
        if step > a:
            rows.append(("trainer", {"step": step - 1, "time": t - 5, "perf/throughput": float(prng.uniform(8e3, 2e4)),
                                     "perf/mfu": float(prng.uniform(20, 45)), "perf/peak_memory": 61.2}))
            rows.append(("trainer", {"step": step - 1, "time": t - 4, "optim/lr": 1e-6,
                                     "optim/grad_norm": float(abs(prng.normal(0.2, 0.05)))}))
            ent = {f"entropy/{e.name}/mean": float(prng.uniform(0.2, 0.6)) for e in envs}
            rows.append(("trainer", {"step": step - 1, "time": t - 3, "entropy/all/mean": float(np.mean(list(ent.values()))),
                                     **ent, "mismatch_kl/all/mean": float(abs(prng.normal(1e-3, 3e-4)))}))
        n_groups = prng.multinomial(B // gs, [e.params["weight"] for e in envs])
        m = {}
        tot, tot_r = 0, 0.0
        for e, ng in zip(envs, n_groups):
            n = int(ng) * gs
            if n == 0:
                continue
            s = float(_skill_at(e, [step])[0])
            if e.kind == "binom":  # a train-judged env: a user who wants more rollouts of it raises its share
                n = max(1, int(round(n * e.knob))) if n else 0
            if e.variant == "single_outlier" and e.kind == "binom" and abs(step / e.G - e.at) < 0.5:
                s = e.s0 + 0.05 * (e.s1 - e.s0)
            s_tr = float(np.clip(s - 0.02, 0, 1))
            err = int(prng.binomial(n, 0.01))
            wins = prng.random(n) < s_tr
            eff = wins[err:]
            toks = float(prng.uniform(200, 900))
            for subset, arr in (("all", np.concatenate([np.zeros(err, bool), eff])), ("effective", eff)):
                if not len(arr):
                    continue
                pre = f"train/{e.name}/{subset}/agent"
                m[f"{pre}/reward/mean"] = float(arr.mean())
                m[f"{pre}/reward/max"] = float(arr.max())
                m[f"{pre}/reward/min"] = float(arr.min())
                m[f"{pre}/num_output_tokens/mean"] = toks
                m[f"{pre}/num_turns/mean"] = 1.0
                m[f"{pre}/is_truncated/mean"] = float(prng.uniform(0, 0.03))
                m[f"{pre}/is_trainable/mean"] = float(prng.uniform(0.6, 0.95))
            m[f"train/{e.name}/all/has_error/mean"] = err / n
            m[f"batch/{e.name}"] = n / B
            tot += len(eff)
            tot_r += float(eff.sum())
            e.params.setdefault("_train_steps", set()).add(step)
        if tot:
            m["train/agg/effective/agent/reward/mean"] = tot_r / tot
        m.update({"progress/tokens": B * 700, "progress/rollouts": B, "progress/total_rollouts": B * (step + 1),
                  "time/step": float(prng.uniform(25, 60)), "time/wait_for_policy": float(prng.uniform(0, 5)),
                  "off_policy/mean": float(prng.uniform(0.3, 1.0)), "step": step})
        rows.append(("orchestrator", {"step": step, "time": t, **m}))
        # eval epochs that completed while this step trained: one row each, at their own (earlier) step
        due = [x for x in pending if x[0] <= step]
        pending = [x for x in pending if x[0] > step]
        for _done, es, e in due:
            rows.append(("orchestrator", _prime_eval_row(run, e, es, k, t + float(prng.uniform(1, 20)), prng)))
    if end_normally:  # the final drain: in-flight evals complete
        for _done, es, e in pending:
            t += float(prng.uniform(5, 30))
            rows.append(("orchestrator", _prime_eval_row(run, e, es, k, t, prng)))
    return rows


def _prime_eval_row(run: dict, e: Env, es: int, k: int, t: float, prng) -> dict:
    x = (es - e.step0) / e.G
    s = truth(e, np.array([x]))
    if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
        s = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
    p = fixedset_probs(e, s)[0]
    wins = prng.binomial(k, p)
    avg = float(wins.sum() / (k * len(p)))
    pre = f"eval/{e.name}"
    row = {"step": float(es), "time": t}
    for subset in ("all", "effective"):
        row[f"{pre}/{subset}/agent/reward/mean"] = avg
        row[f"{pre}/{subset}/agent/num_output_tokens/mean"] = float(prng.uniform(200, 900))
        row[f"{pre}/{subset}/agent/avg@{k}"] = avg
    row[f"{pre}/all/has_error/mean"] = 0.0
    j = 1
    while j <= k:
        c = wins
        row[f"{pre}/effective/agent/pass@{j}"] = float(np.mean([1 - math.comb(k - int(ci), j) / math.comb(k, j) for ci in c]))
        row[f"{pre}/effective/agent/pass^{j}"] = float(np.mean([math.comb(int(ci), j) / math.comb(k, j) for ci in c]))
        j *= 2
    row[f"{pre}/policy_version"] = float(max(0, es - 1))
    e.params.setdefault("_eval_steps", set()).add(es)
    return row


def write_prime(folder: Path, run: dict, rng) -> dict:
    out = folder / "outputs" / run["run_name"]
    out.mkdir(parents=True, exist_ok=True)
    rs = run["resume"]
    N = run["steps"]
    procs = [(0, rs["crash"], True, False), (rs["ckpt"] + 1, N, False, True)] if rs else [(0, N, True, True)]
    for k, (a, b, first, end) in enumerate(procs):
        prng = np.random.default_rng(run["seed"] + 97 + 17 * k)
        rows = _prime_rows(run, a, b, first, end, prng)
        with open(out / "metrics.jsonl", "a") as f:  # FileMonitor: append, one line a log call
            for _src, row in rows:
                f.write(json.dumps(row) + "\n")
        if run["wandb"]:
            _tests_on_path()
            import wandb
            from writers import wait_until_complete

            rid = f"{(run['seed'] * 7 + k) % 36 ** 8:08x}"[:8]
            with tempfile.TemporaryDirectory() as tmp:
                wr = wandb.init(id=rid, project="prime-rl", name=run["run_name"], mode="offline", dir=tmp,
                                config={"orchestrator": {"batch_size": run["batch_size"]}},
                                settings=wandb.Settings(x_disable_stats=True, console="off"))
                wr.define_metric("*", step_metric="step")
                for src, row in rows:
                    if src != "orchestrator":
                        continue
                    wr.log({**{kk: v for kk, v in row.items() if kk != "time"}, "step": int(row["step"])})
                wr.finish()
                wandb.teardown()
                src_f = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
                wait_until_complete(src_f)
                stamp = "20260410_090000" if k == 0 else "20260411_031500"
                dest = out / "wandb" / f"offline-run-{stamp}-{rid}" / src_f.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src_f, dest)
    judged = {}
    for e in run["envs"]:
        key = "_eval_steps" if e.kind == "fixedset" else "_train_steps"
        judged[e.name] = np.array(sorted(e.params.pop(key, set())), dtype=np.int64)
        e.params.pop("_eval_steps", None)
        e.params.pop("_train_steps", None)
    return judged


def write_mtrl(folder: Path, run: dict, rng) -> dict:
    """MTRL's Logger: `train.log` and `eval.log` JSON lines in `{base_path}/logs/{id}` (never TensorBoard)."""
    d = folder / "logs" / run["exp_id"]
    d.mkdir(parents=True, exist_ok=True)
    envs, ef, total = run["envs"], run["eval_freq"], run["num_train_steps"]
    rs = run["resume"]
    procs = [(0, rs["crash"]), (rs["ckpt"], total)] if rs else [(0, total)]
    stamp0 = datetime.datetime(2025, 6, 2, 9, 0, 0)
    judged: dict[str, set] = {e.name: set() for e in envs}
    n_ep = run["num_eval_episodes"]
    for k, (a, b) in enumerate(procs):
        prng = np.random.default_rng(run["seed"] + 61 + 11 * k)
        tr, evl = [], []
        episode = a // 150
        grid = np.arange(a, b, 150)
        S = {e.name: np.clip(_skill_at(e, grid) * 0.9, 0, 1) for e in envs}
        U = prng.random((len(grid), len(envs)))
        for gi, step in enumerate(grid):
            step = int(step)
            when = (stamp0 + datetime.timedelta(seconds=step * 0.02)).strftime("%I:%M:%S%p UTC %b %d, %Y")
            if step > 0:
                row = {}
                fresh = step == a and k > 0  # the resumed process's first dump: its success array still zero
                outs = []
                for i, e in enumerate(envs):
                    ok = 0.0 if fresh else float(U[gi, i] < S[e.name][gi])
                    outs.append(ok)
                    row[f"success_env_index_{i}"] = ok
                for i, e in enumerate(envs):
                    row[f"episode_reward_env_index_{i}"] = 0.0 if fresh else float(prng.uniform(50, 500) + 3500 * outs[i])
                    row[f"env_index_{i}"] = i
                row.update(success=float(np.mean(outs)), duration=float(prng.uniform(2, 4)), episode=episode,
                           batch_reward=float(prng.uniform(0.5, 5)), actor_loss=float(prng.normal(-40, 5)),
                           critic_loss=float(abs(prng.normal(10, 3))), alpha_value=float(prng.uniform(0.01, 0.2)),
                           mode="train", step=step, logbook_timestamp=when)
                tr.append(row)
            if step % ef == 0:
                row = {"episode": episode}
                rs_all = []
                for i, e in enumerate(envs):
                    x = (step - e.step0) / e.G
                    s = truth(e, np.array([x]))
                    if e.variant == "single_outlier" and abs(x - e.at) < 0.5:
                        s = np.array([e.s0 + 0.05 * (e.s1 - e.s0)])
                    n = e.trials()
                    v = float(prng.binomial(n, s[0]) / n)
                    rs_all.append(v)
                    row[f"episode_reward_env_index_{i}"] = float(prng.uniform(100, 600) + 4000 * v)
                    row[f"success_env_index_{i}"] = v
                    row[f"env_index_{i}"] = i
                    judged[e.name].add(step)
                row.update(episode_reward=float(np.mean([row[f"episode_reward_env_index_{i}"] for i in range(len(envs))])),
                           success=float(np.mean(rs_all)), mode="eval", step=step, logbook_timestamp=when)
                evl.append(row)
            episode += 1
        mode = "a" if k else "w"
        with open(d / "train.log", mode) as f:
            f.writelines(json.dumps(r) + "\n" for r in tr)
        with open(d / "eval.log", mode) as f:
            f.writelines(json.dumps(r) + "\n" for r in evl)
    (d / "config.json").write_text(json.dumps({"setup": {"id": run["exp_id"], "save_dir": f"logs/{run['exp_id']}"},
                                               "env": {"name": "metaworld-mt10", "num_envs": len(envs)},
                                               "experiment": {"eval_freq": ef, "num_train_steps": total,
                                                              "num_eval_episodes": n_ep, "should_resume": True}}))
    (d / "model").mkdir(exist_ok=True)
    return {k_: np.array(sorted(v), dtype=np.int64) for k_, v in judged.items()}


# --- build -------------------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    writer = {"smac": write_epymarl, "gymma": write_epymarl, "prime": write_prime, "mtrl": write_mtrl}[conv]
    for env in run["envs"]:
        env.params.setdefault("first_logged", env.step0)
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
                                if k not in ("drops", "phases", "difficulty", "_grid")},
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
    rng = np.random.default_rng([seed, 26])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"w{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
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
