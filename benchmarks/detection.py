"""Detection benchmark: recall, precision and onset error of every health rule on a labelled corpus.

    python benchmarks/detection.py [--corpus default|wide|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twentyfirst|twentysecond|twentythird|twentyfourth|twentyfifth|twentysixth|twentyseventh|twentyeighth|twentyninth|thirtieth|thirtyfirst|thirtysecond|thirtythird|thirtyfourth|thirtyfifth|thirtysixth|both|all] [--small] [--json] [--cache DIR] [--rebuild] [--seed N]

`--corpus wide` scores a second, wider corpus (other conventions, metric kinds, noise and logging
shapes; benchmarks/detection_corpus_wide.py) with the same scorer; `both` prints both tables. `--corpus
third` scores a third corpus built apart from the rules (benchmarks/detection_corpus_third.py: SB3,
CleanRL, ML-Agents, tinker jsonl, Atropos process mode, generic W&B, another user profile); `--corpus fourth`
a fourth one written from the README's contract alone (benchmarks/detection_corpus_fourth.py); `--corpus fifth`
a fifth one, also from the contract alone (benchmarks/detection_corpus_fifth.py); `--corpus sixth` a sixth one,
also from the contract alone (benchmarks/detection_corpus_sixth.py); `--corpus seventh` a seventh one, also from the
contract alone (benchmarks/detection_corpus_seventh.py); `--corpus eighth` an eighth one, also from the contract
alone (benchmarks/detection_corpus_eighth.py); `--corpus ninth` a ninth one, also from the contract alone
(benchmarks/detection_corpus_ninth.py); `--corpus tenth` a tenth one, also from the contract alone
(benchmarks/detection_corpus_tenth.py); `--corpus eleventh` an eleventh one, also from the contract alone
(benchmarks/detection_corpus_eleventh.py); `--corpus twelfth` a twelfth one, also from the contract alone
(benchmarks/detection_corpus_twelfth.py); `--corpus thirteenth` a thirteenth one, also from the contract alone
(benchmarks/detection_corpus_thirteenth.py); `--corpus fourteenth` a fourteenth one, also from the contract alone
(benchmarks/detection_corpus_fourteenth.py); `--corpus fifteenth` a fifteenth one, also from the contract alone
(benchmarks/detection_corpus_fifteenth.py); `--corpus sixteenth` a sixteenth one, also from the contract alone
(benchmarks/detection_corpus_sixteenth.py); `--corpus seventeenth` a seventeenth one, also from the contract alone
(benchmarks/detection_corpus_seventeenth.py); `--corpus eighteenth` an eighteenth one, also from the contract alone
(benchmarks/detection_corpus_eighteenth.py); `--corpus nineteenth` a nineteenth one, also from the contract alone
(benchmarks/detection_corpus_nineteenth.py); `--corpus twentieth` a twentieth one, also from the contract alone
(benchmarks/detection_corpus_twentieth.py); `--corpus twentyfirst` a twenty-first one, also from the contract alone
(benchmarks/detection_corpus_twentyfirst.py); `--corpus twentysecond` a twenty-second one, also from the contract
alone (benchmarks/detection_corpus_twentysecond.py); `--corpus twentythird` a twenty-third one, also from the contract
alone (benchmarks/detection_corpus_twentythird.py); `--corpus twentyfourth` a twenty-fourth one, also from the contract
alone (benchmarks/detection_corpus_twentyfourth.py); `--corpus twentyfifth` a twenty-fifth one, also from the contract
alone (benchmarks/detection_corpus_twentyfifth.py); `--corpus twentysixth` a twenty-sixth one, also from the contract
alone (benchmarks/detection_corpus_twentysixth.py); `--corpus twentyseventh` a twenty-seventh one, also from the
contract alone (benchmarks/detection_corpus_twentyseventh.py); `--corpus twentyeighth` a twenty-eighth one, also from
the contract alone (benchmarks/detection_corpus_twentyeighth.py); `--corpus twentyninth` a twenty-ninth one, also from
the contract alone (benchmarks/detection_corpus_twentyninth.py); `--corpus thirtieth` a thirtieth one, also from the
contract alone (benchmarks/detection_corpus_thirtieth.py); `--corpus thirtyfirst` a thirty-first one, also from the
contract alone (benchmarks/detection_corpus_thirtyfirst.py); `--corpus thirtysecond` a thirty-second one, also from
the contract alone (benchmarks/detection_corpus_thirtysecond.py); `--corpus thirtythird` a thirty-third one, also
from the contract alone (benchmarks/detection_corpus_thirtythird.py); `--corpus thirtyfourth` a thirty-fourth one,
also from the contract alone (benchmarks/detection_corpus_thirtyfourth.py); `--corpus thirtyfifth` a thirty-fifth
one, also from the contract alone (benchmarks/detection_corpus_thirtyfifth.py); `--corpus thirtysixth` a
thirty-sixth one, also from the contract alone (benchmarks/detection_corpus_thirtysixth.py); `all` prints the
thirty-six. The default corpus below changed once (VERSION 3: eval-only prolonged labels follow the widened window).

Builds once (cached in ~/.cache/curriwatch-bench/detection-<VERSION>[-small]-s<seed>, never in the
repo) a corpus of runs written by the real writers (tensorboardX event files, wandb offline runs),
then runs `curriwatch.load` + `curriwatch.analyze` on it and scores the incidents.

Corpus (seeded; onsets, lengths, noise and scales drawn at random per env):
  conventions  generic `train|eval/{env}/reward` (+ `curriculum/{env}/state`), ROLL `env/{tag}/success`
               + `val/env/{tag}/success`, Atropos `{env}_0_train|eval/percent_correct`, Marin (W&B
               offline, rows without step=, `inference.rollout|eval/{lesson}/…`, `inference.weight_step`),
               a user profile `lesson.{env}.train|test.{metric}` in curriwatch.yaml
  metric kinds success rates in [0, 1]; returns 0..500 (CartPole-like) and -1500..-150 (Pendulum-like);
               a lower-is-better loss declared in the config (`direction: lower` on the user profile)
  noise        binomial with small n (8..64), gaussian
  shapes       dense train+eval; sparse per-lesson Marin rows whose training stops at graduation;
               eval-only; train-only; explicit states vs inferred
Labelled events (type / env / onset step):
  graduated_regression  warning (keeps ~75% of the learned gain) or critical (~35%); onset = first step
                        of the fall
  training_stagnation   progress stops at a low level and the env stays active; onset = first flat step
  performance_volatility  bursts of large swings (onset = burst start) and lifelong oscillation between
                        ~0.2 and ~0.85 every 45-80 steps (onset = activation)
  unexpected_transition  an explicit state goes from graduated back to active; onset = that step
  eval_gap              the env's eval logging stops while the run goes on; onset = first missing eval
  prolonged_training    a slow learner active > 10 x stagnation_window (1000 steps; in an eval-only
                        run the window is widened to hold 20 evals, as the rules widen it, and the run
                        lengthened to fit) without graduating; onset = activation + 10 windows
  clean negatives: healthy, noisy-but-healthy, slow learners that graduate, level shifts after
  graduation (small), single outliers. An incident on a clean env is a false positive.

Matching rule: a detection matches a label when run, env and type are equal and |first_step - onset|
<= 2 eval intervals of that run (severity is not required to match; its agreement is reported). Each
label is matched at most once, each detection at most once (nearest onset first): a second incident
for one event counts as a false positive. Recall = matched labels / labels; precision = matched
detections / detections of that type. Onset error is in eval intervals. `rec.any` is the recall when the onset
is ignored (an incident of that type on that env at any step): it separates "not seen" from "seen
at another step". Runs that curriwatch could not
load or analyse count all their labels as missed (listed under "errors").
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

VERSION = 3  # 3: an eval-only run's prolonged_training label comes after 10 windows widened to 20 evals
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "curriwatch-bench"
TOLERANCE_INTERVALS = 2
STAGNATION_WINDOW = 100  # the defaults the labels assume (health_monitoring.stagnation_window)
MIN_POINTS = 20  # ... and health_monitoring.training_stagnation.min_points (a window holds this many points)
PROLONGED_AFTER = 10 * STAGNATION_WINDOW
EVENTS = ("graduated_regression", "training_stagnation", "performance_volatility", "unexpected_transition",
          "eval_gap", "prolonged_training")
NEGATIVES = ("healthy", "noisy_healthy", "slow_learner", "level_shift", "single_outlier")
USER_CONFIG = """\
profiles:
  mylab:
    patterns:
      - regex: '^lesson\\.(?P<env>[^.]+)\\.(?P<split>train|test)\\.(?P<metric>[a-z_]+)$'
      - {regex: '^lesson\\.(?P<env>[^.]+)\\.stage$', split: state, metric: state}
    performance_metric: %s
