"""Evidence candidates: windows within the word bounds, exact spans, stable ids."""

from __future__ import annotations

import pytest

from quotebound.evidence.candidates import (
    MAX_WORDS,
    MIN_DEFINITION_WORDS,
    MIN_WORDS,
    chunk_id,
    extract_candidates,
)
from quotebound.text.parsing import parse_page

SENTENCE = "The harbour crane lifts {n} containers every hour when the wind is calm."


def _para(sentences: int, start: int = 0) -> str:
    return " ".join(SENTENCE.format(n=start + i) for i in range(sentences))


def _words(text: str) -> int:
    return len(text.split())


def test_paragraphs_in_bounds_are_taken_whole_and_spans_are_exact() -> None:
    html = f"<html><body><main><p>{_para(3)}</p><p>{_para(2, 10)}</p></main></body></html>"
    page = parse_page(html)
    cands = extract_candidates(page, source_id="s1")
    assert [c.quote for c in cands] == [_para(3), _para(2, 10)]
    for c in cands:
        assert page.text[c.start : c.end] == c.quote
        assert c.words == _words(c.quote)
        assert c.source_id == "s1"


def test_a_paragraph_up_to_the_longest_window_is_one_quote() -> None:
    paragraph = _para(6)  # 78 words: the sentence that names the subject stays with the rest
    assert MAX_WORDS - 13 < _words(paragraph) <= MAX_WORDS
    cands = extract_candidates(parse_page(f"<article><p>{paragraph}</p></article>"), source_id="s")
    assert [c.quote for c in cands] == [paragraph]


def test_an_over_long_sentence_is_split_at_words() -> None:
    sentence = " ".join(f"word{i}" for i in range(150)) + "."
    cands = extract_candidates(sentence, source_id="s")
    assert all(MIN_WORDS <= c.words <= MAX_WORDS for c in cands)
    assert " ".join(c.quote for c in cands) == sentence


def test_short_paragraphs_join_the_next_and_headings_never_join() -> None:
    html = (
        "<main><h2>Timeouts</h2><p>In short:</p>"
        f"<p>{_para(2)}</p><p>Too short.</p><h2>Next</h2><p>Also short here.</p></main>"
    )
    cands = extract_candidates(parse_page(html), source_id="s")
    assert len(cands) == 1
    assert cands[0].quote.startswith("In short:") and "Timeouts" not in cands[0].quote


def test_a_definition_entry_is_one_unit_and_terms_start_windows() -> None:
    html = (
        "<dl><dt>__cause__</dt><dd>exception cause</dd>"
        "<dt>shuffle(self, x)</dt><dd>Shuffle list x in place, and return None.</dd>"
        "<dt>tiny()</dt><dd>Does it.</dd></dl>"
    )
    quotes = [c.quote for c in extract_candidates(parse_page(html), source_id="s")]
    assert quotes == ["shuffle(self, x)\n\nShuffle list x in place, and return None."]
    assert _words(quotes[0]) >= MIN_DEFINITION_WORDS


def test_boilerplate_and_number_tables_are_not_candidates() -> None:
    html = (
        "<body><nav><p>Home News Sport Weather and a lot more links that make a long menu line "
        "for every reader of this site today</p></nav>"
        f"<main><p>{_para(2)}</p><p>{' '.join(str(i) for i in range(30))}</p></main>"
        "<footer><p>Subscribe to our newsletter to get all the news first, every morning, "
        "straight to your inbox, with no spam ever, we promise you that</p></footer></body>"
    )
    cands = extract_candidates(parse_page(html), source_id="s")
    assert [c.quote for c in cands] == [_para(2)]


def test_ids_depend_on_source_and_text_only() -> None:
    a = extract_candidates(_para(3), source_id="s1")[0]
    b = extract_candidates(_para(2, 50) + "\n\n" + _para(3), source_id="s1")
    assert a.evidence_id in {c.evidence_id for c in b}
    other = extract_candidates(_para(3), source_id="s2")[0]
    assert other.chunk_id == a.chunk_id and other.evidence_id != a.evidence_id
    assert a.chunk_id == chunk_id(a.quote.replace(" ", "  ").upper())


def test_duplicate_paragraphs_are_kept_once() -> None:
    text = f"{_para(2)}\n\n{_para(2)}"
    assert len(extract_candidates(text, source_id="s")) == 1


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="min_words"):
        extract_candidates("x", source_id="s", min_words=30, max_words=40)


def test_short_paragraphs_that_reach_no_window_join_the_one_before_or_stand_alone() -> None:
    tail = "Ferries resume on Monday, the council said."
    alone = "Tickets go on sale at the pier office tomorrow."
    html = (
        f"<main><p>{_para(2)}</p><p>{tail}</p><h2>Timetable</h2><p>{alone}</p>"
        "<h2>Contact</h2><p>Call us.</p></main>"
    )
    page = parse_page(html)
    quotes = [c.quote for c in extract_candidates(page, source_id="s")]
    # The last line of a section joins its neighbour; a lone short paragraph stands alone
    # from five words; shorter fragments still make no candidate.
    assert quotes == [f"{_para(2)}\n\n{tail}", alone]
    for c in extract_candidates(page, source_id="s"):
        assert page.text[c.start : c.end] == c.quote


def test_a_short_line_of_code_a_colon_introduces_joins_what_introduces_it() -> None:
    intro = "The ferry company publishes its timetable as a package, which you install with:"
    html = (
        "<main><p>Ferries run daily.</p><p>You can install it through pip:</p>"
        "<pre>pip install ferrytimes</pre><p>Or with poetry, like this:</p>"
        f"<pre>poetry add ferrytimes</pre><p>{intro}</p><pre>make install</pre>"
        f"<p>{_para(2)}</p><pre>a lone line of code</pre></main>"
    )
    page = parse_page(html)
    quotes = [c.quote for c in extract_candidates(page, source_id="s")]
    # In a chain of short paragraphs, and after a window of its own: the code joins the
    # sentence that introduces it. A short line of code that no colon introduces is no quote.
    assert quotes == [
        "Ferries run daily.\n\nYou can install it through pip:\n\npip install ferrytimes\n\n"
        "Or with poetry, like this:\n\npoetry add ferrytimes",
        f"{intro}\n\nmake install",
        _para(2),
    ]
    for c in extract_candidates(page, source_id="s"):
        assert page.text[c.start : c.end] == c.quote
