"""The order search results are read in: the provider's ranking fused with meaning."""

from __future__ import annotations

import pytest

from quotebound.evidence.encoder import ENV_VAR
from quotebound.evidence.leads import MOST_REORDERED, read_order

QUESTION = "How do I get rid of a prefix at the start of a string?"
OFF_TOPIC = "Garden hoses: how to store a hose over winter."
SAME_WORDS = (
    "Prefix notation: in Polish notation an operator comes at the start, before its operands."
)
OTHER_WORDS = "Text: remove leading characters from the beginning of the text and return the rest."


def test_a_result_that_says_it_in_other_words_is_read_before_those_ranked_above_it() -> None:
    assert read_order([QUESTION], [OFF_TOPIC, SAME_WORDS, OTHER_WORDS]) == [2, 1, 0]


def test_results_after_the_first_ones_compared_keep_their_place() -> None:
    leads = [OFF_TOPIC] * MOST_REORDERED + [OTHER_WORDS, SAME_WORDS]
    order = read_order([QUESTION], leads)
    assert order[MOST_REORDERED:] == [MOST_REORDERED, MOST_REORDERED + 1]
    assert sorted(order) == list(range(len(leads)))


def test_without_the_encoder_the_providers_order_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "off")
    assert read_order([QUESTION], [OFF_TOPIC, SAME_WORDS, OTHER_WORDS]) == [0, 1, 2]


def test_one_result_or_no_question_is_left_as_it_is() -> None:
    assert read_order([QUESTION], [OFF_TOPIC]) == [0]
    assert read_order([], [OFF_TOPIC, OTHER_WORDS]) == [0, 1]
