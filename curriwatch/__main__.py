"""The console entry point (`curriwatch`, `python -m curriwatch`).

`--version`, `schema` and `config` are answered here, before typer (and the pydantic it imports
to convert options) and the analysis load; anything else, `--help` included, goes to typer. Ctrl-C
while modules load is one line and exit 130, like Ctrl-C later (see cli.main)."""
import os
import sys
from pathlib import Path


def _config_args(argv: list[str]) -> tuple[bool, str | None] | None:
    """(--show, --config FILE) of `config [--show] [--config FILE]`, None for any other shape."""
    if argv[:1] != ["config"]:
        return None
    show, path, rest = False, None, argv[1:]
    while rest:
        arg = rest.pop(0)
        if arg == "--show":
            show = True
        elif arg == "--config" and rest and not rest[0].startswith("-"):
            path = rest.pop(0)
        elif arg.startswith("--config=") and len(arg) > len("--config="):
            path = arg[len("--config="):]
        else:  # --help, a typo, a repeated option: typer answers
            return None
    return show, path


def _config(show: bool, path: str | None) -> str:
    """What `config` prints on stdout (`cli.config_cmd` does the same behind typer)."""
    from .config import load_config, to_yaml
    from .errors import CurriwatchError

    try:
        cfg = load_config(Path(path) if path is not None else None)
    except CurriwatchError as err:
        print(f"curriwatch: error: {err}", file=sys.stderr)
        sys.exit(2)
    except Exception as err:  # a bug: one line, as cli.cli_errors does
        if os.environ.get("CURRIWATCH_DEBUG"):
            raise
        print(f"curriwatch: internal error: {type(err).__name__}: {err} "
              "(set CURRIWATCH_DEBUG=1 to see the traceback)", file=sys.stderr)
        sys.exit(2)
    if show:
        return to_yaml(cfg)
    print(f"curriwatch: configuration OK ({cfg.source or 'defaults'})", file=sys.stderr)
    return ""


def _fast(argv: list[str]) -> bool:
    config = _config_args(argv)
    if argv not in (["--version"], ["schema"]) and config is None:
        return False
    if argv == ["--version"]:
        from . import __version__

        text = f"curriwatch {__version__}\n"
    elif config is not None:
        text = _config(*config)
    else:
        text = (Path(__file__).parent / "schema.json").read_text(encoding="utf-8")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except OSError as err:
        print(f"curriwatch: error: cannot write to stdout: {err.strerror or err}", file=sys.stderr)
        sys.exit(2)
    finally:
        try:  # nothing left for the interpreter's final flush to fail on
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    return True


def main() -> None:
    try:
        if _fast(sys.argv[1:]):
            sys.exit(0)
        from .cli import main as cli_main
    except KeyboardInterrupt:
        print("curriwatch: interrupted", file=sys.stderr)
        sys.exit(130)
    cli_main()


if __name__ == "__main__":
    main()
