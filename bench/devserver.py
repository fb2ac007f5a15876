"""A real ``langgraph dev`` server on loopback, for the tests and the load bench.

It serves the graph that the repository's ``langgraph.json`` names, with no provider keys in
its environment (so it searches the embedded corpus), its data under ``tmp``, and stops (its
whole process group) when the ``with`` block ends.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("TAVILY_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "LANGSMITH_API_KEY")
START_TIMEOUT_S = 180.0


class ServerError(RuntimeError):
    """The server exited or did not answer in time; the message ends with its log."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def langgraph_dev(tmp: Path) -> Iterator[str]:
    """Start the server, wait until ``/ok`` answers, yield its base URL, stop it."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME", str(tmp / "cache")),
        XDG_DATA_HOME=str(tmp / "data"),
    )
    langgraph = Path(sys.executable).with_name("langgraph")
    log_path = tmp / "server.log"
    argv = [str(langgraph), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    argv += ["--port", str(port), "--config", str(ROOT / "langgraph.json")]
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,  # langgraph.json's paths are relative to the working directory
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(proc, url, log_path)
            yield url
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


def _wait_ready(proc: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            raise ServerError(f"langgraph dev exited: {log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise ServerError(f"langgraph dev did not start: {log_path.read_text()[-3000:]}")
        time.sleep(0.5)
