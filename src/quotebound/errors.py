"""Reason codes and the exception tree.

Every failure that a user can see carries one reason code from :class:`Reason`, the single
registry of codes (docs/architecture.md §7). Exceptions are grouped by family so callers can catch
``FetchError`` or ``ConfigError`` without knowing the details.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "BundleError",
    "ConfigError",
    "FetchError",
    "QuoteboundError",
    "Reason",
    "SearchError",
    "StoreError",
]


class Reason(StrEnum):
    """Every reason code quotebound reports, in gates, fetch failures, provider runs and audits."""

    PROVIDER_UNCONFIGURED = "provider_unconfigured"
    PROVIDER_ERROR = "provider_error"
    EMPTY_RESULTS = "empty_results"
    INVALID_URL = "invalid_url"
    BLOCKED_SSRF = "blocked_ssrf"
    BLOCKED_PORT = "blocked_port"
    ROBOTS = "robots"
    DNS = "dns"
    TLS = "tls"
    CONNECTION = "connection"
    TIMEOUT = "timeout"
    HTTP_STATUS = "http_status"
    PROXY_ERROR = "proxy_error"
    """The configured proxy refused, failed or is cooling down after failing."""
    RATE_LIMITED = "rate_limited"
    """A search API still refused (429/503, or its client's rate-limit error) after retries."""
    TOO_LARGE = "too_large"
    UNSUPPORTED_TYPE = "unsupported_type"
    DUPLICATE = "duplicate"
    """The same content as a page already read under another address; not read twice."""
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"
    NO_NEW_EVIDENCE = "no_new_evidence"
    UNKNOWN_NAME = "unknown_name"
    """A run's stop reason when what is left of the question names code that no document of
    the corpora searched spells (``dict.sort_by_value``, ``MEDIUMBLOB``)."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    SUFFICIENT = "sufficient"
    """A run's stop reason when every part of the question has verified evidence."""
    ERROR = "error"
    """A run's stop reason when it could verify nothing (no store or thread)."""


class QuoteboundError(Exception):
    """Base class of every error quotebound raises on purpose."""


class ConfigError(QuoteboundError, ValueError):
    """A configuration value, command-line option or thread id breaks a rule."""


class BundleError(ConfigError):
    """A file given as an evidence bundle is not one quotebound can read (not a zip, no
    manifest, an unsafe entry name, too large), or a bundle cannot be built as asked."""


class StoreError(QuoteboundError):
    """The Store is missing, unreachable, or holds a value that is not a raw page."""


class _CodedError(QuoteboundError):
    """An error that carries a reason code and a safe, secret-free detail."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        self.reason = Reason(reason)
        self.detail = detail
        super().__init__(f"{self.reason.value}: {detail}" if detail else self.reason.value)


class FetchError(_CodedError):
    """A page could not be fetched; ``reason`` says why (``blocked_ssrf``, ``timeout``, ...)."""


class SearchError(_CodedError):
    """A search provider failed or is not configured."""
