"""HTML report benchmark: a 50-env x 20,000-step run, rendered and opened in headless Chromium.

    python benchmarks/html_report.py [--repeat 3] [--keep report.html]

Builds the same synthetic frame as benchmarks/analyze.py (50 envs, train every step, eval every
50), analyses it, writes the HTML report, and opens it in a fresh headless Chromium each time
(driven over the DevTools protocol, tests/chromium.py). Prints the file size, the Python render
time, and the page's time to interactive: from navigation start until the page's script is done
and the first uPlot chart has drawn (`performance.now()` as the page records it in
`data-ready-ms`, and the wall time from `Page.navigate` until `curriwatch.ready` resolved). The
other charts are built as they scroll into view; building all 50 at once is timed too. Best of
`--repeat` fresh browsers. Also the size of sample_logs' report. Targets (issue #13): interactive
within 3 s; sample report under 5 MB.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


def synthetic_report():
    """The 50 env x 20,000 step run of benchmarks/analyze.py, analysed."""
    child = (HERE / "analyze.py").read_text().split('CHILD = r"""', 1)[1].split('"""', 1)[0]
    child = child.split("base = resource.getrusage", 1)[0]  # up to the built ingest
    scope: dict = {}
    argv, sys.argv = sys.argv, ["x", "50", "20000", "50"]
    try:
        exec(compile(child, "frame", "exec"), scope)
    finally:
        sys.argv = argv
    import curriwatch

    return curriwatch.analyze(scope["ingest"])


def open_in_chromium(path: Path) -> dict:
    import chromium

    with chromium.Browser(1400, 900) as browser:
        started = time.perf_counter()
        browser.open(path)
        browser.evaluate("curriwatch.ready")
        wall = time.perf_counter() - started
        ready_ms = float(browser.evaluate("document.body.dataset.readyMs"))
        all_ms = browser.evaluate("(() => { const t = performance.now(); const n = curriwatch.renderAll(); "
                                  "return [n, performance.now() - t]; })()")
        errors = browser.evaluate("document.body.dataset.errors || ''")
    return {"wall_s": wall, "ready_ms": ready_ms, "charts": all_ms[0], "all_ms": all_ms[1], "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="also write the 50-env report here")
    args = parser.parse_args()
    import chromium
    from curriwatch.render.html import render_html

    if chromium.find() is None:
        print("Chromium not found (apt-get install chromium)", file=sys.stderr)
        sys.exit(1)
    report = synthetic_report()
    renders = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        page = render_html(report)
        renders.append(time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(page, encoding="utf-8")
        if args.keep:
            Path(args.keep).write_text(page, encoding="utf-8")
        runs = [open_in_chromium(path) for _ in range(args.repeat)]
    sample = subprocess.run([sys.executable, "-m", "curriwatch", "report", str(HERE.parent / "sample_logs"),
                             "-f", "html", "--fail-on", "never"], capture_output=True, text=True).stdout
    best = min(runs, key=lambda r: r["ready_ms"])
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; best of {args.repeat} fresh "
          "Chromium processes (headless, 1400x900)")
    print(f"{'case':<36} {'HTML MB':>8} {'python s':>9} {'interactive ms':>15} {'wall s':>7} {'all charts ms':>14}")
    print(f"{'50 envs x 20,000 steps (1.02M rows)':<36} {len(page.encode()) / 1e6:>8.2f} {min(renders):>9.2f} "
          f"{best['ready_ms']:>15.0f} {min(r['wall_s'] for r in runs):>7.2f} "
          f"{min(r['all_ms'] for r in runs):>14.0f}")
    print(f"{'sample_logs':<36} {len(sample.encode()) / 1e6:>8.2f}")
    print(f"charts: {best['charts']}; page errors: {best['errors'] or 'none'}; interactive = the page's script done "
          "and its first chart drawn (performance.now() from navigation start)")


if __name__ == "__main__":
    main()
