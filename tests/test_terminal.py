"""The terminal report of sample_logs at forced widths (rich's Console(width=...)): the story comes
first, nothing splits a word or number, wide terminals use their width."""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

import curriwatch
from curriwatch.render.common import fmt, worst_incidents
from curriwatch.render.terminal import report_text


@pytest.fixture(scope="module")
def report(core_sample_logs):
    return curriwatch.analyze(curriwatch.load(core_sample_logs, config=curriwatch.load_config(None)))


def render(report, width: int) -> str:
    return report_text(report, Console(file=io.StringIO(), width=width, no_color=True))


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("width", [80, 160])
def test_verdict_and_worst_incidents_come_first(report, width):
    out = render(report, width)
    lines = out.splitlines()
    from conftest import N_SAMPLE_ENVS, N_SAMPLE_RUNS

    counts = report.counts()
    assert lines[0].startswith(f"curriwatch: CRITICAL · {N_SAMPLE_RUNS} run(s) · {N_SAMPLE_ENVS} env(s) · "
                               f"{counts['critical']} critical, {counts['warning']} warning, {counts['info']} info")
    assert counts["critical"] == N_SAMPLE_RUNS  # one injected critical regression per sample run
    assert lines[1].startswith("worst incidents")
    first_run = out.index("\nrun ")
    top = worst_incidents(report, 10)
    assert top[0][1].severity == "critical"
    for run, w in top:  # each of the worst incidents, with env, what, since when and the message, before any run
        block = flat(out[:first_run])
        assert f"{w.env_id} · since step {w.first_step}" in block and f"{w.type}: {flat(w.message)}" in block


@pytest.mark.parametrize("width", [80, 160])
def test_nothing_splits_a_word_or_a_number(report, width):
    out = render(report, width)
    assert max(len(line) for line in out.splitlines()) <= width
    assert all(line == line.rstrip() for line in out.splitlines())  # no trailing spaces
    text = flat(out)
    for run in report.runs:
        # a run name may break only after a `/`
        assert run.run in re.sub(r"/ ", "/", text)
        for w in run.warnings:  # messages wrap only between words
            assert flat(w.message) in text, w.message
        for e in run.environments:  # one line per env, every number whole
            row = rf"^{re.escape(e.env_id)} +{e.current_state} +{re.escape(fmt(e.current_train_performance))} +" \
                  rf"{re.escape(fmt(e.current_eval_performance))} +{re.escape(fmt(e.peak_performance))} +" \
                  rf"{e.performance_trend} +\S+ +{e.health_status}$"
            assert re.search(row, out, re.M), (width, e.env_id)
    for header in ("train", "eval", "peak", "performance", "health"):
        assert re.search(rf"^env +state +train +eval +peak +trend +perf(?:ormance)? +health$", out, re.M), header


def test_wide_terminals_use_their_width(report):
    narrow, wide = render(report, 80), render(report, 160)
    timeline = lambda out: [l for l in out.splitlines() if re.match(r"^\w+ +[·─━▲✖]+$", l)]  # noqa: E731
    assert max(len(l) for l in timeline(narrow)) <= 80 and max(len(l) for l in timeline(wide)) > 140
    spark = lambda out: max(len(m) for m in re.findall(r"[▁▂▃▄▅▆▇█]+", out))  # noqa: E731
    assert spark(narrow) == 12 and spark(wide) == 24


@pytest.fixture(scope="module")
def report_with_info(core_sample_logs, tmp_path_factory):
    """The sample logs plus a run whose active env stops being evaluated (an info eval gap)."""
    import shutil

    from series import Case, EnvSeries as E, write_case

    logdir = tmp_path_factory.mktemp("with_info")
    shutil.copytree(core_sample_logs, logdir / "sample_logs")
    write_case(Case("gap", {"a": E(train="0.2+0.001~0.02x400", eval="0.2~0.02x10")}, []), logdir / "gap")
    return curriwatch.analyze(curriwatch.load(logdir, config=curriwatch.load_config(None)))


def test_severity_marks_differ_without_colour_and_info_stays_off_the_timeline(report_with_info):
    report = report_with_info
    out = render(report, 100)
    assert "\x1b[" not in out
    assert "✖ critical" in out and "▲ warning" in out and "· info" in out
    timeline_rows = [l for l in out.splitlines() if re.match(r"^\w+ +[ ·─━▲✖]+$", l)]
    assert any("✖" in l for l in timeline_rows) and any("▲" in l for l in timeline_rows)
    infos = {(r.run, w.env_id, w.first_step) for r in report.runs for w in r.warnings if w.severity == "info"}
    assert infos  # the sample has info incidents, yet the timeline holds only ✖ and ▲ marks


def test_numbers_read_alike():
    assert [fmt(v) for v in (1.0, 0.953, -1210.4, 12.34, 0.0004567, None, 3)] == \
        ["1.00", "0.953", "-1,210", "12.3", "4.57e-04", "–", "3"]


def test_harmless_unclaimed_tags_are_notes_not_issues(report):
    out = render(report, 100)
    assert re.search(r"^run +status +envs +crit +warn +info +issues$", out, re.M)
    rows = [l for l in out.splitlines() if re.match(r"^\S+ +critical +5 +1 +\d+ +\d+ +\d+$", l)]
    assert rows and all(l.endswith(" 0") for l in rows)  # sample runs only have unclaimed tags
    assert "note: unclaimed_tags" in out and "data issues (" not in out
