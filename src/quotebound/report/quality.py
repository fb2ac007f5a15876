"""Deterministic quality review of a composition before it ships (docs/architecture.md §5).

Every claim must cite verified evidence, carry a quote that re-verifies against the stored page
and lies within the cited evidence, point at a URL this thread fetched, and say nothing its
quotes do not: no extra number, no extra name, little unsupported wording. The answer text may
not introduce numbers, names or URLs either. Problems become feedback for a revision.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum

from quotebound.evidence.relevance import content_terms, sentence_spans, term_coverage
from quotebound.evidence.verification import verify_quote
from quotebound.records import Composition, EvidenceItem, Finding
from quotebound.text.names import is_name
from quotebound.text.negation import NEGATIONS, negations
from quotebound.urls import canonical_url

__all__ = [
    "ANSWER",
    "MIN_SUPPORT",
    "ReviewCode",
    "ReviewProblem",
    "ReviewResult",
    "review_composition",
]

MIN_SUPPORT = 0.5
"""Share of a claim's content terms its quotes must contain."""

ANSWER = -1
"""The ``finding`` index of a problem in the answer text."""

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_URL = re.compile(r"https?://[^\s)\]>\"']+", re.IGNORECASE)
_NEGATION_WORD = re.compile(r"[A-Za-z]+n[’']t|[A-Za-z]+")


class ReviewCode(StrEnum):
    """Why a claim or the answer failed review."""

    UNKNOWN_EVIDENCE = "unknown_evidence"
    QUOTE_NOT_VERIFIED = "quote_not_verified"
    URL_NOT_FETCHED = "url_not_fetched"
    UNSUPPORTED_NUMBER = "unsupported_number"
    UNSUPPORTED_NAME = "unsupported_name"
    UNSUPPORTED_NEGATION = "unsupported_negation"
    LOW_SUPPORT = "low_support"
    EMPTY_CLAIM = "empty_claim"


@dataclass(frozen=True)
class ReviewProblem:
    """One failed check."""

    finding: int
    """Index of the finding in the composition, or -1 for the answer text."""
    code: str
    """A :class:`ReviewCode` value."""
    detail: str
    """What is wrong, with the offending value."""


@dataclass(frozen=True)
class ReviewResult:
    """The outcome of :func:`review_composition`."""

    passed: bool
    """True when no check failed."""
    problems: tuple[ReviewProblem, ...]
    """Every failed check, in finding order."""
    checked: int
    """How many findings were checked."""

    def feedback(self) -> list[str]:
        """One line per problem, for the revision prompt."""
        return [
            f"{'answer' if p.finding == ANSWER else f'claim {p.finding + 1}'}: {p.code}: {p.detail}"
            for p in self.problems
        ]


def review_composition(
    composition: Composition,
    *,
    evidence: Mapping[str, EvidenceItem],
    source_texts: Mapping[str, str],
    fetched_urls: Collection[str],
) -> ReviewResult:
    """Check every finding and the answer of ``composition``; see the module docstring."""
    fetched = {canonical_url(u) for u in fetched_urls}
    problems: list[ReviewProblem] = []
    cited_quotes: list[str] = []
    for index, finding in enumerate(composition["findings"]):
        cited = [evidence[i] for i in finding["evidence_ids"] if i in evidence]
        cited_quotes.extend(e["quote"] for e in cited)
        problems.extend(
            ReviewProblem(index, code.value, detail)
            for code, detail in _check_finding(finding, cited, evidence, source_texts, fetched)
        )
    answer = composition["answer"]
    if answer.strip():
        support = " \n".join(cited_quotes)
        problems.extend(
            ReviewProblem(ANSWER, code.value, detail)
            for code, detail in _check_text(answer, support, fetched)
        )
        problems.extend(
            ReviewProblem(ANSWER, code.value, detail)
            for start, end in sentence_spans(answer)
            for code, detail in _check_support(answer[start:end], support)
        )
    return ReviewResult(
        passed=not problems,
        problems=tuple(dict.fromkeys(problems)),
        checked=len(composition["findings"]),
    )


def _check_finding(
    finding: Finding,
    cited: list[EvidenceItem],
    evidence: Mapping[str, EvidenceItem],
    source_texts: Mapping[str, str],
    fetched: set[str],
) -> list[tuple[ReviewCode, str]]:
    out: list[tuple[ReviewCode, str]] = []
    if not finding["evidence_ids"]:
        out.append((ReviewCode.UNKNOWN_EVIDENCE, "cites no evidence"))
    out.extend(
        (ReviewCode.UNKNOWN_EVIDENCE, f"cites {i!r}, which is not verified evidence")
        for i in finding["evidence_ids"]
        if i not in evidence
    )
    url = canonical_url(finding["url"]) if finding["url"] else ""
    if url not in fetched:
        out.append((ReviewCode.URL_NOT_FETCHED, f"{finding['url']!r} was not fetched"))
    elif cited and url not in {canonical_url(e["url"]) for e in cited}:
        out.append((ReviewCode.URL_NOT_FETCHED, f"{finding['url']!r} is not its evidence's source"))
    if cited:
        out.extend(_check_quote(finding, cited, source_texts))
    if not finding["claim"].strip():
        out.append((ReviewCode.EMPTY_CLAIM, "the claim is empty"))
        return out
    support = " \n".join(e["quote"] for e in cited)
    out.extend(_check_text(finding["claim"], support, fetched))
    out.extend(_check_support(finding["claim"], support))
    return out


