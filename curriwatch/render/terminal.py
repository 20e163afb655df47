"""Rich terminal output."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..ingest import Ingest


def render_ingest(ingest: Ingest, console: Console) -> None:
    """The ingest summary: one row per run, then every data issue."""
    table = Table(title=f"curriwatch ingest: {ingest.logdir or 'online runs'}", title_justify="left")
    for column in ("run", "source", "profile", "envs", "train", "eval", "state", "steps", "issues"):
        table.add_column(column, justify="right" if column in ("envs", "train", "eval", "state", "issues")
                         else "left", overflow="fold")
    for info in ingest.runs:
        split = info.points_per_split
        steps = f"{info.step_range[0]}..{info.step_range[1]}" if info.step_range else "-"
        table.add_row(info.name, info.source, info.profile or "-", str(len(info.envs)),
                      str(split.get("train", 0)), str(split.get("eval", 0)), str(split.get("state", 0)),
                      steps, str(len(info.issues)))
    console.print(table)
    issues = ingest.all_issues
    if issues:
        console.print(f"[bold]data issues[/bold] ({len(issues)})")
        for issue in issues:
            console.print(f"  [yellow]{issue.kind}[/yellow] {issue.path}: {issue.detail}", highlight=False)
