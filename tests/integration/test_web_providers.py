"""SearXNG, Brave (web and news), GDELT and Wikipedia against loopback servers that answer in
each API's documented JSON format; DuckDuckGo with its ddgs client injected; the ladder's
fall-through and news merge."""

from __future__ import annotations

import asyncio
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
from httpserver import LoopbackServer, respond
from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.duckduckgo import DuckDuckGoProvider
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.providers import ProviderLadder, SearchCandidate, search_response
from quotebound.acquisition.proxies import proxy_settings
from quotebound.acquisition.searchcache import (
    CACHE_NAMESPACE,
    FAILURE_TTL_S,
    SearchCache,
    clear_search_cache,
    prune_search_cache,
)
from quotebound.acquisition.webproviders import (
    BraveProvider,
    GdeltProvider,
    SearxngProvider,
    WikipediaProvider,
)
from quotebound.context import make_context
from quotebound.errors import Reason
from quotebound.graph.deps import Deps
from quotebound.interface.runner import run_research

pytestmark = pytest.mark.integration

BRAVE_KEY = "brave-test-SECRET-0123456789"

SEARXNG_ANSWER = {
    "query": "tern cache",
    "number_of_results": 0,
    "results": [
        {
            "url": "https://tern.example/cache",
            "title": "Tern <b>cache</b>",
            "content": "The Tern cache keeps an entry for ten minutes.",
            "engine": "duckduckgo",
            "engines": ["duckduckgo", "brave"],
            "score": 2.0,
            "category": "general",
        },
        {"url": "ftp://files.example/x", "title": "not http", "content": ""},
        {"url": "https://tern.example/faq", "title": "Tern FAQ", "content": "Ten minutes."},
    ],
    "answers": [],
    "suggestions": [],
    "unresponsive_engines": [],
}
BRAVE_WEB = {
    "type": "search",
    "query": {"original": "tern cache"},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "Tern cache",
                "url": "https://tern.example/cache",
                "description": "Ten <strong>minutes</strong>.",
            }
        ],
    },
}
BRAVE_NEWS = {
    "type": "news",
    "results": [
        {"title": "Tern 2.0 ships", "url": "https://news.example/tern-2", "description": "Out."},
        {"title": "Tern cache", "url": "https://tern.example/cache", "description": "Again."},
    ],
}
GDELT_ANSWER = {
    "articles": [
        {
            "url": "https://world.example/tern",
            "url_mobile": "",
            "title": "Tern in the world",
            "seendate": "20261120T101500Z",
            "socialimage": "",
            "domain": "world.example",
            "language": "English",
            "sourcecountry": "France",
        },
        {"url": "https://news.example/tern-2", "title": "Tern 2.0 ships (syndicated)"},
    ]
}
WIKIPEDIA_ANSWER = {
    "batchcomplete": True,
    "continue": {"sroffset": 2, "continue": "-||"},
    "query": {
        "searchinfo": {"totalhits": 2},
        "search": [
            {
                "ns": 0,
                "title": "Arctic tern",
                "pageid": 1,
                "size": 100,
                "wordcount": 10,
                "snippet": 'The <span class="searchmatch">Arctic</span> tern &amp; its migration',
                "timestamp": "2026-01-01T00:00:00Z",
            },
            {"ns": 0, "title": "Tern (bird)", "pageid": 2, "snippet": "Terns are seabirds"},
        ],
    },
}


def _json_route(
    server: LoopbackServer, path: str, script: list[tuple[int, Any, dict[str, str]]]
) -> list[dict[str, Any]]:
    """Serve ``path`` from ``script`` (status, body, headers), the last entry repeating; return
    the list of requests seen (query parameters and headers)."""
    seen: list[dict[str, Any]] = []

    def handler(h: BaseHTTPRequestHandler) -> None:
        seen.append({"params": parse_qs(urlsplit(h.path).query), "headers": dict(h.headers)})
        status, body, headers = script[min(len(seen), len(script)) - 1]
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        respond(h, status, data, {"Content-Type": "application/json", **headers})

    server.routes[path] = handler
    return seen


