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

    writer: "tensorboardX" (simple_value scalars). torch's SummaryWriter output is committed under
    tests/fixtures/torch (see `torch_fixture`), so no test imports torch.
    """
    logdir = Path(logdir)
    if writer != "tensorboardX":
        raise ValueError(f"unknown writer {writer!r}: torch output comes from tests/fixtures/torch")
    from tensorboardX import SummaryWriter

    w = SummaryWriter(str(logdir), flush_secs=3600, filename_suffix=suffix)
    extra = {}
    points = sorted((step, i, tag, value) for i, (tag, pts) in enumerate(series.items()) for step, value in pts)
    for step, _i, tag, value in points:
        w.add_scalar(tag, value, step, walltime=1_700_000_000.0 + step, **extra)
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
                crash: bool = False, group: str | None = None, name: str | None = None,
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
        # finish() can return while wandb's service process still writes the file: teardown waits
        # for that process to exit, so the copy below never takes a half-written file
        wandb.teardown()
        src = next(Path(tmp).glob(f"wandb/offline-run-*-{run_id}/run-{run_id}.wandb"))
        wait_until_complete(src)
        dest = Path(dest_folder) / f"offline-run-{stamp}-{run_id}" / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        _copy_when_complete(src, dest, crash)
    return dest


def _copy_when_complete(src: Path, dest: Path, crash: bool) -> None:
    """Copy once wandb's service has written the run's last record (`exit`, absent after a crash):
    `finish()` can return while the service still flushes, which made copies lose their tail."""
    import time

    from curriwatch.readers.leveldb_log import LogReport, iter_log_records
    from curriwatch.readers.wandb_offline import _record_class

    parse = _record_class().FromString
    deadline = time.monotonic() + 120
    while True:
        data = src.read_bytes()
        records = [parse(p) for _o, p in iter_log_records(data, LogReport())]
        if crash or any(r.HasField("exit") for r in records) or time.monotonic() > deadline:
            dest.write_bytes(data)
            return
        time.sleep(0.1)


TORCH_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "torch"


def torch_fixture(name: str, dest) -> Path:
    """Copy the committed run(s) torch's SummaryWriter wrote (tests/fixtures/torch/generate.py) to
    `dest` and return it: tests read torch's output without importing torch."""
    dest = Path(dest)
    shutil.copytree(TORCH_FIXTURES / name, dest, dirs_exist_ok=True)
    return dest
