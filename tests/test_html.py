"""The HTML report: one self-contained file, opened in headless Chromium."""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

import chromium
from curriwatch.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def sample_html(tmp_path_factory, core_sample_logs):
    out = tmp_path_factory.mktemp("html") / "report.html"
    result = runner.invoke(app, ["report", str(core_sample_logs), "--format", "html", "-o", str(out)])
    assert result.exit_code == 1, result.output  # the sample's critical incidents fail the default gate
    return out


def test_file_is_self_contained_and_small(sample_html):
    text = sample_html.read_text()
    assert sample_html.stat().st_size < 5_000_000
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing fetched from a network
    assert "<script src" not in text and "<link " not in text
    from conftest import N_SAMPLE_ENVS, N_SAMPLE_RUNS

    assert text.count('class="env-chart"') == N_SAMPLE_ENVS
    assert text.count('class="state-diagram"') == N_SAMPLE_RUNS
    assert text.count('class="incident-timeline"') == N_SAMPLE_RUNS
    # every incident links to its env's chart, and that chart exists
    for target in set(re.findall(r'href="#(chart-[^"]+)"', text)):
        assert f'id="{target}"' in text


@pytest.mark.skipif(chromium.find() is None, reason="Chromium is not installed (Debian package `chromium`; "
                                                      ".ci/run installs it)")
def test_charts_render_in_headless_chromium(sample_html, tmp_path, core_sample_logs):
    dom = chromium.dump_dom(sample_html)
    data = chromium.body_data(dom)
    assert "errors" not in data, data["errors"]
    from conftest import N_SAMPLE_ENVS, N_SAMPLE_RUNS

    assert data.get("charts") == str(N_SAMPLE_ENVS)  # the script ran over every chart without an error
    assert len(re.findall(r"<svg class=\"env-chart\"", dom)) == N_SAMPLE_ENVS
    assert len(re.findall(r"<polyline class=\"eval\"", dom)) == N_SAMPLE_ENVS
    import curriwatch

    report = curriwatch.analyze(curriwatch.load(core_sample_logs))
    incidents = sum(report.counts().values())
    assert len(re.findall(r"<rect class=\"incident-shade\"", dom)) == incidents  # every incident shaded on its chart
    png = tmp_path / "shot.png"
    chromium.screenshot(sample_html, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


def test_charts_have_axis_titles_and_round_ticks(sample_html):
    text = sample_html.read_text()
    from conftest import N_SAMPLE_ENVS

    assert text.count('class="axis-title" x=') == N_SAMPLE_ENVS  # "step" under every env chart
    for metric in ("reward", "success_rate", "success"):  # each run's performance metric names the y axis
        assert re.search(rf'class="axis-title" transform="[^"]+"[^>]*>{metric}</text>', text), metric
    ticks = {int(t.replace(",", "")) for t in re.findall(r'<text class="tick" x="[\d.]+" y="[\d.]+" '
                                                         r'text-anchor="middle">([\d,]+)</text>', text)}
    assert ticks and all(t % 250 == 0 for t in ticks), sorted(ticks)  # 0, 1,000, 2,500 ... never 666


def test_nice_ticks():
    from curriwatch.render.html import nice_ticks

    assert nice_ticks(0, 4000) == [0, 1000, 2000, 3000, 4000]
    assert nice_ticks(0, 12000) == [0, 2500, 5000, 7500, 10000]
    assert nice_ticks(-150, 30, 5) == [-150, -100, -50, 0]
