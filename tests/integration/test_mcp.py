"""``quotebound mcp`` driven by the MCP SDK's own client over stdio, offline, on a local corpus.

One server process serves every call of the session; the tests read what it answered.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from keyless import keyless_env
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, Tool
from tern import BASE, CORPUS

pytestmark = pytest.mark.integration

QUOTEBOUND = str(Path(sys.executable).with_name("quotebound"))
QUESTION = "How many connections does the Tern pool keep per host, and when are idle ones closed?"


@dataclass(frozen=True)
class Session:
    """What one server answered, call by call."""

    tools: dict[str, Tool]
    research: CallToolResult
    calls: dict[str, CallToolResult]
    stderr: str

    @property
    def outcome(self) -> dict[str, Any]:
        assert self.research.structured_content is not None, self.research
        return self.research.structured_content


def _tampered(quote: str) -> str:
    """The quote with its middle word swapped for another: a misquote."""
    words = quote.split()
    words[len(words) // 2] = "purple"
    return " ".join(words)


async def _session(home: Path) -> Session:
    store = f"sqlite:{home / 'runs.sqlite'}"
    server = StdioServerParameters(
        command=QUOTEBOUND,
        args=["mcp", "--corpus", str(CORPUS), "--base-url", BASE, "--store", store],
        env=keyless_env(home),
        cwd=str(home),
    )
    calls: dict[str, CallToolResult] = {}
    with (home / "stderr.txt").open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=120) as client,
        ):
            await client.initialize()
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            research = await client.call_tool("research", {"question": QUESTION})
            outcome = research.structured_content or {}
            thread = outcome.get("thread_id", "")
            finding = (outcome.get("findings") or [{}])[0]
            fetched = [s for s in outcome.get("sources", []) if s["fetch_status"] == "fetched"]
            quote, sid = finding.get("quote", ""), finding.get("source_id", "")
            asks: dict[str, tuple[str, dict[str, Any]]] = {
                "true": ("verify_quote", {"quote": quote, "thread_id": thread, "source_id": sid}),
                "tampered": (
                    "verify_quote",
                    {"quote": _tampered(quote), "thread_id": thread, "url": finding.get("url")},
                ),
                "snapshot": (
                    "get_snapshot",
                    {"thread_id": thread, "source_id": fetched[-1]["source_id"] if fetched else ""},
                ),
                "cited": ("get_snapshot", {"thread_id": thread, "source_id": sid}),
                "unknown thread": ("get_snapshot", {"thread_id": "nobody", "source_id": sid}),
                "bad thread id": ("verify_quote", {"quote": quote, "thread_id": "a.b", "url": "x"}),
                "no source": ("verify_quote", {"quote": quote}),
                "loopback url": ("verify_quote", {"quote": quote, "url": "http://127.0.0.1:9/"}),
                "bad profile": ("research", {"question": QUESTION, "profile": "huge"}),
                "blank question": ("research", {"question": "   "}),
            }
            for name, (tool, arguments) in asks.items():
                calls[name] = await client.call_tool(tool, arguments)
    stderr = (home / "stderr.txt").read_text(encoding="utf-8")
    return Session(tools, research, calls, stderr)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return asyncio.run(_session(tmp_path_factory.mktemp("mcp")))


def test_lists_three_tools_with_their_schemas(session: Session) -> None:
    assert set(session.tools) == {"research", "verify_quote", "get_snapshot"}
    schemas = {name: tool.input_schema for name, tool in session.tools.items()}
    assert schemas["research"]["required"] == ["question"]
    assert set(schemas["research"]["properties"]) == {"question", "profile", "providers"}
    assert set(schemas["verify_quote"]["properties"]) == {"quote", "url", "thread_id", "source_id"}
    assert set(schemas["get_snapshot"]["required"]) == {"thread_id", "source_id"}
    assert all(tool.description for tool in session.tools.values())


def test_research_answers_with_verified_quotes(session: Session) -> None:
    assert not session.research.is_error, session.research.content
    outcome = session.outcome
    assert outcome["status"] == "answered", session.stderr
    assert outcome["findings"]
    assert any("ten connections per host" in f["quote"] for f in outcome["findings"])
    for finding in outcome["findings"]:
        assert finding["url"].startswith(BASE) and finding["title"]
        assert finding["verification"]["status"] == "PASS"
        assert finding["source_id"] in {s["source_id"] for s in outcome["sources"]}
    report, summary = (block.text for block in session.research.content)  # type: ignore[union-attr]
    assert report == outcome["report_markdown"] and "## Verified findings" in report
    assert json.loads(summary)["thread_id"] == outcome["thread_id"]
    assert "[verify_evidence]" in session.stderr  # progress went to stderr, not the protocol


def test_verify_quote_passes_a_true_quote_and_fails_a_tampered_one(session: Session) -> None:
    finding = session.outcome["findings"][0]
    true, tampered = session.calls["true"], session.calls["tampered"]
    assert not true.is_error and not tampered.is_error
    assert true.structured_content is not None and tampered.structured_content is not None
    assert true.structured_content["status"] == "PASS"
    assert true.structured_content["matched_text"] == finding["quote"]
    assert true.structured_content["source"] == finding["url"]
    assert tampered.structured_content["status"] == "FAIL"
    assert tampered.structured_content["reason"] == "word_mismatch"


def test_get_snapshot_returns_the_stored_page_and_its_text(session: Session) -> None:
    for call in (session.calls["snapshot"], session.calls["cited"]):
        assert not call.is_error, call.content
        snapshot = call.structured_content
        assert snapshot is not None
        assert snapshot["url"].startswith(BASE) and snapshot["provider"] == "corpus"
        assert len(snapshot["sha256"]) == 64 and snapshot["fetched_at"]
        assert snapshot["text_chars"] == len(snapshot["text"]) and snapshot["next_offset"] is None
    finding = session.outcome["findings"][0]
    cited = session.calls["cited"].structured_content or {}
    span = finding["verification"]
    assert cited["text"][span["start"] : span["end"]] == finding["quote"]  # the exact match


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("unknown thread", "no pages stored for thread id 'nobody'"),
        ("bad thread id", "thread id must be 1-128 letters"),
        ("no source", "give url, or thread_id with source_id or url"),
        ("loopback url", "blocked_ssrf"),
        ("bad profile", "invalid arguments: profile: Input should be 'chat' or 'deep'"),
        ("blank question", "question must be a non-empty string"),
    ],
)
def test_errors_are_one_line_tool_errors(session: Session, name: str, message: str) -> None:
    call = session.calls[name]
    assert call.is_error
    (block,) = call.content
    text = block.text  # type: ignore[union-attr]
    assert message in text and "\n" not in text and "Traceback" not in text
