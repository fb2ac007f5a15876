"""HTML and plain text to clean text with paragraph blocks (docs/architecture.md §4).

The text is what a reader sees: block elements end paragraphs (one blank line between
paragraphs), inline elements add no whitespace, a single ``<br>`` is a line break and a run of
``<br>`` ends the paragraph, whitespace (including ``&nbsp;``) is folded to one space within a
line and lines are trimmed. ``<pre>`` keeps its line breaks and indentation (trailing spaces
dropped; blank lines inside it separate paragraphs). The cells of one table row form one
paragraph, separated by `` | `` (empty cells leave no separator). Boilerplate (navigation,
banners, share bars, related lists, comments, footers) stays in the text, so any quote a reader
sees can still be verified; only its block's role differs.

The hot path is lexbor (selectolax, C) and one iterative walk over its tree. lexbor's tree
building is quadratic in nesting depth, so markup nested deeper than browsers allow is first
flattened by a linear tokenizer (:func:`_cap_depth`); its text is kept. NUL characters (HTML
parsers drop them too) and the two Unicode noncharacters used as internal marks are removed
from the input; nothing else is.
"""

from __future__ import annotations

import gc
import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate, chain
from typing import Any, Literal, TypeVar

from selectolax.lexbor import LexborHTMLParser, LexborNode

from quotebound.charset import decode_bytes
from quotebound.documents import TEXT_TYPES, media_type
from quotebound.roles import SHORT_CHARS, Nodes, Para, main_flags, node_info
from quotebound.wordtrie import trie_pattern

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
    headline: str | None = None
    """The article's own headline: JSON-LD ``headline``, else the first ``<h1>``, else
    ``og:title`` (``title`` is the document's, often with the site's name)."""
    byline: str | None = None
    """The text of the first block the page marks as a byline (class or id ``byline``)."""


def parse_page(html: str | bytes, *, content_type: str | None = None, roles: bool = True) -> Page:
    """Parse HTML, or text when ``content_type`` is a text type; never raises.

    ``content_type`` may be a full header (``text/html; charset=iso-8859-1``); bytes are decoded
    by BOM, header charset, ``<meta charset>``, detection, then replacement characters. With
    ``roles=False`` every block is main and no content scoring runs (the text is the same).
    """
    html, text_type = _prepare(html, content_type)
    if text_type:
        return _parse_text(html, markdown=media_type(content_type) in _MARKDOWN_TYPES)
    return _collect(html, _Collector(roles=roles), _Collector.page)


def sanitize_html(html: str | bytes, *, content_type: str | None = None) -> str:
    """The clean text of a page: ``parse_page(html, content_type=...).text``, without the
    blocks, roles and metadata."""
    html, text_type = _prepare(html, content_type)
    if text_type:
        return _parse_text(html).text
    return _collect(html, _Collector(roles=False), _Collector.text)


def _prepare(html: str | bytes, content_type: str | None) -> tuple[str, bool]:
    """The markup decoded and without the characters used as internal marks, and whether it
    is to be read as text rather than HTML."""
    if isinstance(html, bytes):
        html = decode_bytes(html, content_type=content_type)[0]
    for mark in ("\x00", *_MARKS):
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


def _collect(html: str, collector: _Collector, finish: Callable[[_Collector], _T]) -> _T:
    """Walk ``html`` into ``collector`` and return ``finish(collector)``."""
    if _nesting_depth(html) > _MAX_DEPTH:
        html = _cap_depth(html)
    # The commonest line break becomes its mark before parsing: a third fewer nodes to walk on
    # br-heavy pages. Elsewhere (attributes, scripts, titles) a mark is harmless or removed.
    html = html.replace("<br>", _BR_MARK)
    with _collector_paused():
        _walk(LexborHTMLParser(html), collector)
        return finish(collector)


# --- element classes -------------------------------------------------------------------------


def _names(words: str) -> frozenset[str]:
    """A set of tag, role or class names written as one whitespace-separated string."""
    return frozenset(words.split())


