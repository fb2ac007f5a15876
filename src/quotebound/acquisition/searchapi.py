"""One GET of a search API's JSON, with bounded retries: what every HTTP search provider shares.

A search API's endpoint is chosen by whoever runs quotebound (a SearXNG on the intranet, say),
never by a page, so it is not subject to the fetcher's network guard. Answers 429 and 503 are
retried after their ``Retry-After`` (capped) or an exponential backoff, at most ``retries``
times (the provider ladder cuts an attempt off at the run's deadline); every other failure ends
the attempt with a reason code: ``rate_limited`` (still 429/503 after the retries), ``dns``,
``tls``, ``connection``, ``timeout``, ``http_status`` (any other non-200) or
``provider_error`` (a body that is not JSON). Keys travel in headers or parameters and never
appear in a reason, a log line or an endpoint shown to a user.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from quotebound.acquisition.neterrors import network_reason
from quotebound.acquisition.providers import (
    SearchCandidate,
    SearchResponse,
    refusal,
    search_response,
)
from quotebound.acquisition.proxies import ProxySettings
from quotebound.errors import Reason

__all__ = ["Hit", "JsonAnswer", "JsonSearchProvider", "Request", "check_retries", "get_json"]

log = logging.getLogger(__name__)

_RETRY_STATUSES = frozenset({429, 503})
_MAX_WAIT_S = 5.0
"""The longest pause before a retry, whatever ``Retry-After`` asks."""
_MAX_BODY_BYTES = 8_000_000
"""A search answer larger than this is not a search answer."""


@dataclass(frozen=True)
class JsonAnswer:
    """The parsed JSON of a 200 answer, or None and why not."""

    data: Any = None
    failure: Reason | None = None


async def get_json(
    url: str,
    *,
    params: Mapping[str, str | int],
    headers: Mapping[str, str] | None = None,
    timeout_s: float = 15.0,
    retries: int = 2,
    backoff_s: float = 0.5,
    client: httpx.AsyncClient | None = None,
    proxy: str | None = None,
) -> JsonAnswer:
    """GET ``url`` with ``params``; the JSON body of a 200, or the reason there is none.

    ``client`` lets tests and callers share a connection pool; ``proxy`` is the proxy
    URL to go through (:mod:`quotebound.acquisition.proxies`), None to connect directly.
    """
    own = client is None
    # Only the proxy mode chooses a proxy: the environment's variables are not read here.
    http = client or httpx.AsyncClient(follow_redirects=False, trust_env=False, proxy=proxy)
    try:
        for attempt in range(retries + 1):
            try:
                reply = await http.get(
                    url, params=dict(params), headers=dict(headers or {}), timeout=timeout_s
                )
            except httpx.HTTPError as exc:
                return JsonAnswer(failure=network_reason(exc))
            if reply.status_code in _RETRY_STATUSES:
                wait = _retry_after(reply.headers.get("retry-after"), backoff_s * 2**attempt)
                log.info("%s answered %d (attempt %d)", _host(url), reply.status_code, attempt + 1)
            elif reply.status_code != 200:
                log.warning("%s answered HTTP %d", _host(url), reply.status_code)
                return JsonAnswer(failure=Reason.HTTP_STATUS)
            else:
                return _parsed(reply, url)
            if attempt == retries:
                break
            await asyncio.sleep(wait)
        log.warning("%s still rate-limited or unavailable after retries", _host(url))
        return JsonAnswer(failure=Reason.RATE_LIMITED)
    finally:
        if own:
            await http.aclose()


def check_retries(name: str, *, retries: int, backoff_s: float, timeout_s: float) -> None:
    """ValueError unless a provider's retry settings make sense."""
    if retries < 0 or backoff_s < 0 or timeout_s <= 0:
        raise ValueError(
            f"{name} needs retries >= 0, backoff_s >= 0, timeout_s > 0, got "
            f"{retries}, {backoff_s}, {timeout_s}"
        )


@dataclass(frozen=True)
class Request:
    """One search API call: where, with which parameters and headers (keys go here)."""

    url: str
    params: Mapping[str, str | int]
    headers: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Hit:
    """One result as an API gave it."""

    url: str
    title: str = ""
    snippet: str = ""


