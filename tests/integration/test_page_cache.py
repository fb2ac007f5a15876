"""The page cache on a real loopback server: hits, conditional GETs, 304s, the policy checked
before anything is served, and the caps; then through the graph, where a page served from the
cache is the new thread's own copy and is cited like a fresh one."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from httpserver import LoopbackServer, respond, validated
from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.pagecache import (
    KEEP_STALE_S,
    PageCache,
    PageFetch,
    clear_page_cache,
    prune_page_cache,
)
from quotebound.acquisition.providers import SearchCandidate, SearchResponse, search_response
from quotebound.context import make_context
from quotebound.errors import FetchError, Reason
from quotebound.graph.deps import Deps
from quotebound.interface.runner import run_research
from quotebound.storage.rawstore import get_raw_page, list_raw_pages
from quotebound.urls import source_id

pytestmark = pytest.mark.integration

EXPIRY = (
    b"<!doctype html><html><head><title>Heron cache: expiry</title></head><body><main>"
    b"<h1>Heron cache: expiry</h1><p>The Heron cache keeps an entry for ten minutes after it was "
    b"written; once that time has passed the entry expires and the next read goes back to the "
    b"origin server.</p><p>Reading an entry does not extend its lifetime, so a value that is "
    b"read constantly is still refreshed from the origin server every ten minutes.</p>"
    b"</main></body></html>"
)
CHANGED = EXPIRY.replace(b"ten minutes", b"five minutes")
ETAG = '"v1"'
MODIFIED = "Tue, 03 Nov 2026 10:00:00 GMT"
HOUR = 3600.0


class Clock:
    """A settable clock for the cache, starting at 1000 s."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _policy(server: LoopbackServer, **overrides: Any) -> FetchPolicy:
    return FetchPolicy(
        allow_loopback_origins=frozenset({server.origin}),
        **{"respect_robots": False, **overrides},
    )


async def _get(
    cache: PageCache, server: LoopbackServer, path: str = "/expiry", **policy: Any
) -> PageFetch:
    async with Fetcher(_policy(server, **policy)) as fetcher:  # a new fetcher: a new run
        return await cache.fetch(fetcher, server.url(path))


def _cache(store: InMemoryStore, clock: Clock, **overrides: Any) -> PageCache:
    settings: dict[str, Any] = {"fresh_s": 24 * HOUR, "max_entry_bytes": 1_000_000}
    return PageCache(store, clock=clock, **{**settings, **overrides})


def _conditional(server: LoopbackServer) -> dict[str, str]:
    """The conditional headers of the last request the server saw."""
    last = server.headers_seen[-1]
    return {k: v for k, v in last.items() if k.startswith("If-")}


async def test_a_fresh_page_is_served_without_a_request(http_server: LoopbackServer) -> None:
    http_server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    clock = Clock()
    cache = _cache(InMemoryStore(), clock)
    first = await _get(cache, http_server)
    clock.now += HOUR
    again = await _get(cache, http_server)
    assert (first.cache_status, again.cache_status) == ("miss", "hit")
    assert http_server.hits["/expiry"] == 1
    assert again.page == first.page  # the original fetch time, the same content
    assert again.warning is None


async def test_a_stale_page_is_revalidated_with_one_conditional_request(
    http_server: LoopbackServer,
) -> None:
    headers = {"Cache-Control": "max-age=60"}
    http_server.routes["/expiry"] = validated(
        EXPIRY, etag=ETAG, last_modified=MODIFIED, headers=headers
    )
    clock = Clock()
    cache = _cache(InMemoryStore(), clock)
    first = await _get(cache, http_server)
    clock.now += 61
    again = await _get(cache, http_server)
    assert again.cache_status == "revalidated"
    assert http_server.hits["/expiry"] == 2
    assert _conditional(http_server) == {"If-None-Match": ETAG, "If-Modified-Since": MODIFIED}
    assert again.page.html == first.page.html and again.page.sha256 == first.page.sha256
    assert again.page.fetched_at >= first.page.fetched_at  # the time of revalidation
    clock.now += 30  # the 304 renewed its freshness
    assert (await _get(cache, http_server)).cache_status == "hit"
    assert http_server.hits["/expiry"] == 2


async def test_last_modified_alone_is_a_validator(http_server: LoopbackServer) -> None:
    http_server.routes["/expiry"] = validated(
        EXPIRY, last_modified=MODIFIED, headers={"Cache-Control": "no-cache"}
    )
    cache = _cache(InMemoryStore(), Clock())
    await _get(cache, http_server)
    again = await _get(cache, http_server)  # no-cache: asked about every time
    assert again.cache_status == "revalidated"
    assert _conditional(http_server) == {"If-Modified-Since": MODIFIED}


