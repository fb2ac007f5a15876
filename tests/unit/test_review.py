"""review_composition: every problem code from a crafted composition; a faithful one passes."""

from __future__ import annotations

from typing import Any

import pytest
from h6_compose.factory import SHUTIL, SUBPROCESS, evidence_for

from quotebound.records import Composition, EvidenceItem, Finding
from quotebound.report.quality import ANSWER, ReviewResult, review_composition

QUESTION = "What does shutil.copytree do and what does shutil.rmtree do?"
COPYTREE = (
    "shutil.copytree(src, dst, symlinks=False, ignore=None) recursively copies an entire "
    "directory tree rooted at src to a directory named dst and returns the destination "
    "directory."
)
RMTREE = (
    "shutil.rmtree(path, ignore_errors=False) deletes an entire directory tree; path must "
    "point to a directory (but not a symbolic link to a directory)."
)
RUN = (
    "The copytree helper is not part of subprocess; use shutil.copytree to copy a directory "
    "tree recursively before you run the child process in it."
)

EVIDENCE = {
    e["evidence_id"]: e
    for e in (
        evidence_for(QUESTION, SHUTIL, COPYTREE),
        evidence_for(QUESTION, SHUTIL, RMTREE),
        evidence_for(QUESTION, SUBPROCESS, RUN),
    )
}
E_COPY, E_RM, E_RUN = EVIDENCE
TEXTS = {SHUTIL.source_id: SHUTIL.text, SUBPROCESS.source_id: SUBPROCESS.text}
FETCHED = [SHUTIL.url, SUBPROCESS.url]


def _finding(item: EvidenceItem, claim: str) -> Finding:
    return Finding(
        claim=claim,
        quote=item["quote"],
        evidence_ids=[item["evidence_id"]],
        url=item["url"],
        title=item["title"],
        trust_tier=item["trust_tier"],
        verification={
            "status": "PASS",
            "method": "exact",
            "start": item["start"],
            "end": item["end"],
        },
    )


def _good() -> list[Finding]:
    return [
        _finding(
            EVIDENCE[E_COPY],
            "shutil.copytree recursively copies an entire directory tree rooted at src to dst.",
        ),
        _finding(EVIDENCE[E_RM], "shutil.rmtree deletes an entire directory tree."),
    ]


def _review(findings: list[Finding], answer: str | None = None, **kw: Any) -> ReviewResult:
    composition = Composition(
        answer=findings[0]["claim"] if answer is None else answer,
        findings=findings,
        conflicts=[],
        mode="llm",
    )
    return review_composition(
        composition,
        evidence=kw.get("evidence", EVIDENCE),
        source_texts=kw.get("source_texts", TEXTS),
        fetched_urls=kw.get("fetched_urls", FETCHED),
    )


def _codes(result: ReviewResult) -> list[tuple[int, str]]:
    return [(p.finding, p.code) for p in result.problems]


def test_faithful_composition_passes() -> None:
    result = _review(_good())
    assert result.passed, result.feedback()
    assert result.checked == 2
    assert result.feedback() == []


def test_fetched_urls_are_compared_canonically() -> None:
    result = _review(_good(), fetched_urls=["HTTPS://DOCS.PYTHON.ORG:443/3/library/shutil.html#x"])
    assert result.passed, result.feedback()


def test_unknown_evidence_id_is_reported() -> None:
    findings = _good()
    findings[1]["evidence_ids"] = [E_RM, "deadbeef-000"]
    assert _codes(_review(findings)) == [(1, "unknown_evidence")]
    findings[1]["evidence_ids"] = []
    assert (1, "unknown_evidence") in _codes(_review(findings))


def test_altered_quote_is_reported() -> None:
    findings = _good()
    findings[1]["quote"] = RMTREE.replace("deletes", "never deletes")
    result = _review(findings)
    assert _codes(result) == [(1, "quote_not_verified")]
    assert type(result.problems[0].code) is str  # plain strings survive any checkpointer
    assert "claim 2: quote_not_verified" in result.feedback()[0]


