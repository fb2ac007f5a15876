"""The research graph, as drawn in docs/architecture.md §1.

    START → check_store → plan → search ─gate1→ fetch ─gate2→ extract_evidence → verify_evidence
          → evaluate ─┬─ more evidence needed, budget left → plan
                      ├─ enough verified evidence → compose → quality_review ─┬→ finalize
                      │                                         ▲ revise      │
                      │                                         └─────────────┘
                      └─ nothing relevant verified / gate failed → finalize → END

Every branch is a conditional edge whose router is a small pure function of the state.
`build_graph` returns the uncompiled builder: deployment compiles it bare (the server injects
the store), scripts and tests compile it with a store and a checkpointer.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

from langgraph.graph import END, START, StateGraph

from quotebound.context import Context
from quotebound.graph.deps import Deps
from quotebound.graph.gates import Gate
from quotebound.graph.nodes.check_store import check_store
from quotebound.graph.nodes.compose import compose
from quotebound.graph.nodes.evaluate import evaluate
from quotebound.graph.nodes.extract_evidence import extract_evidence
from quotebound.graph.nodes.fetch import fetch
from quotebound.graph.nodes.finalize import finalize
from quotebound.graph.nodes.plan import plan
from quotebound.graph.nodes.quality_review import quality_review
from quotebound.graph.nodes.search import search
from quotebound.graph.nodes.verify_evidence import verify_evidence
from quotebound.graph.state import Decision, InputState, OutputState, ResearchState

__all__ = [
    "build_graph",
    "route_after_evaluate",
    "route_after_fetch",
    "route_after_review",
    "route_after_search",
]


def _last_gate(state: ResearchState, gate: str) -> dict | None:
    for g in reversed(state.get("gates") or []):
        if g["gate"] == gate and g.get("round") == state.get("round"):
            return g
    return None


def route_after_search(state: ResearchState) -> Literal["fetch", "evaluate", "finalize"]:
    """Gate 1. No store: list the leads. Nothing fetchable: evaluate what earlier rounds found,
    or finalize when there is nothing."""
    if state.get("verified_disabled"):
        return "finalize"
    gate = _last_gate(state, Gate.SEARCH_TO_FETCH)
    if gate is not None and gate["passed"]:
        return "fetch"
    return "evaluate" if state.get("evidence") else "finalize"


def route_after_fetch(state: ResearchState) -> Literal["extract_evidence", "finalize"]:
    """Gate 2: enough documents fetched so far in the run, none of them a bare search result."""
    gate = _last_gate(state, Gate.FETCH_TO_EVIDENCE)
    return "extract_evidence" if gate is not None and gate["passed"] else "finalize"


def route_after_evaluate(state: ResearchState) -> Literal["plan", "compose", "finalize"]:
    decision = state.get("decision")
    if decision == Decision.SEARCH:
        return "plan"
    return "compose" if decision == Decision.COMPOSE else "finalize"


def route_after_review(state: ResearchState) -> Literal["compose", "finalize"]:
    """A failed LLM composition is revised (bounded, then extractive); anything else ships,
    since review already removed what failed from an extractive one."""
    review = state.get("review") or {}
    if review.get("passed") or review.get("mode") == "extractive":
        return "finalize"
    return "compose"


def build_graph(
    deps: Deps | None = None,
) -> StateGraph[ResearchState, Context, InputState, OutputState]:
    """The research graph's builder; ``deps`` injects providers, fetch policy or a chat model."""
    deps = deps or Deps()
    g = StateGraph(
        ResearchState, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    g.add_node("check_store", partial(check_store, deps=deps))
    g.add_node("plan", partial(plan, deps=deps))
    g.add_node("search", partial(search, deps=deps))
    g.add_node("fetch", partial(fetch, deps=deps))
    g.add_node("extract_evidence", extract_evidence)
    g.add_node("verify_evidence", verify_evidence)
    g.add_node("evaluate", partial(evaluate, deps=deps))
    g.add_node("compose", partial(compose, deps=deps))
    g.add_node("quality_review", quality_review)
    g.add_node("finalize", finalize)
    g.add_edge(START, "check_store")
    g.add_edge("check_store", "plan")
    g.add_edge("plan", "search")
    g.add_conditional_edges("search", route_after_search)
    g.add_conditional_edges("fetch", route_after_fetch)
    g.add_edge("extract_evidence", "verify_evidence")
    g.add_edge("verify_evidence", "evaluate")
    g.add_conditional_edges("evaluate", route_after_evaluate)
    g.add_edge("compose", "quality_review")
    g.add_conditional_edges("quality_review", route_after_review)
    g.add_edge("finalize", END)
    return g
