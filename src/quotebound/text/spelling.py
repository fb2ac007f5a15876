"""British and American spellings of one English word: "serialised" is "serialized".

A British asker writes "serialised", "behaviour" or "normalise" of pages written in American
spelling, and an American one "labor" of a page about the Labour party: the words are the same,
but no stemmer makes them one term ("serialis" and "serial"). The word pairs are breame's
(about 1,700 words that have a British and an American spelling).
"""

from __future__ import annotations

import snowballstemmer

__all__ = ["american", "spellings"]


def american(word: str) -> str:
    """``word`` (lower case) in its American spelling, or as it is when it has no other:
    ``american("serialised") == "serialized"``; ``american("serialized") == "serialized"``."""
    from breame.spelling import get_american_spelling  # 0.02 s to import: on first use

    return get_american_spelling(word)


def spellings(word: str) -> tuple[str, ...]:
    """``word`` (lower case) and its spelling in the other variety of English when a stemmer
    reads the two as two words: ``("serialised", "serialized")``, ``("color", "colour")``;
    ``("install",)``, whose British "instal" is one word with it to a stemmer, as are
    "cancelled" and "canceled"; ``("python",)``."""
    from breame.spelling import get_british_spelling

    other = american(word)
    if other == word:
        other = get_british_spelling(word)
    if other == word:
        return (word,)
    stemmer = snowballstemmer.stemmer("english")  # its own: a stemmer keeps state as it works
    return (word,) if stemmer.stemWord(other) == stemmer.stemWord(word) else (word, other)
