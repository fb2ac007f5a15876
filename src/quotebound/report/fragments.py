"""Deep links to a quote: URLs with a text fragment (``#:~:text=``), per the WICG Text Fragments
specification.

A text directive is ``[prefix-,]start[,end][,-suffix]``; a browser that supports it scrolls to
and highlights the first range of the page that it matches. Matching is case-insensitive, each
term must begin and end on a word boundary, and whitespace between words is whatever the page
renders (one space here, since terms are built from words). :func:`first_match` follows the
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
    from the match by whitespace only); None when nothing matches."""
    d = directive
    search_from = 0
    while search_from < len(text):
        if d.prefix:
            found = _find(text, d.prefix, search_from, start_bound=True, end_bound=False)
            if found is None:
                return None
            search_from = found[0] + 1
            at = _skip_space(text, found[1])
            match = _match_at(text, d.start, at, end_bound=_start_ends_word(d))
            if match is None:
                continue
        else:
            match = _find(
                text, d.start, search_from, start_bound=True, end_bound=_start_ends_word(d)
            )
            if match is None:
                return None
            search_from = match[0] + 1
        end_from = match[1]
        while True:
            stop = match[1]
            if d.end:
                end = _find(text, d.end, end_from, start_bound=True, end_bound=d.suffix is None)
                if end is None:
                    return None
                stop = end[1]
            if d.suffix is None:
                return match[0], stop
            at = _skip_space(text, stop)
            if _match_at(text, d.suffix, at, end_bound=True) is not None:
                return match[0], stop
            if not d.end:
                break
            end_from = stop
    return None


def _start_ends_word(d: TextDirective) -> bool:
    return d.end is not None or d.suffix is None


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _find(
    text: str, term: str, start: int, *, start_bound: bool, end_bound: bool
) -> tuple[int, int] | None:
    """The first match of ``term`` in ``text[start:]``, case-insensitive, whitespace runs
    matching any whitespace, on word boundaries where asked."""
    found = _pattern(term, start_bound, end_bound).search(text, start)
    return None if found is None else found.span()


def _match_at(text: str, term: str, at: int, *, end_bound: bool) -> tuple[int, int] | None:
    """The match of ``term`` starting exactly at ``at``, or None."""
    found = _pattern(term, False, end_bound).match(text, at)
    return None if found is None else found.span()


@lru_cache(maxsize=256)
def _pattern(term: str, start_bound: bool, end_bound: bool) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in _words(term))
    head = r"(?<!\w)" if start_bound and re.match(r"\w", term) else ""
    tail = r"(?!\w)" if end_bound and re.search(r"\w$", term) else ""
    return re.compile(head + body + tail, re.IGNORECASE)
