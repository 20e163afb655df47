"""The thirtieth detection corpus (`python benchmarks/detection.py --corpus thirtieth`): written by a helper from the
user-facing contract only (README's rule table, key profiles — the `sb3_monitor` and `d3rlpy` built-ins among them —,
the top-level `profile:` and `performance_metric:` settings, what a rate is, logging shapes, which files are read, what
`unknown` means; detection.py's label format and scorer; the twenty-eighth and twenty-ninth corpora as examples of the
interface — the truth, placement and labelling helpers below are the twenty-ninth's —), without reading the analysis
code and without looking at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-thirtieth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (20 zoo, 20 zoo_goal, 20 d3rlpy), one group folder per convention. Chosen for
what the twenty-nine other corpora do not cover: the two default on-disk logs curriwatch reads since its thirtieth
round — Stable-Baselines3 / RL Zoo folders without TensorBoard, and d3rlpy's default FileAdapter CSV files:

  zoo / zoo_goal
             DLR-RM/rl-baselines3-zoo@22e3ff2450fd92033f7f032915e1f64894a09584: rl_zoo3/exp_manager.py:196-200 (the run
             folder `{log_folder}/{algo}/{env_id}_{n}`, params in `{env_id}/`), :315-321 (`config.yml`, `args.yml`:
             yaml.dump of OrderedDicts), :585-600 (EvalCallback with `eval_freq // n_envs`, `log_path` the run folder),
             :668-708 (create_envs: `make_vec_env(monitor_dir=save_path)` for training, no Monitor file for the eval
             env; :681-685 `info_keywords=("is_success",)` for robotics envs); rl_zoo3/train.py:43-56 (`--eval-freq`
             25000, `--eval-episodes` 5; `-1` switches evaluation off), :61 (`logs`); hyperparams/ppo.yml:294-316
             (MiniGrid: PPO, 8 envs). DLR-RM/stable-baselines3@e05d2dbe6eda0acd0ef2e316e3e4065677add3eb:
             stable_baselines3/common/env_util.py:109-113 (`{monitor_dir}/{rank}` → `{rank}.monitor.csv`),
             common/monitor.py:46 (header env_id = `env.spec.id`), :96-110 (a row per finished episode: `r` rounded to 6
             places, `l`, `t` seconds since that Monitor's t_start, info keywords after them), :177-213 (ResultsWriter:
             `#{json header}` line, csv header `r,l,t[,is_success]`), :232-270 (load_results: `t += t_start`, every
             file's rows sorted by wall time), common/results_plotter.py:62-73 (the timestep axis: the running sum of
             `l`), common/callbacks.py:405-408 and :476-495 (EvalCallback: `evaluations.npz` rewritten after every
             evaluation with `timesteps`, `results` (n_evals × n_eval_episodes, each episode's Monitor return),
             `ep_lengths`, and `successes` when the env reports `is_success`). zoo: Pendulum-v1, HalfCheetah-v4,
             Swimmer-v4, Reacher-v4 (SAC / TD3 / TQC, one env; 40 % of them with `--eval-freq -1`, Monitor files only),
             LunarLander-v3, CartPole-v1, Acrobot-v1 (PPO 16 / 8 envs, A2C, DQN; episodes whose length follows skill),
             and a MiniGrid DoorKey level sequence (5x5 → 16x16, 2–4 levels, each level an RL Zoo run of its own
             started with `-i` from the last level's model; returns 1 − 0.9 steps / max_steps or 0 at max_steps);
             built-in `sb3_monitor` profile, no curriwatch.yaml. zoo_goal: HER + TQC / SAC on FetchReach / Push /
             Slide / PickAndPlace-v2 (50-step episodes, `is_success` float32 flags in the Monitor rows and the
             evaluations' `successes`, 10–25 evaluation episodes), 1–3 tasks in sequence, each its own folder; judged on
             `success_rate` by a curriwatch.yaml with `profile: sb3_monitor` and `performance_metric: success_rate`.
  d3rlpy     takuseno/d3rlpy@38c34b6f99fde82875e2ad81d1ba1f7a7da34137 (2.8.1): d3rlpy/logging/file_adapter.py:55-72
             (params.json; `{name}.csv` gets `{epoch},{step},{value}` appended, no header), :97-120 (`{param}_grad.csv`
             with an `epoch,step,min,max,mean,std` header at the first commit), :135-142 (`d3rlpy_logs/{experiment}`);
             d3rlpy/logging/logger.py:157-160 (`{experiment_name}_{%Y%m%d%H%M%S}`), :172-198 (commit: each buffered
             metric's mean, then watch_model); d3rlpy/algos/qlearning/base.py:509-517 (default experiment name the
             class's), :525-588 (fit: losses and `time_*` every update, the evaluators' scores after each epoch, one
             commit an epoch at step = updates so far), :664-672 (fit_online: `{Algo}_online`), :714-718
             (`rollout_return` added when an episode ends), :755-771 (at each epoch's end `evaluation` over
             `eval_n_trials` = 10 episodes, then commit at step = env steps); d3rlpy/metrics/evaluators.py:530-548 and
             metrics/utility.py:12-71 (EnvironmentEvaluator: the mean return of `n_trials` = 10 episodes);
             d3rlpy/torch_utility.py:486-493 (the gradient files' names); reproductions/offline/cql.py:41-46 (and
             iql.py, td3_plus_bc.py, discrete_cql.py: `evaluators={"environment": …}`, experiment
             `{Algo}_{dataset}_{seed}`, 1,000 or 125,000 updates an epoch), reproductions/online/sac_online.py:37-45
             (the default name), reproductions/finetuning/iql_finetune.py:64-71 (`IQL_finetuning_{dataset}_{seed}`).
             The file set, params.json's shape and the number formats were checked against a fit and a fit_online run
             with d3rlpy 2.8.1 (CQL on a random Pendulum dataset, SAC online on Pendulum). Offline runs (D4RL hopper,
             halfcheetah, walker2d, pen, antmaze success, DiscreteCQL Atari and CartPole returns; eval only, 60–400
             epochs of 1,000–10,000 updates, 5–20 trials), fit_online runs (`SAC_online`, `DQN_online`,
             `DoubleDQN_online`: the env is the experiment's name, README) and IQL / AWAC antmaze fine-tuning (an epoch
             of 1,000–2,000 env steps: `rollout_return` absent from epochs in which no 700–1,000-step episode ended);
             built-in `d3rlpy` profile, no curriwatch.yaml.

Truth, placement and labelling are the twenty-ninth corpus's (its docstring): skill s in [0, 1] at a fractional point
index x = (step - step0) / G, G the env's judged interval (an evaluation's timesteps apart, d3rlpy's epoch in steps; a
train-only Monitor run: its mean steps per episode). Judged values: an evaluation's mean over its episodes (returns, or
success flags: a binomial of n trials), a train-only run's single episodes (visibility read over 3, a smoothing
window). Training episodes (Monitor rows, `rollout_return`) follow the same skill, less a share `delta` of the gain for
exploration. W = max(min(100 steps, 10 % of the span), 20 G). Every env is a run of its own (a Monitor folder, an
experiment), so there are no siblings: a return that freezes below its top has reached its own top (no stall label;
freezes only for success rates), and prolonged_training comes at activation + 10 stagnation windows of the training
logging's pace (README: the median interval when regular, else the mean of the intervals under 3 × the median), read
from the written files — a Monitor run's pace is its mean steps per finished episode, so 200 episodes; d3rlpy's an
epoch. A clean env that graduates after that limit (90 % of its gain plus the plateau hold, on the truth) is labelled
prolonged there; an event env is made to graduate within it where it can, else it gets the prolonged label beside its
event; a stall (freeze) is only placed where it begins before the limit.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - models (`*.zip`, `best_model.zip`, `model_{step}.d3`), replay buffers and vecnormalize.pkl are not written;
    d3rlpy's params.json holds the config's main fields, not every nested default;
  - no RL Zoo run is logged to TensorBoard as well (README: that would be a second run) and no Monitor file is appended
    to (`override_existing=False` keeps the first header's t_start, so SB3's own reading misplaces the new rows);
  - d3rlpy's fine-tuning datasets use the D4RL names (`antmaze-umaze-v2`), not the minari ids with `/` in them;
  - the skill of a training episode is read at its start, an evaluation's at its timesteps.
"""
from __future__ import annotations

