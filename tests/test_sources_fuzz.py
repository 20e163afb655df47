"""Fuzzed Tune / dcd / ROLL / tinker / MTRL / Acme / MLflow / TorchRL CSV / d3rlpy / SB3 Monitor / SwanLab files: real
files damaged by hypothesis.

For every case: no exception escapes, and every point of a line (record) that ends before the first
damaged byte is read exactly, in order. Text formats have no checksum, so a changed digit can be a
valid number: only the damage that makes a line unreadable must become a data issue.
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from curriwatch.discover import discover
from curriwatch.readers import read_run
from writers import AcmeCsvLogger, DcdFileWriter, MtrlLogger, TinkerJsonLogger, write_roll_stdout, write_tune_trial

EXAMPLES = int(os.environ.get("CURRIWATCH_FUZZ_EXAMPLES", "120")) // 2
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize="CURRIWATCH_FUZZ_SEED" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


def _tune(folder: Path) -> Path:
    results = [{"training_iteration": i + 1, "timesteps_total": 100 * (i + 1),
                "env_runners": {"episode_return_mean": i * 1.5, "episode_len_mean": math.nan if i == 3 else 9.0}}
               for i in range(12)]
    write_tune_trial(folder / "trial", results, {"env": "E"})
    return folder / "trial" / "result.json"


def _tune_csv(folder: Path) -> Path:
    path = _tune(folder)
    os.remove(path)
    return folder / "trial" / "progress.csv"


def _dcd(folder: Path) -> Path:
    w = DcdFileWriter(folder / "xp")
    for i in range(12):
        w.log({"steps": 10 * i, **({"test_returns:Maze": i / 3} if i > 4 else {})}, 1.7e9 + i)
    w.close()
    return folder / "xp" / "logs.csv"


def _roll(folder: Path) -> Path:
    return write_roll_stdout(folder / "run.log", [(s, {"env/A/success": s / 7, "x": math.inf}) for s in range(12)])


def _tinker(folder: Path) -> Path:
    logger = TinkerJsonLogger(folder / "run")
    for s in range(12):
        logger.log_metrics({"env/a/reward/total": s / 7, "env/a/total_episodes": 8, "optim/lr": math.nan}, step=s)
    return folder / "run" / "metrics.jsonl"


def _mtrl(folder: Path) -> Path:
    logger = MtrlLogger(folder / "xp", modes=("eval",))
    for s in range(12):
        logger.log("eval/success_env_index_0", s / 7, s, n=10)
        logger.log("eval/episode_reward_env_index_0", math.nan if s == 3 else 100.0 * s, s)
        logger.dump(s)
    return folder / "xp" / "eval.log"


def _acme(folder: Path) -> Path:
    logger = AcmeCsvLogger(folder, "xp", "actor")
    for s in range(12):
        logger.write({"actor_episodes": s + 1, "actor_steps": 250 * (s + 1), "episode_return": s / 7,
                      "episode_length": 250, "steps_per_second": math.nan if s == 3 else 1e4})
    logger.close()
    return folder / "xp" / "logs" / "actor" / "logs.csv"


def _mlflow(folder: Path) -> Path:
    """A run folder of MLflow's file store, as MLflow wrote it (tests/fixtures/mlflow/make_mlflow_logs.py)."""
    fixtures = Path(__file__).parent / "fixtures" / "mlflow" / "mlruns"
    run = next(p.parent for p in fixtures.glob("*/*/meta.yaml") if "sac-single" in p.read_text())
    shutil.copytree(run, folder / "run")
    return folder / "run" / "metrics" / "reward"


def _torchrl_csv(folder: Path) -> Path:
    """A TorchRL CSVLogger experiment folder, as TorchRL wrote it (tests/fixtures/torchrl/make_torchrl_logs.py)."""
    fixtures = Path(__file__).parent / "fixtures" / "torchrl" / "benchmarl"
    exp = sorted(p.parent for p in fixtures.glob("*/*/scalars"))[0]
    (folder / "exp" / "scalars").mkdir(parents=True)  # one key's file: the fuzzed one
    return Path(shutil.copy(exp / "scalars" / "eval_reward_episode_reward_mean.csv", folder / "exp" / "scalars"))


