"""negations: the one rule for which words negate, shared by verification and quality review."""

from __future__ import annotations

from quotebound.text.negation import NEGATIONS, negations


def test_listed_words_and_contractions_negate_in_order_with_repeats() -> None:
    words = ["it", "is", "not", "here", "and", "never", "was", "isn't", "not", "cannot", "nor"]
    assert negations(words) == ["not", "never", "isn't", "not", "cannot", "nor"]


def test_a_contraction_negates_with_a_straight_or_a_typographic_apostrophe() -> None:
    assert negations(["isn't", "isn\u2019t", "won\u2019t", "can't"]) == [
        "isn't",
        "isn\u2019t",
        "won\u2019t",
        "can't",
    ]


def test_words_that_only_contain_a_negation_do_not_negate() -> None:
    words = ["nothing's", "knot", "nonetheless", "notable", "don'ts", "anon", "Not"]
    assert negations(words) == []  # words are compared lower-case: callers fold them


def test_every_listed_word_is_lower_case() -> None:
    assert all(word == word.lower() for word in NEGATIONS)
