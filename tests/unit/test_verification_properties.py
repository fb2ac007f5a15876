"""Properties of verify_quote over generated text and real text (pydoc's rendering of json).

Every window of a source as long as a candidate (15-80 words) verifies with a span that reads
exactly as the window, and changing one digit of it fails unless the altered words also occur
in the source.
"""

from __future__ import annotations

import json
import pydoc
import re
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from quotebound.evidence.candidates import MAX_WORDS, MIN_WORDS
from quotebound.evidence.verification import verify_quote
from quotebound.text.normalize import normalize_text
from quotebound.text.parsing import parse_page

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)

WORDS = (
    "the", "a", "an", "of", "to", "in", "for", "on", "with", "by", "from", "at", "as", "is",
    "are", "was", "were", "be", "been", "has", "have", "had", "not", "no", "never", "without",
    "none", "cannot", "and", "or", "but", "if", "then", "than", "when", "while", "after",
    "before", "always", "first", "last", "server", "client", "request", "response", "cache",
    "file", "files", "policy", "backup", "backups", "release", "version", "enabled",
    "disabled", "true", "false", "value", "values", "default", "timeout", "seconds", "days",
    "bytes", "user", "users", "Microsoft", "GitHub", "Python", "Debian", "Linux", "Paris",
    "London", "Monday", "January", "report", "reports", "data", "acquired", "returns",
    "raises", "keeps", "deletes", "accepts", "rejects", "logs", "stores", "reads", "writes",
    "sends", "large", "small", "new", "old", "fast", "slow", "each", "every", "some", "many",
    "most", "least", "more", "less", "only", "also",
)  # fmt: skip

NUMBER = st.one_of(
    st.integers(0, 99_999).map(str),
    st.tuples(st.integers(0, 999), st.integers(0, 99)).map(lambda pair: f"{pair[0]}.{pair[1]}"),
)
TOKEN = st.one_of(st.sampled_from(WORDS), st.sampled_from(WORDS), NUMBER)
SENTENCE = st.lists(TOKEN, min_size=5, max_size=25).map(
    lambda words: " ".join([words[0][:1].upper() + words[0][1:], *words[1:]]) + "."
)
SEPARATOR = st.sampled_from([" ", " ", "  ", "\n", "\n\n", " \t"])
GENERATED_TEXT = st.lists(st.tuples(SENTENCE, SEPARATOR), min_size=4, max_size=16).map(
    lambda parts: "".join(sentence + separator for sentence, separator in parts)
)


@cache
def real_texts() -> tuple[str, ...]:
    """pydoc's plain-text rendering of json, and the text parse_page makes of its HTML."""
    plain = pydoc.render_doc(json, renderer=pydoc.plaintext)
    html_doc = pydoc.HTMLDoc()
    parsed = parse_page(html_doc.page("json", html_doc.docmodule(json))).text
    return plain, parsed


SOURCE = st.one_of(GENERATED_TEXT, st.integers(0, 1).map(lambda i: real_texts()[i]))


def word_spans(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in re.finditer(r"\S+", text)]


@st.composite
def source_and_window(draw: st.DrawFn, source: st.SearchStrategy[str] = SOURCE) -> tuple:
    """A source text and the (start, end) of a window of a candidate's length in its words."""
    text = draw(source)
    spans = word_spans(text)
    size = draw(st.integers(MIN_WORDS, min(MAX_WORDS, len(spans))))
    first = draw(st.integers(0, len(spans) - size))
    return text, spans[first][0], spans[first + size - 1][1]


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:[.,:/]\d+)*", normalize_text(text))


@PROPERTY_SETTINGS
@given(source_and_window())
def test_every_window_verifies_with_a_span_that_reads_as_the_window(case: tuple) -> None:
    text, start, end = case
    window = text[start:end]
    result = verify_quote(window, text)
    assert (result.status, result.method) == ("PASS", "exact")
    assert result.matched_text == window
    assert result.start == text.index(window)


