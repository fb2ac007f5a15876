"""The deployment path: a real `langgraph dev` server and the `langgraph-sdk` client, offline.

The server runs the graph that langgraph.json names, with no keys in its environment, so it
searches the embedded corpus; the client reads the run's pages back under (thread_id, "raw").
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from quotebound.evidence.verification import verify_quote
from quotebound.text.parsing import parse_page

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from devserver import ServerError, langgraph_dev  # noqa: E402  (the bench's launcher)

QUESTION = "How do I make a shallow copy of an object in Python?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        with langgraph_dev(tmp_path_factory.mktemp("langgraph-dev")) as url:
            yield url
    except ServerError as exc:
        pytest.fail(str(exc))


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
