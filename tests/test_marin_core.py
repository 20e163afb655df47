"""A run written by Marin's own curriculum code (marin-core's `Curriculum`), logged as its rollout worker logs.

The committed run and its expectations were written by tests/fixtures/marin_core/generate.py: Marin decided
when each lesson unlocked and graduated (expected.json), and `add_small`'s eval success was made to fall
from ~0.92 to 0.39 some steps after Marin graduated it.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

import curriwatch

FIXTURE = Path(__file__).parent / "fixtures" / "marin_core"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())
TOLERANCE = 30  # steps

VERDICTS_PENDING = pytest.mark.xfail(
    strict=True,
    reason="main's analysis shows every Marin lesson active and misses the graduated regression (issue 9); "
           "the verdicts branch fixes it — flip this after merging it")


@pytest.fixture(scope="module")
def report() -> dict:
    return curriwatch.analyze(curriwatch.load(str(FIXTURE / "run"))).to_dict()


def _run(report: dict) -> dict:
    (run,) = report["runs"]
    assert run["profile"] == "marin"
    return run


def test_finds_marins_own_graduation_steps(report):
    run = _run(report)
    envs = {e["env_id"]: e for e in run["environments"]}
    assert set(envs) == set(EXPECTED["lessons"])
    for lesson, marin in EXPECTED["lessons"].items():
        got = envs[lesson]
        if "graduated" in marin:
            assert got["graduation_step"] is not None, f"{lesson}: Marin graduated it at {marin['graduated']}"
            assert abs(got["graduation_step"] - marin["graduated"]) <= TOLERANCE, (lesson, got["graduation_step"])
        else:
            assert got["current_state"] == "active" and got["graduation_step"] is None, lesson
    # The timeline's graduated spans start where Marin graduated each lesson.
    starts = {t["env_id"]: t["start_step"] for t in run["timeline"] if t["state"] == "graduated"}
    assert set(starts) == set(EXPECTED["graduated"])
    for lesson in EXPECTED["graduated"]:
        assert abs(starts[lesson] - EXPECTED["lessons"][lesson]["graduated"]) <= TOLERANCE, lesson


def test_reports_the_regression_of_the_graduated_lesson(report):
    run = _run(report)
    injected = EXPECTED["regression"]
    found = [w for w in run["warnings"] if w["type"] == "graduated_regression" and w["env_id"] == injected["env"]]
    assert len(found) == 1, run["warnings"]
    assert found[0]["severity"] == "critical"
    assert abs(found[0]["first_step"] - injected["onset_step"]) <= TOLERANCE, found[0]
    assert run["health_status"] == "critical"
    # One event, one incident: no second incident for the same fall, and no regression elsewhere.
    others = [w for w in run["warnings"] if w is not found[0] and w["severity"] == "critical"]
    assert others == [], others


def _marin_wheel() -> Path | None:
    wheel = os.environ.get("CURRIWATCH_MARIN_CORE_WHEEL")
    return Path(wheel) if wheel and Path(wheel).is_file() else None


@pytest.mark.skipif(_marin_wheel() is None or importlib.util.find_spec("fsspec") is None,
                    reason="set CURRIWATCH_MARIN_CORE_WHEEL to a marin-core wheel (pip download --no-deps "
                           f"marin-core=={EXPECTED['marin_core_version']}) to regenerate the run with Marin's code")
def test_regenerating_with_marin_core_gives_the_committed_run(tmp_path):
    import subprocess

    out = subprocess.run([sys.executable, str(FIXTURE / "generate.py"), "--wheel", str(_marin_wheel()),
                          "--out", str(tmp_path)], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == EXPECTED
    assert json.loads((tmp_path / "expected.json").read_text()) == EXPECTED
    saved = json.loads((tmp_path / "run" / "checkpoints" / EXPECTED["run_id"] / "curriculum_state.json").read_text())
    committed = json.loads((FIXTURE / "run" / "checkpoints" / EXPECTED["run_id"] / "curriculum_state.json").read_text())
    assert saved == committed
