"""The LLM selector composer: a model is shown the question and numbered quotes and answers
with JSON claims that cite them. URLs, titles, tiers and verifications always come from the
cited evidence, never from the model, so nothing a page or model says can add a source. Whether
the claims are faithful is for :mod:`quotebound.report.quality` to decide.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from quotebound.errors import QuoteboundError
from quotebound.evidence.conflicts import numeric_conflicts
from quotebound.evidence.relevance import content_terms
from quotebound.evidence.verification import verify_quote
from quotebound.model.chat import ModelError, ask_json
from quotebound.model.prompts import (
    COMPOSE_FEEDBACK,
    COMPOSE_SYSTEM,
    COMPOSE_USER,
    QUOTES_BEGIN,
    QUOTES_END,
)
from quotebound.records import (
    Composition,
    ConflictGroup,
    ConflictSide,
    EvidenceItem,
    Finding,
)
from quotebound.report.answering import composable_evidence
from quotebound.report.extractive import finding_for

__all__ = ["MAX_PROMPT_CHARS", "ComposeError", "build_compose_messages", "compose_llm"]

MAX_PROMPT_CHARS = 24_000
"""Upper bound on the characters of the compose prompt, whatever the number and size of pages."""
_MAX_QUOTES = 30
_MAX_QUOTES_PER_SOURCE = 3
_MAX_QUOTE_CHARS = 800
_MAX_QUESTION_CHARS = 1_000
_MAX_FEEDBACK_LINES = 12
_MAX_FEEDBACK_CHARS = 300
_URL = re.compile(r"\w+://\S+")
_NUMBER_REF = re.compile(r"\[?\s*(\d+)\s*\]?")


class ComposeError(QuoteboundError):
    """The model's composition is malformed beyond repair; the caller composes extractively."""


def build_compose_messages(
    question: str,
    evidence: Sequence[EvidenceItem],
    *,
    max_findings: int,
    feedback: Sequence[str] = (),
    final: bool = False,
) -> list[BaseMessage]:
    """The selector prompt: system rules, then the question and the numbered quotes (``final``:
    the run can read no more; see :mod:`~quotebound.report.answering`)."""
    usable = composable_evidence(question, evidence, final=final)
    return _prompt(question, usable, max_findings=max_findings, feedback=feedback)[0]


def _prompt(
    question: str,
    usable: Sequence[EvidenceItem],
    *,
    max_findings: int,
    feedback: Sequence[str],
) -> tuple[list[BaseMessage], list[EvidenceItem]]:
    """The messages and the evidence behind quote numbers 1..n, from the composable evidence
    ``usable`` (:func:`~quotebound.report.answering.composable_evidence`)."""
    if len(question) > _MAX_QUESTION_CHARS:
        question = question[:_MAX_QUESTION_CHARS] + "…"
    notes = ""
    if feedback:
        lines = [f"- {line[:_MAX_FEEDBACK_CHARS]}" for line in feedback[:_MAX_FEEDBACK_LINES]]
        notes = "\n" + COMPOSE_FEEDBACK.format(problems="\n".join(lines))
    fixed = len(COMPOSE_SYSTEM) + len(notes)
    fixed += len(_user_text(question, max_findings, ""))
    lines, shown = _quote_lines(usable, budget=MAX_PROMPT_CHARS - fixed)
    messages: list[BaseMessage] = [
        SystemMessage(COMPOSE_SYSTEM),
        HumanMessage(_user_text(question, max_findings, "\n".join(lines)) + notes),
    ]
    return messages, shown


def _user_text(question: str, max_findings: int, quotes: str) -> str:
    return COMPOSE_USER.format(
        question=question,
        max_findings=max_findings,
        quotes_begin=QUOTES_BEGIN,
        quotes=quotes,
        quotes_end=QUOTES_END,
    )


def _quote_lines(
    usable: Sequence[EvidenceItem], *, budget: int
) -> tuple[list[str], list[EvidenceItem]]:
    """Numbered quote lines of the composable evidence ``usable`` (best first) within
    ``budget`` characters, a few per source."""
    lines: list[str] = []
    shown: list[EvidenceItem] = []
    labels: dict[str, str] = {}
    per_source: Counter[str] = Counter()
    for item in usable:
        quote = item["quote"]
        if (
            len(shown) >= _MAX_QUOTES
            or per_source[item["source_id"]] >= _MAX_QUOTES_PER_SOURCE
            or len(quote) > _MAX_QUOTE_CHARS
            or QUOTES_BEGIN in quote
            or QUOTES_END in quote
        ):
            continue
        label = labels.get(item["source_id"]) or f"S{len(labels) + 1}"
        host = urlsplit(item["url"]).hostname or ""
        line = (
            f"[{len(shown) + 1}] {label} {host} (tier {item['trust_tier']}): "
            f"{json.dumps(quote, ensure_ascii=False)}"
        )
        if len(line) + 1 > budget:
            continue
        budget -= len(line) + 1
        labels[item["source_id"]] = label
        per_source[item["source_id"]] += 1
        lines.append(line)
        shown.append(item)
    return lines, shown


