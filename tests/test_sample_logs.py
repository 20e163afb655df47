"""End to end on the bundled sample logs: every injected anomaly is found, healthy envs are silent."""
from __future__ import annotations

import importlib
import json

import pytest

import curriwatch


@pytest.fixture(scope="module")
def analysed(request):
    from conftest import SAMPLE_LOGS

    injected = json.loads((SAMPLE_LOGS / "injected.json").read_text())
    for extra in sorted(SAMPLE_LOGS.glob("*/injected.json")):  # runs added by `generate.py --only NAME`
        injected["runs"] += json.loads(extra.read_text())["runs"]
    report = curriwatch.analyze(curriwatch.load(SAMPLE_LOGS, config=curriwatch.load_config(None)))
    return injected, {r.run: r for r in report.runs}


def test_every_run_is_analysed_with_its_profile(analysed):
    injected, runs = analysed
    assert sorted(runs) == sorted(r["run"] for r in injected["runs"])
    assert {runs[r].profile for r in runs} == {"generic", "roll", "marin", "tune", "mlagents"}


def test_every_injected_anomaly_is_reported_near_its_onset(analysed):
    injected, runs = analysed
    for spec in injected["runs"]:
        run = runs[spec["run"]]
        for env in spec["envs"]:
            if not env["expected_warning"]:
                continue
            hits = [w for w in run.warnings if w.env_id == env["env_id"] and w.type == env["expected_warning"]]
            assert hits, f"{spec['run']}: {env['env_id']}: no {env['expected_warning']} in {run.warnings}"
            first = min(h.first_step for h in hits)
            assert abs(first - env["onset"]) <= 2 * spec["eval_every"], (spec["run"], env, first)
            assert any(h.severity in ("warning", "critical") for h in hits)


def test_healthy_and_late_envs_are_silent(analysed):
    injected, runs = analysed
    for spec in injected["runs"]:
        run = runs[spec["run"]]
        for env in spec["envs"]:
            if env["role"] in ("healthy", "late"):
                noise = [(w.type, w.severity, w.first_step) for w in run.warnings if w.env_id == env["env_id"]]
                assert noise == [], (spec["run"], env["env_id"], noise)
                (health,) = [e for e in run.environments if e.env_id == env["env_id"]]
                assert health.health_status == "healthy" and health.current_state == "graduated"


def test_regressed_env_is_critical_with_its_graduation_and_timelines_follow_the_scenario(analysed):
    injected, runs = analysed
    for spec in injected["runs"]:
        run = runs[spec["run"]]
        if any(env["role"] == "regress" for env in spec["envs"]):
            assert run.health_status == "critical"
        for env in spec["envs"]:
            (health,) = [e for e in run.environments if e.env_id == env["env_id"]]
            spans = [(iv.state, iv.start_step) for e, iv in run.timeline if e == env["env_id"]]
            if spec["states"] == "explicit":  # the logged states, exactly
                expected = ([("locked", 0)] if env["unlock"] else []) + [("active", env["unlock"])]
                expected += [("graduated", env["graduate"])] if env["graduate"] else []
                assert spans == expected, (env["env_id"], spans)
            elif env["graduate"]:  # inferred: active from the first training point, graduated before
                assert [s for s, _ in spans][-2:] == ["active", "graduated"], (env["env_id"], spans)
                assert env["unlock"] <= health.graduation_step <= env["graduate"]
            if env["role"] == "regress":
                assert health.health_status == "critical" and health.graduation_baseline > 0.85


def test_analyze_takes_a_bare_frame_too(sample_logs):
    ingest = curriwatch.load(sample_logs / "generic", config=curriwatch.load_config(None))
    from_ingest = curriwatch.analyze(ingest)
    from_frame = curriwatch.analyze(ingest.frame, curriwatch.load_config(None), performance_metric="reward")
    key = lambda r: [(w.type, w.env_id, w.severity, w.first_step) for w in r.runs[0].warnings]  # noqa: E731
    assert key(from_frame) == key(from_ingest) and key(from_ingest)
    # a frame built by hand — plain strings, no wall_time or count, shuffled rows — reads the same (it raised a
    # bare AttributeError on .cat, or with a plain metric column judged nothing: unknown, no envs)
    plain = ingest.frame.drop(columns=["wall_time", "count"]).astype(
        {c: str for c in ("run", "env_id", "split", "metric")}).sample(frac=1.0, random_state=0)
    from_plain = curriwatch.analyze(plain, curriwatch.load_config(None), performance_metric="reward")
    assert key(from_plain) == key(from_ingest)
    assert importlib.import_module("curriwatch.analyze")._as_frame(ingest.frame) is ingest.frame  # load's: no copy, no sort
    with pytest.raises(curriwatch.InputError, match="no column.*split"):
        curriwatch.analyze(plain.drop(columns=["split"]))


