"""The block builder: paragraphs, block elements and metadata gathered during the walk.

:func:`~quotebound.text.html.walker.walk` feeds a :class:`Collector` the page's text and tells it
where blocks and cells open and close; once the walk is done the collector folds the raw text into
paragraphs (:mod:`quotebound.text.html.folding`), scores their roles over the tree of block elements
(:mod:`quotebound.text.maincontent.roles`) and assembles the :class:`~quotebound.text.page.Page`,
with its title, author, date, headline and byline from ``<title>``, ``<meta>``, ``<time>`` and
JSON-LD.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from selectolax.lexbor import LexborNode

from quotebound.text.html.folding import (
    BR_MARK,
    CELL_MARK,
    clean_value,
    fold,
    fold_many,
    group_lines,
    join_cells,
    split_paragraphs,
)
from quotebound.text.html.jsonld import json_ld
from quotebound.text.html.tags import BLOCK, HR, META, PRE_TAGS, TIME
from quotebound.text.maincontent.containers import Nodes, node_info
from quotebound.text.maincontent.prose import SHORT_CHARS, Para
from quotebound.text.maincontent.roles import main_flags
from quotebound.text.page import Block, Page, Role

__all__ = ["HEADINGS", "Collector"]

_BYLINE_CHARS = 200
_BODY_CHARS = 200_000
_BODY_LOOKUPS = 2_000
"""JSON-LD ``articleBody`` is matched on its first ``_BODY_CHARS`` characters against at most
``_BODY_LOOKUPS`` paragraphs, so a hostile page cannot make the match quadratic."""
_TITLE_CHARS = 500
"""The most of a page's title that a headline is looked for in (see :func:`_names`)."""
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SENTENCE_ENDS = frozenset(".!?…:;\"'”»“«)。！？")
"""Characters that end a paragraph written as a sentence."""

_CHANGES_CONTEXT = 16
"""Set in a block's kind on the walker's stack when the block opened preformatted text."""


