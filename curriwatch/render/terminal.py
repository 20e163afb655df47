"""Rich terminal output, story first: the verdict and the worst incidents across all runs, then
the sweep overview, then per run the env table, timeline, incidents and data issues.

Every untrusted string is made inert first (render.common.inert_report) and printed as rich Text,
never as markup. Severity markers differ in shape, not only colour (NO_COLOR): ✖ critical,
▲ warning, · info."""
from __future__ import annotations

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ..report import Report, RunReport
from .common import (MAX_ENV_ROWS, MAX_RUN_DETAILS, MAX_RUN_ROWS, envs_to_show, fmt, incidents_worst_first, inert, inert_report,
                     notable_issues, run_facts, runs_worst_first, severity_counts, sparkline, status_of,
                     status_reason, unknown_counts, worst_incidents)
from .lessons import terminal_lessons

STATUS_STYLE = {"healthy": "green", "unknown": "magenta", "warning": "yellow", "critical": "bold red"}
SEVERITY_STYLE = {"info": "cyan", "warning": "yellow", "critical": "bold red"}
SEVERITY_MARK = {"critical": "✖", "warning": "▲", "info": "·"}
STATE_CHAR = {"locked": "·", "active": "─", "graduated": "━"}
STATE_STYLE = {"locked": "dim", "active": "blue", "graduated": "green"}
TOP_INCIDENTS = 10  # worst incidents shown first, across all runs
INDENT = 4  # wrapped incident messages start here


def report_text(report: Report, console: Console) -> str:
    """The report as the text `console` would print, without trailing spaces on any line."""
    with console.capture() as capture:
        render_report(report, console)
    return "\n".join(line.rstrip(" ") for line in capture.get().split("\n"))


def render_report(report: Report, console: Console) -> None:
    report = inert_report(report)
    if not report.runs:
        console.print("no runs match", highlight=False)
        return
    console.print(verdict_line(report))
    top = worst_incidents(report, TOP_INCIDENTS)
    if top:
        total = sum(1 for r in report.runs for w in r.warnings if w.severity != "info")
        more = f" ({len(top)} of {total})" if total > len(top) else ""
        console.print(Text(f"worst incidents{more}", style="bold"))
        for run, w in top:
            console.print(incident_lines(w, run.run if len(report.runs) > 1 else None))
    ordered = runs_worst_first(report)
    unknown = [r for r in ordered if status_of(r) == "unknown"]
    for run in unknown[:MAX_RUN_ROWS]:
        console.print(Text.assemble(("? unknown ", STATUS_STYLE["unknown"]), run.run, ": ",
                                    status_reason(run) or "not enough data to judge"))
    if len(unknown) > MAX_RUN_ROWS:
        console.print(Text(f"... and {len(unknown) - MAX_RUN_ROWS} more unknown run(s) in the JSON report",
                           style="dim"))
    console.print()
    if len(report.runs) > 1:
        console.print(overview_table(report, console.width))
        if len(ordered) > MAX_RUN_ROWS:
            console.print(Text(f"... and {more_runs(ordered[MAX_RUN_ROWS:])} not listed (the {MAX_RUN_ROWS} worst are); "
                               "the full list is in `curriwatch report --format json`", style="dim"))
        console.print()
    for run in ordered[:MAX_RUN_DETAILS]:
        render_run(run, console)
    if len(ordered) > MAX_RUN_DETAILS:
        console.print(Text(f"... and {more_runs(ordered[MAX_RUN_DETAILS:])} not shown in full (the "
                           f"{MAX_RUN_DETAILS} worst are); `--run GLOB` shows others, "
                           "`curriwatch report --format json` holds every run", style="dim"))
    for issue in notable_issues(report.issues):
        console.print(Text.assemble(("data issue ", "yellow"), f"{issue.kind} {issue.path}: {issue.detail}"))


