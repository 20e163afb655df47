"""The twenty-ninth detection corpus (`python benchmarks/detection.py --corpus twentyninth`): written by a helper from
the user-facing contract only (README's rule table, key profiles — the `dreamerv3` and `sheeprl` built-ins among them
—, user profiles with `env: "{run}"` and `run_env`, direction, what a rate is, logging shapes, which files are read,
what `unknown` means; detection.py's label format and scorer; the twenty-seventh and twenty-eighth corpora as examples
of the interface — the truth, placement and labelling helpers below are the twenty-eighth's, with the regression onset
read as a share of the gain whichever way the metric points —), without reading the analysis code and without looking
at which cases curriwatch misses. Meant to be read for its totals, never tuned on.

Built once (seeded) in ~/.cache/curriwatch-bench/detection-twentyninth-<VERSION>-<n>runs-s<seed>, never in the repo;
60 runs a seed cycling through CYCLE (20 dreamerv3, 20 sheeprl, 20 sheeprl_len), one group folder per convention.
Chosen for what the twenty-eight other corpora do not cover: danijar's DreamerV3 (its `embodied` loop and the
`elements` logger's JSON lines) and Eclectic-Sheep's SheepRL (Lightning Fabric's TensorBoardLogger):

  dreamerv3  danijar/dreamerv3@e3f02248693a79dc8b0ebd62c93683888ddaccfe: dreamerv3/main.py:30-42 (logdir
             `~/logdir/{timestamp}`, elements.timestamp `%Y%m%dT%H%M%S` — danijar/elements@b781f900b6a3b5be3a9037fd1dbb39
             77ad70d219: elements/utils.py:4-10 —, `config.save(logdir / 'config.yaml')`), :152-180 make_logger
             (`multiplier` = the task suite's `repeat`, `jsonl` → JSONLOutput(logdir, 'metrics.jsonl') and
             JSONLOutput(logdir, 'scores.jsonl', 'episode/score')); dreamerv3/configs.yaml:3 (logdir), :23 (`outputs:
             [jsonl, scope]`), :30-36 (atari and atari100k repeat 4, dmc repeat 1, crafter none), :52-55 (`log_every:
             120`, `report_every: 300`, `save_every: 900` seconds, `envs: 16`), :170-176 (atari100k and crafter:
             `envs: 1`); embodied/run/train.py:31-51 logfn (`episode/score` the episode's summed reward and
             `episode/length`, added when an env's episode ends), :59 (the counter incremented once per env
             transition, before logfn), :90 (`cp.load_or_save()`: a restart with the same logdir resumes at the
             checkpoint's step), :106-114 (every log_every seconds `train/*`, `epstats/*`, `replay/*`, `usage/*`,
             `fps/*`, then `logger.write()`); elements/logger.py:34 (`step = int(self.step) * self.multiplier`),
             :168-196 JSONLOutput (per write one line `{"step": s, ...}` a step, a key's last value at a step, appended
             with `open('a')`); elements/config.py:28-39 (Config.save: YAML). Tasks atari_pong (−21..21), atari_breakout,
             atari_boxing, atari_ms_pacman, atari100k_pong, dmc_walker_walk, dmc_cheetah_run, dmc_cartpole_swingup,
             dmc_reacher_hard (0..1,000, every episode 1,000 steps: the envs end theirs at consecutive counts), and
             crafter_reward; 260..900 episodes a run, one JSON line an episode; 35 % of the runs killed and restarted
             with the same logdir, appending from the last checkpoint (every 900 s) — the steps between it and the
             last write before the kill are logged again. Built-in `dreamerv3` profile (README: env = config.yaml's
             `task`): no curriwatch.yaml.
  sheeprl / sheeprl_len
             Eclectic-Sheep/sheeprl@33b636681fd8b5340b284f2528db8821ab8dcd0b: sheeprl/configs/config.yaml:57-58
             (`run_name: ${now:%Y-%m-%d_%H-%M-%S}_${exp_name}_${seed}`, `root_dir: ${algo.name}/${env.id}`),
             sheeprl/utils/logger.py:12-35 (TensorBoardLogger at `logs/runs/{root_dir}`, name run_name → Lightning's
             `version_{n}` folder), sheeprl/configs/logger/tensorboard.yaml (`default_hp_metric: True`),
             sheeprl/configs/metric/default.yaml:5-25 (`log_every: 5000`, MeanMetric `Rewards/rew_avg` and
             `Game/ep_len_avg`), sheeprl/utils/metric.py:110-141 (compute: a NaN mean — no episode ended — is popped,
             nothing logged), sheeprl/algos/ppo/ppo.py:132 (`fabric.logger.log_hyperparams(cfg)`), :229 and :269
             (`policy_steps_per_iter = num_envs × rollout_steps`, `policy_step += num_envs` each env step), :332-341
             (each finished episode's return and length into the aggregator), :376-383 (`Info/*` every iteration),
             :386-412 (when `policy_step - last_log >= log_every` or at the last iteration: `fabric.log_dict(
             metrics_dict, policy_step)`, `Time/sps_*`), :446 and sheeprl/algos/ppo/utils.py:65 (`Test/cumulative_
             reward` of one test episode logged at step 0), sheeprl/algos/sac/sac.py:212, 249, 359-390 and
             sheeprl/algos/dreamer_v3/dreamer_v3.py:508, 551, 702-724 (one env step an iteration, `Params/replay_ratio`),
             sheeprl/utils/utils.py:255-256 (config.yaml in the log dir); Lightning-AI/pytorch-lightning@
             7f0c3436cd3f6ad3753125672024fc415cbcb414: src/lightning/fabric/loggers/tensorboard.py:200-213 (log_metrics:
             add_scalar per key), :222-262 (log_hyperparams: `hp_metric` −1, then the hparams summaries in the same
             file), :148-158 (`{root_dir}/{name}/version_{n}`). sheeprl: returns of CartPole-v1, LunarLander-v2,
             Pendulum-v1, BipedalWalker-v3, dmc walker_walk, and MountainCar-v0 / Acrobot-v1 (−200..−85, −500..−62);
             built-in `sheeprl` profile, no curriwatch.yaml. sheeprl_len: MountainCar-v0 and Acrobot-v1 judged on
             `Game/ep_len_avg` (steps to the goal, the cap on a timeout) by a user profile, lower-is-better by a
             top-level `direction: lower`, env by `run_env` on `logs/runs/{algo}/{env_id}/`.

Truth, placement and labelling are the twenty-eighth corpus's (its docstring): skill s in [0, 1] at a fractional point
index x = (step - step0) / G, G the env's nominal judged interval (dreamerv3: one episode, ep_len × repeat logged steps;
sheeprl: the log interval, whole iterations past log_every). Judged values: dreamerv3 one episode's score
A + (B - A) clip(s + sd N) (integers for Atari); sheeprl the mean over the episodes that ended since the last log.
W = max(min(100 steps, 10 % of the span), 20 G). Labels and clean negatives as the twenty-eighth's; the visibility checks
take the episodes behind a point as the run's own (no knob), a dreamerv3 point read over the 3 of a smoothing window.

Choices where the README leaves room (a hidden corpus may choose otherwise):
  - DreamerV3's `scope` output (danijar/scope's own files) and its checkpoints are not written; its TensorBoard output
    (TF summaries, `--logger.outputs jsonl,tensorboard`) is not written either; config.yaml is written with PyYAML
    (ruamel is not installed here), the same keys;
  - SheepRL's checkpoints and memmap buffers are not written; its resumes (a new run_name folder) are not written;
    torch's SummaryWriter is stood in for by tensorboardX, the file named as torch names it;
  - the skill of an episode is read at its start (sheeprl) or its end (dreamerv3).
"""
from __future__ import annotations

