"""evaluate: after a read-and-verify round, search more, compose, or stop with what is missing."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from langgraph.runtime import Runtime

from quotebound.compose import composable_evidence
from quotebound.context import Context
from quotebound.nodes.events import emit
from quotebound.records import EvidenceItem
from quotebound.relevance import RELEVANCE_THRESHOLD, relevance, sub_questions
from quotebound.state import ResearchState, RoundRecord

__all__ = ["Assessment", "assess", "evaluate", "relevant_evidence"]


def relevant_evidence(state: ResearchState) -> list[EvidenceItem]:
    """Verified evidence that meets the relevance threshold: all that may be composed."""
    return composable_evidence(state.get("evidence") or [])


@dataclass(frozen=True)
class Assessment:
    decision: str
    """``search``, ``compose`` or ``insufficient``."""
    stop_reason: str | None
    gaps: tuple[str, ...]
    reason: str


def assess(state: ResearchState, *, now: float) -> Assessment:
    """The deterministic signals: coverage per sub-question, new evidence, budgets, time."""
    settings = state["settings"]
    question = state["question"]
    relevant = relevant_evidence(state)
    parts = sub_questions(question)
    gaps = tuple(
        p
        for p in parts
        if not any(relevance(p, e["quote"]) >= RELEVANCE_THRESHOLD for e in relevant)
    )
    round_no = int(state.get("round", 1))
    new_relevant = sum(1 for e in relevant if e["round"] == round_no)
    sources = len({e["source_id"] for e in relevant})
    stop = "compose" if relevant else "insufficient"
    if not gaps and relevant:
        return Assessment(
            "compose",
            "sufficient",
            gaps,
            f"every part of the question has verified evidence from {sources} source(s)",
        )
    if now >= float(state.get("deadline") or 0):
        return Assessment(stop, "timeout", gaps, "the run's time budget is spent")
    if round_no >= int(settings["max_rounds"]):
        return Assessment(
            stop, "budget_exhausted", gaps, f"{round_no} of {settings['max_rounds']} rounds used"
        )
    if len(state.get("fetched") or []) >= int(settings["max_sources"]):
        return Assessment(stop, "budget_exhausted", gaps, f"{settings['max_sources']} sources read")
    if round_no > 1 and new_relevant == 0 and not state.get("new_candidates"):
        return Assessment(stop, "no_new_evidence", gaps, "the last round found nothing new")
    return Assessment(
        "search",
        None,
        gaps,
        f"{len(gaps)} part(s) lack verified evidence: " + "; ".join(gaps)
        if gaps
        else "search more",
    )


async def evaluate(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Record this round's decision and its reason; the router follows ``decision``."""
    a = assess(state, now=time.time())
    round_no = int(state.get("round", 1))
    fetched = state.get("fetched") or []
    failed = state.get("failed") or []
    record = RoundRecord(
        round=round_no,
        queries=list(state.get("queries") or []),
        gaps=list(a.gaps),
        candidates=int(state.get("new_candidates") or 0),
        fetched=sum(1 for s in fetched if s.get("round") == round_no),
        failed=sum(1 for s in failed if s.get("round") == round_no),
        new_evidence=sum(1 for e in relevant_evidence(state) if e["round"] == round_no),
        decision=a.decision,
        reason=a.reason,
    )
    update: dict[str, Any] = {
        "decision": a.decision,
        "gaps": list(a.gaps),
        "rounds": [*(state.get("rounds") or []), record],
    }
    if a.stop_reason:
        update["stop_reason"] = a.stop_reason
    emit(runtime, {**state, **update}, "evaluate", f"{a.decision}: {a.reason}")
    return update