async def test_searxng_reads_its_json_api_and_keeps_only_web_links(
    http_server: LoopbackServer,
) -> None:
    seen = _json_route(http_server, "/search", [(200, SEARXNG_ANSWER, {})])
    provider = SearxngProvider(http_server.origin)
    response = await provider.search("tern cache", max_results=5)
    assert [c.url for c in response.candidates] == [
        "https://tern.example/cache",
        "https://tern.example/faq",
    ]
    first = response.candidates[0]
    assert (first.title, first.rank, first.provider) == ("Tern cache", 1, "searxng")
    assert seen[0]["params"] == {
        "q": ["tern cache"],
        "format": ["json"],
        "categories": ["general"],
        "pageno": ["1"],
    }
    assert response.run.kind == "web" and response.run.result_count == 2
    news = await SearxngProvider(http_server.origin, category="news").search("t", max_results=5)
    assert news.run.kind == "news" and news.run.provider == "searxng-news"
    assert seen[1]["params"]["categories"] == ["news"]


async def test_searxng_without_a_url_makes_no_request_and_shows_no_credentials(
    http_server: LoopbackServer,
) -> None:
    unset = await SearxngProvider("").search("q", max_results=3)
    assert unset.run.reason == "provider_unconfigured" and http_server.connections == 0
    secret = SearxngProvider("http://user:hunter2@127.0.0.1:9/searx")
    assert "hunter2" not in secret.endpoint and "user" not in secret.endpoint


async def test_brave_sends_its_key_in_a_header_and_never_shows_it(
    http_server: LoopbackServer,
) -> None:
    web = _json_route(http_server, "/res/v1/web/search", [(200, BRAVE_WEB, {})])
    news = _json_route(http_server, "/res/v1/news/search", [(200, BRAVE_NEWS, {})])
    brave = BraveProvider(api_key=BRAVE_KEY, base_url=http_server.origin)
    response = await brave.search("tern cache", max_results=30)
    assert [(c.url, c.snippet) for c in response.candidates] == [
        ("https://tern.example/cache", "Ten minutes.")
    ]
    assert web[0]["headers"]["X-Subscription-Token"] == BRAVE_KEY
    assert web[0]["params"]["count"] == ["20"]  # Brave's web maximum
    shown = json.dumps(response.run.to_dict()) + repr(brave) + brave.endpoint
    assert BRAVE_KEY not in shown
    brave_news = BraveProvider(api_key=BRAVE_KEY, base_url=http_server.origin, news=True)
    answer = await brave_news.search("tern", max_results=5)
    assert answer.run.kind == "news" and len(answer.candidates) == 2 and len(news) == 1
    unkeyed = await BraveProvider(api_key="", base_url=http_server.origin).search(
        "t", max_results=3
    )
    assert unkeyed.run.reason == "provider_unconfigured" and len(web) == 1


async def test_brave_without_a_web_section_found_nothing(http_server: LoopbackServer) -> None:
    _json_route(http_server, "/res/v1/web/search", [(200, {"type": "search"}, {})])
    brave = BraveProvider(api_key=BRAVE_KEY, base_url=http_server.origin)
    response = await brave.search("zzz", max_results=5)
    assert response.run.reason == "empty_results" and response.candidates == ()


async def test_gdelt_articles_empty_answers_and_refusals(http_server: LoopbackServer) -> None:
    script: list[tuple[int, Any, dict[str, str]]] = [
        (200, GDELT_ANSWER, {}),
        (200, {}, {}),
        (200, b"Your search contained a phrase that was too short.", {}),
    ]
    seen = _json_route(http_server, "/api/v2/doc/doc", script)
    gdelt = GdeltProvider(base_url=http_server.origin)
    first = await gdelt.search("tern", max_results=10)
    assert [c.title for c in first.candidates] == [
        "Tern in the world",
        "Tern 2.0 ships (syndicated)",
    ]
    assert seen[0]["params"]["mode"] == ["artlist"] and seen[0]["params"]["format"] == ["json"]
    assert (await gdelt.search("tern", max_results=10)).run.reason == "empty_results"
    assert (await gdelt.search("t", max_results=10)).run.reason == "provider_error"