async def compose_llm(
    question: str,
    evidence: Sequence[EvidenceItem],
    *,
    model: BaseChatModel,
    max_findings: int = 8,
    feedback: Sequence[str] = (),
    timeout_s: float = 60.0,
    final: bool = False,
) -> Composition:
    """Ask ``model`` to select and phrase claims over numbered quotes; validate its JSON.
    ``final``: the run can read no more (see :mod:`~quotebound.report.answering`).

    Raises :class:`ComposeError` when the model fails or times out, when the reply is not
    repairable JSON of the expected shape, or when none of its claims cites a quote it was shown.
    """
    composable = composable_evidence(question, evidence, final=final)
    messages, shown = _prompt(question, composable, max_findings=max_findings, feedback=feedback)
    usable = {e["evidence_id"]: e for e in composable}
    try:
        data = await ask_json(model, messages, timeout_s=timeout_s)
    except ModelError as exc:
        raise ComposeError(str(exc)) from None
    if not isinstance(data, dict):
        raise ComposeError(f"model reply must be a JSON object, got {type(data).__name__}")
    raw_claims = data.get("claims", [])
    if not isinstance(raw_claims, list):
        raise ComposeError(f"'claims' must be a list, got {type(raw_claims).__name__}")
    resolver = _Resolver(shown, usable)
    warnings: list[str] = []
    findings: list[Finding] = []
    for number, raw in enumerate(raw_claims[:max_findings], start=1):
        finding = _llm_finding(raw, resolver, warnings, number)
        if finding is not None:
            findings.append(finding)
    if raw_claims and not findings:
        raise ComposeError("no claim in the model reply cites a quote it was shown")
    answer = data.get("answer")
    answer = answer.strip() if isinstance(answer, str) else ""
    if not findings and answer:
        warnings.append("model answered without citing quotes; answer dropped")
        answer = ""
    elif findings and not answer:
        answer = findings[0]["claim"]
    composition = Composition(
        answer=answer,
        findings=findings,
        conflicts=_llm_conflicts(data.get("conflicts"), resolver, question, list(usable.values())),
        mode="llm",
    )
    if warnings:
        composition["warnings"] = warnings
    return composition


class _Resolver:
    """Maps what a model cites (``3``, ``"[3]"``, an evidence id) to evidence it may cite."""

    def __init__(self, shown: list[EvidenceItem], usable: Mapping[str, EvidenceItem]) -> None:
        self._shown = shown
        self._usable = usable

    def resolve(self, ref: Any) -> EvidenceItem | None:
        if isinstance(ref, bool):
            return None
        if isinstance(ref, int):
            return self._shown[ref - 1] if 1 <= ref <= len(self._shown) else None
        if not isinstance(ref, str):
            return None
        ref = ref.strip()
        if ref in self._usable:
            return self._usable[ref]
        match = _NUMBER_REF.fullmatch(ref)
        return self.resolve(int(match.group(1))) if match else None

    def resolve_all(self, refs: Any) -> tuple[list[EvidenceItem], list[str]]:
        """Known evidence (in order, once each) and the references that matched none."""
        if not isinstance(refs, list):
            refs = [] if refs is None else [refs]
        found: dict[str, EvidenceItem] = {}
        unknown: list[str] = []
        for ref in refs:
            item = self.resolve(ref)
            if item is None:
                unknown.append(str(ref)[:80])
            else:
                found.setdefault(item["evidence_id"], item)
        return list(found.values()), unknown


def _llm_finding(raw: Any, resolver: _Resolver, warnings: list[str], number: int) -> Finding | None:
    """A finding from one model claim, or None (with a warning) when it cites nothing known."""
    if not isinstance(raw, dict) or not isinstance(raw.get("claim"), str):
        warnings.append(f"claim {number} dropped: not an object with a string 'claim'")
        return None
    refs = raw.get("evidence_ids", raw.get("evidence_id"))
    cited, unknown = resolver.resolve_all(refs)
    if unknown:
        warnings.append(f"claim {number}: ignored unknown evidence reference(s) {unknown}")
    if not cited:
        warnings.append(f"claim {number} dropped: cites no quote it was shown")
        return None
    quote = raw.get("quote")
    if not isinstance(quote, str) or not quote.strip():
        return finding_for(raw["claim"].strip(), cited[0]["quote"], cited[0], _ids(cited))
    for item in cited:
        check = verify_quote(quote, item["quote"])
        if check.status == "PASS":
            return finding_for(
                raw["claim"].strip(),
                check.matched_text,
                item,
                _ids(cited),
                (check.start, check.end),
            )
    # Kept as the model wrote it, so quality review reports the altered quote.
    return finding_for(raw["claim"].strip(), quote, cited[0], _ids(cited))


def _ids(items: Sequence[EvidenceItem]) -> list[str]:
    return [e["evidence_id"] for e in items]


def _llm_conflicts(
    raw: Any, resolver: _Resolver, question: str, usable: list[EvidenceItem]
) -> list[ConflictGroup]:
    """The model's conflict groups that cite two or more sources, plus numeric ones it missed."""
    groups: list[ConflictGroup] = []
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict):
            continue
        cited, _ = resolver.resolve_all(entry.get("evidence_ids"))
        if len({e["source_id"] for e in cited}) < 2:
            continue
        topic = entry.get("topic")
        sides = [
            ConflictSide(
                evidence_id=e["evidence_id"],
                quote=e["quote"],
                url=e["url"],
                title=e["title"],
                values=[t for t in content_terms(e["quote"]) if t[0].isdigit()],
            )
            for e in cited
        ]
        topic = _URL.sub("", topic if isinstance(topic, str) else "").strip()[:200]
        groups.append(ConflictGroup(topic=topic or "disagreement", sides=sides))
    covered = {frozenset(s["evidence_id"] for s in g["sides"]) for g in groups}
    for group in numeric_conflicts(question, usable):
        if frozenset(s["evidence_id"] for s in group["sides"]) not in covered:
            groups.append(group)
    return groups
