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

from .errors import CurriwatchError

app = typer.Typer(
    name="curriwatch",
    help="Post-hoc health analysis of RL curricula from TensorBoard and W&B logs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no rich import for --help, no <bool>/<list[str]> type labels
)


class FailOn(str, Enum):
    """--fail-on levels (the gate's own enum lives in curriwatch.gate, which loads the analysis)."""

    critical = "critical"
    warning = "warning"
    never = "never"


class ReaderChoice(str, Enum):
    native = "native"
    tbparse = "tbparse"


def stdout_console():
    """The report's console. A closed pipe raises BrokenPipeError (rich would exit 1, which
    reads as "gate failed"), so `scan | head -1` keeps the gate's exit code."""
    from rich.console import Console

    class StdoutConsole(Console):
        def on_broken_pipe(self) -> None:
            _quiet_stdout()
            raise BrokenPipeError(32, "Broken pipe")

    return StdoutConsole(no_color=bool(os.environ.get("NO_COLOR")) or None, soft_wrap=False)


def stderr_console():
    from rich.console import Console

    return Console(stderr=True, no_color=bool(os.environ.get("NO_COLOR")) or None)


@contextmanager
def cli_errors():
    """Library errors become one line on stderr and exit code 2; never a traceback."""
    try:
        yield
    except CurriwatchError as err:
        print(f"curriwatch: error: {err}", file=sys.stderr)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:  # typer would turn it into a silent exit 130
        print("curriwatch: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    except (typer.Exit, typer.Abort):
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
            if time.monotonic() - self.start < self.delay or done >= total or not sys.stderr.isatty():
                return  # a bar on a pipe or file would only leave control codes and blank lines
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
        with cli_errors():
            from . import __version__

            write_stdout(lambda: print(f"curriwatch {__version__}"))
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
LogdirArg = Annotated[Optional[str], typer.Argument(metavar="LOGDIR", help="Folder holding the runs (searched recursively), "
                                                    "or an fsspec URL (gs://, s3://, ...).",
                                                     show_default=False)]
ProfileOpt = Annotated[Optional[str], typer.Option("--profile", metavar="NAME", help="Key profile for every run "
                                                   "(marin, atropos, roll, tinker, tune, dcd, mlagents, sb3, cleanrl, mtrl, "
                                                   "acme, pymarl, nemo_rl, benchmarl, baselines, her, rsl_rl, rl_games, skrl, "
                                                   "tianshou, sample_factory, d3rlpy, dreamerv3, sb3_monitor, verl, openrlhf, "
                                                   "skyrl, prime_rl, trl, ragen, verl_agent, open_instruct, areal, "
                                                   "sheeprl, generic, "
                                                   "or one from the config); default: detected per run.")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", metavar="FILE", help="YAML configuration file "
                                                   "(default: ./curriwatch.yaml when present).")]
ReaderOpt = Annotated[ReaderChoice, typer.Option("--reader", help="TensorBoard reader.")]
WandbOpt = Annotated[Optional[list[str]], typer.Option("--wandb", metavar="ENTITY/PROJECT/RUN_ID",
                                                       help="Also read an online W&B run (repeatable).")]
FailOnOpt = Annotated[FailOn, typer.Option("--fail-on", help="Exit 1 when an incident of this severity or "
                                           "worse was found.")]
RunOpt = Annotated[Optional[str], typer.Option("--run", metavar="GLOB", help="Only runs whose name matches this glob "
                                               "(or contains it).")]
GroupOpt = Annotated[Optional[str], typer.Option("--group", metavar="REGEX", help="Read as one run the sources whose "
                                                 "folder name (or W&B run id or name) this regex matches with the "
                                                 "same value: its `group` named group, else the whole match.")]


def _check_reader(reader) -> None:
    if reader is ReaderChoice.tbparse:
        try:
            import tbparse  # noqa: F401  (optional: only this reader needs it)
        except ImportError:
            raise CurriwatchError("--reader tbparse needs the tbparse package: "
                                  "pip install tbparse (or the curriwatch[tbparse] extra)") from None


def _load(logdir, profile, cfg, reader, wandb, group=None):
    """curriwatch.load with a progress bar on stderr when reading takes more than a moment."""
    from .ingest import load

    _check_reader(reader)
    progress = DelayedProgress()
    try:
        return load(logdir, profile, config=cfg, reader=reader.value, wandb_runs=wandb or (), progress=progress,
                    group=group)
    finally:
        progress.close()


