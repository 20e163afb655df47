"""The lessons section of every report format: per lesson env and parameter, the lesson timeline,
the time spent in each lesson, and how each stay began (an advance and how the reward held up
after it, or a fall back). Strings arrive inert (render.common.inert_report); each format escapes
its own syntax."""
from __future__ import annotations

from dataclasses import dataclass

from ..report import RunReport
from .common import envs_to_show, fmt

VERDICT_TEXT = {
    "held": "reward held",
    "recovered": "dipped, recovered",
    "collapsed": "reward collapsed",
    "pending": "recovery window still open",
    "interrupted": "next lesson change came first",
    "not_judged": "not judged",
}


@dataclass(frozen=True)
class LessonRow:
    lesson: int
    start_step: int
    end_step: int
    current: bool
    entry: str  # how this stay began
    mark: str  # "" | "warning" | "critical": an incident began here


@dataclass(frozen=True)
class LessonBlock:
    env_id: str
    parameter: str
    caption: str  # current lesson and time per lesson
    rows: tuple[LessonRow, ...]


def lesson_blocks(run: RunReport) -> list[LessonBlock]:
    """One block per (lesson env, parameter) of the envs a report shows, in env order."""
    envs, _hidden = envs_to_show(run)
    severity = {}  # (env, parameter, step where a stay began) -> severity of the incident that began there
    for w in run.warnings:
        if w.type == "lesson_reward_collapse":
            severity[(w.env_id, w.evidence.get("parameter"), w.evidence.get("advance_step"))] = w.severity
        elif w.type == "lesson_regression":
            for p in w.evidence.get("parameters") or [w.evidence.get("parameter")]:
                severity[(w.env_id, p, w.first_step)] = w.severity
    out = []
    for env in envs:
        for t in env.lessons or ():
            advances = {a.step: a for a in t.advances}
            falls = {f.step: f for f in t.fallbacks()}
            rows = []
            for k, sp in enumerate(t.spans):
                if k == 0:
                    entry = "first logged"
                elif sp.start_step in falls:
                    entry = f"fell back from lesson {falls[sp.start_step].from_lesson}"
                elif sp.start_step in advances:
                    entry = advance_text(advances[sp.start_step])
                else:
                    entry = f"from lesson {t.spans[k - 1].lesson}"
                mark = severity.get((env.env_id, t.parameter, sp.start_step), "")
                rows.append(LessonRow(sp.lesson, sp.start_step, sp.end_step, k == len(t.spans) - 1, entry, mark))
            times = " · ".join(f"{lesson}: {fmt(steps)}" + (f" ({visits} stays)" if visits > 1 else "")
                               for lesson, steps, visits in t.time_in_lesson())
            invalid = f"; {t.invalid_points} value(s) not a lesson index" if t.invalid_points else ""
            caption = (f"now lesson {t.current_lesson}, highest {t.highest_lesson}; steps per lesson: {times}{invalid}"
                       if t.spans else f"no lesson index logged{invalid}")
            out.append(LessonBlock(env.env_id, t.parameter, caption, tuple(rows)))
    return out


def advance_text(a) -> str:
    """`advance from 1: dipped, recovered (lowest 0.412, back at step 360000)`."""
    facts = []
    if a.verdict in ("recovered", "collapsed", "pending", "interrupted") and a.lowest_reward is not None:
        facts.append(f"lowest {fmt(a.lowest_reward)} vs {fmt(a.held_reward)} held")
    if a.recovered_at_step is not None and a.verdict != "held":
        facts.append(f"back at step {a.recovered_at_step}")
    if a.reason:
        facts.append(a.reason)
    return f"advance from {a.from_lesson}: {VERDICT_TEXT.get(a.verdict, a.verdict)}" + (
        f" ({', '.join(facts)})" if facts else "")


def span_text(row: LessonRow) -> str:
    return f"{row.start_step}..{row.end_step}" + (" (now)" if row.current else "")


def terminal_lessons(run: RunReport):
    """A rich renderable (None when the run has no lesson env)."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    blocks = lesson_blocks(run)
    if not blocks:
        return None
    parts = [Text("lessons", style="bold")]
    style = {"critical": "bold red", "warning": "yellow", "": ""}
    mark = {"critical": "✖ ", "warning": "▲ ", "": ""}
    for b in blocks:
        parts.append(Padding(Text.assemble((b.env_id, "bold"), f" · {b.parameter} · {b.caption}"), (0, 0, 0, 2)))
        table = Table(box=None, pad_edge=False, header_style="dim", expand=False)
        table.add_column("lesson", justify="right", no_wrap=True)
        table.add_column("steps", no_wrap=True)
        table.add_column("how it began", overflow="fold")
        for r in b.rows:
            table.add_row(str(r.lesson), span_text(r), Text(mark[r.mark] + r.entry, style[r.mark]))
        parts.append(Padding(table, (0, 0, 0, 4)))
    return Group(*parts)


def markdown_lessons(run: RunReport, cell) -> list[str]:
    """Markdown lines (none when the run has no lesson env); `cell` escapes a table cell."""
    blocks = lesson_blocks(run)
    if not blocks:
        return []
    out = ["", "**Lessons**", "", "| env | parameter | lesson | steps | how it began |", "|---|---|---:|---|---|"]
    icon = {"critical": "🔴 ", "warning": "🟡 ", "": ""}
    for b in blocks:
        for r in b.rows:
            out.append(f"| {cell(b.env_id)} | {cell(b.parameter)} | {r.lesson} | {cell(span_text(r))} | "
                       f"{icon[r.mark]}{cell(r.entry)} |")
        out.append(f"| {cell(b.env_id)} | {cell(b.parameter)} | | | {cell(b.caption)} |")
    return out


def html_lessons(run: RunReport, esc) -> str:
    """The lessons table of a run's HTML section ('' when the run has no lesson env); `esc`
    escapes text for HTML."""
    blocks = lesson_blocks(run)
    if not blocks:
        return ""
    out = ["<h3>lessons</h3>", '<table class="lessons"><tr><th>env</th><th>parameter</th><th>lesson</th>'
           "<th>steps</th><th>how it began</th></tr>"]
    for b in blocks:
        for r in b.rows:
            sev = f'<span class="sev {r.mark}">{r.mark}</span> ' if r.mark else ""
            out.append(f"<tr><td>{esc(b.env_id)}</td><td>{esc(b.parameter)}</td><td>{r.lesson}</td>"
                       f"<td>{esc(span_text(r))}</td><td>{sev}{esc(r.entry)}</td></tr>")
        out.append(f'<tr><td>{esc(b.env_id)}</td><td>{esc(b.parameter)}</td><td></td><td></td>'
                   f'<td class="quiet">{esc(b.caption)}</td></tr>')
    out.append("</table>")
    return "\n".join(out)
