"""Registry of the log sources found by file layout beyond TensorBoard and W&B.

Each kind has a detection function `(folder, filenames) -> [(name, files)]` (name "" = the folder
is the run, else a file name inside it that is its own run) and a reader `RunSource -> RawRun`.
`exclusive` kinds own their folder: TensorBoard files next to them (Ray Tune writes both) are the
same data and are not read again; nor are W&B or TensorBoard runs in a kind's `shadows` subfolders
(tinker-cookbook's `wandb/` beside its metrics.jsonl).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from .model import RawRun, RunSource


@dataclass(frozen=True)
class SourceKind:
    name: str
    detect: Callable[[str, list[str]], list[tuple[str, tuple[str, ...]]]]
    read: Callable[[RunSource], RawRun]
    exclusive: bool = False
    description: str = ""
    shadows: tuple[str, ...] = ()
    step_keys: bool = False  # its detection also takes the user profiles' step keys (see detect_sources)
    fallback: bool = False  # detected only in a folder where no other kind found a run


def _lazy(module: str, func: str) -> Callable:
    def call(*args):
        from importlib import import_module

        return getattr(import_module(f"curriwatch.readers.{module}"), func)(*args)

    call.__name__ = func
    return call


SOURCE_KINDS: dict[str, SourceKind] = {
    k.name: k
    for k in (
        SourceKind("tune", _lazy("tune", "detect_tune"), _lazy("tune", "read_tune"), exclusive=True,
                   description="Ray Tune trial folder: result.json (else progress.csv) + params.json"),
        SourceKind("dcd", _lazy("dcd", "detect_dcd"), _lazy("dcd", "read_dcd"),
                   description="facebookresearch/dcd FileWriter folder: logs.csv + fields.csv"),
        SourceKind("swanlab", _lazy("swanlab", "detect_swanlab"), _lazy("swanlab", "read_swanlab"),
                   description="SwanLab offline run: swanlog/run-*/run-*.swanlab"),
        SourceKind("tinker", _lazy("tinker", "detect_tinker"), _lazy("tinker", "read_tinker"),
                   description="metrics.jsonl of {\"step\": N, ...} lines: a tinker-cookbook log_path, prime-rl's "
                   "output_dir, a DreamerV3 logdir", shadows=("wandb",)),
        SourceKind("mtrl", _lazy("mtrl", "detect_mtrl"), _lazy("mtrl", "read_mtrl"),
                   description="facebookresearch/mtrl save_dir: train.log / eval.log JSON lines with mode and step"),
        SourceKind("acme", _lazy("acme", "detect_acme"), _lazy("acme", "read_acme"),
                   description="DeepMind Acme run folder: logs/{label}/logs.csv (CSVLogger) per logger label"),
        SourceKind("mlflow", _lazy("mlflow", "detect_mlflow"), _lazy("mlflow", "read_mlflow"),
                   description="MLflow: a file store run folder (meta.yaml + metrics/) or the runs of a SQLite "
                   "store (mlflow.db)"),
        SourceKind("sacred", _lazy("sacred", "detect_sacred"), _lazy("sacred", "read_sacred"),
                   description="sacred FileStorageObserver run folder (PyMARL / EPyMARL by default): metrics.json, "
                   "else info.json, beside run.json and config.json"),
        SourceKind("torchrl-csv", _lazy("torchrl_csv", "detect_torchrl_csv"), _lazy("torchrl_csv", "read_torchrl_csv"),
                   description="TorchRL CSVLogger experiment folder (BenchMARL's csv logger): scalars/{key}.csv of "
                   "step,value lines"),
        SourceKind("d3rlpy", _lazy("d3rlpy", "detect_d3rlpy"), _lazy("d3rlpy", "read_d3rlpy"),
                   description="d3rlpy FileAdapter experiment folder: params.json + {metric}.csv of epoch,step,value "
                   "lines"),
        SourceKind("sb3-monitor", _lazy("sb3_monitor", "detect_sb3_monitor"), _lazy("sb3_monitor", "read_sb3_monitor"),
                   description="Stable-Baselines3 Monitor files (*monitor.csv) and EvalCallback's evaluations.npz in "
                   "one folder (RL Zoo's logs/{algo}/{env}_{n}/)"),
        SourceKind("csvlog", _lazy("csvlog", "detect_csvlog"), _lazy("csvlog", "read_csvlog"),
                   description="a training logger's CSV without a TensorBoard copy: SB3/baselines `progress.csv`, "
                   "rl-starter-files `log.csv`, Lightning `metrics.csv`", step_keys=True),
        SourceKind("roll-stdout", _lazy("roll_stdout", "detect_roll_stdout"),
                   _lazy("roll_stdout", "read_roll_stdout"),
                   description="ROLL stdout tracker log: *.log with `metrics_tag: {...}` lines"),
        SourceKind("user-csv", _lazy("csvlog", "detect_user_csv"), _lazy("csvlog", "read_csvlog"),
                   description="any other CSV whose header names a user profile's `step_key`, in a folder no other "
                   "kind reads (AgileRL's `training_metrics.csv`)", step_keys=True, fallback=True),
    )
}


def detect_sources(folder: str, filenames: list[str], step_keys: tuple[str, ...] = ()
                   ) -> tuple[list[tuple[str, str, tuple[str, ...]]], bool]:
    """Runs of the registered kinds in one folder as (kind, path, files), and whether one is exclusive.
    `step_keys`: the user profiles' step keys — a user who names the column their log steps by names a log of theirs
    (a CSV file of any name whose header holds it)."""
    found, exclusive = [], False
    for kind in SOURCE_KINDS.values():
        if kind.fallback and found:
            continue
        detected = kind.detect(folder, filenames, step_keys) if kind.step_keys else kind.detect(folder, filenames)
        for name, files in detected:
            found.append((kind.name, os.path.join(folder, name) if name else folder, files))
            exclusive |= kind.exclusive
    return found, exclusive
