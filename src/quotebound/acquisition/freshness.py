"""How long a fetched page may be used again without asking, and how to ask whether it changed.

The rules of a private cache (RFC 9111) for the headers a page came with: ``no-store`` means
the page is never kept; ``Cache-Control: max-age`` (else ``Expires`` less ``Date``) is its
freshness lifetime, less the ``Age`` it already had; ``no-cache`` makes it stale at once (kept,
but asked about every time); a page that says nothing stays fresh for the run's default. A
stale page is asked about with its validators: ``If-None-Match`` (its ``ETag``) and
``If-Modified-Since`` (its ``Last-Modified``). A server's ``must-revalidate`` or ``no-cache``
forbids serving it stale when that question cannot be asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

__all__ = ["CacheHeaders", "http_date_seconds"]


def http_date_seconds(value: str | None) -> float | None:
    """An HTTP date as seconds since the epoch; None when absent or malformed."""
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


@dataclass(frozen=True)
class CacheHeaders:
    """The headers of a response that decide whether and how long it may be reused."""

    etag: str | None = None
    last_modified: str | None = None
    cache_control: str = ""
    expires: str | None = None
    date: str | None = None
    age: str | None = None

    @classmethod
    def of(cls, headers: Mapping[str, str]) -> CacheHeaders:
        """From a response's headers (a case-insensitive mapping, such as httpx's)."""
        return cls(
            etag=headers.get("etag"),
            last_modified=headers.get("last-modified"),
            cache_control=headers.get("cache-control", ""),
            expires=headers.get("expires"),
            date=headers.get("date"),
            age=headers.get("age"),
        )

    @classmethod
    def from_value(cls, value: Mapping[str, Any]) -> CacheHeaders:
        return cls(**{f.name: value[f.name] for f in fields(cls) if f.name in value})

    def to_value(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v}

    def _directives(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for part in self.cache_control.split(","):
            name, _, arg = part.partition("=")
            if name.strip():
                found.setdefault(name.strip().lower(), arg.strip().strip('"'))
        return found

    @property
    def no_store(self) -> bool:
        """The server asked that the response never be kept."""
        return "no-store" in self._directives()

    @property
    def stale_allowed(self) -> bool:
        """Whether a stale copy may be served when the server cannot be asked about it."""
        return not {"must-revalidate", "no-cache"} & self._directives().keys()

    @property
    def validators(self) -> dict[str, str]:
        """The conditional request headers that ask whether the page changed."""
        asked = {"If-None-Match": self.etag, "If-Modified-Since": self.last_modified}
        return {name: value for name, value in asked.items() if value}

    def lifetime(self, default_s: float) -> float:
        """Seconds the page stays fresh after it was received (0: stale at once)."""
        directives = self._directives()
        if "no-cache" in directives:
            return 0.0
        if "max-age" in directives:
            raw = directives["max-age"]
            fresh = float(raw) if raw.isdigit() else 0.0  # a malformed max-age means stale
        elif self.expires is not None:
            expires = http_date_seconds(self.expires)
            sent = http_date_seconds(self.date)
            if expires is None:  # a malformed Expires (often "0") means already expired
                return 0.0
            fresh = expires - (sent if sent is not None else datetime.now(UTC).timestamp())
        else:
            fresh = default_s
        age = self.age.strip() if self.age else ""
        return max(0.0, fresh - (float(age) if age.isdigit() else 0.0))

    def updated(self, newer: CacheHeaders) -> CacheHeaders:
        """These headers with those a 304 Not Modified answer sent instead (RFC 9111 §4.3.4)."""
        return replace(self, **{k: v for k, v in asdict(newer).items() if v})
