"""Text normalization for quote matching, with a map back to the original offsets (DESIGN §4).

The verifier compares a quote with a page after folding away differences that do not change
the words: Unicode compatibility forms (NFKC), zero-width characters and soft hyphens,
typographic quotes and dashes, and whitespace. A match found in the normalized text must be
reported as a span of the *original* text, so every normalized character remembers the
original span it came from.

The work is proportional to the number of characters that actually change: runs of plain ASCII
(and of non-ASCII text that is already in normal form) are copied as whole slices.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from dataclasses import dataclass

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
# tab/newline/no-break space), invisible characters, or non-ASCII text.
_CHANGING_RUN = re.compile(
    rf"(?P<space>[\s{_INVISIBLE}]{{2,}}|[^\S ]|[{_INVISIBLE}])"
    rf"|(?P<other>[^\x00-\x7f\s{_INVISIBLE}]+)"
)

_QUOTE_EDGES = re.compile(r"""^(?:\s|\.\.\.|["'])+|(?:\s|\.\.\.|["'])+$""")


@dataclass(frozen=True)
class NormalizedText:
    """A normalized text and, per normalized character, the original span it came from."""

    text: str
    """The normalized text."""
    starts: array[int]
    """``starts[i]``: offset in the original text where normalized character ``i`` begins."""
    ends: array[int]
    """``ends[i]``: offset in the original text just after normalized character ``i``."""

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map the normalized span ``[start, end)`` (non-empty) to the original text's span."""
        if not 0 <= start < end <= len(self.text):
            raise ValueError(
                f"a normalized span must be non-empty and inside 0..{len(self.text)}, "
                f"got [{start}, {end})"
            )
        return self.starts[start], self.ends[end - 1]


class _Builder:
    """Accumulates normalized pieces and their original spans; merges combining marks."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.pieces: list[str] = []
        self.starts: array[int] = array("i")
        self.ends: array[int] = array("i")
        # The last emitted character cluster: (original start, original end, normalized length).
        self.last: tuple[int, int, int] | None = None

    def copy(self, start: int, end: int) -> None:
        """Emit ``source[start:end]`` unchanged."""
        if start >= end:
            return
        self.pieces.append(self.source[start:end])
        self.starts.extend(range(start, end))
        self.ends.extend(range(start + 1, end + 1))
        self.last = (end - 1, end, 1)

    def emit(self, text: str, start: int, end: int) -> None:
        """Emit ``text`` as the normalization of the original span ``[start, end)``."""
        self.pieces.append(text)
        self.starts.extend([start] * len(text))
        self.ends.extend([end] * len(text))
        self.last = (start, end, len(text))

    def space(self, start: int, end: int) -> None:
        """Emit one space for a whitespace run; nothing combines with a space."""
        self.emit(" ", start, end)
        self.last = None

    def cluster(self, index: int) -> None:
        """Emit the character at ``index``, composing a combining mark with the cluster before."""
        char = self.source[index]
        start = index
        if unicodedata.combining(char) and self.last is not None and self.last[1] == index:
            start, _, length = self.last
            self._drop(length)
        raw = self.source[start : index + 1]
        self.emit(unicodedata.normalize("NFKC", raw).translate(_TRANSLATION), start, index + 1)

    def _drop(self, count: int) -> None:
        """Remove the last ``count`` normalized characters."""
        if count == 0:
            return
        del self.starts[-count:]
        del self.ends[-count:]
        while count:
            piece = self.pieces.pop()
            if len(piece) > count:
                self.pieces.append(piece[:-count])
                count = 0
            else:
                count -= len(piece)

    def result(self) -> NormalizedText:
        return NormalizedText("".join(self.pieces), self.starts, self.ends)


def normalize_with_offsets(text: str) -> NormalizedText:
    """Normalize ``text`` (see :func:`normalize_text`), keeping the original span of each char."""
    builder = _Builder(text)
    position = 0
    for match in _CHANGING_RUN.finditer(text):
        start, end = match.span()
        builder.copy(position, start)
        position = end
        run = match.group()
        if match.lastgroup == "space":
            if run.strip(_INVISIBLE):  # the run holds whitespace, not only invisible characters
                builder.space(start, end)
        elif (
            not unicodedata.combining(run[0])
            and unicodedata.is_normalized("NFKC", run)
            and run.translate(_TRANSLATION) == run
        ):
            builder.copy(start, end)
        else:
            for index in range(start, end):
                builder.cluster(index)
    builder.copy(position, len(text))
    return builder.result()


def normalize_text(text: str) -> str:
    """Fold ``text`` for comparison: NFKC; zero-width characters and soft hyphens removed;
    typographic quotes to ``'``/``"``; dashes (hyphen, en, em, minus, figure dash...) to ``-``;
    every whitespace run (incl. no-break spaces) to one space. Case is kept."""
    return normalize_with_offsets(text).text


def strip_quote_decorations(normalized_quote: str) -> str:
    """Strip leading/trailing ellipses (``...``), quote marks and spaces from a normalized quote."""
    return _QUOTE_EDGES.sub("", normalized_quote)
