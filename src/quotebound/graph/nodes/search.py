"""search: ask the provider ladder this round's queries, each answer put in the order to read it
(its ranking fused with meaning), and the answers fused with each other when every query seeks
one gap; keep new candidates (tier 0), and note the code the question names that no corpus
spells when only corpora are searched."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any

from langgraph.runtime import Runtime

from quotebound.acquisition.providers import (
    ProviderLadder,
    SearchCandidate,
    dedupe,
    fused,
    raw_content_page,
)
from quotebound.acquisition.searchcache import SearchCache
from quotebound.context import Context
from quotebound.errors import ConfigError
from quotebound.evidence.leads import read_order
from quotebound.evidence.relevance import sub_questions
from quotebound.graph.deps import Deps, Toolkit
from quotebound.graph.events import emit
from quotebound.graph.gates import search_gate
from quotebound.graph.state import ResearchState, merged, new_warnings
from quotebound.report.audit import next_record
from quotebound.storage.rawstore import put_raw_page

__all__ = ["search"]

log = logging.getLogger(__name__)


def _unknown_names(toolkit: Toolkit, question: str) -> list[str]:
    """The code ``question`` names that no corpus spells, when the ladder searches corpora
    only (a web search may know what a library never mentions); none when a corpus cannot
    be read."""
    corpora = list(toolkit.corpora.values())
    if not corpora or len(corpora) != len(toolkit.providers):
        return []
    try:
        unspelled = [corpus.unspelled(question) for corpus in corpora]
    except (sqlite3.Error, OSError, ConfigError) as exc:
        log.warning("search: cannot look up the question's names in the corpus: %s", exc)
        return []
    return [name for name in unspelled[0] if all(name in u for u in unspelled[1:])]


def _read_first(questions: list[str], found: list[SearchCandidate]) -> list[SearchCandidate]:
    """A provider's answer in the order to read it: its ranking fused with how close each
    result's title and snippet are in meaning to the question (see
    :mod:`~quotebound.evidence.leads`)."""
    return [found[i] for i in read_order(questions, [f"{c.title}: {c.snippet}" for c in found])]


async def search(state: ResearchState, runtime: Runtime[Context], *, deps: Deps) -> dict[str, Any]:
    """Run every query through the ladder; store provider raw content as pages of this thread."""
    settings = Context(**state["settings"])
    toolkit = deps.toolkit(settings)
    hours = float(settings.search_cache_hours or 0)
    store = runtime.store
    cache = SearchCache(store, ttl_s=hours * 3600) if store is not None and hours else None
    questions = sub_questions(state["question"])
    ladder = ProviderLadder(
        toolkit.providers, cache=cache, reorder=lambda found: _read_first(questions, found)
    )
    queries = state.get("queries") or []
    answers = await asyncio.gather(
        *(
            ladder.search(
                q,
                max_results=int(settings.search_results or 8),
                deadline=float(state.get("deadline") or 0) or None,
            )
            for q in queries
        )
    )
    unknown = state.get("unknown_names")
    if unknown is None:
        unknown = await asyncio.to_thread(_unknown_names, toolkit, state["question"])
    lists = [cands for cands, _ in answers]
    if len(state.get("gaps") or []) == 1 and len(lists) > 1:
        # Every query of the round seeks the one gap: a page that several find is read first.
        lists = fused(lists)
    found: list[SearchCandidate] = [c for cands in lists for c in cands]
    runs = [r.to_dict() for _, runs in answers for r in runs]
    known = {c["canonical_url"] for c in state.get("candidates") or []}
    fresh = [c for c in dedupe(found) if c.canonical_url not in known]
    stored = 0
    if runtime.store is not None and state.get("thread_id"):
        for c in fresh:
            page = raw_content_page(c)
            if page is not None:
                await put_raw_page(runtime.store, str(state["thread_id"]), page)
                stored += 1
    round_no = state.get("round", 1)
    # A lead found again this round counts as this round's, at its new rank.
    again = {c.canonical_url: c for c in dedupe(found) if c.canonical_url in known}
    candidates = [
        *(
            {**c, "round": round_no, "rank": again[url].rank, "query": again[url].query}
            if (url := c["canonical_url"]) in again
            else c
            for c in state.get("candidates") or []
        ),
        *({**c.to_dict(), "round": round_no} for c in fresh),
    ]
    taken = {s["source_id"] for s in [*(state.get("fetched") or []), *(state.get("failed") or [])]}
    gate = search_gate(
        [c for c in candidates if c["source_id"] not in taken],
        check_url=toolkit.fetch_policy.guard().problem,
    )
    records = next_record(
        state,
        "search",
        request={"round": state.get("round", 1), "queries": queries},
        response_summary={
            "new_candidates": len(fresh),
            "provider_runs": [(r["provider"], r["result_count"], r["reason"]) for r in runs],
            "raw_content_stored": stored,
        },
        tier=0,
        gate=gate.to_dict(),
    )
    update = {
        "warnings": new_warnings(state, (f"search: {g}" for g in gate.warnings)),
        "gates": [{**gate.to_dict(), "round": state.get("round", 1)}],
        "candidates": candidates,
        "new_candidates": len(fresh),
        "provider_runs": runs,
        "unknown_names": unknown,
        "records": records,
    }
    emit(runtime, merged(state, update), "search", f"{len(fresh)} new candidates")
    return update
