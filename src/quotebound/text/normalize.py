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
from itertools import accumulate, compress
from operator import ne

__all__ = [
    "NormalizedText",
    "as_seen",
    "normalize_text",
    "normalize_with_offsets",
    "strip_quote_decorations",
]

_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
"""Zero-width space, non-joiner, joiner, word joiner, byte-order mark, soft hyphen: removed."""

_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\uff07"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"

_TRANSLATION = str.maketrans(
    {**dict.fromkeys(_SINGLE_QUOTES, "'"), **dict.fromkeys(_DOUBLE_QUOTES, '"')}
    | dict.fromkeys(_DASHES, "-")
)

# Runs that change: whitespace other than one plain space (runs of two or more, or a single
# tab/newline/no-break space) and invisible characters; and non-ASCII text.
_SPACE_RUN = re.compile(rf"([\s{_INVISIBLE}]{{2,}}|[^\S ]|[{_INVISIBLE}])")
_OTHER_RUN = re.compile(rf"[^\x00-\x7f\s{_INVISIBLE}]+")
_TRANSLATABLE = re.compile(f"[{re.escape(''.join(map(chr, _TRANSLATION)))}]+")
"""Typographic quotes and dashes: the characters :data:`_TRANSLATION` changes."""

_NOT_IN_RUN = re.compile(rf"[^\s{_INVISIBLE}]")
_BLOCK_CHARS = 4096
"""Whitespace is folded in blocks of about this many characters, each cut after a character
outside any run, so that ASCII blocks take the fast path in text with some non-ASCII."""

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
    builder = _Builder()
    if text.isascii():
        builder.fold_spaces(text, 0, len(text))
        return builder.result(builder.text())
    position = 0
    translates = False  # whether a run that keeps its length has typographic quotes or dashes
    for match in _OTHER_RUN.finditer(text):
        run = match.group()
        translated = run.translate(_TRANSLATION)
        if _keeps_length(run, translated):
            translates = translates or translated != run
            continue
        start, end = match.span()
        copied_last = builder.fold_spaces(text, position, start)
        if copied_last and unicodedata.combining(run[0]):  # the mark composes with that char
            builder.drop_last()
            start -= 1
        for piece, piece_start, piece_end in _clusters(text, start, end):
            builder.emit(piece, piece_start, piece_end)
        position = end
    builder.fold_spaces(text, position, len(text))
    folded = builder.text()
    return builder.result(_TRANSLATABLE.sub(_translate, folded) if translates else folded)


def _keeps_length(run: str, translated: str) -> bool:
    """Whether a run of non-ASCII text normalizes to ``translated``, its translation by
    :data:`_TRANSLATION`, character for character.

    It does when the run is in NFKC and unchanged by the translation, or in NFKC without
    combining marks: then each character is its own cluster and NFKC keeps it as it is.
    """
    return (
        not unicodedata.combining(run[0])
        and unicodedata.is_normalized("NFKC", run)
        and (translated == run or not any(map(unicodedata.combining, run)))
    )


def _translate(match: re.Match[str]) -> str:
    return match.group().translate(_TRANSLATION)


class _Builder:
    """Accumulates the normalized text in pieces, and its changes."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.size = 0
        self.change_starts: array[int] = array("i")
        self.change_ends: array[int] = array("i")
        self.source_starts: array[int] = array("i")
        self.source_ends: array[int] = array("i")

    def fold_spaces(self, text: str, start: int, end: int) -> bool:
        """Emit ``text[start:end]`` with its whitespace and invisible runs folded; its non-ASCII
        runs must keep their length. Returns whether its last character was copied unchanged.
        Works in blocks of about :data:`_BLOCK_CHARS`."""
        copied_last = False
        while start < end:
            limit = start + _BLOCK_CHARS
            cut = _NOT_IN_RUN.search(text, limit - 1, end) if limit < end else None
            block_end = cut.end() if cut else end
            copied_last = self._fold_block(text[start:block_end], start)
            start = block_end
        return copied_last

    def _fold_block(self, segment: str, start: int) -> bool:
        """:meth:`fold_spaces` for the block ``segment``, which starts at ``start``."""
        changed: list[bool] | None = None  # which runs change; None: all of them
        if segment.isascii():  # only runs of 2+ spaces change; one space stays one
            parts = _ASCII_SPACE_RUN.split(segment)
            folded_runs = [" "] * (len(parts) // 2)
        else:
            parts = _SPACE_RUN.split(segment)
            folded_runs = [" " if run.strip(_INVISIBLE) else "" for run in parts[1::2]]
            changed = list(map(ne, map(len, parts[1::2]), map(len, folded_runs)))
        pieces = parts.copy()
        pieces[1::2] = folded_runs
        folded = "".join(pieces)
        if changed is None:
            folded = folded.translate(_ASCII_SPACE_TO_SPACE)
        # Bounds of the parts: run k spans [bounds[2k + 1], bounds[2k + 2]).
        source_bounds = array("i", list(accumulate(map(len, parts), initial=start)))
        folded_bounds = array("i", list(accumulate(map(len, pieces), initial=self.size)))
        for changes, bounds in (
            (self.change_starts, folded_bounds[1:-1:2]),
            (self.change_ends, folded_bounds[2::2]),
            (self.source_starts, source_bounds[1:-1:2]),
            (self.source_ends, source_bounds[2::2]),
        ):
            changes.extend(bounds if changed is None else array("i", compress(bounds, changed)))
        self.pieces.append(folded)
        self.size += len(folded)
        last = parts[-1][-1:]  # a single tab or newline in ASCII text is folded, not copied
        return last == " " or (last != "" and not last.isspace())

    def emit(self, piece: str, start: int, end: int) -> None:
        """Emit ``piece`` as the normalization of the original span ``[start, end)``."""
        self.pieces.append(piece)
        if len(piece) != 1 or end - start != 1:
            self.change_starts.append(self.size)
            self.change_ends.append(self.size + len(piece))
            self.source_starts.append(start)
            self.source_ends.append(end)
        self.size += len(piece)

    def drop_last(self) -> None:
        """Remove the last normalized character, which was copied unchanged."""
        self.pieces[-1] = self.pieces[-1][:-1]
        self.size -= 1

    def text(self) -> str:
        return "".join(self.pieces)

    def result(self, text: str) -> NormalizedText:
        """The normalized text, ``text`` (the pieces, maybe translated), and its changes."""
        return NormalizedText(
            text,
            self.change_starts,
            self.change_ends,
            self.source_starts,
            self.source_ends,
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


_DROP_INVISIBLE = str.maketrans(dict.fromkeys(_INVISIBLE))


def as_seen(text: str) -> str:
    """``text`` as a reader sees it: its letters composed (NFC: "u" and a combining diaeresis,
    as some pages write "für", are the one letter "ü" they show) and its zero-width characters
    and soft hyphens dropped ("pre\u00adpared" is "prepared"). Offsets change; for terms, not
    for quoting."""
    return unicodedata.normalize("NFC", text).translate(_DROP_INVISIBLE)


def strip_quote_decorations(normalized_quote: str) -> str:
    """Strip leading/trailing ellipses (``...``), quote marks and spaces from a normalized quote."""
    return _QUOTE_EDGES.sub("", normalized_quote)