import datetime
import json
import math
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 1
N_RUNS = 60
SMALL_RUNS = 6
CYCLE = ("dreamerv3", "sheeprl", "sheeprl_len")
UNREAD = ()  # conventions whose files curriwatch does not read (none of these three)
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
CONFIGS = {
    "dreamerv3": "",  # the built-in dreamerv3 profile claims it
    "sheeprl": "",  # the built-in sheeprl profile claims it
    "sheeprl_len": """\
profiles:
  sheeprl_len:
    patterns:
      - {regex: '^Game/ep_len_avg$', env: "{run}", split: train, metric: ep_len}
    performance_metric: ep_len
    run_env: 'logs/runs/[^/]+/(?P<env>[^/]+)/'
profile: sheeprl_len
direction: lower
""",
}
DREAMER_TASKS = {  # task: (A score at skill 0, B at skill 1, per-episode sd in skill units, u lo, u hi, episode
    # length in agent steps, integer scores)
    "atari_pong": (-21.0, 21.0, 0.1, 0.0, 1.0, 1800, True), "atari_breakout": (2.0, 380.0, 0.18, 0.0, 1.1, 1500, True),
    "atari_boxing": (-10.0, 96.0, 0.08, 0.0, 1.04, 1780, True),
    "atari_ms_pacman": (220.0, 5200.0, 0.22, 0.0, 1.2, 1400, True), "atari100k_pong": (-21.0, 15.0, 0.12, 0.0, 1.1, 1600, True),
    "dmc_walker_walk": (30.0, 960.0, 0.04, 0.0, 1.03, 1000, False),
    "dmc_cheetah_run": (5.0, 880.0, 0.06, 0.0, 1.06, 1000, False),
    "dmc_cartpole_swingup": (25.0, 860.0, 0.05, 0.0, 1.03, 1000, False),
    "dmc_reacher_hard": (0.0, 960.0, 0.2, 0.0, 1.03, 1000, False),
    "crafter_reward": (0.5, 13.0, 0.2, -0.05, 1.2, 900, False),
}
DREAMER_REPEAT = {"atari": 4, "atari100k": 4, "dmc": 1}
SHEEP_GAMES = {
    "CartPole-v1": dict(suite="gym", kind="gauss", A=9.0, B=500.0, sd=0.1, ulo=0.0, uhi=1.0, ep_len=300,
                        len_mode="ret", algos=("ppo", "a2c", "dreamer_v3")),
    "LunarLander-v2": dict(suite="gym", kind="gauss", A=-230.0, B=260.0, sd=0.12, ulo=-0.2, uhi=1.05, ep_len=500,
                           len_mode="var", algos=("ppo", "a2c", "dreamer_v3")),
    "Pendulum-v1": dict(suite="gym", kind="gauss", A=-1400.0, B=-150.0, sd=0.08, ulo=-0.05, uhi=1.0, ep_len=200,
                        len_mode="fixed", algos=("sac", "ppo", "dreamer_v3")),
    "BipedalWalker-v3": dict(suite="gym", kind="gauss", A=-110.0, B=300.0, sd=0.12, ulo=-0.1, uhi=1.05, ep_len=1600,
                             len_mode="var", algos=("sac", "ppo")),
    "walker_walk": dict(suite="dmc", kind="gauss", A=30.0, B=950.0, sd=0.04, ulo=0.0, uhi=1.02, ep_len=1000,
                        len_mode="fixed", algos=("sac", "dreamer_v3")),
    "MountainCar-v0": dict(suite="gym", kind="steps", cap=200, lo=85, hi=160, algos=("ppo", "a2c", "dreamer_v3")),
    "Acrobot-v1": dict(suite="gym", kind="steps", cap=500, lo=62, hi=140, algos=("ppo", "a2c", "dreamer_v3")),
}
SHEEP_LEN_GAMES = {k: SHEEP_GAMES[k] for k in ("MountainCar-v0", "Acrobot-v1")}
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
    """One episode's return (or, for "steps" games, its length) per entry of s."""
    p = env.params
    s = np.asarray(s, float)
    if p["game_kind"] == "steps":  # steps to the goal (the cap on a timeout); judged as the length or as -length
        won = rng.random(len(s)) < np.clip(s, 0, 1)
        return p.get("sign", 1.0) * np.where(won, rng.integers(p["lo"], p["hi"] + 1, len(s)), p["cap"]).astype(float)
    u = np.clip(s + p["sd_ep"] * rng.standard_normal(len(s)), p.get("lo", -0.3), p.get("hi", 1.15))
    return p["A"] + (p["B"] - p["A"]) * u


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
    if env.kind == "fixedset":
        return fixedset_values(env, np.full(k, s), rng)
    n = max(1, int(round(env.params.get("n_sim", env.trials()))))  # per-episode points: judged over 3 (smoothing)
    return ep_returns(env, np.full(k * n, s), rng).reshape(k, n).mean(axis=1)


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
        single = len(run["envs"]) == 1
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