def test_quote_from_another_evidence_than_the_cited_one_is_reported() -> None:
    findings = _good()
    findings[0]["quote"] = RMTREE
    assert _codes(_review(findings)) == [(0, "quote_not_verified")]


def test_quote_that_no_longer_matches_the_stored_page_is_reported() -> None:
    changed = {**TEXTS, SHUTIL.source_id: SHUTIL.text.replace("deletes", "removes")}
    assert _codes(_review(_good(), source_texts=changed)) == [(1, "quote_not_verified")]
    missing = {SUBPROCESS.source_id: SUBPROCESS.text}
    assert _codes(_review(_good(), source_texts=missing)) == [
        (0, "quote_not_verified"),
        (1, "quote_not_verified"),
    ]


def test_url_never_fetched_is_reported() -> None:
    assert _codes(_review(_good(), fetched_urls=[SUBPROCESS.url])) == [
        (0, "url_not_fetched"),
        (1, "url_not_fetched"),
    ]
    findings = _good()
    findings[0]["url"] = SUBPROCESS.url
    assert _codes(_review(findings)) == [(0, "url_not_fetched")]


def test_url_mentioned_in_claim_or_answer_must_have_been_fetched() -> None:
    findings = _good()
    findings[1]["claim"] = (
        "shutil.rmtree deletes an entire directory tree, see http://evil.example."
    )
    assert (1, "url_not_fetched") in _codes(_review(findings))
    result = _review(_good(), answer=f"See http://evil.example and {SHUTIL.url}.")
    assert _codes(result)[0] == (ANSWER, "url_not_fetched")
    assert result.feedback()[0].startswith("answer: url_not_fetched")


@pytest.mark.parametrize(
    ("claim", "code"),
    [
        ("shutil.rmtree deletes an entire directory tree in 3 passes.", "unsupported_number"),
        ("As Guido wrote, shutil.rmtree deletes an entire directory tree.", "unsupported_name"),
        ("shutil.rmtree is faster than Windows Explorer at deleting trees.", "unsupported_name"),
        ("The function is deprecated, slow and unsafe for production servers.", "low_support"),
        ("   ", "empty_claim"),
    ],
)
def test_claim_adding_to_its_quote_is_reported(claim: str, code: str) -> None:
    findings = _good()
    findings[1]["claim"] = claim
    result = _review(findings, answer=findings[0]["claim"])
    assert (1, code) in _codes(result)
    assert all(p.finding == 1 for p in result.problems)


@pytest.mark.parametrize("apostrophe", ["'", "’"])
def test_a_negation_its_quotes_lack_is_reported_with_either_apostrophe(apostrophe: str) -> None:
    findings = _good()
    findings[0]["claim"] = (
        f"shutil.copytree doesn{apostrophe}t copy an entire directory tree rooted at src to dst."
    )
    result = _review(findings, answer=findings[1]["claim"])
    assert _codes(result) == [(0, "unsupported_negation")]
    assert result.problems[0].detail == "'not' negates what its quotes say"


@pytest.mark.parametrize("apostrophe", ["'", "’"])
def test_a_contraction_is_supported_by_not_in_its_quote(apostrophe: str) -> None:
    findings = _good()
    findings[1]["claim"] = (
        f"shutil.rmtree path must point to a directory, which isn{apostrophe}t a symbolic link "
        "to a directory."
    )
    assert _review(findings).passed, _review(findings).feedback()


def test_sentence_initial_capital_and_quoted_names_are_not_flagged() -> None:
    findings = _good()
    findings[1]["claim"] = "Deletes an entire directory tree: Path must point to a directory."
    assert _review(findings).passed


def test_answer_with_number_or_name_absent_from_all_quotes_is_reported() -> None:
    result = _review(_good(), answer="Since Python 2.5, shutil.copytree copies trees.")
    assert sorted(_codes(result)) == [(ANSWER, "unsupported_name"), (ANSWER, "unsupported_number")]


def test_failed_finding_verification_is_reported() -> None:
    findings = _good()
    findings[0]["verification"] = {"status": "FAIL", "method": None, "start": -1, "end": -1}
    assert _codes(_review(findings)) == [(0, "quote_not_verified")]