async def test_wikipedia_links_articles_and_strips_snippet_markup(
    http_server: LoopbackServer,
) -> None:
    seen = _json_route(http_server, "/w/api.php", [(200, WIKIPEDIA_ANSWER, {})])
    wiki = WikipediaProvider(language="de", base_url=http_server.origin)
    response = await wiki.search("arctic tern", max_results=5)
    assert [c.url for c in response.candidates] == [
        "https://de.wikipedia.org/wiki/Arctic_tern",
        "https://de.wikipedia.org/wiki/Tern_(bird)",
    ]
    assert response.candidates[0].snippet == "The Arctic tern & its migration"
    assert seen[0]["params"]["list"] == ["search"] and seen[0]["params"]["srsearch"] == [
        "arctic tern"
    ]
    assert "quotebound" in seen[0]["headers"]["User-Agent"]
    _json_route(http_server, "/w/api.php", [(200, {"error": {"code": "srsearch-text"}}, {})])
    assert (await wiki.search("x", max_results=5)).run.reason == "provider_error"
    with pytest.raises(ValueError, match="language"):
        WikipediaProvider(language="../evil")


async def test_429_is_retried_after_retry_after_then_given_up(http_server: LoopbackServer) -> None:
    seen = _json_route(
        http_server,
        "/search",
        [(429, {"error": "slow down"}, {"Retry-After": "0"}), (200, SEARXNG_ANSWER, {})],
    )
    provider = SearxngProvider(http_server.origin, backoff_s=0)
    assert len((await provider.search("q", max_results=3)).candidates) == 2
    assert len(seen) == 2
    _json_route(http_server, "/search", [(429, {}, {"Retry-After": "0"})])
    limited = await SearxngProvider(http_server.origin, retries=2, backoff_s=0).search(
        "q", max_results=3
    )
    assert limited.run.reason == "rate_limited"


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (500, b"oops", "http_status"),
        (200, b"{not json", "provider_error"),
        (200, b"[]", "provider_error"),
    ],
)
async def test_errors_and_malformed_answers_have_reasons(
    http_server: LoopbackServer, status: int, body: bytes, reason: str
) -> None:
    _json_route(http_server, "/search", [(status, body, {})])
    response = await SearxngProvider(http_server.origin).search("q", max_results=3)
    assert response.run.reason == reason and response.candidates == ()


async def test_a_closed_port_is_a_connection_failure() -> None:
    response = await SearxngProvider("http://127.0.0.1:9").search("q", max_results=3)
    assert response.run.reason == "connection"


async def test_a_rate_limited_provider_is_cut_off_at_the_deadline(
    http_server: LoopbackServer,
) -> None:
    seen = _json_route(http_server, "/search", [(429, {}, {"Retry-After": "3"})])
    started = time.monotonic()
    ladder = ProviderLadder([SearxngProvider(http_server.origin, retries=5)])
    _, runs = await ladder.search("q", max_results=3, deadline=time.time() + 1.0)
    assert [r.reason for r in runs] == ["timeout"] and len(seen) == 1
    assert time.monotonic() - started < 2.0


class ScriptedDDGS:
    """Stands in for ``ddgs.DDGS``: returns recorded rows or raises its real exceptions."""

    def __init__(self, *outcomes: list[dict[str, str]] | Exception) -> None:
        self.outcomes = list(outcomes)
        self.calls: list[dict[str, Any]] = []

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append({"query": query, **kwargs})
        outcome = self.outcomes[min(len(self.calls), len(self.outcomes)) - 1]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


DDG_ROWS = [
    {"title": "Tern cache", "href": "https://tern.example/cache", "body": "Ten minutes."},
    {"title": "no link", "href": "", "body": ""},
]


async def test_duckduckgo_results_and_rate_limits() -> None:
    client = ScriptedDDGS(RatelimitException("202 Ratelimit"), DDG_ROWS)
    ddg = DuckDuckGoProvider(client=client, backoff_s=0)
    response = await ddg.search("tern cache", max_results=5)
    assert [c.url for c in response.candidates] == ["https://tern.example/cache"]
    assert len(client.calls) == 2 and client.calls[0]["max_results"] == 5
    limited = DuckDuckGoProvider(client=ScriptedDDGS(RatelimitException("x")), backoff_s=0)
    assert (await limited.search("q", max_results=3)).run.reason == "rate_limited"
    slow = DuckDuckGoProvider(client=ScriptedDDGS(TimeoutException("x")))
    assert (await slow.search("q", max_results=3)).run.reason == "timeout"
    broken = DuckDuckGoProvider(client=ScriptedDDGS(DDGSException("x")))
    assert (await broken.search("q", max_results=3)).run.reason == "provider_error"