class Collector:
    """Paragraphs, block elements and metadata gathered during the walk.

    Paragraph text is kept raw until :meth:`page`, which folds all of it in a few C-level string
    operations. Each block element becomes a node of
    :class:`~quotebound.text.maincontent.containers.Nodes`; a paragraph remembers the node (and tag)
    of the block it starts in, and roles are scored over that tree once the walk is done.
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
        self._named: dict[int, tuple[str, dict[str, str | None]]] = {}
        """Each node with an ``id``: its tag and attributes (see :meth:`permalink`)."""
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
        if kind == BLOCK:
            if self.parts:
                self.flush()
        elif "".join(self.parts).strip():
            self.parts.append(CELL_MARK)
            self.para_tag = "tr"
            starts = False
        else:
            self.parts.clear()
        self.blocks.append(tag)
        if self.roles:
            node = self._add_node(tag, element.attributes)
            if starts:
                self.para_node = node
        if tag in PRE_TAGS:
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
            if key[2]:
                self._named[len(self.nodes.parent)] = (tag, attrs)
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

    def permalink(self, target: str) -> None:
        """A heading links to ``#target``. When an open block has that id, the heading is its
        permalink (Sphinx writes ``<section id="editing-and-navigation"><h2>Editing and
        Navigation<a href="#editing-and-navigation">``): the block is a section of the
        document, and its weight and flags are read again as one's, so a section headed
        "Menus" or "Sharing state" is not taken for a menu or a share bar."""
        node = self.node
        while node >= 0:
            named = self._named.get(node)
            if named is not None and named[1].get("id") == target:
                weight, flags = node_info(*named, section=True)
                self.nodes.weight[node] = weight
                self.nodes.flags[node] = flags
                return
            node = self.nodes.parent[node]

    def close_block(self, kind: int) -> None:
        """A block or cell closes: a block ends its paragraph, and the next starts outside."""
        if kind & BLOCK and self.parts:
            self.flush()
        self.blocks.pop()
        if self.roles:
            self.node = self.open_nodes.pop()
        if kind & _CHANGES_CONTEXT:
            self.pre -= 1
        if kind & BLOCK:
            self.para_node = self.node
            self.para_tag = self.blocks[-1] if self.blocks else "body"

    def other(self, kind: int, node: LexborNode) -> None:
        """``<hr>``, ``<meta>``, ``<time>`` and dropped elements that carry metadata."""
        if kind == HR:
            if self.parts:
                self.flush()
            return
        attrs = node.attributes
        if kind == META:
            key = attrs.get("name") or attrs.get("property") or attrs.get("itemprop")
            content = attrs.get("content")
            if key and content:
                self.meta.setdefault(key.strip().lower(), content)
        elif kind == TIME:
            if self.time is None and attrs.get("datetime"):
                self.time = attrs["datetime"]
        elif node.tag == "title":
            if self.title is None:
                self.title = node.text()
        elif node.tag == "script" and (attrs.get("type") or "").strip() == "application/ld+json":
            self.ld_json.append(node.text())

    def paragraphs(self) -> list[list[str]]:
        """The paragraphs of each raw paragraph, folded (``<br>`` runs may split one).

        Once only: the raw text is let go here, so that a large page's text is held at most
        twice (folded, and joined into the page's), never three times."""
        if self.parts:
            self.flush()
        flushed = self.flushed
        self.flushed = [("", pre, node, tag, links) for _, pre, node, tag, links in flushed]
        folded = iter(fold_many([f[0] for f in flushed if not f[1]]))
        per_para: list[list[str]] = []
        for raw, pre, _, _, _ in flushed:
            if pre:
                paragraphs = split_paragraphs(raw, pre=True)
            else:
                line = next(folded)
                if CELL_MARK in line:
                    line = join_cells(line)
                if BR_MARK in line:
                    paragraphs = group_lines([x.strip(" ") for x in line.split(BR_MARK)])
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
        ld = json_ld(self.ld_json)
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
        title = fold((self.title or "").replace(BR_MARK, " "))
        if not title:
            title = next((texts[i] for i, b in enumerate(blocks) if b.tag == "h1"), "")
            title = fold(title)
        author, published = self._metadata(ld)
        h1 = next((texts[i] for i, b in enumerate(blocks) if b.tag == "h1"), None)
        headline = clean_value(ld.get("headline") or h1 or self.meta.get("og:title"))
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
                    return clean_value(" ".join(paragraphs)[:_BYLINE_CHARS])
                node = parent[node]
        return None

    def _paras(self, per_para: list[list[str]], article_body: str | None) -> list[Para]:
        # Bounded on hostile pages: each lookup scans the body once.
        body = fold(article_body[:_BODY_CHARS]) if article_body and len(article_body) > 200 else ""
        lookups = _BODY_LOOKUPS
        titles = [
            fold(t[:_TITLE_CHARS]).casefold() for t in (self.title, self.meta.get("og:title")) if t
        ]
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
            heading = tag in HEADINGS
            introduces = last == ":"
            short = " ".join(paragraphs) if chars <= SHORT_CHARS else ""
            names_page = (
                tag == "h1"
                and chars <= 2 * _TITLE_CHARS  # no longer heading is half of a title
                and _names(" ".join(paragraphs).casefold(), titles)
            )
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
                    names_page,
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
        return clean_value(author), clean_value(published)


_SET_START, _SET_END, _SET_ROLE, _SET_TAG = (
    getattr(Block, name).__set__ for name in ("start", "end", "role", "tag")
)


def _new_block(start: int, end: int, role: Role, tag: str) -> Block:
    """``Block(start, end, role, tag)`` without the frozen ``__init__``'s per-field setattr
    calls, which cost a tenth of the whole parse on pages of many short paragraphs: its
    slots are set directly."""
    block: Block = object.__new__(Block)
    _SET_START(block, start)
    _SET_END(block, end)
    _SET_ROLE(block, role)
    _SET_TAG(block, tag)
    return block


def _names(heading: str, titles: list[str]) -> bool:
    """Whether one of the page's ``titles`` (casefolded) names ``heading`` (casefolded): one
    holds the other, the shorter at least half as long ("Diario HOY | Darán bendición a
    vehículos este sábado" names the headline "Darán bendición a vehículos este sábado", not
    the site's name "Diario HOY")."""
    for title in titles:
        short, long = sorted((heading, title), key=len)
        if short and short in long and len(short) * 2 >= len(long):
            return True
    return False
