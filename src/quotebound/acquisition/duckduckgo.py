"""DuckDuckGo web search, keyless, through the maintained ``ddgs`` package (an optional extra:
``pip install 'quotebound[duckduckgo]'``).

DuckDuckGo has no documented JSON API; ``ddgs`` reads its pages. Its client is synchronous, so
each search runs in a worker thread. A rate limit (``RatelimitException``) is retried after a
backoff a bounded number of times and then reported as ``rate_limited``, so the ladder moves on
to the next provider; its timeout is ``timeout``, any other ``DDGSException`` ``provider_error``.
The proxy mode's https proxy, if any, is handed to the client.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import time
from typing import Any, Protocol

from quotebound.acquisition.providers import (
    SearchCandidate,
    SearchResponse,
    refusal,
    search_response,
)
from quotebound.acquisition.proxies import ProxySettings
from quotebound.acquisition.searchapi import check_retries
from quotebound.errors import Reason

__all__ = ["DuckDuckGoProvider", "ddgs_installed"]

log = logging.getLogger(__name__)


class TextSearch(Protocol):
    """What this provider uses of ``ddgs.DDGS``."""

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


def ddgs_installed() -> bool:
    """Whether the optional ``ddgs`` package can be imported."""
    return importlib.util.find_spec("ddgs") is not None


class DuckDuckGoProvider:
    """DuckDuckGo's web results, in its order."""

    name = "duckduckgo"
    kind = "web"
    endpoint = "https://duckduckgo.com (ddgs)"

    def __init__(
        self,
        *,
        client: TextSearch | None = None,
        retries: int = 2,
        backoff_s: float = 1.0,
        timeout_s: int = 10,
        region: str = "wt-wt",
        proxies: ProxySettings | None = None,
    ) -> None:
        check_retries(self.name, retries=retries, backoff_s=backoff_s, timeout_s=timeout_s)
        self._client = client
        self.retries = retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.region = region
        self.proxies = proxies or ProxySettings()

    @property
    def configured(self) -> bool:
        return self._client is not None or ddgs_installed()

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        started = time.monotonic()
        candidates: tuple[SearchCandidate, ...] = ()
        failure = refusal(configured=self.configured, query=query, max_results=max_results)
        if failure is None:
            rows, failure = await self._rows(query, max_results)
            candidates = self._candidates(rows, query, max_results)
        return search_response(self, query, started, candidates=candidates, failure=failure)

    async def _rows(self, query: str, max_results: int) -> tuple[list[Any], Reason | None]:
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        client = self._client or self._default_client()
        for attempt in range(self.retries + 1):
            try:
                rows = await asyncio.to_thread(
                    client.text, query, region=self.region, max_results=max_results
                )
                return (rows if isinstance(rows, list) else []), None
            except RatelimitException:
                log.info("duckduckgo rate-limited (attempt %d)", attempt + 1)
                if attempt < self.retries:
                    await asyncio.sleep(self.backoff_s * 2**attempt)
            except TimeoutException:
                return [], Reason.TIMEOUT
            except DDGSException as exc:
                log.warning("duckduckgo search failed: %s", type(exc).__name__)
                return [], Reason.PROVIDER_ERROR
        return [], Reason.RATE_LIMITED

    def _default_client(self) -> TextSearch:
        from ddgs import DDGS

        proxy = self.proxies.for_url("https", "duckduckgo.com")
        client: TextSearch = DDGS(timeout=self.timeout_s, proxy=proxy)
        return client

    def _candidates(
        self, rows: list[Any], query: str, max_results: int
    ) -> tuple[SearchCandidate, ...]:
        usable = [
            r
            for r in rows
            if isinstance(r, dict)
            and isinstance(r.get("href"), str)
            and r["href"].startswith(("http://", "https://"))
        ]
        return tuple(
            SearchCandidate(
                url=r["href"].strip(),
                title=" ".join(str(r.get("title") or "").split()),
                snippet=" ".join(str(r.get("body") or "").split()),
                rank=rank,
                provider=self.name,
                query=query,
            )
            for rank, r in enumerate(usable[:max_results], start=1)
        )
