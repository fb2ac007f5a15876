"""Evidence candidates: quotable windows of a page's main content.

A candidate is a span ``page.text[start:end]`` of ``MIN_WORDS`` to ``MAX_WORDS`` words (15-80).
Paragraphs in range are taken whole; longer ones are split at sentence boundaries into windows
within the bounds (a single sentence over the limit at word boundaries), never dropped; a short
paragraph (a function's signature, a one-line summary) is joined with the paragraphs that
follow it until the window is long enough. Short paragraphs that reach no such window (the last
lines of an article, a paragraph before a heading) join the window just before them when it is
their neighbour and has room, else stand alone from ``MIN_ALONE_WORDS``: they never vanish. A
definition term only starts a window, and a whole definition-list entry of at least
``MIN_DEFINITION_WORDS`` is a candidate on its own. Headings, table cells and code (``pre``)
never join one, but for a short line of code that a colon introduces ("You can install it
through pip:" / "pip install yapapi"), which joins the sentence it completes; other short code
makes no candidate. Ids depend only on the source and the quote's text, so they are stable
across rounds, runs and processes.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from quotebound.evidence.relevance import sentence_spans
from quotebound.text.normalize import normalize_text
from quotebound.text.page import Block, Page
from quotebound.text.parsing import parse_page

__all__ = [
    "HASH_VERSION",
    "MAX_WORDS",
    "MIN_ALONE_WORDS",
    "MIN_DEFINITION_WORDS",
    "MIN_WORDS",
    "Candidate",
    "chunk_id",
    "extract_candidates",
    "joined",
]

HASH_VERSION = 1
"""Version of :func:`chunk_id`'s normalization; stored beside each hash, never hashed."""
MIN_WORDS = 15
"""The fewest words of a window: a shorter paragraph joins the paragraphs after it."""
MAX_WORDS = 80
"""The most words of a window: a paragraph up to this long is quoted whole, as its author wrote
it, and a longer one is cut at its sentences. Cut at 60 words, a paragraph of 61-80 came apart
into two windows, each without what the other says (the sentence that names the subject, the
one that answers), and neither read as an answer. The sentence encoder reads a quote's first
128 tokens, about 90 words of prose, so it still reads such a paragraph whole."""

_WORD = re.compile(r"\S+")
_LETTERS = re.compile(r"[^\W\d_]{2,}")
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "title", "caption"})
_CELLS = frozenset({"td", "th", "tr", "pre"})
"""Table cells and rows, and preformatted text (code), stand alone: they never join their
neighbours."""
_CODE = frozenset({"pre"})
"""Code, which joins the block before it when that ends with a colon and it is too short to
stand alone (:func:`_introduced`)."""
_PROMPT = ">>>"
"""How an interactive session opens: code that shows what it does, not what to write."""
MIN_DEFINITION_WORDS = 8
"""A definition-list entry (term and definitions) shorter than the paragraph minimum is still a
candidate from this many words: an API reference's one-line summaries live there."""
_TERMS = frozenset({"dt"})
"""A definition term starts a new window: it joins the definitions after it, never before."""
MIN_ALONE_WORDS = 5
"""A short paragraph with no neighbour to join is still a candidate from this many words."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A quotable window of a page: ``quote == page.text[start:end]``.

    It holds the page's text, not a copy of its quote, and its hash as bytes: a large page has
    tens of thousands of candidates, and the quote and ids are made when asked for."""

    source_id: str
    """The Store key of the page it came from."""
    start: int
    """Offset of the quote in the page's clean text."""
    end: int
    """Offset just past the quote."""
    words: int
    """Whitespace-separated words in the quote."""
    digest: bytes = field(repr=False)
    """sha256 of the normalized quote: :attr:`chunk_id` as bytes."""
    text: str = field(repr=False, compare=False)
    """The clean text of the page (shared by all its candidates)."""

    @property
    def quote(self) -> str:
        """The exact text ``page.text[start:end]``."""
        return self.text[self.start : self.end]

    @property
    def chunk_id(self) -> str:
        """sha256 hex of the normalized quote (see :func:`chunk_id`)."""
        return self.digest.hex()

    @property
    def hash_version(self) -> int:
        """The normalization version of ``chunk_id``."""
        return HASH_VERSION

    @property
    def evidence_id(self) -> str:
        """``ev_`` + 16 hex of sha256(source_id + ":" + chunk_id): stable across rounds and
        runs."""
        key = f"{self.source_id}:{self.chunk_id}".encode()
        return f"ev_{hashlib.sha256(key).hexdigest()[:16]}"


