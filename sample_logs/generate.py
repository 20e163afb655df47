"""Regenerate curriwatch's sample logs with the real writers (tensorboardX, wandb offline).

    python sample_logs/generate.py            # rewrites sample_logs/{generic,roll,marin} + injected.json
    python sample_logs/generate.py --only marin_grouped   # writes only that run, updates its manifest entry

Three runs, each a small simulated curriculum whose logged values are binomial success rates
(n = BATCH) around a known "true" curve, with a fixed seed:

* generic/curriculum_run       TensorBoard, generic keys, explicit state series
                               (curriculum/{env}/state: 0 locked, 1 active, 2 graduated)
* roll/agentic_sokoban/20261101-120000
                               TensorBoard in ROLL's layout (env/{tag}/success, val/env/{tag}/success,
                               val/{tag}/score/mean), with an add_hparams subfolder; no state series
* marin/wandb/offline-run-20261101_120000-cw0marin
                               W&B offline run, Marin keys logged without step= (the step is in
                               inference.weight_step / inference.train_step); no state series
* marin_grouped/wandb/offline-run-20261101_130000-cw1marin-rollout-{0,1}
                               one Marin experiment, two rollout workers (one W&B run each, read as
                               one run `marin_grouped/wandb/cw1marin`); a slow trainer: each worker
                               logs two batches (total_count 32) per inference.weight_step; only
                               worker 0 runs evals and micro-evals (no train_step in those rows)
* tune/PPO_2026-11-01/PPO_DoorKey_00000_0_lr=0.0003   (`--only tune`, needs ray[tune])
                               Ray Tune trial written by Ray's own JsonLoggerCallback and
                               CSVLoggerCallback (result.json, progress.csv, params.json with
                               `env`); RLlib keys env_runners/episode_return_mean and
                               evaluation/env_runners/episode_return_mean; step = timesteps_total.
                               One env that learns, then stagnates; manifest in tune/injected.json.
* mlagents/results/climber_curriculum/Climber   (`--only mlagents`)
                               Unity ML-Agents lesson curriculum: one behavior folder as ML-Agents'
                               TensorboardWriter lays it out, written call for call by the
                               reproduction in tests/writers.py (ML-Agents needs torch). Lessons of
                               `ledge_height` advance with normal dips, fall back to 0 at 900,000
                               (a resume without training_status.json), and collapse after the
                               advance to lesson 3 at 1,300,000; manifest in mlagents/injected.json.

Injected into every run (step numbers per run are in INJECTED below and in injected.json):

* healthy     learns, graduates, stays at its level                       -> must stay silent
* regress     graduates, then its eval performance drops to ~0.45 at `onset`
                                                                           -> graduated_regression
* stagnant    learns a little, then flat (no progress) from `onset`        -> training_stagnation
* volatile    from `onset` its performance swings between ~0.2 and ~0.8    -> performance_volatility
* late        locked until `unlock`, then learns and graduates             -> must stay silent

Graduated envs are no longer trained (their train series stops at graduation), as in Marin.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BATCH = 64
SEED = 20261101
WALL0 = 1_793_534_400.0  # 2026-11-01 12:00 UTC, so TensorBoard wall times are reproducible


@dataclass(frozen=True)
class Env:
    """One environment's scenario. Steps are in the run's own step unit.

    healthy / regress / late: a logistic learning curve from 0.1 to 0.95 over `span` steps after
    `unlock`; the curriculum graduates it at `graduate` (explicit states) and stops training it.
    regress: from `onset` its true performance is 0.45. stagnant: learns linearly from 0.1 to
    `level` until `onset`, then stays there. volatile: learns linearly from 0.1 to 0.6 until `onset`, then
    each batch's true performance is 0.2 or 0.8 at random.
    """

    name: str
    role: str  # healthy | regress | stagnant | volatile | late
    unlock: int
    graduate: int | None  # step at which the simulated curriculum graduates it
    onset: int | None = None  # step where the injected anomaly starts
    span: int = 0  # learning time of the logistic curves
    level: float = 0.5  # where a stagnant env stops

    def true_p(self, step: int, rng: np.random.Generator) -> float:
        """The env's true success probability at `step`."""
        if step < self.unlock:
            return 0.05
        t = step - self.unlock
        if self.role in ("healthy", "late", "regress"):
            if self.role == "regress" and step >= self.onset:
                return 0.45
            return 0.1 + 0.85 / (1 + math.exp(-(t - self.span / 2) / (self.span / 10)))
        if self.role == "stagnant":
            return 0.1 + (self.level - 0.1) * min(step, self.onset) / self.onset
        if self.role == "volatile":
            if step >= self.onset:
                return float(rng.choice([0.2, 0.8]))
            return 0.1 + 0.5 * t / self.onset
        raise ValueError(self.role)

    def state(self, step: int) -> int:
        if step < self.unlock:
            return 0
        if self.graduate is not None and step >= self.graduate:
            return 2
        return 1


