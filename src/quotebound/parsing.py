"""HTML and plain text to clean text with paragraph blocks (DESIGN §4, issue 2 §2).

The text is what a reader sees: block elements end paragraphs (one blank line between
paragraphs), inline elements add no whitespace, a single ``<br>`` is a line break and a run of
``<br>`` ends the paragraph, whitespace (including ``&nbsp;``) is folded to one space within a
line and lines are trimmed. ``<pre>`` keeps its line breaks and indentation (trailing spaces
dropped; blank lines inside it separate paragraphs). The cells of one table row form one
paragraph, separated by `` | ``. Boilerplate (navigation, banners, share bars, related lists,
comments, footers) stays in the text, so any quote a reader sees can still be verified; only its
block's role differs.

The hot path is lexbor (selectolax, C) and one iterative walk over its tree. lexbor's tree
building is quadratic in nesting depth, so markup nested deeper than browsers allow is first
flattened by a linear tokenizer (:func:`_cap_depth`); its text is kept. NUL characters are
dropped (HTML parsers drop them too); nothing else is.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate, chain
from operator import sub
from typing import Any, Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

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
    """The block element it came from (``p``, ``li``, ``pre``, ``h2``, ``tr`` for cells of a
    row ...); ``"text"`` for plain text."""


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
    if _nesting_depth(html) > _MAX_DEPTH:
        html = _cap_depth(html)
    collector = _Collector()
    _walk(LexborHTMLParser(html), collector)
    return collector.page()


def sanitize_html(html: str | bytes, *, content_type: str | None = None) -> str:
    """The clean text of a page: ``parse_page(html, content_type=...).text``."""
    return parse_page(html, content_type=content_type).text


# --- element classes -------------------------------------------------------------------------

_BLOCK_TAGS = frozenset(
    """address article aside blockquote body caption center colgroup dd details dialog dir div
    dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup
    legend li listing main menu nav ol optgroup option p plaintext pre search section select
    summary table tbody textarea tfoot thead tr ul xmp""".split()
)
_PRE_TAGS = frozenset({"pre", "listing", "plaintext", "xmp", "textarea"})
_DROP_TAGS = frozenset(
    """script style noscript template svg iframe object canvas title annotation
    annotation-xml datalist""".split()
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

_BLOCK, _CELL, _LINK, _DROP, _BR, _HR, _META, _TIME = range(1, 9)
"""Element kinds; ``_BLOCK`` and ``_CELL`` must stay the two lowest."""
_KIND = {
    **dict.fromkeys(_BLOCK_TAGS, _BLOCK),
    **dict.fromkeys(_DROP_TAGS, _DROP),
    "td": _CELL,
    "th": _CELL,
    "a": _LINK,
    "br": _BR,
    "hr": _HR,
    "meta": _META,
    "time": _TIME,
}
"""What the walker does at an element; elements not listed are inline and only descended."""

_BR_MARK = "\x00"
"""Marks a ``<br>`` inside a paragraph; NUL cannot occur in the text (it is removed first)."""


# --- the walk --------------------------------------------------------------------------------

# The context of an open element: (boilerplate, inside main, preformatted, inside article or
# main, innermost block tag). Contexts are tuples so they can be cached and compared cheaply.
_Context = tuple[bool, bool, bool, bool, str]
_ROOT: _Context = (False, False, False, False, "body")


class _Collector:
    """Paragraphs, roles and metadata gathered during the walk."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.has_text = False
        self.serial = 0
        self.link_chars = 0
        self.ctx = _ROOT
        self.para = _ROOT
        self._outer: list[_Context] = []
        self._contexts: dict[tuple[Any, ...], _Context] = {}
        self.paragraphs: list[tuple[str, bool, bool, str]] = []
        self.title: str | None = None
        self.h1: str | None = None
        self.meta: dict[str, str] = {}
        self.time: str | None = None
        self.ld_json: list[str] = []

    def begin(self) -> None:
        """The current paragraph's first visible text: its role and tag are those here."""
        self.has_text = True
        self.para = self.ctx

    def enter(self, tag: str, kind: int, attrs: dict[str, str | None]) -> None:
        """A block or cell opens."""
        if kind == _BLOCK:
            self.flush()
        elif self.has_text:
            self.parts.append(" | ")
            self.para = (*self.para[:4], "tr")
        ctx = self.ctx
        if attrs:
            hidden = "hidden" in attrs or attrs.get("aria-hidden") == "true"
            key: tuple[Any, ...] = (tag, ctx, attrs.get("class"), attrs.get("id"))
            key += (attrs.get("role"), hidden)
        else:
            key = (tag, ctx)
        inner = self._contexts.get(key)
        if inner is None:
            inner = self._contexts[key] = _inner_context(tag, attrs, ctx)
        self._outer.append(ctx)
        self.ctx = inner

    def leave(self, kind: int) -> None:
        """A block or cell closes."""
        if kind == _BLOCK:
            self.flush()
        self.ctx = self._outer.pop()

    def flush(self) -> None:
        """End the current paragraph(s) and record them."""
        self.serial += 1
        if not self.has_text:
            self.parts.clear()
            return
        raw = "".join(self.parts)
        if _BR_MARK in raw or self.ctx[2]:
            paragraphs = _paragraphs(raw, pre=self.ctx[2], br=_BR_MARK)
        else:
            paragraphs = [" ".join(raw.split())]
        boiler, main, _, _, tag = self.para
        if self.link_chars:
            boiler = boiler or self.link_chars >= _LINK_DENSITY * sum(map(len, paragraphs))
        self.paragraphs.extend((text, boiler, main, tag) for text in paragraphs)
        if self.h1 is None and tag == "h1":
            self.h1 = _fold(" ".join(paragraphs))
        self.parts.clear()
        self.has_text = False
        self.link_chars = 0

    def link_end(self, start: int, serial: int) -> None:
        """A link closed: count its text towards the paragraph's link density."""
        if serial == self.serial:
            self.link_chars += sum(len(s.strip()) for s in self.parts[start:])

    def other(self, kind: int, node: LexborNode) -> None:
        """``<hr>``, ``<meta>``, ``<time>`` and dropped elements that carry metadata."""
        if kind == _HR:
            self.flush()
            return
        attrs = node.attributes
        if kind == _META:
            key = attrs.get("name") or attrs.get("property") or attrs.get("itemprop")
            content = attrs.get("content")
            if key and content:
                self.meta.setdefault(key.strip().lower(), content)
        elif kind == _TIME:
            if self.time is None and attrs.get("datetime"):
                self.time = attrs["datetime"]
        elif node.tag == "title":
            if self.title is None:
                self.title = node.text()
        elif node.tag == "script" and (attrs.get("type") or "").strip() == "application/ld+json":
            self.ld_json.append(node.text())

    def page(self) -> Page:
        """Assemble the page once the walk is done."""
        self.flush()
        any_main = any(main for _, _, main, _ in self.paragraphs)
        texts: list[str] = []
        blocks: list[Block] = []
        offset = 0
        for text, boiler, main, tag in self.paragraphs:
            role: Role = "boilerplate" if boiler or (any_main and not main) else "main"
            blocks.append(Block(offset, offset + len(text), role, tag))
            texts.append(text)
            offset += len(text) + 2
        author, published = self._metadata()
        title = _fold(self.title or "") or self.h1 or ""
        return Page("\n\n".join(texts), title, tuple(blocks), author, published)

    def _metadata(self) -> tuple[str | None, str | None]:
        meta = self.meta
        ld = _json_ld(self.ld_json)
        author = meta.get("author") or ld.get("author") or meta.get("article:author")
        published = (
            meta.get("article:published_time")
            or meta.get("datepublished")
            or ld.get("datePublished")
            or meta.get("date")
            or meta.get("dc.date")
            or meta.get("dc.date.issued")
            or meta.get("pubdate")
            or self.time
        )
        return _fold(author or "") or None, _fold(published or "") or None


