"""compose: an answer from relevant verified evidence — LLM selector, or extractive.

The model gets what is left of the run's time budget; once that is spent, or when the model
fails, the extractive composer answers from the same evidence.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from quotebound.context import Context
from quotebound.graph.assessment import final_round, relevant_evidence
from quotebound.graph.deps import Deps
from quotebound.graph.events import emit
from quotebound.graph.state import ResearchState, merged
from quotebound.records import Composition, EvidenceItem
from quotebound.report.audit import next_record
from quotebound.report.extractive import compose_extractive
from quotebound.report.selector import ComposeError, compose_llm

__all__ = ["compose"]


async def compose(state: ResearchState, runtime: Runtime[Context], *, deps: Deps) -> dict[str, Any]:
    """Compose with the model unless it is off, has failed review too often, or errs."""
    settings = Context(**state["settings"])
    model = deps.toolkit(settings).chat_model
    # All the run's evidence: each composer keeps what may be composed by the rule the
    # assessment applied to the same evidence. Given only that, the rule would apply twice, and
    # it is not idempotent: a quote that answers without reaching the context bar is left out,
    # and without it the quotes left may no longer answer, so a run the assessment found
    # answered would compose nothing.
    evidence = state.get("evidence") or []
    final = final_round(state)
    max_findings = int(settings.max_citations or 6)
    warnings: list[str] = []
    feedback = list((state.get("review") or {}).get("feedback") or [])
    composition: Composition
    if model is not None and not state.get("force_extractive"):
        try:
            composition = await compose_llm(
                state["question"],
                evidence,
                model=model,
                max_findings=max_findings,
                feedback=feedback,
                timeout_s=float(state.get("deadline") or 0) - time.time(),
                final=final,
            )
        except ComposeError as exc:
            warnings.append(f"LLM composer failed ({exc}); composed extractively")
            composition = await _extractive(state["question"], evidence, max_findings, final)
    else:
        composition = await _extractive(state["question"], evidence, max_findings, final)
    records = next_record(
        state,
        "compose",
        request={
            "mode": composition["mode"],
            "evidence": len(relevant_evidence(state)),
            "feedback": feedback,
        },
        response_summary={"findings": len(composition["findings"])},
        tier=min((f["trust_tier"] for f in composition["findings"]), default=None),
    )
    update = {"composition": composition, "warnings": warnings, "records": records}
    emit(
        runtime,
        merged(state, update),
        "compose",
        f"{len(composition['findings'])} findings ({composition['mode']})",
    )
    return update


async def _extractive(
    question: str, evidence: list[EvidenceItem], max_findings: int, final: bool
) -> Composition:
    """The extractive composition, in a worker thread: choosing among a round's quotes compares
    each with every one chosen, CPU work the event loop other runs share must not wait on."""
    return await asyncio.to_thread(
        compose_extractive, question, evidence, max_findings=max_findings, final=final
    )