def observe(p: float, rng: np.random.Generator) -> float:
    return float(rng.binomial(BATCH, p) / BATCH)


# Scenarios per run. Generic: steps 0..4000; ROLL: 0..1500; Marin: 0..12000.
GENERIC = [
    Env("easy_addition", "healthy", unlock=0, graduate=900, span=500),
    Env("two_digit", "regress", unlock=0, graduate=1000, onset=2600, span=550),
    Env("word_problems", "stagnant", unlock=0, graduate=None, onset=1200),
    Env("logic_puzzles", "volatile", unlock=0, graduate=None, onset=1800),
    Env("geometry", "late", unlock=1600, graduate=2500, span=500),
]
ROLL = [
    Env("SimpleSokoban", "healthy", unlock=0, graduate=500, span=250),
    Env("FrozenLake", "regress", unlock=0, graduate=600, onset=1000, span=300),
    Env("WebShop", "stagnant", unlock=0, graduate=None, onset=400),
    Env("Countdown", "volatile", unlock=0, graduate=None, onset=700),
    Env("Maze", "late", unlock=600, graduate=1100, span=250),
]
MARIN = [
    Env("addition", "healthy", unlock=0, graduate=4000, span=1200),
    Env("multiplication", "regress", unlock=0, graduate=4500, onset=9000, span=1400),
    Env("sorting", "stagnant", unlock=0, graduate=None, onset=2000, level=0.6),
    Env("parsing", "volatile", unlock=0, graduate=None, onset=7000),
    Env("reasoning", "late", unlock=6000, graduate=10000, span=1000),
]


def write_generic(out: Path, rng) -> dict:
    from tensorboardX import SummaryWriter

    logdir = out / "generic" / "curriculum_run"
    w = SummaryWriter(str(logdir), flush_secs=3600)
    last = 4000
    for step in range(0, last + 1, 10):
        wall = WALL0 + step
        for env in GENERIC:
            state = env.state(step)
            p = env.true_p(step, rng)
            if state == 1:
                w.add_scalar(f"train/{env.name}/reward", observe(p, rng), step, walltime=wall)
            if step % 50 == 0:
                w.add_scalar(f"curriculum/{env.name}/state", state, step, walltime=wall)
                if state >= 1:
                    w.add_scalar(f"eval/{env.name}/reward", observe(p, rng), step, walltime=wall)
        if step % 50 == 0:
            w.add_scalar("train/loss", 1.0 / (1 + step / 500), step, walltime=wall)  # global, no env
    w.close()
    return _manifest("generic/curriculum_run", GENERIC, eval_every=50, last_step=last, states="explicit")


def write_roll(out: Path, rng) -> dict:
    from tensorboardX import SummaryWriter

    logdir = out / "roll" / "agentic_sokoban" / "20261101-120000"
    w = SummaryWriter(str(logdir), flush_secs=3600)
    last = 1500
    for step in range(0, last + 1):
        wall = WALL0 + step * 6
        for env in ROLL:
            state = env.state(step)
            p = env.true_p(step, rng)
            if state == 1:
                w.add_scalar(f"env/{env.name}/success", observe(p, rng), step, walltime=wall)
                if step % 10 == 0:
                    w.add_scalar(f"env/{env.name}/action_is_valid", min(1.0, observe(p, rng) + 0.3), step,
                                 walltime=wall)
            if step % 20 == 0 and state >= 1:
                score = observe(p, rng)
                w.add_scalar(f"val/env/{env.name}/success", score, step, walltime=wall)
                w.add_scalar(f"val/{env.name}/score/mean", score, step, walltime=wall)
        w.add_scalar("system/tps", 1000.0 + step % 7, step, walltime=wall)
    w.add_hparams({"lr": 1e-6, "rollout_batch_size": BATCH}, {"hparam/final_score": 0.5})
    w.close()
    return _manifest("roll/agentic_sokoban/20261101-120000", ROLL, eval_every=20, last_step=last,
                     states="inferred")


