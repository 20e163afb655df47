"""MLflow's local stores: the file store (`mlruns/{experiment_id}/{run_id}/metrics/{key}`) and the SQLite store
(`mlflow.db`, MLflow 3's default), both written by MLflow 3.17's own client (tests/fixtures/mlflow/
make_mlflow_logs.py: the same curriculum in each, one run resumed with `start_run(run_id=...)`)."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import curriwatch

FIXTURES = Path(__file__).parent / "fixtures" / "mlflow"
USER_PROFILE = """\
profiles:
  single:
    patterns:
      - {regex: '^reward$', env: "{run}", split: train, metric: reward}
    performance_metric: reward
"""


def _file_store_oracle(run_dir: Path) -> dict[str, dict[int, float]]:
    """Each key's points as MLflow's files hold them: a step logged again (the resumed process) keeps its last
    line."""
    out: dict[str, dict[int, float]] = {}
    for path in sorted((run_dir / "metrics").rglob("*")):
        if path.is_file():
            key = path.relative_to(run_dir / "metrics").as_posix()
            for line in path.read_text().splitlines():
                _ts, value, step = line.split()
                out.setdefault(key, {})[int(step)] = float(value)
    return out


def _db_oracle(db: Path, run_name: str) -> dict[str, dict[int, float]]:
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    out: dict[str, dict[int, float]] = {}
    for key, value, step in con.execute(
            "SELECT m.key, m.value, m.step FROM metrics m JOIN runs r ON r.run_uuid = m.run_uuid WHERE r.name = ? "
            "ORDER BY m.key, m.timestamp, m.rowid", (run_name,)):
        out.setdefault(key, {})[step] = value
    con.close()
    return out


def _frame_points(ingest, run_name: str) -> dict[str, dict[int, float]]:
    f = ingest.frame
    f = f[f.run.astype(str) == run_name]
    out: dict[str, dict[int, float]] = {}
    for env, split, metric, step, value in zip(f.env_id, f.split, f.metric, f.step, f.value):
        out.setdefault(f"{split}/{env}/{metric}", {})[int(step)] = float(value)
    return out


def test_both_stores_mlflow_wrote_are_read_exactly():
    ingest = curriwatch.load(FIXTURES)
    runs = {r.name: r for r in ingest.runs}
    assert sorted(r.source for r in runs.values()) == ["mlflow"] * 4
    (file_run,) = [n for n, r in runs.items() if n.startswith("mlruns/") and r.profile == "generic"]
    (db_run,) = [n for n, r in runs.items() if n.startswith("mlflow.db/") and r.profile == "generic"]
    expected = _file_store_oracle(FIXTURES / file_run)
    assert expected == _db_oracle(FIXTURES / "mlflow.db", "ppo-levels")
    assert len(expected) == 6 and len(expected["train/level_1/reward"]) == 200
    assert _frame_points(ingest, file_run) == expected == _frame_points(ingest, db_run)
    for name in (file_run, db_run):
        assert runs[name].envs == ["level_1", "level_2", "level_3"]
        (dup,) = [i for i in runs[name].issues if i.kind == "duplicate_points"]
        assert dup.detail.startswith("66 point(s)")  # steps 120..139 logged again: 20 x 3 train, 2 x 3 eval
    report = curriwatch.analyze(ingest)
    found = {(r.run, w.env_id, w.type) for r in report.runs for w in r.warnings}
    for name in (file_run, db_run):
        assert {(e, t) for r, e, t in found if r == name} == {("level_2", "graduated_regression"),
                                                              ("level_3", "training_stagnation")}
    unknown = [r for r in report.runs if r.health_status == "unknown"]  # `reward` alone: no built-in profile reads it
    assert len(unknown) == 2


def test_a_run_is_named_by_its_mlflow_run_name(tmp_path):
    (tmp_path / "curriwatch.yaml").write_text(USER_PROFILE)
    ingest = curriwatch.load(FIXTURES, config=tmp_path / "curriwatch.yaml", profile="single")
    assert sorted(e for r in ingest.runs for e in r.envs) == ["sac-single", "sac-single"]


def test_runs_mlflow_deleted_are_not_read(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "m")
    con = sqlite3.connect(tmp_path / "m" / "mlflow.db")
    con.execute("UPDATE runs SET lifecycle_stage = 'deleted' WHERE name = 'sac-single'")
    con.commit()
    con.close()
    meta = next(p for p in (tmp_path / "m" / "mlruns").glob("*/*/meta.yaml") if "sac-single" in p.read_text())
    meta.write_text(meta.read_text().replace("lifecycle_stage: active", "lifecycle_stage: deleted"))
    runs = curriwatch.load(tmp_path / "m").runs
    assert len(runs) == 2 and {r.profile for r in runs} == {"generic"}


def test_a_database_row_with_a_step_no_integer_is_reported(tmp_path):
    shutil.copy(FIXTURES / "mlflow.db", tmp_path)
    con = sqlite3.connect(tmp_path / "mlflow.db")
    con.execute("UPDATE metrics SET step = 'x' WHERE step = 7 AND key = 'train/level_1/reward'")
    con.commit()
    con.close()
    runs = curriwatch.load(tmp_path).runs
    (issue,) = [i for r in runs for i in r.issues if i.kind == "bad_step"]
    assert issue.detail.startswith("1 point(s)")


def test_reading_the_database_writes_nothing_beside_it(tmp_path):
    shutil.copy(FIXTURES / "mlflow.db", tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    curriwatch.analyze(curriwatch.load(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == before == ["mlflow.db"]


def test_a_damaged_database_or_metric_file_is_a_data_issue(tmp_path):
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "mlflow.db").write_bytes((FIXTURES / "mlflow.db").read_bytes()[:200_000])
    shutil.copytree(FIXTURES / "mlruns", tmp_path / "mlruns")
    metric = next((tmp_path / "mlruns").glob("*/*/metrics/train/level_1/reward"))
    lines = metric.read_text().splitlines()
    metric.write_text("\n".join(lines[:50] + ["1795881841326 not-a-number", "garbage"] + lines[50:]) + "\n")
    ingest = curriwatch.load(tmp_path)
    issues = {(r.name.split("/")[0], i.kind) for r in ingest.runs for i in r.issues}
    assert ("db", "corrupt_record") in issues and ("mlruns", "corrupt_record") in issues
    f = ingest.frame
    kept = f[(f.env_id == "level_1") & (f.split == "train")]
    assert len(kept) == 200  # every intact line of the damaged file; the two bad lines are reported, not points


def test_other_sqlite_files_and_folders_are_not_mlflow(tmp_path):
    con = sqlite3.connect(tmp_path / "optuna.db")
    con.execute("CREATE TABLE trials (trial_id INTEGER, value FLOAT)")
    con.commit()
    con.close()
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "meta.yaml").write_text("name: not a run\n")
    (tmp_path / "exp" / "metrics.json").write_text("{}")
    from curriwatch.discover import discover

    assert discover(tmp_path) == ([], [])


def test_a_run_of_more_metric_files_than_read_says_so(monkeypatch):
    """Never a silent cut: past MAX_FILES metric files of one run, the run reports that some were not read."""
    import curriwatch.readers.mlflow as reader

    monkeypatch.setattr(reader, "MAX_FILES", 4)
    runs = curriwatch.load(FIXTURES / "mlruns").runs
    cut = [r for r in runs if any(i.kind == "too_many_files" for i in r.issues)]
    (issue,) = [i for r in cut for i in r.issues if i.kind == "too_many_files"]
    assert len(cut) == 1 and "the first 4 metric files" in issue.detail  # the six-key run; sac-single has one


def test_points_keep_mlflows_timestamps_as_wall_time():
    """Each line's (or row's) millisecond timestamp is the point's wall time, in both stores."""
    ingest = curriwatch.load(FIXTURES)
    f = ingest.frame
    for run in ingest.runs:
        if not run.name.startswith("mlruns/") or run.profile != "generic":
            continue
        lines = (FIXTURES / run.name / "metrics" / "eval" / "level_1" / "reward").read_text().split("\n")
        walls = {int(step): int(ts) / 1000.0 for ts, _v, step in (line.split() for line in lines if line)}
        sel = f[(f.run.astype(str) == run.name) & (f.env_id == "level_1") & (f.split == "eval")]
        assert dict(zip(sel.step.astype(int), sel.wall_time)) == walls
    db = f[f.run.astype(str).str.startswith("mlflow.db/")]
    assert len(db) and (db.wall_time > 1.7e9).all()
