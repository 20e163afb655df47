"""DeepMind Acme's CSV logs (`~/acme/{acme_id}/logs/{label}/logs.csv`): files Acme itself wrote (tests/fixtures/acme/,
by make_acme_logs.py) and files written the same way by tests/writers.py's AcmeCsvLogger."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import curriwatch
from writers import AcmeCounters, AcmeCsvLogger

FIXTURES = Path(__file__).parent / "fixtures" / "acme" / "acme"
RUNS = ("cartpole_balance", "hopper_hop", "walker_walk")


def _points(ingest, env, split):
    f = ingest.frame
    sel = f[(f.env_id == env) & (f.split == split) & (f.metric == "episode_return")]
    return sorted(zip(sel.step.astype(int), sel.value.astype(float)))


def _expected_eval(run: Path) -> list[tuple[int, float]]:
    """Where each evaluation episode fell: the actor steps of the last actor row that had seen fewer evaluator
    episodes (the evaluator ran first, so its own rows have no actor_steps); an evaluation's episodes, sharing a
    step, are one point, their mean."""
    actor = pd.read_csv(run / "logs" / "actor" / "logs.csv")
    evaluator = pd.read_csv(run / "logs" / "evaluator" / "logs.csv")
    out = []
    for episodes, value in zip(evaluator.evaluator_episodes, evaluator.episode_return):
        before = actor[actor.evaluator_episodes < episodes]
        out.append((int(before.actor_steps.max()) if len(before) else 0, float(value)))
    means = pd.DataFrame(out, columns=["step", "value"]).groupby("step").value.mean()
    return [(int(s), float(v)) for s, v in means.items()]


def test_runs_acme_wrote_are_read_on_the_actors_steps():
    ingest = curriwatch.load(FIXTURES)
    assert sorted((r.name, r.source, r.profile, tuple(r.envs)) for r in ingest.runs) == [
        (f"{name}/logs", "acme", "acme", (name,)) for name in RUNS]
    for name in RUNS:
        actor = pd.read_csv(FIXTURES / name / "logs" / "actor" / "logs.csv")
        assert _points(ingest, name, "train") == sorted(zip(actor.actor_steps.astype(int), actor.episode_return))
        evals, expected = _points(ingest, name, "eval"), _expected_eval(FIXTURES / name)
        assert [s for s, _ in evals] == [s for s, _ in expected] and len(evals) == 17  # 17 evaluations
        assert [v for _, v in evals] == pytest.approx([v for _, v in expected], rel=1e-12)
    assert not [i for r in ingest.runs for i in r.issues if i.kind != "unclaimed_tags"]
    report = curriwatch.analyze(ingest)
    found = {(w.env_id, w.type, w.severity) for r in report.runs for w in r.warnings}
    assert found == {("walker_walk", "graduated_regression", "critical"),
                     ("hopper_hop", "training_stagnation", "warning")}
    (walker,) = [w for r in report.runs for w in r.warnings if w.env_id == "walker_walk"]
    assert 56_000 <= walker.first_step <= 56_000 + 2 * 20 * 250  # planned at 70 % of 80,000 actor steps


def test_the_logs_folder_alone_is_the_same_run(tmp_path):
    shutil.copytree(FIXTURES / "walker_walk", tmp_path / "walker_walk")
    whole = curriwatch.load(tmp_path)
    alone = curriwatch.load(tmp_path / "walker_walk" / "logs")
    assert [r.envs for r in alone.runs] == [r.envs for r in whole.runs] == [["walker_walk"]]
    assert alone.frame[["step", "value", "split"]].equals(whole.frame[["step", "value", "split"]])


def _experiment(root, acme_id, *, actor_first=False, shared=True, episodes=60, resume_at=None):
    """run_experiment's loop over a task whose return is 10 x the evaluations so far: evaluate 3 episodes, then
    train 10 episodes of 100 steps; `resume_at` restarts the job from a checkpoint of that many actor episodes."""
    counters, own = AcmeCounters(), {"actor": AcmeCounters(), "evaluator": AcmeCounters()}
    loggers = {label: AcmeCsvLogger(root, acme_id, label) for label in ("actor", "evaluator")}

    def counts(label, **c):
        return counters.increment(label, **c) if shared else own[label].increment(label, **c)

    def evaluate(k):
        for _ in range(3):
            loggers["evaluator"].write({"episode_return": 10.0 * k, "episode_length": 100,
                                        **counts("evaluator", episodes=1, steps=100)})

    def train(k):
        for _ in range(10):
            loggers["actor"].write({"episode_return": 10.0 * k + 1, "episode_length": 100,
                                    **counts("actor", episodes=1, steps=100)})

    for k in range(episodes // 10):
        if actor_first:
            train(k)
            evaluate(k)
        else:
            evaluate(k)
            train(k)
    for logger in loggers.values():
        logger.close()


def test_an_evaluator_that_first_wrote_after_the_actor_keeps_its_actor_steps(tmp_path):
    _experiment(tmp_path, "task", actor_first=True)
    header = (tmp_path / "task" / "logs" / "evaluator" / "logs.csv").read_text().splitlines()[0]
    assert "actor_steps" in header
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "task", "eval") == [(1000 * (k + 1), 10.0 * k) for k in range(6)]


def test_the_evaluators_episodes_are_placed_by_the_actors_rows(tmp_path):
    _experiment(tmp_path, "task")
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "task", "eval") == [(1000 * k, 10.0 * k) for k in range(6)]
    assert _points(ingest, "task", "train") == [(100 * (n + 1), 10.0 * (n // 10) + 1) for n in range(60)]


def test_labels_without_a_shared_counter_stay_on_their_own_steps_and_say_so(tmp_path):
    _experiment(tmp_path, "task", shared=False)
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "task", "eval") == sorted((100 * (n + 1), 10.0 * (n // 3)) for n in range(18))
    (issue,) = [i for r in ingest.runs for i in r.issues if i.kind == "own_step_axis"]
    assert issue.path == "task/logs/evaluator/logs.csv" and "18 row(s)" in issue.detail


def test_a_resumed_job_appending_to_its_logs_is_a_restart(tmp_path):
    """A job restored from a checkpoint appends to the same files (mode 'a', no second header) with the counts the
    checkpoint saved: steps it logs again replace the crashed job's."""
    logger = AcmeCsvLogger(tmp_path, "task", "actor")
    for n in range(1, 41):
        logger.write({"actor_episodes": n, "actor_steps": 100 * n, "episode_return": 1.0})
    logger.close()
    logger = AcmeCsvLogger(tmp_path, "task", "actor")
    for n in range(31, 61):
        logger.write({"actor_episodes": n, "actor_steps": 100 * n, "episode_return": 2.0})
    logger.close()
    assert (tmp_path / "task" / "logs" / "actor" / "logs.csv").read_text().count("actor_episodes") == 1
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "task", "train") == [(100 * n, 1.0 if n <= 30 else 2.0) for n in range(1, 61)]
    assert [i.kind for r in ingest.runs for i in r.issues if i.kind == "duplicate_points"] == ["duplicate_points"]


