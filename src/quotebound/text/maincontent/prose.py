"""Paragraphs as the main-content scorer sees them, and the classes it sorts them into.

The parser hands each paragraph over as a :class:`Para`: its length, link text, commas, the
block it starts in and how it ends. :func:`kind_of` classes it as jusText does: good prose,
near-good (list items, table rows, code), short, or bad (a link list, or page furniture by its
stock phrases, such as a copyright line or "read more"); :func:`neighbours` gives each the class
of the nearest good or bad paragraph before it, which short ones follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "BAD",
    "GOOD",
    "NEAR",
    "SHORT",
    "SHORT_CHARS",
    "Para",
    "kind_of",
    "lead_like",
    "neighbours",
]

SHORT_CHARS = 160
"""Paragraphs up to this long are checked for stock phrases (their text is kept for it)."""
_STOCK = re.compile(
    r"©|\(c\) \d{4}|copyright|all rights reserved|alle rechte vorbehalten|tous droits réservés"
    r"|todos los derechos|todos os direitos|tutti i diritti|wszelkie prawa"
    r"|alle rechten voorbehouden|advertisement|^\W*(?:anzeige|werbung|publicidad|publicité"
    r"|publicidade|pubblicità|reklama|sponsored|kontakt|contact|kommentieren|comment)\b"
    r"|newsletter|subscribe|abonnieren|abonnez|suscríbete|sign up|follow us|share this"
    r"|read more|weiterlesen|mehr zum thema|lesen sie auch|auch interessant|auch interessieren"
    r"|lire aussi|lee también|leia também|leggi anche|czytaj (?:też|także)|lees ook"
    r"|getty images|support our work|download (?:the|our) \w+ app"
    r"|^(?:photo|foto|bild|image|credit|quelle|fuente|source|tags|category|kategorie)s?\s*:",
    re.IGNORECASE,
)
"""Stock phrases of page furniture, in the languages of most of the web's pages."""


def _is_stock(text: str) -> bool:
    """Whether a short paragraph is page furniture by its words: a copyright line, an
    advertisement label, a newsletter or follow-us call, a read-more pointer, a photo credit
    (in the languages of most of the web's pages)."""
    return bool(text) and _STOCK.search(text) is not None


@dataclass(frozen=True)
class Para:
    """One paragraph as the scorer sees it."""

    node: int
    """The innermost block element it starts in (-1: none)."""
    chars: int
    links: int
    """Characters of link text in it."""
    commas: int
    in_article_body: bool
    """Its text is part of the page's JSON-LD ``articleBody``."""
    tag: str
    """The block element it starts in."""
    heading: bool
    """It is a heading (``h1`` to ``h6``)."""
    introduces: bool
    """It ends with a colon: it introduces what follows, and belongs where that belongs."""
    sentence: bool
    """It ends like a sentence (``.``, ``!``, ``?``, a closing quote ...)."""
    short_text: str = ""
    """The text of a paragraph of at most :data:`SHORT_CHARS`, for stock phrases; else ""."""
    names_page: bool = False
    """It is a top heading (``h1``) that the page's title names: its article's headline."""


_PROSE_CHARS = 80
"""A paragraph beside the region joins it when it is prose of at least this many characters."""

GOOD, NEAR, SHORT, BAD = range(4)


def kind_of(p: Para) -> int:
    """jusText's classes: good prose, near-good, short, or bad (a link list). Items of lists,
    rows of tables and code are near-good: they belong to the prose around them."""
    if _is_stock(p.short_text) or (p.links * 2 >= p.chars and not _says(p)):
        return BAD
    if p.links * 4 < p.chars and (p.chars >= _PROSE_CHARS or (p.chars >= 40 and p.sentence)):
        return NEAR if p.heading else GOOD
    if p.chars >= 40 or (p.tag in _ITEM_TAGS and p.links * 4 < p.chars):
        return NEAR
    return SHORT


_OWN_CHARS = 15
"""Characters outside links from which a sentence is no link list, however much of it links: a
few words of its own, as a release note's "Added support for" before the feature it links."""


def _says(p: Para) -> bool:
    """Whether a paragraph says something in its own words beside its links: a sentence with
    :data:`_OWN_CHARS` characters outside them ("Added support for ALTER TABLE DROP COLUMN.",
    "Added verbs SQLITE_STATUS_PAGECACHE_SIZE and SQLITE_STATUS_SCRATCH_SIZE to the
    sqlite3_status() interface.", each name a link). A headline in a list of links says
    nothing of its own."""
    return p.sentence and p.chars - p.links >= _OWN_CHARS and p.tag not in _CELL_TAGS


_SKIPPED = (SHORT, NEAR)
_ITEM_TAGS = frozenset({"li", "tr", "td", "th", "dd", "dt", "pre"})
_CELL_TAGS = frozenset({"tr", "td", "th"})


def neighbours(kinds: list[int]) -> list[int]:
    """For each paragraph, the kind of the nearest good or bad one before it (the page's edge
    counts as bad), in one pass."""
    out = []
    last = BAD
    for kind in kinds:
        out.append(last)
        if kind not in _SKIPPED:
            last = kind
    return out


def lead_like(p: Para) -> bool:
    """Prose, or a heading long enough to be a standfirst set in a heading's type."""
    if p.heading:
        return p.chars >= _PROSE_CHARS and p.links * 4 < p.chars
    return kind_of(p) == GOOD