import datetime
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 6
CYCLE = ("zoo", "zoo_goal", "d3rlpy")
UNREAD = ()  # conventions whose files curriwatch does not read (none of these three)
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "zoo": "",  # the built-in sb3_monitor profile claims the Monitor files and evaluations.npz
    # goal envs (RL Zoo's `info_keywords=("is_success",)` for robotics envs): judged on the success flags / the
    # evaluations' `successes` rather than on the (dense-negative) returns
    "zoo_goal": "profile: sb3_monitor\nperformance_metric: success_rate\n",
    "d3rlpy": "",  # the built-in d3rlpy profile claims `environment`, `evaluation` and `rollout_return`
}
# RL Zoo tasks with returns. A/B: the return at skill 0/1; sd: per-episode sd in skill units; lo/hi: clip of the
# skill-units draw; ep_len: nominal episode length; len_mode: fixed | ret (CartPole: one reward a step) | var (falls
# early when unskilled) | lunar; algos: (algo, n_envs)
ZOO_TASKS = {
    "Pendulum-v1": dict(family="pendulum", game_kind="gauss", A=-1350.0, B=-150.0, sd=0.07, lo=-0.05, hi=1.02,
                        ep_len=200, len_mode="fixed", algos=(("sac", 1), ("td3", 1), ("tqc", 1)), train_only=True),
    "HalfCheetah-v4": dict(family="mujoco", game_kind="gauss", A=-280.0, B=9500.0, sd=0.025, lo=-0.03, hi=1.04,
                           ep_len=1000, len_mode="fixed", algos=(("sac", 1), ("tqc", 1), ("td3", 1)), train_only=True),
    "Swimmer-v4": dict(family="mujoco", game_kind="gauss", A=8.0, B=345.0, sd=0.05, lo=-0.05, hi=1.03, ep_len=1000,
                       len_mode="fixed", algos=(("td3", 1), ("sac", 1)), train_only=True),
    "Reacher-v4": dict(family="reacher", game_kind="gauss", A=-43.0, B=-3.8, sd=0.05, lo=-0.1, hi=1.02, ep_len=50,
                       len_mode="fixed", algos=(("sac", 1), ("td3", 1)), train_only=True),
    "LunarLander-v3": dict(family="lunar", game_kind="gauss", A=-240.0, B=265.0, sd=0.14, lo=-0.25, hi=1.08,
                           ep_len=300, len_mode="lunar", algos=(("ppo", 16), ("dqn", 1), ("a2c", 8))),
    "CartPole-v1": dict(family="cartpole", game_kind="gauss", A=10.0, B=500.0, sd=0.1, lo=0.0, hi=1.0, ep_len=250,
                        len_mode="ret", algos=(("ppo", 8), ("dqn", 1), ("a2c", 8))),
    "Acrobot-v1": dict(family="acrobot", game_kind="steps", cap=500, lo_len=62, hi_len=140, ep_len=200,
                       algos=(("ppo", 16), ("dqn", 1), ("a2c", 16))),
}
MINIGRID_LEVELS = (5, 6, 8, 16)  # MiniGrid-DoorKey-{n}x{n}-v0, max_steps 10 n^2
FETCH_TASKS = ("FetchReach-v2", "FetchPush-v2", "FetchSlide-v2", "FetchPickAndPlace-v2")
D3_OFFLINE = {  # dataset: (algos, A, B, sd, lo, hi, kind)
    "hopper-medium-v0": (("CQL", "IQL", "TD3PlusBC"), 250.0, 3300.0, 0.05, -0.05, 1.03, "gauss"),
    "halfcheetah-medium-replay-v2": (("CQL", "IQL", "TD3PlusBC"), -250.0, 5600.0, 0.02, -0.02, 1.02, "gauss"),
    "walker2d-medium-expert-v2": (("CQL", "IQL", "TD3PlusBC"), 150.0, 5050.0, 0.06, -0.05, 1.02, "gauss"),
    "pen-human-v1": (("IQL", "CQL"), -80.0, 3100.0, 0.22, -0.1, 1.15, "gauss"),
    "antmaze-umaze-v2": (("IQL",), 0.0, 1.0, 0.0, 0.0, 1.0, "binary"),
    "antmaze-medium-play-v2": (("IQL",), 0.0, 1.0, 0.0, 0.0, 1.0, "binary"),
    "breakout": (("DiscreteCQL",), 2.0, 330.0, 0.15, -0.02, 1.1, "atari"),
    "pong": (("DiscreteCQL",), -21.0, 19.0, 0.08, 0.0, 1.05, "atari"),
    "cartpole-replay": (("DQN", "DiscreteCQL"), 9.0, 200.0, 0.12, 0.0, 1.0, "atari"),
}
D3_ONLINE = {  # experiment name (fit_online's default `{Algo}_online`): (env, A, B, sd, lo, hi, ep_len, len_mode)
    "SAC_online": (("Hopper-v4", -20.0, 3400.0, 0.08, -0.03, 1.03, 1000, "var"),
                   ("HalfCheetah-v4", -300.0, 10500.0, 0.025, -0.03, 1.03, 1000, "fixed"),
                   ("Pendulum-v1", -1350.0, -150.0, 0.07, -0.05, 1.02, 200, "fixed")),
    "DQN_online": (("CartPole-v1", 10.0, 500.0, 0.1, 0.0, 1.0, 250, "ret"),),
    "DoubleDQN_online": (("CartPole-v1", 10.0, 500.0, 0.1, 0.0, 1.0, 250, "ret"),),
}
D3_FINETUNE = (("IQL", "antmaze-umaze-v2", 700), ("IQL", "antmaze-medium-play-v2", 1000),
               ("AWAC", "antmaze-umaze-v2", 700))
