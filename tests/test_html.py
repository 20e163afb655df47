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
    assert text.count('class="env-chart"') == 15
    assert text.count('class="state-diagram"') == 3 and text.count('class="incident-timeline"') == 3
    # every incident links to its env's chart, and that chart exists
    for target in set(re.findall(r'href="#(chart-[^"]+)"', text)):
        assert f'id="{target}"' in text


@pytest.mark.skipif(chromium.find() is None, reason="Chromium is not installed (Debian package `chromium`; "
                                                      ".ci/run installs it)")
def test_charts_render_in_headless_chromium(sample_html, tmp_path):
    dom = chromium.dump_dom(sample_html)
    data = chromium.body_data(dom)
    assert "errors" not in data, data["errors"]
    assert data.get("charts") == "15"  # the script ran over every chart without an error
    assert len(re.findall(r"<svg class=\"env-chart\"", dom)) == 15
    assert len(re.findall(r"<polyline class=\"eval\"", dom)) == 15
    assert len(re.findall(r"<rect class=\"incident-shade\"", dom)) == 18  # every incident shaded on its chart
    png = tmp_path / "shot.png"
    chromium.screenshot(sample_html, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
