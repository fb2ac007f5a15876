"""evaluate: after a read-and-verify round, search more, compose, or stop with what is missing
(the rule is :mod:`quotebound.graph.assessment`'s)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from quotebound.context import Context
from quotebound.graph.assessment import (
    JudgmentError,
    apply_judgment,
    assess,
    judge,
    judgeable,
    relevant_evidence,
)
from quotebound.graph.deps import Deps
from quotebound.graph.events import emit
from quotebound.graph.state import ResearchState, RoundRecord, merged
from quotebound.report.audit import next_record

__all__ = ["evaluate"]


async def evaluate(
    state: ResearchState, runtime: Runtime[Context], *, deps: Deps | None = None
) -> dict[str, Any]:
    """Record this round's decision and its reason; the router follows ``decision``."""
    now = time.time()
    a = assess(state, now=now)
    warnings: list[str] = []
    model = deps.toolkit(Context(**state["settings"])).chat_model if deps is not None else None
    if model is not None and judgeable(a, state):
        try:
            judgment = await judge(
                model, state, a, timeout_s=max(0.1, float(state.get("deadline") or 0) - now)
            )
            a = apply_judgment(a, judgment)
        except JudgmentError as exc:
            warnings.append(f"evaluate: model judgment invalid ({exc}); kept the signals' decision")
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
        decision=a.decision.value,
        reason=a.reason,
    )
    records = next_record(
        state,
        "evaluate",
        request={"round": round_no},
        response_summary={
            "decision": a.decision.value,
            "stop_reason": a.stop_reason.value if a.stop_reason else None,
        },
    )
    update: dict[str, Any] = {
        "records": records,
        "decision": a.decision.value,
        "gaps": list(a.gaps),
        "rounds": [record],
        "warnings": warnings,
    }
    if a.stop_reason:
        update["stop_reason"] = a.stop_reason.value
    emit(runtime, merged(state, update), "evaluate", f"{a.decision.value}: {a.reason}")
    return update
