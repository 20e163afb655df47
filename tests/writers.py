"""Real writers for test inputs: tensorboardX event files and wandb offline runs."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("WANDB_SILENT", "true")
os.environ.setdefault("WANDB_MODE", "offline")


def write_tb(logdir, series: dict[str, list[tuple[int, float]]], *, writer: str = "tensorboardX",
             suffix: str = "") -> Path:
    """Write `series` (tag -> [(step, value)]) step by step and return the run folder.

    writer: "tensorboardX" (its add_scalar: simple_value scalars, tags cleaned of characters TensorBoard's tag
    names do not allow — `@`, spaces, brackets become `_`), or "raw_tags": each point as
    `Summary.Value(tag=tag, simple_value=value)` through tensorboardX's FileWriter, the tag as it is — what torch's
    SummaryWriter.add_scalar (verl's) and skrl's own EventFileWriter write. Other torch output is committed under
    tests/fixtures/torch (see `torch_fixture`), so no test imports torch.
    """
    logdir = Path(logdir)
    points = sorted((step, i, tag, value) for i, (tag, pts) in enumerate(series.items()) for step, value in pts)
    if writer == "raw_tags":
        from tensorboardX import FileWriter
        from tensorboardX.proto.summary_pb2 import Summary

        fw = FileWriter(str(logdir), flush_secs=3600, filename_suffix=suffix)
        for step, _i, tag, value in points:
            fw.add_summary(Summary(value=[Summary.Value(tag=tag, simple_value=value)]), step,
                           walltime=1_700_000_000.0 + step)
        fw.close()
        return logdir
    if writer != "tensorboardX":
        raise ValueError(f"unknown writer {writer!r}: torch output comes from tests/fixtures/torch")
    from tensorboardX import SummaryWriter

    w = SummaryWriter(str(logdir), flush_secs=3600, filename_suffix=suffix)
    for step, _i, tag, value in points:
        w.add_scalar(tag, value, step, walltime=1_700_000_000.0 + step)
    w.close()
    return logdir


def event_file(folder) -> Path:
    files = sorted(Path(folder).glob("events.out.tfevents.*"))
    assert len(files) == 1, files
    return files[0]


def wait_until_complete(path, limit_s: float = 60.0) -> None:
    """wandb's service may still be writing after finish(): wait for the run's exit record."""
    import time

    from wandb.proto import wandb_internal_pb2

    from curriwatch.readers.leveldb_log import LogReport, iter_log_records

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        data = Path(path).read_bytes()
        for _offset, payload in iter_log_records(data, LogReport()):
            try:
                if wandb_internal_pb2.Record.FromString(payload).HasField("exit"):
                    return
            except Exception:
                pass
        time.sleep(0.05)
    raise AssertionError(f"wandb did not finish writing {path}")


def write_wandb(dest_folder, rows: list[dict], *, steps: list[int] | None = None, run_id: str = "testrun",
                group: str | None = None, name: str | None = None,
                define_metrics: tuple = (), stamp: str = "20260101_000000") -> Path:
    """Log `rows` with wandb in offline mode (optionally with step=), copy the run's `.wandb` file to
    `dest_folder/offline-run-20260101_000000-{run_id}/` and return the file's path."""
    import wandb

    with tempfile.TemporaryDirectory() as tmp:
        run = wandb.init(project="curriwatch-tests", id=run_id, mode="offline", dir=tmp, group=group, name=name,
                         settings=wandb.Settings(x_disable_stats=True, console="off"))
        for glob, step_metric in define_metrics:
            run.define_metric(glob, step_metric=step_metric)
        for i, row in enumerate(rows):
            if steps is None:
                run.log(row)
            else:
                run.log(row, step=steps[i])
        run.finish()
        # finish() can return while wandb's service process still writes the file: teardown ends that
        # process, and the copy waits for the run's exit record, so it never takes a half-written file
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{run_id}/run-{run_id}.wandb"))
        wait_until_complete(src)
        dest = Path(dest_folder) / f"offline-run-{stamp}-{run_id}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    return dest


TORCH_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "torch"


def torch_fixture(name: str, dest) -> Path:
    """Copy the committed run(s) torch's SummaryWriter wrote (tests/fixtures/torch/generate.py) to
    `dest` and return it: tests read torch's output without importing torch."""
    dest = Path(dest)
    shutil.copytree(TORCH_FIXTURES / name, dest, dirs_exist_ok=True)
    return dest


class _Trial:
    """The attributes of ray.tune's Trial that its logger callbacks use (local_path, config, checkpoint)."""

    def __init__(self, path, config):
        self.local_path = str(path)
        self.config = config
        self.checkpoint = None

    def init_local_path(self):
        os.makedirs(self.local_path, exist_ok=True)


def write_tune_trial(folder, results: list[dict], config: dict) -> Path:
    """A Ray Tune trial folder written by Ray's own JsonLoggerCallback and CSVLoggerCallback.

    Without ray installed, the same calls are reproduced: json.dump(result) + "\\n" per result
    (ray/tune/logger/json.py:52-53, params.json at :68-75) and a csv.DictWriter whose header is the
    first flattened result's keys (ray/tune/logger/csv.py:59-68).
    """
    folder = Path(folder)
    trial = _Trial(folder, config)
    try:
        from ray.tune.logger import CSVLoggerCallback, JsonLoggerCallback
    except Exception:  # ray is not part of the test extra
        return _write_tune_like_ray(folder, results, config)
    trial.init_local_path()  # Tune makes the trial folder before the callbacks run
    callbacks = [JsonLoggerCallback(), CSVLoggerCallback()]
    for cb in callbacks:
        cb.log_trial_start(trial)
    for i, result in enumerate(results):
        for cb in callbacks:
            cb.log_trial_result(i, trial, dict(result, config=config))
    for cb in callbacks:
        cb.log_trial_end(trial)
    return folder


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}/"))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _write_tune_like_ray(folder: Path, results, config) -> Path:
    import csv
    import json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "params.json").write_text(json.dumps(config, indent=2, sort_keys=True))
    with open(folder / "result.json", "at") as jf, open(folder / "progress.csv", "at") as cf:
        writer = None
        for result in results:
            json.dump(dict(result, config=config), jf)
            jf.write("\n")
            flat = _flatten(result)
            if writer is None:
                writer = csv.DictWriter(cf, flat.keys())
                writer.writeheader()
            writer.writerow({k: v for k, v in flat.items() if k in writer.fieldnames})
    return folder