_BLOCK_TAGS = _names(
    """
    address article aside blockquote body caption center colgroup dd details dialog dir div
    dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup
    legend li listing main menu nav ol optgroup option p plaintext pre search section select
    summary table tbody textarea tfoot thead tr ul xmp
    """
)
_PRE_TAGS = frozenset({"pre", "listing", "plaintext", "xmp", "textarea"})
_DROP_TAGS = _names(
    """
    script style noscript template svg iframe object canvas title annotation annotation-xml
    datalist
    """
)
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
_KIND_TEXT_ONLY = {tag: kind for tag, kind in _KIND.items() if kind != _LINK}
"""The same when no roles are scored: links then need no counting."""

_BR_MARK = "\ufdd0"
"""Marks a ``<br>`` in raw paragraph text (a Unicode noncharacter, removed from input)."""
_PARA_MARK = "\ufdd1"
"""Separates raw paragraphs while they are folded together (also a noncharacter)."""
_CELL_MARK = "\ufdd2"
"""Separates the cells of a table row in raw text (also a noncharacter)."""
_MARKS = (_BR_MARK, _PARA_MARK, _CELL_MARK)


# --- the walk --------------------------------------------------------------------------------

_CHANGES_CONTEXT = 16
"""Set in a block's kind on the walker's stack when the block opened preformatted text."""