D3_MODULES = {  # parameters with gradients (d3rlpy/torch_utility.py:486-493), as a real fit writes them
    "continuous": ["policy._encoder._layers.0.weight", "policy._encoder._layers.0.bias",
                   "policy._encoder._layers.2.weight", "policy._encoder._layers.2.bias", "policy._mu.weight",
                   "policy._mu.bias", "policy._logstd.weight", "policy._logstd.bias"]
                  + [f"q_funcs.{k}.{m}" for k in (0, 1) for m in (
                      "_encoder._layers.0.weight", "_encoder._layers.0.bias", "_encoder._layers.2.weight",
                      "_encoder._layers.2.bias", "_fc.weight", "_fc.bias")],
    "discrete": [f"q_funcs.0.{m}" for m in ("_encoder._layers.0.weight", "_encoder._layers.0.bias",
                                            "_encoder._layers.2.weight", "_encoder._layers.2.bias", "_fc.weight",
                                            "_fc.bias")],
}
D3_LOSSES = {
    "CQL": ("critic_loss", "conservative_loss", "actor_loss", "temp", "temp_loss", "alpha"),
    "IQL": ("critic_loss", "q_loss", "v_loss", "actor_loss"),
    "TD3PlusBC": ("critic_loss", "actor_loss"),
    "AWAC": ("critic_loss", "actor_loss"),
    "DiscreteCQL": ("loss", "td_loss", "conservative_loss"),
    "DQN": ("loss",),
    "DoubleDQN": ("loss",),
    "SAC": ("critic_loss", "actor_loss", "temp", "temp_loss"),
}
HOSTS = ("dgx-a100-2", "gpu-node-07", "ws-4090", "slurm-h100-11")


@dataclass
class Env:
    name: str
    L: int               # judged points (nominal)
    G: float             # steps between judged points
    step0: int           # activation step (point 0)
    s0: float
    s1: float
    T: float
    kind: str = "binom"  # binom (success flags) | episodes (returns)
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

