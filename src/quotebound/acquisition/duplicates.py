"""One source per content: whether two pages say the same thing under two addresses.

An HTML page and its Sphinx ``_sources`` text, a print or AMP version, a syndicated copy: their
markup and boilerplate differ, their words barely. Two pages are the same content when the sets
of words (three letters or more, case folded) they use overlap by ``SAME_CONTENT_JACCARD``. A
page may also repeat other pages' statements word for word, each out of its context: a list of
requirements, all release notes on one page (:func:`copied_statements`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

__all__ = [
    "SAME_CONTENT_JACCARD",
    "content_words",
    "content_words_of",
    "copied_statements",
    "same_content",
    "same_content_pairs",
]

SAME_CONTENT_JACCARD = 0.7
"""Word-set overlap (intersection over union) from which two pages are one content."""

_WORD = re.compile(r"\w{3,}")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
_STATEMENT_END = re.compile(r"(?<=[.!?])\s+|\n")
_STATEMENT_WORDS = 6
"""Words from which a sentence is a statement that a copy could repeat word for word."""
_COPIED_SHARE = 0.5
"""The share of a passage's words, in statements another page writes, from which it is a copy
of theirs."""


def content_words(text: str) -> frozenset[str]:
    """The case-folded words of three or more characters that ``text`` uses, read one word
    at a time: a large page's list of lines or words would be far larger than its set."""
    return frozenset(map(str.casefold, map(re.Match.group, _WORD.finditer(text))))


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
    small, large = sorted((len(a), len(b)))
    if small < SAME_CONTENT_JACCARD * large:
        # The overlap is at most the smaller set and the union at least the larger: two sets
        # this far apart in size never reach the bar, and their words need not be compared.
        return False
    shared = len(a & b)
    return shared >= SAME_CONTENT_JACCARD * (len(a) + len(b) - shared)


def same_content_pairs(sets: Mapping[int, frozenset[str]]) -> list[tuple[int, int]]:
    """The pairs (i, j) of ``sets`` (word sets by key, keys in ascending order, i < j) that are
    one content (:func:`same_content`). Only pairs whose prefixes share a word are compared:
    each set's words in one order (rarest among the sets first), its prefix the words it cannot
    lack and still reach ``SAME_CONTENT_JACCARD`` with another (prefix filtering), so a few
    hundred passages are not compared each with each."""
    counts = Counter(w for words in sets.values() for w in words)
    # Each word's place in that order, made once: a set's words are then sorted by one integer.
    place = {w: n for n, w in enumerate(sorted(counts, key=lambda w: (counts[w], w)))}
    by_word: dict[str, list[int]] = {}
    pairs: set[tuple[int, int]] = set()
    for i, words in sets.items():
        ordered = sorted(words, key=place.__getitem__)
        keep = len(ordered) - math.ceil(SAME_CONTENT_JACCARD * len(ordered)) + 1
        for w in ordered[:keep]:
            for j in by_word.setdefault(w, []):
                pairs.add((j, i))
            by_word[w].append(i)
    return sorted(p for p in pairs if same_content(sets[p[0]], sets[p[1]]))


def copied_statements(passages: Mapping[int, tuple[str, str]]) -> list[tuple[int, int]]:
    """The pairs (k, j) of ``passages`` (page, text by key) where passage k is mostly (by
    ``_COPIED_SHARE`` of its words, counted in letters: a requirement's number,
    "R-03478-24050-...", is no words) statements that passage j, on another page, writes too:
    sentences of ``_STATEMENT_WORDS`` words or more, case and whitespace aside. A page that
    gathers statements from others (a list of requirements, each with its source page's name;
    all release notes on one page) repeats them word for word."""
    own = {k: _statements(text) for k, (_, text) in passages.items()}
    written: dict[str, set[int]] = {}
    for k, found in own.items():
        for statement in found:
            written.setdefault(statement, set()).add(k)
    words: dict[str, int] = {}  # each statement's words, counted in letters

    def counted(text: str) -> int:
        if text not in words:
            words[text] = len(_LETTERS.findall(text))
        return words[text]

    pairs = []
    for k, found in own.items():
        page, text = passages[k]
        by: dict[int, list[str]] = {}  # each other page's passage: the statements of k it writes
        for statement in found:
            for j in written[statement]:
                if passages[j][0] != page:
                    by.setdefault(j, []).append(statement)
        if by:
            least = _COPIED_SHARE * len(_LETTERS.findall(text))
            pairs += [
                (k, j)
                for j, shared in sorted(by.items())
                if least and sum(map(counted, shared)) >= least
            ]
    return pairs


def _statements(text: str) -> frozenset[str]:
    pieces = (piece.split() for piece in _STATEMENT_END.split(text.casefold()))
    return frozenset(" ".join(words) for words in pieces if len(words) >= _STATEMENT_WORDS)