def _inner_context(tag: str, attrs: dict[str, str | None], outer: _Context) -> _Context:
    """The context inside a block or cell ``tag`` opened in ``outer``."""
    boiler, main, pre, in_content, _ = outer
    role = (attrs.get("role") or "").strip().lower()
    tokens = set(_CLASS_TOKEN.findall(f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()))
    tokens &= _BOILERPLATE_TOKENS
    if in_content:
        tokens.discard("header")
    boiler = (
        boiler
        or bool(tokens)
        or tag in _BOILERPLATE_TAGS
        or (tag == "header" and not in_content)
        or role in _BOILERPLATE_ROLES
        or "hidden" in attrs
        or attrs.get("aria-hidden") == "true"
    )
    is_main = tag == "main" or role == "main"
    return (
        boiler,
        main or is_main,
        pre or tag in _PRE_TAGS,
        in_content or is_main or tag == "article",
        tag,
    )


def _walk(tree: LexborHTMLParser, c: _Collector) -> None:
    """Walk lexbor's tree once, depth first and without recursion, feeding ``c``.

    The hot loop: text nodes and inline elements cost a few attribute reads; only blocks,
    cells, links and rare elements call into the collector. Dropped elements are not entered.
    """
    node = tree.root
    if node is None:
        return
    append = c.parts.append
    kinds = _KIND.get
    # Each entry: an open node and what its closing does (None, a block kind, or a link mark).
    stack: list[tuple[LexborNode, Any]] = []
    while True:
        descend = True
        if node.is_text_node:
            data = node.text_content
            append(data)
            if not c.has_text and not data.isspace():
                c.begin()
            descend = False
        elif node.is_element_node:
            tag = node.tag
            kind = kinds(tag)
            undo: Any = None
            if kind is None:
                pass
            elif kind <= _CELL:
                c.enter(tag, kind, node.attributes)
                undo = kind
            elif kind == _BR:
                append(_BR_MARK)
            elif kind == _LINK:
                if "href" in node.attributes:
                    undo = (len(c.parts), c.serial)
            else:
                c.other(kind, node)
                descend = kind != _DROP
            if descend:
                child = node.first_child
                if child is not None:
                    stack.append((node, undo))
                    node = child
                    continue
                if undo is not None:
                    _close(undo, c)
        # Move on: the next sibling, or close parents until one has a next sibling.
        while True:
            if not stack:
                return
            sibling = node.next
            if sibling is not None:
                node = sibling
                break
            node, undo = stack.pop()
            if undo is not None:
                _close(undo, c)