def _analyse(logdir, profile, config, reader, wandb, state_file=None, group=None):
    """Read and analyse every run (curriwatch.scan: run by run, on every core): the one path scan
    and report share."""
    from .config import load_config
    from .scan import scan as scan_runs

    cfg = load_config(config)
    if state_file is not None and not state_file.is_file():
        raise CurriwatchError(f"--state-file: no such file: {state_file}")
    _check_reader(reader)
    progress = DelayedProgress()
    try:
        report = scan_runs(logdir, profile, config=cfg, reader=reader.value, wandb_runs=wandb or (),
                           progress=progress, state_file=state_file, group=group)
    finally:
        progress.close()
    return report, cfg


AllowUnknownOpt = Annotated[bool, typer.Option("--allow-unknown", help="Pass the gate when some runs or "
                                               "environments could not be judged (never when none could).")]
StateFileOpt = Annotated[Optional[Path], typer.Option("--state-file", help="Marin curriculum_state.json that "
                                                      "fixes the final states (default: found beside the logs).")]


def _select(report, run):
    """The runs matching --run; when none does, the report says so (and the gate fails)."""
    from .render.common import select_runs

    selected = select_runs(report, run)
    if run and not selected.runs:
        selected.status_reason = f"no run matches --run {run!r}"
    return selected


def _gate(report, fail_on: FailOn, allow_unknown: bool = False) -> None:
    from .gate import gate_verdict

    verdict = gate_verdict(report, fail_on.value, allow_unknown)
    if verdict.failed:
        print(f"curriwatch: {verdict.message}", file=sys.stderr)
        raise typer.Exit(verdict.exit_code)


@app.command()
def scan(
    logdir: LogdirArg = None,
    run: RunOpt = None,
    fail_on: FailOnOpt = FailOn.critical,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
    allow_unknown: AllowUnknownOpt = False,
    state_file: StateFileOpt = None,
    group: GroupOpt = None,
) -> None:
    """Read and analyse every run under LOGDIR, print the report, save it for `report`."""
    from . import store
    from .render.terminal import report_text

    with cli_errors():
        report, cfg = _analyse(logdir, profile, config, reader, wandb, state_file, group)
        try:
            store.save(report, cfg["health_monitoring"]["metrics_retention_days"])
        except OSError as err:
            print(f"curriwatch: warning: could not save the result for `report`: {err}", file=sys.stderr)
        report = _select(report, run)
        console = stdout_console()
        text = report_text(report, console)
        write_stdout(lambda: console.file.write(text))
        _gate(report, fail_on, allow_unknown)


@app.command()
def report(
    logdir: LogdirArg = None,
    format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.terminal,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE", help="Write to FILE instead of stdout.")] = None,
    run: RunOpt = None,
    fail_on: FailOnOpt = FailOn.critical,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
    allow_unknown: AllowUnknownOpt = False,
    state_file: StateFileOpt = None,
    group: GroupOpt = None,
) -> None:
    """Render a report of LOGDIR, or of the last `scan` when LOGDIR is not given."""
    from . import store

    with cli_errors():
        if logdir is None and not wandb:
            result = store.load_last()
        else:
            result, _cfg = _analyse(logdir, profile, config, reader, wandb, state_file, group)
        result = _select(result, run)
        text = render_text(result, format, to_file=output is not None)
        if output is not None:
            try:
                output.write_text(text, encoding="utf-8")
            except OSError as err:
                raise CurriwatchError(f"cannot write {output}: {err.strerror or err}") from None
        else:
            write_stdout(lambda: sys.stdout.write(text))
        _gate(result, fail_on, allow_unknown)


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
    from rich.console import Console

    from .render.terminal import report_text

    console = stdout_console() if not to_file else Console(file=io.StringIO(), no_color=True, width=100)
    return report_text(result, console)


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
            write_stdout(lambda: sys.stdout.write(to_yaml(cfg)))
        else:
            print(f"curriwatch: configuration OK ({cfg.source or 'defaults'})", file=sys.stderr)


def _schema_text() -> str:
    return (Path(__file__).parent / "schema.json").read_text(encoding="utf-8")


@app.command()
def schema() -> None:
    """Print the JSON Schema of `report --format json` (schema_version 1)."""
    text = _schema_text()
    with cli_errors():
        write_stdout(lambda: sys.stdout.write(text))


@app.command()
def doctor(
    logdir: LogdirArg = None,
    profile: ProfileOpt = None,
    config: ConfigOpt = None,
    reader: ReaderOpt = ReaderChoice.native,
    wandb: WandbOpt = None,
    group: GroupOpt = None,
) -> None:
    """Explain what was read: per run the files, the profile match counts, unclaimed tags, data issues."""
    from .config import load_config
    from .render.terminal import render_doctor

    with cli_errors():
        ingest = _load(logdir, profile, load_config(config), reader, wandb, group)
        write_stdout(lambda: render_doctor(ingest, stdout_console()))