def chunk_id(text: str) -> str:
    """sha256 of ``text`` after NFKC and typographic normalization, whitespace folding and
    case folding (HASH_VERSION 1), so the same words hash alike wherever they come from."""
    return _digest(text).hex()


def _digest(text: str) -> bytes:
    return hashlib.sha256(normalize_text(text).strip().casefold().encode("utf-8")).digest()


def extract_candidates(
    page: Page | str, *, source_id: str, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS
) -> list[Candidate]:
    """Candidates from the main content of ``page`` in document order, without duplicates."""
    if min_words < 1 or max_words < 2 * min_words:
        raise ValueError(
            f"need 1 <= min_words and max_words >= 2 * min_words, got {min_words}, {max_words}"
        )
    if isinstance(page, str):
        page = parse_page(page, content_type="text/plain")
    text = page.text
    seen: set[bytes] = set()
    out: list[Candidate] = []
    for start, end in _windows(text, page.blocks, min_words, max_words):
        quote = text[start:end]
        if not _carries_content(quote):
            continue
        digest = _digest(quote)
        if digest in seen:
            continue
        seen.add(digest)
        out.append(
            Candidate(
                source_id=source_id,
                start=start,
                end=end,
                words=len(_WORD.findall(quote)),
                digest=digest,
                text=text,
            )
        )
    return out


def joined(first: Candidate, second: Candidate) -> Candidate | None:
    """One candidate spanning ``first`` and ``second`` when ``second`` follows ``first`` on
    the same page with only whitespace between them (two windows of one passage, with no
    heading or other text in between), else None. Its quote is the page's own text."""
    if (
        first.source_id != second.source_id
        or second.start < first.end
        or first.text != second.text
        or first.text[first.end : second.start].strip()
    ):
        return None
    return Candidate(
        source_id=first.source_id,
        start=first.start,
        end=second.end,
        words=first.words + second.words,
        digest=_digest(first.text[first.start : second.end]),
        text=first.text,
    )


def _carries_content(quote: str) -> bool:
    """At least half the words hold letters: not a table of numbers or a run of punctuation."""
    words = _WORD.findall(quote)
    return sum(1 for w in words if _LETTERS.search(w)) * 2 >= len(words)


