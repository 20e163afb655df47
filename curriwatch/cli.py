"""The command line: a thin client that calls the library and turns its errors into exit code 2."""
from __future__ import annotations

import io
import json
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
from .gate import FailOn, gate_failures

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
            # only on a terminal: piped or captured stderr (CI) gets no bar, not even its closing newline
            if time.monotonic() - self.start < self.delay or done >= total or not sys.stderr.isatty():
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


class Format(str, Enum):
    terminal = "terminal"
    json = "json"
    markdown = "markdown"
    html = "html"


# a str, not a Path: Path would fold the `//` of gs://, s3://, memory:// URLs
LogdirArg = Annotated[Optional[str], typer.Argument(help="Folder holding the runs (searched recursively), "
                                                    "or an fsspec URL (gs://, s3://, ...).",
                                                     show_default=False)]
ProfileOpt = Annotated[Optional[str], typer.Option("--profile", help="Key profile for every run "
                                                   "(marin, atropos, roll, generic, or one from the config); "
                                                   "default: detected per run.")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="YAML configuration file "
                                                   "(default: ./curriwatch.yaml when present).")]
ReaderOpt = Annotated[ReaderChoice, typer.Option("--reader", help="TensorBoard reader.")]
WandbOpt = Annotated[Optional[list[str]], typer.Option("--wandb", help="Also read an online W&B run "
                                                       "ENTITY/PROJECT/RUN_ID (repeatable).")]
FailOnOpt = Annotated[FailOn, typer.Option("--fail-on", help="Exit 1 when an incident of this severity or "
                                           "worse was found.")]
RunOpt = Annotated[Optional[str], typer.Option("--run", help="Only runs whose name matches this glob "
                                               "(or contains it).")]


def _load(logdir, profile, cfg, reader, wandb):
    """curriwatch.load with a progress bar on stderr when reading takes more than a moment."""
    from .ingest import load

    progress = DelayedProgress()
    try:
        return load(logdir, profile, config=cfg, reader=reader.value, wandb_runs=wandb or (), progress=progress)
    finally:
        progress.close()


def _analyse(logdir, profile, config, reader, wandb):
    """load + analyze: the one path scan and report share."""
    from .analyze import analyze
    from .config import load_config

    cfg = load_config(config)
    return analyze(_load(logdir, profile, cfg, reader, wandb), cfg), cfg


def _gate(report, fail_on: FailOn) -> None:
    failures = gate_failures(report, fail_on)
    if failures:
        print(f"curriwatch: gate failed: {failures} incident(s) at or above {fail_on.value}", file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def scan(
    logdir: LogdirArg = None,
    run: RunOpt = None,
    fail_on: FailOnOpt = FailOn.critical,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
) -> None:
    """Read and analyse every run under LOGDIR, print the report, save it for `report`."""
    from . import store
    from .render.common import select_runs
    from .render.terminal import render_report

    with cli_errors():
        report, cfg = _analyse(logdir, profile, config, reader, wandb)
        try:
            store.save(report, cfg["health_monitoring"]["metrics_retention_days"])
        except OSError as err:
            print(f"curriwatch: warning: could not save the result for `report`: {err}", file=sys.stderr)
        report = select_runs(report, run)
        render_report(report, stdout_console())
        _gate(report, fail_on)


@app.command()
def report(
    logdir: LogdirArg = None,
    format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.terminal,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to FILE instead of stdout.")] = None,
    run: RunOpt = None,
    fail_on: FailOnOpt = FailOn.critical,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
) -> None:
    """Render a report of LOGDIR, or of the last `scan` when LOGDIR is not given."""
    from . import store
    from .render.common import select_runs

    with cli_errors():
        if logdir is None and not wandb:
            result = store.load_last()
        else:
            result, _cfg = _analyse(logdir, profile, config, reader, wandb)
        result = select_runs(result, run)
        text = render_text(result, format, to_file=output is not None)
        if output is not None:
            try:
                output.write_text(text, encoding="utf-8")
            except OSError as err:
                raise CurriwatchError(f"cannot write {output}: {err.strerror or err}") from None
        else:
            sys.stdout.write(text)
        _gate(result, fail_on)


def render_text(result, format: Format, to_file: bool) -> str:
    """The report in `format` as one string."""
    if format is Format.json:
        return json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n"
    if format is Format.markdown:
        from .render.markdown import render_markdown

        return render_markdown(result)
    if format is Format.html:
        from .render.html import render_html

        return render_html(result)
    from .render.terminal import render_report

    console = stdout_console() if not to_file else Console(file=io.StringIO(), no_color=True, width=100)
    with console.capture() as capture:
        render_report(result, console)
    return capture.get()


@app.command("config")
def config_cmd(
    show: Annotated[bool, typer.Option("--show", help="Print the effective configuration with defaults.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Check a configuration file; with --show print the effective configuration."""
    from .config import load_config, to_yaml

    with cli_errors():
        cfg = load_config(config)
        if show:
            sys.stdout.write(to_yaml(cfg))
        else:
            print(f"curriwatch: configuration OK ({cfg.source or 'defaults'})", file=sys.stderr)


@app.command()
def schema() -> None:
    """Print the JSON Schema of `report --format json` (schema_version 1)."""
    from importlib.resources import files

    sys.stdout.write(files("curriwatch").joinpath("schema.json").read_text(encoding="utf-8"))


@app.command()
def doctor(
    logdir: LogdirArg = None,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
) -> None:
    """Explain what was read: per run the files, the profile match counts, unclaimed tags, data issues."""
    from .config import load_config
    from .render.terminal import render_doctor

    with cli_errors():
        render_doctor(_load(logdir, profile, load_config(config), reader, wandb), stdout_console())


def main() -> None:
    app()


if __name__ == "__main__":
    main()
