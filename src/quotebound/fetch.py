"""Safe, parallel fetching of web pages into :class:`RawPage` values (docs/architecture.md §2, §7).

Every hop of every request goes through :class:`~quotebound.netguard.NetGuard` and the request
is sent to the address it vetted (Host header and TLS SNI keep the name, so certificates are
still verified against it). Bodies are streamed under caps on bytes received and on bytes
after decompression; each request has a timeout and the fetcher as a whole a run budget.
Failures are :class:`FetchError` with a reason code and a detail free of secrets and page text.

Redirect loops and redirect chains longer than ``max_redirects`` fail with ``http_status``
(detail "redirect loop" / "too many redirects"): the registry has no redirect code, and a
redirect is an HTTP status the fetcher refuses to follow further.
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Self, TypeVar
from urllib.parse import urldefrag

import httpx

from quotebound.documents import PDF_TYPE, SUPPORTED_TYPES, decode_document, media_type
from quotebound.errors import ConfigError, FetchError, Reason
from quotebound.netguard import NetGuard, Resolver, Target, Vetted, safe_url
from quotebound.parsing import parse_page
from quotebound.rawstore import RawPage
from quotebound.robots import RobotsCache
from quotebound.tiers import DEFAULT_TIER_RULES, TierRules, tier_for_url

__all__ = ["FetchFailure", "FetchPolicy", "Fetcher", "Resolver", "fetch_until"]

T = TypeVar("T")

ROBOTS_MAX_BYTES = 512 * 1024
"""robots.txt larger than this is treated as unreachable (which disallows everything)."""
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_RETRY_STATUSES = frozenset({429, 503})
_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_BINARY_MAGIC = (
    b"\x89PNG",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"%PDF-",
    b"\x7fELF",
    b"wOFF",
    b"wOF2",
    b"OggS",
    b"ID3",
    b"\x00\x00\x01\x00",
)
_SNIFF_BYTES = 8192


@dataclass(frozen=True, kw_only=True)
class FetchPolicy:
    """The limits and rules one :class:`Fetcher` works under."""

    timeout_s: float = 10.0
    """Per request (connect and read, redirects included); also the longest Retry-After honoured."""
    run_budget_s: float = 60.0
    """Per Fetcher instance: after it, fetches fail with ``timeout`` at once."""
    max_bytes: int = 5_000_000
    """Bytes received on the wire; the body is streamed and dropped at the cap (``too_large``)."""
    max_decompressed_bytes: int = 20_000_000
    """Bytes after gzip/deflate decoding (gzip bombs stop here with ``too_large``)."""
    max_redirects: int = 5
    """Redirects followed per request; more fail with ``http_status``."""
    allowed_ports: frozenset[int] = frozenset({80, 443})
    """Ports that may be contacted."""
    allowed_types: frozenset[str] = SUPPORTED_TYPES
    """Media types accepted as documents; others fail with ``unsupported_type``."""
    respect_robots: bool = True
    """Honour robots.txt (fetched once per origin)."""
    user_agent: str = "quotebound/0.1 (research agent; verifies quotes)"
    """The User-Agent header, also the name matched against robots.txt groups."""
    max_retries: int = 2
    """Retries on 429 and 503."""
    backoff_s: float = 0.5
    """First retry delay, doubled for each further retry, unless Retry-After says otherwise."""
    concurrency: int = 16
    """Requests in flight at once in :meth:`Fetcher.fetch_many`."""
    allow_loopback_origins: frozenset[str] = field(default_factory=frozenset)
    """Exact origins (``http://127.0.0.1:8765``) exempt from the loopback and port rules: tests."""

    def guard(self, resolver: Resolver | None = None) -> NetGuard:
        """The SSRF guard for this policy's ports and loopback allow-list."""
        return NetGuard(
            allowed_ports=self.allowed_ports,
            allow_loopback_origins=self.allow_loopback_origins,
            resolver=resolver,
        )

    def __post_init__(self) -> None:
        positive = {
            "timeout_s": self.timeout_s,
            "run_budget_s": self.run_budget_s,
            "max_bytes": self.max_bytes,
            "max_decompressed_bytes": self.max_decompressed_bytes,
            "concurrency": self.concurrency,
        }
        for name, value in positive.items():
            if not value > 0:
                raise ConfigError(f"fetch policy {name} must be positive, got {value!r}")
        for name, count in (
            ("max_redirects", self.max_redirects),
            ("max_retries", self.max_retries),
        ):
            if count < 0:
                raise ConfigError(f"fetch policy {name} must be >= 0, got {count!r}")


@dataclass(frozen=True)
class FetchFailure:
    """A URL that could not be fetched, and why."""

    url: str
    """The URL as asked for."""
    reason: Reason
    """The reason code."""
    detail: str
    """A safe explanation: no secrets, no query strings, no page text."""


@dataclass(frozen=True)
class _Reply:
    """One final (non-redirect) HTTP response, body read unless the status is an error."""

    final_url: str
    status: int
    content_type: str
    body: bytes
    retry_after: str | None


class Fetcher:
    """Fetches URLs under a :class:`FetchPolicy`; use as an async context manager."""

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
        tier_rules: TierRules = DEFAULT_TIER_RULES,
    ) -> None:
        self.policy = policy or FetchPolicy()
        self._guard = self.policy.guard(resolver)
        self._tier_rules = tier_rules
        self._robots = RobotsCache(self._load_robots, user_agent=self.policy.user_agent)
        self._clients: dict[str, httpx.AsyncClient] = {}
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
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise FetchError(
                Reason.TIMEOUT,
                f"run budget of {self.policy.run_budget_s}s is spent: {safe_url(url)}",
            )
        try:
            async with asyncio.timeout(remaining):
                reply = await self._with_retries(url)
        except TimeoutError as exc:
            raise FetchError(
                Reason.TIMEOUT,
                f"run budget of {self.policy.run_budget_s}s ran out while fetching {safe_url(url)}",
            ) from exc
        if not 200 <= reply.status < 300:
            raise FetchError(
                Reason.HTTP_STATUS, f"HTTP {reply.status} from {safe_url(reply.final_url)}"
            )
        # Decoding a PDF or parsing a large page is CPU work: keep it off the event loop.
        return await asyncio.to_thread(self._page, url, reply)

    async def fetch_many(self, urls: Sequence[str]) -> list[RawPage | FetchFailure]:
        """Fetch all ``urls`` concurrently (at most ``policy.concurrency`` at once), in order."""
        done = await _run_until(
            urls, len(urls), self.fetch, concurrency=self.policy.concurrency, url_of=str
        )
        return [result for _, _, result in sorted(done, key=lambda d: d[0])]

    async def _with_retries(self, url: str) -> _Reply:
        attempt = 0
        while True:
            try:
                async with asyncio.timeout(self.policy.timeout_s):
                    reply = await self._follow(url, document=True, max_bytes=self.policy.max_bytes)
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

    async def _follow(self, url: str, *, document: bool, max_bytes: int) -> _Reply:
        """GET ``url``, following redirects by hand so every hop is vetted again."""
        current = urldefrag(url).url
        seen = {current}
        for _ in range(self.policy.max_redirects + 1):
            vetted = await self._guard.vet(current)
            if document and self.policy.respect_robots:
                await self._check_robots(vetted.target)
            reply, location = await self._exchange(vetted, document=document, max_bytes=max_bytes)
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
                    f"{origin}/robots.txt", document=False, max_bytes=ROBOTS_MAX_BYTES
                )
        except (FetchError, TimeoutError):
            return None
        if 400 <= reply.status < 500:
            return ""
        if not 200 <= reply.status < 300:
            return None
        return reply.body.decode("utf-8", errors="replace")

    async def _exchange(
        self, vetted: Vetted, *, document: bool, max_bytes: int
    ) -> tuple[_Reply, str | None]:
        """One request to the vetted address: the reply, or the redirect location."""
        target = vetted.target
        client = self._client(target.host)
        headers = {
            "Host": target.host_header,
            "User-Agent": self.policy.user_agent,
            "Accept": ", ".join(sorted(self.policy.allowed_types)) + ", */*;q=0.1",
            "Accept-Encoding": "gzip, deflate",
        }
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        try:
            request = client.build_request(
                "GET", vetted.connect_url, headers=headers, extensions=extensions
            )
            response = await client.send(request, stream=True)
            try:
                return await self._read_reply(target, response, document, max_bytes)
            finally:
                await response.aclose()
        except httpx.InvalidURL as exc:
            raise FetchError(Reason.INVALID_URL, f"malformed URL {safe_url(target.url)}") from exc
        except httpx.HTTPError as exc:
            raise _network_error(exc, target) from exc

    async def _read_reply(
        self, target: Target, response: httpx.Response, document: bool, max_bytes: int
    ) -> tuple[_Reply, str | None]:
        status = response.status_code
        content_type = response.headers.get("content-type", "")
        head = _Reply(target.url, status, content_type, b"", response.headers.get("retry-after"))
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
        return _Reply(target.url, status, content_type, body, head.retry_after), None

    async def _read_body(self, target: Target, response: httpx.Response, max_bytes: int) -> bytes:
        where = safe_url(target.url)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise FetchError(
                Reason.TOO_LARGE, f"Content-Length {declared} exceeds {max_bytes} bytes: {where}"
            )
        decoder = _BodyDecoder(
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

    def _client(self, host: str) -> httpx.AsyncClient:
        """One client per host name, so a TLS connection verified for one name is never reused
        for another name on the same address."""
        client = self._clients.get(host)
        if client is None:
            limit = self.policy.concurrency
            client = httpx.AsyncClient(
                follow_redirects=False,
                trust_env=False,  # proxies would connect by name, not to the vetted address
                timeout=httpx.Timeout(self.policy.timeout_s),
                limits=httpx.Limits(max_connections=limit, max_keepalive_connections=limit),
            )
            self._clients[host] = client
        return client

    def _page(self, url: str, reply: _Reply) -> RawPage:
        mt = media_type(reply.content_type)
        _refuse_binary(reply.body, mt, reply.final_url)
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
            trust_tier=int(tier_for_url(reply.final_url, self._tier_rules)),
            provider="http",
            html=doc.html,
            text=doc.text,
            pages=doc.pages,
            author=author,
            published=published,
        )


