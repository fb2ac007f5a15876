"""Query planning: the deterministic planner and validation of an LLM's plan.

Round 1 asks the question itself (and, for a multi-part question, its parts). Later rounds go
after the coverage gaps: each unanswered sub-question, refined with names the verified
evidence has surfaced so far (multi-hop: "X is maintained by the Orion Foundation" → search
"Orion Foundation ..."). Nothing here reads the clock or draws random numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from quotebound.evidence.relevance import content_terms, sub_questions
from quotebound.text.names import is_name, opens_sentence

__all__ = [
    "MAX_QUERY_CHARS",
    "Plan",
    "PlanError",
    "deterministic_plan",
    "salient_name_phrases",
    "validate_plan",
]

MAX_QUERY_CHARS = 300
_WORD = r"[A-Z][\w-]*(?:\.[A-Za-z_][\w-]*)*"
_NAME = re.compile(rf"\b{_WORD}(?:[ ](?:of[ ]|the[ ])?{_WORD})*")
_CAPITALIZED = re.compile(rf"\b{_WORD}")
_NAME_SHAPED = re.compile(r"\w[A-Z\d.]")
"""A capital, digit or dot after a word's first letter: ``SQL``, ``PostgreSQL``, ``P2``."""


class PlanError(ValueError):
    """A model's plan is not valid JSON of the agreed shape."""


@dataclass(frozen=True)
class Plan:
    """The queries for one round and what is still missing."""

    queries: tuple[str, ...]
    coverage_gaps: tuple[str, ...]
    source: str
    """``deterministic`` or ``llm``."""
    reason: str = ""


def salient_name_phrases(texts: Iterable[str], *, exclude: str = "") -> list[str]:
    """Name phrases in ``texts`` to search for, most frequent first (ties: first seen first).

    A name phrase is a capitalized word (``Zephyr``; dotted ones such as ``Node.js`` whole) or a
    run of them joined by single spaces, possibly through ``of`` or ``the`` ("Orion Foundation",
    "Bank of England"), less the function words it opens with ("The", "For", "In").
    A phrase may open a sentence ("Orion Foundation maintains it."), but a single word there is
    a name only if the texts write it capitalized mid-sentence too, or it is written as only
    names are (``WAL``, ``Node.js``, ``P2``): "Note", "Return" or "Previously" open sentences
    for grammar's sake. A phrase of one character, or made only of words of ``exclude`` (the
    question), does not count. (Quality review's ``_mid_sentence_capitals`` finds something
    else: single words, never at a sentence's start, each of which a claim's quotes must
    contain.)"""
    texts = list(texts)
    known = {t.lower() for t in re.findall(r"\w+", exclude)}
    named = {m.group() for text in texts for m in _CAPITALIZED.finditer(text) if _named(text, m)}
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    for text in texts:
        for phrase in _NAME.finditer(text):
            words = list(re.finditer(r"\S+", phrase.group(0).rstrip(" .-")))
            while words and _grammar(text, phrase.start(), words, named):
                words = words[1:]
            name = " ".join(w.group() for w in words)
            if len(name) < 2 or all(w.lower() in known for w in re.findall(r"\w+", name)):
                continue
            counts[name] = counts.get(name, 0) + 1
            first.setdefault(name, len(first))
    return sorted(counts, key=lambda n: (-counts[n], first[n]))


def _named(text: str, match: re.Match[str]) -> bool:
    """Whether the capitalized word ``match`` of ``text`` is written as only names are: inside
    a sentence, or with a capital, digit or dot after its first letter."""
    return is_name(text, match.start(), match.group()) or bool(_NAME_SHAPED.search(match.group()))


def _grammar(text: str, offset: int, words: list[re.Match[str]], named: set[str]) -> bool:
    """Whether the first of a phrase's ``words`` (matched in the phrase found at ``offset`` of
    ``text``) is there for grammar's sake: a function word, or a word that opens a sentence
    and that the texts never write as a name (``named``), alone or before "of" or "the"."""
    word = words[0].group()
    if not content_terms(word):
        return True
    if word in named:
        return False
    alone = len(words) == 1 or words[1].group() in ("of", "the")
    return alone and opens_sentence(text, offset + words[0].start())


def deterministic_plan(
    question: str,
    *,
    gaps: Sequence[str],
    done: Sequence[str],
    max_queries: int,
    evidence_texts: Sequence[str] = (),
) -> Plan:
    """Queries for the next round that have not been asked before (possibly none)."""
    asked = {_key(q) for q in done}
    proposals: list[str] = []
    if not done:
        parts = sub_questions(question)
        proposals = [question] + (parts if len(parts) > 1 else [])
    else:
        names = salient_name_phrases(evidence_texts, exclude=question)[:3]
        for gap in gaps or sub_questions(question):
            terms = " ".join(content_terms(gap))
            proposals += [f"{name} {terms}" for name in names]
            proposals += [gap, terms]
    queries: list[str] = []
    for q in proposals:
        q = " ".join(q.split())[:MAX_QUERY_CHARS]
        if q and _key(q) not in asked:
            asked.add(_key(q))
            queries.append(q)
    missing = tuple(gaps) if done else tuple(sub_questions(question))
    return Plan(tuple(queries[:max_queries]), missing, "deterministic")


def validate_plan(data: Any, *, max_queries: int, done: Sequence[str]) -> Plan:
    """A Plan from a model's parsed JSON; raises PlanError on anything off-shape."""
    if not isinstance(data, dict):
        raise PlanError(f"plan must be a JSON object, got {type(data).__name__}")
    queries = data.get("queries")
    if not isinstance(queries, list) or not queries:
        raise PlanError("plan needs a non-empty 'queries' list")
    if not all(isinstance(q, str) and q.strip() for q in queries):
        raise PlanError("every query must be a non-empty string")
    gaps = data.get("coverage_gaps", [])
    if not isinstance(gaps, list) or not all(isinstance(g, str) for g in gaps):
        raise PlanError("'coverage_gaps' must be a list of strings")
    asked = {_key(q) for q in done}
    fresh: list[str] = []
    for q in queries:
        q = " ".join(q.split())[:MAX_QUERY_CHARS]
        if _key(q) not in asked:
            asked.add(_key(q))
            fresh.append(q)
    if not fresh:
        raise PlanError("plan repeats only queries already asked")
    reason = data.get("reason", "")
    return Plan(
        tuple(fresh[:max_queries]),
        tuple(g for g in gaps if g.strip()),
        "llm",
        reason if isinstance(reason, str) else "",
    )


def _key(query: str) -> str:
    return " ".join(query.lower().split())