class DcdFileWriter:
    """facebookresearch/dcd's FileWriter.log reproduced call for call (util/filewriter.py:161-228):
    fieldnames grow as keys appear, each growth is a row of fields.csv, `# fields` is written once at
    tick 0, rows go through a csv.DictWriter sharing the growing fieldnames list."""

    def __init__(self, basepath):
        import csv

        self.basepath = Path(basepath)
        self.basepath.mkdir(parents=True, exist_ok=True)
        self._tick = 0
        self.fieldnames = ["_tick", "_time"]
        self._fieldfile = open(self.basepath / "fields.csv", "a")
        self._fieldwriter = csv.writer(self._fieldfile)
        self._logfile = open(self.basepath / "logs.csv", "a")
        self._logwriter = csv.DictWriter(self._logfile, fieldnames=self.fieldnames)

    def log(self, to_log: dict, wall: float) -> None:
        to_log["_tick"] = self._tick
        self._tick += 1
        to_log["_time"] = wall
        old_len = len(self.fieldnames)
        for k in to_log:
            if k not in self.fieldnames:
                self.fieldnames.append(k)
        if old_len != len(self.fieldnames):
            self._fieldwriter.writerow(self.fieldnames)
        if to_log["_tick"] == 0:
            self._logfile.write("# %s\n" % ",".join(self.fieldnames))
        self._logwriter.writerow(to_log)
        self._logfile.flush()

    def close(self) -> None:
        for f in (self._logfile, self._fieldfile):
            f.close()


