"""quotebound: a research agent that answers only with quotes verified against stored sources.

The public surface; import from here, not from the private modules. Names are imported on
first use (the light exception tree aside), so that ``import quotebound`` (and the command's
``--help``) stays fast: the graph pulls in LangGraph and LangChain, which take a second or more
to import.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from quotebound.errors import (  # light: the exception tree and reason codes only
    ConfigError,
    FetchError,
    QuoteboundError,
    Reason,
    SearchError,
    StoreError,
)

if TYPE_CHECKING:
    from quotebound.acquisition.corpus import LocalCorpus
    from quotebound.acquisition.embedded import embedded_corpus
    from quotebound.acquisition.fetcher import Fetcher
    from quotebound.acquisition.fetchpolicy import FetchPolicy
    from quotebound.acquisition.providers import ProviderLadder, SearchCandidate, SearchProvider
    from quotebound.acquisition.tavily import TavilyProvider
    from quotebound.context import Context, make_context
    from quotebound.evidence.candidates import Candidate, extract_candidates
    from quotebound.evidence.verification import Verification, verify_quote
    from quotebound.graph.build import build_graph
    from quotebound.graph.deps import Deps
    from quotebound.interface.output import cited_pages
    from quotebound.interface.runner import load_run, resume_research, run_research
    from quotebound.report.html import render_html_report
    from quotebound.storage.rawstore import RawPage, get_raw_page, list_raw_pages, raw_namespace
    from quotebound.storage.stores import open_store
    from quotebound.text.page import Block, Page
    from quotebound.text.parsing import parse_page, sanitize_html
    from quotebound.tiers import TrustTier

_MODULES = {
    "evidence.candidates": ("Candidate", "extract_candidates"),
    "context": ("Context", "make_context"),
    "acquisition.corpus": ("LocalCorpus",),
    "acquisition.embedded": ("embedded_corpus",),
    "acquisition.fetcher": ("Fetcher",),
    "acquisition.fetchpolicy": ("FetchPolicy",),
    "graph.build": ("build_graph",),
    "graph.deps": ("Deps",),
    "text.page": ("Block", "Page"),
    "text.parsing": ("parse_page", "sanitize_html"),
    "storage.rawstore": ("RawPage", "get_raw_page", "list_raw_pages", "raw_namespace"),
    "interface.output": ("cited_pages",),
    "interface.runner": ("load_run", "resume_research", "run_research"),
    "report.html": ("render_html_report",),
    "acquisition.providers": ("ProviderLadder", "SearchCandidate", "SearchProvider"),
    "storage.stores": ("open_store",),
    "acquisition.tavily": ("TavilyProvider",),
    "tiers": ("TrustTier",),
    "evidence.verification": ("Verification", "verify_quote"),
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
    "cited_pages",
    "embedded_corpus",
    "extract_candidates",
    "get_raw_page",
    "list_raw_pages",
    "load_run",
    "make_context",
    "open_store",
    "parse_page",
    "raw_namespace",
    "render_html_report",
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
