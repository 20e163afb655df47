"""Reports and the gate: JSON against its schema and the library, terminal at 80 columns, Markdown
tables, exit codes per --fail-on level and per error class, the saved last scan."""
from __future__ import annotations

import json
import os
import re
import time

import pytest
from typer.testing import CliRunner

import curriwatch
from curriwatch.cli import app
from series import Case, EnvSeries as E, write_case

runner = CliRunner()
PLAIN = {"NO_COLOR": "1", "COLUMNS": "80"}


@pytest.fixture(scope="module")
def sample_json(core_sample_logs):
    result = runner.invoke(app, ["report", str(core_sample_logs), "--format", "json", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_is_the_library_report_as_a_whole(sample_json, sample_logs):
    report = curriwatch.analyze(curriwatch.load(sample_logs, config=curriwatch.load_config(None)))
    assert sample_json == json.loads(json.dumps(report.to_dict()))


def test_json_validates_against_the_shipped_schema(sample_json):
    import jsonschema

    schema = json.loads(runner.invoke(app, ["schema"]).stdout)
    jsonschema.validate(sample_json, schema)
    assert sample_json["schema_version"] == 1
    from conftest import N_SAMPLE_ENVS, N_SAMPLE_RUNS, SAMPLE_SEVERITIES

    # one critical per regressed env, one warning per stagnant or volatile env (sample_logs/injected.json);
    # the summary counts the info incidents the runs hold
    infos = sum(w["severity"] == "info" for r in sample_json["runs"] for w in r["warnings"])
    assert sample_json["summary"] == {"runs": N_SAMPLE_RUNS, "environments": N_SAMPLE_ENVS,
                                      "health_status": "critical", "status_reason": None,
                                      "unknown": {"runs": 0, "environments": 0},
                                      "warnings": {**SAMPLE_SEVERITIES, "info": infos}}
    broken = json.loads(json.dumps(sample_json))
    broken["runs"][0]["warnings"][0]["severity"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_json_never_holds_nan_or_infinity(tmp_path):
    write_case(Case("nan", {"a": E(train="0.1+0.01x50", eval="0.5x5")}, []), tmp_path)
    from writers import write_tb

    write_tb(tmp_path / "run2", {"train/b/reward": [(1, float("nan")), (2, float("inf")), (3, 0.5)]})
    result = runner.invoke(app, ["report", str(tmp_path), "--format", "json", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    def reject(token):
        raise AssertionError(f"{token} in JSON")

    data = json.loads(result.stdout, parse_constant=reject)
    (run2,) = [r for r in data["runs"] if r["run"] == "run2"]
    assert run2["environments"][0]["current_train_performance"] == 0.5
    assert any(d["kind"] == "non_finite_values" for d in run2["data_issues"])


def test_terminal_report_at_80_columns_without_colour(sample_logs):
    from conftest import N_SAMPLE_RUNS

    result = runner.invoke(app, ["scan", str(sample_logs), "--fail-on", "never"], env=PLAIN)
    assert result.exit_code == 0
    out = result.stdout
    assert "\x1b[" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    injected = json.loads((sample_logs / "injected.json").read_text())
    for spec in injected["runs"]:
        assert f"run {spec['run']}" in out
        for env in spec["envs"]:
            if env["expected_warning"]:
                assert re.search(rf"{env['env_id']} · since step \d+ \((ongoing|resolved)\)\n +"
                                 rf"{env['expected_warning']}: ", out), env
    assert out.startswith(f"curriwatch: CRITICAL · {N_SAMPLE_RUNS} run(s)")  # the verdict first
    assert out.index("worst incidents") < out.index("run generic/curriculum_run")
    assert "· locked  ─ active  ━ graduated  ▲ warning  ✖ critical starts" in out


def test_terminal_report_in_colour_on_a_forced_terminal(sample_logs):
    result = runner.invoke(app, ["scan", str(sample_logs), "--fail-on", "never"],
                           env={"COLUMNS": "80", "FORCE_COLOR": "1", "TERM": "xterm-256color"})
    assert "\x1b[" in result.stdout


def test_run_filter(sample_logs):
    result = runner.invoke(app, ["scan", str(sample_logs), "--run", "roll/*", "--fail-on", "never"], env=PLAIN)
    assert "run roll/agentic_sokoban" in result.stdout and "run generic" not in result.stdout
    assert not re.search(r"^run +status +envs", result.stdout, re.M)  # one run: no overview


def test_markdown_has_overview_env_and_incident_tables(sample_logs, tmp_path):
    out = tmp_path / "summary.md"
    result = runner.invoke(app, ["report", str(sample_logs), "--format", "markdown", "-o", str(out)])
    assert result.exit_code == 1 and result.stdout == ""
    md = out.read_text()
    assert md.startswith("## curriwatch: 🔴 critical")
    assert "| run | status | envs | critical | warning | info | data issues |" in md
    from conftest import N_SAMPLE_RUNS

    assert md.count("| env | state | train | eval | peak | trend | performance | health |") == N_SAMPLE_RUNS
    assert md.count("| severity | type | env | steps | message |") == N_SAMPLE_RUNS
    assert "| 🔴 critical | graduated\\_regression | two\\_digit | 2600..4000 (ongoing) |" in md


def write_run(tmp_path, envs):
    write_case(Case("gate", envs, []), tmp_path)
    return str(tmp_path)


@pytest.mark.parametrize("fail_on, stagnant_code, healthy_code, critical_code", [
    ("critical", 0, 0, 1), ("warning", 1, 0, 1), ("never", 0, 0, 0)])
def test_exit_codes_per_fail_on_level(tmp_path, fail_on, stagnant_code, healthy_code, critical_code):
    # a success rate (on the 1/100 lattice: a continuous `reward` in [0, 1] topping out at 0.6 is a return, whose
    # top is its own) stalled at 0.6
    stagnant = write_run(tmp_path / "stagnant", {"a": E(train="0.1+0.01x50 0.6b100x60", eval="0.5x20")})
    healthy = write_run(tmp_path / "healthy", {"a": E(state="1x4 2x16", train="0.1+0.08x12 0.95~0.01x8",
                                                      eval="0.95~0.01x20")})
    critical = write_run(tmp_path / "critical", {"a": E(state="1x20 2x60", train="0.1+0.01x86 0.95~0.02x10",
                                                        eval="0.1+0.045x20 0.95~0.02x30 0.4~0.02x30")})
    for folder, code in ((stagnant, stagnant_code), (healthy, healthy_code), (critical, critical_code)):
        for command in ("scan", "report"):
            result = runner.invoke(app, [command, folder, "--fail-on", fail_on], env=PLAIN)
            assert result.exit_code == code, (command, folder, result.output)


@pytest.mark.parametrize("args, message", [
    (["report"], "no saved scan result"),
    (["report", "/nonexistent/logs"], "logdir not found"),
    (["report", "{sample}", "-o", "/nonexistent/dir/out.md"], "cannot write /nonexistent/dir/out.md"),
    (["scan", "{sample}", "--config", "{bad}"], "critical_regression_threshold: expected a number"),
    (["config", "--config", "{bad}"], "critical_regression_threshold: expected a number"),
])
def test_error_classes_exit_2_with_one_line(args, message, tmp_path, sample_logs):
    bad = tmp_path / "bad.yaml"
    bad.write_text("critical_regression_threshold: high\n")
    args = [a.format(sample=sample_logs, bad=bad) for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


def test_report_without_logdir_renders_the_last_scan_and_old_results_are_pruned(tmp_path, sample_logs):
    from curriwatch import store

    other = write_run(tmp_path / "other", {"a": E(train="0.5~0.02x40")})
    assert runner.invoke(app, ["scan", other]).exit_code == 0
    saved = list(store.cache_dir().glob("*.json"))
    assert len(saved) == 1 and not any(p.is_relative_to(tmp_path) for p in store.cache_dir().rglob("*"))
    old = time.time() - 40 * 86400
    os.utime(saved[0], (old, old))
    runner.invoke(app, ["scan", str(sample_logs)])
    assert len(list(store.cache_dir().glob("*.json"))) == 1  # the 40-day-old result is gone (30 days)
    result = runner.invoke(app, ["report", "--format", "json", "--fail-on", "never"])
    assert json.loads(result.stdout)["logdir"] == str(sample_logs)


def test_config_show_prints_effective_config_and_picks_up_curriwatch_yaml(tmp_path, monkeypatch):
    import yaml

    monkeypatch.chdir(tmp_path)
    (tmp_path / "curriwatch.yaml").write_text("health_monitoring:\n  stagnation_window: 250\n")
    result = runner.invoke(app, ["config", "--show"])
    shown = yaml.safe_load(result.stdout)
    assert shown["health_monitoring"]["stagnation_window"] == 250
    assert shown["health_monitoring"]["regression_threshold"] == 0.85  # a default
    assert shown["rules"]["performance_volatility"]["window"] == 30


def test_readme_cli_reference_matches_the_commands():
    from conftest import ROOT
    from curriwatch.cli_reference import cli_reference

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- cli-reference:start -->\n", 1)[1].split("<!-- cli-reference:end -->", 1)[0]
    assert block == cli_reference(), "README's CLI reference is stale: run python -m curriwatch.cli_reference"


def test_a_saved_result_from_another_version_is_a_clean_error(tmp_path, sample_logs):
    from curriwatch import store

    assert runner.invoke(app, ["scan", str(sample_logs), "--fail-on", "never"]).exit_code == 0
    folder = store.cache_dir()
    saved = next(folder.glob("*.json"))
    data = json.loads(saved.read_text())
    data["version"] = "0.0.1"
    saved.write_text(json.dumps(data))
    result = runner.invoke(app, ["report"])
    assert result.exit_code == 2
    assert "cannot use the saved scan result (saved by another curriwatch version)" in result.stderr
    saved.write_text("not json")
    result = runner.invoke(app, ["report"])
    assert result.exit_code == 2 and "run `curriwatch scan` again" in result.stderr
