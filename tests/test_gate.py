"""Unknown is not healthy: runs and envs that could not be judged, and the gate (exit codes)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import curriwatch
from curriwatch.cli import app
from curriwatch.gate import gate_verdict
from series import Case, EnvSeries as E, write_case
from writers import write_tb

runner = CliRunner()
PLAIN = {"NO_COLOR": "1", "COLUMNS": "100"}
HEALTHY = {"a": E(state="1x4 2x16", train="0.1+0.08x12 0.95~0.01x8", eval="0.95~0.01x20")}


def healthy_run(folder):
    write_case(Case("healthy", HEALTHY, []), folder)
    return folder


def json_report(*args):
    result = runner.invoke(app, ["report", *map(str, args), "--format", "json", "--fail-on", "never"], env=PLAIN)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_run_no_profile_understands_is_unknown_and_fails_the_gate(tmp_path):
    # an SB3 run before any episode ended: only its run-level keys (time/fps, train/*), no return
    write_tb(tmp_path / "sb3", {"time/fps": [(i * 100, 900.0) for i in range(30)],
                                "train/loss": [(i * 100, 1.0 / (i + 1)) for i in range(30)]})
    data = json_report(tmp_path)
    (run,) = data["runs"]
    assert run["health_status"] == "unknown" and "no profile" in run["status_reason"]
    assert data["summary"]["health_status"] == "unknown" and data["summary"]["unknown"] == {"runs": 1, "environments": 0}
    for flags in ([], ["--allow-unknown"]):  # nothing was judged: never a pass
        result = runner.invoke(app, ["scan", str(tmp_path), *flags], env=PLAIN)
        assert result.exit_code == 1 and "nothing was judged" in result.stderr, result.output


def test_a_misspelt_performance_metric_is_unknown_not_healthy(tmp_path):
    healthy_run(tmp_path)
    config = tmp_path / "c.yaml"
    config.write_text("performance_metric: rewrd\n")
    result = runner.invoke(app, ["report", str(tmp_path), "--config", str(config), "--format", "json",
                                 "--fail-on", "never"], env=PLAIN)
    data = json.loads(result.stdout)
    (run,) = data["runs"]
    (env,) = run["environments"]
    assert env["health_status"] == "unknown" and "'rewrd'" in env["status_reason"] and "reward" in env["status_reason"]
    assert run["health_status"] == "unknown" and "no environment could be judged" in run["status_reason"]
    result = runner.invoke(app, ["scan", str(tmp_path), "--config", str(config)], env=PLAIN)
    assert result.exit_code == 1 and "gate failed" in result.stderr


def test_partly_unknown_fails_unless_allowed(tmp_path):
    healthy_run(tmp_path / "good")
    write_tb(tmp_path / "odd", {"score/episode": [(i, float(i)) for i in range(10)]})
    result = runner.invoke(app, ["scan", str(tmp_path)], env=PLAIN)
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert "could not be judged" in line and "--allow-unknown" in line
    result = runner.invoke(app, ["scan", str(tmp_path), "--allow-unknown"], env=PLAIN)
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["scan", str(tmp_path), "--fail-on", "never"], env=PLAIN).exit_code == 0
    assert runner.invoke(app, ["scan", str(tmp_path / "good")], env=PLAIN).exit_code == 0  # all judged, healthy


def test_run_matching_nothing_fails_the_gate(tmp_path):
    healthy_run(tmp_path)
    for command in ("scan", "report"):
        result = runner.invoke(app, [command, str(tmp_path), "--run", "nope*"], env=PLAIN)
        assert result.exit_code == 1 and "no run matches --run 'nope*'" in result.stderr, result.output
        result = runner.invoke(app, [command, str(tmp_path), "--run", "nope*", "--allow-unknown"], env=PLAIN)
        assert result.exit_code == 1
    data = json.loads(runner.invoke(app, ["report", str(tmp_path), "--run", "nope*", "--format", "json"],
                                    env=PLAIN).stdout)
    assert data["summary"]["health_status"] == "unknown" and "--run" in data["summary"]["status_reason"]


def test_a_run_without_points_is_unknown(tmp_path):
    healthy_run(tmp_path / "good")
    write_tb(tmp_path / "empty", {})
    report = curriwatch.analyze(curriwatch.load(tmp_path))
    runs = {r.run: r for r in report.runs}
    assert runs["empty"].health_status == "unknown" and runs["empty"].status_reason
    assert report.health_status == "unknown" and runs["good/run"].health_status == "healthy"
    assert gate_verdict(report, "critical").failed
    assert not gate_verdict(report, "critical", allow_unknown=True).failed
    only_empty = curriwatch.report.Report(report.logdir, [runs["empty"]])
    assert gate_verdict(only_empty, "critical", allow_unknown=True).failed  # nothing judged: never a pass


def test_gate_verdict_levels(tmp_path):
    healthy_run(tmp_path)
    report = curriwatch.analyze(curriwatch.load(tmp_path))
    assert report.health_status == "healthy" and report.runs[0].status_reason is None
    verdict = gate_verdict(report, "critical")
    assert not verdict.failed and verdict.exit_code == 0
    assert gate_verdict(report, "never").exit_code == 0


def test_an_error_while_analysing_one_run_costs_only_that_run(tmp_path, monkeypatch):
    healthy_run(tmp_path / "good")
    write_case(Case("bad", {"boom": E(train="0.1+0.01x50")}, []), tmp_path / "bad")
    from curriwatch.rules import RULES, Rule

    original = RULES["eval_gap"]

    def explode(env, s):
        if env.env_id == "boom":
            raise RuntimeError("unexpected shape")
        return original.func(env, s)

    monkeypatch.setitem(RULES, "eval_gap", Rule("eval_gap", explode, original.description))
    report = curriwatch.analyze(curriwatch.load(tmp_path))
    runs = {r.run: r for r in report.runs}
    assert runs["good/run"].health_status == "healthy"
    bad = runs["bad/run"]
    assert bad.health_status == "unknown" and "unexpected shape" in bad.status_reason
    assert [d.kind for d in bad.data_issues] == ["analysis_error"]


@pytest.mark.parametrize("fail_on, code", [("critical", 1), ("warning", 1), ("never", 0)])
def test_unknown_and_incidents_together(tmp_path, fail_on, code):
    write_case(Case("critical", {"a": E(state="1x20 2x60", train="0.1+0.01x86 0.95~0.02x10",
                                        eval="0.1+0.045x20 0.95~0.02x30 0.4~0.02x30")}, []), tmp_path / "crit")
    write_tb(tmp_path / "odd", {"score/episode": [(i, float(i)) for i in range(10)]})
    result = runner.invoke(app, ["scan", str(tmp_path), "--fail-on", fail_on, "--allow-unknown"], env=PLAIN)
    assert result.exit_code == code, result.output


def test_unknown_runs_are_known_before_analysis_for_doctor(tmp_path):
    from curriwatch.analyze import unknown_runs

    healthy_run(tmp_path / "good")
    write_tb(tmp_path / "odd", {"score/episode": [(i, float(i)) for i in range(10)]})
    ingest = curriwatch.load(tmp_path)
    reasons = unknown_runs(ingest)
    assert list(reasons) == ["odd"] and "no profile" in reasons["odd"]
    assert "'rewrd'" in unknown_runs(ingest, "rewrd")["good/run"]


def test_doctor_says_which_runs_cannot_be_judged(tmp_path):
    healthy_run(tmp_path / "good")
    write_tb(tmp_path / "odd", {"score/episode": [(i, float(i)) for i in range(10)]})
    result = runner.invoke(app, ["doctor", str(tmp_path)], env=PLAIN)
    assert result.exit_code == 0, result.output
    good, odd = result.stdout.split("run odd")
    assert "status: unknown" not in good
    assert "status: unknown — no profile recognises its tags" in " ".join(odd.split())


def test_an_env_with_too_few_points_is_unknown_not_healthy(tmp_path):
    write_tb(tmp_path / "run", {"train/a/reward": [(s, 0.5 + s / 1000) for s in range(0, 500, 10)],
                                "train/b/reward": [(0, 0.2), (10, 0.3)]})
    report = curriwatch.analyze(curriwatch.load(tmp_path))
    envs = {e.env_id: e for e in report.runs[0].environments}
    assert envs["a"].health_status != "unknown"
    assert envs["b"].health_status == "unknown" and "only 2 point(s)" in envs["b"].status_reason
    result = runner.invoke(app, ["scan", str(tmp_path)], env=PLAIN)
    assert result.exit_code == 1 and "could not be judged" in result.stderr
