"""The thirty-second detection corpus (`python benchmarks/detection.py --corpus thirtysecond`): written by a helper
from the user-facing contract only (README's rule table, key profiles and user profiles — `env: "{run}"`, `step_key`,
`run_env`, fixed `metric:` —, what a rate is, logging shapes, which files are read, what `unknown` means;
detection.py's label format and scorer; the thirtieth and thirty-first corpora as examples of the interface — the
truth, placement and labelling helpers below are the thirty-first's, with observation models added for the new
trainers —), without reading the analysis code and without looking at which cases curriwatch misses. Meant to be read
for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-thirtysecond-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (18 rllm, 18 art, 18 agilerl, 6 agilerl_csv), one group folder per convention,
each with the curriwatch.yaml a user of that trainer would write (no built-in profile reads any of the three). Chosen
for what the thirty-one other corpora do not cover:

  rllm       rllm-org/rllm (agentica's rLLM)@9beb6e0f676a46d38858991fd79ac5f8e0b16d4c: rllm/trainer/unified_trainer.py:
             370-376 (Tracking(project_name, experiment_name, default_backend=trainer.logger)), :412-418 (the validation
             before training when `val_before_train`, at global_step 0; training from step 1), :463-468 (one
             `logger.log(metrics, step=global_step)` a batch), :476-480 (validation when global_step % test_freq == 0,
             then global_step += 1), :488-491 (a last validation after training, at total + 1), :531-537
             (`batch/{workflow metric}`, `batch/termination_reason/{r}`: the batch's aggregate, no per-source key),
             :863-905 (validation: `val/{key}` of the reward metrics, `val/{data_source}/pass@1` the mean of the
             source's episodes' is_correct, `val/{data_source}/pass@{n_val}`, `val/{data_source}/{workflow metric}`,
             one log at the global step); rllm/trainer/algorithms/advantage.py:237-248 (`reward/{role}/mean|std|…`,
             `advantage/{role}/…`); rllm/utils/tracking.py:127 (`wandb.init(project=project_name,
             name=experiment_name, config=config)`: a random id), :742-755 (the `tensorboard` backend: torch's
             SummaryWriter in `tensorboard_log/{project}/{experiment}`, one add_scalar a key at the step);
             rllm/trainer/config/rllm/base.yaml:49-50 (rollout n 8, n_val 1), :64-71 (logger ['console'], test_freq 5,
             val_before_train false). Data sources of three families (DeepScaleR math: math500, aime2024, amc23,
             olympiad_bench, minerva_math; DeepCoder: livecodebench, codeforces, humanevalplus; agents: gsm8k,
             countdown, frozenlake, hotpotqa) at their real set sizes (30–1319 problems; avg@8/16 on sets of 100 or
             fewer, else 1 or 4 samples), 2–5 a run, 80–160 validations every 5–20 steps; judged eval only (a
             user profile `^val/(?P<env>[^/]+)/(?P<metric>pass@1)$`); 65 % W&B offline, 35 % TensorBoard.
  art        OpenPipe/ART@779559fd0c68ce073cbd041447f88aacf1d9f585: src/art/local/backend.py:240-288 (`_log`: the mean
             over the trajectories of `reward`, `exception_rate` and each trajectory.metrics key, `reward_std_dev`),
             :315 (`_log(model, groups, "train")` at the model's step before training), :354 (the trainer's results
             logged at the new step − 1: the same step), :358-380 (`_log_metrics`: `{split}/{metric}`,
             `run.log(metrics, step=step)`), :382-394 (`wandb.init(project=model.project, name=model.name,
             id=model.name, resume="allow")`: a restarted job continues the same id); examples/2048/2048.py:46-61 and
             examples/temporal_clue/temporal-clue.py:67-87 (`model.log(val_groups)` before `model.train` at step i —
             temporal-clue validates 64 puzzles × 2 at every step), examples/hn_title_generator/train.py:327-351
             (validation after `model.train` when global_step % EVAL_STEPS == 0: logged at step i + 1); rewards:
             examples/tic_tac_toe/rollout.py:100-110 (win 1, draw 0.5, loss 0), examples/2048/rollout.py:98-125 (−1 for
             an invalid move, 2 for a win, else a log-scaled board value in 0..1.2), examples/temporal_clue/
             temporal-clue.py:44-51 (the share of the puzzle's questions answered right), examples/art-e/art_e/
             rollout.py:67-111 (−2..−1.6 a format error, −1..−0.6 wrong, 0..0.4 no answer, 1..1.5 right). One model a
             run (the env is the model's name, by `env: "{run}"`); 78 % with validation (fresh games for tic-tac-toe
             and 2048, fixed sets for temporal clue and ART·E), 22 % train only; 30 % killed mid-run and restarted from
             the checkpoint of the step being trained, into a second offline folder of the same id.
  agilerl    AgileRL/AgileRL@549d85e488d478a734fe3fe4e3413720f60066c1: agilerl/training/train_on_policy.py:217-271 (each
             agent collects and learns for evo_steps, then every agent is tested, then `population.report_metrics()`:
             one report an evolution step), agilerl/population.py:97-99 (`train/global_step` = the sum of the agents'
             steps), :141-197 (to_dict: `train/global_step`, `train/steps_per_second`, `eval/mean_fitness`,
             `eval/best_fitness`, `train/mean_score` — the mean over agents of each agent's mean training episode
             score —, `train/agent_{i}/local_steps|score|{metric}|{hp}`, `eval/agent_{i}/fitness`), agilerl/
             algorithms/dqn.py:435-477 (test: the mean score of the loop's first episodes of the vectorized envs),
             agilerl/logger.py:124-167 (WandbLogger: `wandb.log(report.to_dict())`, no `step=`), :170-207 (CSVLogger:
             csv.DictWriter, the first report's keys as the header), :210-258 (TensorboardLogger: `{log_dir}/
             {experiment_name}-{%m%d%Y%H%M%S}`, add_scalar at `train/global_step`), agilerl/utils/utils.py:1474-1496
             (init_wandb: project AgileRL, name `{env}-EvoHPO-{algo}-{%m%d%Y%H%M%S}`), :1570-1584 (init_loggers: the
             TensorBoard experiment `{algo}-{env}`, the CSV file the user's path). Gymnasium CartPole, LunarLander,
             Acrobot, Pendulum and MountainCar returns (−1,480 to 500; crashes, timeouts), populations of 4–8 agents
             with mutated hyperparameters, 100–300 reports; a user profile with `step_key: train/global_step` and
             `run_env` finding the Gymnasium id in the W&B run name or the TensorBoard folder; 55 % W&B offline, 45 %
             TensorBoard; `agilerl_csv`: the CSVLogger alone, under the name AgileRL's docs give it
             (docs/metrics_and_logging/index.rst:168-172: `CSVLogger("training_metrics.csv")`), in a folder
             `{algo}_{env}_{stamp}/` of the run; its header `train/global_step,…`. curriwatch read no such file when the
             corpus was written (the README listed the CSV files it read: the group did not load, its labels counted
             as missed); since the thirty-third round a CSV whose header names a user profile's `step_key` is read.

Truth (the thirty-first corpus's): each env has a skill s in [0, 1] at a fractional point index x = step / G, G the
env's judged interval (the validation interval; a step for a train-only ART run; an evolution step's global steps for
AgileRL). rLLM and ART·E / temporal-clue validations are fixed sets of problems of difficulty b (solved with
probability sigmoid(logit s + b)), tic-tac-toe and 2048 validations fresh games, training values means over the step's
fresh groups; AgileRL's values are means over the population's agents (each below the best by |N(0, pop_sd)|) of each
agent's mean episode return lo + (hi − lo) · clip(s_i + N(0, ep_sd)), crashing to the bottom with probability
crash × (1 − s_i). Training loses a share delta of the gain to exploration / sampling. Learners rise from s0 to s1 over
T = 0.8..2.5 W points and hold; W = max(min(100 steps, 10 % of the span), 20 G). Labels, clean negatives and visibility
are the thirty-first corpus's (a freeze only where the judged metric is a rate by the README's test); prolonged_training
at 10 windows of the pace of the series the README counts — the training logging where there is one (ART: every step;
AgileRL: every report), the validations where only they are read (rLLM) — and, in rLLM's multi-source runs, at least
twice the median graduation time of the graduated sources.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - only each W&B run's `run-{id}.wandb` is copied (no files/, media); ART's `.art/{project}/models/{name}/
    trajectories/*.yaml` and checkpoints, rLLM's episode logs and AgileRL's histograms and saved elites are not written;
  - rLLM's `file` backend (`{project}/{experiment}.jsonl`, `{"step": N, "data": {…}}`) and its UI logger are not used;
  - the AgileRL profile reads the population's mean (`eval/mean_fitness`, `train/mean_score`), not `best_fitness`;
  - a restarted ART job re-logs the step it was killed in (its checkpoint is the step before) and continues.
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

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 4
UNREAD = ()  # conventions whose files curriwatch does not read (AgileRL's CSVLogger file until the thirty-third round)
CYCLE = ("rllm", "art", "agilerl", "agilerl_csv", "rllm", "art", "agilerl", "rllm", "art", "agilerl")
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
RLLM_SOURCES = {"math500": 500, "aime2024": 30, "amc23": 40, "olympiad_bench": 675, "minerva_math": 272,
                "livecodebench": 279, "codeforces": 408, "humanevalplus": 164, "gsm8k": 1319, "countdown": 512,
                "frozenlake": 100, "hotpotqa": 500}
RLLM_FAMILIES = {"deepscaler": ("math500", "aime2024", "amc23", "olympiad_bench", "minerva_math"),
                 "deepcoder": ("livecodebench", "codeforces", "humanevalplus"),
                 "agent": ("gsm8k", "countdown", "frozenlake", "hotpotqa")}
ART_TASKS = {  # task: (outcome, validation, its size, validation styles, W&B project, model name stem)
    "tic-tac-toe": ("wdl", "games", (20, 60), ("before", "after"), "tic-tac-toe", "tic-tac-toe-local"),
    "2048": ("g2048", "games", (16, 40), ("before", "after"), "2048-multi-turn", "agent"),
    "temporal-clue": ("clue", "fixed", (64, 64), ("every",), "temporal-clue", "clue"),
    "email-agent": ("arte", "fixed", (50, 100), ("after", "before"), "email_agent", "email-agent"),
}
ART_GROUPS = {"tic-tac-toe": ((8, 16, 32), (4, 8)), "2048": ((18, 24), (4, 8)), "temporal-clue": ((4, 8), (50,)),
              "email-agent": ((6, 12), (4, 6))}
AGILE_ENVS = {  # gymnasium id: (algorithms, worst, best episode return, episode noise, crash share)
    "CartPole-v1": (("PPO", "DQN", "RainbowDQN"), 9.0, 500.0, 0.22, 0.0),
    "LunarLander-v3": (("PPO", "DQN"), -260.0, 285.0, 0.10, 0.3),
    "Acrobot-v1": (("DQN", "PPO"), -500.0, -62.0, 0.06, 0.15),
    "Pendulum-v1": (("TD3", "DDPG"), -1480.0, -130.0, 0.07, 0.05),
    "MountainCar-v0": (("DQN",), -200.0, -98.0, 0.05, 0.0),
}
HOSTS = ("dgx-a100-2", "gpu-node-07", "h100-sxm-3", "ws-4090")


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
# A spec says how one logged value arises from the skill: mode "groups" (a step's fresh problems, `P` prompts of which
# Binomial(P, share) are this env's, `gs` samples each, optionally zero-std filtered), "fixed" (a fixed set of problems
# `b`, `k` samples each) or "pool" (Binomial(N, share) games drawn from a fixed pool `b`, one episode each); outcome
# binary, multiturn (solved at retry t worth disc^t, up to `turns` tries) or countdown (1 right, 0.1 well-formed).

def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def _logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def _outcome_values(spec: dict, p: np.ndarray, s: np.ndarray, rng) -> np.ndarray:
    """One sample's reward for each solve probability in p (s: the skill, same shape)."""
    out = spec.get("outcome", "binary")
    if out == "binary":
        return (rng.random(p.shape) < p).astype(float)
    if out == "multiturn":
        v = np.zeros(p.shape)
        live = np.ones(p.shape, bool)
        for t in range(spec["turns"]):
            hit = live & (rng.random(p.shape) < p)
            v = np.where(hit, spec["disc"] ** t, v)
            live &= ~hit
        return v
    u = rng.random(p.shape)
    won = rng.random(p.shape) < p
    if out == "wdl":  # ART tic_tac_toe/rollout.py:100-107: win 1, draw 0.5, loss 0
        return np.where(won, 1.0, np.where(u < 0.4, 0.5, 0.0))
    if out == "clue":  # ART temporal-clue.py:44-49: the share of the puzzle's questions answered right
        return rng.binomial(spec["nq"], p) / spec["nq"]
    if out == "g2048":  # ART 2048/rollout.py:98-125: an invalid move -1, a win 2, else the log-scaled board value
        lost = np.clip(0.25 + 0.6 * s + rng.normal(0.0, 0.08, p.shape), 0.05, 1.15)
        return np.where(won, 2.0, np.where(u < 0.25 * (1 - s), -1.0, lost))
    if out == "arte":  # ART art-e/art_e/rollout.py:67-111: format error -2.., wrong -1.., no answer 0.., right 1..
        part = 0.1 * rng.integers(0, 4, p.shape)
        right = 1.0 + 0.3 * (rng.random(p.shape) < 0.7) + 0.1 * rng.random(p.shape)
        fail = np.where(u < 0.12 * (1 - s), -2.0 + part, np.where(u < 0.6, -1.0 + part, part))
        return np.where(won, right, fail)
    raise ValueError(out)