def ep_sample(p: dict, s, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Episodes at skills s: (return, length, judged value, success flag) per entry. p: the env's game params."""
    s = np.clip(np.asarray(s, float), 0.0, 1.0)
    n = len(s)
    gk = p["game_kind"]
    succ = np.zeros(n)
    if gk == "steps":  # Acrobot: -1 a step until the goal; a timeout at the cap
        won = rng.random(n) < s
        ln = np.where(won, rng.integers(p["lo_len"], p["hi_len"] + 1, n), p["cap"])
        ret = np.where(won, -(ln - 1.0), -float(p["cap"]))
        return ret, ln.astype(int), ret, won.astype(float)
    if gk == "minigrid":  # 1 - 0.9 steps / max_steps when solved, else 0 at max_steps
        ms = p["max_steps"]
        won = rng.random(n) < s
        ln = np.clip(np.round(ms * (0.04 + 0.5 * (1 - s)) * rng.uniform(0.5, 1.5, n)), 10, ms - 1)
        ln = np.where(won, ln, ms).astype(int)
        ret = np.where(won, 1 - 0.9 * ln / ms, 0.0)
        return ret, ln, ret, won.astype(float)
    if gk in ("fetch", "antmaze"):  # one trial's success
        won = rng.random(n) < s
        if gk == "fetch":  # -1 a step away from the goal, 50 steps (gymnasium-robotics' TimeLimit), is_success float
            ln = np.full(n, 50)
            ret = np.where(won, -rng.integers(2, 22, n), -rng.integers(38, 51, n)).astype(float)
        else:  # D4RL antmaze: 1 on reaching the goal (the episode ends), else 0 at the time limit
            ln = np.where(won, rng.integers(150, int(0.8 * p["ep_len"]), n), p["ep_len"])
            ret = won.astype(float)
        return ret, ln.astype(int), won.astype(float), won.astype(float)
    u = np.clip(s + p["sd_ep"] * rng.standard_normal(n), p["lo"], p["hi"])
    ret = p["A"] + (p["B"] - p["A"]) * u
    mode = p.get("len_mode", "fixed")
    if mode == "ret":  # CartPole: +1 a step
        ln = np.maximum(8, np.round(ret)).astype(int)
        ret = ln.astype(float)
    elif mode == "fixed":
        ln = np.full(n, int(p["ep_len"]))
    elif mode == "lunar":  # crashes early when unskilled, hovers long in between, lands in a few hundred steps
        ln = np.where(u < 0.3, rng.integers(60, 160, n), np.where(u < 0.65, rng.integers(350, 1001, n),
                                                                   rng.integers(180, 420, n)))
    else:  # falls early when unskilled
        ln = np.maximum(40, np.round(p["ep_len"] * np.minimum(1.0, 0.25 + 0.75 * np.maximum(u, 0.0))
                                     * rng.uniform(0.8, 1.0, n))).astype(int)
    if p.get("integer"):
        ret = np.round(ret)
    return ret, ln.astype(int), ret, succ


def ep_returns(env: Env, s, rng) -> np.ndarray:
    """One episode's judged value per entry of s."""
    return ep_sample(env.params, s, rng)[2]


def len_expect(p: dict, s: float) -> float:
    rng = np.random.default_rng(4242)
    return float(ep_sample(p, np.full(2000, s), rng)[1].mean())

def ep_expect(env: Env, s) -> np.ndarray:
    """The expected return of an episode at skill s (simulated once per level, interpolated)."""
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
    n = max(1, int(round(env.params.get("n_sim", env.trials()))))  # per-episode points: judged over 3 (smoothing)
    return ep_returns(env, np.full(k * n, s), rng).reshape(k, n).mean(axis=1)


def point_sd(env: Env, s: float) -> float:
    return float(np.std(sim_points(env, s, 300, np.random.default_rng(12345))))


def point_mean(env: Env, s: float) -> float:
    if env.kind == "binom":
        return float(s)
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
    if env.params.get("fixed_n"):  # the episodes behind a point are the run's, not a knob
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
        single = True  # every env of these runs is a run of its own (a Monitor folder, a d3rlpy experiment)
        variant = str(rng.choice(["never", "freeze"])) if rate else "never"
        if not rate and not single:
            return False
        if variant == "never":
            if L < 6 * W:
                return False
            env.event, env.variant = ev, variant
            return visible(env, lambda: gain_E(env, env.s0, env.s1) >= 6 * max(point_sd(env, env.s0), 1e-9))
        R = float(rng.uniform(max(0.4 * W, 6), max(0.8 * W, 7)))
        if R + 1 > env.params["pro_after"]:  # README: a stall that begins after the env is overdue is prolonged
            return False
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
    if neg == "noisy_healthy" and env.params.get("fixed_n"):
        pass  # its noise is the run's own
    elif neg == "noisy_healthy":
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




# --- planning ------------------------------------------------------------------------------------------------------

GRADUATING = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier", "sudden", "gradual", "dip",
              "burst", "switch", "wave")
POOL = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
        "performance_volatility", "prolonged_training"]


def _stamp(rng, fmt: str, base=datetime.datetime(2025, 3, 1)) -> str:
    return (base + datetime.timedelta(seconds=int(rng.integers(0, 200 * 86400)))).strftime(fmt)


def _nice(x: float) -> int:
    choices = (500, 1000, 2000, 2500, 4000, 5000, 10000, 20000, 25000, 50000, 100000)
    return int(min(choices, key=lambda c: abs(math.log(c / max(x, 1.0)))))


def _pace_est(p: dict, s0: float, s1: float) -> float:
    """The README's pace of a per-episode series (the median interval when regular, else the mean of the intervals
    under 3 x the median), on a simulated life that learns over its first 15 % of steps and then holds s1 (timeouts
    of an unskilled policy are past 3 x the median once short solved episodes are most)."""
    rng = np.random.default_rng(4243)
    target = 4000.0 * len_expect(p, s1)
    steps, t = [], 0.0
    while t < target and len(steps) < 20000:
        f = t / target
        s = s0 + (s1 - s0) * min(1.0, f / 0.15)
        t += float(ep_sample(p, np.array([s]), rng)[1][0])
        steps.append(t)
    return pace_of(np.array(steps))


def grad_steps(env: Env) -> float:
    """Steps from activation to the README's graduation: 90 % of the gain reached (on the truth), then held for
    plateau_window (50 steps, at most 5 % of the span, at least 3 points of the training series)."""
    x = np.arange(env.L + 1, dtype=float)
    s = env.s0 + (env.s1 - env.s0) * f_curve(env.curve, x / env.T)
    hit = np.flatnonzero(s >= env.s0 + 0.9 * (env.s1 - env.s0) - 1e-12)
    tG = env.params["train_G"]
    hold = max(3.0 * tG, min(50.0, 0.05 * env.params["span"]))
    return float(hit[0] * env.G + hold) if len(hit) else float("inf")


def limit_steps(env: Env, pace: float | None = None) -> float:
    """README: prolonged after 10 stagnation windows of the env's training logging (its evals when it logs only
    evals); a run of one env has no graduated siblings to lengthen it."""
    return 10.0 * window(pace or env.params["train_G"], env.params["span"])


def new_env(run: dict, rng, name: str, game: dict, *, G: float, L: int, span: float, kind: str, n: float,
            n_sim: float, train_G: float, s0: float, s1: float, T_scale: str) -> Env:
    e = Env(name, int(L), float(G), 0, s0, s1, 0.0, kind=kind, n=float(n))
    e.params.update({k: v for k, v in game.items() if k not in ("algos", "family", "train_only")})
    e.params.update(fixed_n=True, n_sim=n_sim, train_G=float(train_G), span=float(span), wave=0)
    W = window(G, span) / G
    e.params["W"] = W
    e.params["Wp"] = window(train_G, span) / G
    e.params["pro_after"] = 10 * e.params["Wp"]
    if T_scale == "limit":  # learns within a few evaluations: fast against its training episodes
        e.T = max(1.5, float(rng.uniform(0.15, 0.9)) * e.params["pro_after"])
    else:
        e.T = float(rng.uniform(0.1, 0.4)) * e.L
    e.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
    assign(run, e, W, 0.7, POOL, rng)
    _limits(e)
    return e


