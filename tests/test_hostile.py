"""Odd but valid data, live runs, the read-only guarantee and bad configuration."""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import time

import numpy as np
import pytest
from typer.testing import CliRunner

import curriwatch
from curriwatch.cli import app
from curriwatch.readers.tfrecord import masked_crc32c
from test_cli import tree_fingerprint
from writers import event_file, write_tb, write_wandb

runner = CliRunner()
BIG = 2**53 + 7


def analyse(logdir):
    report = curriwatch.analyze(curriwatch.load(logdir, config=curriwatch.load_config(None)))
    data = report.to_dict()

    def reject(token):
        raise AssertionError(f"{token} in JSON")

    json.loads(json.dumps(data, allow_nan=False), parse_constant=reject)
    return report, data


def test_odd_steps_and_values_from_tensorboardx(tmp_path):
    tb = tmp_path / "odd"
    long_tag = "train/" + "x" * 10_000 + "/reward"
    write_tb(tb, {
        "train/ooo/reward": [(5, 0.5), (-3, 0.1), (BIG, 0.9), (1, 0.2)],  # out of order, negative, > 2**53
        "train/dup/reward": [(7, float(i)) for i in range(50)],  # the same step, 50 times
        "train/weird/reward": [(1, float("nan")), (2, float("inf")), (3, float("-inf")), (4, 0.5)],
        "train/flat/reward": [(s, 0.3) for s in range(0, 3000, 10)],  # constant
        "eval/flat/reward": [(s, 0.3) for s in range(0, 3000, 50)],
        "train/üñï环境/reward": [(s, 0.5) for s in range(3)],  # unicode env id
        "train/one/reward": [(9, 0.7)],  # a single point
        long_tag: [(1, 0.25)],
    })
    report, data = analyse(tmp_path)
    frame = curriwatch.load(tmp_path).frame
    ooo = frame[frame.env_id == "ooo"]
    assert ooo.step.tolist() == [-3, 1, 5, BIG] and ooo.value.tolist() == pytest.approx([0.1, 0.2, 0.5, 0.9])
    # 50 writes of one step in one file are 50 observations: combined, none lost, not a restart
    assert frame[frame.env_id == "dup"].value.tolist() == [24.5]
    assert curriwatch.load(tmp_path).runs[0].observations_combined == 49
    issues = {i.kind: i for i in report.runs[0].data_issues}
    assert "duplicate_points" not in issues
    assert issues["non_finite_values"].detail.startswith("3 point(s)")
    envs = {e["env_id"]: e for e in data["runs"][0]["environments"]}
    assert set(envs) >= {"ooo", "dup", "weird", "flat", "üñï环境", "one", "x" * 10_000}
    assert envs["weird"]["current_train_performance"] == 0.5
    assert envs["ooo"]["time_in_current_state"] >= 0
    assert data["runs"][0]["step_range"] == [-3, BIG]


def test_env_ids_with_slashes_spaces_and_unicode_from_wandb(tmp_path):
    write_wandb(tmp_path, [{"train/maze/level 1 ü/reward": i / 10, "eval/maze/level 1 ü/reward": i / 20}
                           for i in range(5)], steps=list(range(5)))
    _report, data = analyse(tmp_path)
    (env,) = data["runs"][0]["environments"]
    assert env["env_id"] == "maze/level 1 ü" and env["current_eval_performance"] == 0.2


def test_non_utf8_tag_is_a_corrupt_record_and_the_rest_is_read(tmp_path):
    write_tb(tmp_path / "run", {"train/aaaa/reward": [(1, 0.5)], "train/b/reward": [(2, 0.6)]})
    path = event_file(tmp_path / "run")
    data = bytearray(path.read_bytes())
    at = data.index(b"aaaa")
    data[at: at + 4] = b"\xff\xfe\xfd\xfc"  # not UTF-8; then mend the record's CRC so only the tag is odd
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        start, end = pos + 12, pos + 12 + length
        if start <= at < end:
            data[end: end + 4] = struct.pack("<I", masked_crc32c(bytes(data[start:end])))
        pos = end + 4
    path.write_bytes(bytes(data))
    ingest = curriwatch.load(tmp_path)
    assert ingest.frame.env_id.tolist() == ["b"]
    (issue,) = [i for i in ingest.run("run").issues if i.kind == "corrupt_record"]
    assert "could not be decoded" in issue.detail


def test_ten_thousand_tiny_runs_and_deep_nesting(tmp_path):
    write_tb(tmp_path / "src", {"train/a/reward": [(0, 0.5), (10, 0.6)], "eval/a/reward": [(10, 0.6)]})
    src = event_file(tmp_path / "src")
    logdir = tmp_path / "logs"
    for i in range(10_000):
        (logdir / f"r{i:05d}").mkdir(parents=True)
        os.link(src, logdir / f"r{i:05d}" / src.name)
    deep = logdir.joinpath(*[f"d{k}" for k in range(60)])
    deep.mkdir(parents=True)
    shutil.copyfile(src, deep / src.name)
    (logdir / "loop").symlink_to(logdir, target_is_directory=True)
    report, data = analyse(logdir)
    assert data["summary"]["runs"] == 10_001
    assert any(r.run.count("/") == 59 for r in report.runs)