def sample_spec(spec: dict, s, rng, counts=None) -> tuple[np.ndarray, dict]:
    """One logged value per entry of s (NaN where the step held none of this env's problems). counts: the groups (or
    games) of this env at each entry, when the writer drew them jointly with the run's other envs."""
    s = np.clip(np.atleast_1d(np.asarray(s, float)), 0, 1)
    n = len(s)
    z = _logit(s)
    mode = spec["mode"]
    extra: dict = {}
    if mode == "fixed":
        b = np.asarray(spec["b"])
        k = spec.get("k", 1)
        p = _sig(z[:, None, None] + b[None, :, None]) * np.ones((1, 1, k))
        p = np.where(s[:, None, None] <= 1e-4, 0.0, np.where(s[:, None, None] >= 1 - 1e-4, 1.0, p))
        v = _outcome_values(spec, p, np.broadcast_to(s[:, None, None], p.shape), rng)
        extra["per_problem"] = v.mean(axis=2)
        return v.mean(axis=(1, 2)), extra
    if mode == "pop":  # AgileRL: the mean over the population's agents of each agent's mean episode return
        A, k = spec["A"], spec["k"]
        lo, hi = spec["lo"], spec["hi"]
        si = np.clip(s[:, None] - np.abs(rng.normal(0.0, spec["pop_sd"], (n, A))) * spec["g"], 0, 1)
        u = si[:, :, None] + rng.normal(0.0, spec["ep_sd"], (n, A, k))
        crash = rng.random((n, A, k)) < spec["crash"] * (1 - si[:, :, None])
        ep = lo + (hi - lo) * np.where(crash, rng.uniform(0.0, 0.12, (n, A, k)), np.clip(u, 0, 1))
        per_agent = ep.mean(axis=2)
        extra.update(per_agent=per_agent, best=per_agent.max(axis=1))
        return per_agent.mean(axis=1), extra
    if mode == "pool":
        b = np.asarray(spec["b"])
        cnt = counts if counts is not None else rng.binomial(spec["N"], spec["share"], n)
        m = max(int(np.max(cnt)) if len(cnt) else 0, 1)
        idx = rng.integers(0, len(b), (n, m))
        p = _sig(z[:, None] + b[idx])
        p = np.where(s[:, None] <= 1e-4, 0.0, np.where(s[:, None] >= 1 - 1e-4, 1.0, p))
        won = (rng.random(p.shape) < p).astype(float)
        mask = np.arange(m)[None, :] < np.asarray(cnt)[:, None]
        tot = (won * mask).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = np.where(np.asarray(cnt) > 0, tot / np.maximum(cnt, 1), np.nan)
        extra["count"] = np.asarray(cnt)
        return v, extra
    P, gs = spec["P"], spec["gs"]
    if counts is not None:
        cnt = np.asarray(counts)
    elif spec.get("share", 1.0) >= 1.0:
        cnt = np.full(n, P)
    else:
        cnt = rng.binomial(P, spec["share"], n)
    m = max(int(cnt.max()) if n else 0, 1)
    b = rng.normal(0.0, spec["spread"], (n, m))
    p = _sig(z[:, None] + b)
    p = np.where(s[:, None] <= 1e-4, 0.0, np.where(s[:, None] >= 1 - 1e-4, 1.0, p))
    pp = np.repeat(p[:, :, None], gs, axis=2)
    vals = _outcome_values(spec, pp, np.broadcast_to(s[:, None, None], pp.shape), rng)
    gmean = vals.mean(axis=2)
    mask = np.arange(m)[None, :] < cnt[:, None]
    if spec.get("filter"):
        sd = vals.std(axis=2)
        mask = mask & (sd > 0)
    kept = mask.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(kept > 0, (gmean * mask).sum(axis=1) / np.maximum(kept, 1), np.nan)
    extra.update(count=cnt, kept=kept, groups=gmean, mask=mask, any_won=(vals.max(axis=2) > 0))
    return v, extra


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
    """README: a metric whose values all lie in [0, 1] is a rate, unless its name reads as a reward and its values say
    it is none (8+ distinct values on no 1/n lattice of n <= 256, no env near 1). reaches_top False: the env never gets
    near its s1 (a freeze), so only the lattice can say it."""
    if not env.params.get("reward_named"):
        return True
    spec = env.params["judged_spec"]
    out = spec.get("outcome", "binary")
    if spec["mode"] == "pop" or out in ("g2048", "arte"):  # returns, or rewards beyond [0, 1]
        return False
    if out in ("binary", "wdl"):
        n = spec["k"] * len(spec["b"]) if spec["mode"] == "fixed" else spec["P"] * spec["gs"]
        if n * (2 if out == "wdl" else 1) <= 256:
            return True
    return reaches_top and point_mean(env, env.s1) >= 0.93


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