def write_roll_stdout(path, rows: list[tuple[int | None, dict]], *, noise: bool = True) -> Path:
    """A saved ROLL log: ROLL's logger format (roll/utils/logging.py:58-63) around StdoutTracker's
    `logger.info(f"metrics_tag: {json.dumps({'step': step, 'metrics': values})}")`
    (roll/utils/tracking.py:161), with ordinary log lines in between."""
    import json
    import logging

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    log = logging.getLogger(f"log_rank_DRIVER_0_1.{path}")
    log.propagate = False
    log.setLevel(logging.INFO)
    handler = logging.FileHandler(path, mode="w")
    handler.setFormatter(logging.Formatter(
        fmt="[%(asctime)s] [%(filename)s (%(lineno)d)] [%(levelname)s] [DRIVER 0 / 1][PID 4242] %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S"))
    log.addHandler(handler)
    try:
        for step, values in rows:
            if noise:
                log.info("pipeline step %s: generate done", step)
            log.info(f"metrics_tag: {json.dumps({'step': step, 'metrics': values})}")
    finally:
        handler.close()
        log.removeHandler(handler)
    return path


SWANLAB_SCRIPT = """
import sys, swanlab
logdir, n = sys.argv[1], int(sys.argv[2])
swanlab.init(project="curriwatch", experiment_name="t", mode="offline", logdir=logdir)
for s in range(n):
    swanlab.log({"train/maze/success": s / n, "eval/maze/success": float("nan") if s == 2 else 1 - s / n,
                 "curriculum/maze/state": 1 if s < n // 2 else 2}, step=10 * s)
swanlab.finish()
"""


SWANLAB_REPEATS = """
import sys, swanlab
logdir = sys.argv[1]
swanlab.init(project="curriwatch", experiment_name="r", mode="offline", logdir=logdir)
for step, value in [(1, 0.125), (1, 0.375), (2, 0.5), (1, 0.75), (3, 0.875)]:
    swanlab.log({"train/maze/success": value}, step=step)
swanlab.finish()
"""


