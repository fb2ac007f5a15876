"""The limits and rules a :class:`~quotebound.acquisition.fetcher.Fetcher` works under.

:class:`FetchPolicy` holds the per-request timeout, the run budget, the caps on bytes received
and after decompression, redirects, ports, accepted media types, robots.txt and retries, and
refuses a policy whose limits cannot work (docs/architecture.md §7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quotebound.acquisition.netguard import NetGuard, Resolver
from quotebound.acquisition.proxies import ProxySettings
from quotebound.errors import ConfigError
from quotebound.text.documents import SUPPORTED_TYPES

__all__ = ["FetchPolicy"]


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
    proxies: ProxySettings = field(default_factory=ProxySettings)
    """Which proxy requests go through (:mod:`quotebound.acquisition.proxies`); none by default."""

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
