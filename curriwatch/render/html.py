"""One self-contained HTML file: interactive uPlot charts embedded in the page; no network.

Sections (one function each, so new ones slot in): header with the verdict, summary cards, the
colour key, the chart toolbar (smoothing), the runs overview of a sweep, then per run its facts,
curriculum state diagram, incident timeline and table, and one performance chart per env; last,
"across runs" charts overlaying one env of every run of a sweep.

The state diagram and incident timeline are plain HTML (readable without JavaScript). The env and
across-runs charts are drawn by uPlot (vendored in `assets/`, MIT, licence kept in the file) from
one `<script type="application/json">` block; `assets/report.js` builds them. Strings from the logs
are HTML-escaped in markup and reach the charts only as JSON data inserted with `textContent`.
Series arrive decimated for drawing (health.py: each bucket's min and max) and the chart says so.
"""
from __future__ import annotations

import functools
import hashlib
import html
import json
import math
import re
from importlib import resources

from ..health import EnvHealth
from ..report import Report, RunReport
from .common import (envs_to_show, fmt, incidents_worst_first, inert, inert_report, notable_issues, run_facts,
                     runs_worst_first, severity_counts, status_of, status_reason, steps_text)
from .lessons import html_lessons

# One colour, one meaning, page-wide (the colour key names each; report.js draws with these).
COLOURS = {
    "locked": "#e5e7eb", "active": "#a5f3fc", "graduated": "#bbf7d0",       # state fills
    "train": "#2563eb", "eval": "#111827",                                   # performance lines
    "critical": "#dc2626", "warning": "#d97706", "info": "#a21caf",          # incident severities
    "graduation": "#0f766e",                                                  # graduation step, held level
    "healthy": "#15803d", "unknown": "#4b5563",                               # statuses (warning/critical as above)
}
# runs in the "across runs" charts; each chart's legend names them (dashed from the 11th run on)
RUN_PALETTE = ["#7c3aed", "#ea580c", "#0891b2", "#65a30d", "#db2777", "#92400e", "#4338ca", "#64748b",
               "#ca8a04", "#be185d"]
STATES = ("locked", "active", "graduated")
GLYPH = {"critical": "✖", "warning": "▲", "info": "●"}
TYPE_LABEL = {"graduated_regression": "regression", "training_stagnation": "stagnation",
              "performance_volatility": "volatility", "unexpected_transition": "state transition",
              "prolonged_training": "prolonged training", "eval_gap": "eval gap"}
ACROSS_MAX_RUNS = 20  # lines per "across runs" chart; more are named, not drawn
OVERLAY_POINTS = 200  # per state-diagram row: the eval line is a sketch 20 px high


def esc(text) -> str:
    return html.escape(inert(text), quote=True)


def slug(*parts: str) -> str:
    text = "-".join(parts)
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)[:60] + "-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


@functools.lru_cache(maxsize=None)
def asset(name: str) -> str:
    return (resources.files("curriwatch.render") / "assets" / name).read_text(encoding="utf-8")


