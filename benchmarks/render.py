"""Rendering time of a run with many envs, in every format (issue: rendering must be linear).

    python benchmarks/render.py [--envs 1000 10000 100000]

Builds a synthetic Report (one run, N envs, one timeline interval per env, a warning on every
97th env) and times Report.to_dict + JSON, terminal (80 columns), Markdown and HTML. Above
render.common.MAX_ENV_ROWS envs per run, terminal, Markdown and HTML show the worst envs and say
how many more there are; the JSON always holds every env.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def big_report(envs: int):
    from curriwatch.health import EnvHealth
    from curriwatch.incidents import Incident
    from curriwatch.report import Report, RunReport
    from curriwatch.timeline import Interval

    ids = [f"env{i:06d}" for i in range(envs)]
    run = RunReport("big", "tensorboard", "generic", (0, 1000),
                    environments=[EnvHealth(e, "active", 0.5, 0.5, 0.6, "stable", 10, 100,
                                            "warning" if i % 97 == 0 else "healthy", sparkline=[0.5] * 24,
                                            chart={"train": ([0, 500, 1000], [0.4, 0.5, 0.6]), "eval": ([], []),
                                                   "points": {"train": 3, "eval": 0}})
                                  for i, e in enumerate(ids)],
                    timeline=[(e, Interval("active", 0, 1000)) for e in ids],
                    warnings=[Incident("training_stagnation", e, "warning", 10, 1000, False, "stuck")
                              for e in ids[::97]])
    return Report("/logs", [run], "bench")


def main() -> None:
    from rich.console import Console

    from curriwatch.render.html import render_html
    from curriwatch.render.markdown import render_markdown
    from curriwatch.render.terminal import report_text

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    sizes = parser.parse_args().envs
    formats = {
        "json": lambda r: json.dumps(r.to_dict(), indent=2, allow_nan=False),
        "terminal": lambda r: report_text(r, Console(file=io.StringIO(), width=80, no_color=True)),
        "markdown": render_markdown,
        "html": render_html,
    }
    print(f"{'envs':>8} {'format':<9} {'seconds':>8} {'output MB':>10}")
    for n in sizes:
        report = big_report(n)
        for name, render in formats.items():
            start = time.perf_counter()
            text = render(report)
            print(f"{n:>8} {name:<9} {time.perf_counter() - start:>8.2f} {len(text.encode()) / 1e6:>10.2f}")


if __name__ == "__main__":
    main()
