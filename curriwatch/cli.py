"""The command line: a thin client that calls the library and turns its errors into exit code 2."""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from . import __version__
from .errors import CurriwatchError

app = typer.Typer(
    name="curriwatch",
    help="Post-hoc health analysis of RL curricula from TensorBoard and W&B logs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class ReaderChoice(str, Enum):
    native = "native"
    tbparse = "tbparse"


def stdout_console() -> Console:
    return Console(no_color=bool(os.environ.get("NO_COLOR")) or None, soft_wrap=False)


def stderr_console() -> Console:
    return Console(stderr=True, no_color=bool(os.environ.get("NO_COLOR")) or None)


@contextmanager
def cli_errors():
    """Library errors become one line on stderr and exit code 2; never a traceback."""
    try:
        yield
    except CurriwatchError as err:
        print(f"curriwatch: error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as err:  # a bug: still one line, with a way to see the traceback
        if os.environ.get("CURRIWATCH_DEBUG"):
            raise
        print(f"curriwatch: internal error: {type(err).__name__}: {err} "
              "(set CURRIWATCH_DEBUG=1 to see the traceback)", file=sys.stderr)
        raise typer.Exit(2) from None


class DelayedProgress:
    """A progress bar on stderr that appears only when reading takes more than `delay` seconds."""

    def __init__(self, delay: float = 0.5) -> None:
        self.delay = delay
        self.start = time.monotonic()
        self.bar = None
        self.task = None

    def __call__(self, done: int, total: int, name: str) -> None:
        if self.bar is None:
            if time.monotonic() - self.start < self.delay or done >= total:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("reading"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("{task.description}"),
                                console=stderr_console(), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("", total=total)
        self.bar.update(self.task, completed=done, description=name)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _version(value: bool) -> None:
    if value:
        print(f"curriwatch {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """Post-hoc health analysis of RL curricula from TensorBoard and W&B logs."""


LogdirArg = Annotated[Optional[Path], typer.Argument(help="Folder holding the runs (searched recursively).",
                                                     show_default=False)]
ProfileOpt = Annotated[Optional[str], typer.Option("--profile", help="Key profile for every run "
                                                   "(marin, atropos, roll, generic, or one from the config); "
                                                   "default: detected per run.")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="YAML configuration file "
                                                   "(default: ./curriwatch.yaml when present).")]
ReaderOpt = Annotated[ReaderChoice, typer.Option("--reader", help="TensorBoard reader.")]
WandbOpt = Annotated[Optional[list[str]], typer.Option("--wandb", help="Also read an online W&B run "
                                                       "ENTITY/PROJECT/RUN_ID (repeatable).")]


@app.command()
def scan(
    logdir: LogdirArg = None,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
) -> None:
    """Read every run under LOGDIR and print the report."""
    from .ingest import load
    from .render.terminal import render_ingest

    with cli_errors():
        progress = DelayedProgress()
        try:
            ingest = load(logdir, profile, config=config, reader=reader.value, wandb_runs=wandb or (),
                          progress=progress)
        finally:
            progress.close()
        render_ingest(ingest, stdout_console())


def main() -> None:
    app()


if __name__ == "__main__":
    main()
