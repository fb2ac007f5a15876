"""The tree walker: one iterative, depth-first pass over lexbor's tree of a page.

This is the parser's hot loop. It appends text to the current paragraph, marks ``<br>``, counts
the text of links, does not enter dropped elements (:mod:`quotebound.text.html.tags` says which
tag is what; a ``<noscript>``, whose markup is text to a browser running scripts, is read, as
its markup parsed, only when :mod:`~quotebound.text.html.noscript` says that such a browser
shows its words too) nor a permalink's mark, and calls into the
:class:`~quotebound.text.html.collector.Collector` only where blocks, cells and rare elements
open or close.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from quotebound.text.html.collector import HEADINGS, Collector
from quotebound.text.html.folding import BR_MARK
from quotebound.text.html.noscript import ScriptedCopies
from quotebound.text.html.tags import BR, CELL, DROP, KIND, KIND_TEXT_ONLY, LINK, PERMALINK_MARKS

__all__ = ["walk"]

_TEXT_ID = LexborHTMLParser("x").body.first_child.tag_id  # type: ignore[union-attr]
"""lexbor's node type id of text nodes."""


def walk(tree: LexborHTMLParser, c: Collector) -> None:
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
    table = KIND if c.roles else KIND_TEXT_ONLY
    copies = ScriptedCopies(tree)
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
            child = None
            if kind is None:
                pass
            elif kind <= CELL:
                undo = open_block(tag, kind, node)
            elif kind == BR:
                append(BR_MARK)
            elif kind == LINK:
                href = node.attributes.get("href")
                # A link into its own page that only marks a permalink (Sphinx's and MkDocs'
                # "¶", rustdoc's "§") is shown by a stylesheet only while the pointer is on its
                # heading: a reader never finds it in the page's text, so it is left out. A
                # heading's link into its own page (Sphinx's back-link to the contents, a
                # permalink) leads nowhere else: its text is the heading's, not a link list's.
                if href is None:
                    pass
                elif href.startswith("#") and (
                    (mark := node.text(deep=True).strip() in PERMALINK_MARKS)
                    or c.para_tag in HEADINGS
                ):
                    descend = not mark
                    if c.roles and c.para_tag in HEADINGS:
                        c.permalink(href[1:])
                else:
                    links += 1
                    undo = LINK
            else:
                c.other(kind, node)
                if kind == DROP:
                    descend = False
                    if tag == "noscript":
                        child = copies.read(node)
            if descend:
                child = node.first_child
            if child is not None:
                stack.append(node)
                undos.append(undo)
                node = child
                continue
        # Leave the node, then its parents until one has a next sibling.
        while True:
            if undo == LINK:
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
