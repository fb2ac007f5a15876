"""One rule for what a name is, shared by quality review and relevance."""

from __future__ import annotations

from quotebound.evidence.relevance import key_terms
from quotebound.text.names import is_name, opens_sentence


def _at(text: str, word: str) -> bool:
    return is_name(text, text.index(word), word)


def test_a_capital_that_opens_a_sentence_is_grammar() -> None:
    text = 'Tern starts. "Then it stops": Next comes\n\nAfter that; Finally - Bullet'
    for word in ("Tern", "Then", "Next", "After", "Finally"):
        assert opens_sentence(text, text.index(word)), word
        assert not _at(text, word), word


def test_a_capital_inside_a_sentence_is_a_name() -> None:
    text = "The cache in Tern (Python 3) keeps entries, said Ada Lovelace."
    for word in ("Tern", "Python", "Ada", "Lovelace"):
        assert _at(text, word), word
    assert not _at(text, "cache") and not _at(text, "The")


def test_review_and_relevance_hear_the_same_names() -> None:
    from quotebound.report.quality import _mid_sentence_capitals

    question = "When did Ada Lovelace write about the Engine?"
    assert _mid_sentence_capitals(question) == ["Ada", "Lovelace", "Engine"]
    assert set(key_terms(question)) == {"ada", "lovelac", "engin"}  # stems of the same names
