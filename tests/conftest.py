import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("WANDB_SILENT", "true")
os.environ.setdefault("WANDB_MODE", "offline")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_LOGS = ROOT / "sample_logs"
# One manifest entry per sample run (sample_logs/injected.json): tests count runs and envs from it.
SAMPLE_RUNS = __import__("json").loads((SAMPLE_LOGS / "injected.json").read_text())["runs"]
N_SAMPLE_RUNS = len(SAMPLE_RUNS)
N_SAMPLE_ENVS = sum(len(r["envs"]) for r in SAMPLE_RUNS)
# What the manifest injected: one critical incident per regressed env, one warning per stagnant or
# volatile env (info incidents are not injected: tests count those from the report itself).
_EXPECTED = [e["expected_warning"] for r in SAMPLE_RUNS for e in r["envs"] if e["expected_warning"]]
SAMPLE_SEVERITIES = {"critical": _EXPECTED.count("graduated_regression"),
                     "warning": len(_EXPECTED) - _EXPECTED.count("graduated_regression")}


# The sample runs listed in sample_logs/injected.json, which the report tests count on (envs,
# incidents, tables). Runs with a manifest of their own (`generate.py --only tune`, writing
# `tune/injected.json`) are checked by test_sample_logs.
CORE_SAMPLE_RUNS = tuple(dict.fromkeys(r["run"].split("/")[0] for r in SAMPLE_RUNS))


@pytest.fixture(scope="session")
def core_sample_logs(tmp_path_factory) -> Path:
    import shutil

    out = tmp_path_factory.mktemp("core") / "sample_logs"
    for name in CORE_SAMPLE_RUNS:
        shutil.copytree(SAMPLE_LOGS / name, out / name)
    shutil.copy(SAMPLE_LOGS / "injected.json", out / "injected.json")
    return out


@pytest.fixture
def sample_logs(core_sample_logs) -> Path:
    return core_sample_logs


@pytest.fixture(autouse=True)
def _isolated_cwd(tmp_path_factory, monkeypatch):
    """Run every test in an empty folder so a stray curriwatch.yaml or write is never picked up."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
