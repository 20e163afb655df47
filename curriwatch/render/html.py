"""One self-contained HTML file: SVG drawn here, a few lines of inline JS for hover; no network.

Sections: health summary; per run a state diagram (one row per env, coloured by state, eval
performance drawn over it, incident spans marked), an incident timeline linking to each env's
chart, and per env a performance chart (train and eval, graduation step and baseline, regression
thresholds, incident spans shaded, hover for step and value). Series are decimated for drawing
only (each bucket's min and max), and the chart says so.
"""
from __future__ import annotations

import hashlib
import html
import json
import math
import re

from ..health import EnvHealth
from ..report import Report, RunReport
from .common import envs_to_show, fmt, inert, inert_report, notable_issues, incidents_worst_first, run_facts, runs_worst_first, severity_counts, steps_text
from .lessons import html_lessons

STATE_FILL = {"locked": "#e5e7eb", "active": "#bfdbfe", "graduated": "#bbf7d0"}
SEVERITY_COLOUR = {"critical": "#dc2626", "warning": "#d97706", "info": "#2563eb"}
STATUS_COLOUR = {"healthy": "#16a34a", "unknown": "#7c3aed", "warning": "#d97706", "critical": "#dc2626"}
W, LABEL = 1000, 170  # drawing width, label column
PLOT = W - LABEL - 20


def esc(text) -> str:
    return html.escape(inert(text), quote=True)


def slug(*parts: str) -> str:
    text = "-".join(parts)
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text) + "-" + hashlib.sha1(text.encode()).hexdigest()[:6]


class Scale:
    """Step -> x pixel over [x0, x0 + width]."""

    def __init__(self, first: int, last: int, x0: float, width: float):
        self.first, self.span, self.x0, self.width = first, max(last - first, 1), x0, width

    def __call__(self, step) -> float:
        return self.x0 + (step - self.first) / self.span * self.width


def _value_range(env: EnvHealth, baseline_lines: bool) -> tuple[float, float]:
    vals = env.chart.get("train", ([], []))[1] + env.chart.get("eval", ([], []))[1]
    vals = [v for v in vals if v == v and abs(v) != float("inf")]
    if baseline_lines and env.graduation_baseline:
        vals += [env.graduation_baseline, 0.7 * env.graduation_baseline]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    if lo >= 0 and hi <= 1:
        return 0.0, 1.0
    pad = (hi - lo) * 0.05 or 1.0
    return lo - pad, hi + pad


def _polyline(steps, values, sx, lo, hi, top, height, cls) -> str:
    pts = []
    span = (hi - lo) or 1.0
    for s, v in zip(steps, values):
        if v == v and abs(v) != float("inf"):
            pts.append(f"{sx(s):.1f},{top + height - (v - lo) / span * height:.1f}")
    return f'<polyline class="{cls}" points="{" ".join(pts)}"/>' if pts else ""


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values (1, 2 or 5 × 10^k apart) covering lo..hi, about `count` of them."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _axis(sx: Scale, first: int, last: int, y: float, ticks: int = 6) -> str:
    out = [f'<line class="axis" x1="{sx.x0}" x2="{sx.x0 + sx.width}" y1="{y}" y2="{y}"/>']
    for step in nice_ticks(first, last, ticks):
        x = sx(step)
        out.append(f'<line class="tick" x1="{x:.1f}" x2="{x:.1f}" y1="{y}" y2="{y + 4}"/>'
                   f'<text class="tick" x="{x:.1f}" y="{y + 15}" text-anchor="middle">{fmt(int(step))}</text>')
    return "".join(out)


def _row_chart(run: RunReport, cls: str, label: str, rows: int, row: int) -> tuple[Scale, list[str]]:
    """The step scale and opening tag of a chart with one row per env across the run's steps."""
    first, last = run.step_range or (0, 1)
    out = [f'<svg class="{cls}" viewBox="0 0 {W} {row * rows + 30}" width="100%" role="img" '
           f'aria-label="{esc(label)}">']
    return Scale(first, last, LABEL, PLOT), out


def _close_row_chart(run: RunReport, sx: Scale, out: list[str], rows: int, row: int) -> str:
    first, last = run.step_range or (0, 1)
    out.append(_axis(sx, first, last, row * rows + 6))
    out.append("</svg>")
    return "".join(out)


