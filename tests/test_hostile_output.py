"""Hostile input against what curriwatch writes: the saved-scan cache (planted pickles, garbage),
escape sequences and non-UTF-8 names in every renderer, Ctrl-C, closed and full stdout, huge
env counts, and stderr kept clean (issue 10, items 8, 9, 12, 13, 14)."""
from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from curriwatch.cli import app
from test_cli import tree_fingerprint
from writers import write_tb

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def cli(args, env=None, **kw):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "100", **(env or {})}
    return subprocess.run([sys.executable, "-m", "curriwatch", *args], capture_output=True, env=env,
                          timeout=300, **kw)


# --- item 8: the saved scan is data, never code -------------------------------------------------

class _Exploit:
    def __init__(self, call, args):
        self.call, self.args = call, args

    def __reduce__(self):
        return self.call, self.args


@pytest.mark.parametrize("payload", ["touch", "exit0"])
@pytest.mark.parametrize("name", ["planted.json", "planted.pickle"])
def test_a_planted_pickle_in_the_cache_never_runs(tmp_path, payload, name):
    cache = tmp_path / "cache"
    folder = cache / "results"
    folder.mkdir(parents=True)
    marker = tmp_path / "PWNED"
    exploit = _Exploit(os.system, (f"touch {marker}",)) if payload == "touch" else _Exploit(eval, ("__import__('sys').exit(0)",))
    (folder / name).write_bytes(pickle.dumps({"format": "x", "version": "x", "report": exploit}))
    (folder / "last").write_text(name)
    proc = cli(["report"], env={"CURRIWATCH_CACHE_DIR": str(cache)})
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot use the saved scan result" in lines[0]
    assert not marker.exists() and proc.stdout == b""


SAVED_RUN = (b'{"run": "r", "source": "tensorboard", "profile": "generic", "step_range": [0, 5], '
             b'"environments": [{"env_id": "e", "current_state": "active", "current_train_performance": 0.5, '
             b'"current_eval_performance": null, "peak_performance": 0.5, "performance_trend": "stable", '
             b'"time_in_current_state": 5, "total_training_steps": 5, "health_status": "healthy", "warnings": [], '
             b'"graduation_step": null, "graduation_baseline": null}], "timeline": [], "warnings": [], '
             b'"data_issues": []}')


@pytest.mark.parametrize("content", [b"", b"\x80\x04garbage", b"{\"format\": 1", b"[1, 2]",
                                     b'{"format": "FORMAT", "version": "VERSION", "report": '
                                     b'{"schema_version": 1, "logdir": "x", "runs": [{"run": 5}]}}',
                                     b'{"format": "FORMAT", "version": "VERSION", "report": NaN}',
                                     b'{"format": "FORMAT", "version": "VERSION", "report": {"schema_version": 1, '
                                     b'"logdir": "x", "runs": [' + SAVED_RUN + b']}, "drawing": {"r": {"envs": '
                                     b'{"e": {"chart": {"train": {"steps": "AAAAAAAAAAA=", "values": "!!"}}}}}}}',
                                     b'{"format": "FORMAT", "version": "VERSION", "report": {"schema_version": 1, '
                                     b'"logdir": "x", "runs": [' + SAVED_RUN + b']}, "drawing": {"r": {"envs": '
                                     b'{"e": {"chart": {"train": {"steps": "AAAAAAAAAAA=", "values": "AAAA"}}}}}}}'])
def test_garbage_or_ill_typed_saved_results_are_one_line(tmp_path, monkeypatch, content):
    import curriwatch
    from curriwatch import store

    monkeypatch.setenv("CURRIWATCH_CACHE_DIR", str(tmp_path))
    store.cache_dir().mkdir(parents=True)
    content = content.replace(b"VERSION", curriwatch.__version__.encode()).replace(b"FORMAT", store.FORMAT.encode())
    (store.cache_dir() / "x.json").write_bytes(content)
    (store.cache_dir() / "last").write_text("x.json")
    result = runner.invoke(app, ["report"])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "run `curriwatch scan` again" in result.stderr


def test_last_pointing_outside_the_cache_is_refused(tmp_path, monkeypatch, sample_logs):
    from curriwatch import store

    monkeypatch.setenv("CURRIWATCH_CACHE_DIR", str(tmp_path / "c"))
    assert runner.invoke(app, ["scan", str(sample_logs), "--fail-on", "never"]).exit_code == 0
    good = next(store.cache_dir().glob("*.json"))
    (tmp_path / "elsewhere.json").write_bytes(good.read_bytes())
    (store.cache_dir() / "last").write_text("../../elsewhere.json")
    result = runner.invoke(app, ["report"])
    assert result.exit_code == 2 and "no saved scan result" in result.stderr


