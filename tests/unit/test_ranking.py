"""Evidence ranking: the search's passage and page rankings fused with the ranking of quotes."""

from __future__ import annotations

import pytest

from quotebound.evidence import encoder, ranking
from quotebound.evidence.candidates import extract_candidates
from quotebound.evidence.ranking import by_meaning, by_page_rank, join_neighbours, rank_pages
from quotebound.evidence.relevance import RELEVANCE_THRESHOLD, sub_questions
from quotebound.report.answering import answers
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page
from quotebound.text.passages import passage_head, passages

QUESTION = "Where does the archive tool write its output?"
PAGE = parse_page(
    "<html><head><title>Archive tool</title></head><body><main><h1>Archive tool</h1>"
    "<h2>Reading</h2><p>The archive tool reads its input from the archive file given on the "
    "command line and prints each member's name as it goes.</p>"
    "<h2>Destination</h2><p>Every member is extracted into the directory named by the "
    "target option, which is created when it does not exist yet.</p>"
    "</main></body></html>",
    content_type="text/html",
)


def _ranked(retrieved: dict[str, int] | None) -> list[str]:
    candidates = extract_candidates(PAGE, source_id="s")
    ranked = rank_pages(QUESTION, [(PAGE, "Archive tool", candidates)], [retrieved or {}])
    return [r.candidate.quote for r in ranked[0]]


def test_a_quote_in_the_searchs_best_passage_gains_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTEBOUND_MEANING", "off")  # terms and the search's rank alone
    reading, destination = passages(PAGE)
    assert _ranked(None)[0] == reading.text  # shares more words with the question
    found = {passage_head(destination.text): 0, passage_head(reading.text): 7}
    assert _ranked(found)[0] == destination.text


def test_a_quote_on_the_searchs_first_page_gains_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTEBOUND_MEANING", "off")
    # The same page found twice: as the search's second result and as its first.
    pages = [(PAGE, "Archive tool", extract_candidates(PAGE, source_id=s)) for s in "ab"]
    alike = rank_pages(QUESTION, pages)
    assert [r.score for r in alike[0]] == [r.score for r in alike[1]]
    second, first = by_page_rank(alike, [1, 0])
    assert [r.candidate.quote for r in first] == [r.candidate.quote for r in second]
    assert all(f.score > s.score for f, s in zip(first, second, strict=True))
    # A page no search ranked (a page of the user's own) gains nothing.
    assert by_page_rank(alike, [None, None]) == alike


LAPTOP = parse_page(
    "<html><head><title>Laptop care</title></head><body><main><h1>Laptop care</h1>"
    "<h2>Buying</h2><p>Before you buy a laptop, compare the models and how long each battery "
    "lasts on a full charge.</p>"
    "<h2>Cooling</h2><p>Keep the vents free of dust and set the computer on a hard, flat "
    "surface so that air can flow beneath it; a cushion or blanket traps the heat.</p>"
    "</main></body></html>",
    content_type="text/html",
)


@pytest.mark.parametrize("meaning", ["on", "off"])
def test_an_answer_in_other_words_outranks_a_shared_word(
    monkeypatch: pytest.MonkeyPatch, meaning: str
) -> None:
    """The answer shares no term with the question; the other quote shares "laptop" only.
    By meaning the answer comes first; by terms alone it does not."""
    monkeypatch.setenv("QUOTEBOUND_MEANING", meaning)
    candidates = extract_candidates(LAPTOP, source_id="s")
    question = "How can I stop my laptop from overheating?"
    by_terms = rank_pages(question, [(LAPTOP, "Laptop care", candidates)])
    assert not by_terms[0][0].candidate.quote.startswith("Keep the vents")
    assert all(r.meaning is None for r in by_terms[0])
    first = by_meaning(question, by_terms)[0][0].candidate.quote
    assert first.startswith("Keep the vents") is (meaning == "on")


def test_each_ranked_quote_carries_the_rank_of_its_passage() -> None:
    reading, destination = passages(PAGE)
    candidates = extract_candidates(PAGE, source_id="s")
    found = {passage_head(destination.text): 2}
    ranked = rank_pages(QUESTION, [(PAGE, "Archive tool", candidates)], [found])[0]
    by_quote = {r.candidate.quote: r.retrieved for r in ranked}
    assert by_quote == {destination.text: 2, reading.text: None}


