"""The Tavily web search provider, through tavily-python's async client.

Without an API key the provider reports ``provider_unconfigured`` and makes no request (the
client would otherwise fall back to its keyless mode). Rate limits (429) and unavailability
(503) are retried a bounded number of times with exponential backoff; every other failure is
``provider_error``. The key never appears in runs, logs or errors.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import TYPE_CHECKING, Any, Literal

import httpx

from quotebound.acquisition.providers import (
    SearchCandidate,
    SearchResponse,
    refusal,
    search_response,
)
from quotebound.acquisition.proxies import ProxySettings
from quotebound.errors import Reason

if TYPE_CHECKING:
    from tavily import AsyncTavilyClient

__all__ = ["DEFAULT_TAVILY_URL", "MAX_RESULTS", "TavilyProvider"]

DEFAULT_TAVILY_URL = "https://api.tavily.com"
_RETRY_STATUSES = frozenset({429, 503})
MAX_RESULTS = 20
"""The most results Tavily returns for one search; larger requests are clamped."""

log = logging.getLogger(__name__)


class _Retryable(Exception):
    """A 429/503 answer: worth another attempt after a pause."""


class TavilyProvider:
    """Web (``general``) or ``news`` search on Tavily."""

    name = "tavily"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        topic: Literal["general", "news"] = "general",
        include_raw_content: bool = False,
        api_base_url: str | None = None,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        timeout_s: float = 20.0,
        proxies: ProxySettings | None = None,
    ) -> None:
        if topic not in ("general", "news"):
            raise ValueError(f"tavily topic must be 'general' or 'news', got {topic!r}")
        if max_retries < 0 or backoff_s < 0 or timeout_s <= 0:
            raise ValueError(
                "tavily needs max_retries >= 0, backoff_s >= 0, timeout_s > 0, got "
                f"{max_retries}, {backoff_s}, {timeout_s}"
            )
        self._api_key = api_key if api_key is not None else os.environ.get("TAVILY_API_KEY")
        self.topic = topic
        self.kind = "news" if topic == "news" else "web"
        self.include_raw_content = include_raw_content
        self.api_base_url = (api_base_url or DEFAULT_TAVILY_URL).rstrip("/")
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.proxies = proxies or ProxySettings()

    @property
    def endpoint(self) -> str:
        """Where it asks (no key)."""
        return f"{self.api_base_url}/search"

    @property
    def configured(self) -> bool:
        """Whether an API key is available."""
        return bool(self._api_key and self._api_key.strip())

    def __repr__(self) -> str:  # never show the key
        return f"TavilyProvider(topic={self.topic!r}, api_base_url={self.api_base_url!r})"

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        """Search Tavily; failures come back as the run's reason, never as exceptions."""
        started = time.monotonic()
        failure = refusal(configured=self.configured, query=query, max_results=max_results)
        if failure is None:
            answer, failure = await self._search_with_retries(query, max_results)
            if answer is not None:
                return search_response(
                    self, query, started, candidates=self._candidates(answer, query, max_results)
                )
        return search_response(self, query, started, failure=failure)

    async def _search_with_retries(
        self, query: str, max_results: int
    ) -> tuple[dict[str, Any] | None, Reason | None]:
        # tavily-python (10 MB) is imported by the runs that search Tavily, not by every run.
        from tavily import AsyncTavilyClient
        from tavily.errors import BadRequestError, ForbiddenError, InvalidAPIKeyError
        from tavily.errors import TimeoutError as TavilyTimeoutError

        base = httpx.URL(self.api_base_url)
        proxy = self.proxies.for_url(base.scheme, base.host)
        # Our own HTTP client: only the proxy mode chooses a proxy, not the environment.
        async with (
            httpx.AsyncClient(trust_env=False, proxy=proxy) as http,
            AsyncTavilyClient(
                api_key=self._api_key, api_base_url=self.api_base_url, client=http
            ) as c,
        ):
            for attempt in range(self.max_retries + 1):
                try:
                    return await self._search_once(c, query, max_results), None
                except _Retryable as exc:
                    log.info("tavily search attempt %d: %s", attempt + 1, exc)
                    if attempt < self.max_retries:
                        await asyncio.sleep(self.backoff_s * 2**attempt)
                except (
                    InvalidAPIKeyError,
                    ForbiddenError,
                    BadRequestError,
                    TavilyTimeoutError,
                    httpx.HTTPError,
                    ValueError,  # a body that is not JSON
                ) as exc:
                    log.warning("tavily search failed: %s", _describe(exc))
                    return None, Reason.PROVIDER_ERROR
        log.warning("tavily search failed: still rate-limited or unavailable after retries")
        return None, Reason.PROVIDER_ERROR

    async def _search_once(
        self, client: AsyncTavilyClient, query: str, max_results: int
    ) -> dict[str, Any]:
        from tavily.errors import UsageLimitExceededError

        options: dict[str, Any] = {
            "topic": self.topic,
            "max_results": min(max_results, MAX_RESULTS),
        }
        if self.include_raw_content:
            options["include_raw_content"] = "markdown"
        try:
            answer = await client.search(query, timeout=self.timeout_s, **options)
        except UsageLimitExceededError as exc:
            raise _Retryable("HTTP 429") from exc
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code in _RETRY_STATUSES:
                raise _Retryable(f"HTTP {exc.response.status_code}") from exc
            raise
        if not isinstance(answer, dict):
            raise ValueError(f"tavily answered a {type(answer).__name__}, not a JSON object")
        return answer

    def _candidates(
        self, answer: dict[str, Any], query: str, max_results: int
    ) -> tuple[SearchCandidate, ...]:
        results = answer.get("results")
        rows = [r for r in results if _usable(r)] if isinstance(results, list) else []
        return tuple(
            SearchCandidate(
                url=r["url"].strip(),
                title=_text(r.get("title")),
                snippet=_text(r.get("content")),
                rank=rank,
                provider=self.name,
                query=query,
                raw_content=_raw(r.get("raw_content")) if self.include_raw_content else None,
            )
            for rank, r in enumerate(rows[:max_results], start=1)
        )


def _usable(row: object) -> bool:
    return isinstance(row, dict) and isinstance(row.get("url"), str) and bool(row["url"].strip())


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _raw(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _describe(exc: Exception) -> str:
    """A safe one-line description: the error class and HTTP status, never bodies or headers."""
    if isinstance(exc, httpx.HTTPStatusError):
        return f"{type(exc).__name__} (HTTP {exc.response.status_code})"
    return type(exc).__name__
