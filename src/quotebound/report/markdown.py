"""The Markdown report and its confidence level (docs/architecture.md §5, §6).

The report is a pure function of its inputs, so the same run gives byte-identical Markdown.
Page-derived text (titles, quotes) is escaped minimally so it cannot add links or break layout.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from quotebound.records import ConflictGroup, Finding, SourceInfo, Status
from quotebound.report.outline import (
    PARTIAL_NOTE,
    answer_text,
    cited_first,
    shown_findings,
    tier_label,
    unanswered,
    unread_reasons,
)

__all__ = ["grounding_confidence", "render_report", "report_tier"]

Confidence = Literal["high", "medium", "low", "insufficient"]

_NEWLINES = re.compile(r"\s*[\r\n]+\s*")
_INERT = re.compile(r"[\\\[\]<`]")
"""What can start a link, image, autolink, HTML tag or code span anywhere in a line (a code
span from one field to the next would swallow the link between them). A ``>`` cannot, so
"D.copy() -> a shallow copy" reads as the page wrote it."""
_BLOCK_MARK = re.compile(
    r">|#{1,6}(?=\s|$)|~{3,}|[-+*](?=\s|$)|(?:[-*_]\s*){3,}$|(\d{1,9})(?=[.)](?:\s|$))"
)
"""What opens a block where a line or a list item begins: a quote (``>``), a heading (``#``),
a code fence (``~~~``; backticks are always escaped), a list item (``-``, ``1.``) or a rule
(``---``)."""


def grounding_confidence(n_findings: int) -> Confidence:
    """high for 5+ verified findings, medium for 2-4, low for 1, insufficient for none."""
    if n_findings >= 5:
        return "high"
    if n_findings >= 2:
        return "medium"
    return "low" if n_findings == 1 else "insufficient"


def report_tier(findings: Sequence[Finding]) -> int | None:
    """The lowest trust tier among the cited sources; None when nothing is cited."""
    return min((f["trust_tier"] for f in findings), default=None)


def render_report(
    question: str,
    *,
    status: str,
    answer: str,
    findings: Sequence[Finding],
    conflicts: Sequence[ConflictGroup],
    sources: Sequence[SourceInfo],
    missing: str | None = None,
    warnings: Sequence[str] = (),
) -> str:
    """The report: question, direct answer, findings, conflicts, sources and confidence.

    ``status`` is a :class:`~quotebound.records.Status` value. Only an answered run shows an
    answer; the others say what is missing, or that nothing is verified and why.
    """
    verified = status == Status.ANSWERED
    shown = shown_findings(status, findings)
    lines = [f"# {_inline(question)}", "", "## Direct answer", ""]
    lines.append(_opening(answer_text(status, answer, findings, missing)))
    partial = unanswered(status, missing)
    if partial:
        lines += ["", _opening(partial)]
    lines += ["", "## Verified findings", ""]
    lines += [_finding_line(f) for f in shown] or ["None."]
    lines += ["", "## Conflicts and uncertainty", ""]
    lines += _uncertainty(conflicts if verified else (), warnings)
    lines += ["", "## Sources", ""]
    lines += _sources(sources, shown) if status != Status.VERIFIED_DISABLED else _leads(sources)
    lines += ["", _confidence_line(shown, partial=bool(partial))]
    return "\n".join(lines) + "\n"


def _finding_line(finding: Finding) -> str:
    return (
        f"* {_opening(finding['claim'])} - {_link(finding['title'], finding['url'])} - "
        f'"{_inline(finding["quote"])}"'
    )


def _uncertainty(conflicts: Sequence[ConflictGroup], warnings: Sequence[str]) -> list[str]:
    lines: list[str] = []
    for group in conflicts:
        lines.append(f"* Sources disagree on {_inline(group['topic'])}:")
        lines += [
            f'  * "{_inline(side["quote"])}" - {_link(side["title"], side["url"])}'
            + (f" (states {', '.join(side['values'])})" if side["values"] else "")
            for side in group["sides"]
        ]
    lines += [f"* Warning: {_inline(w)}" for w in warnings]
    return lines or ["None found."]


def _sources(sources: Sequence[SourceInfo], findings: Sequence[Finding]) -> list[str]:
    """Fetched sources, those cited first, then how many could not be read, by reason code."""
    lines = [
        f"* {_link(source['title'], source['url'])} - {tier_label(source['trust_tier'])} - "
        f"{'cited' if cited else 'read'}, accessed {source.get('fetched_at') or 'unknown time'}"
        for source, cited in cited_first(sources, findings)
    ]
    reasons = unread_reasons(sources)
    if reasons:
        detail = ", ".join(f"{reason}: {n}" for reason, n in reasons)
        lines.append(
            f"* {sum(n for _, n in reasons)} more could not be read ({detail}); see the audit"
        )
    return lines or ["None."]


def _leads(sources: Sequence[SourceInfo]) -> list[str]:
    leads = [s for s in sources if s["fetch_status"] != "failed"]
    if not leads:
        return ["None: nothing was stored or verified, and no leads were found."]
    return ["Unverified leads (candidates only, nothing verified):", ""] + [
        f"* {_link(s['title'], s['url'])} - unverified lead ({s['provider']})" for s in leads
    ]


def _confidence_line(findings: Sequence[Finding], *, partial: bool) -> str:
    """The confidence, by the number of verified findings, and whether part of the question
    is left unanswered (``partial``): many findings may all answer one part."""
    level = grounding_confidence(len(findings))
    tier = report_tier(findings)
    tier_text = tier_label(tier) if tier is not None else "none"
    plural = "" if len(findings) == 1 else "s"
    part = PARTIAL_NOTE if partial else ""
    return (
        f"Grounding confidence: {level} ({len(findings)} verified finding{plural}{part}); "
        f"report tier: {tier_text}."
    )


def _inline(text: str) -> str:
    """One line of inert Markdown: newlines folded; brackets, ``<``, backticks and backslashes
    escaped, so page text can form no link, image, autolink, HTML tag or code span in the
    report. Nothing else is escaped, so a reader of the Markdown itself finds the page's words
    as written wherever none of these occur ("D.copy() -> ...")."""
    return _INERT.sub(r"\\\g<0>", _NEWLINES.sub(" ", text.strip()))


def _opening(text: str) -> str:
    """:func:`_inline` text that begins a line or a list item (the direct answer, a claim),
    with a block marker it begins with escaped, so it opens no quote, heading, list, code
    block or rule."""
    line = _inline(text)
    mark = _BLOCK_MARK.match(line)
    if mark is None:
        return line
    at = mark.end(1) if mark.group(1) else 0  # "1\. ..." and "\> ..."
    return f"{line[:at]}\\{line[at:]}"


def _link(title: str, url: str) -> str:
    target = url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    return f"[{_inline(title) or _inline(url)}]({target})"
