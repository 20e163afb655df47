"""Markdown for a GitHub job summary or a PR comment: overview, per-run env table, incidents."""
from __future__ import annotations

from ..report import Report
from .common import (fmt, incidents_worst_first, run_facts, runs_worst_first, severity_counts, sparkline,
                     steps_text)

ICON = {"healthy": "🟢", "unknown": "⚪", "warning": "🟡", "critical": "🔴", "info": "🔵"}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report) -> str:
    c = report.counts()
    out = [f"## curriwatch: {ICON[report.health_status]} {report.health_status}", "",
           f"{len(report.runs)} run(s), {sum(len(r.environments) for r in report.runs)} environment(s): "
           f"{c['critical']} critical, {c['warning']} warning, {c['info']} info incident(s).", "",
           "| run | status | envs | critical | warning | info | data issues |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for run in runs_worst_first(report):
        n = severity_counts(run)
        out.append(f"| {_cell(run.run)} | {ICON[run.health_status]} {run.health_status} | {len(run.environments)} | "
                   f"{n['critical']} | {n['warning']} | {n['info']} | {len(run.data_issues)} |")
    for run in runs_worst_first(report):
        out += ["", f"### {_cell(run.run)}", "", _cell(run_facts(run)), "",
                "| env | state | train | eval | peak | trend | performance | health |",
                "|---|---|---:|---:|---:|---|---|---|"]
        for e in sorted(run.environments, key=lambda e: e.env_id):
            out.append(f"| {_cell(e.env_id)} | {e.current_state} | {fmt(e.current_train_performance)} | "
                       f"{fmt(e.current_eval_performance)} | {fmt(e.peak_performance)} | {e.performance_trend} | "
                       f"{sparkline(e.sparkline)} | {ICON[e.health_status]} {e.health_status} |")
        incidents = incidents_worst_first(run)
        if incidents:
            out += ["", "| severity | type | env | steps | message |", "|---|---|---|---|---|"]
            for w in incidents:
                out.append(f"| {ICON[w.severity]} {w.severity} | {w.type} | {_cell(w.env_id)} | {steps_text(w)} | "
                           f"{_cell(w.message)} |")
        if run.data_issues:
            out += ["", "<details><summary>data issues</summary>", ""]
            out += [f"- `{d.kind}` {_cell(d.path)}: {_cell(d.detail)}" for d in run.data_issues]
            out += ["", "</details>"]
    return "\n".join(out) + "\n"