"""
DIRECTION_LINE = "direction: lower\n"  # top-level: the loss runs have a config of their own


@dataclass(frozen=True)
class Label:
    run: str
    env: str
    type: str
    onset: int
    severity: str | None = None
    shape: str = ""


@dataclass
class Env:
    name: str
    unlock: int
    tau: float
    kind: str = "success"          # success | cartpole | pendulum | loss
    noise: tuple = ("gauss", 0.03)  # ("binom", n) | ("gauss", sigma in skill units)
    event: str = "healthy"
    onset: int | None = None
    severity: str | None = None
    params: dict = field(default_factory=dict)


# --- the truth: a skill curve in [0, 1] per env, mapped to the metric -------------------------------

def skill(env: Env, steps: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int | None]:
    """True skill per step, explicit state per step (0/1/2), and the true graduation step."""
    s0, s1 = env.params.get("s0", 0.05), env.params.get("s1", 0.96)
    t = np.maximum(steps - env.unlock, 0)
    s = s0 + (s1 - s0) * (1 - np.exp(-t / env.tau))
    s[steps < env.unlock] = s0
    state = np.where(steps < env.unlock, 0, 1)
    if env.event == "training_stagnation":
        level = s[np.searchsorted(steps, env.onset)]
        s[steps >= env.onset] = level
    if env.event == "performance_volatility" and env.params.get("lifelong"):
        half = env.params["half_period"]
        phase = ((steps - env.unlock) // half) % 2
        s = np.where(steps >= env.unlock, np.where(phase == 0, 0.2, 0.85), s0)
    grad_level = s0 + 0.9 * (s1 - s0)
    crossed = np.flatnonzero((s >= grad_level) & (steps >= env.unlock))
    grad = int(steps[crossed[0]]) if len(crossed) and env.event not in ("training_stagnation", "prolonged_training") \
        and not env.params.get("lifelong") else None
    if grad is not None:
        state = np.where(steps >= grad, 2, state)
        held = s1
        if env.event == "graduated_regression":
            keep = env.params["keep"]
            s[steps >= env.onset] = s0 + keep * (held - s0)
        elif env.event == "level_shift":
            s[steps >= env.params["shift_at"]] = np.clip(held + env.params["shift"], 0, 1)
        elif env.event == "unexpected_transition":
            state = np.where(steps >= env.onset, 1, state)
        elif env.event == "performance_volatility":
            burst = (steps >= env.onset) & (steps < env.onset + env.params["length"])
            swing = np.where(((steps - env.onset) // env.params["swing"]) % 2 == 0, -1.0, 1.0)
            s = np.where(burst, np.clip(held - 0.3 + 0.3 * swing * rng.uniform(0.7, 1.0, len(steps)), 0, 1), s)
    return s, state, grad


def observe(env: Env, s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    kind, scale = env.noise
    if kind == "binom":
        p = np.clip(s, 0, 1)
        x = rng.binomial(scale, p) / scale
    else:
        x = s + rng.normal(0, scale, len(s))
    if env.event == "single_outlier":
        x = x.copy()
        x[env.params["at"]] = 0.05
    if env.kind == "success":
        return np.clip(x, 0, 1)
    if env.kind == "cartpole":
        return np.clip(500 * x, 0, 500)
    if env.kind == "pendulum":
        return -1500 + 1350 * x
    return 0.1 + 2.0 * (1 - x)  # loss, lower is better


# --- run plans -----------------------------------------------------------------------------------

CONVENTIONS = ("generic", "roll", "atropos", "marin", "mylab", "mylab_loss")


def _between(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A random step in [lo, hi); -1 (the env is then made a healthy negative) when the range is empty."""
    return int(rng.integers(lo, hi)) if lo < hi else -1