def test_a_logs_folder_of_other_csv_files_is_no_acme_run(tmp_path):
    (tmp_path / "logs" / "eval").mkdir(parents=True)
    (tmp_path / "logs" / "eval" / "logs.csv").write_text("name,score\nalice,3\n")
    (tmp_path / "logs" / "dcd").mkdir()
    (tmp_path / "logs" / "dcd" / "logs.csv").write_text("# _tick,steps,test_returns:MiniGrid\n0,0,0.1\n")
    (tmp_path / "logs" / "dcd" / "fields.csv").write_text("_tick,steps,test_returns:MiniGrid\n")
    runs = curriwatch.load(tmp_path).runs
    assert [r.source for r in runs] == ["dcd"]


def test_a_plain_environment_loop_is_on_its_steps(tmp_path):
    """`EnvironmentLoop(env, actor)` alone: label `environment_loop`, a counter without prefix (`steps`, `episodes`)."""
    logger = AcmeCsvLogger(tmp_path, "pendulum", "environment_loop")
    for n in range(1, 31):
        logger.write({"episodes": n, "steps": 200 * n, "episode_return": -1500.0 + 40 * n, "episode_length": 200,
                      "steps_per_second": 900.0})
    logger.close()
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "pendulum", "train") == [(200 * n, -1500.0 + 40 * n) for n in range(1, 31)]
    assert not [i for r in ingest.runs for i in r.issues if i.kind != "unclaimed_tags"]


