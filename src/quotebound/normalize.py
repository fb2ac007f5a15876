"""Text normalization for quote matching, with a map back to the original offsets.

The verifier compares a quote with a page after folding away differences that do not change
the words: Unicode compatibility forms (NFKC), zero-width characters and soft hyphens,
typographic quotes and dashes, and whitespace. A match found in the normalized text must be
reported as a span of the *original* text, so every normalized character can be mapped back to
the original span it came from.

Most normalized characters are copies of original ones, so the map stores only the *changes*
(a whitespace run folded to one space, a removed invisible character, a ligature expanded...);
between two changes, normalized and original offsets differ by a constant. The work is
proportional to the number of changes: unchanged text is copied in whole slices, and ASCII text
is folded with a few C-level string operations.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, count, repeat
from operator import add

__all__ = ["NormalizedText", "normalize_text", "normalize_with_offsets", "strip_quote_decorations"]

_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
"""Zero-width space, non-joiner, joiner, word joiner, byte-order mark, soft hyphen: removed."""

_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\uff07"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"

_TRANSLATION = str.maketrans(
    {**dict.fromkeys(_SINGLE_QUOTES, "'"), **dict.fromkeys(_DOUBLE_QUOTES, '"')}
    | dict.fromkeys(_DASHES, "-")
)

# A run that changes: whitespace other than one plain space (runs of two or more, or a single
# tab/newline/no-break space), invisible characters, or non-ASCII text. Splitting on it yields
# (unchanged text, space run or None, other run or None) per run, then the unchanged tail.
_CHANGING_RUN = re.compile(
    rf"(?P<space>[\s{_INVISIBLE}]{{2,}}|[^\S ]|[{_INVISIBLE}])"
    rf"|(?P<other>[^\x00-\x7f\s{_INVISIBLE}]+)"
)

_ASCII_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
"""The ASCII characters that ``\\s`` matches."""
_ASCII_SPACE_RUN = re.compile(rf"([{_ASCII_SPACE}]{{2,}})")
_ASCII_SPACE_TO_SPACE = str.maketrans(dict.fromkeys(_ASCII_SPACE, " "))

_QUOTE_EDGES = re.compile(r"""^(?:\s|\.\.\.|["'])+|(?:\s|\.\.\.|["'])+$""")


@dataclass(frozen=True)
class NormalizedText:
    """A normalized text and the map from its characters back to spans of the original text.

    Change ``k`` says that the normalized characters ``[change_starts[k], change_ends[k])``
    (none, for a removed character) came from the original span
    ``[source_starts[k], source_ends[k])``. Every other normalized character is a copy of one
    original character, at the offset shifted as much as after the change before it.
    """

    text: str
    """The normalized text."""
    change_starts: array[int]
    """Normalized offset where each change begins, in increasing order."""
    change_ends: array[int]
    """Normalized offset just after each change."""
    source_starts: array[int]
    """Original offset where each change's original span begins."""
    source_ends: array[int]
    """Original offset just after each change's original span."""

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map the normalized span ``[start, end)`` (non-empty) to the original text's span."""
        if not 0 <= start < end <= len(self.text):
            raise ValueError(
                f"a normalized span must be non-empty and inside 0..{len(self.text)}, "
                f"got [{start}, {end})"
            )
        return self._origin(start)[0], self._origin(end - 1)[1]

    @property
    def starts(self) -> array[int]:
        """``starts[i]``: offset in the original text where normalized character ``i`` begins
        (built on each access, in time linear in the text)."""
        return array("i", (self._origin(i)[0] for i in range(len(self.text))))

    @property
    def ends(self) -> array[int]:
        """``ends[i]``: offset in the original text just after normalized character ``i``
        (built on each access, in time linear in the text)."""
        return array("i", (self._origin(i)[1] for i in range(len(self.text))))

    def _origin(self, index: int) -> tuple[int, int]:
        """The original span of normalized character ``index``."""
        change = bisect_right(self.change_starts, index) - 1
        if change < 0:
            return index, index + 1
        if index < self.change_ends[change]:
            return self.source_starts[change], self.source_ends[change]
        start = self.source_ends[change] + index - self.change_ends[change]
        return start, start + 1


def normalize_with_offsets(text: str) -> NormalizedText:
    """Normalize ``text`` (see :func:`normalize_text`), keeping the original span of each char."""
    if text.isascii():
        return _normalize_ascii(text)
    pieces: list[str] = []
    changes = array("i")  # per change: normalized start, normalized end, original start, end
    original = normalized = 0
    parts = _CHANGING_RUN.split(text)
    for i in range(0, len(parts) - 1, 3):
        copied, space, other = parts[i : i + 3]
        pieces.append(copied)
        original += len(copied)
        normalized += len(copied)
        if space is not None:
            if space.strip(_INVISIBLE):  # the run holds whitespace, not only invisible characters
                pieces.append(" ")
                if len(space) > 1:
                    changes.extend((normalized, normalized + 1, original, original + len(space)))
                normalized += 1
            else:
                changes.extend((normalized, normalized, original, original + len(space)))
            original += len(space)
            continue
        if not unicodedata.combining(other[0]) and unicodedata.is_normalized("NFKC", other):
            translated = other.translate(_TRANSLATION)
            # Without combining marks every character is its own cluster and stays one character.
            if translated == other or not any(map(unicodedata.combining, other)):
                pieces.append(translated)
                original += len(other)
                normalized += len(other)
                continue
        first = original
        if copied and unicodedata.combining(other[0]):  # the mark composes with the copied char
            pieces[-1] = copied[:-1]
            first -= 1
            normalized -= 1
        for piece, start, end in _clusters(text, first, original + len(other)):
            pieces.append(piece)
            if len(piece) != 1 or end - start != 1:
                changes.extend((normalized, normalized + len(piece), start, end))
            normalized += len(piece)
        original += len(other)
    pieces.append(parts[-1])
    return NormalizedText(
        "".join(pieces), changes[0::4], changes[1::4], changes[2::4], changes[3::4]
    )


def _normalize_ascii(text: str) -> NormalizedText:
    """:func:`normalize_with_offsets` for ASCII text, where only whitespace runs change."""
    parts = _ASCII_SPACE_RUN.split(text)  # unchanged text, run of 2+ spaces, ..., unchanged text
    copies = parts[0::2]
    folded = " ".join(copies).translate(_ASCII_SPACE_TO_SPACE)
    bounds = array("i", accumulate(map(len, parts)))
    starts = array("i", map(add, accumulate(map(len, copies)), count()))
    del starts[-1]
    return NormalizedText(
        folded, starts, array("i", map(add, starts, repeat(1))), bounds[0:-1:2], bounds[1::2]
    )


def _clusters(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    """``text[start:end]`` as (normalized text, original start, original end) per character,
    each combining mark composed with the cluster before it."""
    clusters: list[tuple[str, int, int]] = []
    for index in range(start, end):
        first = index
        if clusters and unicodedata.combining(text[index]):
            first = clusters.pop()[1]
        raw = text[first : index + 1]
        normalized = unicodedata.normalize("NFKC", raw).translate(_TRANSLATION)
        clusters.append((normalized, first, index + 1))
    return clusters


def normalize_text(text: str) -> str:
    """Fold ``text`` for comparison: NFKC; zero-width characters and soft hyphens removed;
    typographic quotes to ``'``/``"``; dashes (hyphen, en, em, minus, figure dash...) to ``-``;
    every whitespace run (incl. no-break spaces) to one space. Case is kept."""
    return normalize_with_offsets(text).text


def strip_quote_decorations(normalized_quote: str) -> str:
    """Strip leading/trailing ellipses (``...``), quote marks and spaces from a normalized quote."""
    return _QUOTE_EDGES.sub("", normalized_quote)
