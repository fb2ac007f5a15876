"""extract_evidence: candidate quotes from this round's stored pages, ranked against the
question. It only READS the Store (invariant 4)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

from langgraph.runtime import Runtime

from quotebound.context import Context
from quotebound.evidence.candidates import HASH_VERSION, Candidate, extract_candidates
from quotebound.evidence.ranking import (
    Ranked,
    by_meaning,
    by_page_rank,
    join_neighbours,
    rank_pages,
)
from quotebound.graph.events import emit
from quotebound.graph.state import ResearchState, merged
from quotebound.report.answering import context_worthy
from quotebound.report.audit import next_record
from quotebound.storage.rawstore import RawPage, get_raw_page, parsed_page
from quotebound.text.injection import addresses_the_model
from quotebound.text.page import Page

__all__ = ["MAX_CANDIDATES_PER_SOURCE", "extract_evidence"]

MAX_CANDIDATES_PER_SOURCE = 20
"""The most relevant candidates kept per page; bounds verification and prompt size."""


def _rank_round(
    question: str,
    pages: list[tuple[str, RawPage]],
    known: set[str],
    deadline: float,
    retrieved: dict[str, dict[str, int]],
    searched: dict[str, int],
) -> tuple[list[tuple[str, list[Ranked]]], int, int]:
    """Parse, cut and rank this round's pages (CPU work, run in a worker thread): each page's
    ranked new candidates, the passages set aside as addressing the model, and the pages left
    unread because the run's time budget ran out."""
    read, set_aside, unread = _cut_round(pages, known, deadline)
    return _ranked(question, read, retrieved, searched), set_aside, unread


def _cut_round(
    pages: list[tuple[str, RawPage]], known: set[str], deadline: float
) -> tuple[list[tuple[str, tuple[Page, str, list[Candidate]]]], int, int]:
    """Each page read before the deadline with its new candidates, the passages set aside as
    addressing the model, and the pages left unread."""
    read: list[tuple[str, tuple[Page, str, list[Candidate]]]] = []
    set_aside = 0
    for i, (sid, page) in enumerate(pages):
        if time.time() >= deadline:
            return read, set_aside, len(pages) - i
        parsed = parsed_page(page)
        fresh = [c for c in extract_candidates(parsed, source_id=sid) if c.evidence_id not in known]
        kept = [c for c in fresh if not addresses_the_model(c.quote)]
        set_aside += len(fresh) - len(kept)
        read.append((sid, (parsed, page.title, kept)))
    return read, set_aside, 0


def _ranked(
    question: str,
    read: list[tuple[str, tuple[Page, str, list[Candidate]]]],
    retrieved: dict[str, dict[str, int]],
    searched: dict[str, int],
) -> list[tuple[str, list[Ranked]]]:
    """Each page's best candidates, by terms, then by meaning, then by the page's search rank,
    neighbours worth reading beside an answer joined into one quote. ``read`` is emptied
    between terms and meaning: a large page's tens of thousands of candidates are let go
    before the sentence encoder is loaded, rather than held beside it."""
    sids = [sid for sid, _ in read]
    ranked = rank_pages(
        question,
        [p for _, p in read],
        [retrieved.get(sid, {}) for sid in sids],
        best=MAX_CANDIDATES_PER_SOURCE,
    )
    read.clear()
    ranked = by_page_rank(by_meaning(question, ranked), [searched.get(sid) for sid in sids])
    joined = [join_neighbours(rs, _worth) for rs in ranked]
    return list(zip(sids, joined, strict=True))


def _worth(r: Ranked) -> bool:
    return context_worthy(r.relevance, r.meaning)


def _retrieved(state: ResearchState) -> dict[str, dict[str, int]]:
    """Per source, the passages its searches found: head to best rank over all queries."""
    out: dict[str, dict[str, int]] = {}
    for c in state.get("candidates") or []:
        heads = out.setdefault(c["source_id"], {})
        for rank, head in c.get("passages") or ():
            heads[head] = min(rank, heads.get(head, rank))
    return out


def _searched(state: ResearchState) -> dict[str, int]:
    """Per source, its best rank (0 first) among the results of the run's searches."""
    out: dict[str, int] = {}
    for c in state.get("candidates") or []:
        rank = int(c.get("rank") or 0) - 1
        if rank >= 0:
            out[c["source_id"]] = min(rank, out.get(c["source_id"], rank))
    return out


async def extract_evidence(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Candidate quotes from this round's pages, ranked against the question.

    The parsing and ranking run in a worker thread, so a large page never stalls the event
    loop other runs share; once the run's deadline has passed, the pages not yet read are left
    and a warning says how many."""
    assert runtime.store is not None
    thread_id = str(state["thread_id"])
    sources = {s["source_id"]: s for s in state.get("fetched") or []}
    known = {e["evidence_id"] for e in state.get("evidence") or []}
    pages = []
    for sid in state.get("round_sources") or []:
        page = await get_raw_page(runtime.store, thread_id, sid)
        if page is not None:
            pages.append((sid, dataclasses.replace(page, title=sources[sid]["title"])))
    ranked_pages, set_aside, unread = await asyncio.to_thread(
        _rank_round,
        state["question"],
        pages,
        known,
        float(state.get("deadline") or 0),
        _retrieved(state),
        _searched(state),
    )
    pending: list[dict[str, Any]] = []
    for sid, ranked in ranked_pages:
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
                    "covers": list(r.covers),
                    "score": r.score,
                    "context": r.context,
                    "retrieved": r.retrieved,
                    "meaning": r.meaning,
                    "spelled": r.spelled,
                    "round": state.get("round", 1),
                }
            )
    records = next_record(
        state,
        "extract_evidence",
        request={
            "sources": list(state.get("round_sources") or []),
            "hash_version": HASH_VERSION,
        },
        response_summary={
            "candidates": len(pending),
            "addressing_the_model": set_aside,
            "unread_for_time": unread,
        },
    )
    warnings: list[str] = []
    if set_aside:
        warnings.append(
            f"extract_evidence: {set_aside} passage(s) addressing the model set aside (injection)"
        )
    if unread:
        warnings.append(f"extract_evidence: time budget spent; {unread} page(s) not read")
    update = {"pending": pending, "records": records, "warnings": warnings}
    emit(runtime, merged(state, update), "extract_evidence", f"{len(pending)} candidate quotes")
    return update