# --- planning ------------------------------------------------------------------------------------------------------

def _stamp(rng, fmt: str, base=datetime.datetime(2025, 3, 1)) -> str:
    return (base + datetime.timedelta(seconds=int(rng.integers(0, 200 * 86400)))).strftime(fmt)


def plan_dreamer(run: dict, rng) -> tuple[list[Env], float]:
    """DreamerV3 `train` script: one task a logdir, a point per finished episode at the env-step counter times the
    action repeat (main.py:152-180, embodied/run/train.py:31-51)."""
    task = str(rng.choice(list(DREAMER_TASKS)))
    A, B, sd, lo, hi, ep_len, integer = DREAMER_TASKS[task]
    suite = task.split("_")[0]
    repeat = DREAMER_REPEAT.get(suite, 1)
    n_envs = 1 if suite in ("atari100k", "crafter") else int(rng.choice([4, 8, 16, 16]))
    L = int(rng.integers(260, 900))
    G = float(ep_len * repeat)  # logged steps between episode ends: one episode per ep_len counter units
    fps = float(rng.uniform(40, 90) if n_envs == 1 else rng.uniform(150, 450))  # counter units a second
    run.update(task=task, repeat=repeat, n_envs=n_envs, episodes=L, ep_len=ep_len, fps=fps,
               logdir=_stamp(rng, "%Y%m%dT%H%M%S"), resumed=bool(rng.random() < 0.35), integer=integer,
               train_ratio=float(rng.choice([32.0, 64.0, 256.0, 512.0])), seed_cfg=int(rng.integers(0, 5)))
    s0, s1 = float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.85, 0.96))
    e = Env(task, L, G, 0, s0, s1, 0.0, kind="episodes", n=1.0)
    e.params.update(game_kind="gauss", A=float(A), B=float(B), sd_ep=sd, lo=lo, hi=hi, ep_len=ep_len, wave=0,
                    n_sim=3, fixed_n=True, train_G=G)
    return [e], float(L * G)