def _d3rlpy(folder: Path) -> Path:
    """A d3rlpy FileAdapter folder, as d3rlpy wrote it (tests/fixtures/d3rlpy/make_d3rlpy_logs.py): one metric file."""
    (exp,) = (Path(__file__).parent / "fixtures" / "d3rlpy" / "d3rlpy_logs").glob("BC_hopper*")
    (folder / "exp").mkdir()
    shutil.copy(exp / "params.json", folder / "exp")
    return Path(shutil.copy(exp / "environment.csv", folder / "exp"))


def _sb3_monitor(folder: Path) -> Path:
    """One SB3 Monitor file, as SB3 wrote it (tests/fixtures/sb3_monitor/make_sb3_monitor_logs.py)."""
    fixtures = Path(__file__).parent / "fixtures" / "sb3_monitor" / "logs" / "ppo" / "Planned-v0_1"
    (folder / "run").mkdir()
    return Path(shutil.copy(fixtures / "0.monitor.csv", folder / "run"))


MAKERS = {"tune-json": _tune, "tune-csv": _tune_csv, "dcd": _dcd, "roll": _roll, "tinker": _tinker, "mtrl": _mtrl,
          "acme": _acme, "mlflow": _mlflow, "torchrl-csv": _torchrl_csv, "d3rlpy": _d3rlpy,
          "sb3-monitor": _sb3_monitor}


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    out = {}
    for name, make in MAKERS.items():
        folder = tmp_path_factory.mktemp(name)
        path = make(folder)
        raw = read_run(discover(folder)[0][0])
        assert len(raw) > 10 and not [i for i in raw.issues if i.kind != "non_numeric_values"]
        out[name] = (folder, path, path.read_bytes(), raw)
    return out


damage = st.tuples(
    st.sampled_from(sorted(MAKERS)),
    st.floats(0, 1),
    st.sampled_from(["truncate", "flip", "insert", "nan"]),
    st.binary(min_size=1, max_size=40),
)


@FUZZ
@given(damage)
def test_damaged_text_sources(originals, case):
    name, where, how, junk = case
    folder, path, data, raw = originals[name]
    at = min(int(where * len(data)), len(data) - 1)
    if how == "truncate":
        bad = data[:at]
    elif how == "flip":
        bad = data[:at] + bytes([data[at] ^ 0xA5]) + data[at + 1:]
    elif how == "insert":
        bad = data[:at] + junk + data[at:]
    else:
        bad = data[:at] + b"NaN" + data[at:]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "c"
        shutil.copytree(folder, copy)
        (copy / path.relative_to(folder)).write_bytes(bad)
        runs = discover(copy)[0]
        got = read_run(runs[0]) if runs else None
    intact_lines = data[:at].count(b"\n")
    line_of_row = _line_numbers(name, data)
    keep = [i for i, r in enumerate(raw.row) if line_of_row[r] <= intact_lines]
    expected = [raw.points()[i] for i in keep]
    if got is None:  # a ROLL log whose metrics_tag lines were all cut is no longer a ROLL log, nor a
        # a JSON-lines log with a damaged first line; an Acme log whose header names no counter; a TorchRL CSV
        # file whose first line is no `step,value`, a d3rlpy one no `epoch,step,value`, a Monitor file without its
        # `#{...}` header
        assert name in ("roll", "tinker", "mtrl", "acme", "torchrl-csv", "d3rlpy", "sb3-monitor") and not expected
        return
    for issue in got.issues:
        assert issue.path and issue.detail
    # every row on a line that ends before the damage is read exactly
    assert _same(got.points()[:len(expected)], expected)


def _line_numbers(name: str, data: bytes) -> list[int]:
    """1-based line number of each history row of the original file."""
    lines = data.split(b"\n")
    out = []
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text or (name in ("tune-csv", "acme") and n == 1) or (name == "sb3-monitor" and n == 2) \
                or text.startswith(b"#"):
            continue
        if name == "roll" and b"metrics_tag: " not in text:
            continue
        out.append(n)
    return out


def _same(a, b):
    return len(a) == len(b) and all(
        x[:2] == y[:2] and (x[2] == y[2] or (math.isnan(x[2]) and math.isnan(y[2]))) for x, y in zip(a, b))