async def test_the_ladder_falls_through_web_providers_in_order(http_server: LoopbackServer) -> None:
    _json_route(http_server, "/search", [(500, b"down", {})])
    _json_route(http_server, "/w/api.php", [(200, WIKIPEDIA_ANSWER, {})])
    ladder = ProviderLadder(
        [
            BraveProvider(api_key="", base_url=http_server.origin),
            SearxngProvider(http_server.origin),
            WikipediaProvider(base_url=http_server.origin),
            DuckDuckGoProvider(client=ScriptedDDGS(DDG_ROWS)),
        ]
    )
    found, runs = await ladder.search("tern", max_results=5)
    assert [(r.provider, r.reason) for r in runs] == [
        ("brave", "provider_unconfigured"),
        ("searxng", "http_status"),
        ("wikipedia", None),
    ]
    assert {c.provider for c in found} == {"wikipedia"}


async def test_news_is_merged_lead_first_deterministically(http_server: LoopbackServer) -> None:
    _json_route(http_server, "/res/v1/news/search", [(200, BRAVE_NEWS, {})])
    _json_route(http_server, "/api/v2/doc/doc", [(200, GDELT_ANSWER, {})])
    brave_news = BraveProvider(api_key=BRAVE_KEY, base_url=http_server.origin, news=True)
    ladder = ProviderLadder([brave_news, GdeltProvider(base_url=http_server.origin)])
    for _ in range(2):
        found, runs = await ladder.search("tern", max_results=5)
        assert [(c.url, c.rank, c.provider) for c in found] == [
            ("https://news.example/tern-2", 1, "brave-news"),
            ("https://tern.example/cache", 2, "brave-news"),
            ("https://world.example/tern", 3, "gdelt"),  # the syndicated copy is dropped
        ]
        assert [r.provider for r in runs] == ["brave-news", "gdelt"]


async def test_the_ladder_records_a_provider_cut_short_by_the_deadline() -> None:
    class Slow:
        name = "slow"
        kind = "web"
        endpoint = "slow:"

        async def search(self, query: str, *, max_results: int) -> Any:
            await asyncio.sleep(5)

    started = time.monotonic()
    found, runs = await ProviderLadder([Slow()]).search(
        "q", max_results=3, deadline=time.time() + 0.2
    )
    assert found == [] and [r.reason for r in runs] == ["timeout"]
    assert time.monotonic() - started < 2


HERON_PAGE = (
    b"<!doctype html><html><head><title>Heron cache: expiry</title></head><body><main>"
    b"<h1>Heron cache: expiry</h1><p>The Heron cache keeps an entry for ten minutes after it was "
    b"written; once that time has passed the entry expires and the next read goes back to the "
    b"origin server.</p><p>Expired entries are removed lazily, when they are next looked up, and "
    b"by a sweep that runs in the background once a minute.</p></main></body></html>"
)


async def test_a_run_answers_from_searxng_results_it_fetched(http_server: LoopbackServer) -> None:
    page = http_server.url("/heron")
    answer = {"results": [{"url": page, "title": "Heron cache: expiry", "content": "ten minutes"}]}
    _json_route(http_server, "/search", [(200, answer, {})])
    http_server.routes["/heron"] = lambda h: respond(
        h, 200, HERON_PAGE, {"Content-Type": "text/html; charset=utf-8"}
    )
    policy = FetchPolicy(
        allow_loopback_origins=frozenset({http_server.origin}),
        allowed_ports=frozenset({http_server.port}),
        respect_robots=False,
    )
    deps = Deps(providers=[SearxngProvider(http_server.origin)], fetch_policy=policy)
    context = make_context("chat", composer="extractive", respect_robots=False)
    out = await run_research(
        "How long does the Heron cache keep an entry?",
        store=InMemoryStore(),
        thread_id="searx",
        context=context,
        deps=deps,
    )
    assert out["status"] == "answered"
    assert {f["url"] for f in out["findings"]} == {page}
    assert "ten minutes" in out["findings"][0]["quote"]
    runs = out["audit"]["provider_runs"]
    assert runs[0]["provider"] == "searxng" and runs[0]["kind"] == "web"


class Counting:
    """A remote provider that counts what it is asked."""

    name = "counting"
    kind = "web"
    endpoint = "https://search.example/api"

    def __init__(self, *, fail: bool = False, raw: bool = False) -> None:
        self.asked: list[str] = []
        self.fail = fail
        self.raw = raw

    async def search(self, query: str, *, max_results: int) -> Any:
        self.asked.append(query)
        rows = (
            ()
            if self.fail
            else tuple(
                SearchCandidate(
                    url=f"https://site.example/{i}",
                    title=f"Result {i}",
                    snippet="s",
                    rank=i,
                    provider=self.name,
                    query=query,
                    raw_content="# page" if self.raw else None,
                )
                for i in range(1, 3)
            )
        )
        return search_response(
            self,
            query,
            time.monotonic(),
            candidates=rows,
            failure=Reason.CONNECTION if self.fail else None,
        )


