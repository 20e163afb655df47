"""Stable-Baselines3's Monitor files and EvalCallback's `evaluations.npz`: RL Zoo's log folder without TensorBoard.

DLR-RM/stable-baselines3@e05d2db stable_baselines3/common/monitor.py:33-113, :164-205: each Monitor-wrapped env writes
`{monitor_dir}/{rank}.monitor.csv` — a first line `#{"t_start": ..., "env_id": ...}`, a CSV header `r,l,t` (plus
any `info_keywords`, e.g. `is_success`) and a row per finished episode: its return, its length and the seconds since
t_start. SB3's own reading (monitor.py:235-271 load_results, common/results_plotter.py:62-84 ts2xy) joins a folder's
files, orders the episodes by wall time and takes the timesteps as the running sum of their lengths: so do we (each
file's own order kept).
common/callbacks.py:476-495: EvalCallback(log_path=...) rewrites `evaluations.npz` after each evaluation with
`timesteps` (num_timesteps at each), `results` and `ep_lengths` (one row of n_eval_episodes a evaluation) and
`successes` where the env reports is_success; each episode is one point at its evaluation's timesteps. RL Zoo logs a
run to `logs/{algo}/{env}_{n}/` with both (DLR-RM/rl-baselines3-zoo@22e3ff2 rl_zoo3/exp_manager.py:196-200, :593-600,
:678-708; the eval env writes no monitor file). Read with allow_pickle=False: an object array (ragged evaluations)
is reported, never unpickled. Keys: `monitor/{column}` at the running timesteps, `evaluations/{array}`.
"""
from __future__ import annotations

import csv
import heapq
import json
import math
import os
import zipfile

import numpy as np

from ..model import DataIssue, RawRun, RunSource
from .files import too_many_files
from .lines import iter_lines, open_regular
from .rows import RowSink, shown_path, text_files

MONITOR_EXT = "monitor.csv"
EVALUATIONS = "evaluations.npz"
MAX_FILES = 4096
MAX_NPZ_BYTES = 1 << 30
SNIFF_BYTES = 4096


