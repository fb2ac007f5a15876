"""Which search results to read first: a provider's ranking fused with meaning.

A search ranks pages by the words they share with the query; a page that says what was asked
in other words sits a few places down, behind pages that repeat the query's words about
something else, and a run reads only the first few. Each result's title and snippet (for a
corpus, the page's best passages from their sentences that hold the query's words, each under
its heading) is compared in meaning with the question (its closest part;
:mod:`~quotebound.evidence.encoder`), and the results are read in the order of the provider's
rank fused with that closeness: the share of reciprocal rank fusion for the rank, plus a
weight times the cosine similarity. Without the encoder the provider's order stands.
"""

from __future__ import annotations

from collections.abc import Sequence

from quotebound.evidence import encoder

__all__ = ["MOST_REORDERED", "read_order"]

_RANK_K = 3.0
"""Reciprocal rank fusion: the result at rank r (0 best) gains 1 / (k + r)."""
_MEANING_WEIGHT = 0.7
"""What a result gains per unit of cosine similarity to the question."""
MOST_REORDERED = 10
"""Results of one answer that are compared (its first ones); those after keep their place."""


def read_order(questions: Sequence[str], leads: Sequence[str]) -> list[int]:
    """The positions of ``leads`` (each result's text, in the provider's order) in the order to
    read them: the first ``MOST_REORDERED`` by their rank's share plus ``_MEANING_WEIGHT``
    times their closeness to the closest of ``questions``, ties to the provider's order; the
    rest after them as they were. The provider's order when the encoder is off or missing."""
    first = list(leads[:MOST_REORDERED])
    rest = list(range(len(first), len(leads)))
    if len(first) < 2 or not questions:
        return [*range(len(first)), *rest]
    close = encoder.similarities(questions, first)
    if close is None:
        return [*range(len(first)), *rest]
    fused = [1.0 / (_RANK_K + r) + _MEANING_WEIGHT * c for r, c in enumerate(close)]
    return [*sorted(range(len(first)), key=lambda r: (-round(fused[r], 9), r)), *rest]