def json_script(data, element_id: str) -> str:
    """`data` as an inert JSON block: `<`, `>` and `&` written as \\u escapes, so no string in it
    can close the script element or open a comment; NaN and infinities become null."""
    text = json.dumps(_finite(data), ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _num(value) -> float | None:
    """A finite number or None (chart data may come from a saved file)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values (1, 2, 2.5 or 5 x 10^k apart) covering lo..hi, about `count` of them."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def compact(value: float, incr: float) -> str:
    """A tick label: 1k, 2.5k, 1.2M, -150, 0.05 (decimals from the tick spacing, no exponents
    in the usual ranges). report.js's `tick()` is the same function."""
    if abs(value) < abs(incr) * 1e-6:
        return "0"
    for unit, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= unit:
            return _trim(f"{value / unit:.{min(_decimals(incr / unit), 6)}f}") + suffix
    d = _decimals(incr)
    return f"{value:.2g}" if d > 6 else _trim(f"{value:.{d}f}")


def _decimals(x: float) -> int:
    for d in range(10):
        m = abs(x) * 10 ** d
        if abs(m - round(m)) < 1e-6 * max(1.0, m):
            return d
    return 10


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def _pct(step: float, first: int, span: int) -> float:
    return min(max((step - first) / span * 100, 0.0), 100.0)


def _lanes(spans: list[tuple[float, float]]) -> tuple[list[int], int]:
    """Greedy lanes so that no two spans of one lane overlap; returns each span's lane and the count."""
    ends: list[float] = []
    lanes = [0] * len(spans)
    for i in sorted(range(len(spans)), key=lambda i: spans[i]):
        a, b = spans[i]
        lane = next((k for k, end in enumerate(ends) if end < a), len(ends))
        if lane == len(ends):
            ends.append(b)
        ends[lane] = b
        lanes[i] = lane
    return lanes, len(ends)


def _thin(steps: list, values: list, n: int) -> tuple[list, list]:
    """At most 2 x `n` points (each bucket's min and max) of an already decimated drawing series."""
    if len(steps) <= 2 * n:
        return steps, values
    out_s, out_v = [], []
    size = len(steps) / n
    for b in range(n):
        idx = [i for i in range(int(b * size), int((b + 1) * size)) if values[i] == values[i]]
        if idx:
            lo, hi = min(idx, key=values.__getitem__), max(idx, key=values.__getitem__)
            for i in sorted({lo, hi}):
                out_s.append(steps[i])
                out_v.append(values[i])
    return out_s, out_v


def _series(env: EnvHealth, name: str) -> tuple[list, list]:
    steps, values = env.chart.get(name) or ([], [])
    return _plain(steps), _plain(values)


def _plain(numbers) -> list:
    """Python numbers (chart series are numpy arrays in a fresh report, lists in a saved one)."""
    return numbers.tolist() if hasattr(numbers, "tolist") else list(numbers)


def _step_axis(first: int, last: int) -> str:
    span = max(last - first, 1)
    ticks = nice_ticks(first, last, 5)
    incr = ticks[1] - ticks[0] if len(ticks) > 1 else 1
    out = []
    for t in ticks:
        p = _pct(t, first, span)
        align = "start" if p < 8 else "end" if p > 92 else "mid"
        out.append(f'<span class="{align}" style="left:{p:.2f}%">{compact(t, incr)}</span>')
    return f'<div class="row axis"><span></span><div class="ticks">{"".join(out)}</div></div>'


# --- sections -------------------------------------------------------------------------------------

class Charts:
    """The JSON data of every interactive chart, in page order; each chart's element says its index."""

    def __init__(self):
        self.specs: list[dict] = []
        self.env_index: dict[tuple[str, str], int] = {}

    def add(self, spec: dict) -> int:
        self.specs.append(spec)
        return len(self.specs) - 1


def header(report: Report) -> str:
    status = status_of(report)
    reason = report.overall_reason if status == "unknown" else None
    c = report.counts()
    verdict = (f"{len(report.runs)} run(s), {sum(len(r.environments) for r in report.runs)} environment(s); "
               f"incidents: {c['critical']} critical, {c['warning']} warning, {c['info']} info")
    return (f'<header><h1>curriwatch report <span class="status {status}">{status}</span></h1>'
            f'<p class="verdict">{esc(verdict)}</p>'
            + (f'<p class="unknown-reason"><b>unknown:</b> {esc(reason)}</p>' if reason else "")
            + f'<p class="quiet">{esc(report.logdir or "online runs")} · curriwatch {esc(report.curriwatch_version)}</p>'
            '</header>')


def summary(report: Report) -> str:
    envs = [e for r in report.runs for e in r.environments]
    statuses = ("critical", "warning", "unknown", "healthy")
    c = report.counts()

    def card(title, items):
        return f'<div class="card"><h3>{title}</h3>' + "".join(
            f'<div><span class="dot {cls}"></span>{n} {label}</div>' for cls, n, label in items) + "</div>"

    return ('<section class="summary">'
            + card(f"{len(report.runs)} runs", [(s, sum(1 for r in report.runs if status_of(r) == s), s) for s in statuses])
            + card(f"{len(envs)} environments", [(s, sum(1 for e in envs if status_of(e) == s), s) for s in statuses])
            + card("incidents", [(s, c[s], f"{GLYPH[s]} {s}") for s in ("critical", "warning", "info")])
            + "</section>")


def colour_key() -> str:
    """Every colour the page draws with, named once."""
    items = [("state-locked", "locked", "swatch", "locked (state)"),
             ("state-active", "active", "swatch", "active (state)"),
             ("state-graduated", "graduated", "swatch", "graduated (state)"),
             ("line-train", "train", "line", "train performance"),
             ("line-eval", "eval", "line", "eval performance"),
             ("line-graduation", "graduation", "line dashed", "graduation step; held level (baseline)"),
             ("line-warning", "warning", "line dashed", "warning threshold"),
             ("line-critical", "critical", "line dashed", "critical threshold"),
             ("severity-critical", "critical", "swatch strong", f"{GLYPH['critical']} critical incident"),
             ("severity-warning", "warning", "swatch strong", f"{GLYPH['warning']} warning incident"),
             ("severity-info", "info", "swatch strong", f"{GLYPH['info']} info incident"),
             ("status-healthy", "healthy", "swatch strong", "healthy (status)"),
             ("status-unknown", "unknown", "swatch strong", "unknown (status): could not be judged")]
    out = ['<section class="key" aria-label="colour key"><h3>colour key</h3><ul>']
    for role, colour, shape, label in items:
        out.append(f'<li data-role="{role}" data-colour="{COLOURS[colour]}"><span class="{shape}" '
                   f'style="--c:{COLOURS[colour]}"></span>{esc(label)}</li>')
    out.append('</ul><p class="quiet">Incident spans are shaded in their severity\'s colour (the worst one\'s '
               'where incidents overlap), and each is labelled in its own lane above the chart; smoothed lines are drawn solid over the raw ones (faint). In "across runs" charts '
               "each run has its own colour, named in that chart's legend.</p></section>")
    return "".join(out)


def toolbar() -> str:
    return ('<div class="toolbar" role="toolbar"><label>smoothing <input type="range" id="smoothing" min="0" '
            'max="0.99" step="0.01" value="0" aria-label="smoothing (exponential moving average weight)">'
            '<output id="smoothing-value">0</output></label></div>'
            '<p class="help">Charts: drag to zoom · double-click to reset · Ctrl/Alt + wheel zooms · Shift + drag, '
            'Shift + wheel or ←/→ pan · + / − / 0 keys on a focused chart · click a legend entry to hide its line. '
            'Smoothing is TensorBoard\'s (a debiased exponential moving average of the drawn points).</p>'
            '<noscript><p class="unknown-reason">The performance charts need JavaScript; the state diagrams, '
            'incident timelines and tables do not.</p></noscript>')


def runs_overview(ordered: list[RunReport]) -> str:
    out = ['<section><h2>runs</h2><div class="scroll"><table class="overview"><tr><th>run</th><th>status</th>'
           '<th>envs</th><th>critical</th><th>warning</th><th>info</th><th>data issues</th></tr>']
    for run in ordered:
        n = severity_counts(run)
        status = status_of(run)
        reason = f'<div class="quiet">{esc(status_reason(run))}</div>' if status == "unknown" and status_reason(run) else ""
        out.append(f'<tr><td><a href="#run-{slug(run.run)}">{esc(run.run)}</a>{reason}</td>'
                   f'<td><span class="status {status}">{status}</span></td>'
                   f'<td>{len(run.environments)}</td><td>{n["critical"]}</td><td>{n["warning"]}</td>'
                   f'<td>{n["info"]}</td><td>{len(notable_issues(run.data_issues))}</td></tr>')
    out.append("</table></div></section>")
    return "".join(out)


def state_diagram(run: RunReport) -> str:
    """One row per env: its state intervals, its eval (else train) line, its incidents beneath."""
    envs, _hidden = envs_to_show(run)
    first, last = run.step_range or (0, 1)
    span = max(last - first, 1)
    intervals: dict[str, list] = {}
    for env_id, iv in run.timeline:  # grouped once: linear, not envs x timeline
        intervals.setdefault(env_id, []).append(iv)
    incidents: dict[str, list] = {}
    for w in run.warnings:
        incidents.setdefault(w.env_id, []).append(w)
    out = [f'<div class="rows states" aria-label="curriculum states of {esc(run.run)}">']
    for env in envs:
        link = f"#chart-{slug(run.run, env.env_id)}"
        cells = []
        for iv in intervals.get(env.env_id, ()):
            if iv.state not in STATES:
                continue
            a, b = _pct(iv.start_step, first, span), _pct(iv.end_step, first, span)
            cells.append(f'<span class="iv {iv.state}" style="left:{a:.2f}%;width:{max(b - a, 0.2):.2f}%" '
                         f'title="{iv.state} {iv.start_step}..{iv.end_step}"></span>')
        cells.append(_overlay(env, first, span))
        mine = sorted(incidents.get(env.env_id, ()), key=lambda w: w.first_step)
        lanes, count = _lanes([(w.first_step, w.last_step) for w in mine])
        for w, lane in zip(mine, lanes):
            a, b = _pct(w.first_step, first, span), _pct(w.last_step, first, span)
            cells.append(f'<a class="mark {w.severity}" href="{link}" style="left:{a:.2f}%;width:{b - a:.2f}%;'
                         f'top:{22 + 5 * lane}px" title="{esc(w.severity)} {esc(w.type)} {esc(steps_text(w))}"></a>')
        out.append(f'<div class="row"><a class="label" href="{link}" title="{esc(env.env_id)}">{esc(env.env_id)}</a>'
                   f'<div class="track" style="height:{22 + 5 * count}px">{"".join(cells)}</div></div>')
    out.append(_step_axis(first, last))
    out.append('<div class="axis-title">step</div></div>')
    return "".join(out)


def _overlay(env: EnvHealth, first: int, span: int) -> str:
    steps, values = _series(env, "eval")
    if not steps:
        steps, values = _series(env, "train")
    steps, values = _thin(steps, values, OVERLAY_POINTS)
    vals = [v for v in values if _num(v) is not None]
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    if lo >= 0 and hi <= 1:
        lo, hi = 0.0, 1.0
    rng = (hi - lo) or 1.0
    pts = " ".join(f"{(s - first) / span * 1000:.1f},{96 - (v - lo) / rng * 92:.1f}"
                   for s, v in zip(steps, values) if _num(v) is not None)
    return f'<svg class="perf" viewBox="0 0 1000 100" preserveAspectRatio="none" aria-hidden="true"><polyline points="{pts}"/></svg>'


def incident_timeline(run: RunReport) -> str:
    """One row per env with incidents; overlapping incidents get lanes of their own."""
    incidents = incidents_worst_first(run)
    if not incidents:
        return '<p class="quiet">No incidents.</p>'
    first, last = run.step_range or (0, 1)
    span = max(last - first, 1)
    out = [f'<div class="rows timeline" aria-label="incidents of {esc(run.run)}">']
    for env_id in sorted({w.env_id for w in incidents}):
        mine = sorted((w for w in incidents if w.env_id == env_id), key=lambda w: w.first_step)
        lanes, count = _lanes([(w.first_step, w.last_step) for w in mine])
        bars = []
        for w, lane in zip(mine, lanes):
            a, b = _pct(w.first_step, first, span), _pct(w.last_step, first, span)
            bars.append(f'<a class="bar {w.severity}" href="#chart-{slug(run.run, env_id)}" '
                        f'style="left:{a:.2f}%;width:calc({b - a:.2f}% + 3px);top:{2 + 20 * lane}px" '
                        f'title="{esc(w.severity)} {esc(w.type)} {esc(env_id)} steps {esc(steps_text(w))}: '
                        f'{esc(w.message)}">{GLYPH[w.severity]} {esc(TYPE_LABEL.get(w.type, w.type))}</a>')
        out.append(f'<div class="row"><span class="label" title="{esc(env_id)}">{esc(env_id)}</span>'
                   f'<div class="track" style="height:{20 * count + 4}px">{"".join(bars)}</div></div>')
    out.append(_step_axis(first, last))
    out.append('<div class="axis-title">step</div></div>')
    return "".join(out)


def incident_table(run: RunReport) -> str:
    incidents = incidents_worst_first(run)
    if not incidents:
        return ""
    out = ['<div class="scroll"><table class="incidents"><tr><th>severity</th><th>type</th><th>env</th>'
           '<th>steps</th><th>message</th></tr>']
    for w in incidents:
        out.append(f'<tr><td><span class="sev {w.severity}">{GLYPH[w.severity]} {w.severity}</span></td>'
                   f'<td>{esc(w.type).replace("_", "_<wbr>")}</td><td><a href="#chart-{slug(run.run, w.env_id)}">'
                   f'{esc(w.env_id)}</a></td><td>{esc(steps_text(w))}</td><td class="message">{esc(w.message)}</td></tr>')
    out.append("</table></div>")
    return "".join(out)


def env_chart(run: RunReport, env: EnvHealth, charts: Charts, across: dict) -> str:
    first, last = run.step_range or (0, 1)
    anchor = slug(run.run, env.env_id)
    status = status_of(env)
    facts = (f"{env.current_state} · train {fmt(env.current_train_performance)} · eval "
             f"{fmt(env.current_eval_performance)} · peak {fmt(env.peak_performance)} · {env.performance_trend}")
    group = across.get((env.env_id, run.performance_metric))
    link = f' · <a href="#across-{group}">across runs</a>' if group else ""
    out = [f'<div class="env" id="chart-{anchor}"><h4>{esc(env.env_id)} <span class="status {status}">{status}</span> '
           f'<span class="quiet">{esc(facts)}</span>{link}</h4>']
    if status == "unknown":
        out.append(f'<p class="unknown-reason"><b>unknown:</b> {esc(status_reason(env) or "could not be judged")}</p>')
    train, evals = _series(env, "train"), _series(env, "eval")
    env_incidents = sorted((w for w in run.warnings if w.env_id == env.env_id), key=lambda w: w.first_step)
    if train[0] or evals[0]:
        levels = env.chart.get("levels") if isinstance(env.chart.get("levels"), dict) else {}
        index = charts.add({
            "kind": "env", "metric": run.performance_metric or "performance", "range": [first, last],
            "train": train, "eval": evals, "graduation": env.graduation_step,
            "levels": {k: _num(v) for k, v in levels.items() if _num(v) is not None},
            "incidents": [{"type": w.type, "label": TYPE_LABEL.get(w.type, w.type), "severity": w.severity,
                           "first": w.first_step, "last": w.last_step} for w in env_incidents]})
        charts.env_index[(run.run, env.env_id)] = index
        out.append(f'<div class="plot" data-chart="{index}" tabindex="0" role="img" '
                   f'aria-label="{esc(run.performance_metric or "performance")} of {esc(env.env_id)} by step"></div>')
    if env_incidents:
        out.append('<ul class="env-incidents">' + "".join(
            f'<li><span class="sev {w.severity}">{GLYPH[w.severity]} {w.severity}</span> <b>{esc(w.type)}</b> '
            f'{esc(steps_text(w))}: {esc(w.message)}</li>' for w in env_incidents) + "</ul>")
    out.append(f'<p class="note">{esc(_drawn_note(env))}</p></div>')
    return "".join(out)


def _drawn_note(env: EnvHealth) -> str:
    counts = env.chart.get("points") if isinstance(env.chart.get("points"), dict) else {}
    drawn = {k: len(_series(env, k)[0]) for k in ("train", "eval")}
    parts = [f"{k} {counts.get(k, 0):,} points" + (f" (drawn: {drawn[k]:,}, each bucket's min and max)"
                                                  if drawn[k] < counts.get(k, 0) else "")
             for k in ("train", "eval") if counts.get(k)]
    note = "; ".join(parts) or "no performance data"
    if any(drawn[k] < counts.get(k, 0) for k in drawn):
        note += ". Downsampled for drawing only: the analysis used every point."
    return note


def run_section(run: RunReport, charts: Charts, across: dict) -> str:
    status = status_of(run)
    out = [f'<section class="run" id="run-{slug(run.run)}"><h2>{esc(run.run)} '
           f'<span class="status {status}">{status}</span></h2>',
           f'<p class="quiet">{esc(run_facts(run))}</p>']
    if status == "unknown":
        out.append(f'<p class="unknown-reason"><b>unknown:</b> {esc(status_reason(run) or "could not be judged")}</p>')
    if run.environments:
        out += ["<h3>curriculum states</h3>", state_diagram(run)]
    out += ["<h3>incidents</h3>", incident_timeline(run), incident_table(run), html_lessons(run, esc),
            "<h3>environments</h3>"]
    envs, hidden = envs_to_show(run)
    if hidden:
        out.append(f'<p class="note">{hidden} more environment(s) not drawn (the worst {len(envs)} are); '
                   'the full list is in <code>curriwatch report --format json</code>.</p>')
    out += [env_chart(run, env, charts, across) for env in envs]
    if run.data_issues:
        out.append("<details><summary>data issues</summary><ul>" + "".join(
            f"<li><code>{esc(d.kind)}</code> {esc(d.path)}: {esc(d.detail)}</li>" for d in run.data_issues)
            + "</ul></details>")
    out.append("</section>")
    return "\n".join(out)


def across_groups(report: Report) -> dict[tuple[str, str | None], str]:
    """(env_id, performance metric) -> anchor, for every env id drawn in two runs or more."""
    seen: dict[tuple[str, str | None], list[str]] = {}
    for run in report.runs:
        for env in envs_to_show(run)[0]:
            if len(env.chart.get("train", ([], []))[0]) or len(env.chart.get("eval", ([], []))[0]):
                seen.setdefault((env.env_id, run.performance_metric), []).append(run.run)
    return {key: slug("across", key[0], key[1] or "") for key, runs in seen.items() if len(runs) > 1}


def across_runs_section(ordered: list[RunReport], charts: Charts, across: dict) -> str:
    """One chart per env id found in several runs: that env's performance in each run, overlaid."""
    if not across:
        return ""
    out = ['<section class="across" id="across"><h2>across runs</h2><p class="quiet">Each env found in several '
           'runs, with its performance (eval where logged, else train) in every run overlaid; the legend names '
           'the runs (worst first) and toggles them.</p>']
    for (env_id, metric), anchor in sorted(across.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        members = [(run, charts.env_index[(run.run, env_id)]) for run in ordered
                   if run.performance_metric == metric and (run.run, env_id) in charts.env_index]
        drawn, more = members[:ACROSS_MAX_RUNS], members[ACROSS_MAX_RUNS:]
        index = charts.add({"kind": "across", "metric": metric or "performance",
                            "members": [{"run": run.run, "chart": i} for run, i in drawn]})
        note = (f"{len(members)} runs. Lines are the drawn (decimated) series of each run's own chart"
                + (f"; {len(more)} more run(s) not drawn (their own charts are above): "
                   + ", ".join(r.run for r, _ in more[:10]) + (", …" if len(more) > 10 else "") if more else "")
                + ". With smoothing on, the lines are smoothed.")
        out.append(f'<div class="env" id="across-{anchor}"><h4>{esc(env_id)} <span class="quiet">· '
                   f'{esc(metric or "performance")} · {len(drawn)} runs</span></h4>'
                   f'<div class="plot" data-chart="{index}" tabindex="0" role="img" '
                   f'aria-label="{esc(env_id)} across runs"></div><p class="note">{esc(note)}</p></div>')
    out.append("</section>")
    return "\n".join(out)


def render_html(report: Report) -> str:
    report = inert_report(report)
    ordered = runs_worst_first(report)
    charts = Charts()
    across = across_groups(report)
    body = [header(report), summary(report), colour_key(), toolbar()]
    if len(report.runs) > 1:
        body.append(runs_overview(ordered))
    body += [run_section(run, charts, across) for run in ordered]
    body.append(across_runs_section(ordered, charts, across))
    data = {"colours": COLOURS, "palette": RUN_PALETTE, "charts": charts.specs}
    return page(f"curriwatch: {report.logdir}", "\n".join(body), data)


def page(title: str, body: str, data: dict) -> str:
    colours = ";".join(f"--{k}:{v}" for k, v in COLOURS.items())
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<style>\n{asset("uPlot.min.css")}\n:root{{{colours}}}\n{asset("report.css")}</style></head>\n'
            f'<body>\n{body}\n{json_script(data, "cw-data")}\n'
            f'<script>\n{asset("uPlot.iife.min.js")}\n</script>\n<script>\n{asset("report.js")}</script>\n'
            '</body></html>\n')
