"""Per-run work on a process pool and on a distributed engine: same results, same order, as serial."""
from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from curriwatch import load, parallel
from writers import write_tb, write_wandb


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Seven runs of different sizes (so workers finish out of order), one of them W&B."""
    root = tmp_path_factory.mktemp("sweep")
    for r in range(6):
        steps = 30 + 40 * ((5 - r) % 3)
        write_tb(root / f"run{r}", {f"train/env{e}/reward": [(s, (s + r) / steps) for s in range(steps)]
                                    for e in range(3)})
    write_wandb(root, [{"train/env0/reward": i / 10} for i in range(10)], run_id="wb")
    return root


def _summary(ingest):
    return ([(r.name, r.profile, r.points_read, [(i.kind, i.path) for i in r.issues]) for r in ingest.runs],
            ingest.frame)


def test_process_pool_gives_the_serial_result_in_the_same_order(sweep, monkeypatch):
    monkeypatch.setenv("CURRIWATCH_WORKERS", "1")
    serial_runs, serial_frame = _summary(load(sweep))
    monkeypatch.setenv("CURRIWATCH_WORKERS", "2")
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)  # these runs are small: force the pool
    monkeypatch.setattr(parallel, "_serial", None)  # and fail if the serial loop ran instead
    calls = []
    pooled_runs, pooled_frame = _summary(load(sweep, progress=lambda d, t, n: calls.append((d, t))))
    assert pooled_runs == serial_runs and len(serial_runs) == 7
    pd.testing.assert_frame_equal(pooled_frame, serial_frame)
    assert calls[0] == (0, 7) and calls[-1] == (7, 7)  # one progress stream, from 0 to all
    assert [d for d, _t in calls] == sorted(d for d, _t in calls)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_error_in_one_item_is_raised_at_that_item(monkeypatch, workers):
    monkeypatch.setenv("CURRIWATCH_WORKERS", workers)
    got = []
    with pytest.raises(ValueError):
        for value in parallel.imap_runs(int, ["1", "2", "x", "4", "5"]):
            got.append(value)
    assert got == [1, 2]


def test_dask_local_cluster_runs_the_per_run_work(sweep, monkeypatch):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] (the `distributed` extra) "
                                                            "is not installed")
    monkeypatch.setenv("CURRIWATCH_WORKERS", "1")
    serial_runs, serial_frame = _summary(load(sweep))
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        with parallel.use_executor(client.get_executor()), monkeypatch.context() as m:
            m.setattr(parallel, "_serial", None)
            dask_runs, dask_frame = _summary(load(sweep))
    assert dask_runs == serial_runs
    pd.testing.assert_frame_equal(dask_frame, serial_frame)


# --- scan(): read, frame and analyse run by run, in workers: the report analyze(load()) gives --------

@pytest.fixture(scope="module")
def grouped_sweep(tmp_path_factory, core_sample_logs):
    """TensorBoard runs of different sizes, a W&B group of two runs, Marin rollout workers (read as
    one run each) and a lone W&B run."""
    import shutil

    root = tmp_path_factory.mktemp("grouped")
    for r in range(5):
        steps = 40 + 60 * ((4 - r) % 3)
        write_tb(root / f"tb/run{r}", {
            **{f"train/env{e}/reward": [(s, min(1.0, (s + r) / steps)) for s in range(steps)] for e in range(3)},
            **{f"eval/env{e}/reward": [(s, min(1.0, s / steps) - 0.3 * (s > steps // 2) * (e == 1))
                                       for s in range(0, steps, 5)] for e in range(3)}})
    for k in range(2):
        write_wandb(root / "wb", [{f"train/{k}/env0/reward": i / 20} for i in range(20)], run_id=f"grp{k}",
                    group="shared")
    write_wandb(root / "wb", [{"train/env0/reward": i / 10} for i in range(10)], run_id="alone")
    shutil.copytree(core_sample_logs / "marin_grouped", root / "marin")
    return root


def _rendered(report) -> dict[str, str]:
    import json

    from curriwatch import store
    from curriwatch.cli import Format, render_text
    from curriwatch.report import json_safe

    return {"json": json.dumps(report.to_dict(), indent=1), "drawing": json.dumps(json_safe(store._drawing(report))),
            **{f.value: render_text(report, f, to_file=True) for f in (Format.terminal, Format.markdown, Format.html)}}


@pytest.mark.parametrize("logdir", ["sample", "grouped"])
def test_scan_gives_byte_for_byte_the_report_of_analyze_load(logdir, sample_logs, grouped_sweep, monkeypatch):
    from curriwatch import analyze, scan

    folder = sample_logs if logdir == "sample" else grouped_sweep
    monkeypatch.setenv("CURRIWATCH_WORKERS", "1")
    serial = _rendered(analyze(load(folder)))
    by_run = _rendered(scan(folder))
    assert by_run == serial
    monkeypatch.setenv("CURRIWATCH_WORKERS", "2")
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)  # small runs: force the pool
    pools = []
    real = parallel._pooled
    monkeypatch.setattr(parallel, "_pooled", lambda *a: pools.append(len(a[1])) or real(*a))
    calls = []
    pooled = _rendered(scan(folder, progress=lambda d, t, n: calls.append((d, t))))
    assert pooled == serial
    assert pools  # every source was read (and each lone run analysed) in the pool
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1]
    if logdir == "grouped":
        names = [r["run"] for r in json.loads(serial["json"])["runs"]]
        assert "wb/shared" in names and "marin/wandb/cw1marin" in names and len(names) == 8


def test_scan_says_what_load_says_when_nothing_is_readable(tmp_path):
    from curriwatch import scan
    from curriwatch.errors import InputError

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "events.out.tfevents.1.x").write_bytes(b"\x00" * 3)  # damaged: nothing to read
    with pytest.raises(InputError) as by_load:
        load(tmp_path)
    with pytest.raises(InputError) as by_scan:
        scan(tmp_path)
    assert str(by_scan.value) == str(by_load.value) and "no readable points in 2 run(s)" in str(by_scan.value)


def test_dask_local_cluster_runs_the_per_run_analysis(grouped_sweep, monkeypatch):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] (the `distributed` extra) "
                                                            "is not installed")
    from curriwatch import analyze, scan

    monkeypatch.setenv("CURRIWATCH_WORKERS", "1")
    serial = _rendered(analyze(load(grouped_sweep)))
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        with parallel.use_executor(client.get_executor()), monkeypatch.context() as m:
            m.setattr(parallel, "_serial", None)
            on_dask = _rendered(scan(grouped_sweep))
    assert on_dask == serial


def test_a_script_read_from_stdin_runs_serially_instead_of_crashing():
    # workers import the caller's main script again from its path: '<stdin>' has none (BrokenProcessPool)
    script = ("import math\nfrom curriwatch.parallel import imap_runs\n"
              "print(list(imap_runs(math.sqrt, [1, 4, 9, 16], max_workers=2)))\n")
    out = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1.0, 2.0, 3.0, 4.0]"


def test_a_script_that_calls_curriwatch_at_its_top_level_finishes_in_this_process(tmp_path):
    # workers import the caller's script again (as __mp_main__): with no `if __name__ == "__main__":`, its
    # top-level call starts a pool while the worker starts, and the worker dies (BrokenProcessPool) — the rest
    # runs in this process, with one line saying why
    script = tmp_path / "unguarded.py"
    script.write_text("import math\nfrom curriwatch.parallel import imap_runs\n"
                      "print(list(imap_runs(math.sqrt, [1, 4, 9, 16, 25], max_workers=2)))\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1.0, 2.0, 3.0, 4.0, 5.0]"
    assert 'lack `if __name__ == "__main__":`' in out.stderr
