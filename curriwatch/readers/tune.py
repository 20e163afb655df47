"""Ray Tune trial folders: `result.json` (one nested JSON object per line) or `progress.csv`.

Ray's JsonLoggerCallback writes `json.dump(result)` + "\\n" per result (ray/tune/logger/json.py:52-53);
CSVLoggerCallback flattens each result with `/` and fixes the header by the first row
(ray/tune/logger/csv.py:59-68), so keys added later only exist in result.json: result.json is
read when present, progress.csv otherwise. Step = `timesteps_total`, else `training_iteration`.
Tune's own bookkeeping keys (AUTO_RESULT_KEYS, ray/tune/result.py:89-107, and the trial fields it
adds: done, trial_id, experiment_tag, ...) are not metrics and are not kept as points; `timestamp`
becomes the wall time.
"""
from __future__ import annotations

import json
import os

from ..model import DataIssue, RawRun, RunSource
from .files import unreadable
from .lines import LineReport, iter_json_objects, open_regular
from .rows import LOGGER_STEP_KEYS, RowSink, csv_header, flatten, read_csv_rows, shown_path, text_files

STEP_KEYS = ("timesteps_total", "training_iteration")
# Trainable.restore sets _iterations_since_restore = 0 and train() counts it up again (ray/tune/
# trainable/trainable.py): a restored trial appends to result.json, and this counter not rising
# marks its restart even where it re-logs no step.
RESTART_KEY = "iterations_since_restore"
RESULT_FILE, PROGRESS_FILE, PARAMS_FILE = "result.json", "progress.csv", "params.json"
MAX_PARAMS = 4 * 1024 * 1024
# columns every Tune result has (AUTO_RESULT_KEYS, ray/tune/result.py:89-107): a progress.csv without any is no trial's
TUNE_COLUMNS = frozenset(("training_iteration", "time_this_iter_s", "time_total_s", "timesteps_total", "done",
                          "trial_id", "timestamp", "iterations_since_restore"))
BOOKKEEPING = frozenset((
    "time_total_s", "episodes_total", "node_ip", "hostname", "pid", "time_this_iter_s", "timestamp",
    "date", "time_since_restore", "timesteps_since_restore", "iterations_since_restore",
    "checkpoint_dir_name", "done", "trial_id", "experiment_tag", "should_checkpoint", "experiment_id",
    "num_healthy_workers", "num_in_flight_async_reqs", "num_remote_worker_restarts",
))


def detect_tune(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A trial folder: result.json or progress.csv next to params.json (or both result files)."""
    names = set(filenames)
    has_result, has_progress = RESULT_FILE in names, PROGRESS_FILE in names
    if not (has_result or has_progress) or not (PARAMS_FILE in names or (has_result and has_progress)):
        return []
    data = RESULT_FILE if has_result else PROGRESS_FILE
    if not has_result:
        header = set(csv_header(os.path.join(folder, PROGRESS_FILE)))
        if not TUNE_COLUMNS.intersection(header) and header.intersection(LOGGER_STEP_KEYS):
            return []  # another logger's progress.csv beside a params.json of its own (OpenAI baselines' HER): a
            # damaged header that names no step at all stays Tune's, its rows reported there
    files = [os.path.join(folder, data)]
    if PARAMS_FILE in names:
        files.append(os.path.join(folder, PARAMS_FILE))
    return [("", tuple(files))]


def read_tune(source: RunSource) -> RawRun:
    raw = RawRun(source)
    data = [f for f in source.files if not f.endswith(PARAMS_FILE)]
    params = [f for f in source.files if f.endswith(PARAMS_FILE)]
    if params:
        raw.env_hint = env_from_params(raw, source, params[0])
    rows = lambda: RowSink(raw, STEP_KEYS, wall_key="timestamp", skip=BOOKKEEPING, restart_key=RESTART_KEY)  # noqa: E731
    for path, f, sink, report in text_files(raw, data, rows, what="row"):
        if path.endswith(".csv"):
            read_csv_rows(f, sink, report)
        else:
            _read_jsonl(f, sink, report)
    return raw


def _read_jsonl(f, sink: RowSink, report: LineReport) -> None:
    for _lineno, obj in iter_json_objects(f, report):
        obj.pop("config", None)  # the trial's config, not a result (params.json holds it)
        sink.add(flatten(obj))


def env_from_params(raw: RawRun, source: RunSource, path: str) -> str | None:
    """The trial's `env` from params.json (a string, or a dict/class name) if it has one."""
    shown = shown_path(source, path)
    try:
        with open_regular(path) as f:
            text = f.read(MAX_PARAMS + 1)
    except OSError as err:
        raw.issues.append(unreadable(shown, err))
        return None
    if len(text) > MAX_PARAMS:
        raw.issues.append(DataIssue("unreadable_file", shown, "params.json is over 4 MiB; its env was not read"))
        return None
    try:
        params = json.loads(text.decode("utf-8"))
    except (ValueError, RecursionError):
        raw.issues.append(DataIssue("corrupt_record", shown, "params.json is not valid JSON; env id taken from the folder name"))
        return None
    env = params.get("env") if isinstance(params, dict) else None
    if env is None and isinstance(params, dict) and isinstance(params.get("environment"), dict):
        env = params["environment"].get("env")
    if isinstance(env, str) and env.strip():
        return env.strip()
    return None
