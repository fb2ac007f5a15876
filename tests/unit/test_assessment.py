"""The loop's decision after a round: strict while the run can read more, a little further once
it cannot (quotebound.graph.assessment)."""

from __future__ import annotations

import time
from typing import Any

from h6_compose.factory import Page, evidence_for

from quotebound.errors import Reason
from quotebound.graph.assessment import assess, final_round, relevant_evidence
from quotebound.graph.state import Decision, ResearchState
from quotebound.report.answering import CLOSE_MEANING

LEASE = Page(
    url="https://lease.example/cache",
    title="Lease",
    text="Items stay in the widget store until their lease of one hour runs out.",
)
# The asker's situation, in words no page shares, around what is asked.
QUESTION = (
    "Our nightly batch job on the staging cluster keeps reading stale rows from the widget "
    "cache long after we changed them. How long do widget cache entries live?"
)


def _state(round_no: int, *, relevance: float, **extra: Any) -> ResearchState:
    item = evidence_for(QUESTION, LEASE, LEASE.text)
    item.update(relevance=relevance, parts=[relevance], score=relevance)
    item.update(meaning=CLOSE_MEANING + 0.05)
    state: dict[str, Any] = {
        "question": QUESTION,
        "settings": {"max_rounds": 2, "max_sources": 4},
        "round": round_no,
        "deadline": time.time() + 60,
        "fetched": [{"source_id": LEASE.source_id}],
        "new_candidates": 3,
        "evidence": [item],
        **extra,
    }
    return state  # type: ignore[return-value]


def test_a_close_quote_with_few_of_the_words_sends_the_run_on_while_it_can_read_more() -> None:
    a = assess(_state(1, relevance=0.25), now=time.time())
    assert a.decision == Decision.SEARCH and a.gaps == (QUESTION,)
    assert relevant_evidence(_state(1, relevance=0.25)) == []


def test_the_same_quote_answers_once_the_budget_is_spent() -> None:
    a = assess(_state(2, relevance=0.25), now=time.time())
    assert (a.decision, a.stop_reason, a.gaps) == (Decision.COMPOSE, Reason.BUDGET_EXHAUSTED, ())
    stopped = _state(2, relevance=0.25, stop_reason=a.stop_reason.value)
    assert final_round(stopped)
    assert [e["quote"] for e in relevant_evidence(stopped)] == [LEASE.text]
    # With fewer of the question's words it says insufficient evidence, as before.
    low = assess(_state(2, relevance=0.15), now=time.time())
    assert (low.decision, low.stop_reason) == (Decision.INSUFFICIENT, Reason.BUDGET_EXHAUSTED)


def test_a_stop_for_time_or_nothing_new_reads_as_far_and_an_unknown_name_does_not() -> None:
    late = assess(_state(1, relevance=0.25), now=time.time() + 120)
    assert (late.decision, late.stop_reason) == (Decision.COMPOSE, Reason.TIMEOUT)
    state = _state(2, relevance=0.25, new_candidates=0)
    state["settings"] = {"max_rounds": 3, "max_sources": 4}
    state["evidence"][0]["round"] = 1
    dry = assess(state, now=time.time())
    assert (dry.decision, dry.stop_reason) == (Decision.COMPOSE, Reason.NO_NEW_EVIDENCE)
    named = _state(1, relevance=0.25, unknown_names=["widget_cache"])
    named["question"] = QUESTION.replace("widget cache entries", "widget_cache entries")
    a = assess(named, now=time.time())
    assert (a.decision, a.stop_reason) == (Decision.INSUFFICIENT, Reason.UNKNOWN_NAME)
    assert not final_round({**named, "stop_reason": a.stop_reason.value})  # type: ignore[typeddict-item]


TWO_PARTS = "How long do widget cache entries live, and who maintains the widget store?"
TEAM = Page(
    url="https://lease.example/team",
    title="Team",
    text="The widget store is maintained by the platform team in Lisbon.",
)


def _answered_in_parts(round_no: int, fetched: int) -> ResearchState:
    """A question in two parts, each answered by a quote of its own page."""
    lease = evidence_for(TWO_PARTS, LEASE, LEASE.text)
    lease.update(relevance=0.9, parts=[0.9, 0.1], score=0.9)
    team = evidence_for(TWO_PARTS, TEAM, TEAM.text)
    team.update(relevance=0.6, parts=[0.1, 0.6], score=0.6)
    state: dict[str, Any] = {
        "question": TWO_PARTS,
        "settings": {"max_rounds": 2, "max_sources": 4},
        "round": round_no,
        "deadline": time.time() + 60,
        "fetched": [{"source_id": f"s{i}"} for i in range(fetched)],
        "new_candidates": 3,
        "evidence": [lease, team],
    }
    return state  # type: ignore[return-value]


def test_a_question_in_parts_reads_once_more_for_the_part_answered_least_surely() -> None:
    a = assess(_answered_in_parts(1, fetched=3), now=time.time())
    # Each part has an answer after the first round; the second part's shares fewer words.
    assert (a.decision, a.stop_reason) == (Decision.SEARCH, None)
    assert a.gaps == ("who maintains the widget store",)
    # After that round, or when no source is left to read, the answers are composed.
    for round_no, fetched in ((2, 4), (1, 4)):
        done = assess(_answered_in_parts(round_no, fetched), now=time.time())
        assert (done.decision, done.stop_reason, done.gaps) == (
            Decision.COMPOSE,
            Reason.SUFFICIENT,
            (),
        )
    # A question in one part answered after the first round is composed at once.
    one = _answered_in_parts(1, fetched=3)
    one["question"] = "How long do widget cache entries live?"
    for item in one["evidence"]:
        item["parts"] = item["parts"][:1]
    assert assess(one, now=time.time()).stop_reason == Reason.SUFFICIENT