async def test_a_changed_page_replaces_the_kept_one(http_server: LoopbackServer) -> None:
    http_server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    clock = Clock()
    cache = _cache(InMemoryStore(), clock)
    await _get(cache, http_server)
    http_server.routes["/expiry"] = validated(CHANGED, etag='"v2"')
    clock.now += 25 * HOUR
    changed = await _get(cache, http_server)
    assert changed.cache_status == "miss" and "five minutes" in (changed.page.html or "")
    assert _conditional(http_server) == {"If-None-Match": ETAG}
    kept = await _get(cache, http_server)
    assert kept.cache_status == "hit" and kept.page.sha256 == changed.page.sha256


async def test_a_stale_page_without_validators_is_fetched_again(
    http_server: LoopbackServer,
) -> None:
    http_server.routes["/expiry"] = validated(EXPIRY)
    clock = Clock()
    cache = _cache(InMemoryStore(), clock, fresh_s=60)
    await _get(cache, http_server)
    clock.now += 61
    assert (await _get(cache, http_server)).cache_status == "miss"
    assert _conditional(http_server) == {}
    assert http_server.hits["/expiry"] == 2


async def test_a_stale_page_is_served_when_its_server_cannot_be_reached(
    make_server: Any,
) -> None:
    server: LoopbackServer = make_server()
    server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    server.routes["/strict"] = validated(
        EXPIRY, etag=ETAG, headers={"Cache-Control": "max-age=60, must-revalidate"}
    )
    clock = Clock()
    cache = _cache(InMemoryStore(), clock)
    first = await _get(cache, server)
    await _get(cache, server, "/strict")
    server.stop()
    clock.now += 25 * HOUR
    stale = await _get(cache, server)
    assert stale.cache_status == "stale" and stale.page == first.page
    assert stale.warning is not None and "(connection)" in stale.warning
    with pytest.raises(FetchError) as strict:
        await _get(cache, server, "/strict")
    assert strict.value.reason is Reason.CONNECTION


async def test_the_policy_is_asked_before_a_kept_page_is_served(
    http_server: LoopbackServer,
) -> None:
    """A fresh page is not served once the guard or robots.txt refuses its URL."""
    http_server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    http_server.routes["/robots.txt"] = lambda h: respond(
        h, 200, b"User-agent: *\nDisallow: /expiry\n", {"Content-Type": "text/plain"}
    )
    cache = _cache(InMemoryStore(), Clock())
    await _get(cache, http_server)
    blind = FetchPolicy(allowed_ports=frozenset({http_server.port}), respect_robots=False)
    async with Fetcher(blind) as fetcher:  # loopback not allowed
        with pytest.raises(FetchError) as guarded:
            await cache.fetch(fetcher, http_server.url("/expiry"))
    assert guarded.value.reason is Reason.BLOCKED_SSRF
    with pytest.raises(FetchError) as robots:
        await _get(cache, http_server, respect_robots=True)
    assert robots.value.reason is Reason.ROBOTS
    with pytest.raises(FetchError) as typed:  # a type the policy no longer accepts
        await _get(cache, http_server, allowed_types=frozenset({"text/plain"}))
    assert typed.value.reason is Reason.UNSUPPORTED_TYPE
    assert http_server.hits["/expiry"] == 2  # the last one asked again, and was refused


async def test_failures_no_store_and_large_pages_are_not_kept(
    http_server: LoopbackServer,
) -> None:
    http_server.routes["/gone"] = lambda h: respond(h, 404, b"gone", {"Content-Type": "text/plain"})
    http_server.routes["/private"] = validated(
        EXPIRY, etag=ETAG, headers={"Cache-Control": "no-store"}
    )
    http_server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    store = InMemoryStore()
    cache = _cache(store, Clock())
    for _ in range(2):
        with pytest.raises(FetchError):
            await _get(cache, http_server, "/gone")
        assert (await _get(cache, http_server, "/private")).cache_status == "miss"
        small = _cache(store, Clock(), max_entry_bytes=len(EXPIRY))
        assert (await _get(small, http_server)).cache_status == "miss"  # over the fetch cap
    assert http_server.hits == {"/gone": 2, "/private": 2, "/expiry": 2}
    assert await clear_page_cache(store) == 0
    clock = Clock()
    cache = _cache(store, clock)
    await _get(cache, http_server)
    http_server.routes["/expiry"] = validated(
        CHANGED, etag='"v2"', headers={"Cache-Control": "no-store"}
    )
    clock.now += 25 * HOUR
    assert (await _get(cache, http_server)).cache_status == "miss"
    assert await clear_page_cache(store) == 0  # the no-store answer dropped the kept page