def plan_sheeprl(run: dict, rng) -> tuple[list[Env], float]:
    """SheepRL (ppo, a2c, sac, dreamer_v3): `Rewards/rew_avg` (or, judged by a user, `Game/ep_len_avg`), the mean over
    the episodes that ended since the last log, every log_every policy steps (rounded up to whole iterations)."""
    lens = run["convention"] == "sheeprl_len"
    game = str(rng.choice(list(SHEEP_LEN_GAMES if lens else SHEEP_GAMES)))
    g = dict((SHEEP_LEN_GAMES if lens else SHEEP_GAMES)[game])
    algo = str(rng.choice(g.pop("algos")))
    n_envs = int(rng.choice([1, 2, 4, 4, 8])) if algo in ("sac", "dreamer_v3") else int(rng.choice([4, 8, 16]))
    rs = int(rng.choice([64, 128, 256])) if algo in ("ppo", "a2c") else 1
    if algo == "a2c":
        rs = int(rng.choice([5, 16, 128]))
    per_iter = n_envs * rs
    ep_mean = g["ep_len"] if g["kind"] != "steps" else 0.5 * (g["cap"] + g["lo"])
    log_every = int(rng.choice([1000, 2000, 5000, 5000, 10000]))
    while log_every / ep_mean < 4:  # users raise log_every where episodes are long
        log_every *= 2
    k_it = int(math.ceil(log_every / per_iter))
    G = k_it * per_iter
    L = int(rng.integers(90, 420))
    total = L * G
    run.update(game=game, algo=algo, num_envs=n_envs, rollout_steps=rs, per_iter=per_iter, log_every=log_every,
               total_steps=total, run_name=f"{_stamp(rng, '%Y-%m-%d_%H-%M-%S')}_{algo}_{game}_{int(rng.integers(0, 100))}",
               env_cfg=g["suite"])
    s0, s1 = float(rng.uniform(0.0, 0.08)), float(rng.uniform(0.85, 0.96))
    e = Env(game, L, float(G), G, s0, s1, 0.0, kind="episodes", n=max(1.0, G / ep_mean))
    if g["kind"] == "steps":
        e.params.update(game_kind="steps", cap=g["cap"], lo=g["lo"], hi=g["hi"], sign=1.0 if lens else -1.0,
                        ep_len=g["cap"])
    else:
        e.params.update(game_kind="gauss", A=g["A"], B=g["B"], sd_ep=g["sd"], lo=g["ulo"], hi=g["uhi"],
                        ep_len=g["ep_len"], len_mode=g["len_mode"])
    e.params.update(fixed_n=True, train_G=float(G), wave=0)
    return [e], float(total - G)


def plan_run(run: dict, rng) -> None:
    conv = run["convention"]
    pool = ["graduated_regression", "graduated_regression", "training_stagnation", "performance_volatility",
            "performance_volatility"]
    envs, span = plan_dreamer(run, rng) if conv == "dreamerv3" else plan_sheeprl(run, rng)
    run["envs"] = envs
    Ws = []
    for env in envs:
        W = window(env.G, span) / env.G
        env.params["W"] = W
        env.params["Wp"] = window(env.params["train_G"], span) / env.G  # the prolonged window, in judged points
        env.T = float(rng.uniform(0.1, 0.4)) * env.L
        env.curve = str(rng.choice(["exp", "logistic", "sqrt", "linear"]))
        Ws.append(W)
    for k, env in enumerate(envs):
        env.params["pro_after"] = 10 * env.params["Wp"]
        assign(run, env, Ws[k], 0.6, pool + ["prolonged_training"] * 2, rng)
    _limits(run, envs, Ws, span)


