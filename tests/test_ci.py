"""The README's GitHub Actions snippet and action.yml, run as GitHub runs them (`bash -e`), every
line including the install: in a workspace holding a copy of this repository at ./curriwatch (what
the snippet's `actions/checkout` with `submodules: true` gives), inside a fresh virtual environment
(`--system-site-packages`: dependencies already on the machine resolve without a download; pip
builds curriwatch itself). The job summary is written and the gate's exit code is the job's.
The README's install line runs once for the module (a build takes seconds); action.yml's install
step runs in its own test."""
from __future__ import annotations

import os
import shutil
import subprocess
import venv

import pytest
import yaml

from conftest import ROOT
from writers import write_tb

NETWORK_ERRORS = ("No matching distribution found", "Could not find a version", "NewConnectionError",
                  "Temporary failure in name resolution", "Network is unreachable")


def readme_steps() -> list[dict]:
    text = (ROOT / "README.md").read_text()
    section = text.split("### As a CI gate (GitHub Actions)", 1)[1].split("\n### ", 1)[0]
    blocks = [b.split("\n```", 1)[0] for b in section.split("```yaml\n")[1:]]
    assert len(blocks) == 1, blocks
    return yaml.safe_load(blocks[0])


def readme_step() -> dict:
    return next(s for s in readme_steps() if s.get("name") == "curriculum health")


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


@pytest.fixture(scope="module")
def python_env(tmp_path_factory):
    """A fresh virtual environment that sees the machine's packages, curriwatch not installed in it."""
    folder = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(system_site_packages=True).create(folder)  # pip too comes from the machine
    return folder


@pytest.fixture(scope="module")
def readme_env(tmp_path_factory, python_env):
    """python_env after the README snippet's install line ran in a job workspace (bash -e)."""
    install, _rest = split_install(readme_step()["run"])
    tmp = tmp_path_factory.mktemp("install")
    proc, _, _ = run_like_github([install], tmp, python_env, tmp)
    assert proc.returncode == 0, proc.stderr
    return python_env


def split_install(script: str) -> tuple[str, str]:
    first, rest = script.split("\n", 1)
    assert "pip install" in first and "pip install" not in rest
    return first, rest


def workspace(tmp_path):
    """A job's workspace: this repository (its files, not .git or build output) at ./curriwatch."""
    work = tmp_path / "work"
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True)
    if files.returncode == 0:
        for name in filter(None, files.stdout.split("\0")):
            if (ROOT / name).is_file():
                (work / "curriwatch" / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, work / "curriwatch" / name)
    else:  # not a git checkout
        shutil.copytree(ROOT, work / "curriwatch", ignore=shutil.ignore_patterns(
            ".git", "__pycache__", "*.egg-info", "build", ".pytest_cache"))
    return work


def run_like_github(scripts: list[str], tmp_path, python_env, logdir, fail_on="critical"):
    """Each script as one step (`bash -e`), stopping at the first failing step, as a job does."""
    work = workspace(tmp_path)
    summary = tmp_path / "summary.md"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XDG_CACHE_HOME", "VIRTUAL_ENV")}
    env.update({"PATH": f"{python_env / 'bin'}:{env['PATH']}", "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_ACTION_PATH": str(work / "curriwatch"), "LOGDIR": str(logdir), "FAIL_ON": fail_on,
                "CURRIWATCH_CACHE_DIR": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    for script in scripts:
        proc = subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                              timeout=900)
        if proc.returncode and "pip install" in script and any(e in proc.stdout + proc.stderr for e in NETWORK_ERRORS):
            pytest.skip("pip could not reach a package index to build curriwatch (setuptools for the build): "
                        + proc.stderr.strip().splitlines()[-1])
        if proc.returncode:
            break
    if proc.returncode == 0 or "pip install" not in script:
        installed = subprocess.run([str(python_env / "bin" / "python"), "-c",
                                    "import curriwatch; print(curriwatch.__file__)"],
                                   cwd=tmp_path, env=env, capture_output=True, text=True).stdout
        assert installed.startswith(str(python_env)), installed  # the job ran the copy it installed, not this tree
    return proc, summary, work / "curriwatch.json"


def test_the_snippet_checks_out_this_repository_and_installs_it_from_there():
    steps = readme_steps()
    checkout = steps[0]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"] == {"submodules": True}
    assert readme_step()["run"].splitlines()[0] == "python3 -m pip install ./curriwatch"
    assert action()["runs"]["steps"][0]["run"] == 'python3 -m pip install "$GITHUB_ACTION_PATH"'
    text = (ROOT / "README.md").read_text() + (ROOT / "action.yml").read_text()
    assert "OWNER" not in text and "uses: ./curriwatch" in text


def check_gate_failed(proc, summary, report):
    assert proc.returncode == 1, proc.stderr  # sample logs hold critical regressions: the gate fails the job
    assert proc.stderr.strip().splitlines()[-1].startswith("curriwatch: gate failed")
    assert summary.read_text().startswith("## curriwatch: 🔴 critical")
    assert report.is_file() and '"schema_version": 1' in report.read_text()


def test_readme_snippet_writes_the_summary_and_the_gate_decides(tmp_path, readme_env, sample_logs):
    step = readme_step()
    assert step["shell"] == "bash"
    _install, rest = split_install(step["run"])  # the install line ran in readme_env, under bash -e too
    check_gate_failed(*run_like_github([rest], tmp_path, readme_env, sample_logs))


def test_action_installs_itself_writes_the_summary_and_the_gate_decides(tmp_path, python_env, sample_logs):
    steps = action()["runs"]["steps"]
    assert all(s["shell"] == "bash" for s in steps)
    check_gate_failed(*run_like_github([s["run"] for s in steps], tmp_path, python_env, sample_logs))


def test_readme_snippet_passes_a_run_below_the_gate(tmp_path, readme_env):
    logdir = tmp_path / "logs"
    # flat from its first point for 4.5 stagnation windows (20 points each): judged after 3
    write_tb(logdir / "run", {"train/a/reward": [(s, 0.5) for s in range(0, 900, 10)]})
    proc, summary, report = run_like_github([split_install(readme_step()["run"])[1]], tmp_path, readme_env, logdir)
    assert proc.returncode == 0, proc.stderr
    # a flat reward is a stagnation warning: reported in the summary, below the critical gate
    assert summary.read_text().startswith("## curriwatch: 🟡 warning") and report.is_file()
