"""MLflow's local stores: the file store's run folders and the SQLite store's database.

File store: a run folder `mlruns/{experiment_id}/{run_id}/` with `meta.yaml` and `metrics/`.

MLflow's FileStore (mlflow 3.17 mlflow/store/tracking/file_store.py:290-297, :1091-1101) appends each logged
metric to `{run_dir}/metrics/{key}` — a key holding `/` is a path of folders — as a line `"{timestamp} {value}
{step}"` (milliseconds; older files have only `"{timestamp} {value}"`, step 0, and a dataset's metric adds its
name and digest, :900-924). The run's name is the `mlflow.runName` tag, a file `tags/mlflow.runName`. A run
resumed with `mlflow.start_run(run_id=...)` appends to the same files: a step logged again is a restart of that
key (last write wins, `duplicate_points`). Each metric file is read alone, so only a key's own steps going back
count.

SQLite store, the default since MLflow 3 (`sqlite:///mlflow.db`, mlflow/store/tracking/__init__.py:12-13; a new
file store is refused unless MLFLOW_ALLOW_FILE_STORE is set, file_store.py:225): a `*.db` file whose `runs`
and `metrics` tables are MLflow's (SQLAlchemy models, mlflow/store/tracking/dbmodels/models.py: `metrics(key,
value, timestamp, run_uuid, step, is_nan)`, NaN stored as 0 with `is_nan`). Each run in it is a run named
`{file}/{experiment_id}/{run_uuid}`, like the file store's folders; its points are read in the order they were
logged (timestamp, then insertion), so a resumed run's steps logged again are a restart as above. The file is
opened read-only and immutable: nothing (no journal, no lock) is written beside it.

Runs MLflow marks deleted (`lifecycle_stage: deleted`, still on disk until `mlflow gc`) are not read.
"""
from __future__ import annotations

import os
import sqlite3
from urllib.parse import quote

from ..model import DataIssue, RawRun, RunSource
from .files import files_below, too_many_files
from .lines import iter_lines, open_regular
from .rows import RowSink, text_files

META = "meta.yaml"
METRICS = "metrics"
RUN_NAME_TAG = os.path.join("tags", "mlflow.runName")
MAX_FILES = 100_000  # metric files of one run
NAME_BYTES = 4096


