"""extract_evidence and verify_evidence: candidate quotes from stored pages, then proof.

Both only READ the Store (invariant 4). Every quote is verified against the stored page it
came from, so nothing that was not found verbatim there can become evidence.
"""

from __future__ import annotations

from typing import Any, cast

from langgraph.runtime import Runtime

from quotebound.audit import with_record
from quotebound.candidates import HASH_VERSION, extract_candidates
from quotebound.context import Context
from quotebound.errors import StoreError
from quotebound.injection import addresses_the_model
from quotebound.nodes.events import emit
from quotebound.ranking import rank_pages
from quotebound.rawstore import get_raw_page, parsed_page
from quotebound.records import EvidenceItem
from quotebound.state import ResearchState
from quotebound.verification import verify_quote

__all__ = ["MAX_CANDIDATES_PER_SOURCE", "extract_evidence", "page_text", "verify_evidence"]

MAX_CANDIDATES_PER_SOURCE = 20
"""The most relevant candidates kept per page; bounds verification and prompt size."""


async def page_text(runtime: Runtime[Context], thread_id: str, sid: str) -> str:
    """The clean text of a page stored on this thread (raises StoreError if it is not there)."""
    assert runtime.store is not None
    page = await get_raw_page(runtime.store, thread_id, sid)
    if page is None:
        raise StoreError(f"page {sid} is not stored on thread {thread_id}")
    return parsed_page(page).text


async def extract_evidence(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Candidate quotes from this round's pages, ranked against the question."""
    assert runtime.store is not None
    thread_id = str(state["thread_id"])
    question = state["question"]
    sources = {s["source_id"]: s for s in state.get("fetched") or []}
    known = {e["evidence_id"] for e in state.get("evidence") or []}
    pending: list[dict[str, Any]] = []
    set_aside = 0
    pages = []
    for sid in state.get("round_sources") or []:
        page = await get_raw_page(runtime.store, thread_id, sid)
        if page is None:
            continue
        parsed = parsed_page(page)
        fresh = [c for c in extract_candidates(parsed, source_id=sid) if c.evidence_id not in known]
        kept = [c for c in fresh if not addresses_the_model(c.quote)]
        set_aside += len(fresh) - len(kept)
        pages.append((sid, (parsed, sources[sid]["title"], kept)))
    ranked_pages = rank_pages(question, [p for _, p in pages])
    for (sid, _), ranked in zip(pages, ranked_pages, strict=True):
        for r in ranked[:MAX_CANDIDATES_PER_SOURCE]:
            c = r.candidate
            pending.append(
                {
                    "evidence_id": c.evidence_id,
                    "chunk_id": c.chunk_id,
                    "hash_version": c.hash_version,
                    "source_id": sid,
                    "url": sources[sid]["url"],
                    "title": sources[sid]["title"],
                    "trust_tier": sources[sid]["trust_tier"],
                    "quote": c.quote,
                    "start": c.start,
                    "end": c.end,
                    "words": c.words,
                    "relevance": r.relevance,
                    "parts": list(r.parts),
                    "score": r.score,
                    "context": r.context,
                    "round": state.get("round", 1),
                }
            )
    records = with_record(
        state,
        "extract_evidence",
        request={
            "sources": list(state.get("round_sources") or []),
            "hash_version": HASH_VERSION,
        },
        response_summary={"candidates": len(pending), "addressing_the_model": set_aside},
    )
    warnings = list(state.get("warnings") or [])
    if set_aside:
        warnings.append(
            f"extract_evidence: {set_aside} passage(s) addressing the model set aside (injection)"
        )
    update = {"pending": pending, "records": records, "warnings": warnings}
    emit(runtime, {**state, **update}, "extract_evidence", f"{len(pending)} candidate quotes")
    return update


async def verify_evidence(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Verify each pending quote against its stored page; keep every result, PASS or FAIL."""
    thread_id = str(state["thread_id"])
    texts: dict[str, str] = {}
    new: list[EvidenceItem] = []
    for p in state.get("pending") or []:
        sid = p["source_id"]
        if sid not in texts:
            texts[sid] = await page_text(runtime, thread_id, sid)
        v = verify_quote(p["quote"], texts[sid])
        new.append(cast(EvidenceItem, {**p, "verification": v.to_dict()}))
    passed = sum(1 for e in new if e["verification"]["status"] == "PASS")
    records = with_record(
        state,
        "verify_evidence",
        request={"candidates": len(new)},
        response_summary={"passed": passed, "failed": len(new) - passed},
        tier=min((e["trust_tier"] for e in new), default=None),
    )
    update = {
        "evidence": [*(state.get("evidence") or []), *new],
        "pending": [],
        "records": records,
    }
    emit(runtime, {**state, **update}, "verify_evidence", f"{passed} of {len(new)} quotes verified")
    return update