def state_diagram(run: RunReport) -> str:
    envs, _hidden = envs_to_show(run)
    intervals: dict[str, list] = {}
    for env_id, iv in run.timeline:  # grouped once: linear, not envs x timeline
        intervals.setdefault(env_id, []).append(iv)
    incidents: dict[str, list] = {}
    for w in run.warnings:
        incidents.setdefault(w.env_id, []).append(w)
    row = 26
    sx, out = _row_chart(run, "state-diagram", f"state diagram of {run.run}", len(envs), row)
    for i, env in enumerate(envs):
        top = i * row + 4
        link = f"#chart-{slug(run.run, env.env_id)}"
        out.append(f'<a href="{link}"><text class="label" x="{LABEL - 8}" y="{top + 16}" '
                   f'text-anchor="end">{esc(env.env_id)}</text></a>')
        for iv in intervals.get(env.env_id, ()):
            x0, x1 = sx(iv.start_step), sx(iv.end_step)
            out.append(f'<rect class="state {iv.state}" x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 1):.1f}" '
                       f'height="{row - 6}" fill="{STATE_FILL[iv.state]}"><title>{esc(env.env_id)}: {iv.state} '
                       f'{iv.start_step}..{iv.end_step}</title></rect>')
        lo, hi = _value_range(env, False)
        steps, values = env.chart.get("eval") or ([], [])
        if not steps:
            steps, values = env.chart.get("train") or ([], [])
        out.append(_polyline(steps, values, sx, lo, hi, top + 1, row - 8, "overlay"))
        for w in incidents.get(env.env_id, ()):
            x0, x1 = sx(w.first_step), sx(w.last_step)
            colour = SEVERITY_COLOUR[w.severity]
            out.append(f'<a href="{link}"><rect class="incident-span" x="{x0:.1f}" y="{top - 1}" '
                       
                       f'fill-opacity="0.05"><title>{esc(w.severity)} {esc(w.type)} at {w.first_step}: '
                       f'{esc(w.message)}</title></rect>'
                       f'<path d="M{x0:.1f},{top + row - 5} l-4,6 h8 z" fill="{colour}"/></a>')
    return _close_row_chart(run, sx, out, len(envs), row)


def incident_timeline(run: RunReport) -> str:
    incidents = incidents_worst_first(run)
    if not incidents:
        return '<p class="quiet">No incidents.</p>'
    envs = sorted({w.env_id for w in incidents})
    row = 20
    sx, out = _row_chart(run, "incident-timeline", f"incidents of {run.run}", len(envs), row)
    for i, env_id in enumerate(envs):
        top = i * row + 4
        out.append(f'<text class="label" x="{LABEL - 8}" y="{top + 12}" text-anchor="end">{esc(env_id)}</text>'
                   f'<line class="grid" x1="{LABEL}" x2="{LABEL + PLOT}" y1="{top + 8}" y2="{top + 8}"/>')
    for w in sorted(incidents, key=lambda w: ("info", "warning", "critical").index(w.severity)):
        top = envs.index(w.env_id) * row + 4
        x0, x1 = sx(w.first_step), sx(w.last_step)
        out.append(f'<a class="incident" href="#chart-{slug(run.run, w.env_id)}"><rect x="{x0:.1f}" y="{top + 2}" '
                   f'width="{max(x1 - x0, 4):.1f}" height="12" rx="3" fill="{SEVERITY_COLOUR[w.severity]}">'
                   f'<title>{esc(w.severity)} {esc(w.type)} {esc(w.env_id)} steps {esc(steps_text(w))}: '
                   f'{esc(w.message)}</title></rect></a>')
    return _close_row_chart(run, sx, out, len(envs), row)


