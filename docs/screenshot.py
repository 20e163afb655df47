"""Regenerate docs/report.png: the HTML report of sample_logs in headless Chromium.

    python docs/screenshot.py [--width 1400] [--height 3000] [--out docs/report.png]

Renders `curriwatch report sample_logs --format html`, opens it at the given window width,
builds every chart, points at a chart (so the legend shows hover values) and captures the top of
the page. Needs Chromium (Debian package `chromium`).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=3000)
    parser.add_argument("--out", default=str(ROOT / "docs" / "report.png"))
    args = parser.parse_args()
    import chromium

    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run([sys.executable, "-m", "curriwatch", "report", str(ROOT / "sample_logs"), "-f", "html",
                        "-o", str(page), "--fail-on", "never"], check=True)
        with chromium.Browser(args.width, args.height) as browser:  # the whole capture in the viewport
            browser.open(page)
            browser.evaluate("curriwatch.ready")
            browser.evaluate("curriwatch.renderAll()")
            # hover the first chart with incidents at two thirds of its width
            box = browser.evaluate("""(() => { const c = curriwatch.charts.find(c => c.spec.incidents && c.spec.incidents.length);
                const r = c.u.over.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()""")
            if box[1] + box[3] < args.height:
                browser.mouse("mouseMoved", box[0] + box[2] * 0.67, box[1] + box[3] * 0.5)
            browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            browser.screenshot(args.out, args.height)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