def _limits(run: dict, envs: list[Env], Ws: list[float], span: float) -> None:
    """README: prolonged after max(10 windows, 2 x the median time the run's graduated envs took)."""
    grads = [grad_points(e, span) for e in envs if e.variant in GRADUATING]
    lim = 2 * float(np.median(grads)) if grads else 0.0
    for k, env in enumerate(envs):  # an event env graduates within the limit (its event is its one label)
        if env.event in EVENTS and env.variant in GRADUATING and grad_points(env, span) > \
                max(10 * env.params["Wp"], lim) - 2:
            env.T = max(0.8 * Ws[k], env.T * 0.6)
    grads = [grad_points(e, span) for e in envs if e.variant in GRADUATING]
    for k, env in enumerate(envs):
        limit = max(10 * env.params["Wp"], 2 * float(np.median(grads)) if grads else 0.0)
        if env.event not in EVENTS and env.variant in GRADUATING and grad_points(env, span) > limit + 1 \
                and env.L - 1 > limit + 10 and not env.params.get("wave"):
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


# --- writers -----------------------------------------------------------------------------------------------------------

def _skill(env: Env, step: float) -> float:
    return float(truth(env, np.array([(float(step) - env.step0) / env.G]))[0])


def _judged_skill(env: Env, step: float) -> float:
    x = (float(step) - env.step0) / env.G
    if env.variant == "single_outlier" and abs(x - env.at) < 0.5:
        return env.s0 + 0.05 * (env.s1 - env.s0)
    return float(truth(env, np.array([x]))[0])


def _dreamer_episodes(run: dict, e: Env, c_start: int, c_end: int, rng) -> list[tuple[int, float, int]]:
    """Episodes of run.envs lock-step envs started fresh at counter c_start (driver.reset), those that end by c_end:
    (counter, score, length). The counter is incremented once per env transition before logfn
    (embodied/run/train.py:55-58), env i's transition of driver step r at counter n (r - 1) + i + 1; a reset step
    (is_first) follows every last step."""
    n, rep, p = run["n_envs"], run["repeat"], e.params
    r0 = c_start // n
    out = []
    fixed = run["task"].startswith("dmc_")
    for i in range(n):
        r = r0
        while True:
            ln = p["ep_len"] if fixed else int(max(50, round(p["ep_len"] * rng.uniform(0.6, 1.4))))
            r_end = r + 1 + ln  # the reset step, then ln steps; the last one is_last
            c = n * (r_end - 1) + i + 1
            if c > c_end:
                break
            s = _judged_skill(e, c * rep)
            u = float(np.clip(s + p["sd_ep"] * rng.standard_normal(), p["lo"], p["hi"]))
            score = p["A"] + (p["B"] - p["A"]) * u
            score = float(round(score)) if run["integer"] else float(np.float32(score))
            out.append((c, score, ln))
            r = r_end
    return sorted(out)


