"""Debian's headless Chromium for tests: screenshots, and a page opened through the Chrome
DevTools Protocol (over its WebSocket) to read what the browser did with a URL.

Tests that need it carry :data:`needs_chromium`, which skips them, saying why, only when
``/usr/bin/chromium`` is absent (``make chromium`` installs it, as root).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import pytest
import websockets

__all__ = ["CHROMIUM", "Chromium", "needs_chromium", "screenshot"]

CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed at /usr/bin/chromium (as root: make chromium)",
)
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars"]


def screenshot(target: str, out: Path, *, width: int = 1100, height: int = 1500) -> Path:
    """A PNG of ``target`` (a URL) as Chromium renders it in a window of that size."""
    profile = tempfile.TemporaryDirectory()
    proc = subprocess.Popen(
        [str(CHROMIUM), *_FLAGS, f"--user-data-dir={profile.name}",
         f"--window-size={width},{height}", f"--screenshot={out}", target],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        if proc.wait(timeout=120) != 0:
            raise subprocess.CalledProcessError(proc.returncode, proc.args)
    finally:
        _stop(proc, profile)
    return out


def _stop(proc: subprocess.Popen[bytes], profile: tempfile.TemporaryDirectory[str]) -> None:
    """End Chromium and every helper process it started (they share its session's process
    group, and a helper still writing into the profile would make its removal fail), then
    remove the profile."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    profile.cleanup()


class Chromium:
    """A headless Chromium with one tab, driven through the DevTools Protocol."""

    def __init__(self, *, width: int = 1000, height: int = 800) -> None:
        self._profile = tempfile.TemporaryDirectory()
        self._proc = subprocess.Popen(
            [str(CHROMIUM), *_FLAGS, "--remote-debugging-port=0",
             f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        self._ids = itertools.count(1)
        self._ws: Any = None

    async def __aenter__(self) -> Self:
        port = self._port()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        tab = next(t for t in targets if t["type"] == "page")
        self._ws = await websockets.connect(tab["webSocketDebuggerUrl"], max_size=None)
        await self.call("Page.enable")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._ws is not None:
            await self._ws.close()
        _stop(self._proc, self._profile)

    def _port(self) -> str:
        """The debugging port Chromium chose, from the file it writes in its profile."""
        active = Path(self._profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if active.exists() and "\n" in active.read_text():
                return active.read_text().split()[0]
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its DevTools port within 30 s")

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result (events meanwhile are dropped)."""
        ident = next(self._ids)
        await self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(await asyncio.wait_for(self._ws.recv(), 30))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message["result"])

    async def open(self, url: str) -> None:
        """Navigate the tab to ``url`` (as a user typing it would) and wait for the load."""
        await self.call("Page.navigate", url=url)
        await self.until("document.readyState === 'complete'")

    async def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the tab."""
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def until(self, expression: str, *, timeout: float = 10) -> bool:
        """Whether ``expression`` became true within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if await self.evaluate(expression):
                return True
            await asyncio.sleep(0.05)
        return False