def more_runs(runs: list[RunReport]) -> str:
    """`N more run(s) (a critical, b warning, c healthy)`: what the cut left out, by status."""
    counts: dict[str, int] = {}
    for run in runs:
        counts[status_of(run)] = counts.get(status_of(run), 0) + 1
    by = ", ".join(f"{n} {status}" for status, n in counts.items())
    return f"{len(runs)} more run(s) ({by})"


def verdict_line(report: Report) -> Text:
    counts = report.counts()
    status = status_of(report)
    envs = sum(len(r.environments) for r in report.runs)
    runs_unknown, envs_unknown = unknown_counts(report)
    unknown = f", {envs_unknown} env(s) unknown" if envs_unknown else ""
    return Text.assemble(("curriwatch: ", "bold"), (status.upper(), STATUS_STYLE[status]),
                         f" · {len(report.runs)} run(s) · {envs} env(s) · {counts['critical']} critical, "
                         f"{counts['warning']} warning, {counts['info']} info{unknown}")


def incident_lines(w, run: str | None) -> Group:
    """`✖ critical  env · since step N (ongoing) [· run]` then `type: message` indented below,
    wrapped lines keeping the indent."""
    head = Text.assemble((f"{SEVERITY_MARK[w.severity]} {w.severity:<8} ", SEVERITY_STYLE[w.severity]),
                         (w.env_id, "bold"), f" · since step {w.first_step}",
                         " (resolved)" if w.resolved else " (ongoing)", *([" · ", (run, "dim")] if run else []))
    body = Text.assemble((w.type, "bold"), ": ", w.message)
    return Group(Padding(head, (0, 0, 0, 2)), Padding(body, (0, 0, 0, INDENT + 2)))


def wrap_name(name: str, width: int) -> Text:
    """A run name on as many lines as it needs, broken only after a `/` (a path part is split
    only when it alone is wider than `width`)."""
    parts = [p + "/" for p in name.split("/")]
    parts[-1] = parts[-1][:-1]
    lines, line = [], ""
    for part in parts:
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    return Text("\n".join(lines), overflow="fold")


def overview_table(report: Report, width: int = 80) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    for col, justify in (("run", "left"), ("status", "left"), ("envs", "right"), ("crit", "right"),
                         ("warn", "right"), ("info", "right"), ("issues", "right")):
        # a long run name goes on its own lines whole, never split inside a word
        table.add_column(col, justify=justify, no_wrap=col != "run", overflow="fold")
    for run in runs_worst_first(report)[:MAX_RUN_ROWS]:
        c = severity_counts(run)
        status = status_of(run)
        table.add_row(wrap_name(run.run, max(16, width - 44)), Text(status, STATUS_STYLE[status]), str(len(run.environments)),
                      str(c["critical"]), str(c["warning"]), str(c["info"]), str(len(notable_issues(run.data_issues))))
    return table


def render_run(run: RunReport, console: Console) -> None:
    status = status_of(run)
    console.rule(style="dim")
    console.print(Text.assemble(("run ", "bold"), (run.run, "bold"), "  ", (status, STATUS_STYLE[status])))
    if status == "unknown":
        console.print(Text(f"unknown: {status_reason(run) or 'not enough data to judge'}", STATUS_STYLE["unknown"]))
    console.print(Text(run_facts(run), style="dim"))
    if run.environments:
        envs, hidden = envs_to_show(run)
        console.print(env_table(envs, console.width))
        console.print(timeline_block(run, envs, console.width))
        lessons = terminal_lessons(run)
        if lessons is not None:
            console.print(lessons)
        if hidden:
            console.print(Text(f"... and {hidden} more environment(s) not shown (the {MAX_ENV_ROWS} worst are); "
                               "the full list is in `curriwatch report --format json`", style="dim"))
    incidents = incidents_worst_first(run)
    if incidents:
        console.print(Text(f"incidents ({len(incidents)})", style="bold"))
        for w in incidents[:MAX_ENV_ROWS]:
            console.print(incident_lines(w, None))
        if len(incidents) > MAX_ENV_ROWS:
            console.print(Text(f"... and {len(incidents) - MAX_ENV_ROWS} more incident(s) in the JSON report",
                               style="dim"))
    else:
        console.print(Text("no incidents", style="green"))
    issues = notable_issues(run.data_issues)
    notes = [d for d in run.data_issues if d not in issues]
    if issues:
        console.print(Text(f"data issues ({len(issues)})", style="bold"))
        for d in issues[:MAX_ENV_ROWS]:
            console.print(Padding(Text.assemble((d.kind, "yellow"), f" {d.path}: {d.detail}"), (0, 0, 0, 2)))
    for d in notes:
        console.print(Padding(Text(f"note: {d.kind} {d.path}: {d.detail}", style="dim"), (0, 0, 0, 2)))
    console.print()