def _windows(
    text: str, blocks: tuple[Block, ...], min_words: int, max_words: int
) -> Iterator[tuple[int, int]]:
    # (start, end, words, index of its last block, whether a short neighbour may join it)
    windows: list[tuple[int, int, int, int, bool]] = []
    chain: list[tuple[int, int, int, int]] = []  # short paragraphs waiting to be joined
    term = False  # the chain starts with a definition term

    def settle() -> None:
        # A chain that never reached the minimum: a whole definition-list entry (an API
        # signature and its summary) is one unit even so; other short paragraphs join the
        # window just before them, or stand alone when that is full or not their neighbour.
        words = sum(c[2] for c in chain)
        if term and len(chain) > 1 and words >= MIN_DEFINITION_WORDS:
            windows.append((chain[0][0], chain[-1][1], words, chain[-1][3], False))
            return
        if windows:
            start, _, before, last, joinable = windows[-1]
            if joinable and last == chain[0][3] - 1 and before + words <= max_words:
                windows[-1] = (start, chain[-1][1], before + words, chain[-1][3], True)
                return
        if words >= MIN_ALONE_WORDS:
            windows.append((chain[0][0], chain[-1][1], words, chain[-1][3], True))

    for index, block in enumerate(blocks):
        if len(windows) > 1:  # only the last window may still grow: the others are given out
            yield from ((w[0], w[1]) for w in windows[:-1])
            del windows[:-1]
        n = len(_WORD.findall(text, block.start, block.end))
        fits = sum(c[2] for c in chain) + n <= max_words
        # A short line of code that a colon introduces ("You can install it through pip:" /
        # "pip install yapapi") completes what introduces it: the chain of short paragraphs
        # it then joins as a paragraph would, or the window just before it.
        introduced = n < min_words and _introduced(text, blocks, index)
        if introduced and not chain and windows and windows[-1][3] == index - 1:
            start, _, before, _, joinable = windows[-1]
            if before + n <= max_words:
                windows[-1] = (start, block.end, before + n, index, joinable)
                continue
        joins = (
            block.role == "main" and block.tag not in _HEADINGS and block.tag not in _CELLS
        ) or (introduced and bool(chain) and fits)
        if chain and (not joins or block.tag in _TERMS or not fits):
            settle()
            chain = []
        if block.role != "main" or block.tag in _HEADINGS:
            continue
        if chain:
            chain.append((block.start, block.end, n, index))
            if sum(c[2] for c in chain) >= min_words:
                windows.append((chain[0][0], block.end, sum(c[2] for c in chain), index, True))
                chain = []
        elif n < min_words:
            chain = [(block.start, block.end, n, index)] if joins else []
            term = block.tag in _TERMS
        elif n <= max_words:
            windows.append((block.start, block.end, n, index, joins))
        else:
            for start, end, words in _split(text, block.start, block.end, min_words, max_words):
                windows.append((start, end, words, index, joins))
    if chain:
        settle()
    yield from ((w[0], w[1]) for w in windows)


def _introduced(text: str, blocks: tuple[Block, ...], index: int) -> bool:
    """Whether ``blocks[index]`` is code of the main content, not an interactive session,
    right after a block of it that ends with a colon. A session (``>>> import shlex``) shows
    what code does; it is not what a sentence tells the reader to write."""
    block = blocks[index]
    if block.role != "main" or block.tag not in _CODE or index == 0:
        return False
    if text.startswith(_PROMPT, block.start, block.end):
        return False
    before = blocks[index - 1]
    return before.role == "main" and text[before.start : before.end].rstrip().endswith(":")


def _split(
    text: str, start: int, end: int, min_words: int, max_words: int
) -> Iterator[tuple[int, int, int]]:
    """Windows of whole sentences within the bounds (with their word counts); an over-long
    sentence by words."""
    units: list[tuple[int, int, int]] = []
    for s, e in sentence_spans(text[start:end]):
        s, e = start + s, start + e
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, s, e)]
        if len(words) <= max_words:
            units.append((s, e, len(words)))
            continue
        parts = math.ceil(len(words) / max_words)
        size = math.ceil(len(words) / parts)
        for i in range(0, len(words), size):
            chunk = words[i : i + size]
            units.append((chunk[0][0], chunk[-1][1], len(chunk)))
    windows: list[list[tuple[int, int, int]]] = [[]]
    for unit in units:
        if windows[-1] and sum(u[2] for u in windows[-1]) + unit[2] > max_words:
            windows.append([])
        windows[-1].append(unit)
    # A short last window takes sentences from the one before while both stay in bounds.
    while len(windows) > 1 and sum(u[2] for u in windows[-1]) < min_words:
        prev, last = windows[-2], windows[-1]
        moved = prev[-1]
        if len(prev) == 1 or sum(u[2] for u in prev) - moved[2] < min_words:
            break
        if sum(u[2] for u in last) + moved[2] > max_words:
            break
        windows[-2], windows[-1] = prev[:-1], [moved, *last]
    for w in windows:
        if w:  # a last window too short to stand alone is still never dropped
            yield w[0][0], w[-1][1], sum(u[2] for u in w)