def window(G: float, span: float) -> float:
    """The stagnation window in steps: max(min(100, 10 % of the span), 20 points)."""
    return max(min(100.0, 0.1 * span), 20.0 * G)


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
    hold = max(3.0 / env.G, min(50.0, 0.05 * span) / env.G)
    return float(hit[0] + hold) if len(hit) else float(env.L)




# --- planning ------------------------------------------------------------------------------------------------------

def _new_env(name: str, L: int, G: float, s0: float, s1: float, judged: dict, train: dict | None, ev: dict | None,
             **params) -> Env:
    e = Env(name, int(L), float(G), 0, float(s0), float(s1), 0.0)
    e.params.update(judged_spec=judged, train_spec=train, eval_spec=ev, **params)
    return e


def plan_rllm(run: dict, rng) -> tuple[list[Env], float]:
    fam = str(rng.choice(list(RLLM_FAMILIES)))
    pool = RLLM_FAMILIES[fam]
    ns = int(rng.integers(2, min(5, len(pool)) + 1))
    srcs = [str(x) for x in rng.permutation(pool)[:ns]]
    tf = int(rng.choice([5, 5, 10, 20]))
    n_val = int(rng.integers(80, 161))
    total = tf * n_val + int(rng.integers(0, tf))
    before = bool(rng.random() < 0.6)
    run.update(family=fam, sources=srcs, test_freq=tf, total_steps=total, val_before_train=before,
               backend="wandb" if rng.random() < 0.65 else "tensorboard", project=f"rllm-{fam}",
               experiment=f"{fam}-{['qwen3-4b', 'deepseek-r1-distill-1.5b', 'qwen2.5-7b-instruct'][int(rng.integers(3))]}"
                          f"-{run['seed'] % 1000:03d}", n=int(rng.choice([4, 8, 16])), batch=int(rng.choice([32, 64, 128])))
    envs = []
    for src in srcs:
        m = RLLM_SOURCES[src]
        k = int(rng.choice([8, 16])) if m <= 100 else int(rng.choice([1, 1, 4]))
        ev = dict(mode="fixed", b=rng.normal(0.0, float(rng.uniform(0.8, 1.8)), m).tolist(), k=k)
        L = n_val + (1 if before else 0) + 1
        e = _new_env(src, L, tf, rng.uniform(0.02, 0.3), rng.uniform(0.82, 0.96), ev, None, ev, n_val_samples=k)
        envs.append(e)
    run["n_val_samples"] = {e.name: e.params["n_val_samples"] for e in envs}
    return envs, float(total)