def _check_support(text: str, support: str) -> list[tuple[ReviewCode, str]]:
    """Enough of ``text``'s terms are in its quotes (a claim, or one sentence of the answer)."""
    coverage = term_coverage(_URL.sub(" ", text), support)
    if coverage >= MIN_SUPPORT:
        return []
    return [
        (
            ReviewCode.LOW_SUPPORT,
            f"only {coverage:.0%} of {text[:80]!r}'s terms are in its quotes "
            f"(at least {MIN_SUPPORT:.0%} needed)",
        )
    ]


def _check_quote(
    finding: Finding, cited: list[EvidenceItem], source_texts: Mapping[str, str]
) -> list[tuple[ReviewCode, str]]:
    """The quote lies within a cited evidence quote and re-verifies against its stored page."""
    quote = finding["quote"]
    if not quote.strip():
        return [(ReviewCode.QUOTE_NOT_VERIFIED, "the quote is empty")]
    if finding["verification"]["status"] != "PASS":
        return [(ReviewCode.QUOTE_NOT_VERIFIED, "the finding's verification is not PASS")]
    holder = next((e for e in cited if verify_quote(quote, e["quote"]).status == "PASS"), None)
    if holder is None:
        return [(ReviewCode.QUOTE_NOT_VERIFIED, "the quote differs from the cited evidence")]
    text = source_texts.get(holder["source_id"])
    if text is None:
        return [(ReviewCode.QUOTE_NOT_VERIFIED, f"page {holder['source_id']} is not in the Store")]
    result = verify_quote(quote, text)
    if result.status != "PASS":
        return [
            (ReviewCode.QUOTE_NOT_VERIFIED, f"the stored page does not match ({result.reason})")
        ]
    return []


def _check_text(text: str, support: str, fetched: set[str]) -> list[tuple[ReviewCode, str]]:
    """Numbers, names and negations in ``text`` that ``support`` (its quotes) lacks, and
    URLs this thread did not fetch (even ones its quotes mention: a claim never cites them)."""
    urls = dict.fromkeys(m.rstrip(".,;:!?") for m in _URL.findall(text))
    out: list[tuple[ReviewCode, str]] = [
        (ReviewCode.URL_NOT_FETCHED, f"mentions {u!r}, which was not fetched")
        for u in urls
        if canonical_url(u) not in fetched
    ]
    prose = _URL.sub(" ", text)
    supported = _negations(support)
    out.extend(
        (ReviewCode.UNSUPPORTED_NEGATION, f"{n!r} negates what its quotes say")
        for n in _negations(prose)
        if n not in supported
    )
    numbers = {t for t in content_terms(support) if t[0].isdigit()}
    out.extend(
        (ReviewCode.UNSUPPORTED_NUMBER, f"{n!r} is not in its quotes")
        for n in dict.fromkeys(t for t in content_terms(prose) if t[0].isdigit())
        if n not in numbers
    )
    words = {w.lower() for w in _WORD.findall(support)}
    out.extend(
        (ReviewCode.UNSUPPORTED_NAME, f"{name!r} is not in its quotes")
        for name in _mid_sentence_capitals(prose)
        if name.lower() not in words
    )
    return out


def _negations(text: str) -> list[str]:
    """Negation words in ``text`` (``isn't`` counts as ``not``), in order, once each."""
    found = negations(w.lower() for w in _NEGATION_WORD.findall(text))
    # A negation outside NEGATIONS is a contraction (isn't, don’t).
    return list(dict.fromkeys(w if w in NEGATIONS else "not" for w in found))


def _mid_sentence_capitals(text: str) -> list[str]:
    """Single words (ASCII letters, digits, ``_``; two characters or more) that are names by
    :func:`~quotebound.text.names.is_name`, once each in order: the names a claim may not add
    to its quotes, checked word by word. (The planner's
    ``salient_name_phrases`` finds something else: name phrases of one or more words, at a
    sentence's start too, ranked by frequency as search terms.)"""
    names: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group()
        if len(word) >= 2 and is_name(text, match.start(), word) and word not in names:
            names.append(word)
    return names