def _quiet_stdout() -> None:
    """After a broken pipe: send what is still buffered for stdout nowhere, so neither our writes
    nor the interpreter's final flush raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def write_stdout(write) -> None:
    """Run `write` (which writes the report to stdout) and flush. A reader that went away (`| head`)
    ends the output quietly; the exit code is still the gate's. A full or failing stdout is one
    line and exit 2."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
    except OSError as err:
        _quiet_stdout()
        raise CurriwatchError(f"cannot write the report to stdout: {err.strerror or err}") from None


def _plain_params(command) -> None:
    """typer >= 0.20 converts every parameter through a pydantic TypeAdapter, and importing pydantic
    costs ~0.1 s of every run. curriwatch's parameters are plain (str, Path, an Enum, a list of
    str, each maybe None): they are converted here as pydantic converts them, and anything
    unexpected still goes through typer's own conversion."""
    try:
        from typer._coercion import RuntimeParam, build_runtime_param
    except ImportError:  # another typer: it converts its own way
        return
    from dataclasses import dataclass
    from typing import Union, get_args, get_origin

    @dataclass(frozen=True)
    class Plain(RuntimeParam):
        convert: object = None
        descriptor: object = None

        def _coerce_value(self, value, param, ctx):
            try:
                return self.convert(value)
            except Exception:  # noqa: BLE001 - typer (and pydantic) say what is wrong with it
                return build_runtime_param(self.descriptor)._coerce_value(value, param, ctx)

    def converter(annotation):
        args = get_args(annotation)
        if get_origin(annotation) is Union and len(args) == 2 and type(None) in args:
            annotation = args[0] if args[1] is type(None) else args[1]
        if annotation is str:
            return lambda v: v if isinstance(v, str) else _refuse(v)
        if annotation is bool:
            return lambda v: v if isinstance(v, bool) else _refuse(v)
        if annotation is Path:
            return lambda v: v if isinstance(v, Path) else Path(v) if isinstance(v, str) else _refuse(v)
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            return lambda v: v if isinstance(v, annotation) else annotation(v)
        if get_origin(annotation) is list and get_args(annotation) == (str,):
            return lambda v: [x if isinstance(x, str) else _refuse(x) for x in v]
        return None

    for cmd in [command, *getattr(command, "commands", {}).values()]:
        params = list(cmd.params)
        try:  # --help is made on first use and then kept: make it now, to convert it here too
            from typer._click import Context

            params.append(cmd.get_help_option(Context(cmd)))
        except Exception:  # noqa: BLE001 - another typer: its help option converts its own way
            pass
        for param in params:
            desc = getattr(param, "type_descriptor", None)
            convert = converter(desc.annotation) if desc is not None else None
            if convert is not None and getattr(param, "_runtime_param", False) is None:
                param._runtime_param = Plain(desc.parameter_info, desc.annotation, convert, desc)


def _refuse(value):
    raise TypeError(type(value).__name__)


def main(args: list[str] | None = None) -> None:
    """The console entry point: every way out is an exit code, never a traceback — usage errors
    are one line (exit 2), Ctrl-C is one line (exit 130), a closed stdout ends quietly."""
    try:  # newer typer vendors click as typer._click; older typer uses click itself
        from typer._click import exceptions as click
    except ImportError:
        from click import exceptions as click

    try:
        command = typer.main.get_command(app)
        _plain_params(command)
        code = command(args=args, standalone_mode=False, prog_name="curriwatch")
        sys.stdout.flush()
    except getattr(click, "NoArgsIsHelpError", ()) as err:
        print(err.ctx.get_help() if err.ctx else str(err), file=sys.stderr)
        code = 2
    except click.UsageError as err:
        hint = f" (see `{err.ctx.command_path} --help`)" if err.ctx else ""
        message = " ".join(err.format_message().split())
        print(f"curriwatch: error: {message[:300]}{hint}", file=sys.stderr)
        code = 2
    except click.ClickException as err:
        print(f"curriwatch: error: {' '.join(err.format_message().split())[:300]}", file=sys.stderr)
        code = err.exit_code
    except (KeyboardInterrupt, typer.Abort):
        print("curriwatch: interrupted", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        _quiet_stdout()
        code = 0
    except OSError as err:  # stdout full while typer/click wrote help or a version
        _quiet_stdout()
        print(f"curriwatch: error: cannot write to stdout: {err.strerror or err}", file=sys.stderr)
        code = 2
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