def plan_run(name: str, convention: str, rng: np.random.Generator, i: int) -> dict:
    """One run: its envs (one event or clean negative each), eval interval, shape, length."""
    eval_every = int(rng.choice([10, 20, 25]))
    shape = {"marin": "sparse", "roll": "dense"}.get(convention) or str(
        rng.choice(["dense", "dense", "eval_only", "train_only"]))
    explicit = convention in ("generic", "mylab", "mylab_loss") and shape != "train_only" and bool(rng.random() < 0.6)
    kind = {"mylab": str(rng.choice(["cartpole", "pendulum"])), "mylab_loss": "loss"}.get(convention, "success")
    n_envs = int(rng.integers(3, 6))
    # Events possible for this shape: regression and volatility need evals (or train for train_only).
    pool = ["graduated_regression", "training_stagnation", "performance_volatility", "eval_gap"]
    if explicit:
        pool.append("unexpected_transition")
    if shape == "train_only":
        pool.remove("eval_gap")
    prolonged = rng.random() < 0.15
    # prolonged_training: 10 stagnation windows, widened as the rules widen them to hold MIN_POINTS
    # points of the series the env is judged on (an eval-only run's evals)
    prolonged_after = PROLONGED_AFTER if shape != "eval_only" else \
        10 * max(STAGNATION_WINDOW, MIN_POINTS * eval_every)
    steps = max(1600, prolonged_after + 600) if prolonged else 1000
    envs = []
    for k in range(n_envs):
        unlock = int(k * rng.integers(40, 120))
        tau = float(rng.uniform(30, 90))
        noise = ("binom", int(rng.choice([8, 16, 32, 64]))) if kind == "success" and rng.random() < 0.6 \
            else ("gauss", float(rng.uniform(0.01, 0.04)))
        env = Env(f"task{k}", unlock, tau, kind, noise, params={"s1": float(rng.uniform(0.93, 0.99))})
        grad_est = unlock + int(tau * math.log(10)) + 5
        r = rng.random()
        if prolonged and k == 0:
            env.event, env.tau = "prolonged_training", float(rng.uniform(300, 500))
            env.params["s1"] = 0.8  # never reaches the graduation level
            env.onset = unlock + prolonged_after
        elif r < 0.55:
            ev = str(rng.choice(pool))
            env.event = ev
            if ev == "graduated_regression":
                env.severity = str(rng.choice(["warning", "critical"]))
                env.params["keep"] = float(rng.uniform(0.7, 0.8) if env.severity == "warning" else rng.uniform(0.25, 0.45))
                env.onset = int(_between(rng, grad_est + 150, steps - 200))
            elif ev == "training_stagnation":
                env.tau = float(rng.uniform(150, 250))
                env.onset = int(unlock + rng.integers(60, 150))
                if env.onset > steps - 350:
                    env.unlock = unlock = max(0, steps - 600)
                    env.onset = unlock + 100
            elif ev == "performance_volatility":
                if rng.random() < 0.5:
                    env.params.update(lifelong=True, half_period=int(rng.integers(45, 81)))
                    env.onset = unlock
                else:
                    env.params.update(length=int(rng.integers(80, 160)), swing=int(rng.integers(8, 20)))
                    env.onset = int(_between(rng, grad_est + 120, steps - 250))
            elif ev == "unexpected_transition":
                env.onset = int(_between(rng, grad_est + 100, steps - 150))
            elif ev == "eval_gap":
                env.onset = int(_between(rng, grad_est + 50, steps - 400))
                env.onset -= env.onset % eval_every
        else:
            neg = str(rng.choice(NEGATIVES))
            env.event = neg
            if neg == "noisy_healthy":
                env.noise = ("binom", 8) if kind == "success" else ("gauss", 0.08)
            elif neg == "slow_learner":
                env.tau = float(rng.uniform(120, 200))
            elif neg == "level_shift":
                env.params.update(shift_at=int(_between(rng, grad_est + 100, steps - 100)),
                                  shift=float(rng.choice([0.02, -0.03])))
            elif neg == "single_outlier":
                env.params["at"] = int(_between(rng, grad_est + 100, steps - 50))
        if (env.onset is not None and not (0 <= env.onset < steps - 100)) or -1 in (
                env.params.get("shift_at"), env.params.get("at")):
            env.event, env.onset, env.severity = "healthy", None, None
        envs.append(env)
    return {"name": name, "convention": convention, "shape": shape, "explicit": explicit, "kind": kind,
            "eval_every": eval_every, "steps": steps, "envs": envs, "seed": int(rng.integers(1 << 31))}