def _limits(env: Env) -> None:
    """One env a run: an event env is made to graduate within its prolonged limit (its event is then its one
    label); a clean env that graduates after it is prolonged_training; a riser's label comes at the limit."""
    lim = limit_steps(env)
    if env.event in EVENTS and env.variant in GRADUATING:
        for _ in range(8):
            if grad_steps(env) <= lim - env.G:
                break
            env.T = max(1.0, env.T * 0.6)
    elif env.event not in EVENTS and env.variant in GRADUATING and grad_steps(env) > lim + env.G \
            and env.L * env.G > lim + 10 * env.G:
        env.event = "prolonged_training"
    if env.variant == "riser" and env.L - 1 < lim / env.G + 10:
        env.event = env.variant = "healthy"
        env.params.pop("rate", None)


def plan_zoo(run: dict, rng) -> list[Env]:
    """RL Zoo (`python -m rl_zoo3.train --algo A --env E [--eval-freq F --eval-episodes N]`): one folder
    `logs/{algo}/{env}_{n}` a training, Monitor files of its n_envs training envs and EvalCallback's evaluations.npz."""
    goal = run["convention"] == "zoo_goal"
    envs = []
    if goal:
        tasks = list(FETCH_TASKS[:int(rng.integers(1, 4))]) if rng.random() < 0.6 else [str(rng.choice(FETCH_TASKS))]
        games = [(t, dict(game_kind="fetch", ep_len=50)) for t in tasks]
        algo, n_envs = str(rng.choice(["tqc", "tqc", "sac"])), 1
    else:
        fam = str(rng.choice(["pendulum", "mujoco", "reacher", "lunar", "cartpole", "acrobot", "minigrid", "minigrid"]))
        if fam == "minigrid":
            k0 = int(rng.integers(0, 2))
            levels = MINIGRID_LEVELS[k0:k0 + int(rng.integers(2, 5))]
            games = [(f"MiniGrid-DoorKey-{m}x{m}-v0", dict(game_kind="minigrid", max_steps=10 * m * m,
                                                           ep_len=10 * m * m)) for m in levels]
            algo, n_envs = "ppo", 8
        else:
            name = str(rng.choice([k for k, v in ZOO_TASKS.items() if v["family"] == fam]))
            g = dict(ZOO_TASKS[name])
            algo, n_envs = g["algos"][int(rng.integers(len(g["algos"])))]
            if g["game_kind"] == "gauss":
                g["sd_ep"] = g.pop("sd")
            games = [(name, g)]
    run.update(algo=algo, n_envs=n_envs)
    s_prev = None
    for k, (name, g) in enumerate(games):
        s1 = float(rng.uniform(0.85, 0.96))
        s0 = float(rng.uniform(0.0, 0.08)) if s_prev is None else float(rng.uniform(0.15, 0.45))  # `-i`: continues
        train_only = bool(ZOO_TASKS.get(name, {}).get("train_only") and rng.random() < 0.4)
        pace = _pace_est(g, s0, s1)
        if train_only:  # --eval-freq -1: the Monitor files alone, judged on single episodes
            L = int(rng.integers(300, 1200))
            e = new_env(run, rng, name, g, G=pace, L=L, span=L * pace, kind="episodes", n=1.0, n_sim=3.0,
                        train_G=pace, s0=s0, s1=s1, T_scale="life")
            e.params.update(with_eval=False, n_eval=0, eval_freq=-1, total=int(L * pace), delta=0.0)
        else:
            n_eval = int(rng.choice([10, 20, 25] if goal else [5, 5, 10, 20]))
            eval_freq = _nice(float(rng.uniform(8, 40)) * pace)
            E = max(eval_freq // n_envs, 1) * n_envs
            L = int(rng.integers(80, 241))
            total = L * E + int(rng.integers(0, E))
            e = new_env(run, rng, name, g, G=E, L=L, span=total, kind="binom" if goal else "episodes", n=n_eval,
                        n_sim=n_eval, train_G=pace, s0=s0, s1=s1, T_scale="limit")
            e.params.update(with_eval=True, n_eval=n_eval, eval_freq=eval_freq, total=total,
                            delta=float(rng.uniform(0.0, 0.06)))
        e.params.update(algo=algo, n_envs=n_envs, folder_n=1, fps=float(
            rng.uniform(800, 3000) if algo in ("ppo", "a2c") else rng.uniform(50, 160)))
        envs.append(e)
        s_prev = e.s1
    return envs


def plan_d3rlpy(run: dict, rng) -> list[Env]:
    """d3rlpy's fit (offline, an EnvironmentEvaluator under `environment` every epoch) or fit_online (`evaluation`
    and `rollout_return`), logged by its default FileAdapter to `d3rlpy_logs/{experiment}_{timestamp}/`."""
    mode = str(rng.choice(["offline", "offline", "offline", "online", "finetune"]))
    stamp = _stamp(rng, "%Y%m%d%H%M%S")
    seed = int(rng.integers(0, 10))
    s0, s1 = float(rng.uniform(0.0, 0.1)), float(rng.uniform(0.85, 0.96))
    if mode == "offline":
        ds = str(rng.choice(list(D3_OFFLINE)))
        algos, A, B, sd, lo, hi, kind = D3_OFFLINE[ds]
        algo = str(rng.choice(algos))
        exp = f"{algo}_{ds}_{seed}"
        n_trials = int(rng.choice([10, 10, 10, 5, 20]))
        spe = int(rng.choice([1000, 1000, 2000, 5000, 10000]))
        L = int(rng.integers(60, 400))
        if kind == "binary":
            game = dict(game_kind="antmaze", ep_len=700 if "umaze" in ds else 1000)
            s0 = float(rng.uniform(0.0, 0.3))
        else:
            game = dict(game_kind="gauss", A=A, B=B, sd_ep=sd, lo=lo, hi=hi, ep_len=1000, len_mode="fixed",
                        integer=kind == "atari")
            s0 = float(rng.uniform(0.05, 0.35))  # after one epoch of updates the policy is behaviour-cloned already
        name, env_name = ds, ds
        e = new_env(run, rng, name, game, G=spe, L=L, span=(L - 1) * spe, kind="binom" if kind == "binary" else
                    "episodes", n=n_trials, n_sim=n_trials, train_G=spe, s0=s0, s1=s1, T_scale="life")
        e.params.update(mode=mode, algo=algo, n_trials=n_trials, spe=spe)
    else:
        if mode == "online":
            exp = str(rng.choice(list(D3_ONLINE)))
            env_name, A, B, sd, lo, hi, ep_len, len_mode = D3_ONLINE[exp][int(rng.integers(len(D3_ONLINE[exp])))]
            algo = exp.split("_")[0]
            game = dict(game_kind="gauss", A=A, B=B, sd_ep=sd, lo=lo, hi=hi, ep_len=ep_len, len_mode=len_mode)
            spe = int(rng.choice([1000, 2000, 5000, 10000])) if ep_len <= 500 else int(rng.choice([5000, 10000]))
            name, kind = exp, "episodes"
        else:
            algo, ds, ep_len = D3_FINETUNE[int(rng.integers(len(D3_FINETUNE)))]
            exp = f"{algo}_finetuning_{ds}_{seed}"
            env_name = ds
            game = dict(game_kind="antmaze", ep_len=ep_len)
            spe = int(rng.choice([1000, 1000, 2000]))
            s0 = float(rng.uniform(0.2, 0.5))  # pretrained offline first
            name, kind = ds, "binom"
        n_trials = 10
        L = int(rng.integers(60, 300))
        e = new_env(run, rng, name, game, G=spe, L=L, span=(L - 1) * spe, kind=kind, n=n_trials, n_sim=n_trials,
                    train_G=spe, s0=s0, s1=s1, T_scale="life")
        e.params.update(mode=mode, algo=algo, n_trials=n_trials, spe=spe, update_start=int(rng.choice([0, 1000, 10000])),
                        delta=float(rng.uniform(0.02, 0.1)))
    e.step0 = 0
    run.update(experiment=f"{exp}_{stamp}", mode=mode, env_name=env_name, seed_cfg=seed)
    return [e]


# --- labelling ---

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
        kept = (ev - m0) / (m1 - m0)  # a share of the gain, whichever way the metric points
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
    return float(truth(env, np.array([(float(step) - env.step0) / env.G]))[0])


def _judged_skill(env: Env, step: float) -> float:
    x = (float(step) - env.step0) / env.G
    if env.variant == "single_outlier" and abs(x - env.at) < 0.5:
        return env.s0 + 0.05 * (env.s1 - env.s0)
    return float(truth(env, np.array([x]))[0])


def _train_skill(env: Env, step: float) -> float:
    """The stochastic training policy's skill (exploration costs a share `delta` of the gain); a train-only run's
    judged series is its training itself (delta 0, the single outlier included)."""
    if not env.params.get("with_eval", True) and env.params.get("mode") is None:
        return _judged_skill(env, step)
    s = _skill(env, step)
    return env.s0 + (s - env.s0) * (1.0 - env.params.get("delta", 0.0))


def pace_of(steps: np.ndarray) -> float:
    """README: points at the logging pace — the median interval when logging is regular (nearly every interval a
    whole multiple of it), else the mean of the intervals under 3 x the median."""
    d = np.diff(np.unique(steps)).astype(float)
    if not len(d):
        return 1.0
    med = float(np.median(d))
    ratio = d / med
    if np.mean(np.abs(ratio - np.round(ratio)) < 1e-9) >= 0.95:
        return med
    return float(d[d < 3 * med].mean())


def _yaml_dump(obj) -> str:
    import yaml
    return yaml.dump(obj)


def write_zoo(folder: Path, run: dict, rng) -> dict:
    """Each env: RL Zoo's `logs/{algo}/{env_id}_{n}/` (exp_manager.py:196-200) with make_vec_env's Monitor files
    `{rank}.monitor.csv` (env_util.py:109-113; monitor.py:164-213: `#{json header}`, then `r,l,t[,is_success]`, one
    row an episode, `t` seconds since that Monitor's t_start) and EvalCallback's `evaluations.npz` (callbacks.py:
    476-495: rewritten after every evaluation with every evaluation so far), `{env_id}/config.yml` and `args.yml`."""
    from collections import OrderedDict

    out = {}
    for e in run["envs"]:
        p = e.params
        n_envs, total, algo = p["n_envs"], p["total"], p["algo"]
        goal = p["game_kind"] == "fetch"
        sub = folder / "logs" / algo / f"{e.name}_{p['folder_n']}"
        (sub / e.name).mkdir(parents=True, exist_ok=True)
        vec_total = int(math.ceil(total / n_envs))  # learn() runs until num_timesteps >= total_timesteps
        E = max(p["eval_freq"] // n_envs, 1) * n_envs if p["with_eval"] else 0
        evals = list(range(E, vec_total * n_envs + 1, E)) if E else []
        fps = p["fps"]
        ev_len = p.get("ep_len", 200)
        eval_dur = (p["n_eval"] * ev_len / 2500.0) if E else 0.0
        t_created = 1.70e9 + float(rng.integers(0, 3 * 10 ** 7)) + float(rng.random())
        t_train0 = t_created + float(rng.uniform(1.5, 12.0))  # model and buffer set up after the envs
        ev_arr = np.array(evals, dtype=float)

        def wall(step: float) -> float:
            return t_train0 + step / fps + eval_dur * float(np.searchsorted(ev_arr, step, side="left"))

        rows = []  # (wall end, rank, return, length, success)
        for rank in range(n_envs):
            c = 0
            while True:
                s = _train_skill(e, c * n_envs)
                ret, ln, _, succ = (float(v[0]) for v in ep_sample(p, np.array([s]), rng))
                ln = int(ln)
                if (c + ln) > vec_total:
                    break
                c += ln
                rows.append((wall(c * n_envs) + rank * 2.1e-5 + float(rng.uniform(0, 1e-5)), rank, ret, ln, succ))
        rows.sort()
        fields = ["r", "l", "t"] + (["is_success"] if goal else [])
        for rank in range(n_envs):
            t_start = t_created + rank * float(rng.uniform(4e-4, 1.2e-3))
            lines = ["#" + json.dumps({"t_start": t_start, "env_id": e.name}), ",".join(fields)]
            for w_, rk, ret, ln, succ in rows:
                if rk != rank:
                    continue
                vals = [repr(round(ret, 6)), str(ln), repr(round(w_ - t_start, 6))]
                if goal:
                    vals.append(str(np.float32(succ)))  # info["is_success"]: gymnasium-robotics' float32
                lines.append(",".join(vals))
            (sub / f"{rank}.monitor.csv").write_text("\n".join(lines) + "\n")
        train_steps = np.cumsum([r[3] for r in rows]).astype(np.int64)  # SB3's own reading: wall order, summed l
        if E:
            res, lens, succs = [], [], []
            for ts in evals:
                s = _judged_skill(e, ts)
                ret, ln, _, sc = ep_sample(p, np.full(p["n_eval"], s), rng)
                res.append([round(float(v), 6) for v in ret])
                lens.append([int(v) for v in ln])
                succs.append([np.float32(v) for v in sc])
            kw = dict(successes=succs) if goal else {}
            np.savez(sub / "evaluations", timesteps=evals, results=res, ep_lengths=lens, **kw)
            judged = np.array(evals, dtype=np.int64)
        else:
            judged = train_steps
        hyper = OrderedDict([("n_envs", n_envs), ("n_timesteps", float(total)), ("policy", "MultiInputPolicy" if goal
                                                                                       else "MlpPolicy")])
        if goal:
            hyper["replay_buffer_class"] = "HerReplayBuffer"
            hyper["replay_buffer_kwargs"] = "dict( goal_selection_strategy='future', n_sampled_goal=4 )"
        (sub / e.name / "config.yml").write_text(_yaml_dump(hyper))
        args = OrderedDict(sorted({"algo": algo, "env": e.name, "eval_episodes": p["n_eval"] or 5,
                                   "eval_freq": p["eval_freq"], "log_folder": "logs", "n_eval_envs": 1,
                                   "n_timesteps": -1, "seed": int(rng.integers(0, 2 ** 31)),
                                   "tensorboard_log": "", "trained_agent": ""}.items()))
        (sub / e.name / "args.yml").write_text(_yaml_dump(args))
        firsts = ([int(train_steps[0])] if len(train_steps) else []) + ([int(judged[0])] if len(judged) else [])
        first = min(firsts) if firsts else 0
        out[e.name] = dict(judged=judged, first=first, pace=pace_of(train_steps) if len(train_steps) > 2 else
                           p["train_G"], span=float(max(judged.max() if len(judged) else 0,
                                                        train_steps.max() if len(train_steps) else 0) - first))
    return out


def _d3_params(run: dict, e: Env) -> dict:
    algo = e.params["algo"]
    discrete = algo in ("DiscreteCQL", "DQN", "DoubleDQN")
    none = {"type": "none", "params": {}}
    adam = {"type": "adam", "params": {"clip_grad_norm": None, "lr_scheduler_factory": none, "betas": [0.9, 0.999],
                                       "eps": 1e-08, "weight_decay": 0, "amsgrad": False}}
    params = {"batch_size": 32 if discrete else 256, "gamma": 0.99, "observation_scaler": none,
              "action_scaler": none, "reward_scaler": none, "compile_graph": False}
    if discrete:
        params.update(learning_rate=6.25e-05, optim_factory=adam, target_update_interval=8000, n_critics=1)
    else:
        params.update(actor_learning_rate=0.0003, critic_learning_rate=0.0003, actor_optim_factory=adam,
                      critic_optim_factory=adam, tau=0.005, n_critics=2)
    shape = [4, 84, 84] if algo == "DiscreteCQL" and run["env_name"] in ("breakout", "pong") else [29 if "antmaze"
                                                                                                 in run["env_name"] else 11]
    return {"observation_shape": shape, "action_size": 4 if discrete else 8 if "antmaze" in run["env_name"] else 3,
            "config": {"type": algo.lower().replace("plus", "_plus_"), "params": params}}


def write_d3rlpy(folder: Path, run: dict, rng) -> dict:
    """d3rlpy's FileAdapter (logging/file_adapter.py:47-120) under D3RLPyLogger (logging/logger.py:149-198): params.json
    once, then per commit (the end of every epoch, qlearning/base.py:575-582 for fit, :755-771 for fit_online) one
    `{epoch},{step},{value}` line per buffered metric in `{name}.csv` (the mean of the epoch's values: losses,
    `time_*`, the evaluators' scores, `rollout_return` of the episodes that ended in the epoch — absent when none did)
    and a row per parameter in `{module}.{param}_grad.csv` (its header written at the first commit)."""
    e = run["envs"][0]
    p = e.params
    mode, spe, algo = p["mode"], p["spe"], p["algo"]
    logdir = folder / "d3rlpy_logs" / run["experiment"]
    logdir.mkdir(parents=True, exist_ok=True)
    (logdir / "params.json").write_text(json.dumps(_d3_params(run, e), indent=2))
    files: dict[str, list[str]] = {}

    def put(name: str, epoch: int, step: int, value: float) -> None:
        files.setdefault(name, []).append(f"{epoch},{step},{float(value)!r}")

    grads = D3_MODULES["discrete" if algo in ("DiscreteCQL", "DQN", "DoubleDQN") else "continuous"]
    if algo == "CQL":
        grads = grads + ["log_temp._parameter", "log_alpha._parameter"]
    elif algo in ("SAC",):
        grads = grads + ["log_temp._parameter"]
    judged, train_pts = [], []
    ep_c = 0  # online: the env-step counter inside the current episode
    ep_len_now = None
    ep_s = None
    for epoch in range(1, e.L + 1):
        step = epoch * spe
        s = _skill(e, step)
        buf: dict[str, list[float]] = {}
        if mode != "offline":  # fit_online: env steps, an episode's return added when it ends
            t = (epoch - 1) * spe
            ended = []
            while True:
                if ep_len_now is None:
                    ep_s = _train_skill(e, t) if t >= p["update_start"] else e.s0 * 0.5
                    r_, l_, _, _ = ep_sample(p, np.array([ep_s]), rng)
                    ep_len_now, ep_ret = int(l_[0]), float(r_[0])
                need = ep_len_now - ep_c
                if t + need > step:
                    ep_c += step - t
                    break
                t += need
                ended.append(ep_ret)
                ep_c, ep_len_now = 0, None
            if ended:
                buf["rollout_return"] = ended
                train_pts.append(step)
        if mode != "offline":
            buf["time_inference"] = [float(rng.uniform(4e-4, 8e-4))]
            buf["time_environment_step"] = [float(rng.uniform(8e-5, 2e-4))]
        buf["time_sample_batch"] = [float(rng.uniform(4e-4, 9e-4))]
        buf["time_algorithm_update"] = [float(rng.uniform(6e-3, 1.4e-2))]
        for k, name in enumerate(D3_LOSSES[algo]):
            base = {"temp": 0.9 * math.exp(-epoch / 40.0) + 0.05, "alpha": 1.0 + 4.0 * (1 - math.exp(-epoch / 30.0))}
            v = base.get(name, (2.0 + k) * (1.0 - 0.5 * s))
            buf[name] = [float(v * rng.uniform(0.85, 1.15))]
        buf["time_step"] = [sum(buf["time_sample_batch"]) + sum(buf["time_algorithm_update"]) + 1e-4]
        ev = _judged_skill(e, step)
        score = float(np.mean(ep_sample(p, np.full(p["n_trials"], ev), rng)[0]))
        buf["environment" if mode == "offline" else "evaluation"] = [score]
        judged.append(step)
        for name, vals in buf.items():  # commit: the mean of each buffer
            put(name, epoch, step, sum(vals) / len(vals))
        for g in grads:
            sc = float(abs(rng.normal(0, 0.05)))
            mn, mx = -sc * float(rng.uniform(2, 5)), sc * float(rng.uniform(2, 5))
            files.setdefault(f"{g}_grad", ["epoch,step,min,max,mean,std"]).append(
                f"{epoch},{step},{mn!r},{mx!r},{float(rng.normal(0, sc / 10))!r},{sc!r}")
    for name, lines in files.items():
        (logdir / f"{name}.csv").write_text("\n".join(lines) + "\n")
    judged_a = np.array(judged, dtype=np.int64)
    first = int(min([judged[0]] + train_pts[:1]))
    pace = pace_of(np.array(train_pts)) if len(train_pts) > 2 else pace_of(judged_a)
    return {e.name: dict(judged=judged_a, first=first, pace=pace, span=float(judged_a.max() - first))}


# --- build -------------------------------------------------------------------------------------------------------------

def _prolonged_label(run: dict, env: Env, onset: int, last: int) -> list[dict]:
    if onset > last:
        return []
    return [dict(run=run["name"], env=env.name, type="prolonged_training", onset=int(onset), severity=None,
                 shape=f"{run['convention']}/{env.variant}", variant=env.variant, task=env.name)]


def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    conv = run["convention"]
    run["envs"] = plan_d3rlpy(run, rng) if conv == "d3rlpy" else plan_zoo(run, rng)
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    info = (write_d3rlpy if conv == "d3rlpy" else write_zoo)(folder, run, wrng)
    tol = []
    for env in run["envs"]:
        d = info[env.name]
        judged = d["judged"]
        p = env.params
        p["first_logged"] = d["first"]
        # README: prolonged after 10 stagnation windows at the pace the env's training was logged (its evals when it
        # logs only evals), read from the files as written
        lim = 10.0 * window(d["pace"], max(d["span"], 1.0))
        p.update(pace=d["pace"], limit_steps=lim, pro_after=lim / env.G)
        last = int(judged[-1]) if len(judged) else 0
        if env.variant in GRADUATING:
            late = grad_steps(env) > lim + env.G
            if env.event == "prolonged_training":
                labels.extend(_prolonged_label(run, env, int(round(d["first"] + lim)), last) if late else [])
                if not late:
                    env.event = env.variant if env.variant in NEGATIVES else "healthy"
            else:
                labels.extend(label_for(run, env, judged))
                if late:  # graduated after its limit: the prolonged activity is an incident of its own
                    labels.extend(_prolonged_label(run, env, int(round(d["first"] + lim)), last))
        else:
            labels.extend(label_for(run, env, judged))
        tol.append(max(p["W"] * env.G / 10.0, env.G))
    meta = {k: v for k, v in run.items() if k not in ("envs",)}
    meta.update(tolerance_unit=int(round(max(tol))), eval_every=int(round(min(e.G for e in run["envs"]))))
    meta["envs"] = [{"name": e.name, "event": e.event, "variant": e.variant, "severity": e.severity,
                     "L": e.L, "G": e.G, "step0": e.step0, "s0": e.s0, "s1": e.s1, "T": e.T, "curve": e.curve,
                     "at": e.at, "knob": e.knob, "kind": e.kind, "trials": e.trials(),
                     "judged_points": int(len(info[e.name]["judged"])),
                     "params": {k: v for k, v in e.params.items()
                                if k not in ("drops", "phases", "difficulty", "_grid")},
                     "phases": e.params.get("phases")} for e in run["envs"]]
    (folder / "plan.json").write_text(json.dumps(meta, indent=1, default=_jsonable))


def build(root: Path, n_runs: int, seed: int) -> list[dict]:
    import warnings

    warnings.filterwarnings("ignore", category=RuntimeWarning)
    root = Path(root)
    rng = np.random.default_rng([seed, 30])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"x{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
        build_run(root, run, labels)
    for conv, text in CONFIGS.items():
        if (root / conv).is_dir() and text:
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