def plan_art(run: dict, rng) -> tuple[list[Env], float]:
    task = str(rng.choice(list(ART_TASKS)))
    outcome, val_mode, (mlo, mhi), styles, proj, stem = ART_TASKS[task]
    style = str(rng.choice(styles)) if rng.random() < 0.78 else "none"
    if style == "every":
        E = 1
        total = int(rng.integers(150, 601))
    elif style == "none":
        E = 1
        total = int(rng.integers(300, 1201))
    else:
        E = int(rng.choice([5, 10])) if task != "email-agent" else int(rng.choice([10, 20, 30]))
        total = E * int(rng.integers(60, 121)) + int(rng.integers(0, E))
    P = int(rng.choice(ART_GROUPS[task][0]))
    gs = int(rng.choice(ART_GROUPS[task][1]))
    nq = int(rng.integers(3, 9))
    name = f"{stem}-{run['seed'] % 1000:03d}"
    resume_at = int(rng.uniform(0.3, 0.8) * total) if rng.random() < 0.3 else None
    run.update(task=task, style=style, eval_every=E, total_steps=total, groups_per_step=P, group_size=gs,
               project=proj, model=name, resume_at=resume_at, single=True)
    o = dict(outcome=outcome, nq=nq)
    train = dict(mode="groups", P=P, gs=gs, share=1.0, spread=float(rng.uniform(0.6, 1.6)), **o)
    if style == "none":
        e = _new_env(name, total, 1.0, rng.uniform(0.02, 0.3), rng.uniform(0.82, 0.96), train, train, None,
                     delta=0.0, reward_named=True, train_G=1.0)
        return [e], float(total)
    m = int(rng.integers(mlo, mhi + 1))
    if val_mode == "games":  # fresh games every validation (the opponent or the tile draws are random)
        ev = dict(mode="groups", P=m, gs=1, share=1.0, spread=float(rng.uniform(0.4, 1.0)), **o)
    else:
        ev = dict(mode="fixed", b=rng.normal(0.0, float(rng.uniform(0.8, 1.6)), m).tolist(),
                  k=2 if task == "temporal-clue" else 1, **o)
    n_ev = len(_art_eval_steps(style, E, total))
    e = _new_env(name, n_ev, E, rng.uniform(0.02, 0.3), rng.uniform(0.82, 0.96), ev, train, ev,
                 delta=float(rng.uniform(0.0, 0.06)), reward_named=True, train_G=1.0)
    return [e], float(total)