def _close(undo: Any, c: _Collector) -> None:
    if isinstance(undo, int):
        c.leave(undo)
    else:
        c.link_end(*undo)


# --- text helpers ----------------------------------------------------------------------------


def _fold(line: str) -> str:
    return " ".join(line.split())


def _paragraphs(raw: str, *, pre: bool, br: str) -> list[str]:
    """Split raw text into paragraphs: lines at ``br``, paragraphs at blank lines.

    Lines are folded and trimmed, or, in ``pre``, only stripped of trailing whitespace.
    """
    if pre:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n").replace(br, "\n")
        lines = [line.rstrip() for line in raw.split("\n")]
    else:
        lines = [_fold(line) for line in raw.split(br)]
    paragraphs: list[str] = []
    run: list[str] = []
    for line in lines:
        if line:
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
    todo: list[Any] = []
    for script in scripts:
        try:
            todo.append(json.loads(script))
        except ValueError:
            continue
    while todo:
        item = todo.pop(0)
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            graph = item.get("@graph")
            if isinstance(graph, list):
                todo.extend(graph)
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


# --- deep nesting ----------------------------------------------------------------------------

_MAX_DEPTH = 512
"""Nesting beyond this is flattened first: lexbor scans its open-element stack per tag, so
depth costs quadratic time. Browsers cap the tree at a similar depth."""

_FLAT_TAGS = (
    "area base br col embed hr img input keygen link meta param source track wbr p li dt dd tr "
    "td th option optgroup tbody thead tfoot path use circle rect line polyline polygon "
    "ellipse stop"
).split()
"""Tags that cannot build depth: void elements, elements that close their own kind, and SVG
shapes that are usually self-closed."""
_NESTING_TAG = re.compile(r"<(/?)(?!(?:%s)[\s/>])[a-z]" % "|".join(_FLAT_TAGS))
_DEPTH_STEP = {"": 1, "/": -1}
_CHEAP_TAGS = 4096
"""Pages with fewer ``<`` than this cannot nest deep enough to be slow: skip the depth scan."""


def _nesting_depth(html: str) -> int:
    """An upper bound on the element nesting depth of ``html``, computed at C speed."""
    if html.count("<") < _CHEAP_TAGS:
        return 0
    steps = map(_DEPTH_STEP.__getitem__, _NESTING_TAG.findall(html.lower()))
    levels = list(accumulate(chain((0,), steps)))
    # Depth is counted from the lowest level seen so far: stray end tags cannot hide nesting.
    return max(map(sub, levels, accumulate(levels, min)))


# A tag up to the next "<" or ">": bounded by the next "<", so scanning stays linear.
_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)[^<>]*>")


def _cap_depth(html: str) -> str:
    """``html`` with every element deeper than ``_MAX_DEPTH`` unwrapped; all text is kept.

    An unwrapped block element becomes ``<hr>``, so its paragraph breaks survive.
    """
    flat = frozenset(_FLAT_TAGS)
    out: list[str] = []
    stack: list[tuple[str, bool]] = []
    open_names: Counter[str] = Counter()
    pos = 0
    for m in _TAG.finditer(html):
        out.append(html[pos : m.start()])
        pos = m.end()
        name = m.group(2).lower()
        if name in flat:
            out.append(m.group())
        elif not m.group(1):
            kept = len(stack) < _MAX_DEPTH
            stack.append((name, kept))
            open_names[name] += 1
            out.append(m.group() if kept else "<hr>" if name in _BLOCK_TAGS else "")
        elif open_names[name]:
            while True:
                top, kept = stack.pop()
                open_names[top] -= 1
                out.append(f"</{top}>" if kept else "<hr>" if top in _BLOCK_TAGS else "")
                if top == name:
                    break
        else:
            out.append(m.group())
    out.append(html[pos:])
    return "".join(out)


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
