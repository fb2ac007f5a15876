"""What a report says, whatever its format: the direct answer or why there is none, which
findings it shows, its sources in citation order and the tier labels.

The Markdown report (:mod:`~quotebound.report.markdown`) and the HTML report
(:mod:`~quotebound.report.html`) both say it, each escaping page text in its own way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from quotebound.records import Finding, SourceInfo, Status
from quotebound.tiers import TrustTier
from quotebound.urls import canonical_url

__all__ = [
    "PARTIAL_NOTE",
    "answer_text",
    "cited_first",
    "shown_findings",
    "tier_label",
    "unanswered",
    "unread_reasons",
]

PARTIAL_NOTE = "; part of the question not answered"
"""What the confidence line adds when part of the question is left unanswered
(:func:`unanswered`): its level counts findings, which may all answer one part."""
_DEFAULT_MISSING = "a passage in the sources read that answers the question"
_DEFAULT_DISABLED = (
    "no Store or thread id was available, so no page could be stored and no quote checked"
)


def shown_findings(status: str, findings: Sequence[Finding]) -> list[Finding]:
    """Only an answered run shows findings."""
    return list(findings) if status == Status.ANSWERED else []


def answer_text(status: str, answer: str, findings: Sequence[Finding], missing: str | None) -> str:
    """The direct answer; or, for a run without one, what is missing, or that nothing is
    verified and why."""
    if status == Status.VERIFIED_DISABLED:
        return f"Nothing in this report is verified: {missing or _DEFAULT_DISABLED}."
    if not shown_findings(status, findings) or not answer.strip():
        missing = missing or _DEFAULT_MISSING
        end = "" if missing.endswith((".", "?", "!")) else "."  # a missing question keeps its "?"
        return (
            "Insufficient evidence: no verified quote answers this question. "
            f"Missing: {missing}{end}"
        )
    return answer


def unanswered(status: str, missing: str | None) -> str | None:
    """For an answered run that leaves part of the question without a verified answer, the
    sentence that names that part, which the report puts right under its direct answer; None
    for any other run."""
    if status != Status.ANSWERED or not missing:
        return None
    end = "" if missing.endswith((".", "?", "!")) else "."
    return f"Not answered: {missing}{end}"


def cited_first(
    sources: Sequence[SourceInfo], findings: Sequence[Finding]
) -> list[tuple[SourceInfo, bool]]:
    """The fetched sources with whether a finding cites each: those cited first (in citation
    order), then the others read."""
    fetched = [s for s in sources if s["fetch_status"] == "fetched"]
    order = {canonical_url(f["url"]): i for i, f in reversed(list(enumerate(findings)))}

    def key(source: SourceInfo) -> str:
        return source["canonical_url"] or canonical_url(source["url"])

    fetched.sort(key=lambda s: order.get(key(s), len(order)))
    return [(s, key(s) in order) for s in fetched]


def unread_reasons(sources: Sequence[SourceInfo]) -> list[tuple[str, int]]:
    """How many sources could not be read, by reason code (sorted). A URL that was not read is
    never shown as a source."""
    reasons = Counter(s.get("reason") or "failed" for s in sources if s["fetch_status"] == "failed")
    return sorted(reasons.items())


def tier_label(tier: int) -> str:
    """``PRIMARY_SOURCE (tier 2)``; an unknown tier by its number."""
    try:
        return f"{TrustTier(tier).name} (tier {tier})"
    except ValueError:
        return f"tier {tier}"
