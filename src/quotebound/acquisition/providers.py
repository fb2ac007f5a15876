"""Search candidates, the provider interface, the provider ladder, the fusion of several answers
and selection for fetching.

A search result is a candidate, never a fact (tier SEARCH_RESULT, docs/architecture.md §3).
Providers never raise for their own failures: each attempt comes back as a :class:`ProviderRun`
whose ``reason`` says what went wrong, so the audit records every attempt (docs/architecture.md
§6).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol
from urllib.parse import urlsplit

from quotebound.errors import Reason, SearchError
from quotebound.storage.rawstore import RawPage
from quotebound.tiers import TrustTier, tier_for_url
from quotebound.urls import canonical_url, source_id

__all__ = [
    "ProviderLadder",
    "ProviderRun",
    "SearchCandidate",
    "SearchProvider",
    "SearchResponse",
    "dedupe",
    "fused",
    "fusion_order",
    "kind_of",
    "raw_content_page",
    "refusal",
    "search_response",
    "select_for_fetch",
]


@dataclass(frozen=True, kw_only=True)
class SearchCandidate:
    """One search result: a lead to fetch or read, not evidence."""

    url: str
    """Public URL (for corpus documents, their mapped public URL, used for citation)."""
    title: str
    """The title the provider reported."""
    snippet: str
    """The provider's excerpt; never counts as a fetched page."""
    rank: int
    """1-based position within its provider's answer (after a ladder's ``reorder``, within the
    order the run reads it in)."""
    provider: str
    """Who found it: ``tavily``, ``corpus``, ``embedded`` ..."""
    query: str = ""
    """The query that found it."""
    tier: int = TrustTier.SEARCH_RESULT
    """Always SEARCH_RESULT: a candidate, never a fact."""
    document: str | None = None
    """Corpus documents: path relative to the corpus root, read via the corpus transport."""
    passages: tuple[tuple[int, str], ...] = ()
    """The page's passages that matched the query, best first, as (rank among all the passages
    the provider ranked for the query, 0 for the best; the passage's first words, whitespace
    folded): which part of the page the search found. Empty when the provider ranks pages."""
    raw_content: str | None = field(default=None, repr=False)
    """Page content the provider returned (Tavily ``include_raw_content``); kept out of state."""

    @property
    def canonical_url(self) -> str:
        return canonical_url(self.url)

    @property
    def source_id(self) -> str:
        return source_id(self.url)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-serializable form for graph state; raw content stays out of state."""
        d = asdict(self)
        del d["raw_content"]
        d["passages"] = [list(p) for p in self.passages]
        d["tier"] = int(self.tier)
        d["canonical_url"] = self.canonical_url
        d["source_id"] = self.source_id
        return d


@dataclass(frozen=True, kw_only=True)
class ProviderRun:
    """One attempt at one provider, as the audit records it (docs/architecture.md §6)."""

    provider: str
    """The provider's name."""
    endpoint: str
    """Where it was asked: an API URL, or ``corpus:<index path>``; never a secret."""
    kind: str = "web"
    """What was searched: ``web``, ``news`` or ``corpus``."""
    query: str
    """The query sent."""
    latency_ms: int
    """How long the attempt took, retries included."""
    result_count: int
    """How many candidates it returned."""
    cache_status: str = "n/a"
    """``hit`` (a kept answer), ``miss`` (asked, then kept) or ``n/a`` (no cache)."""
    reason: str | None = None
    """A :class:`Reason` value when the attempt failed or was empty, else None."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchResponse:
    """What a provider returns for one query."""

    candidates: tuple[SearchCandidate, ...]
    """Ranked candidates (empty when the run failed)."""
    run: ProviderRun
    """The record of the attempt."""


def search_response(
    provider: SearchProvider,
    query: str,
    started: float,
    *,
    candidates: tuple[SearchCandidate, ...] = (),
    failure: Reason | None = None,
) -> SearchResponse:
    """``provider``'s answer to ``query`` and its run record (the provider's name, ``endpoint``
    attribute and kind); ``started`` is a ``time.monotonic()`` reading.

    The run's reason is ``failure`` when the attempt failed, else ``empty_results`` when it
    found nothing.
    """
    reason = failure or (None if candidates else Reason.EMPTY_RESULTS)
    run = ProviderRun(
        provider=provider.name,
        endpoint=str(getattr(provider, "endpoint", "")),
        kind=kind_of(provider),
        query=query,
        latency_ms=round((time.monotonic() - started) * 1000),
        result_count=len(candidates) if reason is None else 0,
        cache_status="n/a",
        reason=None if reason is None else reason.value,
    )
    return SearchResponse(candidates if reason is None else (), run)


class SearchProvider(Protocol):
    """A search backend. ``search`` never raises for provider failures: the reason is in the run.

    A provider may also have a ``kind``: ``news`` providers are merged by the ladder, all others
    (``web``, the default, and ``corpus``) fall through.
    """

    name: str

    async def search(self, query: str, *, max_results: int) -> SearchResponse: ...


class AnswerCache(Protocol):
    """Where a ladder keeps providers' answers (see :mod:`quotebound.acquisition.searchcache`)."""

    def cacheable(self, provider: SearchProvider) -> bool: ...

    async def get(
        self, provider: SearchProvider, query: str, max_results: int
    ) -> SearchResponse | None: ...

    async def put(
        self, provider: SearchProvider, query: str, max_results: int, response: SearchResponse
    ) -> None: ...


