"""Proxy modes for everything quotebound fetches and every JSON search API it asks.

``QUOTEBOUND_PROXY_MODE``:

- ``off`` (the default): direct connections; proxy variables in the environment are ignored.
- ``env``: ``HTTP_PROXY`` / ``HTTPS_PROXY`` (or their lower-case forms) for their schemes,
  ``NO_PROXY`` honoured; ``ALL_PROXY`` is ignored.
- ``explicit``: ``QUOTEBOUND_HTTP_PROXY_URL`` and ``QUOTEBOUND_HTTPS_PROXY_URL``, both required.

A proxy is shown only as its mode and ``host:port``, never with its credentials. Through a
proxy the network guard still checks the target and its resolved addresses before the request
leaves, but the proxy resolves the name again: a rebinding window the guard cannot close, which
the run's warnings say.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from quotebound.errors import ConfigError

__all__ = ["PROXY_VARIABLES", "ProxyCooldown", "ProxySettings", "proxy_settings"]

_MODES = ("off", "env", "explicit")
PROXY_VARIABLES = (
    "QUOTEBOUND_PROXY_MODE",
    "QUOTEBOUND_HTTP_PROXY_URL",
    "QUOTEBOUND_HTTPS_PROXY_URL",
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
)
"""The environment variables the proxy settings are read from."""


@dataclass(frozen=True)
class ProxySettings:
    """Which proxy, if any, a request to a scheme and host goes through."""

    mode: str = "off"
    http: str | None = None
    https: str | None = None
    no_proxy: tuple[str, ...] = ()

    def for_url(self, scheme: str, host: str) -> str | None:
        """The proxy URL for a request to ``scheme://host``; None to connect directly."""
        if self.mode == "off" or _bypassed(host, self.no_proxy):
            return None
        return self.https if scheme == "https" else self.http

    def shown(self, proxy: str) -> str:
        """``proxy`` as errors and warnings show it: mode and host:port, no credentials."""
        parts = urlsplit(proxy)
        return f"{self.mode} proxy {parts.hostname}:{parts.port or _default_port(parts.scheme)}"


def proxy_settings(environ: Mapping[str, str] | None = None) -> ProxySettings:
    """The proxy settings the environment gives; ConfigError when they are malformed."""
    env = os.environ if environ is None else environ
    mode = (env.get("QUOTEBOUND_PROXY_MODE") or "off").strip().lower()
    if mode not in _MODES:
        raise ConfigError(f"QUOTEBOUND_PROXY_MODE must be one of {', '.join(_MODES)}, got {mode!r}")
    if mode == "off":
        return ProxySettings()
    if mode == "env":
        http = env.get("HTTP_PROXY") or env.get("http_proxy") or None
        https = env.get("HTTPS_PROXY") or env.get("https_proxy") or None
        no_proxy = env.get("NO_PROXY") or env.get("no_proxy") or ""
        hosts = tuple(h.strip().lower() for h in no_proxy.split(",") if h.strip())
    else:
        http = env.get("QUOTEBOUND_HTTP_PROXY_URL") or None
        https = env.get("QUOTEBOUND_HTTPS_PROXY_URL") or None
        missing = [
            name
            for name, value in (
                ("QUOTEBOUND_HTTP_PROXY_URL", http),
                ("QUOTEBOUND_HTTPS_PROXY_URL", https),
            )
            if not value
        ]
        if missing:
            raise ConfigError(f"proxy mode explicit needs {' and '.join(missing)}")
        hosts = ()
    for value in (http, https):
        if value is not None:
            _check(mode, value)
    return ProxySettings(mode, http, https, hosts)


def _check(mode: str, proxy: str) -> None:
    parts = urlsplit(proxy)
    try:
        port = parts.port
    except ValueError:
        port = None
        valid = False
    else:
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    if not valid:
        where = f"{parts.hostname or '?'}:{port or '?'}"
        raise ConfigError(
            f"{mode} proxy {where} is not an http:// or https:// proxy URL with a host"
        )


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _bypassed(host: str, no_proxy: tuple[str, ...]) -> bool:
    host = host.lower().strip("[]")
    for entry in no_proxy:
        if entry == "*":
            return True
        domain = entry.lstrip(".")
        if host == domain or host.endswith("." + domain):
            return True
    return False


@dataclass
class ProxyCooldown:
    """After ``limit`` failures in a row through one proxy, it is not tried again for
    ``cooldown_s`` seconds: a dead proxy fails fast instead of being retried forever."""

    limit: int = 3
    cooldown_s: float = 30.0
    _failures: dict[str, int] = field(default_factory=dict)
    _until: dict[str, float] = field(default_factory=dict)

    def cooling(self, proxy: str) -> bool:
        return time.monotonic() < self._until.get(proxy, 0.0)

    def failed(self, proxy: str) -> None:
        self._failures[proxy] = self._failures.get(proxy, 0) + 1
        if self._failures[proxy] >= self.limit:
            self._until[proxy] = time.monotonic() + self.cooldown_s
            self._failures[proxy] = 0

    def worked(self, proxy: str) -> None:
        self._failures.pop(proxy, None)