def series_for(run: dict) -> tuple[dict[str, np.ndarray], list[Label]]:
    """Per env: steps, train and eval values, states; plus the labels."""
    rng = np.random.default_rng(run["seed"])
    steps = np.arange(run["steps"])
    out, labels = {}, []
    for env in run["envs"]:
        s, state, grad = skill(env, steps, rng)
        out[env.name] = {"s": s, "state": state, "grad": grad,
                         "train": observe(env, np.clip(s + 0.02, 0, 1), rng), "eval": observe(env, s, rng)}
        if env.event in EVENTS:
            onset = env.onset
            if env.event == "eval_gap":
                onset = env.onset + run["eval_every"]
            labels.append(Label(run["name"], env.name, env.event, int(onset), env.severity,
                                f"{run['convention']}/{run['shape']}/{'explicit' if run['explicit'] else 'inferred'}"))
    return out, labels


# --- writers -------------------------------------------------------------------------------------

def keys(convention: str, env: str, kind: str) -> dict[str, str]:
    metric = {"cartpole": "return", "pendulum": "return", "loss": "loss"}.get(kind, "success")
    return {
        "generic": {"train": f"train/{env}/reward", "eval": f"eval/{env}/reward", "state": f"curriculum/{env}/state"},
        "roll": {"train": f"env/{env}/success", "eval": f"val/env/{env}/success"},
        "atropos": {"train": f"{env}_0_train/percent_correct", "eval": f"{env}_0_eval/percent_correct"},
        "mylab": {"train": f"lesson.{env}.train.{metric}", "eval": f"lesson.{env}.test.{metric}",
                  "state": f"lesson.{env}.stage"},
        "mylab_loss": {"train": f"lesson.{env}.train.{metric}", "eval": f"lesson.{env}.test.{metric}",
                       "state": f"lesson.{env}.stage"},
    }[convention]


def write_tensorboard(folder: Path, run: dict, data: dict) -> None:
    from tensorboardX import SummaryWriter

    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000)
    ev = run["eval_every"]
    for env in run["envs"]:
        d, k = data[env.name], keys(run["convention"], env.name, run["kind"])
        for t in range(run["steps"]):
            if t < env.unlock:
                continue
            if run["shape"] != "eval_only":
                w.add_scalar(k["train"], float(d["train"][t]), t, walltime=1.7e9 + t)
            if t % ev == 0:
                gap = env.event == "eval_gap" and t > env.onset
                if run["shape"] != "train_only" and not gap:
                    w.add_scalar(k["eval"], float(d["eval"][t]), t, walltime=1.7e9 + t)
                if run["explicit"]:
                    w.add_scalar(k["state"], float(d["state"][t]), t, walltime=1.7e9 + t)
    w.close()


def write_marin(folder: Path, run: dict, data: dict, rng: np.random.Generator) -> None:
    """Rows as Marin's rollout worker logs them (marin/rl/rollout_worker.py:732-775, 861-885 in
    marin-core 0.2.20): tracker.log without step=, one row per training batch of one sampled lesson,
    one row per lesson per full eval; a lesson stops being sampled once graduated."""
    os.environ.setdefault("WANDB_SILENT", "true")
    import wandb

    ev = run["eval_every"]
    with tempfile.TemporaryDirectory() as tmp:
        wr = wandb.init(project="curriwatch-bench", id=run["name"], mode="offline", dir=tmp,
                        settings=wandb.Settings(x_disable_stats=True, console="off"))
        for t in range(run["steps"]):
            if t % ev == 0:
                for env in run["envs"]:
                    if env.event == "eval_gap" and t > env.onset:
                        continue
                    d = data[env.name]
                    n = 64
                    wr.log({f"inference.eval/{env.name}/success_rate": float(d["eval"][t]),
                            f"inference.eval/{env.name}/total_count": n,
                            "inference.weight_step": t - 1, "inference.train_step": t})
            active = [e for e in run["envs"] if e.unlock <= t and not (data[e.name]["grad"] is not None
                                                                       and t >= data[e.name]["grad"])]
            if not active or rng.random() < 0.4:
                continue
            env = active[int(rng.integers(len(active)))]
            d = data[env.name]
            n = 32
            wr.log({f"inference.rollout/{env.name}/success_rate": float(d["train"][t]),
                    f"inference.rollout/{env.name}/total_count": n,
                    "inference.weight_step": t - 1, "inference.train_step": t})
        wr.finish()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{run['name']}/run-{run['name']}.wandb"))
        dest = folder / "wandb" / f"offline-run-20260101_000000-{run['name']}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)