class ProviderLadder:
    """Providers tried in order. A web or corpus provider that fails or finds nothing falls
    through to the next; news providers all run, and their results are merged: the first news
    provider in the ladder (the lead) keeps its order, then each other one's results that the
    lead lacks are appended in ladder order, one per canonical URL. With a ``cache``, a fresh
    kept answer is used instead of asking (the run's ``cache_status`` is ``hit``), and what a
    provider answers is kept (``miss``). With ``reorder``, each answer (the provider's that is
    taken, and the merged news) is put in the order it returns, in a worker thread, and ranked
    by that order (1 first)."""

    def __init__(
        self,
        providers: Sequence[SearchProvider],
        *,
        cache: AnswerCache | None = None,
        reorder: Callable[[list[SearchCandidate]], list[SearchCandidate]] | None = None,
    ) -> None:
        if not providers:
            raise ValueError("a provider ladder needs at least one provider, got none")
        self.providers = tuple(providers)
        self.cache = cache
        self.reorder = reorder

    async def search(
        self, query: str, *, max_results: int, deadline: float | None = None
    ) -> tuple[list[SearchCandidate], list[ProviderRun]]:
        """Candidates (the first web or corpus provider's that returns any, then the merged
        news) and every attempt made. ``deadline`` (a ``time.time()`` reading) bounds every
        attempt, its retries included; an attempt cut short is recorded as ``timeout``."""
        runs: list[ProviderRun] = []
        found: list[SearchCandidate] = []
        news = [p for p in self.providers if kind_of(p) == "news"]
        news_answers = asyncio.gather(
            *(self._cached(p, query, max_results, deadline) for p in news)
        )
        for provider in self.providers:
            if kind_of(provider) == "news":
                continue
            response = await self._cached(provider, query, max_results, deadline)
            runs.append(response.run)
            if response.candidates and response.run.reason is None:
                found = list(response.candidates)
                break
        merged: list[SearchCandidate] = []
        seen = {c.canonical_url for c in found}
        for response in await news_answers:
            runs.append(response.run)
            for c in response.candidates:
                if c.canonical_url not in seen:
                    seen.add(c.canonical_url)
                    merged.append(replace(c, rank=len(merged) + 1))
        return await self._reordered(found) + await self._reordered(merged), runs

    async def _reordered(self, candidates: list[SearchCandidate]) -> list[SearchCandidate]:
        if self.reorder is None or len(candidates) < 2:
            return candidates
        ordered = await asyncio.to_thread(self.reorder, candidates)
        return [replace(c, rank=rank) for rank, c in enumerate(ordered, start=1)]

    async def _cached(
        self, provider: SearchProvider, query: str, max_results: int, deadline: float | None
    ) -> SearchResponse:
        if self.cache is None or not self.cache.cacheable(provider):
            return await self._attempt(provider, query, max_results, deadline)
        kept = await self.cache.get(provider, query, max_results)
        if kept is not None:
            return kept
        response = await self._attempt(provider, query, max_results, deadline)
        if response.run.reason != Reason.TIMEOUT:  # cut short by this run's budget, not an answer
            await self.cache.put(provider, query, max_results, response)
        return replace(response, run=replace(response.run, cache_status="miss"))

    @staticmethod
    async def _attempt(
        provider: SearchProvider, query: str, max_results: int, deadline: float | None
    ) -> SearchResponse:
        started = time.monotonic()
        left = None if deadline is None else deadline - time.time()
        try:
            if left is not None and left <= 0:
                raise TimeoutError
            return await asyncio.wait_for(provider.search(query, max_results=max_results), left)
        except TimeoutError:
            return search_response(provider, query, started, failure=Reason.TIMEOUT)
        except SearchError as exc:
            return search_response(provider, query, started, failure=exc.reason)


def refusal(*, configured: bool, query: str, max_results: int) -> Reason | None:
    """Why a provider answers without asking anyone: ``provider_unconfigured`` when it lacks a
    key or an endpoint, ``empty_results`` for a blank query or no results wanted; else None."""
    if not configured:
        return Reason.PROVIDER_UNCONFIGURED
    if not query.strip() or max_results < 1:
        return Reason.EMPTY_RESULTS
    return None


def kind_of(provider: SearchProvider) -> str:
    """A provider's kind: ``web`` unless it says otherwise."""
    return str(getattr(provider, "kind", "web"))


def _provider_order(candidates: Iterable[SearchCandidate]) -> dict[str, int]:
    order: dict[str, int] = {}
    for c in candidates:
        order.setdefault(c.provider, len(order))
    return order


