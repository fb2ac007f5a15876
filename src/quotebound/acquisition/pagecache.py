"""Fetched pages kept in the run database, so a page is not downloaded again while it is fresh.

Entries live in the Store's cache namespace ``("quotebound:cache", "pages")`` (see
:mod:`quotebound.storage.storecache`, which also keeps them in memory in front of the Store),
keyed by the page's source id, the hash of its canonical URL (:mod:`quotebound.urls`), and
never by anything else. An entry holds the canonical URL, the page as fetched (a
:class:`RawPage` value: content, content type, final URL, status and the time it was fetched)
and the headers that decide its reuse (ETag, Last-Modified, Cache-Control, Expires, Date, Age:
:mod:`quotebound.acquisition.freshness`). Only pages fetched whole are kept: a failure is asked
again next time; so is a page its server marked ``no-store``, or whose entry is larger than the
fetch cap.

:meth:`PageCache.fetch` reads a web page through the cache. A kept page is served only if the
fetch policy would fetch its URL and its final URL now (network guard, robots.txt); then:

- fresh: served as it is, ``hit``, its access time the original fetch time;
- stale with validators: asked about with a conditional GET (through the same guard, robots
  rules and budgets as any fetch). 304: served, ``revalidated``, its freshness renewed from
  the 304's headers and its access time the time of revalidation (when the server confirmed
  the content); 200: the new page, ``miss``, replacing it;
- stale, and the conditional GET fails for a network reason (connection, timeout, TLS, proxy):
  served, ``stale``, with a warning, unless its server said ``must-revalidate`` or
  ``no-cache``; any other failure (a 404, robots, the guard) fails the fetch as it would
  without the cache;
- not kept, or stale without validators: fetched, ``miss``.

Whoever serves the page stores it in its own thread like a fresh fetch. An entry expires when
it goes stale without validators, or ``KEEP_STALE_S`` after it went stale with them;
``quotebound prune`` removes expired entries and trims the cache to ``DEFAULT_MAX_BYTES``,
``quotebound cache clear`` empties it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from langgraph.store.base import BaseStore

from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.freshness import CacheHeaders
from quotebound.acquisition.netguard import safe_url
from quotebound.errors import FetchError, Reason, StoreError
from quotebound.storage.rawstore import RawPage, utc_now
from quotebound.storage.storecache import StoreCache, clear_cache, entry_bytes, prune_cache
from quotebound.urls import canonical_url, source_id

__all__ = [
    "DEFAULT_MAX_BYTES",
    "KEEP_STALE_S",
    "CacheStatus",
    "PageCache",
    "PageFetch",
    "clear_page_cache",
    "prune_page_cache",
]

_NAME = "pages"
DEFAULT_MAX_BYTES = 200_000_000
"""The page cache's byte cap, enforced by :func:`prune_page_cache`."""
KEEP_STALE_S = 30 * 86400.0
"""How long a stale page with validators is kept for a conditional GET."""
_TRANSIENT = frozenset({Reason.CONNECTION, Reason.TIMEOUT, Reason.TLS, Reason.PROXY_ERROR})
"""Failures of a conditional GET after which a stale page may still be served."""

CacheStatus = Literal["hit", "miss", "stale", "revalidated"]


@dataclass(frozen=True)
class PageFetch:
    """A page read through the cache, how it was served and, for ``stale``, why."""

    page: RawPage
    cache_status: CacheStatus
    warning: str | None = None


class PageCache:
    """Fetched pages in ``store``; a page that says nothing of its freshness stays fresh
    ``fresh_s`` seconds; an entry over ``max_entry_bytes`` is not kept."""

    def __init__(
        self,
        store: BaseStore,
        *,
        fresh_s: float,
        max_entry_bytes: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if fresh_s <= 0:
            raise ValueError(f"a page cache needs fresh_s > 0, got {fresh_s}")
        self.entries = StoreCache(store, _NAME)
        self.fresh_s = fresh_s
        self.max_entry_bytes = max_entry_bytes
        self._clock = clock

    async def fetch(self, fetcher: Fetcher, url: str) -> PageFetch:
        """``url``'s page, from the cache or from the network (see the module's docstring);
        raises FetchError as :meth:`Fetcher.fetch` does."""
        value = await self.entries.get(source_id(url))
        kept = self._kept(value, url, fetcher.policy.allowed_types)
        if value is None or kept is None:
            return await self._fetch_new(fetcher, url)
        headers = CacheHeaders.from_value(value["headers"])
        for address in dict.fromkeys((url, kept.final_url)):
            await fetcher.admit(address)
        if self._clock() < float(value["fresh_until"]):
            return PageFetch(kept, "hit")
        if not headers.validators:
            return await self._fetch_new(fetcher, url)
        try:
            fetched = await fetcher.fetch_conditional(url, headers.validators)
        except FetchError as exc:
            if exc.reason not in _TRANSIENT or not headers.stale_allowed:
                raise
            warning = (
                f"served a stale copy of {safe_url(url)} fetched {kept.fetched_at}: asking "
                f"whether it changed failed ({exc.reason.value})"
            )
            return PageFetch(kept, "stale", warning)
        if fetched.page is None:
            page = replace(kept, fetched_at=utc_now())
            await self._keep(page, headers.updated(fetched.cache))
            return PageFetch(page, "revalidated")
        await self._keep(fetched.page, fetched.cache)
        return PageFetch(fetched.page, "miss")

    def _kept(
        self, value: dict[str, Any] | None, url: str, allowed_types: frozenset[str]
    ) -> RawPage | None:
        """The page an entry holds, as asked for by ``url``: None when the entry is for
        another URL, or the fetch cap or the accepted types would now refuse its page."""
        if value is None or value.get("canonical_url") != canonical_url(url):
            return None
        try:
            page = RawPage.from_value(value["page"])
            too_large = int(value["bytes"]) > self.max_entry_bytes
        except (KeyError, StoreError):  # not an entry this module wrote
            return None
        if too_large or page.content_type not in allowed_types:
            return None
        return replace(page, url=url, canonical_url="")

    async def _fetch_new(self, fetcher: Fetcher, url: str) -> PageFetch:
        fetched = await fetcher.fetch_conditional(url, {})
        assert fetched.page is not None  # only a conditional request is answered 304
        await self._keep(fetched.page, fetched.cache)
        return PageFetch(fetched.page, "miss")

    async def _keep(self, page: RawPage, headers: CacheHeaders) -> None:
        """Keep ``page`` with its headers, or, when it may not or need not be kept, drop the
        entry it replaces."""
        now = self._clock()
        fresh_until = now + headers.lifetime(self.fresh_s)
        value: dict[str, Any] = {
            "created": now,
            "fresh_until": fresh_until,
            "expires": fresh_until + (KEEP_STALE_S if headers.validators else 0.0),
            "canonical_url": page.canonical_url,
            "page": page.to_value(),
            "headers": headers.to_value(),
        }
        size = value["bytes"] = entry_bytes(value)
        if headers.no_store or value["expires"] <= now or size > self.max_entry_bytes:
            await self.entries.delete(page.source_id)
        else:
            await self.entries.put(page.source_id, value, size)


async def clear_page_cache(store: BaseStore) -> int:
    """Remove every kept page; how many there were."""
    return await clear_cache(store, _NAME)


async def prune_page_cache(
    store: BaseStore, *, max_bytes: int = DEFAULT_MAX_BYTES, now: float | None = None
) -> int:
    """Remove expired pages, then the oldest until the rest fit in ``max_bytes``; how many
    went."""
    return await prune_cache(store, _NAME, max_bytes=max_bytes, now=now)