def _art_eval_steps(style: str, E: int, total: int) -> list[int]:
    """The model step each validation is logged at: `model.log(val)` before `model.train` at step i (2048.py,
    temporal-clue.py) or after it (hn_title_generator/train.py:327-351: the checkpoint step is then i + 1)."""
    if style in ("before", "every"):
        return [i for i in range(total) if i % E == 0]
    if style == "after":
        return [i + 1 for i in range(total) if i > 0 and i % E == 0]
    return []


def plan_agilerl(run: dict, rng) -> tuple[list[Env], float]:
    gym_id = str(rng.choice(list(AGILE_ENVS)))
    algos, lo, hi, ep_sd, crash = AGILE_ENVS[gym_id]
    algo = str(rng.choice(algos))
    A = int(rng.choice([4, 4, 6, 8]))
    num_envs = int(rng.choice([8, 16]))
    evo = int(rng.choice([5000, 10000, 10000, 20000]))
    learn = 2048 if algo == "PPO" else int(rng.choice([1, 4]))
    # train_on_policy.py:240-257: ceil(evo / learn_step) rollouts of ceil(learn_step / num_envs) steps x num_envs;
    # train_off_policy: evo_steps // num_envs iterations of num_envs steps
    inc = (-(evo // -learn)) * (-(learn // -num_envs)) * num_envs if algo == "PPO" else -(evo // -num_envs) * num_envs
    G = A * inc  # train/global_step = the sum of the agents' steps (population.py:98-99)
    rows = int(rng.integers(100, 301))
    backend = "csv" if run["convention"] == "agilerl_csv" else ("wandb" if rng.random() < 0.55 else "tensorboard")
    run.update(gym_id=gym_id, algo=algo, pop_size=A, num_envs=num_envs, evo_steps=evo, learn_step=learn,
               agent_steps=inc, rows=rows, backend=backend, total_steps=rows * G, single=True,
               stamp=_stamp(rng))
    m = int(rng.integers(12, 41))
    g = 1.0
    base = dict(mode="pop", A=A, lo=lo, hi=hi, ep_sd=ep_sd, crash=crash, pop_sd=float(rng.uniform(0.04, 0.14)), g=g)
    ev = dict(base, k=num_envs)
    train = dict(base, k=m)
    e = _new_env(gym_id, rows, G, rng.uniform(0.0, 0.15), rng.uniform(0.85, 0.97), ev, train, ev,
                 delta=float(rng.uniform(0.02, 0.1)), reward_named=True, train_G=G, first_eval=G)
    return [e], float(rows * G)


def _stamp(rng) -> str:
    """datetime.now().strftime("%m%d%Y%H%M%S") (agilerl/utils/utils.py:1483, agilerl/logger.py:236)."""
    mo, d, h, mi, sec = (int(rng.integers(1, 13)), int(rng.integers(1, 29)), int(rng.integers(0, 24)),
                         int(rng.integers(0, 60)), int(rng.integers(0, 60)))
    return f"{mo:02d}{d:02d}2026{h:02d}{mi:02d}{sec:02d}"


PLANNERS = {"rllm": plan_rllm, "art": plan_art, "agilerl": plan_agilerl, "agilerl_csv": plan_agilerl}

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
    conv = run["convention"]
    envs, total = PLANNERS[conv](run, rng)
    run["envs"] = envs
    Ws = []
    for env in envs:
        W = window(env.G, total) / env.G
        env.params["W"] = W
        tg = env.params.get("train_G", env.G)  # the pace of the series prolonged_training counts (README)
        env.params["Wp"] = window(tg, total) / env.G
        env.T = float(rng.uniform(0.8, 2.5)) * W
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    if run.get("single") or len(envs) == 1:
        run["single"] = True
        env = envs[0]
        env.params["pro_after"] = 10 * env.params["Wp"]
        if env.T + 2 * Ws[0] >= env.L:
            env.T = max(0.8 * Ws[0], (env.L - 2 * Ws[0]) * 0.8)
        env.T = min(env.T, max(1.5, float(rng.uniform(0.3, 0.9)) * env.params["pro_after"]))
        assign(run, env, Ws[0], 0.7, POOL + ["prolonged_training"], rng)
        _limits_single(env, total)
        return
    n_clean = 1 if len(envs) <= 3 else 2
    grads = [grad_points(e, total) for e in envs[:n_clean]]
    for k, env in enumerate(envs):
        env.params["pro_after"] = max(10 * env.params["Wp"], 2 * float(np.median(grads)))
        assign(run, env, Ws[k], 0.0 if k < n_clean else 0.65, POOL + ["prolonged_training"], rng)
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
    elif v == "freeze":
        onset = first_at(p["R"])
    elif v == "riser" or env.event == "prolonged_training":
        onset = int(round(p.get("first_logged", env.step0) + p["pro_after"] * env.G))
        if onset > int(steps[-1]):
            return []
    elif v in ("sudden", "gradual", "dip"):
        ev = np.array([point_mean(env, u) for u in s])
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


# --- writers -----------------------------------------------------------------------------------------------------------

def _skill(env: Env, step: float) -> float:
    """The policy's skill at a step (the judged split's)."""
    x = (float(step) - env.step0) / env.G
    if env.variant == "single_outlier" and abs(x - env.at) < 0.5:
        return env.s0 + 0.05 * (env.s1 - env.s0)
    return float(truth(env, np.array([x]))[0])


def _train_skill(env: Env, step: float) -> float:
    if env.params.get("eval_spec") is None:  # judged on training itself
        return _skill(env, step)
    x = (float(step) - env.step0) / env.G
    s = float(truth(env, np.array([x]))[0])
    return env.s0 + (s - env.s0) * (1.0 - env.params.get("delta", 0.0))


def _tests_on_path() -> None:
    p = str(Path(__file__).resolve().parents[1] / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)




def _wandb_run(dest_parent: Path, rows: list[tuple[int | None, dict]], *, rid: str, project: str,
               name: str | None = None, config: dict | None = None, resume: str | None = None,
               stamp: str = "20260301_080000") -> None:
    """Log the rows with the real wandb (offline) as the trainer does (`log(row, step=...)`, or `log(row)` when the step
    is None; two calls at one step merge into one row), then copy `run-{id}.wandb` to
    `{dest_parent}/wandb/offline-run-{stamp}-{id}/`."""
    _tests_on_path()
    import wandb
    from writers import wait_until_complete

    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(id=rid, project=project, name=name, config=config, resume=resume, mode="offline",
                        dir=tmp, settings=wandb.Settings(x_disable_stats=True, console="off"))
        for step, row in rows:
            if step is None:
                wr.log(row)
            else:
                wr.log(row, step=int(step))
        wr.finish()
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{rid}/run-{rid}.wandb"))
        wait_until_complete(src)
        dest = dest_parent / "wandb" / f"offline-run-{stamp}-{rid}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


def _tb_raw(dest: Path, rows: list[tuple[int, dict]], wall0: float, host: str, pid: int, pace: float) -> None:
    """torch's SummaryWriter.add_scalar(key, value, step) for every key (rllm/utils/tracking.py:753-755,
    agilerl/logger.py:245-258): the tag as it is (`pass@1` keeps its `@`), written through tensorboardX's FileWriter;
    the file named as torch names it."""
    from tensorboardX import FileWriter
    from tensorboardX.proto.summary_pb2 import Summary

    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fw = FileWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        for n, (step, row) in enumerate(rows):
            for key, val in row.items():
                if isinstance(val, (int, float)) and not isinstance(val, bool):
                    fw.add_summary(Summary(value=[Summary.Value(tag=key, simple_value=float(val))]), int(step),
                                   walltime=wall0 + pace * n)
        fw.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        shutil.copyfile(src, dest / f"events.out.tfevents.{int(wall0)}.{host}.{pid}.0")


def _rid(run: dict) -> str:
    return f"{run['seed'] % 36 ** 8:08x}"[:8]


def write_rllm(folder: Path, run: dict, rng) -> dict:
    envs, tf, total = run["envs"], run["test_freq"], run["total_steps"]
    judged = {e.name: [] for e in envs}
    rows: list[tuple[int, dict]] = []

    def validate(step: int) -> dict:  # unified_trainer.py:838-905
        row: dict = {}
        rewards = []
        for e in envs:
            k = e.params["n_val_samples"]
            v, ex = sample_spec(e.params["eval_spec"], [_skill(e, step)], rng)
            row[f"val/{e.name}/pass@1"] = float(v[0])
            row[f"val/{e.name}/pass@{k}"] = float(np.mean(ex["per_problem"][0] > 0))
            if run["family"] == "agent":
                row[f"val/{e.name}/num_steps"] = float(rng.uniform(2, 8) * (1.2 - 0.5 * float(v[0])))
            rewards.append(float(v[0]))
            judged[e.name].append(step)
        row["val/reward/solver/mean"] = float(np.mean(rewards))
        row["val/reward/solver/std"] = float(rng.uniform(0.3, 0.5))
        row["time/testing"] = float(rng.uniform(60, 400))
        return row

    if run["val_before_train"]:  # unified_trainer.py:412-415 (the step before the first batch: 0)
        rows.append((0, validate(0)))
    for step in range(1, total + 1):  # global_step from 1 (unified_trainer.py:418), one log a batch (:463-468)
        mean_r = float(np.mean([e.s0 + (float(truth(e, np.array([step / e.G]))[0]) - e.s0) * 0.95 for e in envs]))
        row = {"batch/num_steps": float(rng.uniform(1, 6)), "batch/termination_reason/env_done": float(
            rng.uniform(0.7, 1.0)), "batch/termination_reason/max_turns_exceeded": float(rng.uniform(0, 0.2)),
            "reward/solver/mean": float(np.clip(mean_r + rng.normal(0, 0.04), 0, 1)),
            "reward/solver/std": float(rng.uniform(0.2, 0.5)), "advantage/solver/mean": float(rng.normal(0, 0.01)),
            "advantage/solver/fraction_zero": float(rng.uniform(0.1, 0.6)), "actor/pg_loss": float(rng.normal(0, 0.02)),
            "actor/entropy": float(rng.uniform(0.2, 1.0)), "response_length/mean": float(rng.uniform(800, 4000)),
            "time/step": float(rng.uniform(80, 300))}
        rows.append((step, row))
        if step % tf == 0:  # :472-475
            rows.append((step, validate(step)))
    rows.append((total + 1, validate(total + 1)))  # the validation after training (:489-491), global_step total + 1
    if run["backend"] == "wandb":  # tracking.py:118-125: wandb.init(project, name=experiment_name, config)
        cfg = {"rllm": {"trainer": {"project_name": run["project"], "experiment_name": run["experiment"],
                                    "test_freq": tf, "val_before_train": run["val_before_train"],
                                    "logger": ["console", "wandb"]}, "rollout": {"n": run["n"], "n_val": max(
                                        run["n_val_samples"].values())}}, "data": {"train_batch_size": run["batch"]}}
        _wandb_run(folder, rows, rid=_rid(run), project=run["project"], name=run["experiment"], config=cfg)
    else:  # tracking.py:742-755: `tensorboard_log/{project}/{experiment}`
        _tb_raw(folder / "tensorboard_log" / run["project"] / run["experiment"], rows,
                1.76e9 + float(run["seed"] % 10 ** 6), str(rng.choice(HOSTS)), int(rng.integers(1000, 60000)), 45.0)
    return {k: np.array(sorted(set(v)), dtype=np.int64) for k, v in judged.items()}


def write_art(folder: Path, run: dict, rng) -> dict:
    e = run["envs"][0]
    total, E, style = run["total_steps"], run["eval_every"], run["style"]
    ev_steps = set(_art_eval_steps(style, E, total))
    judged: list[int] = []
    segments: list[list[tuple[int, dict]]] = [[]]
    crash = run.get("resume_at")

    def val_row(step: int) -> dict:  # backend.py:240-288 `_log`: averages over the trajectories, `{split}/` prefix
        v, ex = sample_spec(e.params["eval_spec"], [_skill(e, step)], rng)
        judged.append(step)
        row = {"val/reward": float(v[0]), "val/exception_rate": 0.0,
               "val/reward_std_dev": float(np.std(ex["groups"][0])) if "groups" in ex else float(rng.uniform(0.2, 0.5))}
        row.update(_art_metrics(run, "val", float(v[0]), rng))
        return row

    i = 0
    while i < total:
        seg = segments[-1]
        if style in ("before", "every") and i in ev_steps:
            seg.append((i, val_row(i)))
        v, ex = sample_spec(e.params["train_spec"], [_train_skill(e, i)], rng)
        row = {"train/reward": float(v[0]), "train/exception_rate": float(rng.choice([0.0, 0.0, 0.0, 1 / 64])),
               "train/reward_std_dev": float(np.mean(np.std(np.atleast_2d(ex["groups"][0]), axis=0)))}
        row.update(_art_metrics(run, "train", float(v[0]), rng))
        seg.append((i, row))
        if style == "none":  # a train-only run is judged on its training
            judged.append(i)
        if crash is not None and i == crash and len(segments) == 1:
            segments.append([])  # killed while training step i: the restart resumes from checkpoint i (model.get_step())
            continue
        # backend.py:343-353: the trainer's results at the new step - 1, i.e. step i
        seg.append((i, {"train/loss": float(rng.normal(0.0, 0.05)), "train/grad_norm": float(rng.uniform(0.05, 1.5)),
                        "train/policy_loss": float(rng.normal(0, 0.05)), "train/entropy": float(rng.uniform(0.3, 1.2)),
                        "train/num_gradient_steps": float(run["groups_per_step"])}))
        if style == "after" and (i + 1) in ev_steps:
            seg.append((i + 1, val_row(i + 1)))
        i += 1
    cfg = {"base_model": str(rng.choice(["Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-14B-Instruct",
                                          "Qwen/Qwen3-8B"])), "groups_per_step": run["groups_per_step"],
           "rollouts_per_group": run["group_size"], "eval_steps": E}
    # backend.py:389-394: wandb.init(project=model.project, name=model.name, id=model.name, resume="allow")
    stamps = ["20260412_093015", "20260413_021744"]
    for k, seg in enumerate(segments):
        _wandb_run(folder, seg, rid=run["model"], project=run["project"], name=run["model"], config=cfg,
                   resume="allow", stamp=stamps[k])
    return {e.name: np.array(sorted(set(judged)), dtype=np.int64)}


def _art_metrics(run: dict, split: str, v: float, rng) -> dict:
    """The rollout's own trajectory.metrics, averaged under the same prefix."""
    t = run["task"]
    if t == "tic-tac-toe":
        return {f"{split}/win": float(np.clip(v + rng.normal(0, 0.03), 0, 1)),
                f"{split}/num_moves": float(rng.uniform(3, 5)), f"{split}/invalid_move": float(rng.uniform(0, 0.05))}
    if t == "2048":
        return {f"{split}/max_value": float(2 ** (6 + 5 * np.clip(v / 2, 0, 1))),
                f"{split}/board_value": float(400 + 1500 * np.clip(v / 2, 0, 1)),
                f"{split}/num_moves": float(100 + 400 * np.clip(v / 2, 0, 1))}
    if t == "temporal-clue":
        return {f"{split}/acc": v}
    return {f"{split}/num_turns": float(rng.uniform(2, 8)), f"{split}/duration": float(rng.uniform(5, 40)),
            f"{split}/answer_correct": float(np.clip((v + 1) / 3, 0, 1))}


def write_agilerl(folder: Path, run: dict, rng) -> dict:
    e = run["envs"][0]
    A, G = run["pop_size"], e.G
    judged: list[int] = []
    rows: list[dict] = []
    lr = rng.uniform(1e-4, 1e-3, A)
    bs = rng.choice([64, 128, 256], A)
    for r in range(1, run["rows"] + 1):  # one report an evolution step (train_on_policy.py:270-271)
        step = int(r * G)
        tv, tex = sample_spec(e.params["train_spec"], [_train_skill(e, step)], rng)
        ev, eex = sample_spec(e.params["eval_spec"], [_skill(e, step)], rng)
        row: dict = {"train/global_step": step, "train/steps_per_second": float(rng.uniform(800, 4000)),
                     "eval/mean_fitness": float(ev[0]), "eval/best_fitness": float(eex["best"][0]),
                     "train/mean_score": float(tv[0])}  # population.py:141-197 (to_dict), in this order
        for i in range(A):
            row[f"train/agent_{i}/local_steps"] = int(r * run["agent_steps"])
        for i in range(A):
            row[f"eval/agent_{i}/fitness"] = float(eex["per_agent"][0][i])
        for i in range(A):
            row[f"train/agent_{i}/score"] = float(tex["per_agent"][0][i])
        for i in range(A):
            row[f"train/agent_{i}/loss"] = float(abs(rng.normal(0.5, 0.3)))
        row["train/mean_loss"] = float(np.mean([row[f"train/agent_{i}/loss"] for i in range(A)]))
        if r % 3 == 0:  # mutations (hp): a tournament clones the elite, then mutates
            lr = np.clip(lr * rng.choice([0.8, 1.0, 1.2], A), 1e-5, 1e-2)
        for i in range(A):
            row[f"train/agent_{i}/lr"] = float(lr[i])
            row[f"train/agent_{i}/batch_size"] = int(bs[i])
        rows.append(row)
        judged.append(step)
    algo, gym_id, stamp = run["algo"], run["gym_id"], run["stamp"]
    if run["backend"] == "wandb":  # utils.py:1468-1496 (init_wandb), logger.py:152-161 (wandb.log without step=)
        cfg = {"ALGO": algo, "POP_SIZE": A, "BATCH_SIZE": 128, "LR": 3e-4, "LEARN_STEP": run["learn_step"],
               "NUM_ENVS": run["num_envs"], "NO_MUT": 0.4, "ARCH_MUT": 0.2, "PARAMS_MUT": 0.2, "RL_HP_MUT": 0.2}
        _wandb_run(folder, [(None, rw) for rw in rows], rid=_rid(run), project="AgileRL",
                   name=f"{gym_id}-EvoHPO-{algo}-{stamp}", config=cfg)
    elif run["backend"] == "tensorboard":  # utils.py:1570-1578, logger.py:232-258
        _tb_raw(folder / "tensorboard_logs" / f"{algo}-{gym_id}-{stamp}",
                [(rw["train/global_step"], rw) for rw in rows], 1.77e9 + float(run["seed"] % 10 ** 6),
                str(rng.choice(HOSTS)), int(rng.integers(1000, 60000)), 45.0)
    else:  # logger.py:170-207: csv.DictWriter, the first report's keys as the header, a row per report
        import csv

        path = folder / f"{algo}_{gym_id}_{stamp}" / "training_metrics.csv"  # docs/metrics_and_logging/index.rst:171
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
            w.writeheader()
            for rw in rows:
                w.writerow(rw)
    return {e.name: np.array(sorted(set(judged)), dtype=np.int64)}


# --- build -------------------------------------------------------------------------------------------------------------

WRITERS = {"rllm": write_rllm, "art": write_art, "agilerl": write_agilerl, "agilerl_csv": write_agilerl}
CONFIGS = {
    "rllm": """\
# rLLM logs validation per data source (val/{data_source}/pass@1); its training keys are the batch's aggregate
profiles:
  rllm:
    patterns:
      - {regex: '^val/(?P<env>[^/]+)/(?P<metric>pass@1)$', split: eval}
    performance_metric: pass@1
""",
    "art": """\
# OpenPipe ART: one W&B run a model (id = name = model.name), `train/reward` and `val/reward`
profiles:
  art:
    patterns:
      - {regex: '^(?P<split>train|val)/(?P<metric>reward)$', env: "{run}"}
    performance_metric: reward
""",
    "agilerl": """\
# AgileRL: the population's mean training score and mean evaluation fitness, one report an evolution step
profiles:
  agilerl:
    patterns:
      - {regex: '^train/mean_score$', env: "{run}", split: train, metric: score}
      - {regex: '^eval/mean_fitness$', env: "{run}", split: eval, metric: score}
    performance_metric: score
    step_key: train/global_step
    run_env: '(?P<env>[A-Z][A-Za-z0-9]*-v[0-9]+)'
""",
}
CONFIGS["agilerl_csv"] = CONFIGS["agilerl"]


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
    rng = np.random.default_rng([seed, 32])
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
    if isinstance(o, (tuple, set)):
        return list(o)
    return str(o)
