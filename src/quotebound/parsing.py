"""HTML and plain text to clean text with paragraph blocks (DESIGN §4, issue 2 §2).

The text is what a reader sees: block elements end paragraphs (one blank line between
paragraphs), inline elements add no whitespace, a single ``<br>`` is a line break and a run of
``<br>`` ends the paragraph, whitespace (including ``&nbsp;``) is folded to one space within a
line. ``<pre>`` keeps its line breaks and indentation (trailing spaces dropped). Table cells of
one row form one paragraph, separated by `` | ``. Boilerplate (navigation, banners, share bars,
related lists, comments, footers) stays in the text, so any quote a reader sees can still be
verified; only its block's role differs.

The hot path walks lexbor's tree (selectolax, C) once, without recursion. Markup nested deeper
than lexbor handles in linear time goes through the standard library's tokenizer instead; both
feed the same :class:`_TextBuilder`, so they agree on every rule. NUL characters are dropped (the
HTML parser drops them too); nothing else is.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser
from itertools import accumulate
from typing import Any, Literal

from selectolax.lexbor import LexborHTMLParser

from quotebound.charset import decode_bytes
from quotebound.documents import TEXT_TYPES, media_type

__all__ = ["Block", "Page", "Role", "parse_page", "sanitize_html"]

Role = Literal["main", "boilerplate"]


@dataclass(frozen=True)
class Block:
    """One paragraph of :attr:`Page.text`."""

    start: int
    """Offset of the paragraph's first character in ``Page.text``."""
    end: int
    """Offset just past its last character: ``Page.text[start:end]`` is the paragraph."""
    role: Role
    """``"main"`` content or ``"boilerplate"`` (navigation, banners, comments, ...)."""
    tag: str
    """The block element it came from (``p``, ``li``, ``pre``, ``tr`` for a table row,
    ``h2`` ...); ``"text"`` for plain text."""


@dataclass(frozen=True)
class Page:
    """A parsed page: clean text, title, paragraph blocks and a little metadata."""

    text: str
    """Clean text; paragraphs are separated by one blank line."""
    title: str
    """From ``<title>``, else the first ``<h1>``; "" when there is neither."""
    blocks: tuple[Block, ...]
    """Every paragraph, in document order, non-overlapping."""
    author: str | None = None
    """From ``<meta name=author>``, JSON-LD or ``article:author``."""
    published: str | None = None
    """From ``article:published_time``, ``<meta name=date>``, JSON-LD or ``<time datetime>``."""


def parse_page(html: str | bytes, *, content_type: str | None = None) -> Page:
    """Parse HTML, or text when ``content_type`` is a text type; never raises.

    ``content_type`` may be a full header (``text/html; charset=iso-8859-1``); bytes are decoded
    by BOM, header charset, ``<meta charset>``, detection, then replacement characters.
    """
    if isinstance(html, bytes):
        html = decode_bytes(html, content_type=content_type)[0]
    html = html.replace("\x00", "")
    if media_type(content_type) in TEXT_TYPES:
        return _parse_text(html)
    builder = _TextBuilder()
    if _naive_depth(html) > _MAX_FAST_DEPTH:
        _walk_stdlib(html, builder)
    else:
        _walk_lexbor(LexborHTMLParser(html), builder)
    return builder.page()


def sanitize_html(html: str | bytes, *, content_type: str | None = None) -> str:
    """The clean text of a page: ``parse_page(html, content_type=...).text``."""
    return parse_page(html, content_type=content_type).text


# --- element classes -------------------------------------------------------------------------

_BLOCK_TAGS = frozenset(
    """address article aside blockquote body caption center colgroup dd details dialog dir div
    dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr
    html legend li listing main menu nav ol optgroup option p plaintext pre search section
    select summary table tbody textarea tfoot thead tr ul xmp""".split()
)
_CELL_TAGS = frozenset({"td", "th"})
_PRE_TAGS = frozenset({"pre", "listing", "plaintext", "xmp", "textarea"})
_DROP_TAGS = frozenset(
    """script style noscript template svg iframe object canvas title annotation
    annotation-xml datalist""".split()
)
_VOID_TAGS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
_BOILERPLATE_TAGS = frozenset({"nav", "aside", "footer", "menu", "dialog"})
_BOILERPLATE_ROLES = frozenset(
    """navigation banner contentinfo complementary search menu menubar toolbar dialog
    alertdialog""".split()
)
_BOILERPLATE_TOKENS = frozenset(
    """nav navbar navigation menu menubar topbar masthead header footer cookie cookies consent
    gdpr banner share sharing sharebar social related recommended recirculation comments
    comment disqus newsletter subscribe subscription signup sidebar sphinxsidebar
    sphinxsidebarwrapper breadcrumb breadcrumbs ad ads advert advertisement sponsored promo
    skip skiplink toolbar pagination pager widget popup modal""".split()
)
_CLASS_TOKEN = re.compile(r"[a-z0-9]+")
_LINK_DENSITY = 0.5
"""A paragraph whose text is at least this share link text is boilerplate (link lists)."""

