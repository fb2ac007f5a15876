"""quotebound: a research agent that answers only with quotes verified against stored sources.

The public surface; import from here, not from the private modules. Names are imported on
first use, so that ``import quotebound`` (and the command's ``--help``) stays fast: the graph
pulls in LangGraph and LangChain, which take a second or more to import.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quotebound.candidates import Candidate, extract_candidates
    from quotebound.context import Context, make_context
    from quotebound.corpus import LocalCorpus
    from quotebound.embedded import embedded_corpus
    from quotebound.errors import (
        ConfigError,
        FetchError,
        QuoteboundError,
        Reason,
        SearchError,
        StoreError,
    )
    from quotebound.fetch import Fetcher, FetchPolicy
    from quotebound.graph import build_graph
    from quotebound.nodes.deps import Deps
    from quotebound.parsing import Block, Page, parse_page, sanitize_html
    from quotebound.rawstore import RawPage, get_raw_page, list_raw_pages, raw_namespace
    from quotebound.runner import load_run, resume_research, run_research
    from quotebound.search import ProviderLadder, SearchCandidate, SearchProvider
    from quotebound.stores import open_store
    from quotebound.tavily import TavilyProvider
    from quotebound.tiers import TrustTier
    from quotebound.verification import Verification, verify_quote

_MODULES = {
    "candidates": ("Candidate", "extract_candidates"),
    "context": ("Context", "make_context"),
    "corpus": ("LocalCorpus",),
    "embedded": ("embedded_corpus",),
    "errors": (
        "ConfigError",
        "FetchError",
        "QuoteboundError",
        "Reason",
        "SearchError",
        "StoreError",
    ),
    "fetch": ("Fetcher", "FetchPolicy"),
    "graph": ("build_graph",),
    "nodes.deps": ("Deps",),
    "parsing": ("Block", "Page", "parse_page", "sanitize_html"),
    "rawstore": ("RawPage", "get_raw_page", "list_raw_pages", "raw_namespace"),
    "runner": ("load_run", "resume_research", "run_research"),
    "search": ("ProviderLadder", "SearchCandidate", "SearchProvider"),
    "stores": ("open_store",),
    "tavily": ("TavilyProvider",),
    "tiers": ("TrustTier",),
    "verification": ("Verification", "verify_quote"),
}
_HOME = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [
    "Block",
    "Candidate",
    "ConfigError",
    "Context",
    "Deps",
    "FetchError",
    "FetchPolicy",
    "Fetcher",
    "LocalCorpus",
    "Page",
    "ProviderLadder",
    "QuoteboundError",
    "RawPage",
    "Reason",
    "SearchCandidate",
    "SearchError",
    "SearchProvider",
    "StoreError",
    "TavilyProvider",
    "TrustTier",
    "Verification",
    "build_graph",
    "embedded_corpus",
    "extract_candidates",
    "get_raw_page",
    "list_raw_pages",
    "load_run",
    "make_context",
    "open_store",
    "parse_page",
    "raw_namespace",
    "resume_research",
    "run_research",
    "sanitize_html",
    "verify_quote",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'quotebound' has no attribute {name!r}")
    value = getattr(import_module(f"quotebound.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
