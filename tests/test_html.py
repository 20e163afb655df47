"""The HTML report: one self-contained file with embedded uPlot charts, opened in headless
Chromium (tests/chromium.py drives it over the DevTools protocol: real input events, no sleeps)."""
from __future__ import annotations

import hashlib
import json
import math
import re

import pytest
from typer.testing import CliRunner

import chromium
from conftest import N_SAMPLE_ENVS, N_SAMPLE_RUNS, ROOT
from curriwatch.cli import app
from curriwatch.render.html import COLOURS, compact, json_script, nice_ticks, slug
from writers import write_tb, write_wandb

runner = CliRunner()
needs_chromium = pytest.mark.skipif(chromium.find() is None, reason="Chromium is not installed (Debian package "
                                                                    "`chromium`; .ci/run installs it)")
ALT, SHIFT = 1, 8


def render(logdir, out, *extra) -> str:
    result = runner.invoke(app, ["report", str(logdir), "--format", "html", "-o", str(out), "--fail-on", "never",
                                 *extra])
    assert result.exit_code == 0, result.output
    return out.read_text()


def page_data(text: str) -> dict:
    (block,) = re.findall(r'<script type="application/json" id="cw-data">(.*?)</script>', text, re.S)
    return json.loads(block)


@pytest.fixture(scope="module")
def sample_html(tmp_path_factory, core_sample_logs):
    out = tmp_path_factory.mktemp("html") / "report.html"
    result = runner.invoke(app, ["report", str(core_sample_logs), "--format", "html", "-o", str(out)])
    assert result.exit_code == 1, result.output  # the sample's critical incidents fail the default gate
    return out


@pytest.fixture(scope="module")
def sample_report(core_sample_logs):
    import curriwatch

    return curriwatch.analyze(curriwatch.load(str(core_sample_logs)))


@pytest.fixture(scope="module")
def sweep_logs(tmp_path_factory):
    """Three runs of a sweep sharing env ids (tensorboardX), one env found in a single run."""
    logdir = tmp_path_factory.mktemp("sweep") / "logs"
    for k, lr in enumerate(("0.1", "0.01", "0.001")):
        series = {}
        for env in ("maze", "keys"):
            series[f"train/{env}/reward"] = [(s, min(1.0, 0.1 + s / (800 + 400 * k)) + 0.01 * (s % 7)) for s in range(0, 2000, 10)]
            series[f"eval/{env}/reward"] = [(s, min(1.0, 0.1 + s / (900 + 400 * k))) for s in range(0, 2000, 50)]
        if k == 0:
            series["train/solo/reward"] = [(s, 0.5) for s in range(0, 2000, 10)]
        write_tb(logdir / f"lr_{lr}", series)
    return logdir


@pytest.fixture(scope="module")
def browser():
    if chromium.find() is None:
        pytest.skip("Chromium is not installed (Debian package `chromium`; .ci/run installs it)")
    with chromium.Browser(1400, 900) as b:
        yield b


def load(browser, path, width=1400):
    browser.resize(width, 900)
    browser.open(path)
    browser.evaluate("curriwatch.ready")
    assert browser.evaluate("document.body.dataset.errors || ''") == ""
    return browser.evaluate("curriwatch.renderAll()")


def frame(browser):
    browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# --- the file -------------------------------------------------------------------------------------

def test_file_is_self_contained_and_small(sample_html, sample_report):
    text = sample_html.read_text()
    assert sample_html.stat().st_size < 5_000_000
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # nothing fetched from a network
    assert "<script src" not in text and "<link " not in text
    assert "Copyright (c) 2022 Leon Sorokin" in text and "uPlot v1.6.32" in text  # the vendored library's notice
    data = page_data(text)
    envs = [c for c in data["charts"] if c["kind"] == "env"]
    assert len(envs) == N_SAMPLE_ENVS == text.count('class="env" id="chart-')
    assert text.count('class="rows states"') == N_SAMPLE_RUNS
    assert text.count('class="rows timeline"') == sum(1 for r in sample_report.runs if r.warnings)
    # every incident is drawn on its env's chart and in its run's timeline, and links to the chart
    assert sum(len(c["incidents"]) for c in envs) == sum(len(r.warnings) for r in sample_report.runs)
    assert text.count('<a class="bar ') == sum(len(r.warnings) for r in sample_report.runs)
    for target in set(re.findall(r'href="#(chart-[^"]+)"', text)):
        assert f'id="{target}"' in text
    # the regression thresholds are the rule's: start + share x gain, not a fraction of the baseline
    two_digit = next(c for c in envs if any(i["type"] == "graduated_regression" for i in c["incidents"]))
    lv = two_digit["levels"]
    assert lv["warning"] == pytest.approx(lv["start"] + lv["warning_share"] * (lv["baseline"] - lv["start"]))
    assert lv["start"] > 0 and lv["warning"] != pytest.approx(0.85 * lv["baseline"])


