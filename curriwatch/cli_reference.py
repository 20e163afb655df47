"""The README's CLI reference, generated from the typer app so it cannot drift.

    python -m curriwatch.cli_reference            # print it
    python -m curriwatch.cli_reference README.md  # rewrite the block between the markers
"""
from __future__ import annotations

import sys
from pathlib import Path

import typer

START, END = "<!-- cli-reference:start -->\n", "<!-- cli-reference:end -->"


def cli_reference() -> str:
    """One section per command: usage, first help line, and a table of its options as --help
    describes them (the same help records, so the two cannot disagree)."""
    from .cli import app

    group = typer.main.get_command(app)
    out = []
    for name in sorted(group.commands):
        cmd = group.commands[name]
        ctx = cmd.make_context(name, [], resilient_parsing=True)
        args = " ".join(f"[{p.name.upper()}]" for p in cmd.params if p.param_type_name == "argument")
        out += [f"#### `curriwatch {name}{' ' + args if args else ''} [OPTIONS]`", "",
                (cmd.help or "").strip().splitlines()[0], ""]
        records = [p.get_help_record(ctx) for p in cmd.params if p.param_type_name == "option"]
        records = [r for r in records if r and not r[0].startswith("--help")]
        if records:
            out += ["| option | meaning |", "|---|---|"]
            out += [f"| `{opts.replace('|', chr(92) + '|')}` | {help_text.replace('|', '/')} |" for opts, help_text in records]
            out.append("")
    return "\n".join(out) + "\n"


def main() -> None:
    text = cli_reference()
    if len(sys.argv) > 1:
        path = Path(sys.argv[1])
        doc = path.read_text()
        head, rest = doc.split(START, 1)
        _old, tail = rest.split(END, 1)
        path.write_text(head + START + text + END + tail)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
