"""Headless Chromium for the HTML tests and benchmark, driven over the Chrome DevTools protocol on
a pipe (`--remote-debugging-pipe`: commands on fd 3, replies on fd 4; no port, no websocket).

Every step waits for Chromium's own reply: a page is loaded when `Page.loadEventFired` arrives,
input events (`Input.dispatchMouseEvent`, `dispatchKeyEvent`) return once the page has handled
them, and `evaluate` awaits a script's promise, so tests read state without sleeping or polling.
Started with the flags this machine's closed network needs, a fresh profile each time."""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--force-device-scale-factor=1"]
SHIFT = 8  # CDP modifier bit


def find() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _above_4(fd: int) -> int:
    """`fd` moved to a number above 4, so the child's redirections to 3 and 4 cannot clobber it."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page (tab). Use as a context manager."""

    def __init__(self, width: int = 1400, height: int = 900, timeout: float = 60):
        self.timeout, self._next, self._buffer, self.events = timeout, 0, b"", []
        self._profile = tempfile.TemporaryDirectory()
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        to_chrome_r, from_chrome_w = (_above_4(fd) for fd in (to_chrome_r, from_chrome_w))
        # fds 3 and 4 in the child, whatever numbers the pipes have here
        shell = f'exec "$@" 3<&{to_chrome_r} 4>&{from_chrome_w} {to_chrome_r}<&- {from_chrome_w}>&-'
        self.proc = subprocess.Popen(
            ["bash", "-c", shell, "bash", find(), *FLAGS, "--remote-debugging-pipe",
             f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}", "about:blank"],
            pass_fds=(to_chrome_r, from_chrome_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE if os.environ.get("CW_DEBUG") else subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.page("Page.enable")
        self.page("Runtime.enable")
        self.resize(width, height)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        self._profile.cleanup()

    # protocol
    def send(self, method: str, session: str | None = None, **params) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def page(self, method: str, **params) -> dict:
        return self.send(method, self.session, **params)

    def _read(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise BrowserError(f"no reply from Chromium within {self.timeout} s")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def wait_event(self, method: str) -> dict:
        while True:
            for i, ev in enumerate(self.events):
                if ev["method"] == method:
                    return self.events.pop(i)
            self.events.append(self._read())

    # page helpers
    def resize(self, width: int, height: int = 900) -> None:
        self.width, self.height = width, height
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def open(self, path) -> None:
        """Load a file and wait for its load event."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.page("Page.navigate", url=Path(path).resolve().as_uri())
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression (promises awaited); a thrown error raises."""
        result = self.page("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or details.get("text"))
        return result["result"].get("value")

    def mouse(self, kind: str, x: float, y: float, button: str = "none", clicks: int = 0, modifiers: int = 0,
              **extra) -> None:
        """kind: mouseMoved | mousePressed | mouseReleased | mouseWheel (deltaX=, deltaY=)."""
        self.page("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button, clickCount=clicks,
                  modifiers=modifiers, **extra)

    def drag(self, x0: float, y0: float, x1: float, y1: float, modifiers: int = 0) -> None:
        self.mouse("mouseMoved", x0, y0, modifiers=modifiers)
        self.mouse("mousePressed", x0, y0, "left", 1, modifiers)
        for i in range(1, 6):
            self.mouse("mouseMoved", x0 + (x1 - x0) * i / 5, y0 + (y1 - y0) * i / 5, "left", modifiers=modifiers,
                       buttons=1)
        self.mouse("mouseReleased", x1, y1, "left", 1, modifiers)

    def key(self, key: str, code: str, keycode: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.page("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode=keycode)

    def screenshot(self, png, full_height: int | None = None) -> None:
        """A PNG of the page from its top, `full_height` CSS px tall (default: the viewport)."""
        height = full_height or self.height
        # beyond the viewport only when needed: that capture lays the page out again (hover is lost)
        shot = self.page("Page.captureScreenshot", format="png", captureBeyondViewport=height > self.height,
                         clip={"x": 0, "y": 0, "width": self.width, "height": height, "scale": 1})
        Path(png).write_bytes(base64.b64decode(shot["data"]))
