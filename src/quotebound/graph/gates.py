"""Phase gates between search → fetch and fetch → evidence (docs/architecture.md §3).

A gate never raises: it returns a :class:`GateResult` whose errors send the run to finalize
with a reason code, and whose warnings go to the audit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

from quotebound.acquisition.netguard import safe_url
from quotebound.errors import Reason
from quotebound.records import SourceInfo
from quotebound.tiers import TrustTier

__all__ = ["THIN_PAGE_CHARS", "Gate", "GateResult", "fetch_gate", "search_gate"]

THIN_PAGE_CHARS = 400
"""A fetched page with less clean text than this is flagged as thin."""


class Gate(StrEnum):
    """The two phase gates."""

    SEARCH_TO_FETCH = "search_to_fetch"
    FETCH_TO_EVIDENCE = "fetch_to_evidence"


@dataclass(frozen=True)
class GateResult:
    """The outcome of one gate: passed unless it has errors."""

    gate: Gate
    passed: bool
    reason: Reason | None
    """Why the gate failed; None when it passed."""
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    admitted: tuple[str, ...] = ()
    """Gate 1: the candidate URLs allowed through, in order."""

    def to_dict(self) -> dict[str, object]:
        """Plain values, as graph state and the audit keep them."""
        out: dict[str, object] = {}
        for key, value in asdict(self).items():
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, StrEnum):
                value = value.value
            out[key] = value
        return out


def search_gate(
    candidates: Sequence[dict[str, object]], *, check_url: Callable[[str], Reason | None]
) -> GateResult:
    """Gate 1: at least one candidate, every network URL well-formed http(s) and SSRF-safe.

    Corpus documents (those with a ``document``) are read through the corpus transport, not
    the network, so only their presence counts. Unsafe URLs are dropped with a warning; the gate
    fails only when nothing is left.
    """
    admitted: list[str] = []
    warnings: list[str] = []
    for c in candidates:
        url = str(c["url"])
        problem = None if c.get("document") else check_url(url)
        if problem is None:
            admitted.append(url)
        else:
            warnings.append(f"{problem.value}: {safe_url(url)[:200]}")
    if not admitted:
        reason = Reason.EMPTY_RESULTS if not candidates else Reason.INVALID_URL
        if candidates and all(w.startswith(Reason.BLOCKED_SSRF.value) for w in warnings):
            reason = Reason.BLOCKED_SSRF
        return GateResult(
            Gate.SEARCH_TO_FETCH,
            False,
            reason,
            errors=(f"no fetchable candidate among {len(candidates)} search results",),
            warnings=tuple(warnings),
        )
    return GateResult(
        Gate.SEARCH_TO_FETCH, True, None, warnings=tuple(warnings), admitted=tuple(admitted)
    )


def fetch_gate(
    fetched: Sequence[SourceInfo], *, min_sources: int, text_chars: dict[str, int]
) -> GateResult:
    """Gate 2: at least ``min_sources`` documents fetched so far in the run, none of tier 0."""
    errors: list[str] = []
    warnings: list[str] = []
    usable = [s for s in fetched if s["trust_tier"] > TrustTier.SEARCH_RESULT]
    if len(usable) < len(fetched):
        errors.append("a search result (tier 0) was offered as a fetched source")
    if len(usable) < min_sources:
        errors.append(f"{len(usable)} document(s) fetched so far, {min_sources} required")
    for s in usable:
        if text_chars.get(s["source_id"], 0) < THIN_PAGE_CHARS:
            warnings.append(f"thin page ({text_chars.get(s['source_id'], 0)} chars): {s['url']}")
    if len(usable) > 1 and len({s["trust_tier"] for s in usable}) == 1:
        warnings.append(
            f"all sources share one trust tier ({TrustTier(usable[0]['trust_tier']).name})"
        )
    reason = Reason.INSUFFICIENT_EVIDENCE if errors else None
    return GateResult(Gate.FETCH_TO_EVIDENCE, not errors, reason, tuple(errors), tuple(warnings))