def test_saved_result_is_the_json_report_and_renders_like_a_fresh_one(tmp_path, monkeypatch, sample_logs):
    from curriwatch import store

    monkeypatch.setenv("CURRIWATCH_CACHE_DIR", str(tmp_path))
    assert runner.invoke(app, ["scan", str(sample_logs), "--fail-on", "never"]).exit_code == 0
    files = sorted(p.name for p in store.cache_dir().iterdir())
    assert len(files) == 2 and "last" in files and not any("partial" in f for f in files)
    saved = json.loads(next(store.cache_dir().glob("*.json")).read_text())
    fresh = json.loads(runner.invoke(app, ["report", str(sample_logs), "-f", "json", "--fail-on", "never"]).stdout)
    assert saved["report"] == fresh
    for fmt in ("json", "markdown", "html", "terminal"):
        direct = runner.invoke(app, ["report", str(sample_logs), "-f", fmt, "--fail-on", "never"], env={"NO_COLOR": "1"})
        cached = runner.invoke(app, ["report", "-f", fmt, "--fail-on", "never"], env={"NO_COLOR": "1"})
        assert cached.exit_code == 0 and cached.stdout == direct.stdout, fmt


def test_the_cache_is_never_written_inside_the_scanned_logdir(tmp_path, monkeypatch):
    write_tb(tmp_path / "logs" / "run", {"train/a/reward": [(s, 0.5) for s in range(30)]})
    monkeypatch.setenv("CURRIWATCH_CACHE_DIR", str(tmp_path / "logs" / "cache"))
    before = tree_fingerprint(tmp_path / "logs")
    result = runner.invoke(app, ["scan", str(tmp_path / "logs"), "--fail-on", "never"])
    assert result.exit_code == 0 and "not writing there" in result.stderr
    assert tree_fingerprint(tmp_path / "logs") == before


# --- item 9: untrusted strings are inert in every renderer ---------------------------------------

EVIL = ["\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x9b31m", "<img src=x onerror=alert(1)>", "[click](https://evil.example)"]


@pytest.fixture
def hostile_logdir(tmp_path):
    logdir = tmp_path / "logs"
    tags = {f"train/{name}/reward": [(s, 0.5 + 0.001 * s) for s in range(0, 400, 10)] for name in EVIL}
    write_tb(logdir / "run\x1b]2;title\x07", tags)
    write_tb(Path(os.fsdecode(bytes(logdir) + b"/latin1-\xe9t\xe9")), {"train/ok/reward": [(s, 0.5) for s in range(40)]})
    return logdir


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "json"])
def test_escape_sequences_and_non_utf8_names_are_inert(hostile_logdir, fmt):
    proc = cli(["report", os.fsencode(hostile_logdir), "-f", fmt, "--fail-on", "never"])
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    out.decode("utf-8")  # valid UTF-8, whatever the folder names were
    for byte in (b"\x1b", b"\x07", b"\xc2\x9b"):
        assert byte not in out, (fmt, byte)
    text = out.decode()
    if fmt == "json":
        data = json.loads(text)
        assert len(data["runs"]) == 2
        return
    assert "latin1-" in text and "xe9t" in text  # the bad bytes shown escaped, the name still recognisable
    assert "x1b" in text and "title" in text  # the run name shown, its escapes visible
    if fmt in ("markdown", "html"):
        assert "<img" not in text and "](https://evil" not in text


def test_doctor_output_is_inert_and_lists_unclaimed_tags_once(hostile_logdir):
    write_tb(hostile_logdir / "plain", {"train/a/reward": [(s, 0.5) for s in range(40)], "misc/loss": [(1, 1.0)]})
    proc = cli(["doctor", str(hostile_logdir)])
    assert proc.returncode == 0, proc.stderr
    assert b"\x1b" not in proc.stdout and b"\x07" not in proc.stdout
    plain = proc.stdout.decode().split("run plain")[1].split("\n─")[0]
    assert plain.count("misc/loss") == 1


# --- item 12: Ctrl-C, closed or full stdout, usage errors -----------------------------------------

def test_ctrl_c_during_a_scan_is_one_line_and_exit_130(monkeypatch, capsys, sample_logs):
    import importlib

    from curriwatch import cli as cli_module

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module("curriwatch.scan"), "plan_sources", interrupted)
    with pytest.raises(SystemExit) as exit_info:
        cli_module.main(["scan", str(sample_logs)])
    assert exit_info.value.code == 130
    err = capsys.readouterr().err
    assert err.strip() == "curriwatch: interrupted" and "Traceback" not in err


def test_ctrl_c_while_modules_load_is_one_line_and_exit_130(monkeypatch, capsys):
    import importlib.abc

    import curriwatch.__main__ as entry

    class Interrupt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "curriwatch.cli":
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, "curriwatch.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupt(), *sys.meta_path])
    monkeypatch.setattr(sys, "argv", ["curriwatch", "scan", "x"])
    with pytest.raises(SystemExit) as exit_info:
        entry.main()
    assert exit_info.value.code == 130 and capsys.readouterr().err.strip() == "curriwatch: interrupted"


@pytest.mark.parametrize("fail_on, code", [("never", 0), ("critical", 1)])
def test_a_reader_that_goes_away_keeps_the_gates_exit_code(sample_logs, fail_on, code):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # HTML is far larger than a pipe's buffer, so the writer surely meets the closed pipe
    proc = subprocess.Popen([sys.executable, "-m", "curriwatch", "report", str(sample_logs), "-f", "html",
                             "--fail-on", fail_on], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == code, err
    assert "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("args", [["schema"], ["--version"], ["config", "--show"], ["--help"]])
def test_a_full_stdout_is_one_line_not_a_traceback(args):
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "curriwatch", *args], stdout=full, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "No space left" in err


