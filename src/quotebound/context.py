"""Run configuration: one ``Context``, its fields backed by ``QUOTEBOUND_*`` variables.

See docs/architecture.md §8.

Precedence, highest first: explicit arguments (a field set on the Context or an option in the
graph input) > an explicitly chosen profile > ``QUOTEBOUND_<FIELD>`` environment variables >
a profile chosen by ``QUOTEBOUND_PROFILE`` (or the default profile ``chat``) > built-in defaults.
Provider keys and endpoints that may carry credentials are never configuration fields: they stay
in ``TAVILY_API_KEY``, ``BRAVE_API_KEY``, ``QUOTEBOUND_SEARXNG_URL`` and ``OPENAI_API_KEY`` and
never enter state, logs or reports.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, get_args

from quotebound.errors import ConfigError
from quotebound.tiers import TrustTier

__all__ = [
    "PROFILES",
    "PROVIDERS",
    "Composer",
    "Context",
    "Profile",
    "ProviderName",
    "make_context",
    "require_unicode",
]

Profile = Literal["chat", "deep"]
ProviderName = Literal[
    "tavily",
    "searxng",
    "duckduckgo",
    "brave",
    "wikipedia",
    "searxng-news",
    "brave-news",
    "gdelt",
    "corpus",
    "embedded",
]
PROVIDERS: tuple[str, ...] = get_args(ProviderName)
"""Every provider a ladder may name (``provider``: ``auto``, or some of these, comma-separated)."""
Composer = Literal["auto", "llm", "extractive"]

ENV_PREFIX = "QUOTEBOUND_"
DEFAULT_MODEL = "gpt-4o-mini"
"""The chat model asked for when none is configured."""

PROFILES: dict[str, dict[str, Any]] = {
    "chat": {
        "max_rounds": 2,
        "max_queries": 3,
        "max_sources": 4,
        "sources_per_round": 3,
        "max_citations": 6,
        "fetch_timeout_s": 10.0,
        "time_budget_s": 20.0,
    },
    "deep": {
        "max_rounds": 6,
        "max_queries": 4,
        "max_sources": 16,
        "sources_per_round": 4,
        "max_citations": 12,
        "fetch_timeout_s": 15.0,
        "time_budget_s": 150.0,
    },
}
"""Budget sets. Every value is overridable by an explicit argument or ``QUOTEBOUND_<FIELD>``."""


def _f(description: str) -> Any:
    """An optional field with a description (unset fields are resolved later)."""
    return field(default=None, metadata={"description": description})


@dataclass(kw_only=True)
class Context:
    """How a research run behaves. Unset fields (None) are filled in by :meth:`resolved`."""

    profile: Profile | None = _f("Budget set: 'chat' (fast) or 'deep' (thorough).")  # noqa: RUF009
    provider: str | None = _f(
        "Search providers, in ladder order, comma-separated: 'auto' (Tavily when "
        "TAVILY_API_KEY is set, then the corpus or the embedded corpus) or some of "
        + ", ".join(PROVIDERS)
        + ". A web provider that fails or finds nothing falls through to the next; news "
        "providers all run and are merged, the first one's order leading."
    )
    corpus_dir: str | None = _f("A local directory of HTML/Markdown/text/PDF files to search.")
    corpus_base_url: str | None = _f("Public URL that corpus paths are cited under.")
    corpus_tier: int | None = _f("Trust tier of corpus documents (1-3; default 2, primary).")
    max_rounds: int | None = _f("Most search-read-evaluate rounds.")
    max_queries: int | None = _f("Most search queries per round.")
    max_sources: int | None = _f("Most sources read (fetched) in the whole run.")
    sources_per_round: int | None = _f("Most sources read in one round.")
    max_citations: int | None = _f("Most findings in a report.")
    min_sources: int | None = _f("Documents that must be fetched before evidence is read.")
    search_results: int | None = _f("Results asked of a provider per query.")
    fetch_timeout_s: float | None = _f("Seconds allowed for one fetch.")
    max_page_mb: float | None = _f(
        "Largest page read, in megabytes (10^6 bytes): a web body or a corpus file; larger "
        "ones fail with too_large."
    )
    time_budget_s: float | None = _f("Seconds allowed for the whole run; then it finishes.")
    max_revisions: int | None = _f("Compose revisions after a failed quality review.")
    composer: Composer | None = _f(  # noqa: RUF009
        "'auto' (the LLM when OPENAI_API_KEY or OPENAI_BASE_URL is set), 'llm' or 'extractive'."
    )
    model: str | None = _f("Chat model name for an OpenAI-compatible endpoint.")
    tavily_topic: Literal["general", "news"] | None = _f("Tavily search topic.")
    wikipedia_language: str | None = _f("Wikipedia edition searched by 'wikipedia' (en, de ...).")
    search_cache_hours: float | None = _f(
        "Hours a remote provider's answer is kept in the run database and used again for the "
        "same query; 0 turns the cache off (--no-cache)."
    )
    page_cache_hours: float | None = _f(
        "Hours a fetched page that does not say how long it stays fresh (Cache-Control, "
        "Expires) is served from the run database before it is asked about again; 0 turns the "
        "page cache off (--no-cache)."
    )
    tavily_raw_content: bool | None = _f("Ask Tavily for raw page content (stored as a page).")
    respect_robots: bool | None = _f(
        "Honour robots.txt when fetching (RFC 9309: a 4xx allows all, a 5xx or no answer "
        "disallows all)."
    )

    def resolved(self, **explicit: Any) -> Context:
        """A copy with every field concrete, by the precedence in this module's docstring."""
        unknown = set(explicit) - {f.name for f in fields(self)}
        if unknown:
            raise ConfigError(f"unknown configuration option(s): {', '.join(sorted(unknown))}")
        chosen = {f.name: getattr(self, f.name) for f in fields(self)}
        chosen.update({k: v for k, v in explicit.items() if v is not None})
        env = _from_env(os.environ)
        explicit_profile = chosen.get("profile")
        profile = explicit_profile or env.get("profile") or "chat"
        if profile not in PROFILES:
            raise ConfigError(f"profile must be one of {sorted(PROFILES)}, got {profile!r}")
        layers: list[Mapping[str, Any]] = [_DEFAULTS]
        if explicit_profile:
            layers += [env, PROFILES[profile]]
        else:
            layers += [PROFILES[profile], env]
        values: dict[str, Any] = {}
        for layer in [*layers, {k: v for k, v in chosen.items() if v is not None}]:
            values.update(layer)
        values["profile"] = profile
        return _validated(replace(self, **values))

    def page_bytes(self) -> int:
        """The largest page read, in bytes (``max_page_mb`` of a resolved context)."""
        return int(float(self.max_page_mb or _DEFAULTS["max_page_mb"]) * 1_000_000)

    def providers(self) -> tuple[str, ...]:
        """The provider ladder this context names, in order; empty for ``auto``."""
        value = (self.provider or "auto").strip()
        return () if value == "auto" else tuple(p.strip() for p in value.split(","))

    def as_dict(self) -> dict[str, Any]:
        """The configuration as plain values, for graph state and the audit."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


_DEFAULTS: dict[str, Any] = {
    "provider": "auto",
    "corpus_dir": "",
    "corpus_base_url": "",
    "corpus_tier": int(TrustTier.PRIMARY_SOURCE),
    "min_sources": 1,
    "search_results": 8,
    "max_revisions": 2,
    "composer": "auto",
    "model": DEFAULT_MODEL,
    "tavily_topic": "general",
    "wikipedia_language": "en",
    "search_cache_hours": 24.0,
    "page_cache_hours": 24.0,
    "tavily_raw_content": False,
    "respect_robots": True,
    "max_page_mb": 5.0,
    **PROFILES["chat"],
}


def make_context(profile: str | None = None, **explicit: Any) -> Context:
    """A Context holding just these choices, checked now (ConfigError on a bad value).

    It is resolved (profile, environment, defaults) when a run starts, so options given in
    the graph's input, such as a profile, still apply; call :meth:`Context.resolved` to see
    the values a run would use.
    """
    chosen = {k: v for k, v in {**explicit, "profile": profile}.items() if v is not None}
    Context().resolved(**chosen)
    return Context(**chosen)


def _field_types() -> dict[str, str]:
    return {f.name: str(f.type) for f in fields(Context)}


def _from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, type_ in _field_types().items():
        raw = environ.get(ENV_PREFIX + name.upper())
        if raw is None or raw.strip() == "":
            continue
        out[name] = _coerce(type_, raw.strip(), source=ENV_PREFIX + name.upper())
    return out


def _coerce(type_: str, raw: str, *, source: str) -> Any:
    try:
        if type_.startswith("int"):
            return int(raw)
        if type_.startswith("float"):
            return float(raw)
        if type_.startswith("bool"):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
    except ValueError:
        kind = {"int": "an integer", "float": "a number"}.get(type_.split(" ")[0], "true or false")
        raise ConfigError(f"{source} must be {kind}, got {raw!r}") from None
    return raw


_CHOICES: dict[str, tuple[str, ...]] = {
    "profile": get_args(Profile),
    "composer": get_args(Composer),
    "tavily_topic": ("general", "news"),
}
_POSITIVE = (
    "max_rounds",
    "max_queries",
    "max_sources",
    "sources_per_round",
    "max_citations",
    "min_sources",
    "search_results",
    "fetch_timeout_s",
    "time_budget_s",
    "max_page_mb",
)


_MAX_NUMBER = 1_000_000
"""No budget needs more; larger values are typos (and overflow the fetcher's timers)."""


def require_unicode(what: str, value: str) -> str:
    """``value`` if it is valid Unicode text; ConfigError if it holds lone surrogates, as
    ``sys.argv``, environment variables and file names carry bytes that are not UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(
            f"{what} must be valid UTF-8 text, got {ascii(value)[:80]} (undecodable bytes)"
        ) from None
    return value


def _validated(ctx: Context) -> Context:
    for f in fields(ctx):
        value = getattr(ctx, f.name)
        if isinstance(value, str):
            require_unicode(f.name, value)
    for name, choices in _CHOICES.items():
        value = getattr(ctx, name)
        if value not in choices:
            raise ConfigError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    for name in _POSITIVE:
        value = getattr(ctx, name)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 < value <= _MAX_NUMBER
        ):
            raise ConfigError(
                f"{name} must be a positive number up to {_MAX_NUMBER}, got {value!r}"
            )
    if not isinstance(ctx.max_revisions, int) or ctx.max_revisions < 0:
        raise ConfigError(f"max_revisions must be 0 or more, got {ctx.max_revisions!r}")
    if ctx.corpus_tier not in tuple(int(t) for t in TrustTier)[1:]:
        raise ConfigError(f"corpus_tier must be 1, 2 or 3, got {ctx.corpus_tier!r}")
    _validate_providers(ctx)
    for name in ("search_cache_hours", "page_cache_hours"):
        hours = getattr(ctx, name)
        if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 <= hours <= 8760:
            raise ConfigError(f"{name} must be 0 to 8760, got {hours!r}")
    if not re.fullmatch(r"[a-z]{2,3}(?:-[a-z]+)*", str(ctx.wikipedia_language)):
        raise ConfigError(
            f"wikipedia_language must be a code such as 'en', got {ctx.wikipedia_language!r}"
        )
    return ctx


def _validate_providers(ctx: Context) -> None:
    if not isinstance(ctx.provider, str):
        raise ConfigError(f"provider must be text, got {ctx.provider!r}")
    ladder = ctx.providers()
    unknown = [p for p in ladder if p not in PROVIDERS]
    if unknown or (not ladder and ctx.provider.strip() != "auto"):
        raise ConfigError(
            f"provider must be 'auto' or a comma-separated list of {', '.join(PROVIDERS)}; "
            f"got {ctx.provider!r}"
        )
    if len(set(ladder)) < len(ladder):
        raise ConfigError(f"provider names a provider twice: {ctx.provider!r}")
    if "corpus" in ladder and not ctx.corpus_dir:
        raise ConfigError("provider 'corpus' needs corpus_dir (QUOTEBOUND_CORPUS_DIR or --corpus)")
