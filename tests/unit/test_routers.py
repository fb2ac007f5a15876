"""The graph's routers are small pure functions of the state (docs/architecture.md §1)."""

from __future__ import annotations

from typing import Any

import pytest

from quotebound.graph.build import (
    route_after_evaluate,
    route_after_fetch,
    route_after_review,
    route_after_search,
)


def _gate(name: str, passed: bool, round_no: int = 1) -> dict[str, Any]:
    return {"gate": name, "passed": passed, "round": round_no, "errors": [], "reason": None}


def test_search_routes_leads_to_finalize_without_a_store() -> None:
    state = {"verified_disabled": True, "round": 1, "gates": [_gate("search_to_fetch", True)]}
    assert route_after_search(state) == "finalize"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("passed", "evidence", "expected"),
    [(True, [], "fetch"), (False, [], "finalize"), (False, [{"x": 1}], "evaluate")],
)
def test_gate_one(passed: bool, evidence: list[Any], expected: str) -> None:
    state = {"round": 2, "gates": [_gate("search_to_fetch", passed, 2)], "evidence": evidence}
    assert route_after_search(state) == expected  # type: ignore[arg-type]


def test_gate_one_from_an_earlier_round_does_not_count() -> None:
    state = {"round": 2, "gates": [_gate("search_to_fetch", True, 1)], "evidence": []}
    assert route_after_search(state) == "finalize"  # type: ignore[arg-type]


@pytest.mark.parametrize(("passed", "expected"), [(True, "extract_evidence"), (False, "finalize")])
def test_gate_two(passed: bool, expected: str) -> None:
    state = {
        "round": 1,
        "gates": [_gate("search_to_fetch", True), _gate("fetch_to_evidence", passed)],
    }
    assert route_after_fetch(state) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("decision", "expected"),
    [("search", "plan"), ("compose", "compose"), ("insufficient", "finalize"), (None, "finalize")],
)
def test_evaluate(decision: str | None, expected: str) -> None:
    assert route_after_evaluate({"decision": decision}) == expected  # type: ignore[arg-type, typeddict-item]


@pytest.mark.parametrize(
    ("review", "expected"),
    [
        ({"passed": True, "mode": "llm"}, "finalize"),
        ({"passed": False, "mode": "llm"}, "compose"),
        ({"passed": False, "mode": "extractive"}, "finalize"),
    ],
)
def test_review(review: dict[str, Any], expected: str) -> None:
    assert route_after_review({"review": review}) == expected  # type: ignore[arg-type, typeddict-item]
