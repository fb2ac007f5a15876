"""The answering rule: which verified quotes answer a question, and which may be composed.

A quote answers on two signals that agree (:func:`answers`); once one does, and one that does
is close enough in meaning to be about the question's subject, the quotes that support it may
be composed beside it (:func:`composable_evidence`). Both composers
(:mod:`~quotebound.report.extractive`, :mod:`~quotebound.report.selector`) and the loop's
assessment use this one rule.

The rule reads a little further once the run can read no more (``final``: its budget is spent,
or its last round found nothing new). While it can, a quote that only nearly answers sends it
on to read more pages, where a better quote may be; once it cannot, a quote close in meaning
answers from a lower relevance (``_FINAL_CLOSE_RELEVANCE``), rather than the run saying it
found nothing. A long question that describes the asker's situation ("On our CI box a setup
script copied the file in ... What's going on?") holds many words no page shares, which keep
the relevance of the quote that answers it low.
"""

from __future__ import annotations

from collections.abc import Sequence

from quotebound.evidence.relevance import (
    CONTEXT_THRESHOLD,
    RELEVANCE_THRESHOLD,
    SUPPORT_THRESHOLD,
    names_identifiers,
)
from quotebound.records import EvidenceItem

__all__ = [
    "ADDRESSED_MEANING",
    "CLOSE_MEANING",
    "FAR_MEANING",
    "RELATED_MEANING",
    "VERY_CLOSE_MEANING",
    "answers",
    "best_part",
    "composable_evidence",
    "context_worthy",
]

_RETRIEVED_TOP = 3
"""How many of the search's best passages count as "best" for that."""
CLOSE_MEANING = 0.6
"""A quote at least this close in meaning to the question (cosine similarity) answers it
when its relevance reaches ``_CLOSE_RELEVANCE`` too."""
_CLOSE_RELEVANCE = 0.3
_FINAL_CLOSE_RELEVANCE = 0.2
"""Once the run can read no more (``final``), a quote close in meaning answers from this
relevance."""
_FOUND_RELEVANCE = 0.15
"""A quote close in meaning, inside one of the search's best passages and spelling every
identifier the question names, answers from this relevance."""
VERY_CLOSE_MEANING = 0.8
"""A quote at least this close in meaning, inside one of the search's best passages, answers
whatever share of the question's terms it holds: the terms it shares may be the topic of every
quote read ("JIT" for "is JIT worth it for short queries?" over pages about JIT), which
their IDF over those quotes discounts to next to nothing."""
FAR_MEANING = 0.2
"""A quote less close in meaning than this never answers."""
RELATED_MEANING = 0.5
"""Once a question is answered, a quote at least this close in meaning may be composed."""
ADDRESSED_MEANING = 0.35
"""A question that names no identifier is answered only if a quote that answers it is at least
this close in meaning (or its meaning was not compared): when every answering quote is further,
the documents share the question's words but not its subject ("the highest number of captures"
for "the highest mountain"). The encoder cannot read code, so a question that names some
(``-O``, ``max_workers``) is left to the quotes that spell it."""


def answers(item: EvidenceItem, part: int | None = None, *, final: bool = False) -> bool:
    """Whether a quote answers the question (or its ``part``-th sub-question), on two signals
    that agree: relevant enough on its own words; or relevant enough to support an answer and
    inside one of the passages the search ranked best across the whole corpus; or sharing a
    fair part of the question's (or part's) terms and close in meaning to the question (its
    closest part; :mod:`~quotebound.evidence.encoder`); or close in meaning, inside one of the
    search's best passages and spelling every identifier the question names (``spelled``),
    sharing a smaller part of its terms; or very close in meaning and inside one of the search's
    best passages, whatever terms it shares. A quote whose meaning was compared and
    found far from the question's never answers, whatever words it shares: a page that names the
    question's terms about something else.

    The first two bars read how much of the question the quote's words cover (``covers``),
    where the subject's words, common among the quotes of pages read for it, still count; the
    bars that ask for closeness in meaning too read its relevance itself."""
    score = item["relevance"] if part is None else item["parts"][part]
    covers = item.get("covers", item["parts"])
    covered = max(covers) if part is None else covers[part]
    meaning = item.get("meaning")
    if meaning is not None and meaning < FAR_MEANING:
        return False
    found = item.get("retrieved")
    best_found = found is not None and found < _RETRIEVED_TOP
    close = meaning is not None and meaning >= CLOSE_MEANING
    very_close = meaning is not None and meaning >= VERY_CLOSE_MEANING
    return (
        covered >= RELEVANCE_THRESHOLD
        or (covered >= SUPPORT_THRESHOLD and best_found)
        or (close and score >= (_FINAL_CLOSE_RELEVANCE if final else _CLOSE_RELEVANCE))
        or (close and best_found and score >= _FOUND_RELEVANCE and item.get("spelled", False))
        or (very_close and best_found)
    )


def composable_evidence(
    question: str, evidence: Sequence[EvidenceItem], *, final: bool = False
) -> list[EvidenceItem]:
    """Verified (PASS) evidence that may be composed, best first, one per id: none unless some
    answers ``question`` (:func:`answers`) and one that does addresses its subject
    (``ADDRESSED_MEANING``); then those of an answering page that reach the context threshold,
    and those of other pages that reach the support threshold for a part some quote answers;
    each also when its meaning is related to the question's (a paraphrase of it shares few of
    its words). A quote of another page whose words are closest to a part nothing answers is
    never composed: it shares that part's words about another subject ("a company
    headquartered by the harbour" for "in which city is that organisation headquartered"), and
    the part is reported as not covered instead. ``final``: as for :func:`answers`."""
    passed = [e for e in evidence if e["verification"]["status"] == "PASS"]
    answering = [e for e in passed if answers(e, final=final)]
    if not answering or not (names_identifiers(question) or any(_addresses(e) for e in answering)):
        return []
    sources = {e["source_id"] for e in answering}
    answered = {
        i
        for i in range(len(answering[0]["parts"]))
        if any(answers(e, i, final=final) for e in passed)
    }
    seen: dict[str, EvidenceItem] = {}
    for item in passed:
        if item["source_id"] in sources:
            bar = CONTEXT_THRESHOLD
        elif best_part(item) in answered:
            bar = SUPPORT_THRESHOLD
        else:
            continue  # it would support a part nothing answers: a page on another subject
        related = _related(item.get("meaning"))
        if (item["relevance"] >= bar or related) and item["evidence_id"] not in seen:
            seen[item["evidence_id"]] = item
    return sorted(seen.values(), key=lambda e: (-e["score"], e["evidence_id"]))


def context_worthy(relevance: float, meaning: float | None) -> bool:
    """Whether a quote of relevance ``relevance`` and meaning ``meaning`` (None when not
    compared) may stand beside an answer from its own page: it reaches the context threshold,
    or its meaning is related to the question's."""
    return relevance >= CONTEXT_THRESHOLD or _related(meaning)


def _related(meaning: float | None) -> bool:
    return meaning is not None and meaning >= RELATED_MEANING


def best_part(item: EvidenceItem) -> int:
    """The sub-question a quote is most relevant to (the first on ties)."""
    parts = item["parts"]
    return parts.index(max(parts))


def _addresses(item: EvidenceItem) -> bool:
    meaning = item.get("meaning")
    return meaning is None or meaning >= ADDRESSED_MEANING