def test_vendored_uplot_is_upstream_with_its_licence():
    assets = ROOT / "curriwatch" / "render" / "assets"
    js = (assets / "uPlot.iife.min.js").read_text()
    header, upstream = js.split(" */\n", 1)
    assert "The MIT License (MIT)" in header and "Copyright (c) 2022 Leon Sorokin" in header
    # dist/uPlot.iife.min.js of the npm package uplot@1.6.32 (`npm pack uplot@1.6.32`), byte for byte
    assert hashlib.sha256(upstream.encode()).hexdigest() == \
        "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f"
    assert (assets / "uPlot.LICENSE").read_text().startswith("The MIT License")
    assert 'curriwatch = ["*.json", "render/assets/*"]' in (ROOT / "pyproject.toml").read_text()


def test_json_block_cannot_close_its_script():
    block = json_script({"env": "</script><script>alert(1)</script><!-- &amp;", "x": float("nan")}, "d")
    inner = block.split(">", 1)[1].rsplit("</script>", 1)[0]
    assert "<" not in inner and ">" not in inner and "&" not in inner
    assert json.loads(inner) == {"env": "</script><script>alert(1)</script><!-- &amp;", "x": None}


def test_tick_labels_are_round_and_compact():
    assert nice_ticks(0, 4000) == [0, 1000, 2000, 3000, 4000]
    assert nice_ticks(0, 12000) == [0, 2500, 5000, 7500, 10000]
    assert nice_ticks(-150, 30, 5) == [-150, -100, -50, 0]
    cases = {(0, 1000): "0", (2500, 2500): "2.5k", (20000, 5000): "20k", (-150, 50): "-150", (0.05, 0.05): "0.05",
             (1.2e6, 2e5): "1.2M", (-1500, 500): "-1.5k", (1.5e-17, 0.25): "0", (0.75, 0.25): "0.75", (1010, 10): "1.01k"}
    assert {k: compact(*k) for k in cases} == cases


# --- in the browser -------------------------------------------------------------------------------

CHART_STATE = """(i => { const c = curriwatch.charts[i], u = c.u, r = u.over.getBoundingClientRect();
  return {min: u.scales.x.min, max: u.scales.x.max, left: r.left, top: r.top, width: r.width, height: r.height}; })"""


def chart_index(browser, anchor: str) -> int:
    return int(browser.evaluate(f"document.getElementById({json.dumps(anchor)}).querySelector('.plot').dataset.chart"))


def show(browser, i: int) -> dict:
    browser.evaluate(f"curriwatch.charts[{i}].u.root.scrollIntoView({{block: 'center'}})")
    frame(browser)
    return browser.evaluate(f"{CHART_STATE}({i})")


def legend(browser, i: int) -> dict[str, str]:
    """Legend label -> shown value of chart i."""
    return browser.evaluate(f"""Object.fromEntries(Array.from(curriwatch.charts[{i}].u.root
        .querySelectorAll('.u-legend tr.u-series')).map(tr => [tr.querySelector('.u-label').textContent,
        tr.querySelector('.u-value').textContent]))""")


@needs_chromium
def test_charts_have_axis_titles_and_readable_ticks(browser, sample_html, sample_report):
    assert load(browser, sample_html) == N_SAMPLE_ENVS
    axes = browser.evaluate("""curriwatch.charts.map(c => ({labels: c.u.axes.map(a => a.label),
        fonts: c.u.axes.map(a => a.font[0]), values: c.u.axes.map(a => a._values || [])}))""")
    metrics = {r.performance_metric for r in sample_report.runs}
    for chart in axes:
        assert chart["labels"][0] == "step" and chart["labels"][1] in metrics
        assert all(int(re.match(r"(\d+)px", f).group(1)) >= 10 for f in chart["fonts"])
        for values in chart["values"]:
            assert values, chart
            for v in values:
                assert re.fullmatch(r"-?\d+(\.\d+)?[kMB]?", v), v  # 1.5k, -150, 0.25; never 1.5e+02
    # JavaScript's tick labels are Python's
    js = browser.evaluate("[[2500, 2500], [20000, 5000], [-150, 50], [0.05, 0.05], [1.2e6, 2e5], [1010, 10]]"
                          ".map(a => curriwatch.tick(a[0], a[1]))")
    assert js == ["2.5k", "20k", "-150", "0.05", "1.2M", "1.01k"]


