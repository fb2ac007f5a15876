"""Numeric conflicts: different sources, same quantity, different numbers."""

from __future__ import annotations

from h6_compose.factory import TIMEOUT_A, TIMEOUT_B, Page, evidence_for

from quotebound.evidence.conflicts import numeric_conflicts

QUESTION = "What is the default timeout of the HTTP client library?"
QUOTE_A = (
    "The default timeout is 30 seconds for every request the client sends, and it can be "
    "changed per call."
)
QUOTE_B = (
    "In the client library the default timeout is 60 seconds for every request, which "
    "surprises people coming from other tools."
)


def _page(url: str, text: str) -> Page:
    return Page(url=url, title=url.rsplit("/", 1)[-1], text=text)


def test_two_sources_disagreeing_on_a_number_form_one_group() -> None:
    a = evidence_for(QUESTION, TIMEOUT_A, QUOTE_A)
    b = evidence_for(QUESTION, TIMEOUT_B, QUOTE_B)
    groups = numeric_conflicts(QUESTION, [b, a])
    assert len(groups) == 1
    group = groups[0]
    assert "timeout" in group["topic"] and "seconds" in group["topic"]
    assert [(s["evidence_id"], s["values"]) for s in group["sides"]] == [
        (a["evidence_id"], ["30"]),
        (b["evidence_id"], ["60"]),
    ]
    assert {s["url"] for s in group["sides"]} == {TIMEOUT_A.url, TIMEOUT_B.url}
    assert numeric_conflicts(QUESTION, [a, b]) == groups


def test_two_sources_that_agree_give_no_group() -> None:
    other = _page(
        "https://mirror.example.org/client",
        "Remember that in the client library the default timeout is 30 seconds for every "
        "request you send.",
    )
    a = evidence_for(QUESTION, TIMEOUT_A, QUOTE_A)
    b = evidence_for(QUESTION, other, other.text)
    assert numeric_conflicts(QUESTION, [a, b]) == []


def test_one_source_stating_two_numbers_is_not_a_conflict() -> None:
    page = _page(
        "https://docs.example.com/one",
        "The client library default timeout is 30 seconds. Its default timeout is 60 seconds "
        "for uploads.",
    )
    items = [evidence_for(QUESTION, page, s) for s in page.text.split(" Its ")[:1]]
    items.append(evidence_for(QUESTION, page, "default timeout is 60 seconds for uploads."))
    assert numeric_conflicts(QUESTION, items) == []


def test_different_quantities_and_version_numbers_are_not_conflicts() -> None:
    question = "How does the client library handle timeouts and retries?"
    a = _page(
        "https://a.example/doc",
        "The client library retries a request 3 times before the timeout error is raised. "
        "New in version 3.11.",
    )
    b = _page(
        "https://b.example/doc",
        "The client library waits 10 seconds for the timeout error before retries stop. "
        "Changed in version 3.12 of the library.",
    )
    items = [evidence_for(question, a, a.text), evidence_for(question, b, b.text)]
    assert all(i["relevance"] >= 0.5 for i in items)
    assert numeric_conflicts(question, items) == []


def test_failed_or_irrelevant_evidence_is_ignored() -> None:
    a = evidence_for(QUESTION, TIMEOUT_A, QUOTE_A)
    failed = evidence_for(QUESTION, TIMEOUT_B, QUOTE_B, status="FAIL")
    assert numeric_conflicts(QUESTION, [a, failed]) == []
    off_topic = "What is the boiling point of tungsten?"
    both = [
        evidence_for(off_topic, TIMEOUT_A, QUOTE_A),
        evidence_for(off_topic, TIMEOUT_B, QUOTE_B),
    ]
    assert numeric_conflicts(off_topic, both) == []
