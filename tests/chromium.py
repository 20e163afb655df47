"""Headless Chromium for the HTML tests and benchmark: found on PATH, started with the flags this
machine's closed network needs (no background networking), a fresh profile each time."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import tempfile

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--mute-audio"]


def find() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def run(url: str, *extra: str, timeout: int = 120) -> subprocess.CompletedProcess:
    binary = find()
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                              capture_output=True, text=True, timeout=timeout)


def dump_dom(path) -> str:
    """The DOM after the page's scripts ran."""
    return run(f"file://{path}", "--virtual-time-budget=5000", "--dump-dom").stdout


def body_data(dom: str) -> dict[str, str]:
    """The data-* attributes the page's script left on <body>."""
    m = re.search(r"<body([^>]*)>", dom)
    return {k: html.unescape(v) for k, v in re.findall(r'data-([\w-]+)="([^"]*)"', m.group(1))} if m else {}


def screenshot(path, png, width: int = 1200, height: int = 2200) -> None:
    run(f"file://{path}", f"--window-size={width},{height}", f"--screenshot={png}")
