"""The console entry point (`curriwatch`, `python -m curriwatch`).

`--version` and `schema` are answered here, before typer and the analysis load; Ctrl-C while
modules load is one line and exit 130, like Ctrl-C later (see cli.main)."""
import sys
from pathlib import Path


def _fast(argv: list[str]) -> bool:
    if argv not in (["--version"], ["schema"]):
        return False
    if argv == ["--version"]:
        from . import __version__

        text = f"curriwatch {__version__}\n"
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
            import os

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
