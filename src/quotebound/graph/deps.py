"""The graph's injectable dependencies: search providers, fetch policy, resolver, chat models.

This is the test seam (STYLE: httpx): tests pass a loopback-only fetch policy, a scripted chat
model or their own providers; by default everything is built from the run's configuration.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from quotebound.acquisition.catalog import remote_provider, unconfigured_hint
from quotebound.acquisition.corpus import LocalCorpus
from quotebound.acquisition.embedded import embedded_corpus
from quotebound.acquisition.fetcher import Fetcher
from quotebound.acquisition.fetchpolicy import FetchPolicy
from quotebound.acquisition.netguard import Resolver
from quotebound.acquisition.providers import SearchProvider
from quotebound.acquisition.proxies import PROXY_VARIABLES, proxy_settings
from quotebound.context import Context
from quotebound.errors import ConfigError
from quotebound.model.chat import chat_model_from_env
from quotebound.tiers import TrustTier

__all__ = ["Deps", "Toolkit", "local_corpus"]

_TOOLKITS_KEPT = 8


@dataclass(frozen=True)
class Toolkit:
    """What one run works with, resolved once from its settings."""

    providers: tuple[SearchProvider, ...]
    corpora: dict[str, LocalCorpus]
    """Corpus transports by provider name: their candidates are read from disk, not fetched."""
    chat_model: BaseChatModel | None
    fetch_policy: FetchPolicy
    resolver: Resolver | None

    def fetcher(self, *, budget_s: float) -> Fetcher:
        """A fetcher for one round, allowed what is left of the run's time budget."""
        policy = replace(self.fetch_policy, run_budget_s=max(0.1, budget_s))
        return Fetcher(policy, resolver=self.resolver)


@dataclass(kw_only=True)
class Deps:
    """Overrides for the defaults; every field left None is built from the settings."""

    providers: Sequence[SearchProvider] | None = None
    fetch_policy: FetchPolicy | None = None
    resolver: Resolver | None = None
    chat_model: BaseChatModel | None = None
    corpus_roots: Sequence[Path] | None = None
    """Directories a run's ``corpus_dir`` must lie in; None allows any (scripts and the
    command, whose user owns the machine). A server sets it, so that a client's context
    cannot make it index and quote arbitrary server files."""
    _cache: dict[tuple[Any, ...], Toolkit] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def toolkit(self, settings: Context) -> Toolkit:
        """The providers, corpora, fetch policy and chat model for these settings (memoized)."""
        key = (
            *sorted(settings.as_dict().items()),
            os.environ.get("TAVILY_API_KEY") is not None,
            os.environ.get("OPENAI_API_KEY") is not None,
            os.environ.get("OPENAI_BASE_URL"),
            *(os.environ.get(name) for name in PROXY_VARIABLES),
        )
        with self._lock:  # nodes run in worker threads too
            if key not in self._cache:
                if len(self._cache) >= _TOOLKITS_KEPT:  # a server sees many contexts: keep a few
                    del self._cache[next(iter(self._cache))]
                self._cache[key] = self._build(settings)
            return self._cache[key]

    def _build(self, settings: Context) -> Toolkit:
        providers = (
            list(self.providers)
            if self.providers is not None
            else _providers(settings, self.corpus_roots)
        )
        corpora = {p.name: p for p in providers if isinstance(p, LocalCorpus)}
        policy = self.fetch_policy or FetchPolicy()
        policy = replace(
            policy,
            timeout_s=float(settings.fetch_timeout_s or policy.timeout_s),
            run_budget_s=float(settings.time_budget_s or policy.run_budget_s),
            respect_robots=bool(settings.respect_robots),
        )
        if self.fetch_policy is None:  # an explicit policy keeps its own caps and proxies
            cap = settings.page_bytes()
            policy = replace(
                policy,
                max_bytes=cap,
                max_decompressed_bytes=max(policy.max_decompressed_bytes, 4 * cap),
                proxies=proxy_settings(),
            )
        model = self.chat_model
        if model is None and settings.composer != "extractive":
            model = chat_model_from_env(
                model=settings.model,
                base_url=None,
                api_key=None,
                timeout_s=float(settings.fetch_timeout_s or 30.0) * 3,
            )
        if model is None and settings.composer == "llm":
            raise ConfigError(
                "composer 'llm' needs OPENAI_API_KEY or OPENAI_BASE_URL in the environment"
            )
        if settings.composer == "extractive":
            model = None
        return Toolkit(tuple(providers), corpora, model, policy, self.resolver)


def local_corpus(
    settings: Context,
    roots: Sequence[Path] | None = None,
    *,
    embedded: Callable[[], LocalCorpus] = embedded_corpus,
) -> LocalCorpus | None:
    """The local corpus a run searches: its ``corpus_dir`` (a ladder naming 'corpus', or 'auto'
    with a directory), the embedded corpus (a ladder naming 'embedded', or 'auto' without a
    directory), or None (a ladder of remote providers only).

    ``corpus_dir`` must lie inside one of ``roots`` (see :attr:`Deps.corpus_roots`);
    ``embedded`` builds the embedded corpus, which takes seconds the first time (the command
    passes one that says so first).
    """
    ladder = settings.providers()
    if "corpus" in ladder or (not ladder and settings.corpus_dir):
        return _directory_corpus(settings, roots)
    if "embedded" in ladder or not ladder:
        return embedded()
    return None


def _directory_corpus(settings: Context, roots: Sequence[Path] | None) -> LocalCorpus:
    root = Path(settings.corpus_dir or "").expanduser()
    if roots is not None and not any(
        root.resolve().is_relative_to(r.expanduser().resolve()) for r in roots
    ):
        allowed = ", ".join(str(r) for r in roots) or "none configured"
        raise ConfigError(
            f"corpus_dir {str(root)!r} is not inside an allowed corpus root ({allowed}; "
            "see QUOTEBOUND_CORPUS_ROOTS)"
        )
    return LocalCorpus(
        root,
        base_url=settings.corpus_base_url or None,
        tier=TrustTier(settings.corpus_tier or TrustTier.PRIMARY_SOURCE),
        max_bytes=settings.page_bytes(),
    )


def _providers(settings: Context, roots: Sequence[Path] | None) -> list[SearchProvider]:
    """The provider ladder for a run, in order: 'auto' is Tavily when its key is set, then the
    local corpus. A provider asked for by name that cannot run is a ConfigError naming what it
    needs: running without it would quietly search less than was asked."""
    ladder = settings.providers()
    if not ladder:
        ladder = ("tavily", "local") if os.environ.get("TAVILY_API_KEY") else ("local",)
    local = local_corpus(settings, roots)
    out: list[SearchProvider] = []
    for name in ladder:
        if name in ("corpus", "embedded", "local"):
            assert local is not None
            out.append(local)
            continue
        provider = remote_provider(name, settings)
        if not provider.configured:
            raise ConfigError(f"provider {name!r} cannot run: {unconfigured_hint(name)}")
        out.append(provider)
    return out