def _monitor_header(path: str) -> dict | None:
    """The `#{...}` JSON header of a Monitor file, or None."""
    try:
        with open_regular(path) as f:
            first = f.readline(SNIFF_BYTES)
    except OSError:
        return None
    if not first.startswith(b"#{"):
        return None
    try:
        header = json.loads(first[1:].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return header if isinstance(header, dict) else None


def detect_sb3_monitor(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A folder of Monitor files (`*monitor.csv` opening with SB3's JSON header) and/or an `evaluations.npz`."""
    monitors = sorted(n for n in filenames if n.endswith(MONITOR_EXT))
    monitors = [n for n in monitors if _monitor_header(os.path.join(folder, n)) is not None]
    files = [os.path.join(folder, n) for n in monitors[:MAX_FILES]]
    if EVALUATIONS in filenames:
        files.append(os.path.join(folder, EVALUATIONS))
    return [("", tuple(files))] if files else []


def read_sb3_monitor(source: RunSource) -> RawRun:
    raw = RawRun(source)
    monitors = [p for p in source.files if p.endswith(MONITOR_EXT)]
    if len(monitors) >= MAX_FILES:
        raw.issues.append(too_many_files(source.name, MAX_FILES, "monitor files"))
    per_file: list[list[tuple[float, int, dict]]] = []  # each file's (wall time, order read, row), in file order
    env_ids = set()
    for path, f, _sink, report in text_files(raw, monitors, None, what="row"):  # rows placed below, merged
        header, columns, t_start = None, None, 0.0
        offset, last_t, appended = 0.0, None, []  # sessions appended to the file: their first line numbers
        episodes: list[tuple[float, int, dict]] = []
        per_file.append(episodes)
        for lineno, _offset, text in iter_lines(f, report):
            if header is None:
                try:
                    header = json.loads(text[1:]) if text.startswith("#") else None
                except ValueError:
                    header = None
                if not isinstance(header, dict):
                    report.bad.append((lineno, "not a Monitor header `#{...}`"))
                    break
                t_start = header.get("t_start") if isinstance(header.get("t_start"), (int, float)) else 0.0
                if isinstance(header.get("env_id"), str) and header["env_id"] not in ("", "None"):
                    env_ids.add(header["env_id"])
                continue
            if not text.strip():
                continue
            try:
                cells = next(csv.reader([text]))
            except csv.Error as err:
                report.bad.append((lineno, f"not CSV ({err})"))
                continue
            if columns is None:
                columns = [c.strip() for c in cells]
                if columns[:3] != ["r", "l", "t"]:
                    report.bad.append((lineno, "not a Monitor column header `r,l,t`"))
                    break
                continue
            row = dict(zip(columns, cells))
            try:
                length, t = int(float(row["l"])), float(row["t"])
                float(row["r"])
            except (KeyError, ValueError, OverflowError):
                report.bad.append((lineno, "not an `r,l,t` row"))
                continue
            if len(cells) != len(columns) or not 0 <= length < 2**40 or not math.isfinite(t):
                report.bad.append((lineno, "not an `r,l,t` row"))
                continue
            if last_t is not None and t < last_t:
                # Monitor(override_existing=False) appends a later session's rows without a header, their `t` counted
                # from that session's own start (monitor.py:43, :102, :195-201), which the file does not keep: they
                # came after the earlier session's last episode, so they are counted on from there
                offset += last_t
                appended.append(lineno)
            last_t = t
            episodes.append((t_start + offset + t, len(episodes), row))
        if appended:
            raw.issues.append(DataIssue("appended_session", shown_path(source, path), (
                f"{len(appended)} later session(s) appended to this Monitor file (override_existing=False; from line "
                f"{', '.join(map(str, appended[:5]))}{' ...' if len(appended) > 5 else ''}) count their episodes' "
                "times from a start the file does not record: their episodes are placed after the earlier session's "
                "last one, their wall times a lower bound")))
    # SB3's load_results orders the episodes of all files by wall time; so do we, each file's own order kept (its
    # appended sessions counted on from the one before, above, its wall times rise)
    sink, step = RowSink(raw), 0
    for wall, _order, row in heapq.merge(*per_file, key=lambda e: e[0]):
        step += int(float(row["l"]))
        sink.add({f"monitor/{k}": v for k, v in row.items() if k != "t"}, step, wall=wall)
    sink.close()
    if len(env_ids) == 1:
        raw.env_hint = env_ids.pop()
    for path in source.files:
        if path.endswith(EVALUATIONS):
            _read_evaluations(raw, source, path)
    return raw


def _real(values: np.ndarray) -> bool:
    return np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)


def _read_evaluations(raw: RawRun, source: RunSource, path: str) -> None:
    shown = shown_path(source, path)
    try:
        if os.path.getsize(path) > MAX_NPZ_BYTES:
            raw.issues.append(DataIssue("unreadable_file", shown, "evaluations.npz is over 1 GiB; not read"))
            return
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in ("timesteps", "results", "ep_lengths", "successes") if k in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raw.issues.append(DataIssue("corrupt_record", shown, f"evaluations.npz could not be read: {err}"[:300]))
        return
    steps = arrays.pop("timesteps", None)
    if steps is None or steps.ndim != 1 or not _real(steps) or not np.all(np.abs(steps) < 2**62):
        raw.issues.append(DataIssue("corrupt_record", shown, "evaluations.npz holds no 1-d `timesteps` array of "
                                    "whole numbers"))
        return
    valid = {}
    for name, values in arrays.items():
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2 or len(values) != len(steps) or not _real(values):
            raw.issues.append(DataIssue("corrupt_record", shown, f"evaluations.npz's `{name}` is not one row of "
                                        f"numbers an evaluation (shape {values.shape}); left out"))
            continue
        valid[name] = values.tolist()
    sink = RowSink(raw)
    for i, step in enumerate(steps.tolist()):  # each episode of an evaluation one row at its timesteps
        for j in range(max((len(v[i]) for v in valid.values()), default=0)):
            sink.add({f"evaluations/{name}": v[i][j] for name, v in valid.items() if j < len(v[i])}, int(step))
    sink.close()