def spark_width(width: int) -> int:
    """The latest bins of the sparkline that fit: 12 at 80 columns, all 24 from 120."""
    return 24 if width >= 120 else 12


def env_table(envs, width: int) -> Table:
    """Every column but `env` at its natural width (a number or a word is never split); the env
    id gets what is left and ends with … when it must."""
    bins = spark_width(width)
    header = ("env", "state", "train", "eval", "peak", "trend", "performance", "health")
    rows = [(e.env_id, e.current_state, fmt(e.current_train_performance), fmt(e.current_eval_performance),
             fmt(e.peak_performance), e.performance_trend, sparkline(e.sparkline[-bins:]), status_of(e)) for e in envs]
    natural = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]
    over = sum(natural) + 2 * (len(header) - 1) - width
    if over > 0:  # the sparkline gives up bins (down to 6, headed `perf`) before the env id is cut
        bins = max(6, bins - over - (len("performance") - len("perf")))
        header = header[:6] + ("perf" if bins < len("performance") else "performance",) + header[7:]
        rows = [r[:6] + (sparkline(e.sparkline[-bins:]),) + r[7:] for r, e in zip(rows, envs)]
        natural[6] = max([len(header[6]), *(len(r[6]) for r in rows)])
    env_width = max(8, min(natural[0], width - sum(natural[1:]) - 2 * (len(header) - 1)))
    table = Table(expand=False, pad_edge=False, box=None, header_style="bold")
    for i, col in enumerate(header):
        table.add_column(col, justify="right" if col in ("train", "eval", "peak") else "left", no_wrap=True,
                         overflow="ellipsis" if col == "env" else "crop",
                         width=env_width if i == 0 else natural[i])
    for (env_id, state, train, eval_, peak, trend, spark, status) in rows:
        table.add_row(env_id, Text(state, STATE_STYLE.get(state, "")), train, eval_, peak, trend, spark,
                      Text(status, STATUS_STYLE[status]))
    return table


