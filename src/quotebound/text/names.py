"""What counts as a name in running text: a capitalized word that does not open a sentence.

A capital at a sentence's start is grammar, not a name. Quality review uses this rule for the
names a claim may not add to its quotes, relevance for the names a question turns on, and the
planner for which capitalized words of the quotes it read are names to search for.
"""

from __future__ import annotations

import re

__all__ = ["is_name", "is_particle", "opens_sentence"]

_OPENERS = "\"'“‘(*`-–—•> \t\n"
"""What may stand between a sentence's end and its first word: quotes, brackets, bullets."""
_SENTENCE_ENDS = ".?!:;"
# fmt: off
_PARTICLES = frozenset({
    "van", "von", "der", "den", "de", "da", "di", "del", "della", "du", "la", "le", "bin", "ibn",
    "al", "el", "dos", "das",
})
# fmt: on
"""Lower-case words inside names ("Guido van Rossum", "Leonardo da Vinci")."""
_CAPITALIZED_BEFORE = re.compile(r"[A-Z][\w'-]*\s+$")
_CAPITALIZED_AFTER = re.compile(r"\s+[A-Z]")


def opens_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens ``text``, a paragraph, or a sentence or clause in it:
    before it are only opening quotes, brackets and bullets since the start, a blank line or a
    ``.?!:;``."""
    head = text[:start]
    before = head.rstrip(_OPENERS)
    return not before or before[-1] in _SENTENCE_ENDS or head.count("\n", len(before)) >= 2


def is_name(text: str, start: int, word: str) -> bool:
    """Whether ``word``, found at ``start`` in ``text``, is a name: capitalized and not the
    first word of a sentence."""
    return word[:1].isupper() and not opens_sentence(text, start)


def is_particle(text: str, start: int, word: str) -> bool:
    """Whether ``word``, found at ``start`` in ``text``, is a lower-case part of a name ("van"
    in "Guido van Rossum"): a known particle between two capitalized words."""
    return (
        word in _PARTICLES
        and bool(_CAPITALIZED_BEFORE.search(text[:start]))
        and bool(_CAPITALIZED_AFTER.match(text, start + len(word)))
    )
