"""The frame: one long DataFrame of every claimed point, keyed by (run, env_id, split, metric, step).

Columns: run, env_id, split, metric (categoricals), step (int64), value (float64), wall_time
(float64); sorted by (run, env_id, split, metric, step); one point per key (last write wins).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .model import DataIssue, RawRun
from .profiles import RUN_ENV, Profile

COLUMNS = ["run", "env_id", "split", "metric", "step", "value", "wall_time"]
STATE_WORDS = {"locked": 0.0, "active": 1.0, "graduated": 2.0}


@dataclass
class RunPoints:
    """One run's claimed points, with codes into the shared category lists of a FrameBuilder."""

    env: np.ndarray
    split: np.ndarray
    metric: np.ndarray
    step: np.ndarray
    value: np.ndarray
    wall_time: np.ndarray


def empty_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "run": pd.Categorical([]), "env_id": pd.Categorical([]), "split": pd.Categorical([]),
        "metric": pd.Categorical([]), "step": np.zeros(0, np.int64), "value": np.zeros(0),
        "wall_time": np.zeros(0),
    })


class FrameBuilder:
    """Collects runs one at a time (so raw points can be freed early), then builds the frame."""

    def __init__(self) -> None:
        self._cats: dict[str, dict[str, int]] = {"run": {}, "env_id": {}, "split": {}, "metric": {}}
        self._runs: list[tuple[int, RunPoints]] = []

    def _code(self, column: str, name: str) -> int:
        table = self._cats[column]
        code = table.get(name)
        if code is None:
            code = table[name] = len(table)
        return code

    def add(self, raw: RawRun, profile: Profile | None, run_name: str) -> tuple[list[DataIssue], dict]:
        """Map a run's raw points through its profile; returns its data issues and ingest stats."""
        issues: list[DataIssue] = []
        cols = raw.columns()
        n_tags = len(raw.tags)
        stats = {"points_read": len(raw), "tags": n_tags, "unclaimed_tags": []}
        step_keys = set(profile.step_keys) if profile else set()
        env_of = np.full(n_tags, -1, np.int64)
        split_of = np.full(n_tags, -1, np.int64)
        metric_of = np.full(n_tags, -1, np.int64)
        unclaimed = []
        for code, tag in enumerate(raw.tags):
            hit = profile.classify(tag) if profile else None
            if hit is None:
                if tag not in step_keys:
                    unclaimed.append(code)
                continue
            env = hit[0] if hit[0] != RUN_ENV else _run_env(raw, run_name)
            env_of[code] = self._code("env_id", env)
            split_of[code] = self._code("split", hit[1])
            metric_of[code] = self._code("metric", hit[2])

        tag_code = cols["tag_code"]
        step = cols["step"]
        keep = env_of[tag_code] >= 0 if len(tag_code) else np.zeros(0, bool)
        if unclaimed:
            counts = np.bincount(tag_code, minlength=n_tags)[unclaimed]
            stats["unclaimed_tags"] = sorted(raw.tags[c] for c in unclaimed)
            shown = ", ".join(stats["unclaimed_tags"][:5]) + (" ..." if len(unclaimed) > 5 else "")
            issues.append(DataIssue(
                "unclaimed_tags", run_name,
                f"{len(unclaimed)} tag(s) with {int(counts.sum())} point(s) match no pattern of profile "
                f"{profile.name if profile else '(none)'} and are not in the frame: {shown}"))

        if profile and profile.step_keys and "row" in cols:
            step, has_step = _steps_from_keys(raw, cols, profile.step_keys)
            if has_step is not None:
                missing = int((keep & ~has_step).sum())
                if missing:
                    issues.append(DataIssue(
                        "missing_step_key", run_name,
                        f"{missing} point(s) were logged in rows without any of "
                        f"{', '.join(profile.step_keys)} and are not in the frame"))
                keep &= has_step

        idx = np.flatnonzero(keep)
        points = RunPoints(
            env_of[tag_code[idx]], split_of[tag_code[idx]], metric_of[tag_code[idx]],
            step[idx].astype(np.int64, copy=False), cols["value"][idx], cols["wall_time"][idx],
        )
        points = _with_state_words(self, raw, profile, points, issues, run_name)
        nonfinite = int((~np.isfinite(points.value)).sum())
        if nonfinite:
            issues.append(DataIssue(
                "non_finite_values", run_name,
                f"{nonfinite} point(s) are NaN or infinite; they stay in the frame and rules skip them"))
        self._runs.append((self._code("run", run_name), points))
        return issues, stats

    def build(self) -> tuple[pd.DataFrame, dict[str, int]]:
        """The sorted, deduplicated frame and, per run, how many duplicate points were dropped."""
        if not self._runs:
            return empty_frame(), {}
        # Categories sorted by name so that sorting by code sorts by name.
        remaps, categories = {}, {}
        for column, table in self._cats.items():
            names = sorted(table)
            order = np.empty(max(len(table), 1), np.int64)
            for new, name in enumerate(names):
                order[table[name]] = new
            remaps[column], categories[column] = order, names
        run = np.concatenate([np.full(len(p.step), remaps["run"][r], np.int64) for r, p in self._runs])
        env = remaps["env_id"][np.concatenate([p.env for _, p in self._runs])]
        split = remaps["split"][np.concatenate([p.split for _, p in self._runs])]
        metric = remaps["metric"][np.concatenate([p.metric for _, p in self._runs])]
        step = np.concatenate([p.step for _, p in self._runs])
        value = np.concatenate([p.value for _, p in self._runs])
        wall = np.concatenate([p.wall_time for _, p in self._runs])
        self._runs = []
        seq = np.arange(len(step))  # read order: the last write of a key is kept
        order = np.lexsort((seq, step, metric, split, env, run))
        run, env, split, metric, step, value, wall = (
            a[order] for a in (run, env, split, metric, step, value, wall))
        same_as_next = np.zeros(len(step), bool)
        if len(step) > 1:
            same_as_next[:-1] = ((run[1:] == run[:-1]) & (env[1:] == env[:-1]) & (split[1:] == split[:-1])
                                 & (metric[1:] == metric[:-1]) & (step[1:] == step[:-1]))
        duplicates = {}
        if same_as_next.any():
            dup_runs = np.bincount(run[same_as_next], minlength=len(categories["run"]))
            duplicates = {categories["run"][i]: int(c) for i, c in enumerate(dup_runs) if c}
            keep = ~same_as_next
            run, env, split, metric, step, value, wall = (
                a[keep] for a in (run, env, split, metric, step, value, wall))

        def cat(codes, column):
            return pd.Categorical.from_codes(codes, categories=categories[column])

        frame = pd.DataFrame({
            "run": cat(run, "run"), "env_id": cat(env, "env_id"), "split": cat(split, "split"),
            "metric": cat(metric, "metric"), "step": step, "value": value, "wall_time": wall,
        })
        return frame, duplicates


