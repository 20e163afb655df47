"""The README's GitHub Actions snippet and action.yml, run as GitHub runs them (`bash -e`):
the job summary is written and the gate's exit code is the job's. The install line is replaced by
a `curriwatch` on PATH that runs this tree (tests never pip-install into the shared environment)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from writers import write_tb


def readme_step() -> dict:
    text = (ROOT / "README.md").read_text()
    section = text.split("### As a CI gate (GitHub Actions)", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(r"```yaml\n(.+?)\n```", section, re.S)
    (step,) = yaml.safe_load(block)
    return step


def action_step() -> dict:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    return next(s for s in action["runs"]["steps"] if s["name"] == "curriculum health")


def run_like_github(script: str, tmp_path, logdir, fail_on="critical"):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "curriwatch"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m curriwatch "$@"\n')
    shim.chmod(0o755)
    lines = [line for line in script.splitlines() if "pip install" not in line]
    assert len(lines) == 3, lines
    summary = tmp_path / "summary.md"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT),
           "GITHUB_STEP_SUMMARY": str(summary), "LOGDIR": str(logdir), "FAIL_ON": fail_on,
           "CURRIWATCH_CACHE_DIR": str(tmp_path / "cache")}
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    proc = subprocess.run(["bash", "-e", "-c", "\n".join(lines)], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600)
    return proc, summary, work / "curriwatch.json"


@pytest.mark.parametrize("source", ["readme", "action"])
def test_ci_snippet_writes_the_summary_and_the_gate_decides(tmp_path, sample_logs, source):
    step = readme_step() if source == "readme" else action_step()
    assert step["shell"] == "bash"
    proc, summary, report = run_like_github(step["run"], tmp_path, sample_logs)
    assert proc.returncode == 1, proc.stderr  # sample logs hold critical regressions: the gate fails the job
    assert proc.stderr.strip().splitlines()[-1].startswith("curriwatch: gate failed")
    assert summary.read_text().startswith("## curriwatch: 🔴 critical")
    assert report.is_file() and '"schema_version": 1' in report.read_text()


def test_ci_snippet_passes_a_run_below_the_gate(tmp_path):
    logdir = tmp_path / "logs"
    write_tb(logdir / "run", {"train/a/reward": [(s, 0.5) for s in range(0, 600, 10)]})
    proc, summary, report = run_like_github(readme_step()["run"], tmp_path, logdir)
    assert proc.returncode == 0, proc.stderr
    # a flat reward is a stagnation warning: reported in the summary, below the critical gate
    assert summary.read_text().startswith("## curriwatch: 🟡 warning") and report.is_file()