def detect_mlflow(folder: str, filenames: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A run folder of an MLflow file store (`meta.yaml` beside a `metrics` folder), or the runs of an MLflow
    SQLite database in the folder."""
    found = [(f"{name}/{exp}/{run}", (os.path.join(folder, name),))
             for name in sorted(filenames) if name.endswith(DB_SUFFIXES)
             for exp, run in _db_runs(os.path.join(folder, name))]
    if META in filenames and os.path.isdir(os.path.join(folder, METRICS)) and not _deleted(folder):
        files = files_below(os.path.join(folder, METRICS), MAX_FILES)
        if files:
            found.append(("", tuple(files)))
    return found


def _deleted(run_dir: str) -> bool:
    """meta.yaml says `lifecycle_stage: deleted` (read as text: a flat key of MLflow's own file)."""
    try:
        with open_regular(os.path.join(run_dir, META)) as f:
            head = f.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return False
    return any(line.strip() == "lifecycle_stage: deleted" for line in head.splitlines())


DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
SQLITE_MAGIC = b"SQLite format 3\0"
DB_TABLES = {"runs", "metrics", "experiments", "latest_metrics"}


def _connect(path: str) -> sqlite3.Connection:
    """Read-only and immutable: SQLite writes no journal, lock or WAL file beside it."""
    return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1", uri=True)


def _db_runs(path: str) -> list[tuple[str, str]]:
    """(experiment_id, run_uuid) of the runs MLflow has not deleted, if `path` is an MLflow SQLite store; a
    SQLite file that cannot be read is one run ("?", "?") whose reading reports why."""
    try:
        with open_regular(path) as f:
            if f.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
                return []
    except OSError:
        return []
    try:
        con = _connect(path)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not DB_TABLES <= tables:
                return []
            return [(str(exp), str(run)) for exp, run in con.execute(
                "SELECT experiment_id, run_uuid FROM runs WHERE lifecycle_stage != 'deleted' "
                "ORDER BY experiment_id, start_time, run_uuid")]
        finally:
            con.close()
    except sqlite3.Error:
        return [("?", "?")]


def _run_name(run_dir: str) -> str | None:
    try:
        with open_regular(os.path.join(run_dir, RUN_NAME_TAG)) as f:
            name = f.read(NAME_BYTES).decode("utf-8", "replace").strip()
    except OSError:
        return None
    return name or None


def read_mlflow(source: RunSource) -> RawRun:
    if source.files and os.path.dirname(os.path.dirname(source.path)) == source.files[0]:  # {db}/{exp}/{run}
        return _read_db(source)
    raw = RawRun(source)
    name = _run_name(source.path)
    if name:
        raw.meta["name"] = name
    metrics = os.path.join(source.path, METRICS)
    if len(source.files) >= MAX_FILES:
        raw.issues.append(too_many_files(source.name, MAX_FILES, "metric files"))
    for path, f, sink, report in text_files(raw, source.files, lambda: RowSink(raw)):
        key = os.path.relpath(path, metrics).replace(os.sep, "/")
        for lineno, _offset, text in iter_lines(f, report):
            parts = text.split()
            if not parts:
                continue
            if len(parts) not in (2, 3, 5):
                report.bad.append((lineno, f"{len(parts)} fields, not timestamp, value and step"))
                continue
            try:
                wall = int(parts[0]) / 1000.0
                step = int(parts[2]) if len(parts) > 2 else 0
            except ValueError:
                report.bad.append((lineno, "a timestamp or step that is not an integer"))
                continue
            if abs(step) >= 2**62:
                report.bad.append((lineno, "a step outside int64"))
                continue
            sink.add({key: parts[1]}, step, wall)
    return raw


def _read_db(source: RunSource) -> RawRun:
    raw = RawRun(source)
    db = source.files[0]
    run_uuid = source.path.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        con = _connect(db)
    except sqlite3.Error as err:
        raw.issues.append(DataIssue("unreadable_file", source.name, f"cannot open the SQLite database: {err}"))
        return raw
    try:
        if run_uuid == "?":  # detection could not list its runs
            con.execute("SELECT name FROM sqlite_master").fetchall()
            con.execute("SELECT run_uuid FROM runs").fetchall()
        row = con.execute("SELECT name FROM runs WHERE run_uuid = ?", (run_uuid,)).fetchone()
        if row and row[0]:
            raw.meta["name"] = str(row[0])
        sink, key_now, bad_steps = None, None, 0
        cursor = con.execute("SELECT key, value, timestamp, step, is_nan FROM metrics WHERE run_uuid = ? "
                             "ORDER BY key, timestamp, rowid", (run_uuid,))
        for key, value, timestamp, step, is_nan in cursor:
            if key != key_now:  # each key alone, as each metric file of the file store
                if sink is not None:
                    sink.close()
                sink, key_now = RowSink(raw), key
            if not isinstance(step, int) or abs(step) >= 2**62:
                bad_steps += 1
                continue
            value = float("nan") if is_nan else value
            sink.add({str(key): value}, step, (timestamp or 0) / 1000.0)
        if sink is not None:
            sink.close()
        if bad_steps:
            raw.issues.append(DataIssue("bad_step", source.name, (
                f"{bad_steps} point(s) have a step that is no integer within int64 and are not in the frame")))
    except sqlite3.Error as err:
        raw.issues.append(DataIssue("corrupt_record", source.name, (
            f"the SQLite database could not be read to its end ({err}); the points before it were kept")))
    finally:
        con.close()
    return raw
