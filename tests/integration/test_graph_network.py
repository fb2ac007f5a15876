"""The research graph over a real loopback network: partial failure and the time budget.

A small scripted search provider returns candidate URLs on a real HTTP server at 127.0.0.1;
the fetch policy allows exactly that origin. Private addresses among the candidates are never
contacted: gate 1 drops them before any connection is attempted.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from httpserver import LoopbackServer, respond
from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.providers import SearchCandidate, SearchResponse, search_response
from quotebound.context import make_context
from quotebound.graph.deps import Deps
from quotebound.interface.runner import run_research

QUESTION = "How long does the Heron cache keep an entry before it expires?"
TWO_PARTS = (
    "How long does the Heron cache keep an entry before it expires, and how much memory may "
    "the Heron cache use?"
)
PRIVATE_URL = "http://10.0.0.1/x"
HANG_GUARD_S = 30.0
"""Far above any budget used here: a run that takes this long has hung."""


def _page(title: str, *paragraphs: str) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><main><h1>{title}</h1>{body}</main></body></html>"
    ).encode()


EXPIRY_PAGE = _page(
    "Heron cache: expiry",
    "The Heron cache keeps an entry for ten minutes after it was written; once that time has "
    "passed the entry expires and the next read goes back to the origin server.",
    "Reading an entry does not extend its lifetime, so a value that is read constantly is "
    "still refreshed from the origin server every ten minutes.",
    "Expired entries are removed lazily, when they are next looked up, and by a sweep that "
    "runs in the background once a minute.",
)
TUNING_PAGE = _page(
    "Tuning the Heron cache",
    "An entry in the Heron cache expires ten minutes after it was stored unless the expiry "
    "argument asks for a shorter or longer time when the value is written.",
    "Short expiry times keep data fresher but send more requests to the origin, so choose the "
    "longest time your application can tolerate for each kind of value.",
)


class ListProvider:
    """A search provider that answers every query with the same ranked URLs."""

    name = "scripted"
    endpoint = "scripted:"

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.queries: list[str] = []

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        self.queries.append(query)
        candidates = tuple(
            SearchCandidate(
                url=url, title=url.rsplit("/", 1)[-1], snippet="", rank=rank, provider=self.name
            )
            for rank, url in enumerate(self.urls[:max_results], start=1)
        )
        return search_response(self, query, time.monotonic(), candidates=candidates)


def _html(body: bytes) -> Callable[[BaseHTTPRequestHandler], None]:
    def handler(h: BaseHTTPRequestHandler) -> None:
        respond(h, 200, body, {"Content-Type": "text/html; charset=utf-8"})

    return handler


def _slow(body: bytes, delay_s: float) -> Callable[[BaseHTTPRequestHandler], None]:
    def handler(h: BaseHTTPRequestHandler) -> None:
        time.sleep(delay_s)
        with contextlib.suppress(OSError):  # the client gave up waiting, which is the point
            respond(h, 200, body, {"Content-Type": "text/html; charset=utf-8"})

    return handler


def _broken(h: BaseHTTPRequestHandler) -> None:
    respond(h, 500, b"internal error", {"Content-Type": "text/plain"})


async def _run(
    server: LoopbackServer, urls: list[str], question: str, **explicit: Any
) -> dict[str, Any]:
    policy = FetchPolicy(
        allow_loopback_origins=frozenset({server.origin}),
        allowed_ports=frozenset({server.port}),
        respect_robots=False,
    )
    deps = Deps(providers=[ListProvider(urls)], fetch_policy=policy)
    context = make_context(
        "chat", composer="extractive", respect_robots=False, **{"min_sources": 1, **explicit}
    )
    run = run_research(question, store=InMemoryStore(), thread_id="net", context=context, deps=deps)
    return await asyncio.wait_for(run, HANG_GUARD_S)


def _by_url(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["url"]: s for s in out["sources"]}


def _fetch_records(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in out["audit"]["records"] if r["stage"] == "fetch"]


async def test_run_answers_when_some_sources_time_out_or_fail(http_server: LoopbackServer) -> None:
    http_server.routes.update(
        {
            "/expiry": _html(EXPIRY_PAGE),
            "/slow": _slow(TUNING_PAGE, 3.0),
            "/broken": _broken,
            "/tuning": _html(TUNING_PAGE),
        }
    )
    urls = [http_server.url(p) for p in ("/expiry", "/slow", "/broken", "/tuning")]
    out = await _run(
        http_server,
        [*urls, PRIVATE_URL],
        TWO_PARTS,
        fetch_timeout_s=1.0,
        sources_per_round=4,
        max_sources=8,
        max_rounds=3,
    )
    assert out["status"] == "answered", out["report_markdown"]
    assert {f["url"] for f in out["findings"]} <= {urls[0], urls[3]}
    assert any("ten minutes" in f["quote"] for f in out["findings"])

    sources = _by_url(out)
    assert [sources[u]["fetch_status"] for u in urls] == ["fetched", "failed", "failed", "fetched"]
    assert sources[urls[1]]["reason"] == "timeout"
    assert sources[urls[2]]["reason"] == "http_status"
    assert "500" in sources[urls[2]]["detail"]
    assert out["audit"]["sources"] == out["sources"]
    failed = {
        (url, reason)
        for r in _fetch_records(out)
        for url, reason in r["response_summary"]["failed"]
    }
    assert failed == {(urls[1], "timeout"), (urls[2], "http_status")}

    # The private address was dropped by gate 1 with a warning, never selected or fetched.
    assert PRIVATE_URL not in sources
    assert all(PRIVATE_URL not in r["request"]["selected"] for r in _fetch_records(out))
    gate = next(g for g in out["audit"]["gates"] if g["gate"] == "search_to_fetch")
    assert f"blocked_ssrf: {PRIVATE_URL}" in gate["warnings"]
    assert PRIVATE_URL not in gate["admitted"]
    last_gate = [g for g in out["audit"]["gates"] if g["gate"] == "search_to_fetch"][-1]
    assert (last_gate["round"], last_gate["passed"], last_gate["reason"]) == (
        2,
        False,
        "blocked_ssrf",
    )

    # Round 2 found nothing new to read; each page was asked for once, failures included.
    assert [r["decision"] for r in out["audit"]["rounds"]] == ["search", "compose"]
    assert out["audit"]["stop_reason"] == "no_new_evidence"
    assert all(http_server.hits[p] == 1 for p in ("/expiry", "/slow", "/broken", "/tuning"))
    assert "/x" not in http_server.hits
    # The report cites and lists only pages that were read.
    assert urls[1] not in out["report_markdown"] and urls[2] not in out["report_markdown"]


async def test_time_budget_ends_the_run_and_keeps_earlier_evidence(
    http_server: LoopbackServer,
) -> None:
    http_server.routes.update(
        {
            "/expiry": _html(EXPIRY_PAGE),
            "/slow-a": _slow(TUNING_PAGE, 3.0),
            "/slow-b": _slow(TUNING_PAGE, 3.0),
        }
    )
    urls = [http_server.url(p) for p in ("/expiry", "/slow-a", "/slow-b")]
    # One source per round: round 1 reads the fast page, round 2 waits on the slow ones.
    out = await _run(http_server, urls, TWO_PARTS, time_budget_s=2.0, sources_per_round=1)
    audit = out["audit"]
    assert audit["stop_reason"] == "timeout"
    assert audit["rounds"][-1]["reason"] == "the run's time budget is spent"
    assert len(audit["rounds"]) == 2
    sources = _by_url(out)
    assert sources[urls[0]]["fetch_status"] == "fetched"
    timed_out = [s for s in out["sources"] if s["fetch_status"] == "failed"]
    assert timed_out and all(s["reason"] == "timeout" for s in timed_out)
    # What round 1 verified is still the answer; the unanswered part is not invented.
    assert out["status"] == "answered"
    assert {f["url"] for f in out["findings"]} == {urls[0]}
    assert audit["rounds"][-1]["gaps"] == ["how much memory may the Heron cache use"]


async def test_a_run_whose_every_source_is_too_slow_still_finishes(
    http_server: LoopbackServer,
) -> None:
    http_server.routes.update(
        {"/slow-a": _slow(EXPIRY_PAGE, 3.0), "/slow-b": _slow(EXPIRY_PAGE, 3.0)}
    )
    urls = [http_server.url(p) for p in ("/slow-a", "/slow-b")]
    out = await _run(http_server, urls, QUESTION, time_budget_s=1.5)
    assert out["status"] == "insufficient_evidence"
    assert out["findings"] == [] and out["answer"] == ""
    assert [s["reason"] for s in out["sources"]] == ["timeout", "timeout"]
    assert "Insufficient evidence" in out["report_markdown"]


async def test_a_run_out_of_time_before_reading_anything_says_timeout(
    http_server: LoopbackServer,
) -> None:
    http_server.routes["/slow"] = _slow(EXPIRY_PAGE, 3.0)
    out = await _run(http_server, [http_server.url("/slow")], QUESTION, time_budget_s=1.5)
    assert out["audit"]["stop_reason"] == "timeout"


async def test_a_copy_of_a_page_read_before_is_not_a_second_source(
    http_server: LoopbackServer,
) -> None:
    amp = EXPIRY_PAGE.replace(b"<body>", b"<body><nav><a href='/'>AMP home</a></nav>")
    http_server.routes.update({"/expiry": _html(EXPIRY_PAGE), "/amp/expiry": _html(amp)})
    urls = [http_server.url(p) for p in ("/expiry", "/amp/expiry")]
    question = "How long does the Heron cache keep an entry before it expires?"
    out = await _run(http_server, urls, question, max_rounds=1)
    assert out["status"] == "answered"
    sources = _by_url(out)
    assert sources[urls[0]]["fetch_status"] == "fetched"
    assert (sources[urls[1]]["fetch_status"], sources[urls[1]]["reason"]) == (
        "failed",
        "duplicate",
    )
    assert {f["url"] for f in out["findings"]} == {urls[0]}
