"""Negation words: which words of a text say that something is not so.

Two checks ask the same question of their own words. Verification names a failing quote's
reason ``negation_mismatch`` when its negations differ from those of its best source window
(docs/architecture.md §4), and quality review flags a claim whose negations its quotes lack
(§5). Each splits its text into words its own way; :func:`negations` decides which words negate.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["NEGATIONS", "negations"]

NEGATIONS = frozenset(
    {
        "not", "no", "never", "none", "neither", "nor", "nothing", "nobody", "nowhere",
        "cannot", "without", "non",
    }
)  # fmt: skip
"""Negating words, lower-case. A contraction ending in ``n't`` (``isn't``) negates too."""

_CONTRACTED = ("n't", "n\u2019t")
"""The ``n't`` ending, with a straight or a typographic apostrophe (``isn’t``)."""


def negations(words: Iterable[str]) -> list[str]:
    """The lower-case ``words`` that negate, in order, repeats kept: those in :data:`NEGATIONS`
    and contractions ending in ``n't`` or ``n’t``."""
    return [word for word in words if word in NEGATIONS or word.endswith(_CONTRACTED)]