def _run_env(raw: RawRun, run_name: str) -> str:
    """The env a `{run}` pattern stands for: the reader's hint, else the run folder's own name."""
    if raw.env_hint:
        return raw.env_hint
    name = run_name.rstrip("/").rsplit("/", 1)[-1]
    return name if name not in ("", ".") else (raw.source.path.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] or "run")


def _steps_from_keys(raw: RawRun, cols, step_keys) -> tuple[np.ndarray, np.ndarray | None]:
    """Each point's step taken from the first step key logged in the same history row."""
    rows = cols["row"]
    codes = [raw.tags.index(k) for k in step_keys if k in raw.tags]
    if not codes:
        return cols["step"], None
    n_rows = int(rows.max()) + 1 if len(rows) else 0
    row_step = np.zeros(n_rows, np.int64)
    row_has = np.zeros(n_rows, bool)
    tag_code, value = cols["tag_code"], cols["value"]
    for code in reversed(codes):  # earlier keys win, so they are written last
        sel = (tag_code == code) & np.isfinite(value)
        row_step[rows[sel]] = value[sel].astype(np.int64)
        row_has[rows[sel]] = True
    return row_step[rows], row_has[rows]


def _with_state_words(builder: FrameBuilder, raw: RawRun, profile, points: RunPoints, issues, run_name):
    """State series logged as words (locked/active/graduated) become 0/1/2 points."""
    if not raw.text_points or profile is None:
        return points
    extra = []
    for tag, step, _row, text in raw.text_points:
        hit = profile.classify(tag)
        if hit and hit[1] == "state" and text.strip().lower() in STATE_WORDS:
            extra.append((builder._code("env_id", hit[0]), builder._code("split", "state"),
                          builder._code("metric", hit[2]), step, STATE_WORDS[text.strip().lower()]))
    if not extra:
        return points
    e = np.array(extra, dtype=np.float64)
    return RunPoints(
        np.concatenate([points.env, e[:, 0].astype(np.int64)]),
        np.concatenate([points.split, e[:, 1].astype(np.int64)]),
        np.concatenate([points.metric, e[:, 2].astype(np.int64)]),
        np.concatenate([points.step, e[:, 3].astype(np.int64)]),
        np.concatenate([points.value, e[:, 4]]),
        np.concatenate([points.wall_time, np.full(len(e), np.nan)]),
    )