class _Inflater:
    """One gzip or deflate layer, decoded incrementally with a cap on its output."""

    def __init__(self, coding: str, *, limit: int, where: str) -> None:
        self._coding = coding
        self._limit = limit
        self._where = where
        gzip = coding in ("gzip", "x-gzip")
        self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS if gzip else zlib.MAX_WBITS)
        self._raw_fallback = not gzip  # servers send "deflate" both zlib-wrapped and raw
        self._produced = 0

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        while data and not self._obj.eof:
            try:
                chunk = self._obj.decompress(data, self._limit - self._produced + 1)
            except zlib.error as exc:
                if not self._raw_fallback:
                    raise FetchError(
                        Reason.UNSUPPORTED_TYPE, f"body is not valid {self._coding}: {self._where}"
                    ) from exc
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                self._raw_fallback = False
                continue
            self._raw_fallback = False
            self._produced += len(chunk)
            if self._produced > self._limit:
                raise FetchError(
                    Reason.TOO_LARGE,
                    f"body inflates past {self._limit} bytes ({self._coding}): {self._where}",
                )
            out += chunk
            data = self._obj.unconsumed_tail
        return bytes(out)

    def flush(self) -> bytes:
        return self._obj.flush()


class _BodyDecoder:
    """Undoes Content-Encoding as bytes arrive, never holding more than the cap (gzip bombs)."""

    def __init__(self, content_encoding: str, *, limit: int, where: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",")]
        codings = [c for c in codings if c not in ("", "identity")]
        unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise FetchError(
                Reason.UNSUPPORTED_TYPE,
                f"content encoding {unknown[0]!r} is not supported: {where}",
            )
        self._layers = [_Inflater(c, limit=limit, where=where) for c in reversed(codings)]

    def feed(self, data: bytes) -> bytes:
        for layer in self._layers:
            data = layer.feed(data)
        return data

    def flush(self) -> bytes:
        data = b""
        for layer in self._layers:
            data = layer.feed(data) + layer.flush()
        return data


