"""The command line: through typer's CliRunner and as a real subprocess."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from curriwatch import __version__
from curriwatch.cli import app
from writers import write_tb

runner = CliRunner()


def tree_fingerprint(root) -> dict:
    """Content hash and mtime of every file and folder under root."""
    out = {}
    for folder, dirs, files in os.walk(root):
        out[folder] = os.stat(folder).st_mtime_ns
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                out[path] = (hashlib.sha256(f.read()).hexdigest(), os.stat(path).st_mtime_ns)
    return out


def test_version_and_help():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"curriwatch {__version__}"
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "scan" in result.stdout


def test_scan_sample_logs_prints_every_run_and_writes_nothing(sample_logs):
    before = tree_fingerprint(sample_logs)
    result = runner.invoke(app, ["scan", str(sample_logs), "--fail-on", "never"],
                           env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    for run in ("generic/curriculum_run", "roll/agentic_sokoban/20261101-120000",
                "marin/wandb/offline-run-20261101_120000-cw0marin"):
        assert run in result.stdout
    for profile in ("generic", "roll", "marin"):
        assert f"{profile} profile" in result.stdout
    assert "\x1b[" not in result.stdout
    assert tree_fingerprint(sample_logs) == before


@pytest.mark.parametrize("make_args, message", [
    (lambda p: ["scan", str(p / "missing")], "logdir not found"),
    (lambda p: ["scan", str(p / "file.txt")], "is a file, not a folder"),
    (lambda p: ["scan", str(p / "empty")], "no runs found"),
    (lambda p: ["scan", str(p / "good"), "--profile", "nope"], "unknown profile 'nope'"),
    (lambda p: ["scan", str(p / "good"), "--config", str(p / "bad.yaml")], "is not valid YAML at line 3"),
    (lambda p: ["scan", str(p / "good"), "--config", str(p / "unknown.yaml")],
     "health_monitoring.colour: unknown key"),
    (lambda p: ["scan", str(p / "good"), "--config", str(p / "range.yaml")],
     "health_monitoring.regression_threshold: 1.5 is above the allowed maximum"),
    (lambda p: ["scan", str(p / "corrupt")], "no readable points"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, make_args, message):
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    write_tb(tmp_path / "good", {"train/a/reward": [(1, 0.5)]})
    (tmp_path / "bad.yaml").write_text("health_monitoring:\n  - [unclosed\n")
    (tmp_path / "unknown.yaml").write_text("health_monitoring:\n  colour: red\n")
    (tmp_path / "range.yaml").write_text("health_monitoring:\n  regression_threshold: 1.5\n")
    (tmp_path / "corrupt").mkdir()
    (tmp_path / "corrupt" / "events.out.tfevents.1.h").write_bytes(b"\x01" * 30)
    result = runner.invoke(app, make_args(tmp_path))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("curriwatch: error:") and message in lines[0], result.stderr
    assert "Traceback" not in result.output and result.stdout == ""


def test_real_subprocess_report_on_stdout_only(sample_logs, tmp_path):
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    proc = subprocess.run([sys.executable, "-m", "curriwatch", "scan", str(sample_logs), "--fail-on", "never"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "marin" in proc.stdout and proc.stderr == ""
    proc = subprocess.run([sys.executable, "-m", "curriwatch", "report", "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1  # the sample logs hold critical regressions: the default gate fails
    assert json.loads(proc.stdout)["summary"]["health_status"] == "critical"
    from conftest import N_SAMPLE_RUNS  # every sample run holds one critical regression

    assert proc.stderr.strip() == f"curriwatch: gate failed: {N_SAMPLE_RUNS} incident(s) at or above critical"
    proc = subprocess.run([sys.executable, "-m", "curriwatch", "scan", str(tmp_path / "nope")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0 and "logdir not found" in proc.stderr


def _imported(args: list[str], cwd, env: dict | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the CLI as a process; (its result, the top-level modules it imported)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "curriwatch", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1", **(env or {})}, timeout=120)
    modules = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines()
               if line.startswith("import time:")}
    return proc, modules - {"imported package"}


def test_config_is_answered_before_typer_loads_and_says_what_typer_says(tmp_path):
    (tmp_path / "curriwatch.yaml").write_text("health_monitoring:\n  stagnation_window: 250\n")
    (tmp_path / "bad.yaml").write_text("critical_regression_threshold: high\n")
    for args in (["config", "--show"], ["config", "--show", "--config", "bad.yaml"], ["config", "--config=bad.yaml"],
                 ["config"], ["config", "--config", "missing.yaml"]):
        proc, modules = _imported(args, tmp_path)
        assert "typer" not in modules and "pandas" not in modules, args
        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            result = runner.invoke(app, args)
        finally:
            os.chdir(cwd)
        assert (proc.returncode, proc.stdout) == (result.exit_code, result.stdout), args
        said = [line for line in proc.stderr.splitlines() if not line.startswith("import time:")]
        assert said == result.stderr.splitlines(), args
        if args == ["config", "--show"]:
            assert "stagnation_window: 250" in proc.stdout  # ./curriwatch.yaml was read
    proc, modules = _imported(["config", "--help"], tmp_path)  # any other shape: typer answers
    assert proc.returncode == 0 and "--show" in proc.stdout and "typer" in modules


def test_scan_converts_its_options_without_pydantic(sample_logs, tmp_path):
    """typer would import pydantic (~0.1 s) to convert options; curriwatch's plain options skip it,
    and a bad value still gets typer's own message."""
    logs = str(sample_logs / "generic")  # TensorBoard only (importing wandb imports pydantic itself)
    proc, modules = _imported(["scan", logs, "--fail-on", "never", "--run", "curriculum",
                               "--config", str(tmp_path / "none.yaml")], tmp_path)
    assert proc.returncode == 2 and "config file not found" in proc.stderr and "pydantic" not in modules
    proc, modules = _imported(["scan", logs, "--fail-on", "never", "--run", "curriculum"], tmp_path,
                              {"CURRIWATCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0 and "curriculum_run" in proc.stdout and "pydantic" not in modules
    proc, _modules = _imported(["scan", str(sample_logs), "--fail-on", "bogus"], tmp_path)
    assert proc.returncode == 2 and "'bogus' is not one of 'critical', 'warning', 'never'" in proc.stderr


def test_reader_tbparse_gives_the_same_report(sample_logs):
    args = ["report", str(sample_logs / "generic"), "--format", "json", "--fail-on", "never"]
    native = json.loads(runner.invoke(app, args).stdout)
    oracle = json.loads(runner.invoke(app, args + ["--reader", "tbparse"]).stdout)
    assert native == oracle and native["runs"][0]["warnings"]


def test_group_pattern_reads_sources_as_one_run_in_scan_report_and_doctor(tmp_path):
    write_tb(tmp_path / "sweep" / "seed1", {"train/a/reward": [(s, 0.1 + s / 100) for s in range(1, 40)]})
    write_tb(tmp_path / "sweep" / "seed2", {"train/b/reward": [(s, 0.2 + s / 100) for s in range(1, 40)]})
    pattern = r"^(?P<group>sweep)/seed\d+$"
    apart = json.loads(runner.invoke(app, ["report", str(tmp_path), "-f", "json", "--fail-on", "never"]).stdout)
    assert sorted(r["run"] for r in apart["runs"]) == ["sweep/seed1", "sweep/seed2"]
    result = runner.invoke(app, ["report", str(tmp_path), "-f", "json", "--fail-on", "never", "--group", pattern])
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.stdout)["runs"]
    assert run["run"] == "sweep" and sorted(e["env_id"] for e in run["environments"]) == ["a", "b"]
    result = runner.invoke(app, ["scan", str(tmp_path), "--fail-on", "never", "--group", pattern],
                           env={"COLUMNS": "120", "NO_COLOR": "1"})
    assert result.exit_code == 0 and "run sweep " in result.stdout and "seed1" not in result.stdout
    result = runner.invoke(app, ["doctor", str(tmp_path), "--group", pattern], env={"COLUMNS": "120", "NO_COLOR": "1"})
    assert result.exit_code == 0 and "seed1" in result.stdout and "matched by --group: sweep" in result.stdout
    result = runner.invoke(app, ["scan", str(tmp_path), "--group", "(?P<group>a"])
    assert result.exit_code == 2 and result.stderr.startswith("curriwatch: error: --group:"), result.stderr