# Flags an element sets while it is open (bit mask on the builder's stack).
_SKIP, _BOILER, _MAIN, _PRE, _LINK, _ARTICLE, _CAPTURE, _BLOCK = (1 << i for i in range(8))

_BR = "\x00"
"""Marks a ``<br>`` inside a paragraph; NUL cannot occur in the text (it is removed first)."""


# --- choosing the path -----------------------------------------------------------------------

_MAX_FAST_DEPTH = 512
"""Above this nesting lexbor's tree building turns quadratic (it scans the open-element stack
per tag), so deeper markup takes the linear standard-library path. Browsers cap depth at 512."""

# Start or end tags of elements that can nest; void elements and elements that close their own
# kind (p, li, td, ...) cannot build depth.
_NESTING_TAG = re.compile(
    r"<(/?)(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr|p|li|dt"
    r"|dd|tr|td|th|option|optgroup|tbody|thead|tfoot)[\s/>])[a-zA-Z]",
    re.I,
)
_DEPTH_STEP = {"": 1, "/": -1}


def _naive_depth(html: str) -> int:
    """An upper bound on the nesting depth of ``html``'s elements, computed at C speed."""
    return max(accumulate(map(_DEPTH_STEP.__getitem__, _NESTING_TAG.findall(html))), default=0)


# --- the builder both paths feed -------------------------------------------------------------


