"""The token index of a source text, built once per page, that fuzzy verification searches.

A quote that is neither an exact nor a normalized substring of its page is matched token by
token (``verification``). The page side of that match lives here: the page's normalized text
(:func:`quotebound.text.normalize.normalize_with_offsets`), its tokens (words and numbers,
casefolded), and those tokens as one string of code characters, so that finding a token
sequence or aligning one is a C-level string search. Articles (:data:`ARTICLES`) are indexed
apart, as a fuzzy match may omit or add them.

Both the normalized text and the index are cached per source text in the shared byte budget
(:mod:`quotebound.storage.bytecache`, docs/architecture.md §2), so many quotes against one
page cost one normalization. The index is a few bytes per character of the page (one code
character per token, no per-character offsets); a token's offsets are found on demand by
tokenizing its block (about 2,048 characters) again.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, compress, count, islice, repeat
from operator import add, sub

from quotebound.storage.bytecache import array_bytes, memoize, str_bytes
from quotebound.text.normalize import NormalizedText, normalize_with_offsets

__all__ = [
    "ARTICLES",
    "UNKNOWN_CODE",
    "SourceIndex",
    "normalized_source",
    "source_index",
    "tokenize",
]

ARTICLES = frozenset({"a", "an", "the"})
"""Tokens a fuzzy match may omit or add."""

_TOKEN = re.compile(r"\d++(?:[.,:/]\d++)*+|\w++(?:'\w++)*+")
"""Numbers (``1.5``, ``3,000``, ``12:30``) and words (``don't``); possessive, as backtracking
would never find another match."""
_ASCII_TOKEN = re.compile(_TOKEN.pattern, re.ASCII)
"""The same matches as ``_TOKEN`` on ASCII text, found faster."""
_TOKEN_BREAK = re.compile(r"[^\w.,:/']")
"""A character that no token contains."""
_BLOCK_CHARS = 2048
"""The source is tokenized in blocks of about this many characters (cut at a token break)."""
_SEPARATOR = "\x00"
"""Joins tokens to casefold them in one call: no token contains it or casefolds to it."""
UNKNOWN_CODE = "\x00"
"""A code no source token has (:func:`_codes` starts at ``chr(1)``): for a quote token that the
source never uses."""


@dataclass(frozen=True)
class SourceIndex:
    """A source text's normalized form and token index, built once per text."""

    normalized: NormalizedText
    tokens: list[str]
    """Casefolded tokens of the normalized text; equal tokens share one string object."""
    block_starts: array[int]
    """Normalized offset where each tokenization block begins."""
    block_tokens: array[int]
    """Index in ``tokens`` of each block's first token."""
    article_shifts: array[int]
    """Per article token, in order: how many content (non-article) tokens come before it."""
    content_codes: str
    """The content tokens as one string of codes."""
    codes: dict[str, str]
    """Token -> one character, for matching and aligning token sequences as strings."""
    token_codes: str
    """``tokens`` as one string of codes."""

    def content_token(self, number: int) -> int:
        """The index in ``tokens`` of content token ``number``."""
        return number + bisect_right(self.article_shifts, number)

    def token_span(self, first: int, last: int) -> tuple[int, int]:
        """The normalized span from the start of ``tokens[first]`` to the end of ``tokens[last]``.

        Each end is found by tokenizing its block again, which yields the same matches: blocks
        are cut at characters that no token contains."""
        return self._token_match(first).start(), self._token_match(last).end()

    def _token_match(self, number: int) -> re.Match[str]:
        """The match of ``tokens[number]``, found by tokenizing again from its block's start."""
        block = bisect_right(self.block_tokens, number) - 1
        text = self.normalized.text
        matches = _TOKEN.finditer(text, self.block_starts[block])
        return next(islice(matches, number - self.block_tokens[block], None))


def tokenize(normalized: str) -> list[str]:
    """The casefolded tokens of a normalized text, as :class:`SourceIndex` holds a page's."""
    return [match.group().casefold() for match in _TOKEN.finditer(normalized)]


def _normalized_bytes(normalized: NormalizedText) -> int:
    return str_bytes(normalized.text) + array_bytes(
        (
            normalized.change_starts,
            normalized.change_ends,
            normalized.source_starts,
            normalized.source_ends,
        )
    )


_TOKEN_BYTES = 8
"""A token's place in the index's token list (the token strings are shared)."""
_DISTINCT_BYTES = 150
"""A distinct token: its string and its entry in the code table."""


def _index_bytes(index: SourceIndex) -> int:
    """The index's own parts (its normalized text is cached, and counted, on its own)."""
    return (
        len(index.tokens) * _TOKEN_BYTES
        + len(index.codes) * _DISTINCT_BYTES
        + str_bytes(index.content_codes)
        + str_bytes(index.token_codes)
        + array_bytes((index.block_starts, index.block_tokens, index.article_shifts))
    )


@memoize(_normalized_bytes)
def normalized_source(source_text: str) -> NormalizedText:
    """``source_text`` normalized with its map back to the original offsets (cached)."""
    return normalize_with_offsets(source_text)


@memoize(_index_bytes)
def source_index(source_text: str) -> SourceIndex:
    """The token index of ``source_text`` (cached)."""
    normalized = normalized_source(source_text)
    text = normalized.text
    tokens: list[str] = []
    block_starts: array[int] = array("i")
    block_tokens: array[int] = array("i")
    start = 0
    while start < len(text):
        cut = _TOKEN_BREAK.search(text, start + _BLOCK_CHARS)
        end = cut.start() if cut else len(text)
        block_starts.append(start)
        block_tokens.append(len(tokens))
        block = text[start:end]
        if block.isascii():  # casefold is lower, and the ASCII pattern is faster
            tokens += _ASCII_TOKEN.findall(block.lower())
        elif found := _TOKEN.findall(block):
            tokens += _SEPARATOR.join(found).casefold().split(_SEPARATOR)
        start = end
    distinct = dict(zip(tokens, tokens, strict=True))
    tokens = list(map(distinct.__getitem__, tokens))
    codes = dict(zip(distinct.values(), _codes(), strict=False))
    token_codes = "".join(map(codes.__getitem__, tokens))
    articles = array("i", list(compress(count(), map(ARTICLES.__contains__, tokens))))
    after_articles = chain((0,), map(add, articles, repeat(1)))
    content_codes = "".join(
        map(token_codes.__getitem__, map(slice, after_articles, chain(articles, (None,))))
    )
    return SourceIndex(
        normalized,
        tokens,
        block_starts,
        block_tokens,
        array("i", map(sub, articles, count())),
        content_codes,
        codes,
        token_codes,
    )


def _codes() -> Iterator[str]:
    """A distinct character per token number from 1 (skipping surrogates; the last one repeats)."""
    return chain(
        map(chr, range(1, 0xD800)), map(chr, range(0xE000, 0x110000)), repeat(chr(0x10FFFF))
    )
