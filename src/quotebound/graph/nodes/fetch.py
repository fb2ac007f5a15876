"""fetch: read this round's selected candidates into the Store under ``(thread_id, "raw")``.

Network URLs go through the guarded fetcher; corpus documents through their corpus transport;
a page already stored on this thread (provider raw content, or an earlier run) is reused. Web
pages are read through the run database's page cache (``page_cache_hours``, 0: off), and each
one's ``cache_status`` (hit, miss, stale, revalidated; ``n/a`` with the cache off) is in its
source record and the fetch record; a page served from the cache is stored on this thread like
a fresh fetch, so the thread cites only what it read itself. A dead
link is replaced by the next candidate while the round's budget lasts. A page with the same
content as one read before (a syndicated or print copy) is set aside as ``duplicate``: it is
not a source and is never cited.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import fields
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from quotebound.acquisition.duplicates import content_words, same_content
from quotebound.acquisition.netguard import safe_url
from quotebound.acquisition.pagecache import PageCache
from quotebound.acquisition.parallel import FetchFailure, fetch_until
from quotebound.acquisition.providers import SearchCandidate, select_for_fetch
from quotebound.context import Context
from quotebound.errors import FetchError, Reason
from quotebound.graph.deps import Deps
from quotebound.graph.events import emit
from quotebound.graph.gates import fetch_gate
from quotebound.graph.state import ResearchState, merged, new_warnings
from quotebound.records import SourceInfo
from quotebound.report.audit import next_record
from quotebound.storage.rawstore import RawPage, get_raw_page, parsed_page, put_raw_page

__all__ = ["PER_DOMAIN_CAP", "fetch"]

PER_DOMAIN_CAP = 3
_CANDIDATE_FIELDS = {f.name for f in fields(SearchCandidate)}


def _candidate(d: dict[str, Any]) -> SearchCandidate:
    kept = {k: v for k, v in d.items() if k in _CANDIDATE_FIELDS}
    kept["passages"] = tuple((int(r), str(h)) for r, h in kept.get("passages") or ())
    return SearchCandidate(**kept)


async def _one_per_content(
    store: BaseStore,
    thread_id: str,
    fetched: list[SourceInfo],
    ok: list[tuple[SearchCandidate, RawPage]],
) -> tuple[list[tuple[SearchCandidate, RawPage]], list[tuple[SearchCandidate, FetchFailure]]]:
    """This round's pages without those whose content a page read before (in an earlier round,
    or earlier in this round's order) already has: a copy is never a second source. The
    comparison (each page's words) runs in a worker thread, off the event loop."""
    earlier: list[tuple[str, RawPage]] = []
    for source in fetched:
        page = await get_raw_page(store, thread_id, source["source_id"])
        if page is not None:
            earlier.append((source["url"], page))
    return await asyncio.to_thread(_without_copies, earlier, ok)


def _without_copies(
    earlier: list[tuple[str, RawPage]], ok: list[tuple[SearchCandidate, RawPage]]
) -> tuple[list[tuple[SearchCandidate, RawPage]], list[tuple[SearchCandidate, FetchFailure]]]:
    seen = [(url, content_words(parsed_page(page).text)) for url, page in earlier]
    kept: list[tuple[SearchCandidate, RawPage]] = []
    dupes: list[tuple[SearchCandidate, FetchFailure]] = []
    for c, page in ok:
        words = content_words(parsed_page(page).text)
        twin = next((url for url, other in seen if same_content(words, other)), None)
        if twin is None:
            kept.append((c, page))
            seen.append((c.url, words))
        else:
            detail = f"same content as {safe_url(twin)}"
            dupes.append((c, FetchFailure(c.url, Reason.DUPLICATE, detail)))
    return kept, dupes


async def fetch(state: ResearchState, runtime: Runtime[Context], *, deps: Deps) -> dict[str, Any]:
    """Fetch up to this round's share of the source budget, then apply gate 2."""
    settings = Context(**state["settings"])
    toolkit = deps.toolkit(settings)
    store, thread_id = runtime.store, str(state["thread_id"])
    assert store is not None  # routed here only with a store and a thread id
    fetched: list[SourceInfo] = list(state.get("fetched") or [])
    failed: list[SourceInfo] = list(state.get("failed") or [])
    round_no = int(state.get("round", 1))
    taken = {s["source_id"] for s in [*fetched, *failed]}
    admitted = set(state["gates"][-1].get("admitted") or [])
    pool = [
        (_candidate(c), c.get("round"))
        for c in state.get("candidates") or []
        if c["url"] in admitted and c["source_id"] not in taken
    ]
    want = max(
        0, min(int(settings.sources_per_round or 1), int(settings.max_sources or 1) - len(fetched))
    )
    # This round's leads first (the refined queries' best), then leftovers from earlier rounds.
    order = [
        *select_for_fetch(
            [c for c, r in pool if r == round_no], k=want, per_domain_cap=PER_DOMAIN_CAP
        ),
        *select_for_fetch(
            [c for c, r in pool if r != round_no], k=want, per_domain_cap=PER_DOMAIN_CAP
        ),
    ]

    hours = float(settings.page_cache_hours or 0)
    max_entry = toolkit.fetch_policy.max_bytes
    pages = PageCache(store, fresh_s=hours * 3600, max_entry_bytes=max_entry) if hours else None
    cache_status: dict[str, str] = {}
    stale: dict[str, str] = {}

    async with toolkit.fetcher(budget_s=float(state["deadline"]) - time.time()) as fetcher:

        async def read(c: SearchCandidate) -> RawPage:
            corpus = toolkit.corpora.get(c.provider)
            if c.document is not None:
                if corpus is None:
                    raise FetchError(Reason.INVALID_URL, f"no corpus transport for {c.provider!r}")
                page = await corpus.read(c.document)
            elif pages is None:
                page = await fetcher.fetch(c.url)
                cache_status[c.source_id] = "n/a"
            else:
                served = await pages.fetch(fetcher, c.url)
                page, cache_status[c.source_id] = served.page, served.cache_status
                if served.warning:
                    stale[c.source_id] = served.warning
            await asyncio.to_thread(parsed_page, page)  # parsed (and cached) before it is kept
            return page

        async def fetch_one(c: SearchCandidate) -> RawPage:
            cached = await get_raw_page(store, thread_id, c.source_id)
            if cached is not None:
                return cached
            try:
                page = await read(c)
            except FetchError:
                raise
            except Exception as exc:  # a decoder or parser failure fails this page, not the run
                raise FetchError(
                    Reason.UNSUPPORTED_TYPE,
                    f"cannot decode or parse {safe_url(c.url)}: {type(exc).__name__}",
                ) from exc
            await put_raw_page(store, thread_id, page)
            return page

        ok, bad = await fetch_until(
            order, want, fetch_one, concurrency=toolkit.fetch_policy.concurrency
        )
    ok, dupes = await _one_per_content(store, thread_id, fetched, ok)
    bad += dupes

    text_chars: dict[str, int] = {}
    round_sources: list[str] = []
    fetched_now: list[SourceInfo] = []
    failed_now: list[SourceInfo] = []
    for c, page in ok:
        text_chars[c.source_id] = len(parsed_page(page).text)
        round_sources.append(c.source_id)
        source = SourceInfo(
            source_id=c.source_id,
            url=c.url,
            canonical_url=c.canonical_url,
            title=page.title or c.title,
            trust_tier=page.trust_tier,
            provider=page.provider,
            fetch_status="fetched",
            fetched_at=page.fetched_at,
            round=round_no,
        )
        if c.source_id in cache_status:
            source["cache_status"] = cache_status[c.source_id]
        fetched_now.append(source)
    for c, failure in bad:
        failed_now.append(
            SourceInfo(
                source_id=c.source_id,
                url=c.url,
                canonical_url=c.canonical_url,
                title=c.title,
                trust_tier=0,
                provider=c.provider,
                fetch_status="failed",
                reason=failure.reason.value,
                detail=failure.detail,
                round=round_no,
            )
        )
    all_chars = {**dict(state.get("text_chars") or {}), **text_chars}
    gate = fetch_gate(
        [*fetched, *fetched_now], min_sources=int(settings.min_sources or 1), text_chars=all_chars
    )
    records = next_record(
        state,
        "fetch",
        request={"round": round_no, "selected": [c.url for c in order[:want]]},
        response_summary={
            "fetched": [c.source_id for c, _ in ok],
            "failed": [(safe_url(c.url), f.reason.value) for c, f in bad],
            "cache": dict(sorted(cache_status.items())),
        },
        tier=min((p.trust_tier for _, p in ok), default=None),
        gate=gate.to_dict(),
    )
    notes = [f"fetch: {stale[c.source_id]}" for c, _ in ok if c.source_id in stale]
    notes += [f"fetch: {g}" for g in gate.warnings]
    proxies = toolkit.fetch_policy.proxies
    if proxies.mode != "off":
        notes.append(
            f"fetch: through the {proxies.mode} proxy, which resolves each name again after the "
            "network guard checked it: a DNS rebinding window the guard cannot close"
        )
    update: dict[str, Any] = {
        "fetched": fetched_now,
        "failed": failed_now,
        "round_sources": round_sources,
        "text_chars": all_chars,
        "gates": [{**gate.to_dict(), "round": round_no}],
        "records": records,
        "warnings": new_warnings(state, notes),
    }
    emit(runtime, merged(state, update), "fetch", f"{len(ok)} read, {len(bad)} failed")
    return update
