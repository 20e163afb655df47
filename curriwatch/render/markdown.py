"""Markdown for a GitHub job summary or a PR comment: verdict and worst incidents, overview,
per-run env table, incidents. Untrusted strings are made inert and Markdown/HTML-escaped."""
from __future__ import annotations

import re

from ..report import Report
from .common import (MAX_ENV_ROWS, envs_to_show, fmt, incidents_worst_first, inert_report, notable_issues, run_facts,
                     runs_worst_first, severity_counts, sparkline, status_of, status_reason, steps_text,
                     unknown_counts, worst_incidents)
from .lessons import markdown_lessons

ICON = {"healthy": "🟢", "unknown": "⚪", "warning": "🟡", "critical": "🔴", "info": "🔵"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def _cell(text) -> str:
    """Text (already inert) that stays text in a table cell: HTML and Markdown syntax escaped."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def render_markdown(report: Report) -> str:
    report = inert_report(report)
    c = report.counts()
    status = status_of(report)
    _runs_unknown, envs_unknown = unknown_counts(report)
    out = [f"## curriwatch: {ICON[status]} {status}", "",
           f"{len(report.runs)} run(s), {sum(len(r.environments) for r in report.runs)} environment(s): "
           f"{c['critical']} critical, {c['warning']} warning, {c['info']} info incident(s)"
           + (f"; {envs_unknown} environment(s) unknown." if envs_unknown else "."), ""]
    top = worst_incidents(report, 10)
    if top:
        out += ["**Worst incidents**", "", "| severity | run | env | what | since step | how bad |",
                "|---|---|---|---|---:|---|"]
        for run, w in top:
            out.append(f"| {ICON[w.severity]} {w.severity} | {_cell(run.run)} | {_cell(w.env_id)} | {_cell(w.type)} | "
                       f"{w.first_step}{'' if w.resolved else ' (ongoing)'} | {_cell(w.message)} |")
        out.append("")
    for run in runs_worst_first(report):
        if status_of(run) == "unknown":
            out.append(f"- ⚪ **{_cell(run.run)}** unknown: {_cell(status_reason(run) or 'not enough data to judge')}")
    out += ["", "| run | status | envs | critical | warning | info | data issues |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for run in runs_worst_first(report):
        n = severity_counts(run)
        out.append(f"| {_cell(run.run)} | {ICON[status_of(run)]} {status_of(run)} | {len(run.environments)} | "
                   f"{n['critical']} | {n['warning']} | {n['info']} | {len(notable_issues(run.data_issues))} |")
    for run in runs_worst_first(report):
        out += ["", f"### {_cell(run.run)}", "", _cell(run_facts(run)), ""]
        if status_of(run) == "unknown":
            out += [f"Unknown: {_cell(status_reason(run) or 'not enough data to judge')}", ""]
        envs, hidden = envs_to_show(run)
        out += ["| env | state | train | eval | peak | trend | performance | health |",
                "|---|---|---:|---:|---:|---|---|---|"]
        for e in envs:
            reason = f" ({_cell(status_reason(e))})" if status_reason(e) else ""
            out.append(f"| {_cell(e.env_id)} | {_cell(e.current_state)} | {fmt(e.current_train_performance)} | "
                       f"{fmt(e.current_eval_performance)} | {fmt(e.peak_performance)} | {_cell(e.performance_trend)} | "
                       f"{sparkline(e.sparkline)} | {ICON[status_of(e)]} {status_of(e)}{reason} |")
        if hidden:
            out += ["", f"… and {hidden} more environment(s) (the {MAX_ENV_ROWS} worst are shown); "
                        "the full list is in `curriwatch report --format json`."]
        out += markdown_lessons(run, _cell)
        incidents = incidents_worst_first(run)
        if incidents:
            out += ["", "| severity | type | env | steps | message |", "|---|---|---|---|---|"]
            for w in incidents[:MAX_ENV_ROWS]:
                out.append(f"| {ICON[w.severity]} {w.severity} | {_cell(w.type)} | {_cell(w.env_id)} | "
                           f"{steps_text(w)} | {_cell(w.message)} |")
            if len(incidents) > MAX_ENV_ROWS:
                out += ["", f"… and {len(incidents) - MAX_ENV_ROWS} more incident(s) in the JSON report."]
        if run.data_issues:
            out += ["", "<details><summary>data issues and notes</summary>", ""]
            out += [f"- **{_cell(d.kind)}** {_cell(d.path)}: {_cell(d.detail)}" for d in run.data_issues[:MAX_ENV_ROWS]]
            out += ["", "</details>"]
    return "\n".join(out) + "\n"
