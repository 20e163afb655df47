"""Hostile configuration files: alias bombs, huge files, catastrophic regexes, absurd numbers.

Each attack must end in one short line on stderr and exit 2 (or, for the regex, a scan that
finishes), never a hang, a traceback, or gigabytes of memory.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from curriwatch.cli import app
from curriwatch.config import load_config
from curriwatch.errors import ConfigError
from writers import write_tb

runner = CliRunner()

ALIAS_BOMB = """
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def _one_line_exit_2(tmp_path, text: str, *needles: str) -> str:
    config = tmp_path / "hostile.yaml"
    config.write_text(text)
    result = runner.invoke(app, ["config", "--config", str(config)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300, lines[:2]
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _anchored(bomb_key: str) -> str:
    """The bomb inside a profile: its anchors live in the profile's description."""
    body = "\n".join("    " + line for line in ALIAS_BOMB.strip().splitlines())
    return ("profiles:\n  p:\n    description:\n" + "\n".join("  " + l for l in body.splitlines())
            + f"\n    patterns: ['^(?P<env>x)/(?P<split>train)/(?P<metric>r)$']\n    performance_metric: *{bomb_key}\n")


def test_alias_bomb_in_a_profile_is_refused_quickly(tmp_path):
    _one_line_exit_2(tmp_path, _anchored("i"), "aliases are expanded")


def test_alias_bomb_in_a_mistyped_value(tmp_path):
    line = _one_line_exit_2(tmp_path, "bomb_holder:\n" + "\n".join("  " + l for l in ALIAS_BOMB.strip().splitlines())
                            + "\nhealth_monitoring:\n  stagnation_window: *i\n", "aliases are expanded")
    assert "lol" not in line


def test_self_referencing_alias_is_refused(tmp_path):
    _one_line_exit_2(tmp_path, "health_monitoring: &h\n  enabled: *h\n", "aliases are expanded")


def test_ten_megabyte_list_is_refused_before_parsing(tmp_path):
    text = "health_monitoring:\n  stagnation_window: [" + ", ".join(["1"] * 3_500_000) + "]\n"
    _one_line_exit_2(tmp_path, text, "larger than 1024 KiB")


def test_long_wrong_value_gives_a_short_line(tmp_path):
    _one_line_exit_2(tmp_path, "health_monitoring:\n  stagnation_window: '" + "x" * 500_000 + "'\n",
                     "health_monitoring.stagnation_window: expected an integer")
    _one_line_exit_2(tmp_path, "health_monitoring:\n  " + "k" * 1000 + ": 1\n", "unknown key")


@pytest.mark.parametrize("text,key", [
    ("health_monitoring:\n  stagnation_window: 100000000000\n", "health_monitoring.stagnation_window"),
    ("graduation:\n  plateau_window: 100000000000000000000000\n", "graduation.plateau_window"),
    ("rules:\n  performance_volatility:\n    window: 100000000000\n", "rules.performance_volatility.window"),
    ("rules:\n  eval_gap:\n    factor: 1.0e+23\n", "rules.eval_gap.factor"),
])
def test_absurd_numbers_are_config_errors_naming_the_key(tmp_path, text, key):
    _one_line_exit_2(tmp_path, text, key)


def test_profile_keyed_by_an_integer(tmp_path):
    text = "profiles:\n  1:\n    patterns: ['^(?P<env>x)/(?P<split>train)/(?P<metric>r)$']\n    performance_metric: r\n"
    _one_line_exit_2(tmp_path, text, "profile names must be strings")


def test_regex_with_backreference_is_refused_as_not_linear_time(tmp_path):
    text = "profiles:\n  p:\n    patterns: ['^(?P<env>a)\\1/(?P<split>train)/(?P<metric>r)$']\n    performance_metric: r\n"
    _one_line_exit_2(tmp_path, text, "profiles.p.patterns[0].regex")


def test_catastrophic_user_regex_on_a_41_character_tag_does_not_hang(tmp_path):
    logdir = tmp_path / "logs"
    write_tb(logdir / "run", {"a" * 40 + "b": [(1, 0.5)], "a" * 30: [(1, 0.5)]})
    config = tmp_path / "c.yaml"
    config.write_text("profiles:\n  evil:\n    patterns:\n      - {regex: '^(?P<env>(a+)+)$', split: train, "
                      "metric: reward}\n    performance_metric: reward\n")
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-m", "curriwatch", "doctor", str(logdir), "--config", str(config)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "evil" in proc.stdout and "a" * 40 + "b" in proc.stdout  # the unmatched tag, listed


def test_a_config_with_anchors_for_real_reuse_still_loads(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("rules:\n  graduated_regression: &on {enabled: true}\n  eval_gap: *on\n")
    assert load_config(path).get("rules.eval_gap.enabled") is True
    with pytest.raises(ConfigError):
        load_config(tmp_path / "nope.yaml")