def test_marin_curriculum_state_json_fixes_the_final_states(tmp_path, sample_logs):
    import shutil

    run = "marin/wandb/offline-run-20261101_120000-cw0marin"
    logdir = tmp_path / "logs"
    shutil.copytree(sample_logs / "marin", logdir / "marin")
    state = {"unlocked": ["addition", "multiplication", "sorting", "parsing", "reasoning"],
             "graduated": ["addition", "multiplication", "reasoning"], "current_step": 12000}
    (logdir / run / "curriculum_state.json").write_text(json.dumps(state))
    report = curriwatch.analyze(curriwatch.load(logdir, config=curriwatch.load_config(None)))
    assert [d for d in report.runs[0].data_issues if d.kind in ("state_mismatch", "state_from_file")] == []
    state["graduated"].append("sorting")  # Marin says sorting graduated; its logs never show it
    # Marin writes the file into the trainer's checkpoint folder: {checkpoint base}/{run id}/
    (logdir / run / "curriculum_state.json").unlink()
    (logdir / "marin" / "checkpoints" / "cw0marin").mkdir(parents=True)
    (logdir / "marin" / "checkpoints" / "cw0marin" / "curriculum_state.json").write_text(json.dumps(state))
    report = curriwatch.analyze(curriwatch.load(logdir, config=curriwatch.load_config(None)))
    (issue,) = [d for d in report.runs[0].data_issues if d.kind == "state_from_file"]
    assert "'sorting'" in issue.detail and "ended active" in issue.detail
    (sorting,) = [e for e in report.runs[0].environments if e.env_id == "sorting"]
    spans = [(iv.state, iv.start_step) for e, iv in report.runs[0].timeline if e == "sorting"]
    assert sorting.current_state == "graduated" and spans[-1] == ("graduated", sorting.graduation_step)
    # given with --state-file (analyze(state_file=...)), the file wins over nothing found
    other = tmp_path / "state.json"
    other.write_text(json.dumps({"unlocked": state["unlocked"], "graduated": ["addition"]}))
    report = curriwatch.analyze(curriwatch.load(logdir, config=curriwatch.load_config(None)), state_file=other)
    states = {e.env_id: e.current_state for e in report.runs[0].environments}
    assert states["multiplication"] == "active" and states["addition"] == "graduated"


def test_incident_table_is_worst_first_and_runs_say_where_states_came_from(sample_logs):
    report = curriwatch.analyze(curriwatch.load(sample_logs, config=curriwatch.load_config(None)))
    table = report.incidents()
    from conftest import SAMPLE_SEVERITIES

    counts = report.counts()
    assert len(table) == sum(counts.values())
    assert {k: counts[k] for k in SAMPLE_SEVERITIES} == SAMPLE_SEVERITIES  # what injected.json injected
    ranks = table.severity.map({"critical": 2, "warning": 1, "info": 0}).tolist()
    assert ranks == sorted(ranks, reverse=True)
    assert {r.run.split("/")[0]: r.state_sources for r in report.runs} == {
        "generic": {"logged"}, "roll": {"inferred"}, "marin": {"inferred"},
        "marin_grouped": {"inferred"}}


def test_grouped_marin_experiment_is_one_run_of_two_workers(analysed):
    injected, runs = analysed
    ingest = curriwatch.load(__import__("conftest").SAMPLE_LOGS / "marin_grouped")
    (info,) = ingest.runs
    assert info.name == "wandb/cw1marin" and len(info.members) == 2
    assert [m.run_id for m in info.members] == ["cw1marin-rollout-0", "cw1marin-rollout-1"]
    train = ingest.frame[(ingest.frame.split == "train") & (ingest.frame.metric == "success_rate")]
    # batches of 32 combined per weight step across rows and workers; nothing lost
    from curriwatch.discover import discover
    from curriwatch.readers import read_run

    batches = sum(1 for src in discover(ingest.logdir)[0] for tag, _s, _v in read_run(src).points()
                  if tag.startswith("inference.rollout/") and tag.endswith("/success_rate"))
    assert train["count"].sum() == 32 * batches and (train["count"] > 32).mean() > 0.5
    assert "marin_grouped/wandb/cw1marin" in runs


def test_mlagents_lesson_curriculum_tells_its_story(analysed):
    """Lessons advance with a dip that recovers, fall back to 0 (a resume without
    training_status.json), come back, and collapse after the advance to lesson 3."""
    injected, runs = analysed
    (spec,) = [r for r in injected["runs"] if r["states"] == "lessons"]
    run = runs[spec["run"]]
    (env_spec,) = spec["envs"]
    (env,) = run.environments
    assert run.profile == "mlagents" and env.env_id == env_spec["env_id"] and env.current_state == "active"
    ((param, changes),) = env_spec["lessons"].items()
    (track,) = env.lessons
    assert track.parameter == param
    assert [(s.start_step if k else 0, s.lesson) for k, s in enumerate(track.spans)] == [tuple(c) for c in changes]
    verdicts = {str(a.step): a.verdict for a in track.advances}
    assert {k: verdicts[k] for k in env_spec["advances"]} == env_spec["advances"]
    for also in env_spec["also_expected"]:
        (w,) = [w for w in run.warnings if w.type == also["type"]]
        assert w.first_step == also["onset"] and w.resolved and w.last_step == also["resolved_at"]
    (collapse,) = [w for w in run.warnings if w.type == env_spec["expected_warning"]]
    assert collapse.severity == "critical" and not collapse.resolved and env.health_status == "critical"
    assert {w.type for w in run.warnings} == {"lesson_reward_collapse", "lesson_regression"}
