"""One source per content: whether two pages say the same thing under two addresses.

An HTML page and its Sphinx ``_sources`` text, a print or AMP version, a syndicated copy: their
markup and boilerplate differ, their words barely. Two pages are the same content when the sets
of words (three letters or more, case folded) they use overlap by ``SAME_CONTENT_JACCARD``.
"""

from __future__ import annotations

import re

__all__ = ["SAME_CONTENT_JACCARD", "content_words", "same_content"]

SAME_CONTENT_JACCARD = 0.7
"""Word-set overlap (intersection over union) from which two pages are one content."""

_WORD = re.compile(r"\w{3,}")


def content_words(text: str) -> frozenset[str]:
    """The case-folded words of three or more characters that ``text`` uses (read one at a
    time: a page's word list would be far larger than its set of words)."""
    return frozenset(m.group().casefold() for m in _WORD.finditer(text))


def same_content(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two pages' :func:`content_words` make them one content."""
    if not a and not b:
        return True
    return len(a & b) >= SAME_CONTENT_JACCARD * len(a | b)
