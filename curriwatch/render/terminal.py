"""Rich terminal output: sweep overview, then per run the env table, timeline, incidents, issues."""
from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..ingest import Ingest
from ..report import Report, RunReport
from .common import (fmt, incidents_worst_first, run_facts, runs_worst_first, severity_counts, sparkline,
                     steps_text)

STATUS_STYLE = {"healthy": "green", "unknown": "magenta", "warning": "yellow", "critical": "bold red"}
SEVERITY_STYLE = {"info": "cyan", "warning": "yellow", "critical": "bold red"}
STATE_CHAR = {"locked": "·", "active": "─", "graduated": "━"}
STATE_STYLE = {"locked": "dim", "active": "blue", "graduated": "green"}
SPARK_WIDTH = 12  # the latest bins of the eval performance sparkline that fit at 80 columns


def render_report(report: Report, console: Console) -> None:
    if not report.runs:
        console.print("no runs match")
        return
    if len(report.runs) > 1:
        console.print(overview_table(report))
        console.print()
    for run in runs_worst_first(report):
        render_run(run, console)
    for issue in report.issues:
        console.print(Text.assemble(("data issue ", "yellow"), f"{issue.kind} {issue.path}: {issue.detail}"))


def overview_table(report: Report) -> Table:
    counts = report.counts()
    table = Table(title=f"{len(report.runs)} runs · {report.health_status} · "
                        f"{counts['critical']} critical, {counts['warning']} warning, {counts['info']} info",
                  title_justify="left", expand=False)
    for col, justify in (("run", "left"), ("status", "left"), ("envs", "right"), ("crit", "right"),
                         ("warn", "right"), ("info", "right"), ("issues", "right")):
        table.add_column(col, justify=justify, overflow="fold")
    for run in runs_worst_first(report):
        c = severity_counts(run)
        table.add_row(run.run, Text(run.health_status, STATUS_STYLE[run.health_status]), str(len(run.environments)),
                      str(c["critical"]), str(c["warning"]), str(c["info"]), str(len(run.data_issues)))
    return table


def render_run(run: RunReport, console: Console) -> None:
    header = Text.assemble(("run ", "bold"), (run.run, "bold"), "  ", (run.health_status, STATUS_STYLE[run.health_status]),
                           f"\n{run_facts(run)}")
    console.rule(style="dim")
    console.print(header)
    if run.environments:
        console.print(env_table(run))
        console.print(timeline_block(run, console.width))
    incidents = incidents_worst_first(run)
    if incidents:
        console.print(Text(f"incidents ({len(incidents)})", style="bold"))
        for w in incidents:
            console.print(Text.assemble(
                "  ", (f"{w.severity:<8}", SEVERITY_STYLE[w.severity]), f" {w.type} ", (w.env_id, "bold"),
                f" steps {steps_text(w)}\n", f"           {w.message}"))
    else:
        console.print(Text("no incidents", style="green"))
    if run.data_issues:
        console.print(Text(f"data issues ({len(run.data_issues)})", style="bold"))
        for d in run.data_issues:
            console.print(Text.assemble("  ", (d.kind, "yellow"), f" {d.path}: {d.detail}"))
    console.print()


def env_table(run: RunReport) -> Table:
    table = Table(expand=False, pad_edge=False, box=None, header_style="bold")
    for col, justify in (("env", "left"), ("state", "left"), ("train", "right"), ("eval", "right"),
                         ("peak", "right"), ("trend", "left"), ("performance", "left"), ("health", "left")):
        table.add_column(col, justify=justify, overflow="ellipsis" if col == "env" else "fold",
                         no_wrap=col in ("env", "performance", "trend", "state", "health"),
                         min_width=8 if col == "env" else None)
    for e in sorted(run.environments, key=lambda e: e.env_id):
        table.add_row(e.env_id, Text(e.current_state, STATE_STYLE[e.current_state]),
                      fmt(e.current_train_performance), fmt(e.current_eval_performance), fmt(e.peak_performance),
                      e.performance_trend, sparkline(e.sparkline[-SPARK_WIDTH:]),
                      Text(e.health_status, STATUS_STYLE[e.health_status]))
    return table


def timeline_block(run: RunReport, width: int) -> Group:
    """One line per env across the run's step range: locked · active ─ graduated ━, and ▲ where an
    incident starts (coloured by severity)."""
    first, last = run.step_range or (0, 1)
    envs = sorted({e.env_id for e in run.environments})
    label = min(max((len(e) for e in envs), default=4), 18)
    cols = max(10, min(64, width - label - 3))
    span = max(last - first, 1)

    def col(step: int) -> int:
        return min(cols - 1, max(0, int((step - first) / span * (cols - 1) + 0.5)))

    lines = [Text(f"{'timeline':<{label}}  {first}" + f"{last:>{max(1, cols - len(str(first)))}}", style="dim")]
    for env in envs:
        cells = [(" ", "")] * cols
        for e, iv in run.timeline:
            if e != env:
                continue
            for c in range(col(iv.start_step), col(iv.end_step) + 1):
                cells[c] = (STATE_CHAR[iv.state], STATE_STYLE[iv.state])
        for w in sorted(run.warnings, key=lambda w: ("info", "warning", "critical").index(w.severity)):
            if w.env_id == env:
                cells[col(w.first_step)] = ("▲", SEVERITY_STYLE[w.severity])
        name = env if len(env) <= label else env[: label - 1] + "…"
        lines.append(Text.assemble(f"{name:<{label}}  ", *cells))
    lines.append(Text(f"{'':<{label}}  · locked  ─ active  ━ graduated  ▲ incident starts", style="dim"))
    return Group(*lines)


def render_doctor(ingest: Ingest, console: Console) -> None:
    """What was recognised and why: per run its files, every profile's match count, the tags left
    out, and every data issue — the first thing to run when a report looks wrong."""
    console.print(Text(f"logdir {ingest.logdir or '(online runs only)'}: {len(ingest.runs)} run(s)", style="bold"))
    for issue in ingest.issues:
        console.print(Text.assemble("  ", (issue.kind, "yellow"), f" {issue.path}: {issue.detail}"))
    for info in ingest.runs:
        console.rule(style="dim")
        console.print(Text.assemble(("run ", "bold"), (info.name, "bold"), f"  ({info.source}) {info.path}"))
        counts = ", ".join(f"{name} {n}" for name, n in sorted(info.profile_counts.items(), key=lambda kv: -kv[1]))
        console.print(f"  profile: {info.profile or '(none)'}"
                      + (f"   tags claimed per profile: {counts}" if counts else "   (forced)"), highlight=False)
        console.print(f"  performance metric: {info.performance_metric or '-'}   points read: {info.points_read}   "
                      f"in frame: {info.points_in_frame}   per split: "
                      + (", ".join(f"{k} {v}" for k, v in sorted(info.points_per_split.items())) or "-"),
                      highlight=False)
        console.print(f"  envs ({len(info.envs)}): {', '.join(info.envs) or '-'}", highlight=False)
        if info.unclaimed_tags:
            shown = info.unclaimed_tags[:20]
            more = f" ... and {len(info.unclaimed_tags) - 20} more" if len(info.unclaimed_tags) > 20 else ""
            console.print(f"  unclaimed tags ({len(info.unclaimed_tags)}): {', '.join(shown)}{more}", highlight=False)
        for issue in info.issues:
            console.print(Text.assemble("  ", (issue.kind, "yellow"), f" {issue.path}: {issue.detail}"))
