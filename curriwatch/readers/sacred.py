"""sacred's FileStorageObserver run folders: `{basedir}/{_id}/` with `run.json`, `config.json`, `metrics.json`,
`info.json` — what PyMARL and EPyMARL leave by default.

sacred (IDSIA/sacred 0.8.7 sacred/observers/file_storage.py) writes `run.json` (the experiment, status,
heartbeat), `config.json`, `cout.txt`, and on every heartbeat rewrites `metrics.json` whole:
`{name: {"steps": [...], "values": [...], "timestamps": [ISO 8601, ...]}}` from `_run.log_scalar(name, value,
step)`, and `info.json` from `_run.info`. EPyMARL's Logger (uoe-agents/epymarl@cbc38c09 src/utils/logging.py:
85-110) logs each stat both ways — `_run.log_scalar(key, value, t_env)` and `_run.info[key]`,
`_run.info[f"{key}_T"]` — into `results/sacred/{alg}/{map}/{_id}` (src/main.py:124-131); TensorBoard and W&B
are off unless asked (src/config/default.yaml:22-23). `metrics.json` is read; a run without it, the `{key}` /
`{key}_T` lists of `info.json`. The env a `{run}` pattern stands for is the config's `env_args.map_name` (SMAC)
or `env_args.key` (gymma), else its `env`.

A run whose config says `use_tensorboard: true` wrote the same stats to TensorBoard, into `tb_logs/` beside the
`sacred/` folder (src/run.py:48-56): where that folder exists, the TensorBoard copy is the run and this one is
not read again.
"""
from __future__ import annotations

import json
import math
import os
from datetime import datetime

from ..model import DataIssue, RawRun, RunSource
from .lines import open_regular
from .rows import RowSink, shown_path, whole_step

MARKERS = ("run.json", "config.json")
METRICS, INFO = "metrics.json", "info.json"
MAX_BYTES = 64 << 20  # a JSON file parsed whole (a long PyMARL run writes a few MB); larger is a data issue


def _json(path: str, limit: int | None = None):
    limit = MAX_BYTES if limit is None else limit
    with open_regular(path) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit} bytes")
    return json.loads(data)


def _config(folder: str) -> dict:
    try:
        config = _json(os.path.join(folder, "config.json"), 16 << 20)
    except (OSError, ValueError, RecursionError):
        return {}
    return config if isinstance(config, dict) else {}


def _is_sacred_run(folder: str) -> bool:
    try:
        run = _json(os.path.join(folder, "run.json"), 16 << 20)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(run, dict) and isinstance(run.get("experiment"), dict) and "status" in run


def _tensorboard_copy(folder: str, config: dict) -> bool:
    """EPyMARL/PyMARL with use_tensorboard: its `tb_logs/` beside the `sacred/` folder above this run."""
    if config.get("use_tensorboard") is not True:
        return False
    path = os.path.abspath(folder)
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return False
        if os.path.basename(path) == "sacred":
            return os.path.isdir(os.path.join(parent, "tb_logs"))
        path = parent


def detect_sacred(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    names = set(filenames)
    if not all(m in names for m in MARKERS) or not ({METRICS, INFO} & names) or not _is_sacred_run(folder):
        return []
    if _tensorboard_copy(folder, _config(folder)):
        return []
    return [("", tuple(os.path.join(folder, n) for n in (METRICS, INFO) if n in names))]


def _env_of(config: dict) -> str | None:
    args = config.get("env_args")
    if isinstance(args, dict):
        for key in ("map_name", "key"):
            if isinstance(args.get(key), str) and args[key]:
                return args[key]
    env = config.get("env")
    return env if isinstance(env, str) and env else None


def _wall(stamp) -> float:
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except (TypeError, ValueError):
        return math.nan


def _series(data: dict, from_info: bool):
    """(key, steps, values, timestamps) of metrics.json's entries, or of info.json's `{key}` / `{key}_T` lists."""
    for key, entry in data.items():
        if from_info:
            steps = data.get(f"{key}_T")
            if key.endswith("_T") or not isinstance(entry, list) or not isinstance(steps, list):
                continue
            yield key, steps, entry, None
        elif isinstance(entry, dict):
            yield key, entry.get("steps"), entry.get("values"), entry.get("timestamps")


def read_sacred(source: RunSource) -> RawRun:
    raw = RawRun(source)
    env = _env_of(_config(source.path))
    if env:
        raw.env_hint = env
    path = next((p for p in source.files if os.path.basename(p) == METRICS), source.files[0])
    shown = shown_path(source, path)
    try:
        data = _json(path)
    except OSError as err:
        raw.issues.append(DataIssue("unreadable_file", shown, f"cannot open file: {err.strerror or err}"))
        return raw
    except (ValueError, RecursionError) as err:
        raw.issues.append(DataIssue("corrupt_record", shown, f"not a JSON object sacred wrote ({err}); nothing read"))
        return raw
    if not isinstance(data, dict):
        raw.issues.append(DataIssue("corrupt_record", shown, "not a JSON object; nothing read"))
        return raw
    bad: list[str] = []
    for key, steps, values, stamps in _series(data, os.path.basename(path) == INFO):
        if not isinstance(steps, list) or not isinstance(values, list) or len(steps) != len(values):
            bad.append(key)
            continue
        sink = RowSink(raw)
        stamps = stamps if isinstance(stamps, list) and len(stamps) == len(steps) else [None] * len(steps)
        for step, value, stamp in zip(steps, values, stamps):
            step = whole_step(step)
            if step is None:
                bad.append(key)
                continue
            sink.add({key: value}, step, _wall(stamp))
        sink.close()
    if bad:
        raw.issues.append(DataIssue("corrupt_record", shown, (
            f"{len(bad)} entr(ies) without matching steps and values, or with steps that are not whole numbers, "
            f"were skipped (first: {bad[0]})")))
    return raw
