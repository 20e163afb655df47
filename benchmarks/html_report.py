"""HTML report benchmark: a 50-env x 20,000-step run, rendered and opened in headless Chromium.

    python benchmarks/html_report.py

Builds the same synthetic frame as benchmarks/analyze.py (50 envs, train every step, eval every
50), analyses it, writes the HTML report, and prints its size, the time to render it in Python,
and the time Chromium's page needed to finish its scripts (performance.now() at the end of the
page's script, as the page records it). Target (issue #6): opens in under 3 s; sample_logs' HTML
under 5 MB.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


def main() -> None:
    import chromium
    from curriwatch.render.html import render_html

    child = (HERE / "analyze.py").read_text().split('CHILD = r"""', 1)[1].split('"""', 1)[0]
    child = child.split("base = resource.getrusage", 1)[0]  # up to the built ingest
    scope: dict = {}
    sys.argv = ["x", "50", "20000", "50"]
    exec(compile(child, "frame", "exec"), scope)
    import curriwatch

    report = curriwatch.analyze(scope["ingest"])
    started = time.perf_counter()
    page = render_html(report)
    render_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(page)
        if chromium.find() is None:
            print("Chromium not found (apt-get install chromium)", file=sys.stderr)
            sys.exit(1)
        started = time.perf_counter()
        dom = chromium.dump_dom(path)
        wall = time.perf_counter() - started
        data = chromium.body_data(dom)
        sample = subprocess.run([sys.executable, "-m", "curriwatch", "report", str(HERE.parent / "sample_logs"),
                                 "-f", "html", "--fail-on", "never"], capture_output=True, text=True).stdout
    print(f"{'case':<38} {'HTML MB':>8} {'python s':>9} {'page script ms':>15} {'chromium wall s':>16}")
    print(f"{'50 envs x 20,000 steps (1.02M rows)':<38} {len(page) / 1e6:>8.2f} {render_s:>9.2f} "
          f"{data.get('render-ms', '?'):>15} {wall:>16.2f}")
    print(f"{'sample_logs':<38} {len(sample.encode()) / 1e6:>8.2f}")
    print(json.dumps({"charts": data.get("charts"), "errors": data.get("errors")}))


if __name__ == "__main__":
    main()