def env_chart(run: RunReport, env: EnvHealth) -> str:
    first, last = run.step_range or (0, 1)
    top, height = 10, 200
    sx = Scale(first, last, 60, W - 80)
    lo, hi = _value_range(env, True)
    span = (hi - lo) or 1.0

    def y(v):
        return top + height - (v - lo) / span * height

    out = [f'<svg class="env-chart" id="svg-{slug(run.run, env.env_id)}" viewBox="0 0 {W} {height + 52}" '
           f'width="100%" role="img" aria-label="performance of {esc(env.env_id)}">',
           f'<text class="axis-title" x="{60 + (W - 80) / 2:.0f}" y="{top + height + 40}" '
           f'text-anchor="middle">step</text>',
           f'<text class="axis-title" transform="translate(14 {top + height / 2:.0f}) rotate(-90)" '
           f'text-anchor="middle">{esc(run.performance_metric or "performance")}</text>']
    for v in nice_ticks(lo, hi, 5):
        out.append(f'<line class="grid" x1="60" x2="{W - 20}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                   f'<text class="tick" x="54" y="{y(v) + 4:.1f}" text-anchor="end">{fmt(v, 2)}</text>')
    for w in run.warnings:
        if w.env_id == env.env_id:
            x0, x1 = sx(w.first_step), sx(w.last_step)
            out.append(f'<rect class="incident-shade" x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 2):.1f}" '
                       f'height="{height}" fill="{SEVERITY_COLOUR[w.severity]}" fill-opacity="0.12">'
                       f'<title>{esc(w.type)} ({esc(w.severity)}) {esc(steps_text(w))}</title></rect>')
    if env.graduation_step is not None:
        x = sx(env.graduation_step)
        out.append(f'<line class="graduation" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + height}"/>'
                   f'<text class="note" x="{x + 4:.1f}" y="{top + 12}">graduated {env.graduation_step}</text>')
    if env.graduation_baseline:
        for factor, cls, name in ((1.0, "baseline", "baseline"), (0.85, "threshold warn", "0.85×"),
                                  (0.70, "threshold crit", "0.70×")):
            v = env.graduation_baseline * factor
            out.append(f'<line class="{cls}" x1="60" x2="{W - 20}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                       f'<text class="note" x="{W - 22}" y="{y(v) - 3:.1f}" text-anchor="end">{name} '
                       f'{fmt(v)}</text>')
    train = env.chart.get("train") or ([], [])
    evals = env.chart.get("eval") or ([], [])
    out.append(_polyline(*train, sx, lo, hi, top, height, "train"))
    out.append(_polyline(*evals, sx, lo, hi, top, height, "eval"))
    out.append(_axis(sx, first, last, top + height))
    out.append(f'<line class="cursor" x1="0" x2="0" y1="{top}" y2="{top + height}" visibility="hidden"/>')
    out.append("</svg>")
    data = {"x0": sx.x0, "w": sx.width, "first": first, "span": sx.span, "train": train, "eval": evals}
    return f'<div class="chart" data-series="{esc(json.dumps(data, separators=(",", ":")))}">{"".join(out)}' \
           f'<div class="tip" hidden></div></div>'


def _drawn_note(env: EnvHealth) -> str:
    counts = env.chart.get("points", {})
    drawn = {k: len((env.chart.get(k) or ([], []))[0]) for k in ("train", "eval")}
    parts = [f"{k} {counts.get(k, 0):,} points" + (f" (drawn: {drawn[k]:,}, each bucket's min and max)"
                                                  if drawn[k] < counts.get(k, 0) else "")
             for k in ("train", "eval") if counts.get(k)]
    note = "; ".join(parts) or "no performance data"
    if any(drawn[k] < counts.get(k, 0) for k in drawn):
        note += ". Downsampled for drawing only: the analysis used every point."
    return note


def render_html(report: Report) -> str:
    report = inert_report(report)
    c = report.counts()
    envs = [e for r in report.runs for e in r.environments]
    by_status = {s: sum(1 for e in envs if e.health_status == s) for s in STATUS_COLOUR}
    runs_by_status = {s: sum(1 for r in report.runs if r.health_status == s) for s in STATUS_COLOUR}
    body = [f'<header><h1>curriwatch report <span class="status {report.health_status}">{report.health_status}</span>'
            f'</h1><p class="quiet">{esc(report.logdir or "online runs")} · curriwatch {esc(report.curriwatch_version)}'
            f'</p></header>',
            '<section class="summary">',
            _card("runs", len(report.runs), runs_by_status), _card("environments", len(envs), by_status),
            '<div class="card"><h3>incidents</h3>' + "".join(
                f'<div><span class="dot" style="background:{SEVERITY_COLOUR[s]}"></span>{c[s]} {s}</div>'
                for s in ("critical", "warning", "info")) + "</div>",
            '<div class="card legend"><h3>legend</h3>' + "".join(
                f'<div><span class="swatch" style="background:{STATE_FILL[s]}"></span>{s}</div>' for s in STATE_FILL)
            + '<div><span class="line eval"></span>eval</div><div><span class="line train"></span>train</div></div>',
            "</section>"]
    ordered = runs_worst_first(report)
    if len(report.runs) > 1:
        body.append('<section><h2>runs</h2><table class="overview"><tr><th>run</th><th>status</th><th>envs</th>'
                    '<th>critical</th><th>warning</th><th>info</th><th>data issues</th></tr>')
        for run in ordered:
            n = severity_counts(run)
            body.append(f'<tr><td><a href="#run-{slug(run.run)}">{esc(run.run)}</a></td>'
                        f'<td><span class="status {run.health_status}">{run.health_status}</span></td>'
                        f'<td>{len(run.environments)}</td><td>{n["critical"]}</td><td>{n["warning"]}</td>'
                        f'<td>{n["info"]}</td><td>{len(notable_issues(run.data_issues))}</td></tr>')
        body.append("</table></section>")
    for run in ordered:
        body.append(_run_section(run))
    return PAGE.replace("{{BODY}}", "\n".join(body)).replace("{{TITLE}}", esc(f"curriwatch: {report.logdir}"))


def _card(title: str, total: int, by_status: dict) -> str:
    return (f'<div class="card"><h3>{total} {title}</h3>' + "".join(
        f'<div><span class="dot" style="background:{STATUS_COLOUR[s]}"></span>{n} {s}</div>'
        for s, n in by_status.items()) + "</div>")


def _run_section(run: RunReport) -> str:
    out = [f'<section class="run" id="run-{slug(run.run)}"><h2>{esc(run.run)} '
           f'<span class="status {run.health_status}">{run.health_status}</span></h2>',
           f'<p class="quiet">{esc(run_facts(run))}</p>',
           "<h3>curriculum states</h3>", state_diagram(run) if run.environments else "",
           "<h3>incidents</h3>", incident_timeline(run)]
    incidents = incidents_worst_first(run)
    if incidents:
        out.append('<table class="incidents"><tr><th>severity</th><th>type</th><th>env</th><th>steps</th>'
                   '<th>message</th></tr>')
        for w in incidents:
            out.append(f'<tr><td><span class="sev {w.severity}">{w.severity}</span></td><td>{esc(w.type)}</td>'
                       f'<td><a href="#chart-{slug(run.run, w.env_id)}">{esc(w.env_id)}</a></td>'
                       f'<td>{esc(steps_text(w))}</td><td>{esc(w.message)}</td></tr>')
        out.append("</table>")
    out.append(html_lessons(run, esc))
    out.append("<h3>environments</h3>")
    envs, hidden = envs_to_show(run)
    if hidden:
        out.append(f'<p class="note">{hidden} more environment(s) not drawn (the worst {len(envs)} are); '
                   'the full list is in <code>curriwatch report --format json</code>.</p>')
    for env in envs:
        out.append(f'<div class="env" id="chart-{slug(run.run, env.env_id)}"><h4>{esc(env.env_id)} '
                   f'<span class="status {env.health_status}">{env.health_status}</span> '
                   f'<span class="quiet">{env.current_state} · train {fmt(env.current_train_performance)} · '
                   f'eval {fmt(env.current_eval_performance)} · peak {fmt(env.peak_performance)} · '
                   f'{env.performance_trend}</span></h4>{env_chart(run, env)}'
                   f'<p class="note">{esc(_drawn_note(env))}</p></div>')
    if run.data_issues:
        out.append("<details><summary>data issues</summary><ul>" + "".join(
            f"<li><code>{esc(d.kind)}</code> {esc(d.path)}: {esc(d.detail)}</li>" for d in run.data_issues)
            + "</ul></details>")
    out.append("</section>")
    return "\n".join(out)


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{TITLE}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1100px;
 padding:16px 24px;color:#111827;background:#fff}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 4px;border-top:1px solid #e5e7eb;padding-top:16px}
h3{font-size:14px;margin:16px 0 6px;color:#374151}h4{font-size:14px;margin:18px 0 2px}
.quiet,.note{color:#6b7280}.note{font-size:12px;margin:0 0 6px}
.status,.sev{border-radius:9px;padding:1px 8px;font-size:12px;color:#fff;vertical-align:middle}
.healthy{background:#16a34a}.unknown{background:#7c3aed}.warning{background:#d97706}.critical{background:#dc2626}.info{background:#2563eb}
.summary{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #e5e7eb;border-radius:8px;padding:8px 14px;
 min-width:150px}.card h3{margin:2px 0 6px}
.dot{display:inline-block;width:9px;height:9px;border-radius:5px;margin-right:6px}
.swatch{display:inline-block;width:14px;height:10px;margin-right:6px;border:1px solid #d1d5db}
.line{display:inline-block;width:16px;height:0;margin:0 6px 3px 0;border-top:2px solid}
.line.eval{border-color:#111827}.line.train{border-color:#60a5fa}
table{border-collapse:collapse;margin:6px 0}td,th{border-bottom:1px solid #e5e7eb;padding:3px 10px;text-align:left;
 vertical-align:top}th{color:#374151}
svg text{font-size:11px;fill:#374151}svg .axis-title{font-size:12px;fill:#111827}svg .label{font-size:12px;fill:#111827}
.axis{stroke:#9ca3af}.tick{stroke:#9ca3af}.grid{stroke:#f3f4f6}
polyline{fill:none;stroke-linejoin:round}polyline.eval{stroke:#111827;stroke-width:1.5}
polyline.train{stroke:#60a5fa;stroke-width:1}polyline.overlay{stroke:#1f2937;stroke-width:1.2;opacity:.8}
.graduation{stroke:#16a34a;stroke-dasharray:4 3}.baseline{stroke:#16a34a}
.threshold{stroke-dasharray:6 4}.threshold.warn{stroke:#d97706}.threshold.crit{stroke:#dc2626}
.cursor{stroke:#6b7280}.chart{position:relative}
.tip{position:absolute;top:4px;background:#111827;color:#fff;font-size:12px;padding:3px 8px;border-radius:4px;
 pointer-events:none;white-space:nowrap}
a{color:#1d4ed8;text-decoration:none}a:hover{text-decoration:underline}
</style></head>
<body>
{{BODY}}
<script>
(function () {
  "use strict";
  window.addEventListener("error", function (e) { document.body.dataset.errors = String(e.message); });
  function nearest(steps, step) {
    var lo = 0, hi = steps.length - 1;
    if (hi < 0) { return -1; }
    while (lo < hi) { var mid = (lo + hi) >> 1; if (steps[mid] < step) { lo = mid + 1; } else { hi = mid; } }
    if (lo > 0 && Math.abs(steps[lo - 1] - step) < Math.abs(steps[lo] - step)) { lo -= 1; }
    return lo;
  }
  var charts = document.querySelectorAll("div.chart");
  charts.forEach(function (chart) {
    var data = JSON.parse(chart.dataset.series);
    var svg = chart.querySelector("svg"), tip = chart.querySelector(".tip"), cursor = svg.querySelector(".cursor");
    svg.addEventListener("mousemove", function (ev) {
      var box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;
      var x = (ev.clientX - box.left) / scale;
      var step = data.first + (x - data.x0) / data.w * data.span;
      var near = 8 * data.span / data.w;  // a point within 8 px of the cursor, never a stale one
      var parts = [];
      if (x >= data.x0 && x <= data.x0 + data.w) {
        ["eval", "train"].forEach(function (name) {
          var s = data[name][0], i = nearest(s, step);
          if (i >= 0 && Math.abs(s[i] - step) <= near) {
            parts.push(name + " " + data[name][1][i].toPrecision(3) + " @ " + s[i]);
          }
        });
      }
      if (!parts.length) { tip.hidden = true; cursor.setAttribute("visibility", "hidden"); return; }
      tip.textContent = "step " + Math.round(step) + ": " + parts.join(", ");
      tip.hidden = false;
      tip.style.left = Math.min(ev.clientX - box.left + 12, box.width - 260) + "px";
      cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); cursor.setAttribute("visibility", "visible");
    });
    svg.addEventListener("mouseleave", function () { tip.hidden = true; cursor.setAttribute("visibility", "hidden"); });
  });
  document.body.dataset.charts = String(charts.length);
  document.body.dataset.renderMs = String(Math.round(performance.now()));
})();
</script>
</body></html>
"""
