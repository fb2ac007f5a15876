"""verify_evidence: each candidate quote checked against the stored page it came from, so
nothing that was not found verbatim there can become evidence. It only READS the Store
(invariant 4)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

from langgraph.runtime import Runtime

from quotebound.context import Context
from quotebound.errors import StoreError
from quotebound.evidence.verification import verify_quote
from quotebound.graph.events import emit
from quotebound.graph.state import ResearchState, merged
from quotebound.records import EvidenceItem
from quotebound.report.audit import next_record
from quotebound.storage.rawstore import RawPage, get_raw_page, parsed_page

__all__ = ["verify_evidence"]


def _verify_all(
    pending: list[dict[str, Any]], pages: dict[str, RawPage], deadline: float
) -> tuple[list[EvidenceItem], int]:
    """Verify each pending quote against its page (CPU work, run in a worker thread) until the
    deadline: the results, PASS or FAIL, and how many quotes were left unverified."""
    new: list[EvidenceItem] = []
    for i, p in enumerate(pending):
        if time.time() >= deadline:
            return new, len(pending) - i
        v = verify_quote(p["quote"], parsed_page(pages[p["source_id"]]).text)
        new.append(cast(EvidenceItem, {**p, "verification": v.to_dict()}))
    return new, 0


async def verify_evidence(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Verify each pending quote against its stored page; keep every result, PASS or FAIL.

    Verification runs in a worker thread. Quotes left when the run's deadline passes are not
    evidence (they are dropped unverified, never shown), and a warning says how many."""
    assert runtime.store is not None
    thread_id = str(state["thread_id"])
    pending = list(state.get("pending") or [])
    pages: dict[str, RawPage] = {}
    for sid in dict.fromkeys(p["source_id"] for p in pending):
        page = await get_raw_page(runtime.store, thread_id, sid)
        if page is None:
            raise StoreError(f"page {sid} is not stored on thread {thread_id}")
        pages[sid] = page
    new, unverified = await asyncio.to_thread(
        _verify_all, pending, pages, float(state.get("deadline") or 0)
    )
    passed = sum(1 for e in new if e["verification"]["status"] == "PASS")
    records = next_record(
        state,
        "verify_evidence",
        request={"candidates": len(pending)},
        response_summary={
            "passed": passed,
            "failed": len(new) - passed,
            "unverified_for_time": unverified,
        },
        tier=min((e["trust_tier"] for e in new), default=None),
    )
    warnings: list[str] = []
    if unverified:
        warnings.append(
            f"verify_evidence: time budget spent; {unverified} quote(s) left unverified"
        )
    update = {
        "evidence": new,
        "pending": [],
        "records": records,
        "warnings": warnings,
    }
    emit(
        runtime, merged(state, update), "verify_evidence", f"{passed} of {len(new)} quotes verified"
    )
    return update
