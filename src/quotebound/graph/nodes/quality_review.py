"""quality_review: deterministic checks of a composition against the Store.

See docs/architecture.md §5.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from quotebound.context import Context
from quotebound.graph.events import emit
from quotebound.graph.state import ResearchState, merged
from quotebound.records import Composition
from quotebound.report.audit import next_record
from quotebound.report.quality import review_composition
from quotebound.storage.rawstore import page_text

__all__ = ["quality_review"]


async def quality_review(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Check every claim; a failing LLM composition goes back for revision (bounded), then
    to the extractive composer; failing extractive findings are dropped, never shipped."""
    settings = Context(**state["settings"])
    composition: Composition = state["composition"]
    evidence = {
        e["evidence_id"]: e
        for e in state.get("evidence") or []
        if e["verification"]["status"] == "PASS"
    }
    cited = {
        evidence[i]["source_id"]
        for f in composition["findings"]
        for i in f["evidence_ids"]
        if i in evidence
    }
    assert runtime.store is not None
    thread_id = str(state["thread_id"])
    texts = {sid: await page_text(runtime.store, thread_id, sid) for sid in sorted(cited)}
    fetched_urls = {s["url"] for s in state.get("fetched") or []}
    result = review_composition(
        composition, evidence=evidence, source_texts=texts, fetched_urls=fetched_urls
    )
    revisions = int(state.get("revisions") or 0)
    update: dict[str, Any] = {}
    if not result.passed and composition["mode"] == "llm":
        if revisions < int(settings.max_revisions or 0):
            update["revisions"] = revisions + 1
        else:
            update["force_extractive"] = True
    elif not result.passed:
        bad = {p.finding for p in result.problems}
        kept = [f for i, f in enumerate(composition["findings"]) if i not in bad]
        answer = (
            composition["answer"] if -1 not in bad and kept else (kept[0]["claim"] if kept else "")
        )
        update["composition"] = {**composition, "findings": kept, "answer": answer}
    review = {
        "passed": result.passed,
        "checked": result.checked,
        "problems": [
            {"finding": p.finding, "code": p.code, "detail": p.detail} for p in result.problems
        ],
        "feedback": result.feedback(),
        "mode": composition["mode"],
    }
    records = next_record(
        state,
        "quality_review",
        request={"mode": composition["mode"], "findings": len(composition["findings"])},
        response_summary={
            "passed": result.passed,
            "problems": [p.code for p in result.problems],
        },
    )
    update.update(review=review, records=records, reviews=[review])
    emit(
        runtime,
        merged(state, update),
        "quality_review",
        "passed" if result.passed else f"{len(result.problems)} problem(s)",
    )
    return update
