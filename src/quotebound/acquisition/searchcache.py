"""Search results kept in the run database, so the same query is not paid for twice.

Entries live in the Store's cache namespace ``("quotebound:cache", "search")`` (see
:mod:`quotebound.storage.storecache`, which also keeps them in memory in front of the Store),
keyed by a hash of the provider's name, endpoint and kind, the query with case and whitespace
folded, and the number of results asked: never by a key, which no provider shows. An answer is
kept ``ttl_s`` (24 h by default); a failure only ``FAILURE_TTL_S``, so a provider that was down
is asked again soon. Answers that carry page content (Tavily's raw content) are not kept: a
page reaches a thread only through its own fetch or search. Local corpora are never cached:
their index is the cache. ``quotebound prune`` removes expired entries and trims the cache to
its byte cap; ``quotebound cache clear`` empties it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from langgraph.store.base import BaseStore

from quotebound.acquisition.providers import (
    ProviderRun,
    SearchCandidate,
    SearchProvider,
    SearchResponse,
    kind_of,
)
from quotebound.storage.storecache import (
    CACHE_LABEL,
    StoreCache,
    clear_cache,
    entry_bytes,
    prune_cache,
)

__all__ = [
    "CACHE_NAMESPACE",
    "DEFAULT_MAX_BYTES",
    "FAILURE_TTL_S",
    "SearchCache",
    "clear_search_cache",
    "prune_search_cache",
]

_NAME = "search"
CACHE_NAMESPACE = (CACHE_LABEL, _NAME)
FAILURE_TTL_S = 60.0
"""How long a failed or empty answer is kept."""
DEFAULT_MAX_BYTES = 50_000_000
"""The cache's byte cap, enforced by :func:`prune_search_cache`."""
_MAX_ENTRY_BYTES = 512_000
"""An answer larger than this is not kept."""
_CANDIDATE_FIELDS = tuple(f.name for f in fields(SearchCandidate) if f.name != "raw_content")


class SearchCache:
    """Remote providers' answers in ``store``, for ``ttl_s`` seconds."""

    def __init__(
        self, store: BaseStore, *, ttl_s: float, clock: Callable[[], float] = time.time
    ) -> None:
        if ttl_s <= 0:
            raise ValueError(f"a search cache needs ttl_s > 0, got {ttl_s}")
        self.entries = StoreCache(store, _NAME)
        self.ttl_s = ttl_s
        self._clock = clock

    @staticmethod
    def cacheable(provider: SearchProvider) -> bool:
        """Remote providers only: a local corpus's index is its own cache."""
        return kind_of(provider) != "corpus"

    @staticmethod
    def key(provider: SearchProvider, query: str, max_results: int) -> str:
        parts = [
            provider.name,
            str(getattr(provider, "endpoint", "")),
            kind_of(provider),
            " ".join(query.casefold().split()),
            max_results,
        ]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:40]

    async def get(
        self, provider: SearchProvider, query: str, max_results: int
    ) -> SearchResponse | None:
        """The kept answer, as a run with ``cache_status`` ``hit``; None when none is fresh."""
        started = time.monotonic()
        value = await self.entries.get(self.key(provider, query, max_results))
        if value is None or float(value.get("expires", 0)) <= self._clock():
            return None
        candidates = tuple(
            SearchCandidate(
                **{
                    **{k: c[k] for k in _CANDIDATE_FIELDS if k in c},
                    "passages": tuple(tuple(p) for p in c.get("passages") or ()),
                    "query": query,
                }
            )
            for c in value["candidates"]
        )
        run = ProviderRun(
            **{
                **value["run"],
                "query": query,
                "latency_ms": round((time.monotonic() - started) * 1000),
                "cache_status": "hit",
            }
        )
        return SearchResponse(candidates, run)

    async def put(
        self, provider: SearchProvider, query: str, max_results: int, response: SearchResponse
    ) -> None:
        """Keep ``response`` unless it carries page content or is too large."""
        if any(c.raw_content is not None for c in response.candidates):
            return
        ttl = self.ttl_s if response.run.reason is None else min(self.ttl_s, FAILURE_TTL_S)
        value: dict[str, Any] = {
            "created": self._clock(),
            "expires": self._clock() + ttl,
            "run": {**response.run.to_dict(), "cache_status": "n/a"},
            "candidates": [
                {k: v for k, v in c.to_dict().items() if k in _CANDIDATE_FIELDS}
                for c in response.candidates
            ],
        }
        size = entry_bytes(value)
        if size <= _MAX_ENTRY_BYTES:
            await self.entries.put(self.key(provider, query, max_results), value, size)


async def clear_search_cache(store: BaseStore) -> int:
    """Remove every kept answer; how many there were."""
    return await clear_cache(store, _NAME)


async def prune_search_cache(
    store: BaseStore, *, max_bytes: int = DEFAULT_MAX_BYTES, now: float | None = None
) -> int:
    """Remove expired answers, then the oldest until the rest fit in ``max_bytes``; how many
    went."""
    return await prune_cache(store, _NAME, max_bytes=max_bytes, now=now)