def test_each_ranked_quote_says_whether_it_spells_the_code_the_question_names() -> None:
    page = parse_page(
        "<main><h1>Archive tool</h1><p>The archive tool writes every member it extracts into "
        "the directory named by the target_dir option, creating it when needed.</p>"
        "<h2>Reading</h2><p>The archive tool reads its input from the archive file given on "
        "the command line and prints each member's name as it goes along.</p></main>"
    )
    candidates = extract_candidates(page, source_id="s")
    question = "Where does target_dir make the archive tool write its output?"
    ranked = rank_pages(question, [(page, "Archive tool", candidates)])[0]
    spelled = {r.candidate.quote.split()[3]: r.spelled for r in ranked}
    assert spelled == {"writes": True, "reads": False}


def _item(relevance: float, retrieved: int | None) -> dict:
    return {"relevance": relevance, "parts": [relevance], "retrieved": retrieved}


TOOL = parse_page(
    "<html><head><title>Archive tool</title></head><body><main><h1>Archive tool</h1>"
    "<p>The archive tool reads an archive file named on the command line and lists each of "
    "its members as it goes.</p>"
    "<p>The archive tool extracts every member into the directory named by the target "
    "option, creating that directory when it does not exist.</p>"
    "<p>The archive tool checks each member's checksum before it writes anything and stops "
    "at the first member that fails.</p>"
    "<p>The archive tool keeps the modes and timestamps of its members unless the plain "
    "option is given.</p>"
    "<p>Put a large archive on a fast disk: unpacking is bound by the disk, not by the "
    "processor, and slow disks make every run slower.</p>"
    "</main></body></html>",
    content_type="text/html",
)


@pytest.mark.parametrize("power", [None, 1.0])
def test_a_quote_that_covers_the_subject_of_every_page_read_still_answers(
    monkeypatch: pytest.MonkeyPatch, power: float | None
) -> None:
    """Every quote read is about the archive tool, so those words are common among them and
    weigh little by their IDF, while the question's own wording ("put", "unpacks") is rare.
    The answer, which says where the tool extracts its members in other words, covers enough
    of the question by the square root of each IDF; with each term at its full IDF (power 1)
    it falls below the bar. Its relevance weighs terms at their full IDF either way."""
    monkeypatch.setenv("QUOTEBOUND_MEANING", "off")
    if power is not None:
        monkeypatch.setattr(ranking, "_COVERING_IDF_POWER", power)
    question = "Where does the archive tool put the files it unpacks?"
    candidates = extract_candidates(TOOL, source_id="s")
    ranked = rank_pages(question, [(TOOL, "Archive tool", candidates)])[0]
    verbs = [r.candidate.quote.split()[3] for r in ranked]  # "The archive tool extracts"
    assert verbs == ["archive", "keeps", "reads", "extracts", "checks"]  # "Put a large archive"
    answer = ranked[verbs.index("extracts")]
    assert answer.relevance < RELEVANCE_THRESHOLD  # by the full IDF, whatever the power
    item = {
        "relevance": answer.relevance,
        "parts": list(answer.parts),
        "covers": list(answer.covers),
        "retrieved": None,
    }
    assert answers(item) is (power is None)


def test_bars_that_ask_for_meaning_read_the_relevance_not_the_coverage() -> None:
    """A quote on one part of a question covers a share of another part's words by the square
    root of their IDF that its relevance, at the full IDF, does not reach: close in meaning to
    the question once the run can read no more, it answers only the part its relevance
    reaches."""
    item = {
        "relevance": 0.6,
        "parts": [0.6, 0.11],
        "covers": [0.7, 0.21],
        "retrieved": None,
        "meaning": 0.7,
    }
    assert answers(item, 0, final=True)
    assert not answers(item, 1, final=True)
    assert answers({**item, "parts": [0.6, 0.21]}, 1, final=True)


def test_a_nearly_relevant_quote_answers_only_inside_a_top_passage() -> None:
    assert answers(_item(0.6, None))
    assert not answers(_item(0.4, None))
    assert answers(_item(0.4, 0))
    assert answers(_item(0.4, 2), 0)
    assert not answers(_item(0.4, 3))
    assert not answers(_item(0.2, 0))


LOANS = parse_page(
    "<html><head><title>Library help</title></head><body><main><h1>Library help</h1>"
    "<h2>Renewing a loan</h2><p>You can do this up to three times, online or at the desk, "
    "as long as nobody else has reserved the item.</p>"
    "<h2>Opening hours</h2><p>The reading rooms are open every weekday from nine in the "
    "morning until eight in the evening.</p>"
    "</main></body></html>",
    content_type="text/html",
)