async def test_a_page_now_over_the_cap_is_fetched_again(http_server: LoopbackServer) -> None:
    http_server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    store = InMemoryStore()
    await _get(_cache(store, Clock()), http_server)
    smaller = _cache(store, Clock(), max_entry_bytes=len(EXPIRY))
    assert (await _get(smaller, http_server)).cache_status == "miss"
    assert http_server.hits["/expiry"] == 2


async def test_prune_and_clear_remove_pages(http_server: LoopbackServer) -> None:
    http_server.routes["/a"] = validated(EXPIRY, etag=ETAG)
    http_server.routes["/b"] = validated(CHANGED)
    http_server.routes["/c"] = validated(CHANGED + b" ", etag='"c"')
    store = InMemoryStore()
    cache = _cache(store, Clock(), fresh_s=HOUR)
    for path in ("/a", "/b", "/c"):
        await _get(cache, http_server, path)
    assert await prune_page_cache(store, now=1000.0) == 0
    assert await prune_page_cache(store, now=1000.0 + 2 * HOUR) == 1  # stale, no validators
    assert await prune_page_cache(store, now=1000.0, max_bytes=len(EXPIRY) * 3) == 1  # cap
    assert await prune_page_cache(store, now=1000.0 + KEEP_STALE_S + 2 * HOUR) == 1
    await _get(cache, http_server, "/a")
    assert await clear_page_cache(store) == 1
    assert await clear_page_cache(store) == 0
    assert (await _get(cache, http_server, "/a")).cache_status == "miss"


# --- through the graph ------------------------------------------------------------------------

QUESTION = "How long does the Heron cache keep an entry before it expires?"


class OnePage:
    """A search provider that finds one URL."""

    name = "scripted"
    endpoint = "scripted:"

    def __init__(self, url: str) -> None:
        self.url = url

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        found = SearchCandidate(url=self.url, title="expiry", snippet="", rank=1, provider="s")
        return search_response(self, query, time.monotonic(), candidates=(found,))


async def _research(
    store: InMemoryStore, server: LoopbackServer, thread_id: str, **explicit: Any
) -> dict[str, Any]:
    deps = Deps(providers=[OnePage(server.url("/expiry"))], fetch_policy=_policy(server))
    context = make_context("chat", composer="extractive", respect_robots=False, **explicit)
    run = run_research(QUESTION, store=store, thread_id=thread_id, context=context, deps=deps)
    return await asyncio.wait_for(run, 60)


async def test_a_page_from_the_cache_is_the_new_threads_own_and_is_cited(
    http_server: LoopbackServer,
) -> None:
    http_server.routes["/expiry"] = validated(EXPIRY, etag=ETAG)
    url = http_server.url("/expiry")
    store = InMemoryStore()
    first = await _research(store, http_server, "first")
    second = await _research(store, http_server, "second")
    assert http_server.hits["/expiry"] == 1
    [one], [two] = first["sources"], second["sources"]
    assert (one["cache_status"], two["cache_status"]) == ("miss", "hit")
    assert two["fetched_at"] == one["fetched_at"]  # the original fetch time
    assert second["status"] == "answered" and {f["url"] for f in second["findings"]} == {url}
    assert second["report_markdown"] == first["report_markdown"]
    assert second["audit"]["sources"][0]["cache_status"] == "hit"
    record = next(r for r in second["audit"]["records"] if r["stage"] == "fetch")
    assert record["response_summary"]["cache"] == {source_id(url): "hit"}
    for thread in ("first", "second"):  # each thread holds its own copy
        assert [p.source_id for p in await list_raw_pages(store, thread)] == [source_id(url)]
    assert await get_raw_page(store, "third", source_id(url)) is None
    bypass = await _research(store, http_server, "third", page_cache_hours=0)
    assert bypass["sources"][0]["cache_status"] == "n/a"
    assert http_server.hits["/expiry"] == 2
    assert _conditional(http_server) == {}


async def test_a_revalidated_page_is_stored_on_the_new_thread(
    http_server: LoopbackServer,
) -> None:
    http_server.routes["/expiry"] = validated(
        EXPIRY, etag=ETAG, headers={"Cache-Control": "no-cache"}
    )
    url = http_server.url("/expiry")
    store = InMemoryStore()
    first = await _research(store, http_server, "first")
    second = await _research(store, http_server, "second")
    assert http_server.hits["/expiry"] == 2 and _conditional(http_server) == {"If-None-Match": ETAG}
    assert [s["cache_status"] for s in (*first["sources"], *second["sources"])] == [
        "miss",
        "revalidated",
    ]
    assert second["sources"][0]["fetched_at"] >= first["sources"][0]["fetched_at"]
    assert second["status"] == "answered" and {f["url"] for f in second["findings"]} == {url}
    one, two = [await get_raw_page(store, t, source_id(url)) for t in ("first", "second")]
    assert one is not None and two is not None and two.html == one.html
