"""The Tavily provider through the real tavily-python client, against a loopback Tavily."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from forwardproxy import ForwardProxy

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.acquisition.providers import ProviderLadder, raw_content_page
from quotebound.acquisition.proxies import proxy_settings
from quotebound.acquisition.tavily import TavilyProvider
from quotebound.tiers import TrustTier

pytestmark = pytest.mark.integration

KEY = "tavily-test-SECRET-0123456789abcdef"


@dataclass
class FakeTavily:
    """A loopback Tavily: answers /search from a script of (status, body) and records requests."""

    script: list[tuple[int, Any]] = field(default_factory=list)
    requests: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    url: str = ""

    @property
    def hits(self) -> int:
        return len(self.requests)


def results(n: int, *, raw: bool = False) -> dict[str, Any]:
    rows = [
        {
            "title": f"Result {i}",
            "url": f"https://site{i}.example/page?utm_source=tavily",
            "content": f"snippet {i}",
            "score": 1 - i / 10,
            "raw_content": f"# Page {i}\n\nFull text of page {i}." if raw else None,
        }
        for i in range(1, n + 1)
    ]
    return {"query": "q", "results": rows, "response_time": 0.01}


@pytest.fixture
def tavily() -> Iterator[FakeTavily]:
    fake = FakeTavily()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            fake.requests.append((self.path, dict(self.headers), json.loads(body or b"{}")))
            status, answer = fake.script.pop(0) if fake.script else (200, results(0))
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield fake
    server.shutdown()
    server.server_close()


def provider(fake: FakeTavily, **kw: Any) -> TavilyProvider:
    kw.setdefault("api_key", KEY)
    return TavilyProvider(api_base_url=fake.url, backoff_s=0.01, **kw)


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "fallback.md").write_text("# Fallback\n\nThe fallback corpus knows about q.\n")
    return LocalCorpus(root, index_path=tmp_path / "index.sqlite")


async def test_search_returns_ranked_candidates(tavily: FakeTavily) -> None:
    tavily.script.append((200, results(3)))
    response = await provider(tavily, topic="news").search("q", max_results=3)
    assert [(c.rank, c.title, c.snippet) for c in response.candidates] == [
        (1, "Result 1", "snippet 1"),
        (2, "Result 2", "snippet 2"),
        (3, "Result 3", "snippet 3"),
    ]
    c = response.candidates[0]
    assert c.provider == "tavily" and c.query == "q" and c.tier == TrustTier.SEARCH_RESULT
    assert c.canonical_url == "https://site1.example/page" and c.raw_content is None
    run = response.run
    assert (run.provider, run.result_count, run.reason) == ("tavily", 3, None)
    assert run.endpoint == f"{tavily.url}/search"
    path, headers, body = tavily.requests[0]
    assert path == "/search" and headers["Authorization"] == f"Bearer {KEY}"
    assert body["topic"] == "news" and body["max_results"] == 3
    assert "include_raw_content" not in body


async def test_raw_content_becomes_a_stored_page(tavily: FakeTavily) -> None:
    tavily.script.append((200, results(2, raw=True)))
    response = await provider(tavily, include_raw_content=True).search("q", max_results=5)
    assert tavily.requests[0][2]["include_raw_content"] == "markdown"
    page = raw_content_page(response.candidates[1])
    assert page is not None
    assert page.text == "# Page 2\n\nFull text of page 2."
    assert page.content_type == "text/markdown" and page.provider == "tavily"
    assert page.url == "https://site2.example/page?utm_source=tavily"
    assert page.trust_tier == TrustTier.EXTERNAL_SOURCE
    assert "raw_content" not in response.candidates[1].to_dict()


@pytest.mark.parametrize("status", [500, 401, 403, 400])
async def test_an_error_falls_through_the_ladder_to_the_corpus(
    tavily: FakeTavily, corpus: LocalCorpus, status: int
) -> None:
    tavily.script.append((status, {"detail": {"error": "nope"}}))
    ladder = ProviderLadder([provider(tavily), corpus])
    candidates, runs = await ladder.search("fallback corpus", max_results=5)
    assert [c.document for c in candidates] == ["fallback.md"]
    assert [(r.provider, r.reason) for r in runs] == [
        ("tavily", "provider_error"),
        ("corpus", None),
    ]
    assert tavily.hits == 1  # errors other than 429/503 are not retried


async def test_an_empty_answer_falls_through_the_ladder(
    tavily: FakeTavily, corpus: LocalCorpus
) -> None:
    tavily.script.append((200, results(0)))
    candidates, runs = await ProviderLadder([provider(tavily), corpus]).search(
        "fallback", max_results=5
    )
    assert [r.reason for r in runs] == ["empty_results", None]
    assert runs[0].result_count == 0 and candidates[0].provider == "corpus"


async def test_rate_limit_is_retried(tavily: FakeTavily) -> None:
    tavily.script += [(429, {"detail": {"error": "slow down"}}), (503, {}), (200, results(1))]
    response = await provider(tavily, max_retries=2).search("q", max_results=5)
    assert response.run.reason is None and len(response.candidates) == 1
    assert tavily.hits == 3


async def test_retries_are_bounded(tavily: FakeTavily) -> None:
    tavily.script += [(503, {})] * 5
    response = await provider(tavily, max_retries=2).search("q", max_results=5)
    assert response.run.reason == "provider_error" and response.candidates == ()
    assert tavily.hits == 3


async def test_max_results_is_clamped_and_blank_queries_are_not_sent(tavily: FakeTavily) -> None:
    tavily.script.append((200, results(25)))
    response = await provider(tavily).search("q", max_results=50)
    assert tavily.requests[0][2]["max_results"] == 20
    assert len(response.candidates) == 25  # what came back is kept, ranked
    blank = await provider(tavily).search("   ", max_results=5)
    assert blank.run.reason == "empty_results" and tavily.hits == 1


async def test_a_body_that_is_not_json_is_a_provider_error(tavily: FakeTavily) -> None:
    tavily.script.append((200, b"<html>gateway</html>"))
    response = await provider(tavily).search("q", max_results=5)
    assert response.run.reason == "provider_error"


async def test_no_key_is_unconfigured_without_any_request(
    tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    p = TavilyProvider(api_base_url=tavily.url)
    response = await p.search("q", max_results=5)
    assert response.run.reason == "provider_unconfigured" and response.candidates == ()
    assert tavily.hits == 0
    assert not p.configured


async def test_key_comes_from_the_environment(
    tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    tavily.script.append((200, results(1)))
    response = await TavilyProvider(api_base_url=tavily.url).search("q", max_results=1)
    assert response.run.reason is None
    assert tavily.requests[0][1]["Authorization"] == f"Bearer {KEY}"


async def test_the_key_never_appears_in_runs_errors_or_logs(
    tavily: FakeTavily, caplog: pytest.LogCaptureFixture
) -> None:
    echo = {"detail": {"error": f"invalid key {KEY}"}}
    tavily.script += [(401, echo), (500, echo), (429, echo), (429, echo), (200, b"not json")]
    p = provider(tavily, max_retries=1)
    caplog.set_level(logging.DEBUG)
    runs = [(await p.search("q", max_results=3)).run for _ in range(4)]
    assert [r.reason for r in runs] == ["provider_error"] * 4
    seen = json.dumps([r.to_dict() for r in runs]) + repr(runs) + repr(p) + caplog.text
    assert "tavily" in caplog.text
    assert KEY not in seen and "SECRET" not in seen


async def test_tavily_goes_through_the_proxy_mode_and_not_the_environment(
    tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = ForwardProxy().start()
    try:
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # mode off: never used
        tavily.script.append((200, results(1)))
        direct = await provider(tavily).search("q", max_results=1)
        assert len(direct.candidates) == 1 and proxy.seen == []
        settings = proxy_settings({"QUOTEBOUND_PROXY_MODE": "env", "HTTP_PROXY": proxy.url()})
        tavily.script.append((200, results(2)))
        proxied = await provider(tavily, proxies=settings).search("q", max_results=2)
        assert len(proxied.candidates) == 2
        assert proxy.seen == [f"POST {tavily.url}/search"]
    finally:
        proxy.stop()