async def test_the_cache_answers_a_repeated_query_without_asking() -> None:
    now = [1000.0]
    store = InMemoryStore()
    provider = Counting()
    ladder = ProviderLadder([provider], cache=SearchCache(store, ttl_s=3600, clock=lambda: now[0]))
    first, runs1 = await ladder.search("Tern  Cache", max_results=5)
    again, runs2 = await ladder.search("tern cache", max_results=5)  # case and spaces folded
    assert provider.asked == ["Tern  Cache"]
    assert [r.cache_status for r in runs1 + runs2] == ["miss", "hit"]
    assert [(c.url, c.rank, c.title) for c in again] == [(c.url, c.rank, c.title) for c in first]
    assert runs2[0].result_count == 2 and runs2[0].query == "tern cache"
    now[0] += 3601
    await ladder.search("tern cache", max_results=5)
    assert len(provider.asked) == 2  # expired: asked again
    await ladder.search("tern cache", max_results=6)
    assert len(provider.asked) == 3  # other parameters, other entry


async def test_failures_are_kept_briefly_and_page_content_never() -> None:
    now = [1000.0]
    store = InMemoryStore()
    cache = SearchCache(store, ttl_s=3600, clock=lambda: now[0])
    down = Counting(fail=True)
    ladder = ProviderLadder([down], cache=cache)
    await ladder.search("q", max_results=3)
    _, runs = await ladder.search("q", max_results=3)
    assert runs[0].cache_status == "hit" and runs[0].reason == "connection"
    now[0] += FAILURE_TTL_S + 1
    await ladder.search("q", max_results=3)
    assert len(down.asked) == 2
    raw = Counting(raw=True)
    raw_ladder = ProviderLadder([raw], cache=cache)
    await raw_ladder.search("r", max_results=3)
    await raw_ladder.search("r", max_results=3)
    assert len(raw.asked) == 2


async def test_clear_and_prune_the_cache() -> None:
    store = InMemoryStore()
    cache = SearchCache(store, ttl_s=10, clock=lambda: 1000.0)
    ladder = ProviderLadder([Counting()], cache=cache)
    for q in ("a", "b", "c"):
        await ladder.search(q, max_results=3)
    assert await prune_search_cache(store, now=1005.0) == 0
    assert await prune_search_cache(store, now=1005.0, max_bytes=1) == 3  # over the cap
    for q in ("a", "b"):
        await ladder.search(q, max_results=3)
    assert await prune_search_cache(store, now=2000.0) == 2  # expired
    await ladder.search("d", max_results=3)
    assert await clear_search_cache(store) == 1
    assert await clear_search_cache(store) == 0


def test_duckduckgo_hands_the_proxy_mode_to_its_client() -> None:
    settings = proxy_settings(
        {"QUOTEBOUND_PROXY_MODE": "explicit", "QUOTEBOUND_HTTP_PROXY_URL": "http://p:3128"}
        | {"QUOTEBOUND_HTTPS_PROXY_URL": "http://p:3129"}
    )
    client = DuckDuckGoProvider(proxies=settings)._default_client()
    assert getattr(client, "_proxy", None) == "http://p:3129"
    direct = DuckDuckGoProvider()._default_client()
    assert getattr(direct, "_proxy", None) is None


async def test_the_in_process_layer_answers_before_the_store_and_forgets_on_clear() -> None:
    store = InMemoryStore()
    provider = Counting()
    ladder = ProviderLadder([provider], cache=SearchCache(store, ttl_s=3600))
    await ladder.search("heron", max_results=3)
    for item in await store.asearch(CACHE_NAMESPACE):  # gone from the Store, kept in memory
        await store.adelete(CACHE_NAMESPACE, item.key)
    _, runs = await ladder.search("heron", max_results=3)
    assert runs[0].cache_status == "hit" and provider.asked == ["heron"]
    await clear_search_cache(store)
    _, runs = await ladder.search("heron", max_results=3)
    assert runs[0].cache_status == "miss" and len(provider.asked) == 2