@pytest.mark.parametrize("args, message", [
    (["scan", "--bogus"], "No such option: --bogus"),
    (["report", "-f", "pdf"], "'pdf' is not one of"),
    (["nosuchcommand"], "No such command"),
])
def test_usage_errors_are_one_line(args, message):
    proc = cli(args)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and len(err.strip().splitlines()) == 1 and message in err, err
    assert "╭" not in err and proc.stdout == b""


# --- item 13: rendering stays linear: huge runs are summarised, the JSON keeps everything --------

def big_report(envs: int):
    from curriwatch.health import EnvHealth
    from curriwatch.incidents import Incident
    from curriwatch.report import Report, RunReport
    from curriwatch.timeline import Interval

    ids = [f"env{i:06d}" for i in range(envs)]
    run = RunReport("big", "tensorboard", "generic", (0, 1000),
                    environments=[EnvHealth(e, "active", 0.5, 0.5, 0.6, "stable", 10, 100,
                                            "warning" if i % 97 == 0 else "healthy", sparkline=[0.5] * 24)
                                  for i, e in enumerate(ids)],
                    timeline=[(e, Interval("active", 0, 1000)) for e in ids],
                    warnings=[Incident("training_stagnation", e, "warning", 10, 1000, False, "stuck")
                              for e in ids[::97]])
    return Report("/logs", [run], "test")


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
def test_a_run_with_many_envs_is_summarised_worst_first(fmt):
    from curriwatch.cli import Format, render_text
    from curriwatch.render.common import MAX_ENV_ROWS

    report = big_report(5000)
    text = render_text(report, Format(fmt), to_file=True)
    assert "more environment(s)" in text and "--format json" in text
    shown = {e for e in re.findall(r"env\d{6}", text)}
    assert MAX_ENV_ROWS <= len(shown) <= MAX_ENV_ROWS + len(report.runs[0].warnings)
    assert "env004947" in text and "env004999" not in text  # a warning env is shown, a healthy one is not
    data = json.loads(render_text(report, Format.json, to_file=True))
    assert len(data["runs"][0]["environments"]) == 5000


def big_sweep(runs: int):
    from curriwatch.health import EnvHealth
    from curriwatch.incidents import Incident
    from curriwatch.report import Report, RunReport
    from curriwatch.timeline import Interval

    out = []
    for r in range(runs):
        status = "critical" if r % 50 == 7 else "healthy"
        out.append(RunReport(f"sweep/run{r:04d}", "tensorboard", "generic", (0, 1000),
                             environments=[EnvHealth("env0", "active", 0.5, 0.5, 0.6, "stable", 10, 100, status,
                                                     sparkline=[0.5] * 24)],
                             timeline=[("env0", Interval("active", 0, 1000))],
                             warnings=[Incident("graduated_regression", "env0", "critical", 10, 1000, False, "fell")]
                             if status == "critical" else []))
    return Report("/logs", out, "test")


def test_a_big_sweep_in_the_terminal_shows_the_worst_runs_and_counts_the_rest():
    from curriwatch.cli import Format, render_text
    from curriwatch.render.common import MAX_RUN_DETAILS, MAX_RUN_ROWS

    report = big_sweep(1000)
    text = render_text(report, Format.terminal, to_file=True)
    detailed = re.findall(r"^run sweep/run(\d{4})", text, re.MULTILINE)
    assert len(detailed) == MAX_RUN_DETAILS
    assert set(detailed[:20]) == {f"{r:04d}" for r in range(7, 1000, 50)}  # the 20 critical runs first
    assert f"... and {1000 - MAX_RUN_DETAILS} more run(s) ({1000 - MAX_RUN_DETAILS} healthy) not shown in full" in text
    listed = re.findall(r"^sweep/run\d{4}", text, re.MULTILINE)
    assert len(listed) == MAX_RUN_ROWS
    assert f"... and {1000 - MAX_RUN_ROWS} more run(s) ({1000 - MAX_RUN_ROWS} healthy) not listed" in text
    assert len(json.loads(render_text(report, Format.json, to_file=True))["runs"]) == 1000


# --- item 14: stderr holds nothing but messages --------------------------------------------------

def test_the_progress_bar_leaves_nothing_on_a_non_terminal_stderr(capsys):
    from curriwatch.cli import DelayedProgress

    progress = DelayedProgress(delay=0.0)
    for done in range(1, 11):
        progress(done, 10, "run")
    progress.close()
    assert capsys.readouterr().err == ""


def test_reader_tbparse_without_tbparse_is_one_line(monkeypatch, sample_logs):
    monkeypatch.setitem(sys.modules, "tbparse", None)  # as if not installed
    result = runner.invoke(app, ["scan", str(sample_logs), "--reader", "tbparse"])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--reader tbparse needs the tbparse package" in lines[0]
