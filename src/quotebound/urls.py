"""Canonical URLs and the source ids derived from them (docs/architecture.md §2)."""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["canonical_url", "source_id"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PARAMS = frozenset({"fbclid", "gclid", "dclid", "msclkid", "mc_eid"})


def canonical_url(url: str) -> str:
    """Normalize ``url`` so that the same page found twice de-duplicates.

    Lower-cases scheme and host, drops the default port and the fragment, removes ``utm_*``
    and click-id parameters, sorts the remaining query parameters, gives an empty path "/",
    and never keeps credentials. Never raises: a URL too malformed to split (a bad IPv6
    literal, a port out of range) is its own canonical form, and fetch refuses it later.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    query = sorted(
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith("utm_") and k.lower() not in _TRACKING_PARAMS
    )
    path = parts.path or "/"
    return urlunsplit((scheme, netloc, path, urlencode(query), ""))


def source_id(url: str) -> str:
    """The Store key of a page: the first 16 hex digits of sha256 of its canonical URL."""
    return hashlib.sha256(canonical_url(url).encode("utf-8")).hexdigest()[:16]