def test_a_quote_is_read_under_its_heading_when_that_is_closer() -> None:
    """The quote says what it is about ("do this") only in its heading: its meaning is the
    closer of its two readings, alone and under the heading it sits in."""
    question = "How often may I extend the time I keep a borrowed book?"
    candidates = extract_candidates(LOANS, source_id="s")
    ranked = by_meaning(question, rank_pages(question, [(LOANS, "Library help", candidates)]))
    renewing = next(r for r in ranked[0] if r.candidate.quote.startswith("You can do this"))
    alone, headed = encoder.similarities(
        [question], [renewing.candidate.quote, "Renewing a loan: " + renewing.candidate.quote]
    )
    assert headed > alone
    assert renewing.meaning == headed


PERFORM = parse_page(
    "<html><head><title>Statements</title></head><body><main><h1>Statements</h1>"
    "<h2>Executing a command with no result</h2><p>Sometimes it is useful to evaluate a query "
    "but discard the result, for example when calling a function that has side effects. To do "
    "this, use the PERFORM statement:</p><p>This executes the query and throws the result "
    "away. Write the query the same way you would write a SELECT command.</p><p>The special "
    "variable FOUND is set to true if the query produced at least one row, or false if it "
    "produced no rows at all.</p>"
    "<h2>Doing nothing at all</h2><p>Sometimes a placeholder statement that does nothing is "
    "useful, for example to show that one arm of an if chain is deliberately empty.</p>"
    "</main></body></html>",
    content_type="text/html",
)