class _Collector:
    """Paragraphs, block elements and metadata gathered during the walk.

    Paragraph text is kept raw until :meth:`page`, which folds all of it in a few C-level
    string operations. Each block element becomes a node of :class:`~quotebound.roles.Nodes`;
    a paragraph remembers the node (and tag) of the block it starts in, and roles are scored
    over that tree once the walk is done.
    """

    def __init__(self, *, roles: bool = True) -> None:
        self.roles = roles
        self.parts: list[str] = []
        self.link_chars = 0
        self.pre = 0  # open preformatted blocks
        self.blocks: list[str] = []
        self.nodes = Nodes()
        self.node = -1  # the innermost open block
        self.open_nodes: list[int] = []
        self.para_node = -1
        self.para_tag = "body"
        self._infos: dict[tuple[Any, ...], tuple[float, int]] = {}
        # (raw text, preformatted, node, tag, link characters)
        self.flushed: list[tuple[str, bool, int, str, int]] = []
        self.title: str | None = None
        self.meta: dict[str, str] = {}
        self.time: str | None = None
        self.ld_json: list[str] = []

    def flush(self) -> None:
        """End the current paragraph (call only when ``parts`` is not empty)."""
        raw = "".join(self.parts)
        self.parts.clear()
        if not raw.isspace():
            self.flushed.append((raw, self.pre > 0, self.para_node, self.para_tag, self.link_chars))
        self.link_chars = 0

    def open_block(self, tag: str, kind: int, element: LexborNode) -> int:
        """A block or cell opens; returns what closing it must undo."""
        starts = True
        if kind == _BLOCK:
            if self.parts:
                self.flush()
        elif "".join(self.parts).strip():
            self.parts.append(_CELL_MARK)
            self.para_tag = "tr"
            starts = False
        else:
            self.parts.clear()
        self.blocks.append(tag)
        if self.roles:
            node = self._add_node(tag, element.attributes)
            if starts:
                self.para_node = node
        if tag in _PRE_TAGS:
            self.pre += 1
            kind |= _CHANGES_CONTEXT
        if starts:
            self.para_tag = tag
        return kind

    def _add_node(self, tag: str, attrs: dict[str, str | None]) -> int:
        """Record a block element in the tree the roles are scored on; it becomes the
        innermost open one."""
        if attrs:
            key: tuple[Any, ...] = (tag, attrs.get("class"), attrs.get("id"), attrs.get("role"))
            key += (attrs.get("itemprop"), "hidden" in attrs)
            info = self._infos.get(key)
            if info is None:
                info = self._infos[key] = node_info(tag, attrs)
            classes = (attrs.get("class") or "").lower()
        else:
            classes = ""
            info = self._infos.get((tag,)) or self._infos.setdefault((tag,), node_info(tag, {}))
        nodes = self.nodes
        node = len(nodes.parent)
        nodes.parent.append(self.node)
        nodes.tag.append(tag)
        nodes.weight.append(info[0])
        nodes.flags.append(info[1])
        nodes.classes.append(classes)
        self.open_nodes.append(self.node)
        self.node = node
        return node

    def close_block(self, kind: int) -> None:
        """A block or cell closes: a block ends its paragraph, and the next starts outside."""
        if kind & _BLOCK and self.parts:
            self.flush()
        self.blocks.pop()
        if self.roles:
            self.node = self.open_nodes.pop()
        if kind & _CHANGES_CONTEXT:
            self.pre -= 1
        if kind & _BLOCK:
            self.para_node = self.node
            self.para_tag = self.blocks[-1] if self.blocks else "body"

    def other(self, kind: int, node: LexborNode) -> None:
        """``<hr>``, ``<meta>``, ``<time>`` and dropped elements that carry metadata."""
        if kind == _HR:
            if self.parts:
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

    def paragraphs(self) -> list[list[str]]:
        """The paragraphs of each raw paragraph, folded (``<br>`` runs may split one)."""
        if self.parts:
            self.flush()
        flushed = self.flushed
        folded = iter(_fold_many([f[0] for f in flushed if not f[1]]))
        per_para: list[list[str]] = []
        for raw, pre, _, _, _ in flushed:
            if pre:
                paragraphs = _paragraphs(raw, pre=True)
            else:
                line = next(folded)
                if _CELL_MARK in line:
                    line = _join_cells(line)
                if _BR_MARK in line:
                    paragraphs = _group_lines([x.strip(" ") for x in line.split(_BR_MARK)])
                else:
                    paragraphs = [line] if line else []
            per_para.append(paragraphs)
        return per_para

    def text(self) -> str:
        """The page's clean text alone, once the walk is done."""
        return "\n\n".join(chain.from_iterable(self.paragraphs()))

    def page(self) -> Page:
        """Assemble the page once the walk is done."""
        per_para = self.paragraphs()
        flushed = self.flushed
        ld = _json_ld(self.ld_json)
        if self.roles:
            mains = main_flags(self.nodes, self._paras(per_para, ld.get("articleBody")))
        else:
            mains = [True] * len(flushed)
        texts: list[str] = []
        blocks: list[Block] = []
        new_block = _new_block
        offset = 0
        for (_, _, _, tag, _), paragraphs, main in zip(flushed, per_para, mains, strict=True):
            role: Role = "main" if main else "boilerplate"
            for text in paragraphs:
                end = offset + len(text)
                blocks.append(new_block(offset, end, role, tag))
                texts.append(text)
                offset = end + 2
        title = _fold((self.title or "").replace(_BR_MARK, " "))
        if not title:
            title = next((texts[i] for i, b in enumerate(blocks) if b.tag == "h1"), "")
            title = _fold(title)
        author, published = self._metadata(ld)
        h1 = next((texts[i] for i, b in enumerate(blocks) if b.tag == "h1"), None)
        headline = _clean(ld.get("headline") or h1 or self.meta.get("og:title"))
        byline = self._byline(per_para) if self.roles else None
        text = "\n\n".join(texts)
        return Page(text, title, tuple(blocks), author, published, headline, byline)

    def _byline(self, per_para: list[list[str]]) -> str | None:
        """The first paragraph inside (up to three levels) a box classed ``byline``."""
        classes, parent = self.nodes.classes, self.nodes.parent
        for (_, _, node, _, _), paragraphs in zip(self.flushed, per_para, strict=True):
            for _ in range(3):
                if node < 0:
                    break
                if "byline" in classes[node] and paragraphs:
                    return _clean(" ".join(paragraphs)[:_BYLINE_CHARS])
                node = parent[node]
        return None

    def _paras(self, per_para: list[list[str]], article_body: str | None) -> list[Para]:
        # Bounded on hostile pages: each lookup scans the body once.
        body = _fold(article_body[:_BODY_CHARS]) if article_body and len(article_body) > 200 else ""
        lookups = _BODY_LOOKUPS
        paras = []
        for (_, _, node, tag, link_chars), paragraphs in zip(self.flushed, per_para, strict=True):
            chars = sum(map(len, paragraphs))
            commas = sum(p.count(",") + p.count("\uff0c") + p.count("\u3001") for p in paragraphs)
            in_body = False
            if body and chars >= 30 and lookups:
                lookups -= 1
                in_body = paragraphs[0][:200] in body
            last = paragraphs[-1][-1:] if paragraphs else ""
            sentence = last in _SENTENCE_ENDS
            heading = tag in _HEADINGS
            introduces = last == ":"
            short = " ".join(paragraphs) if chars <= SHORT_CHARS else ""
            paras.append(
                Para(
                    node,
                    chars,
                    link_chars,
                    commas,
                    in_body,
                    tag,
                    heading,
                    introduces,
                    sentence,
                    short,
                )
            )
        return paras

    def _metadata(self, ld: dict[str, str]) -> tuple[str | None, str | None]:
        meta = self.meta
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
        return _clean(author), _clean(published)


