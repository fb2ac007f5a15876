"""What a container's tag and attributes say about it, and the tree the scorer reads them from.

The parser's walk records each block element as a node of :class:`Nodes`, with the weight and flags
:func:`node_info` gives it: class and id words that mark an article (``article``, ``content``,
``post`` ...) or a boilerplate box (``comment``, ``share``, ``related`` ...), its tag
(``<article>``, ``<main>``, ``<nav>``), its ARIA role, ``itemprop=articleBody`` and ``hidden``.
Every signal is a weight the scorer in :mod:`quotebound.text.maincontent.roles` adds up; none
decides alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from quotebound.text.wordtrie import trie_pattern

__all__ = [
    "ARTICLE_TAGS",
    "BODY",
    "HIDDEN",
    "LANDMARK_WEIGHT",
    "NAMED",
    "NEGATIVE",
    "TAG_WEIGHT",
    "Nodes",
    "boilerplate_words",
    "node_info",
]


def _words(text: str) -> list[str]:
    """The whitespace-separated words of ``text``."""
    return text.split()


_POSITIVE = re.compile(
    r"article|body|content|entry|hentry|main|post|text|blog|story|prose|column|detail|lead"
)
"""Words of class and id names that mark an article's container."""
_ANYWHERE = _words(
    """
    advert banner combx comment gdpr cookie consent masthead outbrain taboola recommend sharing
    social shoutbox sidebar skyscraper sponsor shopping breadcrumb byline dateline timestamp
    newsletter subscribe signup popup modal pagination disqus caption copyright affiliate
    siguenos disclaimer callout infobox simplenews facebook instagram whatsapp pinterest trending
    footer
    """
)
_AT_START = _words("share related author rating respond promo login search")
_AT_EDGE = _words(
    """
    foot meta scroll tags tool nav menu pager reply credit follow letter legend bio popular
    contact mostread most-read
    """
)
_NEGATIVE = re.compile(
    rf"(?<![a-z0-9])ads?(?![a-z])|(?<!elementor-)widget|{trie_pattern(_ANYWHERE)}"
    r"|(?<!hide-)(?<!hide-if-)no[-_]?js(?![a-z])|noscript|(?:js|javascript)[-_]?disabled"
    rf"|(?<![a-z]){trie_pattern(_AT_START + _AT_EDGE)}|{trie_pattern(_AT_EDGE)}(?![a-z])"
)
"""Words of class and id names that mark boilerplate boxes. Distinctive words count anywhere
in a name (``sidebarRight``, ``post-sharing-tools``); others only where a word starts
(``share-bar``, ``relatedPosts``, not ``generating``, ``unrelated``) or, short ones, where one
starts or ends (``navbar``, ``post-meta``, not ``apageroot``); "ad" only as a word of its
own (``top-ad``, ``ad300x250``, not ``loading`` nor a generated id such as ``orgd7109ad``, whose
hexadecimal digits end in it); page builders' ``elementor-widget`` is no widget. A box named
for readers whose browser runs no scripts (``no_js_message``, ``c-nojs-teaser``,
``noScriptMessage``, ``javascript-disabled``) asks them to turn scripts on: a page is read as a
browser running scripts shows it, and such a browser hides the box (``hide-if-no-js`` names the
opposite: what it hides is shown)."""
_NOTE = re.compile(r"(?:foot|end)notes?(?:[-_]?list)?")
"""A class or id name of a document's own notes: Sphinx's ``<aside class="footnote-list">``
of ``<aside class="footnote">``, DocBook's ``<div class="footnotes">``, an ``endnotes`` box."""
_NOTE_ROLES = frozenset({"doc-footnote", "doc-endnote", "doc-endnotes"})
"""The DPUB-ARIA roles of a document's own notes."""
_CLASS_WEIGHT = 25.0
_SECTION_CLASSES = frozenset(
    {"sect1", "sect2", "sect3", "sect4", "sect5", "refsect1", "refsect2", "refsect3", "refentry"}
    | {"refsynopsisdiv", "chapter", "appendix", "preface", "simplesect"}
)
"""Classes DocBook gives the sections of a document (``<div class="sect2"
id="SQL-SYNTAX-COMMENTS">``): an element so classed is a section, its id a name (see
:func:`node_info`)."""
TAG_WEIGHT = {
    "article": 20.0,
    "main": 15.0,
    "div": 5.0,
    "pre": 3.0,
    "td": 3.0,
    "blockquote": 3.0,
    "address": -3.0,
    "ol": -3.0,
    "ul": -3.0,
    "dl": -3.0,
    "dd": -3.0,
    "dt": -3.0,
    "li": -3.0,
    "form": -3.0,
    "h1": -5.0,
    "h2": -5.0,
    "h3": -5.0,
    "h4": -5.0,
    "h5": -5.0,
    "h6": -5.0,
    "th": -5.0,
}
_BOILERPLATE_TAGS = frozenset(
    {"nav", "aside", "footer", "menu", "dialog", "header", "form", "figcaption", "h1"}
)
"""Landmarks around an article, and the parts of it that are not its body: a figure's caption
and credit, and the headline (:attr:`Page.title` keeps that)."""
_BOILERPLATE_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
    | {"toolbar", "dialog", "alertdialog"}
)
LANDMARK_WEIGHT = 40.0
"""What a landmark tag or ARIA role (``<nav>``, ``role=main`` ...) adds or takes away."""
ARTICLE_TAGS = frozenset({"article", "main"})
_ARTICLE_BODY_WEIGHT = 50.0
"""What ``itemprop=articleBody`` adds."""