def test_a_restored_job_appending_rows_of_a_longer_layout_is_read_on(tmp_path):
    """run_experiment restored from a checkpoint: its loggers append without a header, each with the fields of its
    own first row, which now holds every count the restored parent counter had — the evaluator's rows gain
    `actor_episodes`, `actor_steps` and the learner's `learner_steps` and `learner_walltime` its header lacks."""
    counters = AcmeCounters()
    ev, actor = AcmeCsvLogger(tmp_path, "task", "evaluator"), AcmeCsvLogger(tmp_path, "task", "actor")
    learner = AcmeCsvLogger(tmp_path, "task", "learner")

    def round_(k, ev, actor, learner, counters):
        for _ in range(3):
            ev.write({"episode_return": 10.0 * k, "episode_length": 100, "steps_per_second": 1e3,
                      **counters.increment("evaluator", episodes=1, steps=100)})
        for _ in range(10):
            actor.write({"episode_return": 10.0 * k + 1, "episode_length": 100, "steps_per_second": 1e3,
                         **counters.increment("actor", episodes=1, steps=100)})
            learner.write({"critic_loss": 0.5, **counters.increment("learner", steps=25, walltime=0.25)})

    for k in range(8):  # crashes after 8 rounds; the checkpoint was saved after round 5
        round_(k, ev, actor, learner, counters)
        if k == 5:
            saved = dict(counters.counts)
    for logger in (ev, actor, learner):
        logger.close()
    counters = AcmeCounters()
    counters.counts = saved
    ev, actor, learner = (AcmeCsvLogger(tmp_path, "task", label) for label in ("evaluator", "actor", "learner"))
    for k in range(6, 12):
        round_(k, ev, actor, learner, counters)
    for logger in (ev, actor, learner):
        logger.close()
    text = (tmp_path / "task" / "logs" / "evaluator" / "logs.csv").read_text().splitlines()
    assert len(text[0].split(",")) == 5 and len(text[-1].split(",")) == 9  # the restored rows' longer layout
    ingest = curriwatch.load(tmp_path)
    assert _points(ingest, "task", "eval") == [(1000 * k, 10.0 * k) for k in range(12)]
    assert _points(ingest, "task", "train") == [(100 * (n + 1), 10.0 * (n // 10) + 1) for n in range(120)]
    kinds = [i.kind for r in ingest.runs for i in r.issues]
    assert "corrupt_record" not in kinds and "own_step_axis" not in kinds and "duplicate_points" in kinds


def test_a_restored_layout_is_decided_on_several_rows():
    """One restored evaluator row whose return happens to be a whole number fits two layouts (its return read as the
    evaluator's episode count); the rows after it, returns that go down, leave one."""
    from curriwatch.readers.acme import _restored_layout

    header = ["episode_length", "episode_return", "evaluator_episodes", "evaluator_steps", "steps_per_second"]
    counters = {"actor_episodes", "actor_steps", "evaluator_episodes", "evaluator_steps", "learner_steps",
                "learner_walltime"}
    rows = [["18", "1800", "1000", "377.0", "61", "6100", "4500", "2300.5"],
            ["18", "1800", "1000", "352.25", "62", "6200", "4500", "2210.0"]]
    assert _restored_layout(header, counters, rows[:1]) is None  # two layouts fit one row
    assert _restored_layout(header, counters, rows) == [
        "actor_episodes", "actor_steps", "episode_length", "episode_return", "evaluator_episodes", "evaluator_steps",
        None, "steps_per_second"]  # learner_steps or learner_walltime: left out