def write_marin(out: Path, rng) -> dict:
    os.environ.setdefault("WANDB_SILENT", "true")
    import wandb

    run_id = "cw0marin"
    last = 12000
    with tempfile.TemporaryDirectory() as tmp:
        run = wandb.init(project="curriwatch-sample", id=run_id, mode="offline", dir=tmp,
                         settings=wandb.Settings(x_disable_stats=True, console="off"))
        turn = 0
        for step in range(0, last + 1, 10):
            active = [e for e in MARIN if e.state(step) == 1]
            if active:  # one rollout row for the lesson sampled in this batch
                env = active[turn % len(active)]
                turn += 1
                p = env.true_p(step, rng)
                rate = observe(p, rng)
                run.log({
                    f"inference.rollout/{env.name}/success_rate": rate,
                    f"inference.rollout/{env.name}/avg_reward": rate * 2 - 1,
                    f"inference.rollout/{env.name}/total_count": BATCH,
                    "inference.weight_step": step,
                })
                if step % 100 == 50:
                    run.log({f"inference.micro_eval/{env.name}/success_rate": observe(p, rng),
                             "inference.train_step": step})
            if step % 100 == 0:
                row = {"inference.train_step": step}
                for env in MARIN:
                    row[f"inference.eval/{env.name}/success_rate"] = observe(env.true_p(step, rng), rng)
                run.log(row)
        run.finish()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{run_id}/run-{run_id}.wandb"))
        dest = out / "marin" / "wandb" / f"offline-run-20261101_120000-{run_id}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    return _manifest(f"marin/wandb/offline-run-20261101_120000-{run_id}", MARIN, eval_every=100,
                     last_step=last, states="inferred")


MARIN_GROUPED = [
    Env("counting", "healthy", unlock=0, graduate=2800, span=600),
    Env("copying", "regress", unlock=0, graduate=3000, onset=4400, span=700),
    Env("spelling", "late", unlock=2000, graduate=5000, span=700),
]