def _new_block(start: int, end: int, role: Role, tag: str) -> Block:
    """``Block(start, end, role, tag)`` without the frozen ``__init__``'s per-field setattr
    calls, which cost a tenth of the whole parse on pages of many short paragraphs."""
    block: Block = object.__new__(Block)
    block.__dict__.update(start=start, end=end, role=role, tag=tag)
    return block


_TEXT_ID = LexborHTMLParser("x").body.first_child.tag_id  # type: ignore[union-attr]
"""lexbor's node type id of text nodes."""


def _walk(tree: LexborHTMLParser, c: _Collector) -> None:
    """Walk lexbor's tree once, depth first and without recursion, feeding ``c``.

    This is the hot loop: a text node costs two C calls and an append; only blocks, cells,
    links and rare elements call into the collector. Dropped elements are not entered.
    """
    node = tree.root
    if node is None:
        return
    parts = c.parts
    append = parts.append
    open_block, close_block = c.open_block, c.close_block
    # lexbor's tag ids are per document for custom elements, so this cache is per walk.
    kinds: dict[int, tuple[int | None, str]] = {}
    table = _KIND if c.roles else _KIND_TEXT_ONLY
    links = 0  # open <a href> elements
    # The open ancestors of ``node``, and what closing each must undo (0: nothing).
    stack: list[LexborNode] = []
    undos: list[int] = []
    while True:
        undo = 0
        tag_id = node.tag_id
        if tag_id == _TEXT_ID:
            data = node.text_content or ""
            # Whitespace before a paragraph is nothing, except as indentation in <pre>.
            if parts or not data.isspace() or c.pre:
                append(data)
            if links:
                c.link_chars += len(data.strip())
        else:
            known = kinds.get(tag_id)
            if known is None:
                tag = node.tag or ""
                known = kinds[tag_id] = (table.get(tag), tag)
            kind, tag = known
            descend = True
            if kind is None:
                pass
            elif kind <= _CELL:
                undo = open_block(tag, kind, node)
            elif kind == _BR:
                append(_BR_MARK)
            elif kind == _LINK:
                if "href" in node.attributes:
                    links += 1
                    undo = _LINK
            else:
                c.other(kind, node)
                descend = kind != _DROP
            child = node.first_child if descend else None
            if child is not None:
                stack.append(node)
                undos.append(undo)
                node = child
                continue
        # Leave the node, then its parents until one has a next sibling.
        while True:
            if undo == _LINK:
                links -= 1
            elif undo:
                close_block(undo)
            if not stack:
                return
            sibling = node.next
            if sibling is not None:
                node = sibling
                break
            node = stack.pop()
            undo = undos.pop()


# --- text helpers ----------------------------------------------------------------------------


def _fold(line: str) -> str:
    return " ".join(line.split())


def _clean(value: str | None) -> str | None:
    """A metadata value folded, without marks; None when empty."""
    return _fold((value or "").replace(_BR_MARK, " ")) or None


def _fold_many(raws: list[str]) -> list[str]:
    """Fold whitespace in many raw paragraphs, each with visible text, a batch at a time.

    Each batch is one C-level split and join (bounded, since splitting makes an object per
    word). ``<br>`` marks stay; :func:`_group_lines` trims the lines between them.
    """
    separator = f" {_PARA_MARK} "  # folding leaves exactly these spaces around each mark
    folded: list[str] = []
    batch: list[str] = []
    size = 0
    for raw in raws:
        batch.append(raw)
        size += len(raw)
        if size > _FOLD_BATCH:
            folded += " ".join(separator.join(batch).split()).split(separator)
            batch.clear()
            size = 0
    if batch:
        folded += " ".join(separator.join(batch).split()).split(separator)
    return folded


