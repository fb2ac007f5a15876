"""Raw pages in the LangGraph Store under ``(thread_id, "raw")`` (docs/architecture.md §2).

Only acquisition (search's provider raw content, fetch) writes here; extraction and
verification only read. Values are JSON-serializable so SqliteStore and PostgresStore keep them.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import BaseStore

from quotebound.errors import ConfigError, StoreError
from quotebound.storage.bytecache import memoize, str_bytes
from quotebound.text.documents import TEXT_TYPES, media_type
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page
from quotebound.tiers import TrustTier
from quotebound.urls import canonical_url, source_id

__all__ = [
    "RawPage",
    "get_raw_page",
    "is_thread_id",
    "list_raw_pages",
    "page_text",
    "parsed_page",
    "put_raw_page",
    "raw_namespace",
    "utc_now",
    "validate_thread_id",
]

_THREAD_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def is_thread_id(label: object) -> bool:
    """Whether ``label`` can be a thread id: 1-128 letters, digits, ``-`` or ``_``."""
    return isinstance(label, str) and _THREAD_ID.fullmatch(label) is not None


def validate_thread_id(thread_id: str) -> str:
    """Return ``thread_id`` if it can be a Store namespace label (letters, digits, ``-``, ``_``)."""
    if not is_thread_id(thread_id):
        raise ConfigError(
            f"thread id must be 1-128 letters, digits, '-' or '_' (no '.'), got {thread_id!r}"
        )
    return thread_id


def raw_namespace(thread_id: str) -> tuple[str, str]:
    """The Store namespace of a thread's raw pages."""
    return (validate_thread_id(thread_id), "raw")


def utc_now() -> str:
    """The current time as ISO 8601 UTC with seconds, the format of ``fetched_at``."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, kw_only=True)
class RawPage:
    """One stored source page: metadata plus exactly one kind of content."""

    url: str
    """The URL that was asked for (for corpus documents, their mapped public URL)."""
    final_url: str
    """The URL after redirects."""
    status: int
    """HTTP status, or 200 for corpus files and provider raw content."""
    content_type: str
    """The media type without parameters, e.g. ``text/html``."""
    encoding: str | None
    """The character encoding the body was decoded with (None for PDF)."""
    sha256: str
    """sha256 of the body bytes as received."""
    title: str
    """The page title, or "" when it has none."""
    trust_tier: int
    """A :class:`TrustTier` value."""
    provider: str
    """Who supplied the page: ``http``, ``corpus``, ``tavily`` ..."""
    fetched_at: str = field(default_factory=utc_now)
    """When the page was stored, ISO 8601 UTC."""
    canonical_url: str = ""
    """The canonical form of ``url`` (filled in when empty)."""
    html: str | None = None
    """Decoded markup, for HTML pages."""
    text: str | None = None
    """Text, for text-like pages (plain, Markdown, JSON, CSV) and provider raw content."""
    pages: list[str] | None = None
    """Page texts, for PDF."""
    author: str | None = None
    """Author from page metadata, when present."""
    published: str | None = None
    """Publish date from page metadata, when present."""

    def __post_init__(self) -> None:
        if not self.canonical_url:
            object.__setattr__(self, "canonical_url", canonical_url(self.url))
        if sum(x is not None for x in (self.html, self.text, self.pages)) != 1:
            raise StoreError(f"a raw page holds exactly one of html, text, pages: {self.url}")

    @property
    def source_id(self) -> str:
        """The Store key: first 16 hex of sha256(canonical URL)."""
        return source_id(self.url)

    @property
    def tier(self) -> TrustTier:
        return TrustTier(self.trust_tier)

    def to_value(self) -> dict[str, Any]:
        """The JSON-serializable Store value."""
        return {k: v for k, v in asdict(self).items() if v is not None or k == "encoding"}

    @classmethod
    def from_value(cls, value: dict[str, Any]) -> RawPage:
        """Rebuild a page from a Store value; raises StoreError on a value that is not one."""
        names = cls.__dataclass_fields__.keys()
        try:
            return cls(**{k: v for k, v in value.items() if k in names})
        except TypeError as exc:
            raise StoreError(f"store value is not a raw page: {exc}") from exc

    @staticmethod
    def body_sha256(body: bytes) -> str:
        return hashlib.sha256(body).hexdigest()


def parsed_page(page: RawPage) -> Page:
    """The parsed page that quotes are extracted from and verified against.

    HTML goes through the HTML parser; text, Markdown and PDF page texts through its text
    path (Markdown headings stay headings), so every kind of page has clean text and blocks.
    """
    if page.html is not None:
        return _parse(page.html, page.content_type)
    if page.pages is not None:
        return _parse("\n\n".join(page.pages), "text/plain")
    text_type = page.content_type if media_type(page.content_type) in TEXT_TYPES else "text/plain"
    return _parse(page.text or "", text_type)


_BLOCK_BYTES = 300
"""What one parsed block keeps alive: the object, its attributes and two offsets."""


def _page_bytes(page: Page) -> int:
    return str_bytes(page.text) + len(page.blocks) * _BLOCK_BYTES


@memoize(_page_bytes)
def _parse(content: str, content_type: str) -> Page:
    """Parsing is pure, and fetch, extraction, verification and review each need the page."""
    return parse_page(content, content_type=content_type)


async def put_raw_page(store: BaseStore, thread_id: str, page: RawPage) -> str:
    """Store ``page`` under ``(thread_id, "raw")``; returns its source id."""
    await store.aput(raw_namespace(thread_id), page.source_id, page.to_value(), index=False)
    return page.source_id


async def get_raw_page(store: BaseStore, thread_id: str, sid: str) -> RawPage | None:
    """The stored page with source id ``sid`` on this thread, or None."""
    item = await store.aget(raw_namespace(thread_id), sid)
    return None if item is None else RawPage.from_value(item.value)


async def list_raw_pages(store: BaseStore, thread_id: str, *, limit: int = 1000) -> list[RawPage]:
    """Every page stored on this thread, ordered by source id."""
    items = await store.asearch(raw_namespace(thread_id), limit=limit)
    return sorted((RawPage.from_value(i.value) for i in items), key=lambda p: p.source_id)


async def page_text(store: BaseStore, thread_id: str, sid: str) -> str:
    """The clean text of a page stored on this thread (StoreError if it is not there); the
    parse runs in a worker thread."""
    page = await get_raw_page(store, thread_id, sid)
    if page is None:
        raise StoreError(f"page {sid} is not stored on thread {thread_id}")
    return (await asyncio.to_thread(parsed_page, page)).text
