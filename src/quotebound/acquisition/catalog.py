"""Every remote search provider by name: how to build it from a run's settings, what it needs
to run, and its state for ``quotebound providers``. (The local corpora are the graph's to
choose: :func:`quotebound.graph.deps.local_corpus`.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from quotebound.acquisition.duckduckgo import DuckDuckGoProvider
from quotebound.acquisition.proxies import proxy_settings
from quotebound.acquisition.tavily import TavilyProvider
from quotebound.acquisition.webproviders import (
    BraveProvider,
    GdeltProvider,
    SearxngProvider,
    WikipediaProvider,
)
from quotebound.context import Context

__all__ = ["REMOTE", "ProviderState", "provider_states", "remote_provider", "unconfigured_hint"]

_BUILDERS: dict[str, Callable[[Context], Any]] = {
    "tavily": lambda s: TavilyProvider(
        topic=s.tavily_topic or "general",
        include_raw_content=bool(s.tavily_raw_content),
        proxies=proxy_settings(),
    ),
    "searxng": lambda s: SearxngProvider(proxies=proxy_settings()),
    "searxng-news": lambda s: SearxngProvider(category="news", proxies=proxy_settings()),
    "duckduckgo": lambda s: DuckDuckGoProvider(proxies=proxy_settings()),
    "brave": lambda s: BraveProvider(proxies=proxy_settings()),
    "brave-news": lambda s: BraveProvider(news=True, proxies=proxy_settings()),
    "gdelt": lambda s: GdeltProvider(proxies=proxy_settings()),
    "wikipedia": lambda s: WikipediaProvider(
        language=s.wikipedia_language or "en", proxies=proxy_settings()
    ),
}
REMOTE: tuple[str, ...] = tuple(_BUILDERS)
"""The remote providers, in the order ``quotebound providers`` lists them."""

_NEEDS = {
    "tavily": "set TAVILY_API_KEY",
    "searxng": "set QUOTEBOUND_SEARXNG_URL to your SearXNG instance (JSON format enabled)",
    "searxng-news": "set QUOTEBOUND_SEARXNG_URL to your SearXNG instance (JSON format enabled)",
    "duckduckgo": "pip install 'quotebound[duckduckgo]' (the ddgs package)",
    "brave": "set BRAVE_API_KEY",
    "brave-news": "set BRAVE_API_KEY",
}


def remote_provider(name: str, settings: Context) -> Any:
    """The provider ``name`` (one of :data:`REMOTE`) as ``settings`` configure it."""
    return _BUILDERS[name](settings)


def unconfigured_hint(name: str) -> str:
    """What to do so that provider ``name`` can run."""
    return _NEEDS.get(name, "nothing")


@dataclass(frozen=True)
class ProviderState:
    """A remote provider as ``quotebound providers`` shows it."""

    name: str
    kind: str
    """``web`` or ``news``."""
    ready: bool
    hint: str
    """What it needs when it is not ready; empty when it is."""
    endpoint: str
    """Where it asks, without credentials."""


def provider_states(settings: Context) -> list[ProviderState]:
    """Every remote provider's state under ``settings`` and the environment; no requests."""
    states = []
    for name in REMOTE:
        provider = remote_provider(name, settings)
        ready = bool(provider.configured)
        hint = "" if ready else unconfigured_hint(name)
        states.append(ProviderState(name, provider.kind, ready, hint, provider.endpoint))
    return states