def test_neighbours_worth_reading_join_into_one_quote(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window that names the statement and the one that says what it does are quoted
    together; a window joins at most one neighbour, never across a heading, and a neighbour
    not worth reading stays alone."""
    monkeypatch.setenv("QUOTEBOUND_MEANING", "off")
    question = "How do I evaluate a query but discard its result?"
    candidates = extract_candidates(PERFORM, source_id="s")
    lead, what, found, nothing = (c.quote for c in candidates)
    ranked = rank_pages(question, [(PERFORM, "Statements", candidates)])[0]
    first = ranked[0]
    assert first.candidate.quote == lead  # the question's words are there

    def span(a: str, b: str) -> str:  # the page's text from quote a through quote b
        text = PERFORM.text
        return text[text.index(a) : text.index(b) + len(b)]

    every = join_neighbours(ranked, lambda r: True)
    quotes = [r.candidate.quote for r in every]
    assert quotes[0] == span(lead, what)  # in the best one's place
    assert sorted(quotes[1:]) == sorted([found, nothing])  # each joins one; a heading parts
    by_quote = {r.candidate.quote: r for r in ranked}
    assert every[0].score == first.score
    assert every[0].relevance == max(first.relevance, by_quote[what].relevance)
    assert every[0].parts == tuple(map(max, first.parts, by_quote[what].parts))
    assert every[0].context == first.context

    # The lead is not worth reading: it stays alone, and the next window takes the other side.
    others = join_neighbours(ranked, lambda r: r.candidate.quote != lead)
    assert sorted(r.candidate.quote for r in others) == sorted([lead, span(what, found), nothing])
    assert join_neighbours(ranked, lambda r: False) == ranked


def _archive_page(kind: str) -> Page:
    body = "".join(
        f"<p>The archive tool writes member {i} of the {kind} archive into the directory "
        f"that the target option names, creating it first when it is missing.</p>"
        for i in range(12)
    )
    html = f"<html><head><title>{kind}</title></head><body><main>{body}</main></body></html>"
    return parse_page(html, content_type="text/html")


def test_meaning_is_compared_for_the_best_quotes_of_each_page_read() -> None:
    pages = [_archive_page(kind) for kind in ("tar", "zip", "cpio")]
    read = [(p, p.title, extract_candidates(p, source_id=f"s{i}")) for i, p in enumerate(pages)]
    # The pages' quotes score alike, and ties go to the earlier page. A round of one page
    # compares its 7 best quotes, not 12. Over several pages: the best over all of them (7 a
    # page, 20 at most: the first page's 12 and 2 or 8 of the second's) and each page's own 7
    # best, so the last page, all of whose quotes rank below the others', has its best compared.
    for count, compared in ((1, 7), (2, 19), (3, 27)):
        ranked = by_meaning(QUESTION, rank_pages(QUESTION, read[:count]))
        assert sum(r.meaning is not None for rs in ranked for r in rs) == compared
        assert all(r.meaning is not None for rs in ranked for r in rs[:7])


MUSEUM = parse_page(
    "<html><head><title>City museum</title></head><body><main><h1>City museum</h1>"
    "<p>The old station hall was finished in 1902 after six years of building work and a long "
    "quarrel over its cost. Its glass roof was rebuilt after the fire of 1931. Tram line 4 from "
    "the central square stops at the museum door.</p></main></body></html>",
    content_type="text/html",
)


def _close(queries: list[str], texts: list[str]) -> list[float]:
    similarities = encoder.similarities(queries, texts)
    assert similarities is not None  # the encoder is installed
    return similarities


def test_a_one_part_question_reads_a_quote_sentence_by_sentence() -> None:
    """Only the last sentence answers; read whole, the quote's vector is as much about the
    building's history. A one-part question takes the closest sentence's reading, a
    question in parts the closer of the whole quote's two readings, and so does a one-part
    question the quote is far from."""
    candidates = extract_candidates(MUSEUM, source_id="s")
    (quote,) = [c.quote for c in candidates]
    sentences = [s + "." for s in quote.rstrip(".").split(". ")]

    def meaning(question: str) -> float | None:
        by_terms = rank_pages(question, [(MUSEUM, "City museum", candidates)])
        return by_meaning(question, by_terms)[0][0].meaning

    question = "Which tram takes me to the museum?"
    whole = _close([question], [quote, "City museum: " + quote])
    each = _close([question], sentences)
    assert max(each) > max(whole)
    assert meaning(question) == max(each)
    question = "When did the museum open, and which tram goes there?"
    parts = sub_questions(question)
    assert len(parts) == 2
    assert meaning(question) == max(_close(parts, [quote, "City museum: " + quote]))
    # A quote read far from the question (below 0.3) is not read sentence by sentence.
    question = "How do I bake sourdough bread at home?"
    whole = _close([question], [quote, "City museum: " + quote])
    each = _close([question], sentences)
    assert max(whole) < 0.3 and max(each) > max(whole)
    assert meaning(question) == max(whole)


def test_a_question_that_tells_its_situation_first_is_read_sentence_by_sentence() -> None:
    """The situation told first takes the whole question's meaning away from the quote that
    answers what it asks; the sentence that asks is read alone too, and the closest reading
    counts. A sentence of fewer than two terms is not read alone."""
    candidates = extract_candidates(MUSEUM, source_id="s")
    (quote,) = [c.quote for c in candidates]
    readings = [quote, "City museum: " + quote, *(s + "." for s in quote[:-1].split(". "))]
    told = "Our school class plans a trip for forty pupils and the teachers argue about cost."
    asked = "When was the station hall that houses the museum finished?"
    question = f"{told} {asked}"
    ranked = by_meaning(question, rank_pages(question, [(MUSEUM, "City museum", candidates)]))
    assert ranked[0][0].meaning == max(_close([question, told, asked], readings))
    assert ranked[0][0].meaning > max(_close([question], readings)) + 0.1
    short = f"{asked} Why?"
    ranked = by_meaning(short, rank_pages(short, [(MUSEUM, "City museum", candidates)]))
    assert ranked[0][0].meaning == max(_close([short, asked], readings))


def test_everyday_wording_orders_below_what_is_asked_about_the_subject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pages read were chosen for the question's subject, so its words are common among
    their quotes, and the asker's everyday wording ("put", "inside", "body", "runs") is rare
    there: by those counts alone, a quote about a box's lid comes first. Weighed by how specific
    each word is in English too, the quote that says what was asked about the subject does;
    the relevance the bars read is the same."""
    monkeypatch.setenv("QUOTEBOUND_MEANING", "off")  # terms alone
    paragraphs = [
        "The RETURNING clause returns the rows that an INSERT, UPDATE or DELETE statement "
        "changed, one output row for each.",
        "An INSERT statement that fires a trigger sees the rows as they were before the trigger "
        "body changed them.",
        "The RETURNING clause may name any column of the table, or an expression over its "
        "columns, and the output gets those names.",
        "A trigger is dropped when the table it belongs to is dropped, and every INSERT after "
        "that runs with no trigger at all.",
        "The RETURNING clause cannot be used by statements within triggers; it works in "
        "top-level statements only.",
        "Put the lid back inside the body of the box before you run the dishwasher, or it may "
        "crack in the heat.",
    ]
    answer, lid = paragraphs[4], paragraphs[5]
    page = parse_page(
        "<html><head><title>RETURNING</title></head><body><main><h1>RETURNING</h1>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</main></body></html>",
        content_type="text/html",
    )
    question = "Can I put a RETURNING clause on an INSERT that runs inside a trigger body?"
    ranked = rank_pages(question, [(page, "RETURNING", extract_candidates(page, source_id="s"))])
    by_quote = {r.candidate.quote: r for r in ranked[0]}
    order = [r.candidate.quote for r in ranked[0]]
    assert order.index(answer) < order.index(lid)
    assert by_quote[lid].relevance > by_quote[answer].relevance  # the bars' counts, as they were
