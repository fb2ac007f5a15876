"""The tools ``quotebound mcp`` serves, built on the official ``mcp`` SDK (an optional extra).

``research`` runs the graph as ``quotebound research`` does and answers with the Markdown report
and its findings, each quote verified against the page the run stored; ``verify_quote`` checks
one quote with the deterministic verifier against a page fetched now or stored by a thread;
``get_snapshot`` returns a stored page's metadata and clean text (the text quotes are verified
against), in slices of at most :data:`SNAPSHOT_CHARS` characters. A failed call is a tool error
whose message is one line, never a traceback; progress goes to stderr, since stdout carries the
protocol.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import uuid
from typing import Annotated, Any

from mcp.server.mcpserver import Context as CallContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from quotebound.context import PROVIDERS, Profile, make_context
from quotebound.errors import ConfigError, QuoteboundError
from quotebound.evidence.verification import verify_quote
from quotebound.graph.deps import Deps
from quotebound.graph.state import validate_question
from quotebound.interface.commands import research_in, url_page
from quotebound.interface.progress import Progress
from quotebound.storage.rawstore import (
    RawPage,
    get_raw_page,
    list_raw_pages,
    parsed_page,
    validate_thread_id,
)
from quotebound.storage.stores import StoreHandle
from quotebound.urls import source_id as url_source_id

__all__ = ["MAX_QUOTE_CHARS", "SNAPSHOT_CHARS", "build_server"]

SNAPSHOT_CHARS = 100_000
"""Most characters of page text one ``get_snapshot`` call returns; ``offset`` reads on."""
MAX_QUOTE_CHARS = 10_000
"""Longest quote ``verify_quote`` takes (a finding's quote is a paragraph or less)."""

_SOURCE_ID = re.compile(r"[0-9a-f]{16}")
_CONTENT_KEYS = ("html", "text", "pages")


class _Server(MCPServer):
    """An MCP server whose failed tool calls say in one line what went wrong.

    Bad arguments name the argument and the rule; a quotebound error (a bad thread id, a page
    that is not stored, a fetch that failed) gives its own message. Anything else stays a crash:
    the client sees only the SDK's generic message and the traceback goes to stderr.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: CallContext[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            message = _one_line(exc)
            if message is None:
                raise
            raise ToolError(message) from exc


def _one_line(exc: ToolError) -> str | None:
    """What the client is told of a failed call, or None for a crash."""
    cause = exc.__cause__
    if isinstance(cause, ValidationError):
        text = "invalid arguments: " + "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'arguments'}: {error['msg']}"
            for error in cause.errors()
        )
    elif isinstance(cause, QuoteboundError):
        text = str(cause)
    elif isinstance(exc, UnexpectedToolError):
        return None
    else:
        text = str(exc)  # the SDK's own: an unknown tool
    lines = text.strip().splitlines()
    return lines[0] if lines else type(cause or exc).__name__


def build_server(
    handle: StoreHandle, *, deps: Deps, explicit: dict[str, Any], quiet: bool
) -> MCPServer:
    """The MCP server: its tools run on ``handle``'s Store and checkpointer, research runs with
    ``explicit`` settings (the command's ``--corpus`` and ``--base-url``) and shows progress
    on stderr unless ``quiet``."""
    server = _Server(
        name="quotebound",
        instructions=(
            "Research answers made only of verbatim quotes that a deterministic verifier matched "
            "against the page each run stored. Call research with a question; check any quote "
            "with verify_quote; read a stored page with get_snapshot."
        ),
    )

    @server.tool(
        annotations=ToolAnnotations(
            title="Research a question", read_only_hint=False, destructive_hint=False
        ),
        structured_output=True,
    )
    async def research(
        question: Annotated[str, Field(description="The question to research.")],
        profile: Annotated[
            Profile | None,
            Field(description="'chat' (fast, the default) or 'deep' (more rounds and sources)."),
        ] = None,
        providers: Annotated[
            str | None,
            Field(
                description="Search providers in ladder order, comma-separated: 'auto' (the "
                "default) or some of " + ", ".join(PROVIDERS) + "."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        """Research a question and answer only with verbatim quotes verified against the pages
        the run fetched and stored. Returns the Markdown report, then (as JSON and as structured
        content) the thread id, status, answer and findings: each finding's claim, quote, url,
        title, source_id and verification (status PASS, method, offsets into the stored page's
        text), and the sources read. Use thread_id and source_id with get_snapshot and
        verify_quote."""
        question = validate_question(question)
        context = make_context(profile, provider=providers, **explicit)
        thread_id = uuid.uuid4().hex
        with Progress(sys.stderr, enabled=not quiet) as progress:
            result = await research_in(handle, question, thread_id, context, deps, progress)
            progress.note(f"status {result.get('status')}; thread {thread_id}")
        return _research_result(result)

    @server.tool(
        name="verify_quote",
        annotations=ToolAnnotations(title="Verify a quote", read_only_hint=True),
        structured_output=True,
    )
    async def verify(
        quote: Annotated[
            str, Field(description="The quote to check, as given.", max_length=MAX_QUOTE_CHARS)
        ],
        url: Annotated[
            str | None,
            Field(
                description="Without thread_id: an http(s) page fetched now (public addresses "
                "only). With thread_id: the URL of a page that thread stored."
            ),
        ] = None,
        thread_id: Annotated[
            str | None, Field(description="Check against a page this research run stored.")
        ] = None,
        source_id: Annotated[
            str | None, Field(description="With thread_id: the stored page's source id.")
        ] = None,
    ) -> dict[str, Any]:
        """Check a quote against a page with quotebound's deterministic verifier (no model):
        exact, then normalized (Unicode, quotes, dashes, whitespace), then a strict fuzzy match
        that keeps word order, numbers and negations. Give url (fetched now), or thread_id with
        source_id or url (the page that run stored). Returns status PASS or FAIL, method, score,
        start and end offsets in the page's clean text, the matched text and, on FAIL, a reason
        code (not_found, low_similarity, number_mismatch, negation_mismatch, word_mismatch,
        order_mismatch, too_short)."""
        page = await _page_to_check(handle, url, thread_id, source_id)
        text = (await asyncio.to_thread(parsed_page, page)).text
        verdict = await asyncio.to_thread(verify_quote, quote, text)
        return {
            "source": page.url,
            "source_id": page.source_id,
            "thread_id": thread_id,
            **verdict.to_dict(),
        }

    @server.tool(
        annotations=ToolAnnotations(
            title="Read a stored page", read_only_hint=True, open_world_hint=False
        ),
        structured_output=True,
    )
    async def get_snapshot(
        thread_id: Annotated[str, Field(description="The research run's thread id.")],
        source_id: Annotated[str, Field(description="The page's source id (16 hex digits).")],
        offset: Annotated[
            int, Field(ge=0, description="Where in the page's text to start (0, or next_offset).")
        ] = 0,
    ) -> dict[str, Any]:
        """A page a research run stored: its metadata (url, final_url, title, status,
        content_type, fetched_at, sha256 of the body as received, trust_tier, provider) and its
        clean text, the text quotes are verified against (a finding's verification offsets
        index into it). At most 100000 characters of text per call: text_chars is the whole
        length and next_offset, when not null, is where the next call reads on."""
        page = await _stored_page(handle, thread_id, source_id)
        text = (await asyncio.to_thread(parsed_page, page)).text
        if offset > len(text):
            raise ConfigError(f"offset {offset} is past the end of the text ({len(text)} chars)")
        piece = text[offset : offset + SNAPSHOT_CHARS]
        end = offset + len(piece)
        metadata = {k: v for k, v in page.to_value().items() if k not in _CONTENT_KEYS}
        return {
            **metadata,
            "thread_id": thread_id,
            "source_id": page.source_id,
            "offset": offset,
            "text": piece,
            "text_chars": len(text),
            "next_offset": end if end < len(text) else None,
        }

    return server


def _research_result(result: dict[str, Any]) -> CallToolResult:
    """The report for reading, and the run's outcome as structured content (and as JSON, for
    clients that show a model only text)."""
    findings = [{**f, "source_id": url_source_id(f["url"])} for f in result.get("findings") or []]
    outcome = {
        "thread_id": result.get("thread_id"),
        "status": result.get("status"),
        "question": result.get("question"),
        "answer": result.get("answer"),
        "grounding_confidence": result.get("grounding_confidence"),
        "findings": findings,
        "sources": result.get("sources") or [],
    }
    report = str(result.get("report_markdown") or "")
    return CallToolResult(
        content=[
            TextContent(type="text", text=report),
            TextContent(type="text", text=json.dumps(outcome, ensure_ascii=False, indent=2)),
        ],
        structured_content={**outcome, "report_markdown": report},
    )


async def _page_to_check(
    handle: StoreHandle, url: str | None, thread_id: str | None, sid: str | None
) -> RawPage:
    """The page ``verify_quote`` checks against: stored by ``thread_id`` (named by source id
    or URL), or fetched now from ``url``."""
    if thread_id is not None:
        if sid is None and url is not None:
            sid = url_source_id(url)
        elif sid is None or url is not None:
            raise ConfigError("with thread_id, give exactly one of source_id and url")
        return await _stored_page(handle, thread_id, sid)
    if sid is not None:
        raise ConfigError("source_id needs thread_id, the run that stored the page")
    if url is None:
        raise ConfigError("give url, or thread_id with source_id or url")
    return await url_page(url)


async def _stored_page(handle: StoreHandle, thread_id: str, sid: str) -> RawPage:
    thread_id = validate_thread_id(thread_id)
    if not _SOURCE_ID.fullmatch(sid):
        raise ConfigError(f"source id must be 16 hex digits, got {sid!r}")
    page = await get_raw_page(handle.store, thread_id, sid)
    if page is not None:
        return page
    if not await list_raw_pages(handle.store, thread_id, limit=1):
        raise ConfigError(
            f"no pages stored for thread id {thread_id!r} in {handle.uri} "
            "(never run there, or pruned)"
        )
    raise ConfigError(f"no page {sid} stored on thread {thread_id!r}")