def build(root: Path, n_runs: int, seed: int) -> list[Label]:
    rng = np.random.default_rng(seed)
    labels: list[Label] = []
    plans = []
    for i in range(n_runs):
        convention = CONVENTIONS[i % len(CONVENTIONS)]
        plans.append(plan_run(f"r{i:03d}_{convention}", convention, rng, i))
    for run in plans:
        data, run_labels = series_for(run)
        if run["convention"] == "marin":
            # Marin's training stops at graduation: events needing later train rows do not apply; its
            # states are never logged, its eval is never missing for locked lessons.
            pass
        group = root / run["convention"]
        if run["convention"] == "marin":
            write_marin(group / run["name"], run, data, np.random.default_rng(run["seed"] + 1))
        else:
            write_tensorboard(group / run["name"], run, data)
        labels += run_labels
        meta = {k: v for k, v in run.items() if k != "envs"}
        meta["envs"] = [{"name": e.name, "event": e.event, "onset": e.onset, "severity": e.severity,
                         "kind": e.kind, "noise": list(e.noise), "unlock": e.unlock,
                         "graduated": data[e.name]["grad"]} for e in run["envs"]]
        (group / run["name"] / "plan.json").write_text(json.dumps(meta, indent=1))
    for conv, metric in (("mylab", "return"), ("mylab_loss", "loss")):
        if (root / conv).is_dir():
            text = USER_CONFIG % metric + (DIRECTION_LINE if conv == "mylab_loss" else "")
            (root / conv / "curriwatch.yaml").write_text(text)
    (root / "labels.json").write_text(json.dumps([l.__dict__ for l in labels], indent=1))
    (root / "DONE").write_text("")
    return labels


# --- scoring -------------------------------------------------------------------------------------

def match(labels: list[dict], detections: list[dict], intervals: dict[str, int]) -> dict:
    """Score detections against labels (see the module docstring). Returns per-type figures."""
    types = sorted({l["type"] for l in labels} | {d["type"] for d in detections})
    out = {}
    for typ in types:
        ls = [l for l in labels if l["type"] == typ]
        ds = [d for d in detections if d["type"] == typ]
        pairs = []
        for i, l in enumerate(ls):
            for j, d in enumerate(ds):
                if (l["run"], l["env"]) == (d["run"], d["env"]):
                    err = abs(d["first_step"] - l["onset"]) / intervals[l["run"]]
                    if err <= TOLERANCE_INTERVALS:
                        pairs.append((err, i, j))
        used_l, used_d, errors, sev_ok, matched = set(), set(), [], 0, []
        for err, i, j in sorted(pairs):
            if i in used_l or j in used_d:
                continue
            used_l.add(i)
            used_d.add(j)
            errors.append(err)
            sev_ok += ls[i].get("severity") in (None, ds[j].get("severity"))
            matched.append(ls[i])
        at_env = {(d["run"], d["env"]) for d in ds}
        out[typ] = {
            "labels": len(ls), "detections": len(ds), "matched": len(used_l),
            "recall_any_onset": sum((l["run"], l["env"]) in at_env for l in ls) / len(ls) if ls else None,
            "recall": len(used_l) / len(ls) if ls else None,
            "precision": len(used_d) / len(ds) if ds else None,
            "onset_error_median": float(np.median(errors)) if errors else None,
            "onset_error_max": float(max(errors)) if errors else None,
            "severity_agreement": sev_ok / len(used_l) if used_l else None,
            "missed": [l for k, l in enumerate(ls) if k not in used_l],
            "false_positives": [d for k, d in enumerate(ds) if k not in used_d],
        }
    return out


def analyze_corpus(root: Path) -> tuple[list[dict], dict[str, int], list[str], list[str]]:
    """curriwatch over each convention group: detections, tolerance unit per run (its eval interval,
    or the plan's `tolerance_unit`), errors (a group that did not load or analyse) and problems (a
    planned run or env missing from the report, or judged `unknown`)."""
    import curriwatch

    detections, intervals, errors, problems = [], {}, [], []
    for group in sorted(p for p in root.iterdir() if p.is_dir()):
        planned = {}
        for plan in group.glob("*/plan.json"):
            meta = json.loads(plan.read_text())
            intervals[meta["name"]] = meta.get("tolerance_unit") or meta["eval_every"]
            planned[meta["name"]] = [e["name"] for e in meta["envs"]]
        cfg = group / "curriwatch.yaml"
        try:
            ingest = curriwatch.load(str(group), config=str(cfg) if cfg.exists() else None)
            report = curriwatch.analyze(ingest, config=str(cfg) if cfg.exists() else None).to_dict()
        except Exception as err:  # noqa: BLE001 - measured and reported, not hidden
            errors.append(f"{group.name}: {type(err).__name__}: {err}")
            continue
        seen: dict[str, set] = {}
        for run in report["runs"]:
            name = run["run"].split("/")[0]
            seen.setdefault(name, set()).update(e["env_id"] for e in run["environments"])
            # an env whose levels are its envs (Atropos' infinimath) is judged through them, and says so
            seen[name].update(m.group(1) for i in run["data_issues"] if i["kind"] == "level_holder"
                              for m in [re.match(r"env '(.+?)' holds levels", i["detail"])] if m)
            failed = [i["detail"] for i in run["data_issues"] if i["kind"] == "analysis_error"]
            if run["health_status"] == "unknown" or failed:
                problems.append(f"{group.name}/{run['run']}: run {run['health_status']}"
                                f"{': ' + run['status_reason'] if run.get('status_reason') else ''}"
                                f"{' (analysis_error: ' + '; '.join(failed) + ')' if failed else ''}")
            for env in run["environments"]:
                if env["health_status"] == "unknown" and run["health_status"] != "unknown":
                    problems.append(f"{group.name}/{run['run']}: env {env['env_id']} unknown: "
                                    f"{env.get('status_reason')}")
            for w in run["warnings"]:
                detections.append({"run": name, "env": w["env_id"], "type": w["type"],
                                   "first_step": w["first_step"], "severity": w["severity"]})
        for name, envs in sorted(planned.items()):
            if name not in seen:
                problems.append(f"{group.name}/{name}: no run of this folder in the report")
            elif missing := [e for e in envs if e not in seen[name]]:
                problems.append(f"{group.name}/{name}: env(s) missing from the report: {', '.join(missing)}")
    return detections, intervals, errors, problems


