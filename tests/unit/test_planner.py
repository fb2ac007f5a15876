"""The deterministic planner and validation of a model's plan."""

from __future__ import annotations

import pytest

from quotebound.graph.planner import (
    PlanError,
    deterministic_plan,
    salient_name_phrases,
    validate_plan,
)


def test_first_round_asks_the_question_and_its_parts() -> None:
    q = "Who maintains the Zephyr library and where is its maintainer based?"
    plan = deterministic_plan(q, gaps=[], done=[], max_queries=4)
    assert plan.queries[0] == q
    assert len(plan.queries) >= 2
    assert plan.source == "deterministic"


def test_later_rounds_refine_gaps_with_names_from_evidence() -> None:
    q = "Which organisation maintains Zephyr and in which city is it headquartered?"
    plan = deterministic_plan(
        q,
        gaps=["in which city is it headquartered"],
        done=[q],
        max_queries=3,
        evidence_texts=["Zephyr is maintained by the Orion Foundation, a non-profit."],
    )
    assert plan.queries[0].startswith("Orion Foundation")
    assert q not in plan.queries


def test_never_repeats_a_query() -> None:
    q = "What does shutil.copytree do?"
    first = deterministic_plan(q, gaps=[], done=[], max_queries=3)
    again = deterministic_plan(q, gaps=[q], done=[*first.queries, q], max_queries=3)
    assert not set(again.queries) & set(first.queries)


def test_salient_name_phrases_skip_words_of_the_question() -> None:
    names = salient_name_phrases(
        ["Zephyr is kept by Orion Foundation. Orion Foundation is big."], exclude="Zephyr"
    )
    assert names[0] == "Orion Foundation"
    assert "Zephyr" not in names


def test_a_word_that_opens_a_sentence_is_no_name_unless_the_texts_name_it_elsewhere() -> None:
    names = salient_name_phrases(
        [
            "Note that the cache is flushed. For details, see below. However, it may lag.",
            "Return a new list. I think so. Previously the WAL was kept. U is a letter.",
            "Python keeps it. Only Python does. The Orion Foundation maintains Node.js.",
        ],
        exclude="How is the cache flushed?",
    )
    assert names == ["Python", "WAL", "Orion Foundation", "Node.js"]


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"queries": []},
        {"queries": "copy a file"},
        {"queries": ["", "  "]},
        {"queries": ["ok"], "coverage_gaps": "none"},
        {"queries": ["asked before"]},
    ],
)
def test_invalid_model_plans_are_rejected(data: object) -> None:
    with pytest.raises(PlanError):
        validate_plan(data, max_queries=3, done=["asked before"])


def test_valid_model_plan_is_capped_and_deduplicated() -> None:
    plan = validate_plan(
        {"queries": ["a b", "A  B", "c", "d", "e"], "coverage_gaps": ["x"], "reason": "r"},
        max_queries=2,
        done=[],
    )
    assert plan.queries == ("a b", "c")
    assert plan.coverage_gaps == ("x",)
    assert plan.source == "llm"
