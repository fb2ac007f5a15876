"""Trust tiers of sources and the domain lists that assign them (docs/architecture.md §3)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from urllib.parse import urlsplit

__all__ = ["DEFAULT_TIER_RULES", "TierRules", "TrustTier", "tier_for_url"]


class TrustTier(IntEnum):
    """How much a source is trusted; a search result is a candidate, never a fact."""

    SEARCH_RESULT = 0
    EXTERNAL_SOURCE = 1
    PRIMARY_SOURCE = 2
    AUTHORITATIVE_SOURCE = 3


@dataclass(frozen=True)
class TierRules:
    """Domain lists that map a host to a tier; data, so users can override them."""

    authoritative_suffixes: tuple[str, ...] = (".gov", ".edu", ".ac.uk", ".gov.uk", ".int", ".mil")
    """Host suffixes whose pages are AUTHORITATIVE_SOURCE."""
    authoritative_domains: frozenset[str] = field(
        default_factory=lambda: frozenset({"who.int", "europa.eu", "nist.gov", "ietf.org"})
    )
    """Registered domains (and their subdomains) that are AUTHORITATIVE_SOURCE."""
    primary_domains: frozenset[str] = field(
        default_factory=lambda: frozenset(
            {
                "docs.python.org",
                "python.org",
                "peps.python.org",
                "w3.org",
                "rfc-editor.org",
                "langchain-ai.github.io",
                "docs.langchain.com",
                "arxiv.org",
                "github.com",
            }
        )
    )
    """Registered domains (and their subdomains) that are PRIMARY_SOURCE."""

    def tier_for_host(self, host: str) -> TrustTier:
        """The tier of a host name; unknown hosts are EXTERNAL_SOURCE."""
        host = host.lower().rstrip(".")
        if _matches(host, self.authoritative_domains) or host.endswith(self.authoritative_suffixes):
            return TrustTier.AUTHORITATIVE_SOURCE
        if _matches(host, self.primary_domains):
            return TrustTier.PRIMARY_SOURCE
        return TrustTier.EXTERNAL_SOURCE


DEFAULT_TIER_RULES = TierRules()


def _matches(host: str, domains: Iterable[str]) -> bool:
    return any(host == d or host.endswith("." + d) for d in domains)


def tier_for_url(url: str, rules: TierRules = DEFAULT_TIER_RULES) -> TrustTier:
    """The tier a fetched page from ``url`` gets, from its host."""
    return rules.tier_for_host(urlsplit(url).hostname or "")