@PROPERTY_SETTINGS
@given(source_and_window())
def test_a_window_with_its_whitespace_refolded_maps_back_to_the_source(case: tuple) -> None:
    text, start, end = case
    window = text[start:end]
    quote = "\n".join(window.split())
    result = verify_quote(quote, text)
    assert result.status == "PASS"
    assert result.matched_text == text[result.start : result.end]
    assert " ".join(result.matched_text.split()) == " ".join(window.split())
    assert result.start <= start
    if normalize_text(text).count(normalize_text(window)) == 1:
        assert (result.start, result.end, result.matched_text) == (start, end, window)


@st.composite
def window_with_changed_digit(draw: st.DrawFn) -> tuple:
    """A source, a window of it that holds a digit, and the window with that digit changed."""
    text, start, end = draw(source_and_window())
    window = text[start:end]
    digits = [i for i, char in enumerate(window) if char in "0123456789"]
    if not digits:  # make room for a digit by taking a window of generated text with numbers
        text = draw(GENERATED_TEXT.filter(lambda t: re.search(r"\d", t) is not None))
        spans = word_spans(text)
        index = next(i for i, (a, b) in enumerate(spans) if re.search(r"\d", text[a:b]))
        size = draw(st.integers(MIN_WORDS, min(MAX_WORDS, len(spans))))
        first = draw(st.integers(max(0, index - size + 1), min(index, len(spans) - size)))
        start, end = spans[first][0], spans[first + size - 1][1]
        window = text[start:end]
        digits = [i for i, char in enumerate(window) if char in "0123456789"]
    position = draw(st.sampled_from(digits))
    new_digit = draw(st.sampled_from([d for d in "0123456789" if d != window[position]]))
    return text, window, window[:position] + new_digit + window[position + 1 :]


@PROPERTY_SETTINGS
@given(window_with_changed_digit())
def test_changing_one_digit_fails_unless_the_altered_words_occur(case: tuple) -> None:
    text, _window, altered = case
    result = verify_quote(altered, text)
    if result.status == "PASS":
        # Only where the source itself says it: the same numbers, in the same order.
        assert numbers(result.matched_text) == numbers(altered)
    else:
        assert result.reason == "number_mismatch", result


DECORATED_SEPARATOR = st.sampled_from([" ", "\u00a0", "\n", "  ", " \u200b", "\u2009"])
PLAIN_WORD = st.sampled_from([w for w in WORDS if len(w) > 3] + ["it's", "don't", "well-known"])


def decorate(word: str, style: int) -> str:
    """The word as a web page might show it, with the same letters."""
    if style == 1:
        return word.replace("'", "\u2019").replace("-", "\u2011")
    if style == 2:
        return word[:2] + "\u00ad" + word[2:]
    if style == 3:
        return word[:1] + "\u200b" + word[1:]
    return word


@PROPERTY_SETTINGS
@given(
    st.lists(st.tuples(PLAIN_WORD, st.integers(0, 3), DECORATED_SEPARATOR), min_size=15),
    st.data(),
)
def test_a_plain_quote_of_a_decorated_page_returns_the_decorated_span(
    words: list[tuple[str, int, str]], data: st.DataObject
) -> None:
    pieces: list[tuple[int, int]] = []
    text = ""
    for word, style, separator in words:
        shown = decorate(word, style)
        pieces.append((len(text), len(text) + len(shown)))
        text += shown + separator
    size = data.draw(st.integers(MIN_WORDS, min(MAX_WORDS, len(words))))
    first = data.draw(st.integers(0, len(words) - size))
    quote = " ".join(word for word, _, _ in words[first : first + size])
    start, end = pieces[first][0], pieces[first + size - 1][1]

    result = verify_quote(quote, text)
    assert result.status == "PASS"
    assert result.matched_text == text[result.start : result.end]
    assert normalize_text(result.matched_text) == quote
    assert result.start <= start
    if normalize_text(text).count(quote) == 1:
        assert (result.start, result.end) == (start, end)