def write_dreamer(folder: Path, run: dict, rng) -> dict:
    """DreamerV3's logdir as its `train` script leaves it with the default `logger.outputs: [jsonl, scope]` (the scope
    files aside): config.yaml, metrics.jsonl (every scalar) and scores.jsonl (`episode/score` alone), a JSON line a
    step per Logger.write (elements/logger.py:173-196), every `log_every` = 120 s; resumed runs append."""
    e = run["envs"][0]
    n, rep, fps = run["n_envs"], run["repeat"], run["fps"]
    prng = np.random.default_rng(run["seed"] + 53)
    total_c = int(run["episodes"] * run["ep_len"])  # run.steps, counter units
    wc = 120.0 * fps  # counter units between writes (LocalClock(log_every) on wall time)
    rc = 300.0 * fps  # report_every
    sc = 900.0 * fps  # save_every
    logdir = folder / "logdir" / run["logdir"]
    logdir.mkdir(parents=True, exist_ok=True)
    cfg = {"logdir": f"/home/rl/logdir/{run['logdir']}", "replica": 0, "replicas": 1, "method": "name",
           "task": run["task"], "seed": run["seed_cfg"], "script": "train", "batch_size": 16, "batch_length": 64,
           "report_length": 32, "consec_train": 1, "consec_report": 1, "replay_context": 1, "random_agent": False,
           "logger": {"outputs": ["jsonl", "scope"], "filter": "score|length|fps|ratio|train/loss/|train/rand/",
                      "timer": True, "fps": 15, "user": ""},
           "env": {"atari": {"size": [96, 96], "repeat": 4, "sticky": True, "gray": True},
                   "atari100k": {"size": [64, 64], "repeat": 4, "sticky": False},
                   "crafter": {"size": [64, 64], "logs": False}, "dmc": {"size": [64, 64], "repeat": 1}},
           "run": {"steps": float(total_c), "duration": 0, "train_ratio": run["train_ratio"], "log_every": 120,
                   "report_every": 300, "save_every": 900, "envs": n, "eval_envs": 4, "eval_eps": 1,
                   "from_checkpoint": ""}}
    import yaml
    (logdir / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))  # Config.save (elements/config.py:28-39)
    judged: list[int] = []
    metrics_f = open(logdir / "metrics.jsonl", "a")
    scores_f = open(logdir / "scores.jsonl", "a")

    def write(summaries: list) -> None:  # JSONLOutput._write, twice (metrics.jsonl and the episode/score pattern)
        for fh, pat in ((metrics_f, None), (scores_f, "episode/score")):
            bystep: dict = {}
            for step, name, value in summaries:
                if pat and pat not in name:
                    continue
                bystep.setdefault(step, {})[name] = float(value)
            fh.write("".join(json.dumps({"step": step, **sc_}) + "\n" for step, sc_ in bystep.items()))

    def segment(c_start: int, c_stop: int, crash: bool) -> int:
        """Train from counter c_start; stop at c_stop (the end, or a crash: the last write's metrics survive)."""
        eps = _dreamer_episodes(run, e, c_start, c_stop, prng)
        t_w, t_r = c_start + wc * prng.uniform(0.9, 1.1), c_start + rc
        buf: list = []
        k = 0
        last_written = c_start
        while True:
            c_w = int(min(t_w, c_stop))
            while k < len(eps) and eps[k][0] <= c_w:
                c, score, ln = eps[k]
                buf += [(c * rep, "episode/score", score), (c * rep, "episode/length", float(ln))]
                k += 1
            if crash and t_w > c_stop:
                return last_written
            s = _skill(e, c_w * rep)
            if t_r <= c_w:
                buf += [(c_w * rep, f"report/{kk}", float(v)) for kk, v in (
                    ("loss/dyn", 2.0 - 1.2 * s + 0.1 * prng.standard_normal()), ("loss/rep", 1.0 + 0.05 * prng.random()),
                    ("openl_image_loss", 3000 * (1.2 - s) * prng.uniform(0.9, 1.1)))]
                t_r += rc
            if c_w > 1024:
                buf += [(c_w * rep, f"train/{kk}", float(v)) for kk, v in (
                    ("loss/dyn", 2.0 - 1.2 * s + 0.1 * prng.standard_normal()), ("loss/rep", 1.0),
                    ("loss/policy", -0.5 * s + 0.05 * prng.standard_normal()), ("loss/value", 0.5 + prng.random()),
                    ("loss/rew", 0.02 * prng.random()), ("loss/con", 0.01 * prng.random()),
                    ("rand/adv_mag", 0.3 * prng.random()), ("ret/max", s), ("opt/grad_norm", prng.uniform(5, 50)),
                    ("policy_randomness", 0.2 + 0.6 * (1 - s)))]
            buf += [(c_w * rep, "epstats/reward_rate", float(prng.uniform(0.01, 0.2))),
                    (c_w * rep, "replay/items", float(min(c_w, 5e6))), (c_w * rep, "replay/inserts", float(c_w)),
                    (c_w * rep, "replay/ratio", float(run["train_ratio"] * prng.uniform(0.95, 1.05))),
                    (c_w * rep, "usage/psutil/proc_ram_gb", float(prng.uniform(20, 60))),
                    (c_w * rep, "fps/policy", float(fps * prng.uniform(0.9, 1.1))),
                    (c_w * rep, "fps/train", float(fps * run["train_ratio"] * prng.uniform(0.9, 1.1)))]
            write(buf)
            buf = []
            last_written = c_w
            if c_w >= c_stop:
                return last_written
            t_w += wc * prng.uniform(0.95, 1.05)

    if run["resumed"]:  # killed, restarted with the same --logdir: cp.load_or_save restores the last checkpoint's
        c_crash = int(total_c * prng.uniform(0.3, 0.8))  # step and replay; JSONLOutput appends (mode 'a')
        last = segment(0, c_crash, crash=True)
        c_ck = int(min(last, c_crash) // sc * sc)
        run["resume_counter"] = c_ck
        segment(c_ck, total_c, crash=False)
    else:
        segment(0, total_c, crash=False)
    metrics_f.close()
    scores_f.close()
    judged = sorted({json.loads(l)["step"] for l in (logdir / "scores.jsonl").read_text().splitlines()})
    e.params["first_logged"] = judged[0] if judged else 0
    return {e.name: np.array(judged, dtype=np.int64)}


def _sheep_episode(e: Env, s: float, rng) -> tuple[float, int, float]:
    """One episode at skill s: (its return, its length, the judged value)."""
    p = e.params
    if p["game_kind"] == "steps":
        ln = int(rng.integers(p["lo"], p["hi"] + 1)) if rng.random() < np.clip(s, 0, 1) else int(p["cap"])
        return -float(ln), ln, p["sign"] * float(ln)
    u = float(np.clip(s + p["sd_ep"] * rng.standard_normal(), p["lo"], p["hi"]))
    ret = p["A"] + (p["B"] - p["A"]) * u
    if p["len_mode"] == "ret":  # CartPole: +1 a step
        ln = int(max(8, round(ret)))
        ret = float(ln)
    elif p["len_mode"] == "fixed":
        ln = int(p["ep_len"])
    else:  # falls early when unskilled
        ln = int(max(40, round(p["ep_len"] * min(1.0, 0.25 + 0.75 * max(u, 0.0)) * rng.uniform(0.8, 1.0))))
    return float(np.float32(ret)), ln, float(np.float32(ret))


def write_sheeprl(folder: Path, run: dict, rng) -> dict:
    """SheepRL's Fabric TensorBoardLogger run (sheeprl/utils/logger.py:12-35, lightning/fabric/loggers/
    tensorboard.py): `logs/runs/{algo}/{env_id}/{run_name}/version_0/`, log_hyperparams first (`hp_metric` -1 and the
    hparams summaries), the per-iteration `Info/*` (ppo, a2c), every log the aggregator's means (NaN ones popped:
    sheeprl/utils/metric.py:137-141) and the timers, `Test/cumulative_reward` at step 0 after training."""
    from tensorboardX import SummaryWriter
    from tensorboardX.summary import hparams

    e = run["envs"][0]
    prng = np.random.default_rng(run["seed"] + 71)
    n, rs, per_iter, G, total = run["num_envs"], run["rollout_steps"], run["per_iter"], int(e.G), run["total_steps"]
    total_iters = total // per_iter
    k_it = G // per_iter
    log_iters = list(range(k_it, total_iters + 1, k_it))
    if log_iters[-1] != total_iters:
        log_iters.append(total_iters)
    log_steps = np.array(log_iters, dtype=np.int64) * per_iter
    # every env's episodes: each ends at vector step t (policy_step n t); counted in the iteration ceil(t / rs)
    T = total_iters * rs
    per_log: dict[int, list] = {int(s): [] for s in log_steps}
    for i in range(n):
        t = 0
        while True:
            s = _judged_skill(e, (t + 1) * n)
            ret, ln, val = _sheep_episode(e, s, prng)
            if t + ln > T:
                break
            t += ln
            it = int(math.ceil(t / rs))
            j = int(np.searchsorted(log_steps, it * per_iter))
            per_log[int(log_steps[j])].append((ret, ln, val))
    wall = 1.72e9 + float(prng.integers(0, 10 ** 7))
    wall0 = wall
    vd = folder / "logs" / "runs" / run["algo"] / run["game"] / run["run_name"] / "version_0"
    vd.mkdir(parents=True, exist_ok=True)
    judged = []
    lens = run["convention"] == "sheeprl_len"
    with tempfile.TemporaryDirectory() as tmp:
        w = SummaryWriter(tmp, flush_secs=3600, max_queue=1_000_000)
        params = {"algo/name": run["algo"], "algo/total_steps": total, "algo/rollout_steps": rs, "env/id": run["game"],
                  "env/num_envs": n, "env/action_repeat": 1, "metric/log_every": run["log_every"], "seed": 42,
                  "run_name": run["run_name"], "root_dir": f"{run['algo']}/{run['game']}", "exp_name":
                  f"{run['algo']}_{run['game']}"}
        w.add_scalar("hp_metric", -1, None, walltime=wall)  # Fabric's log_hyperparams: log_metrics({"hp_metric": -1})
        exp, ssi, sei = hparams(params, {"hp_metric": -1})
        for summ in (exp, ssi, sei):
            w._get_file_writer().add_summary(summ, None, walltime=wall)
        last = 0
        for it in range(1, total_iters + 1):
            ps = it * per_iter
            wall += per_iter / 900.0
            if run["algo"] in ("ppo", "a2c"):  # fabric.log every iteration (ppo.py:376-383)
                w.add_scalar("Info/learning_rate", 3e-4 if run["algo"] == "ppo" else 7e-4, ps, walltime=wall)
                if run["algo"] == "ppo":
                    w.add_scalar("Info/clip_coef", 0.2, ps, walltime=wall)
                    w.add_scalar("Info/ent_coef", 0.0, ps, walltime=wall)
            if ps - last >= run["log_every"] or it == total_iters:
                eps = per_log.get(ps, [])
                s = _skill(e, ps)
                m = {}
                if eps:  # MeanMetric over the episodes that ended; NaN (none ended) is popped
                    m["Rewards/rew_avg"] = float(np.mean([x[0] for x in eps]))
                    m["Game/ep_len_avg"] = float(np.mean([x[1] for x in eps]))
                    judged.append(ps)
                if run["algo"] in ("ppo", "a2c"):
                    m.update({"Loss/value_loss": float(abs(prng.normal(0.5, 0.2))),
                              "Loss/policy_loss": float(prng.normal(0, 0.01)),
                              "Loss/entropy_loss": float(-prng.uniform(0.2, 0.7))})
                elif run["algo"] == "sac":
                    m.update({"Loss/value_loss": float(abs(prng.normal(2, 0.5))),
                              "Loss/policy_loss": float(prng.normal(-50 * s, 5)),
                              "Loss/alpha_loss": float(prng.normal(0, 0.1))})
                else:
                    m.update({"Loss/world_model_loss": float(abs(prng.normal(5 - 3 * s, 0.3))),
                              "Loss/value_loss": float(abs(prng.normal(1, 0.2))),
                              "Loss/policy_loss": float(prng.normal(0, 0.05)),
                              "Loss/observation_loss": float(abs(prng.normal(3, 0.3))),
                              "Loss/reward_loss": float(abs(prng.normal(0.5, 0.1))),
                              "State/kl": float(abs(prng.normal(1.5, 0.2))),
                              "Grads/world_model": float(abs(prng.normal(50, 10)))})
                for kk, v in m.items():  # fabric.log_dict(metrics_dict, policy_step)
                    w.add_scalar(kk, v, ps, walltime=wall)
                if run["algo"] in ("sac", "dreamer_v3"):
                    w.add_scalar("Params/replay_ratio", float(prng.uniform(0.4, 1.1)), ps, walltime=wall)
                w.add_scalar("Time/sps_train", float(prng.uniform(50, 400)), ps, walltime=wall)
                w.add_scalar("Time/sps_env_interaction", float(prng.uniform(500, 4000)), ps, walltime=wall)
                last = ps
        # test(): one greedy episode after training, logged at step 0 (ppo/utils.py:39-65)
        w.add_scalar("Test/cumulative_reward", _sheep_episode(e, _skill(e, total), prng)[0], 0, walltime=wall + 20)
        w.close()
        src = next(Path(tmp).glob("events.out.tfevents.*"))
        host = HOSTS[int(prng.integers(len(HOSTS)))]
        shutil.copyfile(src, vd / f"events.out.tfevents.{int(wall0)}.{host}.{int(prng.integers(1000, 60000))}.0")
    import yaml
    cfg = {"algo": {"name": run["algo"], "total_steps": total, "rollout_steps": rs},
           "env": {"id": run["game"], "num_envs": n, "action_repeat": 1, "wrapper": {"_target_": run["env_cfg"]}},
           "metric": {"log_every": run["log_every"], "log_level": 1, "logger": {
               "_target_": "lightning.fabric.loggers.TensorBoardLogger", "name": run["run_name"],
               "root_dir": f"logs/runs/{run['algo']}/{run['game']}", "version": None, "default_hp_metric": True,
               "prefix": "", "sub_dir": None}},
           "seed": 42, "exp_name": f"{run['algo']}_{run['game']}", "run_name": run["run_name"],
           "root_dir": f"{run['algo']}/{run['game']}"}
    (vd / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))  # save_configs (OmegaConf.save)
    e.params["first_logged"] = judged[0] if judged else int(G)
    return {e.name: np.array(judged, dtype=np.int64)}


# --- build -------------------------------------------------------------------------------------------------------------

def build_run(root: Path, run: dict, labels: list[dict]) -> None:
    rng = np.random.default_rng(run["seed"])
    plan_run(run, rng)
    conv = run["convention"]
    folder = root / conv / run["name"]
    folder.mkdir(parents=True, exist_ok=True)
    wrng = np.random.default_rng(run["seed"] + 2)
    writer = write_dreamer if conv == "dreamerv3" else write_sheeprl
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
    import logging
    import warnings

    logging.getLogger("tensorboardX").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    root = Path(root)
    rng = np.random.default_rng([seed, 29])
    labels: list[dict] = []
    for r in range(n_runs):
        conv = CYCLE[r % len(CYCLE)]
        run = dict(name=f"w{r:03d}_{conv}", convention=conv, seed=int(rng.integers(1 << 31)))
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