def breakdown(labels: list[dict], scores: dict, key) -> dict:
    """Recall per group of labels; key(label) gives the label's group names."""
    missed = {(m["run"], m["env"], m["type"]) for s in scores.values() for m in s["missed"]}
    table: dict[str, list[int]] = {}
    for l in labels:
        hit = (l["run"], l["env"], l["type"]) not in missed
        for name in key(l):
            row = table.setdefault(name, [0, 0])
            row[0] += hit
            row[1] += 1
    return {k: {"found": v[0], "labels": v[1], "recall": v[0] / v[1]} for k, v in sorted(table.items())}


def shape_breakdown(labels: list[dict], scores: dict) -> dict:
    return breakdown(labels, scores, lambda l: [l["shape"]])


def false_positive_breakdown(scores: dict, plans: dict[str, dict]) -> dict:
    """Unmatched incidents per convention and per what the env truly was (its event or negative)."""
    by_conv: dict[str, int] = {}
    by_truth: dict[str, int] = {}
    for typ, s in scores.items():
        for d in s["false_positives"]:
            plan = plans.get(d["run"], {})
            truth = next((e["event"] for e in plan.get("envs", []) if e["name"] == d["env"]), "not in the plan")
            conv = plan.get("convention", "?")
            by_conv[conv] = by_conv.get(conv, 0) + 1
            key = f"{typ} on {truth}"
            by_truth[key] = by_truth.get(key, 0) + 1
    return {"by_convention": dict(sorted(by_conv.items())),
            "by_type_and_truth": dict(sorted(by_truth.items(), key=lambda kv: -kv[1]))}


def load_plans(root: Path) -> dict[str, dict]:
    return {m["name"]: m for m in (json.loads(p.read_text()) for p in root.glob("*/*/plan.json"))}