def write_swanlab(logdir, n: int, script: str = SWANLAB_SCRIPT) -> Path:
    """A SwanLab offline run written by swanlab itself, in a child process (its init installs
    global hooks); returns the `.swanlab` file."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", script, str(logdir), str(n)], check=True,
                   capture_output=True, timeout=600, cwd=str(logdir.parent if hasattr(logdir, "parent") else logdir),
                   env={**os.environ, "SWANLAB_MODE": "offline"})
    (path,) = Path(logdir).glob("run-*/run-*.swanlab")
    return path


class MLAgentsStats:
    """Unity ML-Agents' stats path, call for call: StatsReporter feeding TensorboardWriter.

    ML-Agents cannot be installed here (it pulls torch), so its calls are reproduced from its
    source, mlagents 0.28.0 (the PyPI wheel; the same code on GitHub main), with tensorboardX's
    FileWriter and protos in place of torch's SummaryWriter:

    * folder: TensorboardWriter(checkpoint_settings.write_path, clear_past_data=not resume,
      hidden_keys=["Is Training", "Step"]) (plugins/stats_writer.py:31-35), write_path =
      {results_dir}/{run_id} (settings.py:777-779); one SummaryWriter per category in
      {base_dir}/{category} (stats.py:251-259), the category being the behavior name
      (trainer/trainer.py:42, StatsReporter(brain_name)).
    * add_stat appends, set_stat replaces and marks MOST_RECENT (stats.py:324-359); write_stats
      hands every key with values to the writers and clears the category (stats.py:361-377).
    * TensorboardWriter.write_stats: add_scalar(key, aggregated_value, step) per key — the sum for
      SUM, else the mean — then add_histogram(f"{key}_hist", full_dist, step) for HISTOGRAM
      aggregation, flushing after each key (stats.py:235-249). torch's scalar()/histogram() keep
      the tag as given (tensorboardX's would turn spaces into `_`), so the Summary is built here as
      torch builds it: Summary.Value(tag, simple_value) and Summary.Value(tag, histo) with the
      "tensorflow" default bins (torch/utils/tensorboard/writer.py, SummaryWriter.__init__).
    * hyperparameters: add_text("Hyperparameters", _dict_to_str(config, 0)) (stats.py:277-286,
      called from trainer/rl_trainer.py:53-55).
    Wall times are given explicitly (ML-Agents lets the writer stamp time.time()) so files repeat.
    """

    HIDDEN_KEYS = ("Is Training", "Step")

    def __init__(self, results_dir, run_id: str, wall0: float = 1_700_000_000.0):
        self.base_dir = Path(results_dir) / run_id
        self.wall0 = wall0
        self.writers: dict = {}
        self.stats: dict = {}  # category -> key -> list of values
        self.aggregation: dict = {}  # category -> key -> "average" | "most_recent" | "sum" | "histogram"
        v, pos = 1e-12, []
        while v < 1e20:
            pos.append(v)
            v *= 1.1
        self.default_bins = [-x for x in reversed(pos)] + [0] + pos

    def _writer(self, category: str):
        from tensorboardX import FileWriter

        if category not in self.writers:
            folder = self.base_dir / category
            folder.mkdir(parents=True, exist_ok=True)
            self.writers[category] = FileWriter(str(folder))
        return self.writers[category]

    def add_stat(self, category: str, key: str, value: float, aggregation: str = "average") -> None:
        self.stats.setdefault(category, {}).setdefault(key, []).append(value)
        self.aggregation.setdefault(category, {})[key] = aggregation

    def set_stat(self, category: str, key: str, value: float) -> None:
        self.stats.setdefault(category, {})[key] = [value]
        self.aggregation.setdefault(category, {})[key] = "most_recent"

    def add_hyperparameters(self, category: str, config: dict) -> None:
        from tensorboardX.summary import text

        lines = "\n".join(f"\t{k}:\t{v}" for k, v in config.items())  # _dict_to_str(value, 0), one level
        w = self._writer(category)
        w.add_summary(text("Hyperparameters", lines), None, self.wall0)
        w.flush()

    def write_stats(self, category: str, step: int) -> None:
        import numpy as np
        from tensorboardX.proto.summary_pb2 import Summary
        from tensorboardX.summary import make_histogram

        values = {k: v for k, v in self.stats.pop(category, {}).items() if v}
        if not values:
            return
        w = self._writer(category)
        wall = self.wall0 + step / 100.0
        for key, dist in values.items():
            if key in self.HIDDEN_KEYS:
                continue
            how = self.aggregation[category][key]
            value = float(np.sum(dist)) if how == "sum" else float(np.mean(dist))
            w.add_summary(Summary(value=[Summary.Value(tag=key, simple_value=value)]), step, wall)
            if how == "histogram":
                hist = make_histogram(np.asarray(dist, dtype=float), self.default_bins)
                w.add_summary(Summary(value=[Summary.Value(tag=f"{key}_hist", histo=hist)]), step, wall)
            w.flush()

    def close(self) -> None:
        for w in self.writers.values():
            w.close()


class MLAgentsRun:
    """What an ML-Agents trainer and TrainerController log for one behavior, in their order.

    Per finished episode: Environment/Cumulative Reward with HISTOGRAM aggregation
    (trainer/rl_trainer.py:73-78) and Environment/Episode Length (agent_processor.py:292-296).
    Per advance of the controller: set_stat(f"Environment/Lesson Number/{param}", lesson) for every
    parameter and every trainer (trainer_controller.py:238-246). Per PPO update: the optimizer's
    stats, averaged (ppo/trainer.py:208-209). At every summary_freq steps: add_stat("Is Training")
    then write_stats(step) (trainer/rl_trainer.py:223-228, 240-249).
    """

    def __init__(self, results_dir, run_id: str, behaviors: tuple[str, ...], config: dict | None = None):
        self.stats = MLAgentsStats(results_dir, run_id)
        self.behaviors = behaviors
        for b in behaviors:
            self.stats.add_hyperparameters(b, config or {"trainer_type": "ppo", "summary_freq": 10000})

    def summary(self, step: int, lessons: dict[str, int], episodes: dict[str, list[float]] | None = None,
                losses: dict[str, float] | None = None) -> None:
        """One summary period ending at `step`: the episodes each behavior finished (their returns),
        the lesson of every parameter at the controller's last advance, one PPO update."""
        for b in self.behaviors:
            for ret in (episodes or {}).get(b, []):
                self.stats.add_stat(b, "Environment/Cumulative Reward", ret, "histogram")
                self.stats.add_stat(b, "Environment/Episode Length", 100.0 + 50.0 * (1.0 - min(max(ret, 0.0), 1.0)))
            for param, lesson in lessons.items():
                self.stats.set_stat(b, f"Environment/Lesson Number/{param}", lesson)
            for key, value in (losses or {"Losses/Value Loss": 0.1, "Policy/Entropy": 1.0}).items():
                self.stats.add_stat(b, key, value)
            self.stats.add_stat(b, "Is Training", 1.0)
            self.stats.write_stats(b, step)

    def close(self) -> None:
        self.stats.close()


class TinkerJsonLogger:
    """tinker-cookbook's JsonLogger.log_metrics, call for call (tinker-cookbook requires torch, so it
    is not installed): TrainingRunStore.write_metrics builds `{"step": step}` updated with the
    metrics (tinker_cookbook/stores/training_store.py:264-272) and appends `json.dumps(record) +
    "\\n"` (:256-257) through LocalStorage.append, `open(path, "ab")` (stores/storage.py:247-252),
    to `{log_path}/metrics.jsonl`. A resumed run opens the same file again and appends."""

    def __init__(self, log_dir):
        self.path = Path(log_dir) / "metrics.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def log_metrics(self, metrics: dict, step: int | None = None) -> None:
        import json

        record = {"step": step} if step is not None else {}
        record.update(metrics)
        with open(self.path, "ab") as f:
            f.write((json.dumps(record) + "\n").encode("utf-8"))


class MtrlLogger:
    """facebookresearch/mtrl's Logger and MetersGroup, call for call (mtrl needs torch and hydra, so it is not
    installed; mtrl@e282c3f5 mtrl/logger.py): one `{log_dir}/{mode}.log` per mode, removed first unless
    `retain_logs` (:67-73); `log("eval/key", value, step, n)` strips the mode (:195-200) into an average meter
    (:18-32, :75-84); `dump(step)` writes each group's averages plus `mode`, `step` and `logbook_timestamp` as one
    JSON line (:86-98, :120-126, :202-204) and clears its meters; a group with no meters writes nothing."""

    def __init__(self, log_dir, modes=("train", "eval"), retain_logs: bool = False):
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.meters = {mode: {} for mode in modes}
        for mode in modes:
            path = self.log_dir / f"{mode}.log"
            if not retain_logs and path.exists():
                path.unlink()

    def log(self, key: str, value: float, step: int, n: int = 1) -> None:
        mode, key = key.split("/", 1)
        total, count = self.meters[mode].get(key, (0.0, 0))
        self.meters[mode][key] = (total + value * n, count + n)

    def dump(self, step: int) -> None:
        import json
        import time

        for mode, meters in self.meters.items():
            if not meters:
                continue
            data = {key: total / max(count, 1) for key, (total, count) in meters.items()}
            data["mode"] = mode
            data["step"] = step
            data["logbook_timestamp"] = time.strftime("%I:%M:%S%p %Z %b %d, %Y")
            with open(self.log_dir / f"{mode}.log", "a") as f:
                f.write(json.dumps(data) + "\n")
            meters.clear()


class PrimeRlFileMonitor:
    """prime-rl's FileMonitor.log_metrics, call for call (PrimeIntellect-ai/prime-rl@559b4477
    src/prime_rl/monitors/file.py:28-40): `{"step": step, "time": time.time(), **metrics}` as one JSON line,
    appended to `{output_dir}/metrics.jsonl`. The orchestrator's metrics carry their own `"step":
    float(batch.step)` (src/prime_rl/orchestrator/orchestrator.py:937), which the spread overrides the int with."""

    def __init__(self, output_dir):
        self.path = Path(output_dir) / "metrics.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def log_metrics(self, metrics: dict, step: int) -> None:
        import json

        row = {"step": step, "time": 1.7e9 + step, **metrics}
        with open(self.path, "a", buffering=1) as f:
            f.write(json.dumps(row) + "\n")


def tinker_trajectory_metrics(groups: list[list[dict]], taglists: list[list[str]]) -> dict:
    """tinker-cookbook's compute_trajectory_metrics (tinker_cookbook/rl/metric_util.py:60-138) for
    trajectory groups whose trajectories have one transition each, given as
    {"reward", "ac_tokens", "ob_tokens", "metrics"} (final group rewards 0, no group metrics)."""
    import numpy as np

    def by_group(gs):  # _compute_by_group_metrics, :35-57 (good_thresh 0.5)
        if not gs:
            return {"by_group/frac_mixed": 0.0, "by_group/frac_all_good": 0.0, "by_group/frac_all_bad": 0.0}
        mixed = good = bad = 0
        for g in gs:
            rewards = [t["reward"] for t in g]
            if all(r == rewards[0] for r in rewards):
                good, bad = (good + 1, bad) if rewards[0] >= 0.5 else (good, bad + 1)
            else:
                mixed += 1
        return {"by_group/frac_mixed": mixed / len(gs), "by_group/frac_all_good": good / len(gs),
                "by_group/frac_all_bad": bad / len(gs)}

    def trajectory_metrics(gs):  # _compute_trajectory_metrics, :99-138
        trajs = [t for g in gs for t in g]
        ac = [t["ac_tokens"] for t in trajs]
        ob = [t["ob_tokens"] for t in trajs]
        turns, episodes = len(trajs), len(trajs)
        out = {
            "ac_tokens_per_turn": sum(ac) / turns if turns > 0 else 0.0,
            "ob_tokens_per_turn": sum(ob) / turns if turns > 0 else 0.0,
            "turns_per_episode": turns / episodes if episodes > 0 else 0.0,
            "total_episodes": episodes, "total_turns": turns,
            "total_ac_tokens": sum(ac), "total_ob_tokens": sum(ob),
        }
        rewards = [t["reward"] for t in trajs]
        out["reward/total"] = np.mean(rewards).item() if rewards else 0.0
        values: dict = {}  # dict_mean over the transitions' metrics (utils/misc_utils.py:57-74)
        for t in trajs:
            for k, v in t["metrics"].items():
                values.setdefault(k, []).append(v)
        out.update({k: float(np.mean(v)) for k, v in values.items()})
        out.update(by_group(gs))
        return out

    tag_groups: dict = {}
    for taglist, group in zip(taglists, groups):
        for tag in taglist:
            tag_groups.setdefault(tag, []).append(group)
    out = {}
    if any(len(gs) < len(groups) for gs in tag_groups.values()):
        for tag, gs in tag_groups.items():
            out.update({f"env/{tag}/{k}": v for k, v in trajectory_metrics(gs).items()})
    out.update({f"env/all/{k}": v for k, v in trajectory_metrics(groups).items()})
    return out


class RlStarterCsvLogger:
    """rl-starter-files' log.csv, written as scripts/train.py writes it (lcswillems/rl-starter-files@317da04):
    `utils.get_csv_logger` opens `{model_dir}/log.csv` in append mode under a `csv.writer`
    (utils/storage.py:66-70); every log interval the header row goes first while the status still says 0
    frames, then the row (scripts/train.py:171-189); every `save_interval` updates the status is saved with
    the frames so far (:193-197), so the header comes before each row up to the first save. `status_frames`
    is the saved status the job started from."""

    HEADER = ["update", "frames", "FPS", "duration", "rreturn_mean", "rreturn_std", "rreturn_min", "rreturn_max",
              "num_frames_mean", "num_frames_std", "num_frames_min", "num_frames_max", "entropy", "value",
              "policy_loss", "value_loss", "grad_norm", "return_mean", "return_std", "return_min", "return_max"]

    def __init__(self, model_dir, status_frames: int = 0, save_interval: int = 10):
        import csv

        Path(model_dir).mkdir(parents=True, exist_ok=True)
        self.file = open(Path(model_dir) / "log.csv", "a")
        self.writer = csv.writer(self.file)
        self.status_frames = status_frames
        self.save_interval = save_interval

    def log(self, update: int, frames: int, return_mean: float) -> None:
        data = [update, frames, 1234.5, update * 3, return_mean, 0.1, 0.0, 1.0, 40.0, 5.0, 20, 64,
                1.9, 0.3, -0.01, 0.02, 0.5, return_mean, 0.1, 0.0, 1.0]
        if self.status_frames == 0:
            self.writer.writerow(self.HEADER)
        self.writer.writerow(data)
        self.file.flush()
        if self.save_interval > 0 and update % self.save_interval == 0:
            self.status_frames = frames

    def close(self) -> None:
        self.file.close()


class BaselinesCsvOutput:
    """OpenAI baselines' CSVOutputFormat (openai/baselines@ea25b9e baselines/logger.py:102-137), reproduced with the
    standard library it uses: `progress.csv` opened 'w+t'; keys first seen in a dump, sorted, extend the header,
    and the file is rewritten with the longer header and earlier rows padded with empty cells."""

    def __init__(self, filename):
        self.file = open(filename, "w+t")
        self.keys: list[str] = []

    def writekvs(self, kvs: dict) -> None:
        extra_keys = sorted(kvs.keys() - set(self.keys))
        if extra_keys:
            self.keys.extend(extra_keys)
            self.file.seek(0)
            lines = self.file.readlines()
            self.file.seek(0)
            self.file.write(",".join(self.keys) + "\n")
            for line in lines[1:]:
                self.file.write(line[:-1] + "," * len(extra_keys) + "\n")
        self.file.write(",".join("" if kvs.get(k) is None else str(kvs.get(k)) for k in self.keys) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class AcmeCsvLogger:
    """Acme's CSVLogger, call for call (dm-acme needs launchpad and TensorFlow or JAX, so it is not installed;
    google-deepmind/acme@770bc75e acme/utils/loggers/csv.py:42-124): `{directory}/{acme_id}/logs/{label}/logs.csv`
    opened in append mode (paths.process_path, acme/utils/paths.py:29-59); the first `write` fixes the header as
    its keys, sorted, written only when the file is empty, and later keys are dropped (`extrasaction='ignore'`).
    tests/fixtures/acme/ holds files Acme itself wrote."""

    def __init__(self, directory, acme_id: str, label: str):
        import csv

        folder = Path(directory) / acme_id / "logs" / label
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "logs.csv"
        self.file = open(self.path, "a", newline="")
        self.csv = csv
        self.writer = None

    def write(self, data: dict) -> None:
        if self.writer is None:
            self.writer = self.csv.DictWriter(self.file, fieldnames=sorted(data), extrasaction="ignore")
            if not self.file.tell():
                self.writer.writeheader()
        self.writer.writerow(data)
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class AcmeCounters:
    """run_experiment's counters (acme/jax/experiments/run_experiment.py:81, :109-110, :152-153; acme/utils/
    counting.py): one parent, children prefixed `actor` and `evaluator` with time_delta 0, so each child's counts
    hold every count of the parent as it is after the increment."""

    def __init__(self):
        self.counts: dict[str, int] = {}

    def increment(self, prefix: str, **counts: int) -> dict[str, int]:
        for key, value in counts.items():
            name = f"{prefix}_{key}" if prefix else key
            self.counts[name] = self.counts.get(name, 0) + value
        return dict(self.counts)


class AgileRLCsvLogger:
    """AgileRL's CSVLogger (AgileRL/AgileRL@549d85e agilerl/logger.py:170-207): the first report opens the file with
    "w" and a `csv.DictWriter` whose fieldnames are that report's keys, writes the header, then one row a report,
    flushed. The report is Population's MetricsReport.to_dict (agilerl/population.py:141-197): `train/global_step` (the
    agents' steps summed), `train/steps_per_second`, `eval/mean_fitness`, `eval/best_fitness`, `train/mean_score`,
    per-agent `train/agent_{i}/local_steps`, `eval/agent_{i}/fitness`, `train/agent_{i}/score`. The docs' example
    names the file `training_metrics.csv` (docs/metrics_and_logging/index.rst:168-172)."""

    def __init__(self, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = Path(path)
        self.file = None
        self.writer = None

    def write(self, global_step: int, mean_fitness: float, mean_score: float, agents: int = 2) -> None:
        import csv

        data = {"train/global_step": global_step, "train/steps_per_second": 2500.0, "eval/mean_fitness": mean_fitness,
                "eval/best_fitness": mean_fitness + 10.0, "train/mean_score": mean_score}
        for i in range(agents):
            data[f"train/agent_{i}/local_steps"] = global_step // agents
        for i in range(agents):
            data[f"eval/agent_{i}/fitness"] = mean_fitness + i
        for i in range(agents):
            data[f"train/agent_{i}/score"] = mean_score - i
        if self.writer is None:
            self.file = self.path.open("w", newline="")
            self.writer = csv.DictWriter(self.file, fieldnames=list(data.keys()))
            self.writer.writeheader()
        self.writer.writerow(data)
        self.file.flush()

    def close(self) -> None:
        self.file.close()
