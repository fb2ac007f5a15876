"""Passages of a page: short runs of its blocks, each with the heading path it sits under.

Retrieval and ranking work on passages rather than whole pages: a passage is a block or a few
consecutive blocks of main content (a heading or a definition term starts a new one), at most
about ``MAX_PASSAGE_WORDS`` words, together with the headings above it (``h1`` ... ``h6``, and
the definition term it defines) that a reader sees it under. A page whose main content is thin
(roles can be poor on unusual markup) contributes all its blocks, so no page is lost.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from quotebound.text.normalize import as_seen
from quotebound.text.page import Block, Page

__all__ = [
    "HEADING_SEPARATOR",
    "HEAD_CHARS",
    "MAX_PASSAGE_WORDS",
    "HeadingIndex",
    "Passage",
    "passage_head",
    "passages",
    "under_heading",
]

MAX_PASSAGE_WORDS = 120
"""A passage ends at the block that takes it past this many words."""

HEADING_SEPARATOR = " / "
"""What joins the headings of a heading path written as one string ("Title / h2 / h3")."""

HEAD_CHARS = 80
"""Characters of a passage that identify it (see :func:`passage_head`)."""
_HEADING_LEVEL = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_TERM_LEVEL = 7
"""A definition term (an API entry's signature, a setting's name) heads its definitions."""
_STARTS = frozenset({"dt"})
"""Block tags that start a passage of their own (an API entry's signature)."""
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Passage:
    """``page.text[start:end]`` and the headings it sits under, outermost first."""

    start: int
    end: int
    headings: tuple[str, ...]
    text: str


def passage_head(text: str) -> str:
    """The first ``HEAD_CHARS`` characters of a passage as a reader sees it, whitespace folded
    (the index holds its passages so): enough to find the passage again in the page it came
    from."""
    return " ".join(as_seen(text).split())[:HEAD_CHARS]


def under_heading(path: str, text: str, *, besides: str = "") -> str:
    """``text`` under the last heading of ``path`` (a heading path joined by
    ``HEADING_SEPARATOR``), as a reader sees it: "How are lists implemented in CPython?:
    CPython's lists are ..."; ``text`` alone when there is no heading or it is ``besides``."""
    last = path.rpartition(HEADING_SEPARATOR)[2]
    return f"{last}: {text}" if last and last != besides else text


class HeadingIndex:
    """The heading path in force at any offset of a page's text: the headings above it and the
    definition term (``dt``) whose definitions it is in."""

    def __init__(self, page: Page) -> None:
        self._starts: list[int] = []
        self._paths: list[tuple[str, ...]] = []
        path: list[tuple[int, str]] = []
        for block in page.blocks:
            # The headline is boilerplate to the article body, yet the title of all of it.
            if block.role != "main" and block.tag != "h1":
                continue
            level = _TERM_LEVEL if block.tag in _STARTS else _HEADING_LEVEL.get(block.tag)
            if level is None:
                continue
            while path and path[-1][0] >= level:
                path.pop()
            # A permalink's mark ("¶") is not in the text (the walker leaves it out); a "#"
            # that ends a heading is its own ("C#", psql's prompt escape "%#").
            path.append((level, " ".join(page.text[block.start : block.end].split())))
            self._starts.append(block.start)
            self._paths.append(tuple(h for _, h in path if h))

    def at(self, offset: int) -> tuple[str, ...]:
        """The headings above ``offset``, outermost first (empty before the first heading)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._paths[i] if i >= 0 else ()


def passages(page: Page) -> Iterator[Passage]:
    """The page's passages in document order, one at a time: together they are a copy of the
    page's main text, so a reader that needs one at a time never holds them all."""
    headings = HeadingIndex(page)
    run: list[Block] = []
    words = 0
    for block in _blocks(page):
        if block.tag in _HEADING_LEVEL:
            if run:
                yield _passage(page, headings, run)
            run, words = [], 0
            continue
        n = len(_WORD.findall(page.text, block.start, block.end))
        if run and (block.tag in _STARTS or words + n > MAX_PASSAGE_WORDS):
            yield _passage(page, headings, run)
            run, words = [], 0
        run.append(block)
        words += n
    if run:
        yield _passage(page, headings, run)


def _passage(page: Page, headings: HeadingIndex, run: list[Block]) -> Passage:
    start, end = run[0].start, run[-1].end
    return Passage(start, end, headings.at(start), page.text[start:end])


def _blocks(page: Page) -> tuple[Block, ...]:
    return tuple(b for b in page.blocks if b.role == "main")