def run_corpus(which: str, args) -> dict:
    """Build (once) and score one corpus; returns its result dict."""
    if which in ("wide", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
                 "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
                 "twentieth", "twentyfirst", "twentysecond", "twentythird", "twentyfourth", "twentyfifth",
                 "twentysixth", "twentyseventh", "twentyeighth", "twentyninth", "thirtieth",
                 "thirtyfirst", "thirtysecond", "thirtythird", "thirtyfourth", "thirtyfifth",
                 "thirtysixth"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        if which == "wide":
            import detection_corpus_wide as corpus
        elif which == "third":
            import detection_corpus_third as corpus
        elif which == "fourth":
            import detection_corpus_fourth as corpus
        elif which == "fifth":
            import detection_corpus_fifth as corpus
        elif which == "sixth":
            import detection_corpus_sixth as corpus
        elif which == "seventh":
            import detection_corpus_seventh as corpus
        elif which == "eighth":
            import detection_corpus_eighth as corpus
        elif which == "ninth":
            import detection_corpus_ninth as corpus
        elif which == "tenth":
            import detection_corpus_tenth as corpus
        elif which == "eleventh":
            import detection_corpus_eleventh as corpus
        elif which == "twelfth":
            import detection_corpus_twelfth as corpus
        elif which == "thirteenth":
            import detection_corpus_thirteenth as corpus
        elif which == "fourteenth":
            import detection_corpus_fourteenth as corpus
        elif which == "fifteenth":
            import detection_corpus_fifteenth as corpus
        elif which == "sixteenth":
            import detection_corpus_sixteenth as corpus
        elif which == "seventeenth":
            import detection_corpus_seventeenth as corpus
        elif which == "eighteenth":
            import detection_corpus_eighteenth as corpus
        elif which == "nineteenth":
            import detection_corpus_nineteenth as corpus
        elif which == "twentieth":
            import detection_corpus_twentieth as corpus
        elif which == "twentyfirst":
            import detection_corpus_twentyfirst as corpus
        elif which == "twentysecond":
            import detection_corpus_twentysecond as corpus
        elif which == "twentythird":
            import detection_corpus_twentythird as corpus
        elif which == "twentyfourth":
            import detection_corpus_twentyfourth as corpus
        elif which == "twentyfifth":
            import detection_corpus_twentyfifth as corpus
        elif which == "twentysixth":
            import detection_corpus_twentysixth as corpus
        elif which == "twentyseventh":
            import detection_corpus_twentyseventh as corpus
        elif which == "twentyeighth":
            import detection_corpus_twentyeighth as corpus
        elif which == "twentyninth":
            import detection_corpus_twentyninth as corpus
        elif which == "thirtieth":
            import detection_corpus_thirtieth as corpus
        elif which == "thirtyfirst":
            import detection_corpus_thirtyfirst as corpus
        elif which == "thirtysecond":
            import detection_corpus_thirtysecond as corpus
        elif which == "thirtythird":
            import detection_corpus_thirtythird as corpus
        elif which == "thirtyfourth":
            import detection_corpus_thirtyfourth as corpus
        elif which == "thirtyfifth":
            import detection_corpus_thirtyfifth as corpus
        else:
            import detection_corpus_thirtysixth as corpus

        n_runs = args.runs or (corpus.SMALL_RUNS if args.small else corpus.N_RUNS)
        root = args.cache / f"detection-{which}-{corpus.VERSION}-{n_runs}runs-s{args.seed}"
        builder = corpus.build
    else:
        n_runs = args.runs or (12 if args.small else 60)
        root = args.cache / f"detection-{VERSION}-{n_runs}runs-s{args.seed}"
        builder = build
    t0 = time.perf_counter()
    if args.rebuild and root.exists():
        shutil.rmtree(root)
    if not (root / "DONE").exists():
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        print(f"building {n_runs} runs in {root} ...", file=sys.stderr)
        builder(root, n_runs, args.seed)
    t_build = time.perf_counter() - t0
    labels = json.loads((root / "labels.json").read_text())
    detections, intervals, errors, problems = analyze_corpus(root)
    t_analyze = time.perf_counter() - t0 - t_build
    scores = match(labels, detections, intervals)
    result = {"corpus": str(root), "name": which, "runs": n_runs, "labels": len(labels),
              "detections": len(detections), "errors": errors, "problems": problems,
              "tolerance_eval_intervals": TOLERANCE_INTERVALS, "rules": scores,
              "by_shape": shape_breakdown(labels, scores),
              "false_positives": false_positive_breakdown(scores, load_plans(root)),
              "seconds": {"build": round(t_build, 1), "analyze": round(t_analyze, 1)}}
    if labels and "tags" in labels[0]:  # the wide corpus labels its metric kind, noise and shape tags
        result["by_kind"] = breakdown(labels, scores, lambda l: [l["kind"]])
        result["by_noise"] = breakdown(labels, scores, lambda l: [l["noise"]])
        result["by_tag"] = breakdown(labels, scores, lambda l: l["tags"])
    return result


def print_result(result: dict) -> None:
    fmt = lambda v, p=2: "-" if v is None else f"{v:.{p}f}"  # noqa: E731
    unit = f"tolerance units (see the {result['name']} corpus's docstring)" if result["name"] in ("wide", "third", "fourth", "fifth", "sixth", "seventh",
                                                                                             "eighth", "ninth", "tenth",
                                                                                             "eleventh", "twelfth",
                                                                                             "thirteenth", "fourteenth",
                                                                                             "fifteenth", "sixteenth",
                                                                                             "seventeenth",
                                                                                             "eighteenth",
                                                                                             "nineteenth",
                                                                                             "twentieth",
                                                                                             "twentyfirst",
                                                                                             "twentysecond",
                                                                                             "twentythird",
                                                                                             "twentyfourth",
                                                                                             "twentyfifth",
                                                                                             "twentysixth",
                                                                                             "twentyseventh",
                                                                                             "twentyeighth",
                                                                                             "twentyninth",
                                                                                             "thirtieth",
                                                                                             "thirtyfirst",
                                                                                             "thirtysecond",
                                                                                             "thirtythird",
                                                                                             "thirtyfourth",
                                                                                             "thirtyfifth",
                                                                                             "thirtysixth") \
        else "eval intervals"
    print(f"corpus {result['corpus']} — {result['runs']} runs, {result['labels']} labelled events, "
          f"{result['detections']} incidents; match: same run/env/type, onset within "
          f"{TOLERANCE_INTERVALS} {unit}")
    print(f"{'rule':<24} {'labels':>6} {'found':>6} {'incid.':>6} {'recall':>7} {'precis.':>7} "
          f"{'onset med':>9} {'onset max':>9} {'severity':>8} {'rec.any':>7}")
    for typ, s in result["rules"].items():
        print(f"{typ:<24} {s['labels']:>6} {s['matched']:>6} {s['detections']:>6} {fmt(s['recall']):>7} "
              f"{fmt(s['precision']):>7} {fmt(s['onset_error_median'], 1):>9} {fmt(s['onset_error_max'], 1):>9} "
              f"{fmt(s['severity_agreement']):>8} {fmt(s['recall_any_onset']):>7}")
    sections = [("by_shape", "recall by shape (convention/logging/states)"), ("by_kind", "recall by metric kind"),
                ("by_noise", "recall by noise"), ("by_tag", "recall by logging-shape tag")]
    for key, title in sections:
        if key in result:
            print(f"\n{title}:")
            for shape, s in result[key].items():
                print(f"  {shape:<34} {s['found']:>3}/{s['labels']:<3} {s['recall']:.2f}")
    fp = result["false_positives"]
    if fp["by_convention"]:
        print("\nunmatched incidents by convention: " + ", ".join(f"{k} {v}" for k, v in fp["by_convention"].items()))
        print("unmatched incidents by type and the env's truth: "
              + ", ".join(f"{k} {v}" for k, v in fp["by_type_and_truth"].items()))
    for e in result["errors"]:
        print(f"error: {e}")
    for e in result["problems"]:
        print(f"problem: {e}")
    print(f"\nbuild {result['seconds']['build']:.1f} s (cached afterwards), "
          f"load+analyze {result['seconds']['analyze']:.1f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=("default", "wide", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth", "twentyfirst", "twentysecond", "twentythird", "twentyfourth", "twentyfifth", "twentysixth", "twentyseventh", "twentyeighth", "twentyninth", "thirtieth", "thirtyfirst", "thirtysecond", "thirtythird", "thirtyfourth", "thirtyfifth", "thirtysixth", "both", "all"),
                    default="default",
                    help="the default corpus (60 runs), the wide one (120 runs), the third one (60 runs, "
                    "benchmarks/detection_corpus_third.py), the fourth one (60 runs, "
                    "benchmarks/detection_corpus_fourth.py), the fifth one (60 runs, benchmarks/detection_corpus_fifth.py), "
                    "the sixth one (60 runs, benchmarks/detection_corpus_sixth.py), the seventh one (60 runs, "
                    "benchmarks/detection_corpus_seventh.py), the eighth one (60 runs, "
                    "benchmarks/detection_corpus_eighth.py), the ninth one (60 runs, "
                    "benchmarks/detection_corpus_ninth.py), the tenth one (60 runs, "
                    "benchmarks/detection_corpus_tenth.py), the eleventh one (60 runs, "
                    "benchmarks/detection_corpus_eleventh.py), the twelfth one (60 runs, "
                    "benchmarks/detection_corpus_twelfth.py), the thirteenth one (60 runs, "
                    "benchmarks/detection_corpus_thirteenth.py), the fourteenth one (60 runs, "
                    "benchmarks/detection_corpus_fourteenth.py), the fifteenth one (60 runs, "
                    "benchmarks/detection_corpus_fifteenth.py), the sixteenth one (60 runs, "
                    "benchmarks/detection_corpus_sixteenth.py), the seventeenth one (60 runs, "
                    "benchmarks/detection_corpus_seventeenth.py), the eighteenth one (60 runs, "
                    "benchmarks/detection_corpus_eighteenth.py), the nineteenth one (60 runs, "
                    "benchmarks/detection_corpus_nineteenth.py), the twentieth one (60 runs, "
                    "benchmarks/detection_corpus_twentieth.py), the twenty-first one (60 runs, "
                    "benchmarks/detection_corpus_twentyfirst.py), the twenty-second one (60 runs, "
                    "benchmarks/detection_corpus_twentysecond.py), the twenty-third one (60 runs, "
                    "benchmarks/detection_corpus_twentythird.py), the twenty-fourth one (60 runs, "
                    "benchmarks/detection_corpus_twentyfourth.py), the twenty-fifth one (60 runs, "
                    "benchmarks/detection_corpus_twentyfifth.py), the twenty-sixth one (60 runs, "
                    "benchmarks/detection_corpus_twentysixth.py), the twenty-seventh one (60 runs, "
                    "benchmarks/detection_corpus_twentyseventh.py), the twenty-eighth one (60 runs, "
                    "benchmarks/detection_corpus_twentyeighth.py), the twenty-ninth one (60 runs, "
                    "benchmarks/detection_corpus_twentyninth.py), the thirtieth one (60 runs, "
                    "benchmarks/detection_corpus_thirtieth.py), the thirty-first one (60 runs, "
                    "benchmarks/detection_corpus_thirtyfirst.py), the thirty-second one (60 runs, "
                    "benchmarks/detection_corpus_thirtysecond.py), the thirty-third one (60 runs, "
                    "benchmarks/detection_corpus_thirtythird.py), the thirty-fourth one (60 runs, "
                    "benchmarks/detection_corpus_thirtyfourth.py), the thirty-fifth one (60 runs, "
                    "benchmarks/detection_corpus_thirtyfifth.py), the thirty-sixth one (60 runs, "
                    "benchmarks/detection_corpus_thirtysixth.py), both = default + wide, all = the thirty-six")
    ap.add_argument("--small", action="store_true", help="12 runs instead of 60 (wide: 20 instead of 120)")
    ap.add_argument("--json", action="store_true", help="print the scores as JSON")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--runs", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    names = {"both": ("default", "wide"), "all": ("default", "wide", "third", "fourth", "fifth", "sixth", "seventh",
                                                  "eighth", "ninth", "tenth", "eleventh", "twelfth",
                                                  "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                                                  "seventeenth", "eighteenth", "nineteenth",
                                                  "twentieth", "twentyfirst", "twentysecond",
                                                  "twentythird", "twentyfourth", "twentyfifth",
                                                  "twentysixth", "twentyseventh", "twentyeighth",
                                                  "twentyninth", "thirtieth", "thirtyfirst",
                                                  "thirtysecond", "thirtythird", "thirtyfourth",
                                                  "thirtyfifth", "thirtysixth")}.get(args.corpus,
                                                                                                          (args.corpus,))
    results = {name: run_corpus(name, args) for name in names}
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[names[0]], indent=1))
        return 0
    for k, name in enumerate(names):
        if k:
            print()
        print_result(results[name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
