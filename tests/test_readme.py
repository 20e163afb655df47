"""The README's quick start stays true: CI runs exactly its test command."""
from __future__ import annotations

import re

from conftest import ROOT


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_two_quick_start_commands_and_ci_runs_the_test_one():
    scan, tests = quick_start_commands()
    assert scan.endswith("curriwatch scan sample_logs")
    assert "pytest" in tests
    assert tests in (ROOT / ".ci" / "run").read_text()
