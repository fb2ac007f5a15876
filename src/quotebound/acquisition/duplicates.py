"""One source per content: whether two pages say the same thing under two addresses.

An HTML page and its Sphinx ``_sources`` text, a print or AMP version, a syndicated copy: their
markup and boilerplate differ, their words barely. Two pages are the same content when the sets
of words (three letters or more, case folded) they use overlap by ``SAME_CONTENT_JACCARD``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["SAME_CONTENT_JACCARD", "content_words", "content_words_of", "same_content"]

SAME_CONTENT_JACCARD = 0.7
"""Word-set overlap (intersection over union) from which two pages are one content."""

_WORD = re.compile(r"\w{3,}")


def content_words(text: str) -> frozenset[str]:
    """The case-folded words of three or more characters that ``text`` uses, read one word
    at a time: a large page's list of lines or words would be far larger than its set."""
    return frozenset(m.group().casefold() for m in _WORD.finditer(text))


def content_words_of(texts: Iterable[str]) -> frozenset[str]:
    """:func:`content_words` of several texts together (a page's passages, its lines), read
    one text at a time: a whole page's word list would be far larger than its set of words."""
    words: set[str] = set()
    for text in texts:
        words.update(w.casefold() for w in _WORD.findall(text))
    return frozenset(words)


def same_content(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two pages' :func:`content_words` make them one content."""
    if not a and not b:
        return True
    return len(a & b) >= SAME_CONTENT_JACCARD * len(a | b)
