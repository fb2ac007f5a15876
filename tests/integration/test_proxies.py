"""Proxy modes through a real forwarding proxy on loopback: env and explicit, NO_PROXY, a dead
proxy's reason and cooldown, misconfiguration, and credentials that never show."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from forwardproxy import ForwardProxy
from httpserver import LoopbackServer, respond

from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.proxies import ProxySettings, proxy_settings
from quotebound.acquisition.webproviders import SearxngProvider
from quotebound.errors import ConfigError, FetchError
from quotebound.storage.rawstore import parsed_page

pytestmark = pytest.mark.integration

SECRET = "pr0xy-s3cret"
PAGE = (
    b"<!doctype html><html><head><title>Tern</title></head><body><main><p>The Tern cache keeps "
    b"an entry for ten minutes after its last use, then drops it on the next lookup.</p>"
    b"</main></body></html>"
)


@pytest.fixture
def proxy() -> Iterator[ForwardProxy]:
    running = ForwardProxy(credentials=f"alice:{SECRET}").start()
    yield running
    running.stop()


def _origin(server: LoopbackServer) -> LoopbackServer:
    server.routes["/tern"] = lambda h: respond(
        h, 200, PAGE, {"Content-Type": "text/html; charset=utf-8"}
    )
    return server


def _policy(server: LoopbackServer, proxies: ProxySettings) -> FetchPolicy:
    return FetchPolicy(
        allow_loopback_origins=frozenset({server.origin}), respect_robots=False, proxies=proxies
    )


@pytest.mark.parametrize("mode", ["env", "explicit"])
async def test_pages_are_fetched_through_the_proxy(
    http_server: LoopbackServer, proxy: ForwardProxy, mode: str
) -> None:
    url = proxy.url(f"alice:{SECRET}")
    environ = (
        {"QUOTEBOUND_PROXY_MODE": "env", "HTTP_PROXY": url, "ALL_PROXY": "http://127.0.0.1:9"}
        if mode == "env"
        else {
            "QUOTEBOUND_PROXY_MODE": "explicit",
            "QUOTEBOUND_HTTP_PROXY_URL": url,
            "QUOTEBOUND_HTTPS_PROXY_URL": url,
        }
    )
    server = _origin(http_server)
    async with Fetcher(_policy(server, proxy_settings(environ))) as fetcher:
        page = await fetcher.fetch(server.url("/tern"))
    assert "ten minutes" in parsed_page(page).text
    assert proxy.seen == [f"GET {server.url('/tern')}"]
    assert server.hits["/tern"] == 1


async def test_no_proxy_and_off_mode_connect_directly(
    http_server: LoopbackServer, proxy: ForwardProxy
) -> None:
    server = _origin(http_server)
    bypass = proxy_settings(
        {"QUOTEBOUND_PROXY_MODE": "env", "HTTP_PROXY": proxy.url(), "NO_PROXY": "127.0.0.1"}
    )
    off = proxy_settings({"HTTP_PROXY": proxy.url()})  # mode off: the variable is ignored
    for settings in (bypass, off):
        async with Fetcher(_policy(server, settings)) as fetcher:
            await fetcher.fetch(server.url("/tern"))
    assert proxy.seen == [] and server.hits["/tern"] == 2


async def test_a_dead_proxy_fails_with_its_reason_then_cools_down(
    http_server: LoopbackServer,
) -> None:
    server = _origin(http_server)
    dead = proxy_settings(
        {"QUOTEBOUND_PROXY_MODE": "env", "HTTP_PROXY": f"http://bob:{SECRET}@127.0.0.1:9"}
    )
    async with Fetcher(_policy(server, dead)) as fetcher:
        errors = []
        for _ in range(4):
            with pytest.raises(FetchError) as info:
                await fetcher.fetch(server.url("/tern"))
            errors.append(info.value)
    assert {e.reason for e in errors} == {"proxy_error"}
    assert "env proxy 127.0.0.1:9" in str(errors[0])
    assert "cooling down" in str(errors[-1])
    assert all(SECRET not in str(e) and "bob" not in str(e) for e in errors)
    assert server.hits["/tern"] == 0


def test_misconfigured_proxies_are_refused_without_their_credentials() -> None:
    with pytest.raises(ConfigError, match="QUOTEBOUND_HTTPS_PROXY_URL"):
        proxy_settings(
            {"QUOTEBOUND_PROXY_MODE": "explicit", "QUOTEBOUND_HTTP_PROXY_URL": "http://p:3128"}
        )
    with pytest.raises(ConfigError, match="QUOTEBOUND_PROXY_MODE") as bad_mode:
        proxy_settings({"QUOTEBOUND_PROXY_MODE": "socks"})
    assert "socks" in str(bad_mode.value)
    with pytest.raises(ConfigError) as bad_url:
        proxy_settings({"QUOTEBOUND_PROXY_MODE": "env", "HTTP_PROXY": f"ftp://u:{SECRET}@p:21"})
    assert "env proxy p:21" in str(bad_url.value) and SECRET not in str(bad_url.value)


async def test_search_apis_go_through_the_proxy_too(
    http_server: LoopbackServer, proxy: ForwardProxy
) -> None:
    answer = {"results": [{"url": "https://tern.example/", "title": "Tern", "content": "x"}]}
    http_server.routes["/search"] = lambda h: respond(
        h, 200, json.dumps(answer).encode(), {"Content-Type": "application/json"}
    )
    settings = proxy_settings(
        {"QUOTEBOUND_PROXY_MODE": "env", "HTTP_PROXY": proxy.url(f"alice:{SECRET}")}
    )
    searx = SearxngProvider(http_server.origin, proxies=settings)
    response = await searx.search("tern", max_results=3)
    assert len(response.candidates) == 1
    assert [s.split("?")[0] for s in proxy.seen] == [f"GET {http_server.url('/search')}"]
    assert SECRET not in json.dumps(response.run.to_dict())
