"""Per-run work on a process pool and on a distributed engine: same results, same order, as serial."""
from __future__ import annotations

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
