"""facebookresearch/mtrl's JSON-lines logs (`train.log`, `eval.log` in the experiment's save_dir), written by
tests/writers.py's MtrlLogger — MTRL's Logger call for call (MTRL needs torch and hydra, so it is not installed)."""
from __future__ import annotations

import json

import curriwatch
from writers import MtrlLogger

TASKS = 4


def _success(task: int, step: int) -> float:
    """Task i learns at its own pace; task 3 never learns."""
    return 0.0 if task == 3 else min(1.0, step / (20_000 * (task + 1)))


def _experiment(logger: MtrlLogger, steps: range, eval_every: int = 10_000) -> None:
    """What mtrl/experiment/multitask.py logs: per episode (150 steps) each task's training success (0/1) and
    reward, dumped each episode; every eval_every steps each task's success over 10 evaluation episodes."""
    for step in steps:
        if step % 150 == 0 and step:
            for i in range(TASKS):
                logger.log(f"train/success_env_index_{i}", float((step // 150 + i) % 10 < 10 * _success(i, step)), step)
                logger.log(f"train/episode_reward_env_index_{i}", 100.0 + i, step)
                logger.log(f"train/env_index_{i}", i, step)
            logger.log("train/actor_loss", -4.0, step)
        if step % eval_every == 0:
            for i in range(TASKS):
                for episode in range(10):
                    logger.log(f"eval/success_env_index_{i}", float(episode < round(10 * _success(i, step))), step)
                logger.log(f"eval/env_index_{i}", i, step)
        if step % 150 == 0 or step % eval_every == 0:
            logger.dump(step)


def test_mtrl_logs_are_a_run_of_task_indices(tmp_path):
    save_dir = tmp_path / "logs" / "mt10_745"
    _experiment(MtrlLogger(save_dir), range(0, 100_001, 50))
    (save_dir / "config.json").write_text(json.dumps({"setup": {"id": "mt10_745"}}))
    ingest = curriwatch.load(tmp_path)
    (info,) = ingest.runs
    assert (info.source, info.profile, info.performance_metric) == ("mtrl", "mtrl", "success")
    assert info.envs == [str(i) for i in range(TASKS)]
    f = ingest.frame
    ev = f[(f.split == "eval") & (f.metric == "success") & (f.env_id == "1")].sort_values("step")
    assert list(ev.step) == list(range(0, 100_001, 10_000))
    assert list(ev.value) == [round(10 * _success(1, s)) / 10 for s in range(0, 100_001, 10_000)]
    tr = f[(f.split == "train") & (f.metric == "success") & (f.env_id == "2")]
    assert len(tr) == 100_000 // 150 and set(tr.value) <= {0.0, 1.0}
    assert {"train/actor_loss"} <= set(info.unclaimed_tags)
    report = curriwatch.analyze(ingest)
    (run,) = report.runs
    states = {e.env_id: e.current_state for e in run.environments}
    assert states["0"] == "graduated" and states["3"] == "active"
    assert [w.env_id for w in run.warnings if w.type == "training_stagnation"] == ["3"]


def test_a_resumed_mtrl_experiment_appends_a_restart(tmp_path):
    """retain_logs: the resumed process appends from its last checkpoint; the steps it logs again are a
    restart (the later write wins), not a second observation."""
    save_dir = tmp_path / "mt10"
    _experiment(MtrlLogger(save_dir), range(0, 60_001, 50))
    _experiment(MtrlLogger(save_dir, retain_logs=True), range(40_000, 100_001, 50))
    ingest = curriwatch.load(tmp_path)
    f = ingest.frame
    ev = f[(f.split == "eval") & (f.metric == "success") & (f.env_id == "0")]
    assert sorted(ev.step) == list(range(0, 100_001, 10_000))
    assert any(i.kind == "duplicate_points" for i in ingest.all_issues)


def test_a_log_file_that_is_no_mtrl_log_is_not_read_as_one(tmp_path):
    (tmp_path / "train.log").write_text("epoch 1 loss 0.3\n{\"step\": 1}\n")
    (tmp_path / "eval.log").write_text(json.dumps({"step": 1, "success": 0.5}) + "\n")
    from curriwatch.sources import SOURCE_KINDS

    assert SOURCE_KINDS["mtrl"].detect(str(tmp_path), ["train.log", "eval.log"]) == []
