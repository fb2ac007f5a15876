"""Safe, parallel fetching of web pages into :class:`RawPage` values (docs/architecture.md §2, §7).

Every hop of every request goes through :class:`~quotebound.acquisition.netguard.NetGuard`
and the request is sent to the address it vetted (Host header and TLS SNI keep the name,
so certificates are still verified against it). Bodies are streamed under caps on bytes
received and on bytes after decompression (:mod:`quotebound.acquisition.decompression`); each
request has a timeout and the fetcher as a whole a run budget, both from its
:class:`~quotebound.acquisition.fetchpolicy.FetchPolicy`.
Failures are :class:`FetchError` with a reason code and a detail free of secrets and page text.
A conditional request (:meth:`Fetcher.fetch_conditional`, for the page cache) goes the same way;
each page comes with the headers that say how long it may be reused.

Redirect loops and redirect chains longer than ``max_redirects`` fail with ``http_status``
(detail "redirect loop" / "too many redirects"): the registry has no redirect code, and a
redirect is an HTTP status the fetcher refuses to follow further.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Self
from urllib.parse import urldefrag

import httpx

from quotebound.acquisition.decompression import BodyDecoder
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.freshness import CacheHeaders, http_date_seconds
from quotebound.acquisition.neterrors import network_reason
from quotebound.acquisition.netguard import Resolver, Target, Vetted, safe_url
from quotebound.acquisition.parallel import FetchFailure, run_until
from quotebound.acquisition.proxies import ProxyCooldown
from quotebound.acquisition.robots import RobotsCache
from quotebound.acquisition.sniffing import refuse_binary
from quotebound.errors import FetchError, Reason
from quotebound.storage.rawstore import RawPage
from quotebound.text.documents import decode_document, media_type
from quotebound.text.parsing import parse_page
from quotebound.tiers import tier_for_url

__all__ = ["Fetched", "Fetcher"]

ROBOTS_MAX_BYTES = 512 * 1024
"""robots.txt larger than this is treated as unreachable (which disallows everything)."""
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class _Reply:
    """One final (non-redirect) HTTP response, body read unless the status is an error."""

    final_url: str
    status: int
    content_type: str
    body: bytes
    retry_after: str | None
    cache: CacheHeaders


@dataclass(frozen=True)
class Fetched:
    """A page with the headers that say how long it may be reused; ``page`` is None when a
    conditional request was answered 304 Not Modified."""

    page: RawPage | None
    cache: CacheHeaders


class Fetcher:
    """Fetches URLs under a :class:`FetchPolicy`; use as an async context manager."""

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
    ) -> None:
        self.policy = policy or FetchPolicy()
        self._guard = self.policy.guard(resolver)
        self._robots = RobotsCache(self._load_robots, user_agent=self.policy.user_agent)
        self._clients: dict[str, httpx.AsyncClient] = {}
        self._cooldown = ProxyCooldown()
        self._deadline = time.monotonic() + self.policy.run_budget_s

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every connection and stop robots.txt loads still running."""
        await self._robots.aclose()
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def fetch(self, url: str) -> RawPage:
        """Fetch one page; raises FetchError with a reason code."""
        fetched = await self.fetch_conditional(url, {})
        assert fetched.page is not None  # only a conditional request is answered 304
        return fetched.page

    async def fetch_conditional(self, url: str, conditions: Mapping[str, str]) -> Fetched:
        """Fetch one page sending ``conditions`` (``If-None-Match``, ``If-Modified-Since``),
        under the same guard, robots rules and budgets as :meth:`fetch`."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise FetchError(
                Reason.TIMEOUT,
                f"run budget of {self.policy.run_budget_s}s is spent: {safe_url(url)}",
            )
        try:
            async with asyncio.timeout(remaining):
                reply = await self._with_retries(url, conditions)
        except TimeoutError as exc:
            raise FetchError(
                Reason.TIMEOUT,
                f"run budget of {self.policy.run_budget_s}s ran out while fetching {safe_url(url)}",
            ) from exc
        if reply.status == 304 and conditions:
            return Fetched(None, reply.cache)
        if not 200 <= reply.status < 300:
            raise FetchError(
                Reason.HTTP_STATUS, f"HTTP {reply.status} from {safe_url(reply.final_url)}"
            )
        # Decoding a PDF or parsing a large page is CPU work: keep it off the event loop.
        return Fetched(await asyncio.to_thread(self._page, url, reply), reply.cache)

    async def admit(self, url: str) -> None:
        """Raise FetchError when the policy would now refuse to fetch ``url`` (its guard, and
        robots.txt when respected), without fetching it."""
        vetted = await self._guard.vet(urldefrag(url).url)
        if self.policy.respect_robots:
            await self._check_robots(vetted.target)

    async def fetch_many(self, urls: Sequence[str]) -> list[RawPage | FetchFailure]:
        """Fetch all ``urls`` concurrently (at most ``policy.concurrency`` at once), in order."""
        done = await run_until(urls, len(urls), self.fetch, concurrency=self.policy.concurrency)
        return [result for _, _, result in sorted(done, key=lambda d: d[0])]

    async def _with_retries(self, url: str, conditions: Mapping[str, str]) -> _Reply:
        attempt = 0
        while True:
            try:
                async with asyncio.timeout(self.policy.timeout_s):
                    reply = await self._follow(
                        url, document=True, max_bytes=self.policy.max_bytes, conditions=conditions
                    )
            except TimeoutError as exc:
                raise FetchError(
                    Reason.TIMEOUT,
                    f"no complete response within {self.policy.timeout_s}s: {safe_url(url)}",
                ) from exc
            if reply.status not in _RETRY_STATUSES or attempt >= self.policy.max_retries:
                return reply
            await asyncio.sleep(self._retry_delay(reply, attempt))
            attempt += 1

    def _retry_delay(self, reply: _Reply, attempt: int) -> float:
        asked = _retry_after_seconds(reply.retry_after)
        if asked is None:
            return self.policy.backoff_s * 2**attempt
        if asked > self.policy.timeout_s:
            raise FetchError(
                Reason.HTTP_STATUS,
                f"HTTP {reply.status} from {safe_url(reply.final_url)}: "
                f"Retry-After {asked:.0f}s is longer than the {self.policy.timeout_s}s timeout",
            )
        return asked

    async def _follow(
        self, url: str, *, document: bool, max_bytes: int, conditions: Mapping[str, str]
    ) -> _Reply:
        """GET ``url``, following redirects by hand so every hop is vetted again."""
        current = urldefrag(url).url
        seen = {current}
        for _ in range(self.policy.max_redirects + 1):
            vetted = await self._guard.vet(current)
            if document and self.policy.respect_robots:
                await self._check_robots(vetted.target)
            reply, location = await self._exchange(vetted, document, max_bytes, conditions)
            if location is None:
                return reply
            nxt = _next_hop(current, location)
            if nxt in seen:
                raise FetchError(Reason.HTTP_STATUS, f"redirect loop at {safe_url(nxt)}")
            seen.add(nxt)
            current = nxt
        raise FetchError(
            Reason.HTTP_STATUS,
            f"too many redirects (more than {self.policy.max_redirects}) from {safe_url(url)}",
        )

    async def _check_robots(self, target: Target) -> None:
        refusal = await self._robots.refusal(target.origin, target.url)
        if refusal is not None:
            raise FetchError(Reason.ROBOTS, f"{refusal}: {safe_url(target.url)}")

    async def _load_robots(self, origin: str) -> str | None:
        """robots.txt of ``origin`` through the guarded path: its text, "" when the site has
        none (a 4xx), None when it is unreachable (a 5xx, a network failure, a timeout)."""
        try:
            async with asyncio.timeout(self.policy.timeout_s):
                reply = await self._follow(
                    f"{origin}/robots.txt",
                    document=False,
                    max_bytes=ROBOTS_MAX_BYTES,
                    conditions={},
                )
        except (FetchError, TimeoutError):
            return None
        if 400 <= reply.status < 500:
            return ""
        if not 200 <= reply.status < 300:
            return None
        return reply.body.decode("utf-8", errors="replace")

    async def _exchange(
        self, vetted: Vetted, document: bool, max_bytes: int, conditions: Mapping[str, str]
    ) -> tuple[_Reply, str | None]:
        """One request to the vetted address (or, through a proxy, to the vetted name): the
        reply, or the redirect location."""
        target = vetted.target
        proxy = self.policy.proxies.for_url(target.scheme, target.host)
        headers = {
            "User-Agent": self.policy.user_agent,
            "Accept": ", ".join(sorted(self.policy.allowed_types)) + ", */*;q=0.1",
            "Accept-Encoding": "gzip, deflate",
            **conditions,
        }
        if proxy is None:
            client = self._client(target.host)
            headers["Host"] = target.host_header
            sni = {"sni_hostname": target.host} if target.scheme == "https" else {}
            request = client.build_request(
                "GET", vetted.connect_url, headers=headers, extensions=sni
            )
        else:  # the proxy connects by name: the guard vetted it, the proxy resolves it again
            if self._cooldown.cooling(proxy):
                shown = self.policy.proxies.shown(proxy)
                raise FetchError(Reason.PROXY_ERROR, f"{shown} is cooling down after failures")
            client = self._client(target.host, proxy=proxy)
            request = client.build_request("GET", target.url, headers=headers)
        try:
            response = await client.send(request, stream=True)
            try:
                reply = await self._read_reply(target, response, document, max_bytes)
            finally:
                await response.aclose()
        except httpx.InvalidURL as exc:
            raise FetchError(Reason.INVALID_URL, f"malformed URL {safe_url(target.url)}") from exc
        except (httpx.ProxyError, httpx.ConnectError) as exc:
            if proxy is None:
                raise _network_error(exc, target) from exc
            self._cooldown.failed(proxy)
            shown = self.policy.proxies.shown(proxy)
            raise FetchError(
                Reason.PROXY_ERROR,
                f"{shown} failed ({type(exc).__name__}) for {safe_url(target.url)}",
            ) from None
        except httpx.HTTPError as exc:
            raise _network_error(exc, target) from exc
        if proxy is not None:
            self._cooldown.worked(proxy)
        return reply

    async def _read_reply(
        self, target: Target, response: httpx.Response, document: bool, max_bytes: int
    ) -> tuple[_Reply, str | None]:
        status = response.status_code
        content_type = response.headers.get("content-type", "")
        retry_after = response.headers.get("retry-after")
        cache = CacheHeaders.of(response.headers)
        head = _Reply(target.url, status, content_type, b"", retry_after, cache)
        location = response.headers.get("location")
        if status in _REDIRECTS and location:
            return head, location
        if not 200 <= status < 300:
            return head, None
        if document and media_type(content_type) not in self.policy.allowed_types:
            raise FetchError(
                Reason.UNSUPPORTED_TYPE,
                f"content type {media_type(content_type) or 'missing'!r} is not accepted: "
                f"{safe_url(target.url)}",
            )
        body = await self._read_body(target, response, max_bytes)
        return _Reply(target.url, status, content_type, body, retry_after, cache), None

    async def _read_body(self, target: Target, response: httpx.Response, max_bytes: int) -> bytes:
        where = safe_url(target.url)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise FetchError(
                Reason.TOO_LARGE, f"Content-Length {declared} exceeds {max_bytes} bytes: {where}"
            )
        decoder = BodyDecoder(
            response.headers.get("content-encoding", ""),
            limit=self.policy.max_decompressed_bytes,
            where=where,
        )
        body = bytearray()
        received = 0
        async for chunk in response.aiter_raw():
            received += len(chunk)
            if received > max_bytes:
                raise FetchError(Reason.TOO_LARGE, f"body exceeds {max_bytes} bytes: {where}")
            body += decoder.feed(chunk)
        body += decoder.flush()
        return bytes(body)

    def _client(self, host: str, *, proxy: str | None = None) -> httpx.AsyncClient:
        """One client per host name (and proxy), so a TLS connection verified for one name is
        never reused for another name on the same address."""
        key = host if proxy is None else f"{host} via {proxy}"
        client = self._clients.get(key)
        if client is None:
            limit = self.policy.concurrency
            client = httpx.AsyncClient(
                follow_redirects=False,
                trust_env=False,  # only the proxy mode chooses a proxy
                proxy=proxy,
                timeout=httpx.Timeout(self.policy.timeout_s),
                limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit),
            )
            self._clients[key] = client
        return client

    def _page(self, url: str, reply: _Reply) -> RawPage:
        mt = media_type(reply.content_type)
        refuse_binary(reply.body, mt, reply.final_url)
        doc = decode_document(reply.body, reply.content_type)
        title, author, published = "", None, None
        if doc.html is not None:
            parsed = parse_page(doc.html, content_type=doc.media_type)
            title, author, published = parsed.title or "", parsed.author, parsed.published
        return RawPage(
            url=url,
            final_url=reply.final_url,
            status=reply.status,
            content_type=doc.media_type,
            encoding=doc.encoding,
            sha256=RawPage.body_sha256(reply.body),
            title=title,
            trust_tier=int(tier_for_url(reply.final_url)),
            provider="http",
            html=doc.html,
            text=doc.text,
            pages=doc.pages,
            author=author,
            published=published,
        )


def _next_hop(current: str, location: str) -> str:
    """The absolute URL a Location header points to, percent-encoded, without fragment."""
    try:
        joined = httpx.URL(current).join(location)
    except httpx.InvalidURL as exc:
        raise FetchError(
            Reason.INVALID_URL, f"malformed redirect location from {safe_url(current)}"
        ) from exc
    return str(joined.copy_with(fragment=None))


def _retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks to wait (delta-seconds or an HTTP date), or None."""
    if value and value.strip().isdigit():
        return float(value)
    when = http_date_seconds(value)
    return None if when is None else max(0.0, when - time.time())


def _network_error(exc: httpx.HTTPError, target: Target) -> FetchError:
    where = safe_url(target.url)
    reason = network_reason(exc)
    details = {
        Reason.TIMEOUT: f"{type(exc).__name__} at {where}",
        Reason.TLS: f"TLS handshake or certificate check failed: {where}",
        Reason.INVALID_URL: f"unsupported protocol: {where}",
    }
    if isinstance(exc, httpx.ConnectError):
        fallback = f"cannot connect to {target.host_header}: {where}"
    else:
        fallback = f"{type(exc).__name__} from {where}"
    return FetchError(reason, details.get(reason, fallback))
