"""The JSON-serializable records that travel in graph state and output (docs/architecture.md §6).

Graph state must survive checkpointers, the server and the SDK, so these are TypedDicts of
plain values, not objects. Raw pages never appear here: state holds ids, metadata and quotes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, NotRequired, TypedDict

__all__ = [
    "Composition",
    "ConflictGroup",
    "ConflictSide",
    "EvidenceItem",
    "Finding",
    "FindingVerification",
    "SourceInfo",
    "Status",
    "VerificationRecord",
]


class Status(StrEnum):
    """How a run ended: the output's ``status``."""

    ANSWERED = "answered"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"
    VERIFIED_DISABLED = "verified_disabled"
    """No store or thread: nothing could be verified, so leads are listed instead."""


class VerificationRecord(TypedDict):
    """A :class:`quotebound.evidence.verification.Verification` as a dict."""

    status: Literal["PASS", "FAIL"]
    method: Literal["exact", "normalized", "fuzzy"] | None
    score: float
    start: int
    end: int
    matched_text: str
    reason: str | None


class EvidenceItem(TypedDict):
    """A candidate quote from a stored page, with its verification and relevance."""

    evidence_id: str
    chunk_id: str
    hash_version: int
    source_id: str
    url: str
    title: str
    trust_tier: int
    quote: str
    start: int
    end: int
    words: int
    relevance: float
    """Lexical relevance to the question or a sub-question, 0-1 (with the quote's context)."""
    parts: list[float]
    """Relevance to each sub-question (as :func:`quotebound.evidence.relevance.sub_questions` splits
    the question), IDF-weighted over the round's candidates."""
    covers: NotRequired[list[float]]
    """Relevance to each sub-question with each term at a power of its IDF below 1: how much of
    it the quote's words cover, which :func:`quotebound.report.answering.answers` reads where it
    judges a quote by its words alone; absent, ``parts`` stands for it."""
    score: float
    """Ranking score: relevance plus term proximity, heading match and question-type fit."""
    context: str
    """The page title and heading path the quote sits under (" / "-separated)."""
    retrieved: NotRequired[int | None]
    """The rank (0 best) of the search's passage the quote lies in, among all the passages the
    search ranked for the run's queries; None when the search found no passage of it."""
    meaning: NotRequired[float | None]
    """Cosine similarity of the quote's meaning to the question's (its closest part), when it
    was among the best quotes of its round and the encoder is installed; otherwise None."""
    spelled: NotRequired[bool]
    """Whether the quote, with its context, spells every identifier the (sub-)question it
    answers best names; absent counts as False."""
    verification: VerificationRecord
    round: int


class FindingVerification(TypedDict):
    status: Literal["PASS", "FAIL"]
    method: Literal["exact", "normalized", "fuzzy"] | None
    start: int
    end: int


class Finding(TypedDict):
    """One claim in a report, supported by verified quotes."""

    claim: str
    quote: str
    evidence_ids: list[str]
    url: str
    title: str
    trust_tier: int
    verification: FindingVerification


class ConflictSide(TypedDict):
    evidence_id: str
    quote: str
    url: str
    title: str
    values: list[str]


class ConflictGroup(TypedDict):
    """Quotes that answer the same thing differently (e.g. different numbers)."""

    topic: str
    sides: list[ConflictSide]


class Composition(TypedDict):
    """What a composer returns: an answer built only from the findings it cites."""

    answer: str
    findings: list[Finding]
    conflicts: list[ConflictGroup]
    mode: Literal["llm", "extractive"]
    warnings: NotRequired[list[str]]


class SourceInfo(TypedDict):
    """A source the thread considered: fetched (with tier and time) or failed (with reason)."""

    source_id: str
    url: str
    canonical_url: str
    title: str
    trust_tier: int
    provider: str
    fetch_status: Literal["fetched", "failed", "lead"]
    fetched_at: NotRequired[str]
    reason: NotRequired[str]
    detail: NotRequired[str]
    round: NotRequired[int]
    cache_status: NotRequired[str]
    """For a web page: hit, miss, stale or revalidated (the page cache), n/a (cache off)."""
