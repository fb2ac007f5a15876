"""A parsed page: its clean text, its paragraph blocks with their roles, and its metadata.

The value types :func:`~quotebound.text.parsing.parse_page` returns; modules that only read
pages (passages, candidates, the raw store) need nothing else from the parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Block", "Page", "Role"]

Role = Literal["main", "boilerplate"]


@dataclass(frozen=True, slots=True)
class Block:
    """One paragraph of :attr:`Page.text` (slotted: a large page has a hundred thousand)."""

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