WRITER = r"""
import sys, time
from tensorboardX import SummaryWriter
w = SummaryWriter(sys.argv[1], flush_secs=1)
for step in range(int(sys.argv[2])):
    w.add_scalar("train/live/reward", step / 1000, step)
    w.add_scalar("eval/live/reward", step / 1000, step)
    w.flush()
    time.sleep(0.002)
w.close()
"""


def test_live_run_being_written_by_another_process(tmp_path):
    n = 1500
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "live"), str(n)])
    seen = []
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                ingest = curriwatch.load(tmp_path)
            except curriwatch.InputError:  # the writer has not created its file yet
                time.sleep(0.05)
                continue
            kinds = {i.kind for i in ingest.all_issues}
            assert kinds <= {"incomplete_tail"}, kinds
            seen.append(len(ingest.frame))
            curriwatch.analyze(ingest)
    finally:
        proc.wait(timeout=60)
    assert seen and seen == sorted(seen)  # each scan sees at least what the one before saw
    final = curriwatch.load(tmp_path)
    assert len(final.frame) == 2 * n and final.all_issues == []


def test_live_wandb_run_being_written(tmp_path):
    code = (
        "import sys, wandb\n"
        "run = wandb.init(project='p', id='liverun', mode='offline', dir=sys.argv[1],"
        " settings=wandb.Settings(x_disable_stats=True, console='off'))\n"
        "for i in range(3000):\n    run.log({'train/live/reward': i / 3000}, step=i)\n"
        "run.finish()\n")
    env = {**os.environ, "WANDB_SILENT": "true", "WANDB_MODE": "offline"}
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], env=env)
    seen = []
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                ingest = curriwatch.load(tmp_path / "wandb")
            except (curriwatch.InputError, FileNotFoundError):
                time.sleep(0.05)
                continue
            for info in ingest.runs:
                assert {i.kind for i in info.issues} <= {"incomplete_tail", "unclaimed_tags"}, info.issues
            seen.append(len(ingest.frame))
    finally:
        proc.wait(timeout=120)
    final = curriwatch.load(tmp_path / "wandb")
    assert len(final.frame) == 3000
    assert seen == sorted(seen)


def test_nothing_in_the_logdir_changes_and_a_read_only_logdir_works(tmp_path, sample_logs):
    logdir = tmp_path / "logs"
    shutil.copytree(sample_logs, logdir)
    write_tb(logdir / "extra", {"train/a/reward": [(s, 0.5) for s in range(10)]})
    for folder, _dirs, files in os.walk(logdir):
        os.chmod(folder, 0o555)
        for f in files:
            os.chmod(os.path.join(folder, f), 0o444)
    try:
        before = tree_fingerprint(logdir)
        time.sleep(0.01)
        for args in (["scan", str(logdir)], ["report", str(logdir), "-f", "json"], ["report", "-f", "markdown"],
                     ["doctor", str(logdir)]):
            result = runner.invoke(app, args + (["--fail-on", "never"] if args[0] != "doctor" else []))
            assert result.exit_code == 0, (args, result.output)
        assert tree_fingerprint(logdir) == before
    finally:
        for folder, _dirs, _files in os.walk(logdir):
            os.chmod(folder, 0o755)


@pytest.mark.parametrize("text, message", [
    ("health_monitoring: [1, 2\n", "is not valid YAML"),
    ("health_monitoring:\n  regresion_threshold: 0.8\n", "health_monitoring.regresion_threshold: unknown key"),
    ("health_monitoring:\n  stagnation_window: many\n", "health_monitoring.stagnation_window: expected an integer"),
    ("health_monitoring:\n  regression_threshold: 1.5\n", "regression_threshold: 1.5 is above the allowed maximum 1"),
    ("health_monitoring:\n  regression_threshold: -1\n", "regression_threshold: -1 is below the allowed minimum 0"),
    ("rules:\n  eval_gap:\n    enabled: maybe\n", "rules.eval_gap.enabled: expected true or false"),
    ("critical_regression_threshold: .nan\n", "critical_regression_threshold: must be a finite number"),
    ("profiles:\n  p:\n    patterns: ['(?P<env>[']\n    performance_metric: r\n", "profiles.p.patterns[0].regex: does not compile"),
    ("profiles:\n  p:\n    patterns: ['^(?P<split>train)/(?P<metric>.+)$']\n    performance_metric: r\n",
     "needs a named group (?P<env>...)"),
    ("- just\n- a list\n", "config: expected a mapping, got list"),
])
def test_bad_configuration_is_one_line_naming_the_key(tmp_path, sample_logs, text, message):
    config = tmp_path / "bad.yaml"
    config.write_text(text)
    for args in (["scan", str(sample_logs), "--config", str(config)], ["config", "--config", str(config)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], result.stderr
        assert "Traceback" not in result.output


def test_config_file_that_is_not_text_or_missing(tmp_path, sample_logs):
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(np.random.default_rng(0).bytes(64) + b"\xff\xfe")
    for path, message in ((binary, "config file"), (tmp_path / "missing.yaml", "config file not found")):
        result = runner.invoke(app, ["scan", str(sample_logs), "--config", str(path)])
        assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
