"""quotebound: a research agent that answers only with quotes verified against stored sources.

The public surface; import from here, not from the private modules.
"""

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
from quotebound.runner import load_run, run_research
from quotebound.search import ProviderLadder, SearchCandidate, SearchProvider
from quotebound.stores import open_store
from quotebound.tavily import TavilyProvider
from quotebound.tiers import TrustTier
from quotebound.verification import Verification, verify_quote

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
    "run_research",
    "sanitize_html",
    "verify_quote",
]
