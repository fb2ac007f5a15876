"""Fetch-stage parallelism: 16 loopback sources that each answer after 300 ms.

Prints the wall time of one ``fetch_many`` over all 16 (concurrency 16, robots.txt honoured)
divided by the slowest single response measured in the same run. Target: <= 1.5.

    .venv/bin/python bench/bench_fetch.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from httpserver import LoopbackServer, respond

from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.storage.rawstore import RawPage

SOURCES = 16
DELAY_S = 0.3
TARGET = 1.5
BODY = (
    "<html><head><title>Source</title></head><body>"
    + "<p>A paragraph of real-looking text that the fetcher stores verbatim.</p>" * 50
    + "</body></html>"
).encode()


def slow_page(h: BaseHTTPRequestHandler) -> None:
    time.sleep(DELAY_S)
    respond(h, 200, BODY, {"Content-Type": "text/html; charset=utf-8"})


def policy(servers: list[LoopbackServer]) -> FetchPolicy:
    return FetchPolicy(
        concurrency=SOURCES, allow_loopback_origins=frozenset(s.origin for s in servers)
    )


async def timed_fetch_many(servers: list[LoopbackServer], urls: list[str]) -> float:
    async with Fetcher(policy(servers)) as fetcher:
        start = time.perf_counter()
        results = await fetcher.fetch_many(urls)
        elapsed = time.perf_counter() - start
    if not all(isinstance(r, RawPage) for r in results):
        raise SystemExit(f"a fetch failed: {results}")
    return elapsed


async def main() -> int:
    servers = [LoopbackServer().start() for _ in range(SOURCES)]
    try:
        for server in servers:
            server.routes["/page"] = slow_page
        urls = [s.url("/page") for s in servers]
        singles = [await timed_fetch_many(servers, [url]) for url in urls]
        stage = await timed_fetch_many(servers, urls)
    finally:
        for server in servers:
            server.stop()
    slowest = max(singles)
    ratio = stage / slowest
    print(f"sources: {SOURCES}, each answers after {DELAY_S * 1000:.0f} ms; concurrency {SOURCES}")
    print(f"slowest single response: {slowest * 1000:.0f} ms")
    print(f"fetch stage (fetch_many of all {SOURCES}): {stage * 1000:.0f} ms")
    print(f"ratio stage / slowest single: {ratio:.2f}")
    print(f"target <= {TARGET}: {'met' if ratio <= TARGET else 'NOT met'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