_BYLINE_CHARS = 200
_BODY_CHARS = 200_000
_BODY_LOOKUPS = 2_000
"""JSON-LD ``articleBody`` is matched on its first ``_BODY_CHARS`` characters against at most
``_BODY_LOOKUPS`` paragraphs, so a hostile page cannot make the match quadratic."""
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SENTENCE_ENDS = frozenset(".!?…:;\"'”»“«)。！？")
"""Characters that end a paragraph written as a sentence."""
_FOLD_BATCH = 1 << 18
"""Characters folded at once."""


def _join_cells(row: str) -> str:
    """The cells of a folded row joined by `` | ``; empty cells and their edge breaks go."""
    cells = (cell.strip(" " + _BR_MARK) for cell in row.split(_CELL_MARK))
    return " | ".join(cell for cell in cells if cell)


def _group_lines(lines: list[str]) -> list[str]:
    """Runs of non-empty lines joined by newlines; empty lines separate the runs."""
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


def _paragraphs(raw: str, *, pre: bool) -> list[str]:
    """Paragraphs of raw text split into lines at newlines (pre) or ``<br>`` marks.

    Lines are folded and trimmed, or, when ``pre``, only stripped of trailing whitespace.
    """
    raw = raw.replace("\r\n", "\n").replace("\r", "\n").replace(_CELL_MARK, " | ")
    if pre:
        return _group_lines([line.rstrip() for line in raw.replace(_BR_MARK, "\n").split("\n")])
    return _group_lines([_fold(line) for line in raw.split("\n")])


def _json_ld(scripts: list[str]) -> dict[str, str]:
    """``author`` (a name), ``datePublished``, ``headline`` and ``articleBody`` from JSON-LD."""
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
            for key in ("author", "datePublished", "articleBody", "headline"):
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

_FLAT_TAGS = _names(
    """
    area base br col embed hr img input keygen link meta param source track wbr p li dt dd
    tr td th option optgroup tbody thead tfoot path use circle rect line polyline polygon
    ellipse stop
    """
)
"""Tags that cannot build depth: void elements, elements that close their own kind, and SVG
shapes that are usually self-closed."""


# Upper-case tags all count as nesting (no case folding, for speed): that can only overestimate.
_NESTING_TAG = re.compile(rf"<(/?)(?!{trie_pattern(_FLAT_TAGS)}[\s/>])[a-zA-Z]")
_DEPTH_STEP = {"": 1, "/": -1}
_CHEAP_TAGS = 4096
"""Pages with fewer ``<`` than this cannot nest deep enough to be slow: skip the depth scan."""


def _nesting_depth(html: str) -> int:
    """An upper bound on the element nesting depth of ``html``, computed at C speed.

    Overestimates (unclosed elements, upper-case tags) only cost time: :func:`_cap_depth` then
    keeps the same text.
    """
    if html.count("<") < _CHEAP_TAGS:
        return 0
    steps = map(_DEPTH_STEP.__getitem__, _NESTING_TAG.findall(html))
    levels = list(accumulate(chain((0,), steps)))
    # Measured from the lowest level, so stray end tags cannot hide nesting.
    return max(levels) - min(levels)


# A tag up to the next "<" or ">": bounded by the next "<", so scanning stays linear.
_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)[^<>]*>")


def _cap_depth(html: str) -> str:
    """``html`` with every element deeper than ``_MAX_DEPTH`` unwrapped; all text is kept.

    An unwrapped block element becomes ``<hr>``, so its paragraph breaks survive.
    """
    out: list[str] = []
    stack: list[tuple[str, bool]] = []
    open_names: Counter[str] = Counter()
    pos = 0
    for m in _TAG.finditer(html):
        out.append(html[pos : m.start()])
        pos = m.end()
        name = m.group(2).lower()
        if name in _FLAT_TAGS:
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


def _parse_text(text: str, *, markdown: bool = False) -> Page:
    """Text, Markdown, CSV, JSON and PDF page texts: paragraphs are runs between blank lines.

    In Markdown, an ATX heading line (``# Title``) is a heading block of its own (tag ``h1`` to
    ``h6``), so it never joins the prose after it; the first one is the title.
    """
    paragraphs = _paragraphs(text, pre=False)
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