class _TextBuilder:
    """Turns start/end/text events into paragraphs, roles and metadata.

    Events may be unbalanced (the standard-library tokenizer builds no tree): an end tag closes
    the nearest open element of its name, or is ignored when none is open; every step is O(1)
    amortized, whatever the depth.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[str, int]] = []
        self._open: Counter[str] = Counter()
        self._skip = self._boiler = self._main = self._pre = self._link = self._article = 0
        self._blocks: list[str] = []
        self._capture: list[str] | None = None
        self._capture_tag = ""
        self._parts: list[str] = []
        self._has_text = False
        self._link_chars = 0
        self._para_tag = "body"
        self._para_boiler = False
        self._para_main = False
        self._paragraphs: list[tuple[str, bool, bool, str]] = []
        self._title: str | None = None
        self._h1: str | None = None
        self._meta: dict[str, str] = {}
        self._time: str | None = None
        self._ld_json: list[str] = []

    def start(self, tag: str, attrs: dict[str, str | None]) -> None:
        if tag in _VOID_TAGS:
            self._void(tag, attrs)
            return
        flags = 0
        if self._skip or tag in _DROP_TAGS:
            flags = _SKIP if self._skip else _SKIP | self._drop_start(tag, attrs)
        elif tag in _BLOCK_TAGS:
            self._flush()
            flags = self._block_flags(tag, attrs)
        elif tag in _CELL_TAGS:
            if self._has_text:
                self._parts.append(" | ")
                self._para_tag = "tr"
            flags = self._block_flags(tag, attrs)
        elif tag == "a" and attrs.get("href") is not None:
            flags = _LINK
        elif tag == "time" and self._time is None and attrs.get("datetime"):
            self._time = attrs["datetime"]
        self._push(tag, flags)

    def end(self, tag: str) -> None:
        if not self._open[tag]:
            if tag in _BLOCK_TAGS and not self._skip:
                self._flush()
            return
        while True:
            name, flags = self._stack.pop()
            self._open[name] -= 1
            if flags & _BLOCK and name not in _CELL_TAGS:
                self._flush()
            if flags:
                self._pop_flags(flags)
            if name == tag:
                return

    def text(self, data: str) -> None:
        if self._skip:
            if self._capture is not None:
                self._capture.append(data)
            return
        self._parts.append(data)
        if not self._has_text and not data.isspace():
            self._has_text = True
            self._para_boiler = self._boiler > 0
            self._para_main = self._main > 0
            self._para_tag = self._blocks[-1] if self._blocks else "body"
        if self._link:
            self._link_chars += len(data.strip())

    def page(self) -> Page:
        """Close everything still open and assemble the page."""
        while self._stack:
            self.end(self._stack[-1][0])
        self._flush()
        any_main = any(main for _, _, main, _ in self._paragraphs)
        texts: list[str] = []
        blocks: list[Block] = []
        offset = 0
        for text, boiler, main, tag in self._paragraphs:
            role: Role = "boilerplate" if boiler or (any_main and not main) else "main"
            blocks.append(Block(offset, offset + len(text), role, tag))
            texts.append(text)
            offset += len(text) + 2
        author, published = self._metadata()
        title = _fold(self._title or "") or self._h1 or ""
        return Page("\n\n".join(texts), title, tuple(blocks), author, published)

    # -- helpers --

    def _push(self, tag: str, flags: int) -> None:
        self._stack.append((tag, flags))
        self._open[tag] += 1
        if flags:
            self._skip += bool(flags & _SKIP)
            self._boiler += bool(flags & _BOILER)
            self._main += bool(flags & _MAIN)
            self._pre += bool(flags & _PRE)
            self._link += bool(flags & _LINK)
            self._article += bool(flags & _ARTICLE)
            if flags & _BLOCK:
                self._blocks.append(tag)

    def _pop_flags(self, flags: int) -> None:
        self._skip -= bool(flags & _SKIP)
        self._boiler -= bool(flags & _BOILER)
        self._main -= bool(flags & _MAIN)
        self._pre -= bool(flags & _PRE)
        self._link -= bool(flags & _LINK)
        self._article -= bool(flags & _ARTICLE)
        if flags & _BLOCK:
            self._blocks.pop()
        if flags & _CAPTURE and self._capture is not None:
            if self._title is None and self._capture_tag == "title":
                self._title = "".join(self._capture)
            elif self._capture_tag == "script":
                self._ld_json.append("".join(self._capture))
            self._capture = None

    def _void(self, tag: str, attrs: dict[str, str | None]) -> None:
        if self._skip:
            return
        if tag == "br":
            self._parts.append(_BR)
        elif tag == "hr":
            self._flush()
        elif tag == "meta":
            key = attrs.get("name") or attrs.get("property") or attrs.get("itemprop")
            content = attrs.get("content")
            if key and content:
                self._meta.setdefault(key.strip().lower(), content)

    def _drop_start(self, tag: str, attrs: dict[str, str | None]) -> int:
        """Start capturing the text of a dropped element that carries page metadata."""
        kind = (attrs.get("type") or "").strip().lower()
        if tag == "title" or (tag == "script" and kind == "application/ld+json"):
            self._capture = []
            self._capture_tag = tag
            return _CAPTURE
        return 0

    def _block_flags(self, tag: str, attrs: dict[str, str | None]) -> int:
        flags = _BLOCK | _PRE if tag in _PRE_TAGS else _BLOCK
        role = (attrs.get("role") or "").strip().lower()
        if tag == "main" or role == "main":
            flags |= _MAIN
        if tag == "article":
            flags |= _ARTICLE
        if self._is_boilerplate(tag, role, attrs):
            flags |= _BOILER
        return flags

    def _is_boilerplate(self, tag: str, role: str, attrs: dict[str, str | None]) -> bool:
        in_content = self._article > 0 or self._main > 0
        if tag in _BOILERPLATE_TAGS or (tag == "header" and not in_content):
            return True
        if role in _BOILERPLATE_ROLES or "hidden" in attrs or attrs.get("aria-hidden") == "true":
            return True
        names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()
        tokens = set(_CLASS_TOKEN.findall(names)) & _BOILERPLATE_TOKENS
        if in_content:
            tokens.discard("header")
        return bool(tokens)

    def _flush(self) -> None:
        """End the current paragraph(s) and record them."""
        if not self._has_text:
            self._parts.clear()
            return
        raw = "".join(self._parts)
        paragraphs = _paragraphs(raw, pre=self._pre > 0, br=_BR)
        total = sum(len(p) for p in paragraphs)
        boiler = self._para_boiler or self._link_chars >= _LINK_DENSITY * total
        for text in paragraphs:
            self._paragraphs.append((text, boiler, self._para_main, self._para_tag))
        if self._h1 is None and self._para_tag == "h1" and paragraphs:
            self._h1 = _fold(" ".join(paragraphs))
        self._parts.clear()
        self._has_text = False
        self._link_chars = 0

    def _metadata(self) -> tuple[str | None, str | None]:
        meta = self._meta
        ld = _json_ld(self._ld_json)
        author = meta.get("author") or ld.get("author") or meta.get("article:author")
        published = (
            meta.get("article:published_time")
            or meta.get("datepublished")
            or ld.get("datePublished")
            or meta.get("date")
            or meta.get("dc.date")
            or meta.get("dc.date.issued")
            or meta.get("pubdate")
            or self._time
        )
        return _clean(author), _clean(published)


def _clean(value: str | None) -> str | None:
    folded = _fold(value or "")
    return folded or None


def _fold(line: str) -> str:
    return " ".join(line.split())


def _paragraphs(raw: str, *, pre: bool, br: str) -> list[str]:
    """Split raw text into folded paragraphs: lines at ``br``, paragraphs at blank lines."""
    if pre:
        lines = [
            line.rstrip()
            for line in raw.replace("\r\n", "\n").replace("\r", "\n").replace(br, "\n").split("\n")
        ]
    else:
        lines = [_fold(line) for line in raw.split(br)]
    paragraphs: list[str] = []
    run: list[str] = []
    for line in lines:
        if line and not line.isspace():
            run.append(line)
        elif run:
            paragraphs.append("\n".join(run))
            run = []
    if run:
        paragraphs.append("\n".join(run))
    return paragraphs


def _json_ld(scripts: list[str]) -> dict[str, str]:
    """``author`` (a name) and ``datePublished`` from JSON-LD blocks, when present."""
    found: dict[str, str] = {}
    for script in scripts:
        try:
            data = json.loads(script)
        except ValueError:
            continue
        todo: list[Any] = [data]
        while todo:
            item = todo.pop(0)
            if isinstance(item, list):
                todo.extend(item)
            elif isinstance(item, dict):
                todo.extend(item.get("@graph") or [])
                for key in ("author", "datePublished"):
                    value = _ld_name(item.get(key))
                    if value and key not in found:
                        found[key] = value
    return found


def _ld_name(value: Any) -> str | None:
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("name")
    return value if isinstance(value, str) else None


# --- the two event sources -------------------------------------------------------------------


def _walk_lexbor(tree: LexborHTMLParser, builder: _TextBuilder) -> None:
    """Walk lexbor's tree once, depth first and without recursion, feeding ``builder``."""
    root = tree.root
    if root is None:
        return
    start, end, text = builder.start, builder.end, builder.text
    node = root
    stack = []
    while True:
        if node.is_text_node:
            text(node.text_content)
        elif node.is_element_node:
            tag = node.tag
            start(tag, node.attributes)
            child = node.first_child
            if child is not None:
                stack.append(node)
                node = child
                continue
            end(tag)
        while True:
            if not stack:
                return
            sibling = node.next
            if sibling is not None:
                node = sibling
                break
            node = stack.pop()
            end(node.tag)


