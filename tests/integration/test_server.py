"""The deployment path: a real `langgraph dev` server and the `langgraph-sdk` client, offline.

The server runs the graph that langgraph.json names, with no keys in its environment, so it
searches the embedded corpus; the client reads the run's pages back under (thread_id, "raw").
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
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from quotebound.parsing import parse_page
from quotebound.verification import verify_quote

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How do I make a shallow copy of an object in Python?"
KEYS = ("TAVILY_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "LANGSMITH_API_KEY")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("langgraph-dev")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env.update(
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME", str(tmp / "cache")),
        XDG_DATA_HOME=str(tmp / "data"),
    )
    langgraph = Path(sys.executable).with_name("langgraph")
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            str(langgraph),
            "dev",
            "--no-browser",
            "--no-reload",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--config",
            str(ROOT / "langgraph.json"),
        ],
        cwd=ROOT,  # langgraph.json's paths are relative to the working directory
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"langgraph dev exited: {(tmp / 'server.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/ok", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"langgraph dev did not start: {(tmp / 'server.log').read_text()[-3000:]}"
                )
            time.sleep(0.5)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()


async def test_sdk_runs_research_and_reads_pages_from_the_store(server: str) -> None:
    client = get_client(url=server)
    thread = await client.threads.create()
    tid = thread["thread_id"]
    events = []
    async for part in client.runs.stream(
        tid, "research", input={"question": QUESTION}, stream_mode=["custom", "values"]
    ):
        if part.event == "custom":
            events.append(part.data)
    state = await client.threads.get_state(tid)
    out = state["values"]
    assert out["status"] == "answered", out.get("report_markdown")
    assert out["findings"]
    phases = [e["phase"] for e in events]
    assert phases[0] == "check_store" and phases[-1] == "finalize"

    items = (await client.store.search_items((tid, "raw"), limit=100))["items"]
    pages = {i["value"]["url"]: i["value"] for i in items}
    assert pages
    for f in out["findings"]:
        page = pages[f["url"]]  # every cited URL was fetched into this thread's namespace
        text = parse_page(page["html"], content_type=page["content_type"]).text
        assert text[f["verification"]["start"] : f["verification"]["end"]] == f["quote"]
        assert verify_quote(f["quote"], text).status == "PASS"

    other = await client.threads.create()
    assert (await client.store.search_items((other["thread_id"], "raw")))["items"] == []
