"""What an HTTP failure was, as a reason code: one reading for the fetcher and the search APIs."""

from __future__ import annotations

import ssl

import httpx

from quotebound.errors import Reason

__all__ = ["network_reason"]

_DNS_MESSAGES = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "getaddrinfo",
)


def network_reason(exc: httpx.HTTPError) -> Reason:
    """``timeout``, ``tls`` (a handshake or certificate failure anywhere in the cause chain),
    ``invalid_url`` (an unsupported protocol), ``dns`` or ``connection``."""
    if isinstance(exc, httpx.TimeoutException):
        return Reason.TIMEOUT
    if isinstance(exc, httpx.UnsupportedProtocol):
        return Reason.INVALID_URL
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            return Reason.TLS
        if any(m in str(cause).lower() for m in _DNS_MESSAGES):
            return Reason.DNS
        cause = cause.__cause__ or cause.__context__
    return Reason.CONNECTION