class JsonSearchProvider(ABC):
    """A search provider behind a JSON API: subclasses say how to ask (:meth:`request`) and
    how to read the answer (:meth:`hits`); asking, retrying and recording are done here.

    ``proxies`` says which proxy its requests go through (none by default).
    ``search`` never raises for the provider's failures: an unconfigured provider (see
    :attr:`configured`) makes no request and reports ``provider_unconfigured``; a failed
    request reports its reason; an answer of an unexpected shape is ``provider_error``.
    """

    name = "search"
    kind = "web"

    def __init__(
        self,
        *,
        timeout_s: float = 15.0,
        retries: int = 2,
        backoff_s: float = 0.5,
        client: httpx.AsyncClient | None = None,
        proxies: ProxySettings | None = None,
    ) -> None:
        check_retries(self.name, retries=retries, backoff_s=backoff_s, timeout_s=timeout_s)
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._client = client
        self.proxies = proxies or ProxySettings()

    @property
    def configured(self) -> bool:
        """Whether everything the provider needs (a key, an endpoint) is set."""
        return True

    @property
    @abstractmethod
    def endpoint(self) -> str:
        """Where the provider asks, for runs and listings: no key, no credentials, no query."""

    @abstractmethod
    def request(self, query: str, max_results: int) -> Request:
        """The call that asks for ``max_results`` results for ``query``."""

    @abstractmethod
    def hits(self, data: Any) -> list[Hit]:
        """The results in ``data``, in the API's order; ValueError when it is not the API's
        answer at all."""

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        started = time.monotonic()
        candidates: tuple[SearchCandidate, ...] = ()
        failure = refusal(configured=self.configured, query=query, max_results=max_results)
        if failure is None:
            ask = self.request(query, max_results)
            target = httpx.URL(ask.url)
            answer = await get_json(
                ask.url,
                params=ask.params,
                headers=ask.headers,
                timeout_s=self.timeout_s,
                retries=self.retries,
                backoff_s=self.backoff_s,
                client=self._client,
                proxy=self.proxies.for_url(target.scheme, target.host),
            )
            failure = answer.failure
            if failure is None:
                try:
                    candidates = self._candidates(self.hits(answer.data), query, max_results)
                except (ValueError, TypeError, KeyError, AttributeError):
                    log.warning("%s answered JSON of an unexpected shape", self.name)
                    failure = Reason.PROVIDER_ERROR
        return search_response(self, query, started, candidates=candidates, failure=failure)

    def _candidates(
        self, hits: list[Hit], query: str, max_results: int
    ) -> tuple[SearchCandidate, ...]:
        usable = [h for h in hits if h.url.startswith(("http://", "https://"))]
        return tuple(
            SearchCandidate(
                url=h.url.strip(),
                title=" ".join(h.title.split()),
                snippet=" ".join(h.snippet.split()),
                rank=rank,
                provider=self.name,
                query=query,
            )
            for rank, h in enumerate(usable[:max_results], start=1)
        )


def _parsed(reply: httpx.Response, url: str) -> JsonAnswer:
    if len(reply.content) > _MAX_BODY_BYTES:
        log.warning("%s answered %d bytes; not read", _host(url), len(reply.content))
        return JsonAnswer(failure=Reason.TOO_LARGE)
    try:
        return JsonAnswer(data=json.loads(reply.content))
    except (ValueError, RecursionError):
        log.warning("%s answered a body that is not JSON", _host(url))
        return JsonAnswer(failure=Reason.PROVIDER_ERROR)


def _retry_after(value: str | None, default: float) -> float:
    """Seconds to wait: ``Retry-After`` in seconds or as an HTTP date, else ``default``; at
    most ``_MAX_WAIT_S``."""
    seconds = default
    if value:
        try:
            seconds = float(value)
        except ValueError:
            try:
                seconds = parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError, IndexError, OverflowError):
                seconds = default
    return min(max(seconds, 0.0), _MAX_WAIT_S)


def _host(url: str) -> str:
    return httpx.URL(url).host or "the search API"