def dedupe(candidates: Iterable[SearchCandidate]) -> list[SearchCandidate]:
    """One candidate per canonical URL, the best-ranked one, ordered deterministically.

    Order: rank, then the order in which providers first appear, then canonical URL.
    """
    items = list(candidates)
    order = _provider_order(items)

    def key(c: SearchCandidate) -> tuple[int, int, str]:
        return (c.rank, order[c.provider], c.canonical_url)

    best: dict[str, SearchCandidate] = {}
    for c in items:
        kept = best.get(c.canonical_url)
        if kept is None or key(c) < key(kept):
            best[c.canonical_url] = c
    return sorted(best.values(), key=key)


_FUSION_K = 3.0
"""Reciprocal rank fusion of several rankings: an item at rank r (1 best) of a ranking gains
1 / (k + r - 1)."""


def fusion_order(
    rankings: Iterable[Iterable[tuple[str, int]]], weights: Sequence[float] = ()
) -> list[str]:
    """Items (each a key and its rank, 1 best, in one ranking) in the order of reciprocal rank
    fusion: by the sum, over the rankings that hold an item, of its share for its rank there
    (``_FUSION_K``), times the ranking's weight (1 unless ``weights`` gives it). An item that
    several rankings hold comes before one that a single ranking ranks a place higher. Ties go
    to the better single rank, then the earlier ranking, then the key."""
    score: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    for n, ranking in enumerate(rankings):
        weight = weights[n] if n < len(weights) else 1.0
        for key, rank in ranking:
            score[key] = score.get(key, 0.0) + weight / (_FUSION_K + rank - 1)
            best[key] = min(best.get(key, (rank, n)), (rank, n))
    return sorted(score, key=lambda key: (-round(score[key], 9), best[key], key))


def fused(answers: Sequence[Sequence[SearchCandidate]]) -> list[list[SearchCandidate]]:
    """Several answers to queries that seek one thing, each candidate re-ranked by
    :func:`fusion_order` over them all (its page's key: its canonical URL)."""
    order = fusion_order([(c.canonical_url, c.rank) for c in answer] for answer in answers)
    place = {url: rank for rank, url in enumerate(order, start=1)}
    return [[replace(c, rank=place[c.canonical_url]) for c in answer] for answer in answers]


def _domain(c: SearchCandidate) -> str:
    # The per-domain cap spreads network fetches across hosts; corpus documents are local
    # reads of the user's library, so each counts as its own "domain".
    if c.document is not None:
        return f"{c.provider}:{c.document}"
    return urlsplit(c.canonical_url).hostname or ""


def select_for_fetch(
    candidates: Sequence[SearchCandidate],
    *,
    k: int,
    per_domain_cap: int = 3,
    exclude: Collection[str] = (),
) -> list[SearchCandidate]:
    """Candidates in fetch order: the first ``k`` are the picks, the rest replace dead links.

    Picks are the best-ranked candidates with at most ``per_domain_cap`` per host. The rest
    follow in rank order, those from hosts still under the cap first. Candidates whose source
    id is in ``exclude`` (fetched in an earlier round) are dropped.
    """
    if k < 0 or per_domain_cap < 1:
        raise ValueError(f"k must be >= 0 and per_domain_cap >= 1, got k={k}, cap={per_domain_cap}")
    excluded = set(exclude)
    pool = [c for c in dedupe(candidates) if c.source_id not in excluded]
    picks: list[SearchCandidate] = []
    capped: list[SearchCandidate] = []
    spare: list[SearchCandidate] = []
    per_domain: Counter[str] = Counter()
    for c in pool:
        domain = _domain(c)
        if len(picks) < k and per_domain[domain] < per_domain_cap:
            picks.append(c)
            per_domain[domain] += 1
        elif per_domain[domain] < per_domain_cap:
            spare.append(c)
        else:
            capped.append(c)
    return picks + spare + capped


_MARKDOWN = re.compile(r"^(#{1,6}\s|\s*[-*+]\s|\s*\d+\.\s|>\s|```)|\[[^\]\n]+\]\([^)\s]+\)", re.M)


def raw_content_page(c: SearchCandidate) -> RawPage | None:
    """A provider's raw content as a stored page with its domain's tier; None without any.

    Content with Markdown structure (headings, lists, links) is ``text/markdown``, other
    content ``text/plain``. A snippet alone never becomes a page.
    """
    if c.raw_content is None or not c.raw_content.strip():
        return None
    body = c.raw_content.encode("utf-8")
    return RawPage(
        url=c.url,
        final_url=c.url,
        status=200,
        content_type="text/markdown" if _MARKDOWN.search(c.raw_content) else "text/plain",
        encoding="utf-8",
        sha256=RawPage.body_sha256(body),
        title=c.title,
        trust_tier=int(tier_for_url(c.url)),
        provider=c.provider,
        text=c.raw_content,
    )
