"""Stable-Baselines3's Monitor files and EvalCallback's evaluations.npz in RL Zoo's log folders: files SB3 itself wrote
(tests/fixtures/sb3_monitor/make_sb3_monitor_logs.py), read by the `sb3-monitor` reader and `sb3_monitor` profile."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import curriwatch

FIXTURES = Path(__file__).parent / "fixtures" / "sb3_monitor" / "logs"
HOLDS, COLLAPSES = FIXTURES / "ppo" / "Planned-v0_1", FIXTURES / "ppo" / "PlannedCollapse-v0_1"


def _monitor_oracle(folder: Path) -> list[tuple[int, float]]:
    """SB3's own reading (monitor.py load_results + results_plotter.ts2xy): by wall time, steps the running lengths."""
    episodes = []
    for path in sorted(folder.glob("*.monitor.csv")):
        with path.open() as f:
            t_start = json.loads(f.readline()[1:])["t_start"]
            episodes += [(t_start + float(r["t"]), float(r["r"]), int(r["l"])) for r in csv.DictReader(f)]
    episodes.sort(key=lambda e: e[0])
    return list(zip(np.cumsum([e[2] for e in episodes]).tolist(), [e[1] for e in episodes]))


def _eval_oracle(folder: Path) -> list[tuple[int, float]]:
    with np.load(folder / "evaluations.npz") as npz:
        return [(int(t), float(np.mean(r))) for t, r in zip(npz["timesteps"], npz["results"])]


def _series(frame, env: str, split: str) -> list[tuple[int, float]]:
    sel = frame[(frame.env_id == env) & (frame.split == split) & (frame.metric == "episode_return")]
    return list(zip(sel.step.astype(int), sel.value.astype(float)))


