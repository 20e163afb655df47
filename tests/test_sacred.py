"""sacred's FileStorageObserver runs as EPyMARL leaves them by default (TensorBoard and W&B off): files sacred and
EPyMARL's own Logger wrote (tests/fixtures/sacred/make_sacred_logs.py)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import curriwatch
from curriwatch.errors import InputError
from writers import write_tb

FIXTURES = Path(__file__).parent / "fixtures" / "sacred"
MAPS = ("2s3z", "3m", "corridor")


def _oracle(run: Path) -> dict[tuple[str, str, str], list[tuple[int, float]]]:
    """(env, split, metric) -> points, as sacred's metrics.json holds them."""
    metrics = json.loads((run / "metrics.json").read_text())
    env = run.parent.name
    out = {}
    for key, entry in metrics.items():
        if key.startswith("test_") and key[5:] in ("battle_won_mean", "return_mean", "ep_length_mean"):
            out[(env, "eval", key[5:])] = list(zip(entry["steps"], entry["values"]))
        elif key in ("battle_won_mean", "return_mean", "ep_length_mean"):
            out[(env, "train", key)] = list(zip(entry["steps"], entry["values"]))
    return out


def _frame(ingest) -> dict[tuple[str, str, str], list[tuple[int, float]]]:
    out: dict = {}
    f = ingest.frame.sort_values(["env_id", "split", "metric", "step"])
    for env, split, metric, step, value in zip(f.env_id, f.split, f.metric, f.step, f.value):
        out.setdefault((str(env), str(split), str(metric)), []).append((int(step), float(value)))
    return out


def test_epymarl_runs_sacred_wrote_are_read_exactly():
    ingest = curriwatch.load(FIXTURES)
    assert sorted((r.name, r.source, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        (f"results/sacred/qmix/{m}/1", "sacred", "pymarl", (m,)) for m in MAPS]
    expected = {}
    for m in MAPS:
        expected.update(_oracle(FIXTURES / "results" / "sacred" / "qmix" / m / "1"))
    assert _frame(ingest) == expected and len(expected[("3m", "eval", "battle_won_mean")]) == 101
    report = curriwatch.analyze(ingest)
    assert {(w.env_id, w.type) for r in report.runs for w in r.warnings} == {
        ("2s3z", "graduated_regression"), ("corridor", "training_stagnation")}
    (fall,) = [w for r in report.runs for w in r.warnings if w.type == "graduated_regression"]
    assert 1_400_000 <= fall.first_step <= 1_400_000 + 2 * 20_000


def test_a_run_without_metrics_json_is_read_from_info_json(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "f")
    for metrics in (tmp_path / "f").rglob("metrics.json"):
        metrics.unlink()
    assert _frame(curriwatch.load(tmp_path / "f")) == _frame(curriwatch.load(FIXTURES))


def test_a_run_that_also_wrote_tensorboard_is_read_once_from_its_event_files(tmp_path):
    """use_tensorboard: EPyMARL's tb_logs/{alg}_seed{n}_{map}_{datetime} beside sacred/ is the run; the map is its
    env through the pymarl profile's run_env."""
    results = tmp_path / "results"
    shutil.copytree(FIXTURES / "results" / "sacred" / "qmix" / "3m", results / "sacred" / "qmix" / "3m")
    config = results / "sacred" / "qmix" / "3m" / "1" / "config.json"
    config.write_text(config.read_text().replace('"use_tensorboard": false', '"use_tensorboard": true'))
    metrics = json.loads((results / "sacred" / "qmix" / "3m" / "1" / "metrics.json").read_text())
    write_tb(results / "tb_logs" / "qmix_seed0_3m_2026-11-28 16:07:41.123456",
             {k: list(zip(v["steps"], v["values"])) for k, v in metrics.items()})
    ingest = curriwatch.load(tmp_path)
    (run,) = ingest.runs
    assert (run.source, run.profile, run.envs) == ("tensorboard", "pymarl", ["3m"])


def test_damaged_or_foreign_sacred_files(tmp_path):
    shutil.copytree(FIXTURES / "results" / "sacred" / "qmix" / "3m" / "1", tmp_path / "cut" / "1")
    data = (tmp_path / "cut" / "1" / "metrics.json").read_bytes()
    (tmp_path / "cut" / "1" / "metrics.json").write_bytes(data[: len(data) // 2])
    (tmp_path / "cut" / "1" / "info.json").unlink()
    shutil.copytree(FIXTURES / "results" / "sacred" / "qmix" / "3m" / "1", tmp_path / "other" / "1")
    (tmp_path / "other" / "1" / "metrics.json").write_text(json.dumps(
        {"accuracy": {"steps": [0, 1, 2], "values": [0.1, 0.2, 0.3], "timestamps": ["x", "y", "z"]},
         "broken": {"steps": [0, 1], "values": [1.0]}}))
    (tmp_path / "not_sacred").mkdir()
    for name in ("run.json", "config.json", "metrics.json"):
        (tmp_path / "not_sacred" / name).write_text("{}")
    runs = {r.name: r for r in curriwatch.load(tmp_path).runs}
    assert sorted(runs) == ["cut/1", "other/1"]
    assert [i.kind for i in runs["cut/1"].issues] == ["corrupt_record"]
    assert {i.kind for i in runs["other/1"].issues} >= {"corrupt_record", "no_profile"}


def test_a_metrics_file_too_large_to_parse_whole_is_a_data_issue(tmp_path, monkeypatch):
    """sacred's JSON is parsed whole: past MAX_BYTES it is reported, never loaded into memory."""
    import curriwatch.readers.sacred as reader

    monkeypatch.setattr(reader, "MAX_BYTES", 10_000)
    shutil.copytree(FIXTURES / "results" / "sacred" / "qmix" / "3m" / "1", tmp_path / "run")
    with pytest.raises(InputError, match="metrics.json: not a JSON object sacred wrote \\(larger than 10000 bytes"):
        curriwatch.load(tmp_path)  # nothing else readable: one clear line (exit 2 in the CLI)


def test_points_keep_sacreds_timestamps_as_wall_time():
    from datetime import datetime

    run = FIXTURES / "results" / "sacred" / "qmix" / "3m" / "1"
    entry = json.loads((run / "metrics.json").read_text())["test_battle_won_mean"]
    f = curriwatch.load(FIXTURES).frame
    sel = f[(f.env_id == "3m") & (f.split == "eval") & (f.metric == "battle_won_mean")].sort_values("step")
    assert list(sel.wall_time) == [datetime.fromisoformat(t).timestamp() for t in entry["timestamps"]]