def timeline_block(run: RunReport, envs, width: int) -> Group:
    """One line per env across the run's step range: locked · active ─ graduated ━, and the
    severity mark where a warning or critical incident starts (info incidents are left out)."""
    first, last = run.step_range or (0, 1)
    ids = [e.env_id for e in envs]
    label = min(max(max((len(e) for e in ids), default=0), len("timeline")), max(12, width // 4))
    cols = max(10, width - label - 2)
    span = max(last - first, 1)

    def col(step: int) -> int:
        return min(cols - 1, max(0, int((step - first) / span * (cols - 1) + 0.5)))

    intervals: dict[str, list] = {}
    for env_id, iv in run.timeline:  # grouped once: linear in the timeline, not envs x timeline
        intervals.setdefault(env_id, []).append(iv)
    marks: dict[str, list] = {}
    for w in run.warnings:
        if w.severity != "info":
            marks.setdefault(w.env_id, []).append(w)
    left, right = str(first), str(last)
    lines = [Text(f"{'timeline':<{label}}  {left}{right:>{max(1, cols - len(left))}}", style="dim")]
    for env in ids:
        cells = [(" ", "")] * cols
        for iv in intervals.get(env, ()):
            for c in range(col(iv.start_step), col(iv.end_step) + 1):
                cells[c] = (STATE_CHAR.get(iv.state, "?"), STATE_STYLE.get(iv.state, ""))
        for w in sorted(marks.get(env, ()), key=lambda w: w.severity == "critical"):  # critical drawn last
            cells[col(w.first_step)] = (SEVERITY_MARK[w.severity], SEVERITY_STYLE[w.severity])
        name = env if len(env) <= label else env[: label - 1] + "…"
        lines.append(Text.assemble(f"{name:<{label}}  ", *_merge(cells)))
    lines.append(Text(f"{'':<{label}}  · locked  ─ active  ━ graduated  ▲ warning  ✖ critical starts",
                      style="dim"))
    return Group(*lines)


def _merge(cells: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent cells of one style as one segment (a 160-column line is a few segments, not 160),
    with trailing blanks dropped (no trailing spaces when piped)."""
    while cells and cells[-1][0] == " ":
        cells = cells[:-1]
    out: list[tuple[str, str]] = []
    for ch, style in cells:
        if out and out[-1][1] == style:
            out[-1] = (out[-1][0] + ch, style)
        else:
            out.append((ch, style))
    return out


def render_doctor(ingest, console: Console) -> None:
    """What was recognised and why: per run its files, every profile's match count, the tags left
    out, whether it can be judged (`unknown` and why, before any analysis), and every data issue —
    the first thing to run when a report looks wrong."""
    from ..analyze import unknown_runs

    unknown = unknown_runs(ingest)
    out = lambda *parts: console.print(Text.assemble(*parts))  # noqa: E731  (Text: never markup)
    out((f"logdir {inert(ingest.logdir or '(online runs only)')}: {len(ingest.runs)} run(s)", "bold"))
    for issue in ingest.issues:
        out("  ", (inert(issue.kind), "yellow"), f" {inert(issue.path)}: {inert(issue.detail)}")
    for info in ingest.runs:
        console.rule(style="dim")
        out(("run ", "bold"), (inert(info.name), "bold"), f"  ({inert(info.source)}) {inert(info.path)}")
        if len(info.members) > 1:  # a run group: where each member's points came from
            out(f"  {len(info.members)} sources read as one run ({inert(info.group or 'grouped')}):")
            for m in info.members[:MAX_ENV_ROWS]:
                out(f"    {inert(m.name)}" + (f" (W&B run {inert(m.run_id)})" if m.run_id else "")
                    + f": {m.points_read} point(s) from {inert(m.path)}")
        counts = ", ".join(f"{inert(name)} {n}" for name, n in sorted(info.profile_counts.items(), key=lambda kv: -kv[1]))
        out(f"  profile: {inert(info.profile or '(none)')}"
            + (f"   tags claimed per profile: {counts}" if counts else "   (forced)"))
        out(f"  performance metric: {inert(info.performance_metric or '-')}   points read: {info.points_read}   "
            f"in frame: {info.points_in_frame}   per split: "
            + (", ".join(f"{inert(k)} {v}" for k, v in sorted(info.points_per_split.items())) or "-"))
        envs = [inert(e) for e in info.envs[:MAX_ENV_ROWS]]
        more = f" ... and {len(info.envs) - MAX_ENV_ROWS} more" if len(info.envs) > MAX_ENV_ROWS else ""
        out(f"  envs ({len(info.envs)}): {', '.join(envs) or '-'}{more}")
        if info.name in unknown:
            out("  status: ", ("unknown", STATUS_STYLE.get("unknown", "")), f" — {inert(unknown[info.name])}")
        if info.unclaimed_tags:
            shown = [inert(t) for t in info.unclaimed_tags[:20]]
            more = f" ... and {len(info.unclaimed_tags) - 20} more" if len(info.unclaimed_tags) > 20 else ""
            out(f"  unclaimed tags ({len(info.unclaimed_tags)}): {', '.join(shown)}{more}")
        for issue in info.issues:
            if issue.kind == "unclaimed_tags" and info.unclaimed_tags:  # already listed just above
                continue
            out("  ", (inert(issue.kind), "yellow"), f" {inert(issue.path)}: {inert(issue.detail)}")