class _StdlibEvents(HTMLParser):
    """The standard library's tokenizer as an event source: linear at any nesting depth."""

    def __init__(self, builder: _TextBuilder) -> None:
        super().__init__(convert_charrefs=True)
        self._builder = builder

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._builder.start(tag, dict(attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._builder.start(tag, dict(attrs))
        if tag not in _VOID_TAGS:
            self._builder.end(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "br":  # browsers read </br> as <br>
            self._builder.start(tag, {})
        else:
            self._builder.end(tag)

    def handle_data(self, data: str) -> None:
        self._builder.text(data)


def _walk_stdlib(html: str, builder: _TextBuilder) -> None:
    events = _StdlibEvents(builder)
    events.feed(html)
    events.close()


# --- plain text ------------------------------------------------------------------------------


def _parse_text(text: str) -> Page:
    """Text, Markdown, CSV, JSON and PDF page texts: paragraphs are runs between blank lines."""
    paragraphs = _paragraphs(text.replace("\r\n", "\n").replace("\r", "\n"), pre=False, br="\n")
    blocks: list[Block] = []
    offset = 0
    for p in paragraphs:
        blocks.append(Block(offset, offset + len(p), "main", "text"))
        offset += len(p) + 2
    return Page("\n\n".join(paragraphs), "", tuple(blocks))
