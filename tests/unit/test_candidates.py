"""extract_candidates on pages shaped like real ones: what becomes evidence and what does not.

(Window arithmetic on synthetic text lives in test_candidate_windows.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from quotebound.evidence.candidates import (
    HASH_VERSION,
    MAX_WORDS,
    MIN_WORDS,
    chunk_id,
    extract_candidates,
    joined,
)
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page

PAGES = Path(__file__).parent.parent / "fixtures" / "pages"


def _page(name: str) -> Page:
    return parse_page((PAGES / name).read_bytes())


def test_news_article_paragraphs_become_candidates_and_boilerplate_does_not() -> None:
    page = _page("news.html")
    cands = extract_candidates(page, source_id="news")
    quotes = [c.quote for c in cands]
    assert quotes[0].startswith("Residents of the harbour town voted on Tuesday")
    assert any(q.startswith("The vote passed by 1,204 votes to 387.") for q in quotes)
    joined = "\n".join(quotes)
    for boilerplate in (
        "cookies",
        "I have taken that ferry",  # a comment
        "Somebody has to pay",  # a comment
        "newsletter",
        "All rights reserved",
        "Island school",  # related articles
    ):
        assert boilerplate not in joined, boilerplate
    for c in cands:
        assert page.text[c.start : c.end] == c.quote
        assert MIN_WORDS <= c.words <= MAX_WORDS
        assert (c.source_id, c.hash_version) == ("news", HASH_VERSION)
        assert c.evidence_id.startswith("ev_") and len(c.evidence_id) == 19
    assert len({c.chunk_id for c in cands}) == len(cands)


def test_documentation_pages_give_their_prose() -> None:
    sphinx = [c.quote for c in extract_candidates(_page("sphinx.html"), source_id="s")]
    assert any("makes it easy to write lexical analyzers" in q for q in sphinx)
    assert not any("Table of Contents" in q or "licensed under" in q for q in sphinx)
    assert not any(">>> import shlex" in q for q in sphinx)
    # Code never joins the short paragraphs around it into one quote.
    lists = extract_candidates(_page("tables_lists.html"), source_id="t")
    assert not any("def f(x)" in c.quote for c in lists)
    pydoc = [c.quote for c in extract_candidates(_page("pydoc_style.html"), source_id="p")]
    assert any(q.startswith("The return value i is such that all e in a[:i]") for q in pydoc)


def test_a_200_word_paragraph_is_covered_by_windows_within_bounds() -> None:
    sentences = [
        f"Sentence {i} says that the harbour ferry carried {i * 7} passengers on a calm day."
        for i in range(14)
    ]
    paragraph = " ".join(sentences)
    assert 195 <= len(paragraph.split()) <= 215
    page = parse_page(f"<article><p>{paragraph}</p></article>")
    cands = extract_candidates(page, source_id="s")
    assert len(cands) >= -(-len(paragraph.split()) // MAX_WORDS)  # at least 3
    assert all(MIN_WORDS <= c.words <= MAX_WORDS for c in cands)
    assert " ".join(c.quote for c in cands) == paragraph  # every sentence, in order, once
    assert all(c.quote.startswith("Sentence") and c.quote.endswith(".") for c in cands)


def test_candidates_are_the_same_in_another_process() -> None:
    here = [
        [c.evidence_id, c.chunk_id, c.start, c.end, c.words, c.quote]
        for c in extract_candidates(_page("news.html"), source_id="news")
    ]
    code = (
        "import json, sys; from pathlib import Path;"
        "from quotebound.text.parsing import parse_page;"
        "from quotebound.evidence.candidates import extract_candidates as e;"
        "p = parse_page(Path(sys.argv[1]).read_bytes());"
        "print(json.dumps([[c.evidence_id, c.chunk_id, c.start, c.end, c.words, c.quote]"
        " for c in e(p, source_id='news')]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(PAGES / "news.html")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == here


def test_a_candidate_holds_its_page_text_not_a_copy_of_its_quote() -> None:
    page = _page("news.html")
    cands = extract_candidates(page, source_id="news")
    assert all(c.text is page.text for c in cands)
    assert [c.quote for c in cands] == [page.text[c.start : c.end] for c in cands]
    assert "text=" not in repr(cands[0]) and not hasattr(cands[0], "__dict__")


def test_two_windows_with_only_whitespace_between_join_into_the_pages_own_text() -> None:
    page = parse_page(
        "<main><h1>Discarding results</h1><p>Sometimes it is useful to evaluate a query but "
        "discard the result, for example when it calls a function with side effects. To do "
        "this, use the PERFORM statement:</p><p>This executes the query and discards the "
        "result. Write the query the same way you would write a SELECT command.</p>"
        "<h2>Returning</h2><p>A function returns its value with the RETURN statement, which "
        "ends the function and hands the value of its expression back to the caller.</p></main>"
    )
    lead, answer, other = extract_candidates(page, source_id="s")
    both = joined(lead, answer)
    assert both is not None
    assert both.quote == page.text[lead.start : answer.end]
    assert both.quote.startswith("Sometimes") and both.quote.endswith("SELECT command.")
    assert both.words == lead.words + answer.words
    assert both.chunk_id == chunk_id(both.quote)  # its id is its own words'
    assert joined(answer, lead) is None  # not in page order
    assert joined(answer, other) is None  # a heading lies between them
    assert joined(lead, extract_candidates(page, source_id="t")[1]) is None  # another source
