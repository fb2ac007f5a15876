"""The MCP server's tools in-process (no stdio), and the command without the optional SDK."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from quotebound.graph.deps import Deps
from quotebound.interface.cli import main
from quotebound.interface.exitcodes import EXIT_USAGE
from quotebound.interface.mcptools import SNAPSHOT_CHARS, build_server
from quotebound.storage.rawstore import RawPage, parsed_page, put_raw_page
from quotebound.storage.stores import open_store

LONG = "\n\n".join(
    f"Paragraph {i} of the long page says something worth reading." for i in range(4000)
)


async def test_get_snapshot_reads_a_long_page_in_bounded_slices() -> None:
    page = RawPage(
        url="https://long.example.org/page", final_url="https://long.example.org/page",
        status=200, content_type="text/plain", encoding="utf-8", sha256="0" * 64,
        title="A long page", trust_tier=1, provider="http", text=LONG,
    )  # fmt: skip
    text = parsed_page(page).text
    assert len(text) > 2 * SNAPSHOT_CHARS
    async with open_store("memory") as handle:
        sid = await put_raw_page(handle.store, "long-1", page)
        server = build_server(handle, deps=Deps(), explicit={}, quiet=True)
        (tool,) = [t for t in await server.list_tools() if t.name == "get_snapshot"]
        assert f"At most {SNAPSHOT_CHARS} characters" in (tool.description or "")
        pieces: list[str] = []
        offset: int | None = 0
        while offset is not None:
            call = await server.call_tool(
                "get_snapshot", {"thread_id": "long-1", "source_id": sid, "offset": offset}
            )
            snapshot = call.structured_content  # type: ignore[union-attr]
            assert snapshot is not None
            assert len(snapshot["text"]) <= SNAPSHOT_CHARS
            assert snapshot["text_chars"] == len(text) and snapshot["title"] == "A long page"
            assert "html" not in snapshot and snapshot["offset"] == offset
            pieces.append(snapshot["text"])
            offset = snapshot["next_offset"]
        assert len(pieces) == 3 and "".join(pieces) == text
        with pytest.raises(ToolError, match="past the end of the text"):
            await server.call_tool(
                "get_snapshot", {"thread_id": "long-1", "source_id": sid, "offset": len(text) + 1}
            )
        with pytest.raises(ToolError, match="no page 0123456789abcdef stored on thread 'long-1'"):
            await server.call_tool(
                "get_snapshot", {"thread_id": "long-1", "source_id": "0123456789abcdef"}
            )
        with pytest.raises(ToolError, match="source id must be 16 hex digits"):
            await server.call_tool("get_snapshot", {"thread_id": "long-1", "source_id": "../x"})


def test_without_the_sdk_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [n for n in sys.modules if n.partition(".")[0] in ("mcp", "mcp_types")]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it fails as if not installed
    monkeypatch.delitem(sys.modules, "quotebound.interface.mcptools")
    assert main(["mcp", "--store", "memory"]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (
        "quotebound: error: quotebound mcp needs the MCP SDK: pip install 'quotebound[mcp]'"
    )


def test_a_corpus_that_cannot_be_read_fails_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing"
    assert main(["mcp", "--corpus", str(missing), "--store", "memory"]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"quotebound: error: corpus root does not exist: {missing}"
