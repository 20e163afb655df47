"""TorchRL's CSVLogger (`{log_dir}/{exp_name}/scalars/{key}.csv` of `step,value` lines) as BenchMARL's csv logger
writes it: files TorchRL itself wrote (tests/fixtures/torchrl/make_torchrl_logs.py), read by the `benchmarl`
profile."""
from __future__ import annotations

import shutil
from pathlib import Path

import curriwatch
from writers import write_tb

FIXTURES = Path(__file__).parent / "fixtures" / "torchrl" / "benchmarl"
TASKS = ("balance", "navigation", "transport")


def _experiments() -> list[Path]:
    return sorted(p.parent for p in FIXTURES.glob("*/*/scalars"))


def _oracle(exp: Path, key: str) -> list[tuple[int, float]]:
    lines = (exp / "scalars" / f"{key}.csv").read_text().splitlines()
    return [(int(a), float(b)) for a, b in (line.split(",") for line in lines)]


def _points(ingest, env: str, split: str, metric: str) -> list[tuple[int, float]]:
    f = ingest.frame
    sel = f[(f.env_id == env) & (f.split == split) & (f.metric == metric)].sort_values("step")
    return list(zip(sel.step.astype(int), sel.value.astype(float)))


def test_benchmarl_experiments_torchrl_wrote_are_read_exactly():
    ingest = curriwatch.load(FIXTURES)
    assert sorted((r.source, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        ("torchrl-csv", "benchmarl", (f"mappo_{t}_mlp",)) for t in TASKS]
    for exp in _experiments():
        env = exp.name.split("__")[0]
        assert _points(ingest, env, "train", "episode_reward_mean") == _oracle(
            exp, "collection_reward_episode_reward_mean")
        evals = _points(ingest, env, "eval", "episode_reward_mean")
        assert evals == _oracle(exp, "eval_reward_episode_reward_mean") and len(evals) == 60
    report = curriwatch.analyze(ingest)
    assert {(w.env_id, w.type) for r in report.runs for w in r.warnings} == {
        ("mappo_transport_mlp", "graduated_regression"), ("mappo_navigation_mlp", "training_stagnation")}


def test_the_tensorboard_loggers_event_files_beside_them_are_the_run(tmp_path):
    """BenchMARL with `loggers: [csv, tensorboard]`: both TorchRL loggers write into `{folder}/{name}/`."""
    exp = _experiments()[0]
    copy = tmp_path / exp.name
    shutil.copytree(exp, copy)
    write_tb(copy, {"eval_reward_episode_reward_mean": _oracle(exp, "eval_reward_episode_reward_mean")})
    (run,) = curriwatch.load(tmp_path).runs
    assert (run.source, run.profile, run.envs) == ("tensorboard", "benchmarl", [exp.name.split("__")[0]])


def test_the_wandb_loggers_run_of_the_experiment_beside_them_is_the_run(tmp_path):
    """BenchMARL's default `loggers: [csv, wandb]`: TorchRL's WandbLogger writes `{folder}/wandb/` beside the CSV
    experiment `{folder}/{name}/`, its run id the experiment's name."""
    from writers import write_wandb

    exp = _experiments()[0]
    folder = tmp_path / exp.parent.name
    shutil.copytree(exp, folder / exp.name)
    rows = [{"eval/reward/episode_reward_mean": v} for _s, v in _oracle(exp, "eval_reward_episode_reward_mean")]
    write_wandb(folder / "wandb", rows, run_id=exp.name)  # wandb/offline-run-{stamp}-{id}/
    (run,) = curriwatch.load(tmp_path).runs
    assert run.source == "wandb"
    shutil.rmtree(folder / "wandb")
    write_wandb(folder / "wandb", rows, run_id="other")
    assert sorted(r.source for r in curriwatch.load(tmp_path).runs) == ["torchrl-csv", "wandb"]


def test_a_resumed_append_and_damaged_lines(tmp_path):
    exp = _experiments()[0]
    copy = tmp_path / exp.name
    shutil.copytree(exp, copy)
    path = copy / "scalars" / "eval_reward_episode_reward_mean.csv"
    lines = path.read_text().splitlines()
    resumed = [f"{s},{float(v) + 1000}" for s, v in (line.split(",") for line in lines[40:])]
    path.write_text("\n".join(lines[:50] + ["garbage", "7,8,9"] + resumed) + "\n")
    ingest = curriwatch.load(tmp_path)
    env = exp.name.split("__")[0]
    expected = [(s, v + 1000 if k >= 40 else v) for k, (s, v) in enumerate(_oracle(exp, "eval_reward_episode_reward_mean"))]
    assert _points(ingest, env, "eval", "episode_reward_mean") == expected
    kinds = sorted({i.kind for r in ingest.runs for i in r.issues})
    assert "corrupt_record" in kinds and "duplicate_points" in kinds


def test_csv_files_of_other_shapes_are_no_torchrl_run(tmp_path):
    (tmp_path / "exp" / "scalars").mkdir(parents=True)
    (tmp_path / "exp" / "scalars" / "loss.csv").write_text("step,loss\n1,0.5\n")
    from curriwatch.discover import discover

    assert discover(tmp_path) == ([], [])