NEGATIVE = 1
"""Flag: the container looks like boilerplate (by class, id, tag or ARIA role)."""
HIDDEN = 2
"""Flag: the container is hidden from readers (``hidden``)."""
BODY = 4
"""Flag: the page names the container as its main content or article (``<main>``,
``<article>``, ``role=main``, ``itemprop=articleBody``)."""
NAMED = 8
"""Flag: the container looks like boilerplate by its class or id names alone, not by its tag
or ARIA role."""


@lru_cache(maxsize=16384)
def _vote(name: str) -> int:
    """-1 for a class or id name that says boilerplate, +1 for one that says article, else 0.

    Within one name the boilerplate word wins: "post-author-bio", "article-footer-box" and
    "related-posts" describe a box inside a post; across names the votes add up."""
    if _NEGATIVE.search(name):
        return -1
    return 1 if _POSITIVE.search(name) else 0


def boilerplate_words(classes: str) -> tuple[str, ...]:
    """The words of a container's ``class`` attribute (lower-cased) that say boilerplate, in
    order: "live-match-comment" of "live-match-comment slider-ele left"."""
    return tuple(name for name in classes.split() if _vote(name) < 0)


def node_info(
    tag: str, attrs: dict[str, str | None], *, section: bool = False
) -> tuple[float, int]:
    """The weight and flags a container's tag and attributes give it.

    The id of a section of a document (``section``: a heading in it links to that id, as
    Sphinx's permalinks do; or its class is DocBook's, :data:`_SECTION_CLASSES`) is the name it
    is linked by, made from its title ("editing-and-navigation", "APP-PSQL-META-COMMANDS"):
    a word of it that marks boilerplate does not make the section a box. A document's own
    notes (a name of :data:`_NOTE`, or a role of :data:`_NOTE_ROLES`) are its text: neither
    their ``<aside>`` nor the "foot" of ``footnote`` makes them boilerplate."""
    weight = TAG_WEIGHT.get(tag, 0.0)
    flags = 0
    names = (attrs.get("class") or "").lower().split()
    ident = (attrs.get("id") or "").lower().split()
    named = section or not _SECTION_CLASSES.isdisjoint(names)
    names += [n for n in ident if _vote(n) > 0] if named else ident
    role = (attrs.get("role") or "").strip().lower()
    voting = [n for n in names if not _NOTE.fullmatch(n)]  # "footnote" is no footer
    notes = role in _NOTE_ROLES or len(voting) < len(names)
    votes = max(-2, min(2, sum(map(_vote, voting))))
    weight += _CLASS_WEIGHT * votes
    if votes < 0:
        flags |= NEGATIVE | NAMED
    if (tag in _BOILERPLATE_TAGS or role in _BOILERPLATE_ROLES) and not notes:
        weight -= LANDMARK_WEIGHT
        flags = (flags | NEGATIVE) & ~NAMED
    if role in ("main", "article"):
        weight += LANDMARK_WEIGHT
        flags |= BODY
    if (attrs.get("itemprop") or "").strip().lower() == "articlebody":
        weight += _ARTICLE_BODY_WEIGHT
        flags = (flags & ~(NEGATIVE | NAMED)) | BODY
    if tag in ARTICLE_TAGS:
        flags |= BODY
    if "hidden" in attrs:
        flags |= HIDDEN
    return weight, flags


@dataclass
class Nodes:
    """The block elements of a page as a tree; parents come before their children."""

    parent: list[int] = field(default_factory=list)
    """Each node's parent index, -1 for a top-level block."""
    tag: list[str] = field(default_factory=list)
    weight: list[float] = field(default_factory=list)
    """What the node's tag and attributes say (see :func:`node_info`)."""
    flags: list[int] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)
    """Each node's ``class`` attribute, lower-cased ("" without one)."""
