"""Extractive conflict detection: different sources stating different numbers.

A numeric fact is a number with the unit word after it ("30 seconds") and the two content terms
nearest before it in its sentence ("default timeout"). Quotes from different sources that answer
the same sub-question and state the same fact with disjoint values form a conflict group. The
rules are conservative on purpose: a false conflict misleads more than a missed one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from quotebound.evidence.relevance import (
    RELEVANCE_THRESHOLD,
    content_terms,
    relevance,
    sentence_spans,
    sub_questions,
)
from quotebound.records import ConflictGroup, ConflictSide, EvidenceItem

__all__ = ["numeric_conflicts"]

_NUMBER = re.compile(r"(?<![\w.,-])\d+(?:[.,]\d+)*(?![\w-]|[.,]\d)")
_UNIT = re.compile(r"\s*(%|[A-Za-z]+)")
_NOT_QUANTITIES = frozenset(
    {"version", "python", "pep", "rfc", "section", "chapter", "page", "line", "figure", "table",
     "step", "example", "item", "note", "issue", "bpo", "gh", "release", "year"}
)  # fmt: skip
"""Context terms whose numbers label things rather than measure them."""
_CONTEXT_TERMS = 2


@dataclass(frozen=True)
class _Fact:
    """One number stated in a quote, with what it measures."""

    key: tuple[frozenset[str], str]
    """The context terms before the number and the unit term after it."""
    topic: str
    """A readable name of the quantity, e.g. "default timeout (seconds)"."""
    value: str
    """The number as written."""


def _facts(quote: str) -> list[_Fact]:
    facts: list[_Fact] = []
    for start, end in sentence_spans(quote):
        sentence = quote[start:end]
        for match in _NUMBER.finditer(sentence):
            unit_match = _UNIT.match(sentence, match.end())
            if unit_match is None:
                continue
            unit_word = unit_match.group(1)
            unit_terms = ["percent"] if unit_word == "%" else content_terms(unit_word)
            before = [t for t in content_terms(sentence[: match.start()]) if not t[0].isdigit()]
            context = before[-_CONTEXT_TERMS:]
            if not unit_terms or not context or _NOT_QUANTITIES.intersection(context + unit_terms):
                continue
            facts.append(
                _Fact(
                    key=(frozenset(context), unit_terms[0]),
                    topic=f"{' '.join(context)} ({unit_word})",
                    value=match.group(),
                )
            )
    return facts


def _number(value: str) -> float:
    return float(value.replace(",", ""))


def _side(item: EvidenceItem, values: list[str]) -> ConflictSide:
    return ConflictSide(
        evidence_id=item["evidence_id"],
        quote=item["quote"],
        url=item["url"],
        title=item["title"],
        values=values,
    )


def _group(
    topic: str, by_source: dict[str, list[tuple[EvidenceItem, str]]]
) -> ConflictGroup | None:
    value_sets = {src: {_number(v) for _, v in pairs} for src, pairs in by_source.items()}
    sources = sorted(value_sets)
    disagree = any(
        value_sets[a].isdisjoint(value_sets[b])
        for i, a in enumerate(sources)
        for b in sources[i + 1 :]
    )
    if not disagree:
        return None
    sides: list[ConflictSide] = []
    for src in sources:
        pairs = by_source[src]
        item = min((p[0] for p in pairs), key=lambda e: (-e["relevance"], e["evidence_id"]))
        values = sorted({v for e, v in pairs if e is item}, key=_number)
        sides.append(_side(item, values))
    sides.sort(key=lambda s: (_number(s["values"][0]), s["evidence_id"]))
    return ConflictGroup(topic=topic, sides=sides)


def numeric_conflicts(question: str, evidence: Sequence[EvidenceItem]) -> list[ConflictGroup]:
    """Groups of verified, relevant quotes from different sources that disagree on a number."""
    usable = sorted(
        (
            e
            for e in evidence
            if e["verification"]["status"] == "PASS" and e["relevance"] >= RELEVANCE_THRESHOLD
        ),
        key=lambda e: e["evidence_id"],
    )
    facts = {e["evidence_id"]: _facts(e["quote"]) for e in usable}
    groups: dict[tuple[frozenset[str], str], ConflictGroup] = {}
    for part in sub_questions(question):
        by_key: dict[tuple[frozenset[str], str], dict[str, list[tuple[EvidenceItem, str]]]]
        by_key = defaultdict(lambda: defaultdict(list))
        topics: dict[tuple[frozenset[str], str], str] = {}
        for item in usable:
            if relevance(part, item["quote"], context=item["context"]) < RELEVANCE_THRESHOLD:
                continue
            for fact in facts[item["evidence_id"]]:
                by_key[fact.key][item["source_id"]].append((item, fact.value))
                topics.setdefault(fact.key, fact.topic)
        for key, by_source in by_key.items():
            if key in groups or len(by_source) < 2:
                continue
            group = _group(topics[key], by_source)
            if group is not None:
                groups[key] = group
    return sorted(groups.values(), key=lambda g: (g["topic"], g["sides"][0]["evidence_id"]))
