"""Which ``<noscript>`` elements to read: those whose text a browser running scripts shows too.

A page is parsed as a browser running scripts parses it, so a ``<noscript>`` holds its markup
as text: an unclosed ``<div>`` in one (``<noscript><div class=nojs></noscript>``) does not
swallow the page after it. quotebound runs no scripts. A page that renders its article from a
script template (Blogger's blogs, for one) keeps a copy of the article, as markup, in
``<noscript>``: a reader whose browser runs scripts sees the template's words, one whose
browser does not sees the copy's, and both are the same words, so a quote from the copy can be
found at the page's URL; that copy is parsed on its own and walked in the ``<noscript>``'s
place. Every other ``<noscript>`` ("please enable JavaScript", tracking pixels, style
overrides) shows nothing to a reader running scripts, and is not read.
"""

from __future__ import annotations

import html
import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = ["ScriptedCopies"]

_CODE = re.compile(r"<(script|style)\b", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_MIN_WORDS = 20
"""A copy shorter than this is a notice, not an article."""
_PROBE_WORDS = 40
"""The copy's first words looked for in the scripts: enough to tell an article apart."""
_MAX_ASKED = 64
"""The most ``<noscript>`` elements asked about in one page; later ones are not read, so that a
hostile page of thousands (or of thousands nested) cannot make the walk read each one's markup
and search the scripts for it thousands of times."""


def _words(markup: str) -> str:
    """The words ``markup`` shows (not its scripts' and styles'), entities decoded, one space
    apart. One pass: an unclosed script ends the words, it is not searched for again."""
    lower = markup.lower()
    shown: list[str] = []
    at = 0
    while (code := _CODE.search(markup, at)) is not None:
        shown.append(markup[at : code.start()])
        at = lower.find("</" + code.group(1).lower(), code.end())
        if at < 0:
            break
    else:
        shown.append(markup[at:])
    return " ".join(html.unescape(_TAG.sub(" ", " ".join(shown))).split())


class ScriptedCopies:
    """Tells, for one page, whether a ``<noscript>`` copies markup its scripts render.

    The scripts' text is read once, at the first ``<noscript>`` asked about."""

    def __init__(self, tree: LexborHTMLParser) -> None:
        self._tree = tree
        self._scripted: str | None = None
        self._asked = 0
        self._copies: list[LexborHTMLParser] = []

    def read(self, noscript: LexborNode) -> LexborNode | None:
        """The first node of ``noscript``'s markup parsed as the page's, if it is :meth:`shown`,
        else None; its tree lives as long as this object."""
        if not self.shown(noscript):
            return None
        copy = LexborHTMLParser(noscript.inner_html or "", is_fragment=True, scripting=True)
        self._copies.append(copy)
        return copy.root

    def shown(self, noscript: LexborNode) -> bool:
        """Whether ``noscript``'s first words (at least ``_MIN_WORDS`` of them) are markup a
        script of the page carries: what a browser running it shows. False for every element after
        the page's first ``_MAX_ASKED``."""
        if self._asked >= _MAX_ASKED:
            return False
        self._asked += 1
        words = _words(noscript.inner_html or "").split()
        if len(words) < _MIN_WORDS:
            return False
        if self._scripted is None:
            templates = (s.text(deep=True) or "" for s in self._tree.css("script"))
            self._scripted = " ".join(_words(t) for t in templates if "<" in t)
        return " ".join(words[:_PROBE_WORDS]) in self._scripted