def test_monitor_files_and_evaluations_are_one_run_read_as_sb3_reads_them():
    ingest = curriwatch.load(FIXTURES)
    assert sorted((r.name, r.source, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        ("ppo/Planned-v0_1", "sb3-monitor", "sb3_monitor", ("Planned-v0",)),
        ("ppo/PlannedCollapse-v0_1", "sb3-monitor", "sb3_monitor", ("PlannedCollapse-v0",))]  # env_id of the header
    assert ingest.all_issues == []
    for folder in (HOLDS, COLLAPSES):
        env = folder.name[: -len("_1")]
        assert _series(ingest.frame, env, "train") == _monitor_oracle(folder)
        evals = _series(ingest.frame, env, "eval")  # the 5 episodes of each evaluation, combined at its timesteps
        assert [s for s, _ in evals] == [s for s, _ in _eval_oracle(folder)]
        assert np.allclose([v for _, v in evals], [v for _, v in _eval_oracle(folder)])


def test_a_collapse_is_reported_and_a_learner_that_holds_is_healthy():
    report = curriwatch.analyze(curriwatch.load(FIXTURES)).to_dict()
    runs = {r["run"]: r for r in report["runs"]}
    assert runs["ppo/Planned-v0_1"]["warnings"] == [] and runs["ppo/Planned-v0_1"]["health_status"] == "healthy"
    (warning,) = runs["ppo/PlannedCollapse-v0_1"]["warnings"]
    assert (warning["type"], warning["severity"]) == ("graduated_regression", "critical")
    assert 40_000 <= warning["first_step"] <= 44_000  # the planned fall at 40,000 steps; evaluations every 2,000


def test_damaged_files_are_reported_and_the_rest_is_kept(tmp_path):
    folder = tmp_path / "ppo" / "PlannedCollapse-v0_1"
    shutil.copytree(COLLAPSES, folder)
    lines = (folder / "0.monitor.csv").read_text().splitlines(keepends=True)
    (folder / "0.monitor.csv").write_text("".join(lines[:100] + ["12.5,fifty,3.0\n"] + lines[100:]))
    npz = (folder / "evaluations.npz").read_bytes()
    (folder / "evaluations.npz").write_bytes(npz[: len(npz) // 2])  # cut off mid-write
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert sorted((i.kind, i.path) for i in info.issues) == [
        ("corrupt_record", "ppo/PlannedCollapse-v0_1/0.monitor.csv"),
        ("corrupt_record", "ppo/PlannedCollapse-v0_1/evaluations.npz")]
    assert "line 101" in next(i.detail for i in info.issues if i.path.endswith(".csv"))
    train = _series(ingest.frame, "PlannedCollapse-v0", "train")
    assert train == _monitor_oracle(COLLAPSES)  # the bad row alone is left out
    assert _series(ingest.frame, "PlannedCollapse-v0", "eval") == []


@pytest.mark.parametrize("bad", ["object", "nan_timesteps", "complex"])
def test_an_object_array_is_reported_never_unpickled(tmp_path, bad):
    folder = tmp_path / "run"
    shutil.copytree(HOLDS, folder)
    if bad == "object":
        ragged = np.empty(2, dtype=object)
        ragged[:] = [[1.0, 2.0], [3.0]]
        np.savez(folder / "evaluations.npz", timesteps=np.array([10, 20]), results=ragged)  # SB3 would need pickle
    elif bad == "nan_timesteps":
        np.savez(folder / "evaluations.npz", timesteps=np.array([10.0, np.nan]), results=np.ones((2, 3)))
    else:
        np.savez(folder / "evaluations.npz", timesteps=np.array([10, 20]), results=np.ones((2, 3)) * 1j)
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert [i.kind for i in info.issues] == ["corrupt_record"] and "evaluations.npz" in info.issues[0].path
    assert len(_series(ingest.frame, "Planned-v0", "train")) == len(_monitor_oracle(HOLDS))


def test_csv_files_named_like_monitor_files_without_its_header_are_no_run(tmp_path):
    from curriwatch.sources import SOURCE_KINDS

    (tmp_path / "a.monitor.csv").write_text("r,l,t\n1.0,10,0.5\n")
    assert SOURCE_KINDS["sb3-monitor"].detect(str(tmp_path), ["a.monitor.csv"]) == []
    (tmp_path / "b.monitor.csv").write_text('#{"t_start": 1.0, "env_id": "X-v0"}\nr,l,t\n1.0,10,0.5\n')
    assert SOURCE_KINDS["sb3-monitor"].detect(str(tmp_path), ["a.monitor.csv", "b.monitor.csv"]) == [
        ("", (str(tmp_path / "b.monitor.csv"),))]


def test_a_later_session_appended_to_the_monitor_files_is_placed_after_the_first_and_reported():
    """A job started again with Monitor(override_existing=False) appends its rows without a header, their `t`
    counted from its own start (tests/fixtures/sb3_monitor/appended, written by SB3's Monitor): SB3's load_results
    would put them among the first session's episodes; they came after them."""
    folder = FIXTURES.parent / "appended" / "ppo" / "PlannedResumed-v0_1"
    sessions = []  # per file: (first session's rows, second's), each (t_start + t, r, l)
    for path in sorted(folder.glob("*.monitor.csv")):
        with path.open() as f:
            t_start = json.loads(f.readline()[1:])["t_start"]
            rows = [(float(r["t"]), float(r["r"]), int(r["l"])) for r in csv.DictReader(f)]
        back = next(i for i in range(1, len(rows)) if rows[i][0] < rows[i - 1][0])
        sessions.append((rows[:back], rows[back:]))
    ingest = curriwatch.load(folder.parent)
    (run,) = ingest.runs
    notes = [i for i in run.issues if i.kind == "appended_session"]
    assert sorted(Path(i.path).name for i in notes) == ["0.monitor.csv", "1.monitor.csv"]
    series = _series(ingest.frame, "PlannedResumed-v0", "train")
    first_steps = sum(l for first, _ in sessions for _, _, l in first)
    later = sorted(r for _, second in sessions for _, r, _ in second)
    assert sorted(v for s, v in series if s > first_steps) == later  # every later episode after the first session
    assert len(series) == sum(len(a) + len(b) for a, b in sessions)
    report = curriwatch.analyze(ingest).to_dict()
    assert report["runs"][0]["health_status"] == "healthy"  # a learner that holds, resumed, is no incident
