"""Deep links to a quote: URLs with a text fragment (``#:~:text=``), per the WICG Text Fragments
specification.

A text directive is ``[prefix-,]start[,end][,-suffix]``; a browser that supports it scrolls to
and highlights the first range of the page that it matches. Matching is case-insensitive, the
range begins and ends on word boundaries, and terms are the quote's words joined by single
spaces, each matching any run of whitespace on the page. :func:`first_match` follows the
specification's search over a clean page text, so :func:`text_fragment` can choose terms whose
first match on the page is the quote itself: a few words at each end of a long quote, and the
words before it as a prefix when its start occurs earlier on the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

__all__ = ["TextDirective", "deep_link", "first_match", "text_fragment"]

_WORD = re.compile(r"\S+")
_LONG_QUOTE_WORDS = 10
"""A quote of more words than this is linked as start,end rather than in full."""
_MAX_PREFIX_WORDS = 8
"""The most words before a quote that its prefix takes to single it out."""


@dataclass(frozen=True)
class TextDirective:
    """The terms of one ``text=`` directive, as plain (unencoded) text."""

    start: str
    end: str | None = None
    prefix: str | None = None
    suffix: str | None = None

    def encoded(self) -> str:
        """``[prefix-,]start[,end][,-suffix]`` with each term percent-encoded."""
        parts = [f"{_encode(self.prefix)}-"] if self.prefix else []
        parts.append(_encode(self.start))
        if self.end:
            parts.append(_encode(self.end))
        if self.suffix:
            parts.append(f"-{_encode(self.suffix)}")
        return ",".join(parts)


def _encode(term: str) -> str:
    """Percent-encode a term: everything but letters, digits and ``_.~`` (so ``-``, ``&``,
    ``,`` and ``#`` too, which the directive's grammar or the URL would read otherwise)."""
    return quote(term, safe="").replace("-", "%2D")


def deep_link(url: str, directive: TextDirective) -> str:
    """``url`` with the directive appended after its fragment (``#frag:~:text=...``); a text
    directive the URL already carried is replaced."""
    base, _, fragment = url.partition("#")
    fragment = fragment.split(":~:", 1)[0]
    return f"{base}#{fragment}:~:text={directive.encoded()}"


def text_fragment(
    quote_text: str, page_text: str | None = None, span: tuple[int, int] | None = None
) -> TextDirective:
    """The directive for ``quote_text``, which lies at ``span`` of ``page_text`` when given.

    Without the page, the terms come from the quote alone. With it, the first directive whose
    first match is exactly the span is chosen, trying the shortest terms first and, for each,
    no prefix and then one more word before the quote at a time (up to eight). When the page
    repeats the quote with the same words before it, nothing singles it out: the quote in full
    with the longest prefix is returned, and it highlights an identical copy.
    """
    candidates = _terms(quote_text)
    if page_text is None or span is None:
        return candidates[0]
    before = _prefix_words(page_text, span[0])
    most = min(len(before), _MAX_PREFIX_WORDS)
    prefixes = [None, *(" ".join(before[-n:]) for n in range(1, most + 1))]
    for terms in candidates:
        for prefix in prefixes:
            directive = TextDirective(terms.start, terms.end, prefix)
            if first_match(page_text, directive) == span:
                return directive
    return TextDirective(candidates[-1].start, candidates[-1].end, prefixes[-1])


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _terms(quote_text: str) -> list[TextDirective]:
    """start[,end] term pairs, the shortest first. A term never crosses a line (a browser
    matches each term inside one block), so a quote over several paragraphs is always linked
    as start,end; a one-line quote ends the list in full, as ``start``."""
    lines = [words for words in map(_words, quote_text.splitlines()) if words]
    if not lines:
        raise ValueError("a text fragment needs a quote with at least one word")
    first, last = lines[0], lines[-1]
    if len(lines) == 1 and len(first) <= _LONG_QUOTE_WORDS:
        return [TextDirective(" ".join(first))]
    if len(lines) > 1:
        sizes = range(1, max(len(first), len(last)) + 1)
        return [TextDirective(" ".join(first[:k]), " ".join(last[-k:])) for k in sizes]
    pairs = range(3, (len(first) - 1) // 2 + 1)  # start and end never overlap
    return [
        *(TextDirective(" ".join(first[:k]), " ".join(first[-k:])) for k in pairs),
        TextDirective(" ".join(first)),
    ]


def _prefix_words(page_text: str, start: int) -> list[str]:
    """The words just before ``start`` on its own line (a term never crosses a block), or on
    the nearest line above it when the quote begins a line."""
    head = page_text[:start].rstrip()
    line = head[head.rfind("\n") + 1 :]
    return _words(line)


# --- the specification's search, over a clean page text ------------------------------------


def first_match(text: str, directive: TextDirective) -> tuple[int, int] | None:
    """The span of ``text`` a browser highlights for ``directive``: the first match, with the
    specification's rules (word boundaries, case-insensitive, prefix and suffix separated
    from the match by whitespace only); None when nothing matches.

    The specification walks the prefix's matches in order and takes the first one that the
    start follows, then the first end after the start that the suffix follows; each walk is
    the leftmost match of one pattern here (prefix, whitespace, start; end, whitespace,
    suffix). With an end, only the first start counts: no end after it means no match.
    """
    d = directive
    start_ends_word = d.end is not None or d.suffix is None
    opening = [(d.prefix, True, False)] if d.prefix else []
    opening.append((d.start, not d.prefix, start_ends_word))
    if d.end is None and d.suffix:
        opening.append((d.suffix, False, True))
    found = _pattern(tuple(opening), 1 if d.prefix else 0).search(text)
    if found is None:
        return None
    start, stop = found.span("term")
    if d.end is None:
        return start, stop
    closing = [(d.end, True, d.suffix is None)]
    if d.suffix:
        closing.append((d.suffix, False, True))
    end = _pattern(tuple(closing), 0).search(text, stop)
    return None if end is None else (start, end.end("term"))


@lru_cache(maxsize=256)
def _pattern(terms: tuple[tuple[str, bool, bool], ...], index: int) -> re.Pattern[str]:
    """One pattern for ``terms`` (each: text, starts on a word boundary, ends on one) in a row,
    whitespace between them, the term at ``index`` captured as ``term``; case-insensitive,
    a whitespace run in a term matching any whitespace."""
    parts = []
    for i, (term, start_bound, end_bound) in enumerate(terms):
        body = r"\s+".join(re.escape(w) for w in _words(term))
        head = r"(?<!\w)" if start_bound and re.match(r"\w", term) else ""
        tail = r"(?!\w)" if end_bound and re.search(r"\w$", term) else ""
        parts.append(f"(?P<term>{head}{body}{tail})" if i == index else head + body + tail)
    return re.compile(r"\s*".join(parts), re.IGNORECASE)