def _hex(rgb: str) -> str:
    r, g, b = (int(x) for x in re.findall(r"\d+", rgb)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


@needs_chromium
def test_a_legend_names_every_colour_used(browser, sample_html):
    load(browser, sample_html)
    key = browser.evaluate("Array.from(document.querySelectorAll('.key li')).map(li => "
                           "[li.dataset.role, li.dataset.colour, li.textContent.trim()])")
    named = {colour for _role, colour, text in key if text}
    roles = {role: colour for role, colour, _ in key}
    # one colour, one meaning: states, performance lines, severities, graduation and statuses all differ
    meanings = ["state-locked", "state-active", "state-graduated", "line-train", "line-eval", "severity-critical",
                "severity-warning", "severity-info", "line-graduation", "status-healthy", "status-unknown"]
    assert len({roles[m] for m in meanings}) == len(meanings)
    # every colour drawn in the HTML diagrams is in the key
    drawn = browser.evaluate("Array.from(document.querySelectorAll('.iv, .mark, .bar, .sev, .status, .dot'))"
                             ".map(e => getComputedStyle(e).backgroundColor)")
    assert drawn and {_hex(c) for c in drawn} <= named
    # every line and shade a chart draws is in the key, and every series is named in its chart's legend
    charts = browser.evaluate("""curriwatch.charts.map(c => ({
        strokes: c.u.series.slice(1).map((s, i) => s.stroke(c.u, i + 1)),
        labels: Array.from(c.u.root.querySelectorAll('.u-legend tr.u-series .u-label')).slice(1).map(e => e.textContent),
        series: c.u.series.length - 1, used: c.used.map(x => x.colour)}))""")
    for chart in charts:
        assert {s.lower() for s in chart["strokes"]} <= named and set(chart["used"]) <= named
        assert len(chart["labels"]) == chart["series"] and all(chart["labels"])
    incident_colours = {c for chart in charts for c in chart["used"]}
    severities = set(re.findall(r'<span class="sev (critical|warning|info)">', sample_html.read_text()))
    assert {"critical", "warning"} <= severities and {COLOURS[sev] for sev in severities} <= incident_colours


@needs_chromium
def test_zoom_and_pan_with_mouse_wheel_and_keys(browser, sample_html):
    load(browser, sample_html)
    i = chart_index(browser, f"chart-{slug('generic/curriculum_run', 'two_digit')}")
    full = show(browser, i)
    assert (full["min"], full["max"]) == (0, 4000)
    y = full["top"] + full["height"] / 2

    def x_at(fraction):
        return full["left"] + full["width"] * fraction

    browser.drag(x_at(0.25), y, x_at(0.5), y)  # drag to zoom
    s = browser.evaluate(f"{CHART_STATE}({i})")
    assert s["min"] == pytest.approx(1000, abs=40) and s["max"] == pytest.approx(2000, abs=40)
    for clicks in (1, 2):  # double-click resets
        browser.mouse("mousePressed", x_at(0.5), y, "left", clicks)
        browser.mouse("mouseReleased", x_at(0.5), y, "left", clicks)
    s = browser.evaluate(f"{CHART_STATE}({i})")
    assert (s["min"], s["max"]) == (0, 4000)

    browser.mouse("mouseWheel", x_at(0.75), y, deltaX=0, deltaY=-300, modifiers=ALT)  # Alt + wheel zooms in at the pointer
    s = browser.evaluate(f"{CHART_STATE}({i})")
    assert s["max"] - s["min"] < 3000 and s["min"] < 3000 < s["max"]
    width = s["max"] - s["min"]
    browser.drag(x_at(0.6), y, x_at(0.4), y, modifiers=SHIFT)  # Shift + drag pans (rightwards in steps)
    t = browser.evaluate(f"{CHART_STATE}({i})")
    assert t["max"] - t["min"] == pytest.approx(width) and t["min"] > s["min"]
    browser.mouse("mouseWheel", x_at(0.5), y, deltaX=0, deltaY=-200, modifiers=SHIFT)  # Shift + wheel pans
    u = browser.evaluate(f"{CHART_STATE}({i})")
    assert u["max"] - u["min"] == pytest.approx(width) and u["min"] < t["min"]
    browser.evaluate(f"curriwatch.charts[{i}].u.root.parentNode.focus()")
    browser.key("ArrowLeft", "ArrowLeft", 37)
    v = browser.evaluate(f"{CHART_STATE}({i})")
    assert v["min"] < u["min"] and v["max"] - v["min"] == pytest.approx(width)
    browser.key("Escape", "Escape", 27)
    w = browser.evaluate(f"{CHART_STATE}({i})")
    assert (w["min"], w["max"]) == (0, 4000)
    for _ in range(30):  # panning never leaves the data
        browser.mouse("mouseWheel", x_at(0.5), y, deltaX=0, deltaY=-300, modifiers=ALT)
        browser.mouse("mouseWheel", x_at(0.5), y, deltaX=0, deltaY=-500, modifiers=SHIFT)
    z = browser.evaluate(f"{CHART_STATE}({i})")
    assert z["min"] >= 0 and z["max"] - z["min"] >= 2
    browser.key("Escape", "Escape", 27)


@needs_chromium
def test_hover_shows_the_nearest_point_of_each_line_never_a_stale_one(browser, sample_html, sample_report):
    load(browser, sample_html)
    run = next(r for r in sample_report.runs if r.run == "generic/curriculum_run")
    env = next(e for e in run.environments if e.env_id == "two_digit")
    i = chart_index(browser, f"chart-{slug(run.run, env.env_id)}")
    box = show(browser, i)
    y = box["top"] + box["height"] / 2

    def hover_step(step):
        x = browser.evaluate(f"curriwatch.charts[{i}].u.valToPos({step}, 'x')")
        browser.mouse("mouseMoved", box["left"] + x, y)
        frame(browser)
        return legend(browser, i)

    eval_steps, eval_values = (a.tolist() for a in env.chart["eval"])
    train_steps, train_values = (a.tolist() for a in env.chart["train"])
    # an eval step inside the train series, with a train step between it and the next eval
    k = next(j for j in range(5, len(eval_steps) - 1)
             if eval_steps[j] in train_steps and any(eval_steps[j] < s < eval_steps[j + 1] for s in train_steps))
    shown = hover_step(eval_steps[k])
    assert shown["step"] == f"{eval_steps[k]:,}"
    assert float(shown["eval"].replace(",", "")) == pytest.approx(eval_values[k], rel=5e-4)
    t = train_steps.index(eval_steps[k])
    assert float(shown["train"].replace(",", "")) == pytest.approx(train_values[t], rel=5e-4)
    # between two evals, at a train step: train there, eval at its nearest point, which it names
    between = next(s for s in train_steps if eval_steps[k] < s < eval_steps[k + 1])
    shown = hover_step(between)
    assert shown["step"] == f"{between:,}"
    nearest = min(range(len(eval_steps)), key=lambda j: abs(eval_steps[j] - between))
    value, _, at = shown["eval"].partition(" @ ")
    assert at == f"{eval_steps[nearest]:,}" and float(value) == pytest.approx(eval_values[nearest], rel=5e-4)
    # the geometry env is locked (no points) before step 1,600: nothing shown there, no stale point
    geometry = chart_index(browser, f"chart-{slug(run.run, 'geometry')}")
    box = show(browser, geometry)
    browser.mouse("mouseMoved", box["left"] + box["width"] * 0.1, box["top"] + box["height"] / 2)
    frame(browser)
    shown = legend(browser, geometry)
    assert shown["train"] == "--" and shown["eval"] == "--"
    # in the left margin (the y axis) the cursor is off the plot: no step at all, never a negative one
    browser.mouse("mouseMoved", box["left"] - 15, box["top"] + box["height"] / 2)
    frame(browser)
    assert legend(browser, geometry)["step"] == "--"
    browser.mouse("mouseMoved", box["left"] + 0.5, box["top"] + box["height"] / 2)
    frame(browser)
    assert not legend(browser, geometry)["step"].startswith("-")


@needs_chromium
def test_smoothing_slider_draws_a_tensorboard_ema(browser, sample_html):
    load(browser, sample_html)
    browser.evaluate("curriwatch.setSmoothing(0.6)")
    got = browser.evaluate("""(() => { const c = curriwatch.charts[0], u = c.u;
        const raw = u.series.findIndex(s => s.label === 'eval'), sm = u.series.findIndex(s => s.label === 'eval smoothed');
        return {show: u.series[sm].show, alpha: u.series[raw].alpha,
                raw: u.data[raw].filter(v => v != null), smooth: u.data[sm].filter(v => v != null)}; })()""")
    assert got["show"] and got["alpha"] < 1 and len(got["raw"]) == len(got["smooth"])
    last, expected = 0.0, []
    for n, v in enumerate(got["raw"], 1):  # TensorBoard's debiased exponential moving average
        last = last * 0.6 + 0.4 * v
        expected.append(last / (1 - 0.6 ** n))
    assert got["smooth"] == pytest.approx(expected)
    browser.evaluate("curriwatch.setSmoothing(0)")
    assert browser.evaluate("curriwatch.charts[0].u.series.filter(s => s.label.endsWith('smoothed')).every(s => !s.show)")


@needs_chromium
def test_legend_entries_toggle_their_lines(browser, sample_html):
    load(browser, sample_html)
    i = chart_index(browser, f"chart-{slug('generic/curriculum_run', 'two_digit')}")
    show(browser, i)
    rect = browser.evaluate(f"""(() => {{ const th = Array.from(curriwatch.charts[{i}].u.root.querySelectorAll(
        '.u-legend tr.u-series th')).find(th => th.textContent === 'train'); const r = th.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
    browser.mouse("mousePressed", *rect, "left", 1)
    browser.mouse("mouseReleased", *rect, "left", 1)
    assert browser.evaluate(f"curriwatch.charts[{i}].u.series.find(s => s.label === 'train').show") is False
    browser.mouse("mousePressed", *rect, "left", 1)
    browser.mouse("mouseReleased", *rect, "left", 1)
    assert browser.evaluate(f"curriwatch.charts[{i}].u.series.find(s => s.label === 'train').show") is True


LAYOUT = """(() => {
  const small = [];
  for (const el of document.body.querySelectorAll('*')) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    const style = getComputedStyle(el);
    if (own && style.display !== 'none' && el.getClientRects().length && parseFloat(style.fontSize) < 10)
      small.push(el.tagName + ' ' + style.fontSize + ' ' + el.textContent.slice(0, 30));
  }
  const plots = curriwatch.charts.map(c => [c.u.root.getBoundingClientRect().width, c.u.root.parentNode.clientWidth]);
  const fonts = curriwatch.charts.flatMap(c => c.u.axes.map(a => parseFloat(a.font[0])));
  return {scrollWidth: document.documentElement.scrollWidth, bodyWidth: document.body.scrollWidth,
          viewport: window.innerWidth, small: small, plots: plots, fonts: fonts,
          tableFits: Array.from(document.querySelectorAll('table.incidents')).every(t => t.getBoundingClientRect().right <= window.innerWidth + 0.5)};
})()"""


@needs_chromium
@pytest.mark.parametrize("width", [400, 800, 1400])
def test_layout_is_usable_at_every_width(browser, sample_html, tmp_path, width):
    load(browser, sample_html, width)
    browser.evaluate("curriwatch.resizeAll()")
    frame(browser)
    got = browser.evaluate(LAYOUT)
    assert got["viewport"] == width
    assert got["scrollWidth"] <= width and got["bodyWidth"] <= width  # nothing overflows sideways
    assert got["small"] == []  # no text under 10 px
    assert all(f >= 10 for f in got["fonts"])
    assert all(chart <= box + 1 for chart, box in got["plots"])  # charts fit their column
    assert got["tableFits"]
    png = tmp_path / f"report-{width}.png"
    browser.screenshot(png, 2400)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


# --- sweeps, unknown runs, hostile names ----------------------------------------------------------

def test_across_runs_charts_overlay_one_env_of_every_run(sweep_logs, tmp_path):
    text = render(sweep_logs, tmp_path / "sweep.html")
    data = page_data(text)
    across = [c for c in data["charts"] if c["kind"] == "across"]
    assert len(across) == 2  # maze and keys are in all three runs; solo in one only
    runs = {"lr_0.1", "lr_0.01", "lr_0.001"}
    for chart in across:
        assert {m["run"] for m in chart["members"]} == runs
        for m in chart["members"]:
            assert data["charts"][m["chart"]]["kind"] == "env"
    for env in ("maze", "keys"):
        anchor = slug("across", env, "reward")
        assert f'id="across-{anchor}"' in text and text.count(f'href="#across-{anchor}"') == 3  # from each run's chart
    assert "solo" in text and slug("across", "solo", "reward") not in text


def test_across_runs_draws_at_most_20_runs_and_names_the_rest(tmp_path):
    logdir = tmp_path / "logs"
    for k in range(22):
        write_tb(logdir / f"r{k:02d}", {"train/maze/reward": [(s, min(1.0, s / (300 + 20 * k))) for s in range(0, 300, 10)]})
    text = render(logdir, tmp_path / "r.html")
    (chart,) = [c for c in page_data(text)["charts"] if c["kind"] == "across"]
    assert len(chart["members"]) == 20
    note = text.split('id="across-', 1)[1].split('<p class="note">', 1)[1].split("</p>", 1)[0]
    assert "22 runs" in note and "2 more run(s) not drawn" in note and "r20, r21" in note


@needs_chromium
def test_across_runs_chart_in_the_browser(browser, sweep_logs, tmp_path):
    path = tmp_path / "sweep.html"
    render(sweep_logs, path)
    load(browser, path)
    got = browser.evaluate("""curriwatch.charts.filter(c => c.spec.kind === 'across').map(c => ({
        labels: c.u.series.slice(1).map(s => s.label), colours: c.u.series.slice(1).map((s, i) => s.stroke(c.u, i + 1)),
        points: c.u.data.slice(1).map(d => d.filter(v => v != null).length),
        members: c.spec.members.map(m => curriwatch.data.charts[m.chart].eval[0].length)}))""")
    assert len(got) == 2
    for chart in got:
        assert sorted(chart["labels"]) == sorted(f"{r} (eval)" for r in ("lr_0.1", "lr_0.01", "lr_0.001"))
        assert len(set(chart["colours"])) == 3 and chart["points"] == chart["members"]


def test_unknown_runs_and_envs_show_plainly_with_their_reason(tmp_path):
    logdir = tmp_path / "logs"
    write_tb(logdir / "good", {"train/a/reward": [(s, min(1.0, s / 300)) for s in range(0, 600, 10)]})
    write_tb(logdir / "odd", {"misc/loss": [(s, 1.0 / (1 + s)) for s in range(0, 600, 10)]})
    text = render(logdir, tmp_path / "r.html", "--allow-unknown")
    section = text.split('id="run-' + slug("odd"), 1)[1].split("</section>", 1)[0]
    assert '<span class="status unknown">unknown</span>' in section
    assert re.search(r'class="unknown-reason"><b>unknown:</b> [^<]*profile', section), section[:600]
    assert '<span class="status unknown">unknown</span>' in text.split("</header>")[0] or "1 unknown" in text


@needs_chromium
def test_names_from_the_logs_stay_text(browser, tmp_path):
    """Markup in env ids (a W&B key, logged by wandb) and run folder names is shown as text."""
    logdir = tmp_path / "logs"
    evil = "a</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
    write_wandb(logdir / "sweep<b>x</b>", [{f"train/{evil}/reward": 0.5 + s / 1000, "train/plain/reward": 0.5}
                                          for s in range(40)], steps=list(range(0, 400, 10)))
    path = tmp_path / "evil.html"
    text = render(logdir, path)
    assert "<img" not in text and "<b>x" not in text and text.count("<script") == 3
    load(browser, path)
    assert browser.evaluate("window.pwned === undefined && document.scripts.length === 3")
    labels = browser.evaluate("Array.from(document.querySelectorAll('.rows.states .label')).map(e => e.textContent)")
    assert evil in labels  # shown as the text it is
    assert browser.evaluate("document.querySelectorAll('img, b').length") == 0
    assert browser.evaluate("document.querySelector('h2').textContent").startswith("sweep<b>x</b>")


def test_number_format_helpers_never_use_exponents_for_common_values():
    for value, incr in [(-150.0, 50), (1234567, 500000), (0.001, 0.001), (99999, 20000)]:
        assert "e" not in compact(value, incr)
    assert math.isclose(float(compact(-150, 50)), -150)