def _next_hop(current: str, location: str) -> str:
    """The absolute URL a Location header points to, percent-encoded, without fragment."""
    try:
        joined = httpx.URL(current).join(location)
    except httpx.InvalidURL as exc:
        raise FetchError(
            Reason.INVALID_URL, f"malformed redirect location from {safe_url(current)}"
        ) from exc
    return str(joined.copy_with(fragment=None))


def _refuse_binary(body: bytes, mt: str, url: str) -> None:
    """Refuse bodies whose bytes contradict their declared type (e.g. an image as text/html)."""
    head = body[:_SNIFF_BYTES]
    if mt == PDF_TYPE:
        if b"%PDF-" not in head[:1024]:
            raise FetchError(Reason.UNSUPPORTED_TYPE, f"body is not a PDF: {safe_url(url)}")
        return
    if head.startswith(_TEXT_BOMS):
        return
    if b"\x00" in head or head.startswith(_BINARY_MAGIC):
        raise FetchError(
            Reason.UNSUPPORTED_TYPE, f"binary content declared as {mt!r}: {safe_url(url)}"
        )


def _retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks to wait (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _network_error(exc: httpx.HTTPError, target: Target) -> FetchError:
    where = safe_url(target.url)
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(Reason.TIMEOUT, f"{type(exc).__name__} at {where}")
    if _caused_by_tls(exc):
        return FetchError(Reason.TLS, f"TLS handshake or certificate check failed: {where}")
    if isinstance(exc, httpx.UnsupportedProtocol):
        return FetchError(Reason.INVALID_URL, f"unsupported protocol: {where}")
    if isinstance(exc, httpx.ConnectError):
        return FetchError(Reason.CONNECTION, f"cannot connect to {target.host_header}: {where}")
    return FetchError(Reason.CONNECTION, f"{type(exc).__name__} from {where}")


def _caused_by_tls(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _item_url(item: object) -> str:
    """The URL an item of :func:`fetch_until` stands for, for its FetchFailure."""
    if isinstance(item, Mapping) and "url" in item:
        return str(item["url"])
    return str(getattr(item, "url", item))


async def fetch_until(
    items: Sequence[T],
    want: int,
    fetch_one: Callable[[T], Awaitable[RawPage]],
    *,
    concurrency: int,
    url_of: Callable[[T], str] = _item_url,
) -> tuple[list[tuple[T, RawPage]], list[tuple[T, FetchFailure]]]:
    """Fetch the first ``want`` items concurrently, replacing each failure by the next item.

    A dead link is replaced by the next candidate while items remain. Which items are fetched
    depends only on which fail, never on timing, and both lists are in input order.
    ``fetch_one`` raising FetchError gives a FetchFailure (its URL from ``url_of``).
    """
    done = await _run_until(items, want, fetch_one, concurrency=concurrency, url_of=url_of)
    done.sort(key=lambda d: d[0])
    pages = [(item, r) for _, item, r in done if isinstance(r, RawPage)]
    failures = [(item, r) for _, item, r in done if isinstance(r, FetchFailure)]
    return pages, failures


async def _run_until(
    items: Sequence[T],
    want: int,
    fetch_one: Callable[[T], Awaitable[RawPage]],
    *,
    concurrency: int,
    url_of: Callable[[T], str],
) -> list[tuple[int, T, RawPage | FetchFailure]]:
    """Results (index, item, page or failure) of the shortest prefix of ``items`` that holds
    ``want`` pages (or all items), at most ``concurrency`` in flight."""
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency!r}")

    async def attempt(item: T) -> RawPage | FetchFailure:
        try:
            return await fetch_one(item)
        except FetchError as exc:
            return FetchFailure(url_of(item), exc.reason, exc.detail)

    results: list[tuple[int, T, RawPage | FetchFailure]] = []
    running: dict[asyncio.Task[RawPage | FetchFailure], int] = {}
    successes = 0
    next_index = 0
    try:
        while True:
            while (
                next_index < len(items)
                and len(running) < concurrency
                and successes + len(running) < want
            ):
                running[asyncio.ensure_future(attempt(items[next_index]))] = next_index
                next_index += 1
            if not running:
                return results
            finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                index = running.pop(task)
                result = task.result()
                successes += isinstance(result, RawPage)
                results.append((index, items[index], result))
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