def write_marin_grouped(out: Path, rng) -> dict:
    """Two rollout workers of one experiment, as Marin's rollout worker logs them.

    Marin (lib/marin/src/marin/rl/rollout_worker.py) makes one W&B run per worker,
    `{run_id}-rollout-{i}`, and logs with tracker.log(...) without step=; the batch's lesson
    metrics carry `total_count` and the row carries `inference.weight_step`. Only worker 0 runs
    evals (`inference.train_step` in the row) and micro-evals (no step column in the row).
    """
    os.environ.setdefault("WANDB_SILENT", "true")
    import wandb

    last = 6000
    run_id = "cw1marin"
    for worker in (0, 1):
        with tempfile.TemporaryDirectory() as tmp:
            wid = f"{run_id}-rollout-{worker}"
            run = wandb.init(project="curriwatch-sample", id=wid, mode="offline", dir=tmp,
                             settings=wandb.Settings(x_disable_stats=True, console="off"))
            turn = worker
            for step in range(0, last + 1, 20):
                active = [e for e in MARIN_GROUPED if e.state(step) == 1]
                if active:
                    env = active[turn % len(active)]
                    turn += 1
                    p = env.true_p(step, rng)
                    run.log({
                        f"inference.rollout/{env.name}/success_rate": float(rng.binomial(BATCH // 2, p) / (BATCH // 2)),
                        f"inference.rollout/{env.name}/total_count": BATCH // 2,
                        "inference.weight_step": step - step % 40,  # the trainer publishes every 40 steps
                    })
                    if worker == 0 and step % 200 == 100:
                        run.log({f"inference.micro_eval/{env.name}/success_rate": observe(p, rng)})
                if worker == 0 and step % 100 == 0:
                    row = {"inference.train_step": step}
                    for env in MARIN_GROUPED:
                        row[f"inference.eval/{env.name}/success_rate"] = observe(env.true_p(step, rng), rng)
                    run.log(row)
            run.finish()
            src = next(Path(tmp).glob(f"wandb/offline-run-*-{wid}/run-{wid}.wandb"))
            dest = out / "marin_grouped" / "wandb" / f"offline-run-20261101_130000-{wid}" / src.name
            _copy_when_complete(src, dest)
    return _manifest(f"marin_grouped/wandb/{run_id}", MARIN_GROUPED, eval_every=100, last_step=last,
                     states="inferred")


def _copy_when_complete(src: Path, dest: Path) -> None:
    """wandb's service may still be writing after finish(): copy once the exit record is there."""
    import time

    from wandb.proto import wandb_internal_pb2

    sys.path.insert(0, str(HERE.parent))
    from curriwatch.readers.leveldb_log import LogReport, iter_log_records

    for _ in range(600):
        records = iter_log_records(src.read_bytes(), LogReport())
        if any(wandb_internal_pb2.Record.FromString(p).HasField("exit") for _o, p in records):
            break
        time.sleep(0.1)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)


EXPECTED = {
    "regress": "graduated_regression",
    "stagnant": "training_stagnation",
    "volatile": "performance_volatility",
}


def _manifest(run: str, envs: list[Env], eval_every: int, last_step: int, states: str) -> dict:
    return {
        "run": run, "eval_every": eval_every, "last_step": last_step, "states": states,
        "envs": [
            {"env_id": e.name, "role": e.role, "unlock": e.unlock, "graduate": e.graduate,
             "onset": e.onset, "expected_warning": EXPECTED.get(e.role)}
            for e in envs
        ],
    }


INJECTED = {"generic": GENERIC, "roll": ROLL, "marin": MARIN, "marin_grouped": MARIN_GROUPED}
ONLY = {"marin_grouped": write_marin_grouped}  # runs that can be (re)written alone


def _rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng([SEED, sum(map(ord, name))])


def only(name: str, out: Path = HERE) -> None:
    """Write one run alone (seeded by its name) and update its entry in injected.json."""
    rng = _rng_for(name)
    shutil.rmtree(out / name, ignore_errors=True)
    entry = ONLY[name](out, rng)
    manifest = out / "injected.json"
    runs = json.loads(manifest.read_text())["runs"] if manifest.exists() else []
    runs = [r for r in runs if r["run"] != entry["run"]] + [entry]
    manifest.write_text(json.dumps({"runs": runs}, indent=2) + "\n")
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {entry['run']} under {out} ({total / 1e6:.2f} MB in all)", file=sys.stderr)


TUNE = [Env("MiniGrid-DoorKey-8x8-v0", "stagnant", unlock=0, graduate=None, onset=480_000, level=0.55)]
TUNE_TRIAL = "tune/PPO_2026-11-01/PPO_DoorKey_00000_0_lr=0.0003"


class _Trial:
    """What Ray's logger callbacks use of a Trial: local_path, config, checkpoint, init_local_path."""

    def __init__(self, path: Path, config: dict):
        self.local_path, self.config, self.checkpoint = str(path), config, None

    def init_local_path(self) -> None:
        os.makedirs(self.local_path, exist_ok=True)


def write_tune(out: Path, rng) -> dict:
    """One RLlib PPO trial through Ray's own JsonLoggerCallback and CSVLoggerCallback."""
    from ray.tune.logger import CSVLoggerCallback, JsonLoggerCallback

    config = {"env": TUNE[0].name, "lr": 0.0003, "train_batch_size": 4000, "evaluation_interval": 10}
    trial = _Trial(out / TUNE_TRIAL, config)
    trial.init_local_path()
    callbacks = [JsonLoggerCallback(), CSVLoggerCallback()]
    for cb in callbacks:
        cb.log_trial_start(trial)
    env = TUNE[0]
    last_iter = 250
    for it in range(1, last_iter + 1):
        steps = 4000 * it
        p = env.true_p(steps, rng)
        result = {
            "training_iteration": it, "timesteps_total": steps, "timestamp": int(WALL0) + 30 * it,
            "time_this_iter_s": 30.0, "done": it == last_iter,
            "env_runners": {"episode_return_mean": observe(p, rng), "episode_len_mean": 200 * (1 - p) + 20,
                            "num_episodes": 40},
            "learners": {"default_policy": {"policy_loss": 0.1 / it, "entropy": 1.0 - 0.5 * p}},
        }
        if it % 10 == 0:
            result["evaluation"] = {"env_runners": {"episode_return_mean": observe(p, rng), "num_episodes": 20}}
        for cb in callbacks:
            cb.log_trial_result(it, trial, dict(result, config=config))
    for cb in callbacks:
        cb.log_trial_end(trial)
    (out / TUNE_TRIAL / "params.pkl").unlink(missing_ok=True)  # a pickle: not needed, never read
    return _manifest(TUNE_TRIAL, TUNE, eval_every=40_000, last_step=4000 * last_iter, states="inferred")


# One ML-Agents behavior trained through lessons of one environment parameter (summary_freq 50,000).
# (step, lesson) where the logged lesson changes: advances with a normal dip, a fall back to lesson 0
# at 900,000 (a --resume that found no run_logs/training_status.json: ML-Agents starts lessons at 0
# again), re-advances, and at 1,300,000 an advance after which the reward collapses for good.
MLAGENTS_RUN = "mlagents/results/climber_curriculum/Climber"
MLAGENTS_LESSONS = [(0, 0), (300_000, 1), (600_000, 2), (900_000, 0), (950_000, 1), (1_000_000, 2),
                    (1_300_000, 3)]


def write_mlagents(out: Path, rng) -> dict:
    """An ML-Agents lesson curriculum, written through the reproduction of ML-Agents' StatsReporter
    and TensorboardWriter in tests/writers.py (MLAgentsRun; file:line of ML-Agents in its docstring):
    results/{run_id}/{behavior}/events..., Environment/Cumulative Reward (+ its _hist histogram),
    Environment/Episode Length, Environment/Lesson Number/ledge_height, PPO losses.

    Each episode's return is the share of the climb reached (0..1, a shaped reward). The behavior
    learns lesson 0 from ~0.1 to ~0.9; each advance to a higher ledge costs up to ~0.5 that comes
    back within ~150,000 steps; lesson 3 (from 1,300,000) is too hard: returns fall to ~0.2 and stay.
    """
    sys.path.insert(0, str(HERE.parent / "tests"))
    from writers import MLAgentsRun

    run = MLAgentsRun(out / "mlagents" / "results", "climber_curriculum", ("Climber",),
                      {"trainer_type": "ppo", "summary_freq": 50000, "max_steps": 2000000})
    run.stats.wall0 = WALL0

    def lesson_at(step: int) -> tuple[int, int]:
        k = max(i for i, (s, _l) in enumerate(MLAGENTS_LESSONS) if s <= step)
        return MLAGENTS_LESSONS[k][1], MLAGENTS_LESSONS[k][0]

    def mean_return(step: int) -> float:
        lesson, since = lesson_at(step)
        t = step - since
        if since == 0:
            return 0.1 + 0.8 * (1 - math.exp(-t / 60_000))
        if lesson == 3:
            return 0.2
        if since in (900_000, 950_000, 1_000_000):  # lessons it had already learned before the restart
            return 0.88
        return 0.88 - 0.5 * math.exp(-t / 50_000)

    for step in range(50_000, 2_000_001, 50_000):
        episodes = [float(np.clip(rng.normal(mean_return(step - 25_000 + 2_500 * i), 0.06), 0.01, 1.0))
                    for i in range(10)]
        run.summary(step, {"ledge_height": lesson_at(step)[0]}, {"Climber": episodes},
                    {"Policy/Entropy": 1.4 - 0.3 * step / 2e6, "Losses/Value Loss": 0.02 + 0.01 * rng.random()})
    run.close()
    return {"run": MLAGENTS_RUN, "eval_every": 50_000, "last_step": 2_000_000, "states": "lessons",
            "envs": [{"env_id": "Climber", "role": "lesson_collapse", "unlock": 0, "graduate": None,
                      "onset": 1_300_000, "expected_warning": "lesson_reward_collapse",
                      "lessons": {"ledge_height": [list(x) for x in MLAGENTS_LESSONS]},
                      "also_expected": [{"type": "lesson_regression", "onset": 900_000, "resolved_at": 1_000_000}],
                      "advances": {"300000": "recovered", "600000": "recovered", "1300000": "collapsed"}}]}


SEPARATE = {"tune": write_tune, "mlagents": write_mlagents}  # new sample runs with their own `{name}/injected.json`


def main(out: Path = HERE) -> None:
    rng = np.random.default_rng(SEED)
    for sub in ("generic", "roll", "marin"):
        shutil.rmtree(out / sub, ignore_errors=True)
    runs = [write_generic(out, rng), write_roll(out, rng), write_marin(out, rng)]
    for name, write in ONLY.items():
        shutil.rmtree(out / name, ignore_errors=True)
        runs.append(write(out, _rng_for(name)))
    (out / "injected.json").write_text(json.dumps({"runs": runs}, indent=2) + "\n")
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {len(runs)} runs under {out} ({total / 1e6:.2f} MB in all)", file=sys.stderr)


def only_separate(name: str, out: Path = HERE) -> None:
    """Write one new sample run (and its manifest `{name}/injected.json`) without touching the rest."""
    shutil.rmtree(out / name, ignore_errors=True)
    run = SEPARATE[name](out, np.random.default_rng(SEED))
    (out / name / "injected.json").write_text(json.dumps({"runs": [run]}, indent=2) + "\n")
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"wrote {run['run']} under {out} ({total / 1e6:.2f} MB in all sample logs)", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--only"]:
        (only_separate if args[1] in SEPARATE else only)(args[1], Path(args[2]) if len(args) > 2 else HERE)
    else:
        main(Path(args[0]) if args else HERE)
