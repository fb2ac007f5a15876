"""HTML and plain text to clean text with paragraph blocks (docs/architecture.md §4).

The text is what a reader sees: block elements end paragraphs (one blank line between
paragraphs), inline elements add no whitespace, a single ``<br>`` is a line break and a run of
``<br>`` ends the paragraph, whitespace (including ``&nbsp;``) is folded to one space within a
line and lines are trimmed. ``<pre>`` keeps its line breaks and indentation (trailing spaces
dropped; blank lines inside it separate paragraphs). The cells of one table row form one
paragraph, separated by a tab (empty cells leave no separator). Boilerplate (navigation,
banners, share bars, related lists, comments, footers) stays in the text, so any quote a reader
sees can still be verified; only its block's role differs.

The hot path is lexbor (selectolax, C) and one iterative walk over its tree
(:mod:`quotebound.text.html.walker`) that feeds the block builder
(:mod:`quotebound.text.html.collector`). lexbor's tree building is quadratic in nesting depth, so
markup nested deeper than browsers allow is first flattened by a linear tokenizer
(:mod:`quotebound.text.html.nesting`); its text is kept. NUL characters (HTML parsers drop them too)
and the three Unicode noncharacters used as internal marks
(:data:`~quotebound.text.html.folding.MARKS`) are removed from the input; nothing else is. The
:class:`~quotebound.text.page.Page` and its blocks are defined in :mod:`quotebound.text.page`.
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from selectolax.lexbor import LexborHTMLParser

from quotebound.text.charset import decode_bytes
from quotebound.text.documents import TEXT_TYPES, media_type
from quotebound.text.html.collector import Collector
from quotebound.text.html.folding import BR_MARK, MARKS, split_paragraphs
from quotebound.text.html.nesting import MAX_DEPTH, cap_depth, nesting_depth
from quotebound.text.html.walker import walk
from quotebound.text.page import Block, Page

__all__ = ["parse_page", "sanitize_html"]


def parse_page(html: str | bytes, *, content_type: str | None = None, roles: bool = True) -> Page:
    """Parse HTML, or text when ``content_type`` is a text type; never raises.

    ``content_type`` may be a full header (``text/html; charset=iso-8859-1``); bytes are decoded
    by BOM, header charset, ``<meta charset>``, detection, then replacement characters. With
    ``roles=False`` every block is main and no content scoring runs (the text is the same).
    """
    html, text_type = _prepare(html, content_type)
    if text_type:
        return _parse_text(html, markdown=media_type(content_type) in _MARKDOWN_TYPES)
    return _collect(html, Collector(roles=roles), Collector.page)


def sanitize_html(html: str | bytes, *, content_type: str | None = None) -> str:
    """The clean text of a page: ``parse_page(html, content_type=...).text``, without the
    blocks, roles and metadata."""
    html, text_type = _prepare(html, content_type)
    if text_type:
        return _parse_text(html).text
    return _collect(html, Collector(roles=False), Collector.text)


def _prepare(html: str | bytes, content_type: str | None) -> tuple[str, bool]:
    """The markup decoded and without the characters used as internal marks, and whether it
    is to be read as text rather than HTML."""
    if isinstance(html, bytes):
        html = decode_bytes(html, content_type=content_type)[0]
    for mark in ("\x00", *MARKS):
        html = html.replace(mark, "")
    return html, media_type(content_type) in TEXT_TYPES


_T = TypeVar("_T")


_gc_lock = threading.Lock()
_gc_walks = 0
_gc_was_enabled = False


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while any thread walks a page.

    The walk makes tens of thousands of short-lived, acyclic objects per megabyte; left on,
    the collector would sweep the host's whole heap again and again meanwhile. The switch is
    global, so walks in several threads count: the first turns the collector off and the last
    restores it as it found it, never leaving it off or turning it on for another walk."""
    global _gc_walks, _gc_was_enabled
    with _gc_lock:
        if _gc_walks == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_walks += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_walks -= 1
            if _gc_walks == 0 and _gc_was_enabled:
                gc.enable()


def _collect(html: str, collector: Collector, finish: Callable[[Collector], _T]) -> _T:
    """Walk ``html`` into ``collector`` and return ``finish(collector)``."""
    if nesting_depth(html) > MAX_DEPTH:
        html = cap_depth(html)
    # The commonest line break becomes its mark before parsing: a third fewer nodes to walk on
    # br-heavy pages. Elsewhere (attributes, scripts, titles) a mark is harmless or removed.
    html = html.replace("<br>", BR_MARK)
    with _collector_paused():
        walk(LexborHTMLParser(html, scripting=True), collector)
        return finish(collector)


# --- plain text ------------------------------------------------------------------------------


def _parse_text(text: str, *, markdown: bool = False) -> Page:
    """Text, Markdown, CSV, JSON and PDF page texts: paragraphs are runs between blank lines.

    In Markdown, an ATX heading line (``# Title``) is a heading block of its own (tag ``h1`` to
    ``h6``), so it never joins the prose after it; the first one is the title.
    """
    paragraphs = split_paragraphs(text, pre=False)
    blocks: list[Block] = []
    title = ""
    offset = 0
    for p in paragraphs:
        heading = _ATX_HEADING.match(p) if markdown else None
        if heading is not None:
            end = offset + heading.end(1)
            blocks.append(Block(offset, end, "main", f"h{len(heading.group(2))}"))
            title = title or heading.group(3).strip()
            if end + 1 < offset + len(p):
                blocks.append(Block(end + 1, offset + len(p), "main", "text"))
        else:
            blocks.append(Block(offset, offset + len(p), "main", "text"))
        offset += len(p) + 2
    return Page("\n\n".join(paragraphs), title, tuple(blocks))


_MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
_ATX_HEADING = re.compile(r"((#{1,6})[ \t]+([^\n]*))(?:\n|$)")
