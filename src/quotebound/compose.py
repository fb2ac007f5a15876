"""Composition: an answer built only from relevant, verified quotes (docs/architecture.md §5).

Two composers return the same :class:`~quotebound.records.Composition`:

- :func:`compose_extractive` (no LLM) ranks quotes with diversity across sources and takes each
  claim from its own quote, so it never writes a word the sources did not.
- :func:`compose_llm` (selector mode) shows a model the question and numbered quotes and accepts
  JSON claims that cite them. URLs, titles, tiers and verifications always come from the cited
  evidence, never from the model, so nothing a page or model says can add a source. Whether the
  claims are faithful is for :mod:`quotebound.review` to decide.
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

from quotebound.conflicts import numeric_conflicts
from quotebound.errors import QuoteboundError
from quotebound.llm import ModelError, ask_json
from quotebound.prompts import (
    COMPOSE_FEEDBACK,
    COMPOSE_SYSTEM,
    COMPOSE_USER,
    QUOTES_BEGIN,
    QUOTES_END,
)
from quotebound.questions import fits, question_type
from quotebound.records import (
    Composition,
    ConflictGroup,
    ConflictSide,
    EvidenceItem,
    Finding,
    FindingVerification,
)
from quotebound.relevance import (
    CONTEXT_THRESHOLD,
    RELEVANCE_THRESHOLD,
    SUPPORT_THRESHOLD,
    content_terms,
    relevance,
    sentence_spans,
    sub_questions,
)
from quotebound.verification import verify_quote

__all__ = [
    "CLOSE_MEANING",
    "FAR_MEANING",
    "MAX_PROMPT_CHARS",
    "RELATED_MEANING",
    "ComposeError",
    "answers",
    "build_compose_messages",
    "composable_evidence",
    "compose_extractive",
    "compose_llm",
]

MAX_PROMPT_CHARS = 24_000
"""Upper bound on the characters of the compose prompt, whatever the number and size of pages."""
_MAX_QUOTES = 30
_MAX_QUOTES_PER_SOURCE = 3
_MAX_QUOTE_CHARS = 800
_MAX_QUESTION_CHARS = 1_000
_MAX_FEEDBACK_LINES = 12
_MAX_FEEDBACK_CHARS = 300
_MAX_ANSWER_SENTENCES = 3
_RETRIEVED_TOP = 3
"""How many of the search's best passages count as "best" for that."""
CLOSE_MEANING = 0.6
"""A quote at least this close in meaning to the question (cosine similarity) answers it
when its relevance reaches ``_CLOSE_RELEVANCE`` too."""
_CLOSE_RELEVANCE = 0.3
FAR_MEANING = 0.2
"""A quote less close in meaning than this never answers."""
RELATED_MEANING = 0.5
"""Once a question is answered, a quote at least this close in meaning may be composed."""
_SAME_SOURCE_PENALTY = 0.25
_SIMILARITY_PENALTY = 0.5
_NEAR_DUPLICATE = 0.8
_URL = re.compile(r"\w+://\S+")
_FIT_WEIGHT = 0.3
_MIN_CLAIM_WORDS = 4
_CLAIM_NOISE = (
    (re.compile(r"[¶§]"), ""),  # Sphinx and Javadoc anchor marks
    (re.compile(r"^\s*(?:[*•·‣▪–-]\s+)+"), ""),  # list bullets, "* - " table rows included
    (re.compile(r"\\(?=[^\w\s])"), ""),  # backslash escapes: "-\>"
    (re.compile(r":[\w:.-]+:`~?([^`<]*?)\s*(?:<[^`]*>)?`"), r"\1"),  # reST roles
    (re.compile(r"``([^`]+)``"), r"\1"),  # reST literals
    (re.compile(r"^\s*\.\.\s+[\w-]+::\s*"), ""),  # reST directives
)
_NUMBER_REF = re.compile(r"\[?\s*(\d+)\s*\]?")


class ComposeError(QuoteboundError):
    """The model's composition is malformed beyond repair; the caller composes extractively."""


def answers(item: EvidenceItem, part: int | None = None) -> bool:
    """Whether a quote answers the question (or its ``part``-th sub-question), on two signals
    that agree: relevant enough on its own words; or relevant enough to support an answer and
    inside one of the passages the search ranked best across the whole corpus; or sharing a
    fair part of the question's (or part's) terms and close in meaning to the question (its
    closest part; :mod:`quotebound.encoder`). A quote whose meaning was compared and found far
    from the question's never answers, whatever words it shares: a page that names the
    question's terms about something else."""
    score = item["relevance"] if part is None else item["parts"][part]
    meaning = item.get("meaning")
    if meaning is not None and meaning < FAR_MEANING:
        return False
    found = item.get("retrieved")
    return (
        score >= RELEVANCE_THRESHOLD
        or (score >= SUPPORT_THRESHOLD and found is not None and found < _RETRIEVED_TOP)
        or (meaning is not None and meaning >= CLOSE_MEANING and score >= _CLOSE_RELEVANCE)
    )


def composable_evidence(evidence: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """Verified (PASS) evidence that may be composed, best first, one per id: none unless some
    answers the question (:func:`answers`); then all that reach the support threshold, those
    of an answering page that reach the context threshold, and those whose meaning is related
    to the question's (a paraphrase of it shares few of its words)."""
    passed = [e for e in evidence if e["verification"]["status"] == "PASS"]
    answering = {e["source_id"] for e in passed if answers(e)}
    if not answering:
        return []
    seen: dict[str, EvidenceItem] = {}
    for item in passed:
        bar = CONTEXT_THRESHOLD if item["source_id"] in answering else SUPPORT_THRESHOLD
        meaning = item.get("meaning")
        related = meaning is not None and meaning >= RELATED_MEANING
        if (item["relevance"] >= bar or related) and item["evidence_id"] not in seen:
            seen[item["evidence_id"]] = item
    return sorted(seen.values(), key=lambda e: (-e["score"], e["evidence_id"]))


# -- extractive ------------------------------------------------------------------------------


def compose_extractive(
    question: str, evidence: Sequence[EvidenceItem], *, max_findings: int = 8
) -> Composition:
    """Findings from the most relevant verified quotes, diverse across sources; no LLM."""
    usable = composable_evidence(evidence)
    chosen = _diverse(usable, max_findings)
    findings = [_finding(_claim(question, item), item["quote"], item) for item in chosen]
    return Composition(
        answer=_extractive_answer(question, findings),
        findings=findings,
        conflicts=numeric_conflicts(question, usable),
        mode="extractive",
    )


def _similarity(a: str, b: str) -> float:
    ta, tb = set(content_terms(a)), set(content_terms(b))
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def _diverse(items: list[EvidenceItem], limit: int) -> list[EvidenceItem]:
    """Greedy maximal-marginal-relevance selection: relevance minus repetition of a source
    or of an already chosen quote; near-duplicates are skipped. Ties go to the smaller id."""
    chosen: list[EvidenceItem] = []
    per_source: Counter[str] = Counter()
    remaining = list(items)
    for best in _part_leaders(items)[:limit]:
        # A question in parts: the best quote for each part first, so no part is crowded out.
        remaining.remove(best)
        chosen.append(best)
        per_source[best["source_id"]] += 1
    while remaining and len(chosen) < limit:

        def score(item: EvidenceItem) -> tuple[float, str]:
            overlap = max((_similarity(item["quote"], c["quote"]) for c in chosen), default=0.0)
            value = (
                item["score"]
                - _SAME_SOURCE_PENALTY * per_source[item["source_id"]]
                - _SIMILARITY_PENALTY * overlap
            )
            return (-round(value, 9), item["evidence_id"])

        best = min(remaining, key=score)
        remaining.remove(best)
        chosen.append(best)
        per_source[best["source_id"]] += 1
        remaining = [
            e for e in remaining if _similarity(e["quote"], best["quote"]) < _NEAR_DUPLICATE
        ]
    return chosen


def _part_leaders(items: list[EvidenceItem]) -> list[EvidenceItem]:
    """For a question in several parts, the best quote for each part that answers it (by its
    relevance to that part, then score), distinct, in part order; none for a one-part one."""
    leaders: list[EvidenceItem] = []
    parts = max((len(e["parts"]) for e in items), default=0)
    for part in range(parts if parts > 1 else 0):
        answering = [e for e in items if len(e["parts"]) > part and e not in leaders]
        best = min(
            answering,
            key=lambda e: (-e["parts"][part], -e["score"], e["evidence_id"]),
            default=None,
        )
        if best is not None and answers(best, part):
            leaders.append(best)
    return leaders


def _claim(question: str, item: EvidenceItem) -> str:
    """The quote's sentence that best answers the question (the first on ties), cleaned of
    markup and anchor marks so that it reads as a sentence.

    Relevant sentences without a URL come first: a claim never cites a page the thread did
    not fetch, so review would reject one that carries a link. Then sentences of the shape the
    question expects (a number for "how many" ...), then full sentences over fragments.
    """
    quote = item["quote"]
    kind = question_type(question)
    spans = sentence_spans(quote) or [(0, len(quote))]

    def rank(span: tuple[int, int]) -> tuple[bool, bool, float, int]:
        sentence = _clean(quote[span[0] : span[1]])
        score = relevance(question, sentence, context=item["context"])
        linkless = _URL.search(sentence) is None
        return (
            linkless and score >= RELEVANCE_THRESHOLD,
            len(sentence.split()) >= _MIN_CLAIM_WORDS,
            score + _FIT_WEIGHT * fits(kind, sentence),
            -span[0],
        )

    start, end = max(spans, key=rank)
    return _clean(quote[start:end])


def _clean(text: str) -> str:
    for pattern, replacement in _CLAIM_NOISE:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def _extractive_answer(question: str, findings: list[Finding]) -> str:
    """The top claim, plus the best claim for each further sub-question (at most three)."""
    if not findings:
        return ""
    claims = [findings[0]["claim"]]
    for part in sub_questions(question):
        scored = [(relevance(part, f["quote"]), -i, f["claim"]) for i, f in enumerate(findings)]
        score, _, claim = max(scored)
        if score >= RELEVANCE_THRESHOLD and claim not in claims:
            claims.append(claim)
    return " ".join(claims[:_MAX_ANSWER_SENTENCES])


def _finding(
    claim: str,
    quote: str,
    item: EvidenceItem,
    cited: Sequence[str] | None = None,
    within: tuple[int, int] | None = None,
) -> Finding:
    """A finding citing ``item``; ``within`` is the quote's span inside the item's quote, so
    the finding's offsets point at exactly its own words in the stored page."""
    verification = item["verification"]
    start, end = verification["start"], verification["end"]
    if within is not None and start >= 0:
        start, end = start + within[0], start + within[1]
    return Finding(
        claim=claim,
        quote=quote,
        evidence_ids=list(cited) if cited is not None else [item["evidence_id"]],
        url=item["url"],
        title=item["title"],
        trust_tier=item["trust_tier"],
        verification=FindingVerification(
            status=verification["status"],
            method=verification["method"],
            start=start,
            end=end,
        ),
    )


# -- LLM selector ----------------------------------------------------------------------------


def build_compose_messages(
    question: str,
    evidence: Sequence[EvidenceItem],
    *,
    max_findings: int,
    feedback: Sequence[str] = (),
) -> list[BaseMessage]:
    """The selector prompt: system rules, then the question and the numbered quotes."""
    return _prompt(question, evidence, max_findings=max_findings, feedback=feedback)[0]


def _prompt(
    question: str,
    evidence: Sequence[EvidenceItem],
    *,
    max_findings: int,
    feedback: Sequence[str],
) -> tuple[list[BaseMessage], list[EvidenceItem]]:
    """The messages and the evidence behind quote numbers 1..n."""
    if len(question) > _MAX_QUESTION_CHARS:
        question = question[:_MAX_QUESTION_CHARS] + "…"
    notes = ""
    if feedback:
        lines = [f"- {line[:_MAX_FEEDBACK_CHARS]}" for line in feedback[:_MAX_FEEDBACK_LINES]]
        notes = "\n" + COMPOSE_FEEDBACK.format(problems="\n".join(lines))
    fixed = len(COMPOSE_SYSTEM) + len(notes)
    fixed += len(_user_text(question, max_findings, ""))
    lines, shown = _quote_lines(evidence, budget=MAX_PROMPT_CHARS - fixed)
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
    evidence: Sequence[EvidenceItem], *, budget: int
) -> tuple[list[str], list[EvidenceItem]]:
    """Numbered quote lines within ``budget`` characters: best first, a few per source."""
    lines: list[str] = []
    shown: list[EvidenceItem] = []
    labels: dict[str, str] = {}
    per_source: Counter[str] = Counter()
    for item in composable_evidence(evidence):
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
) -> Composition:
    """Ask ``model`` to select and phrase claims over numbered quotes; validate its JSON.

    Raises :class:`ComposeError` when the model fails or times out, when the reply is not
    repairable JSON of the expected shape, or when none of its claims cites a quote it was shown.
    """
    messages, shown = _prompt(question, evidence, max_findings=max_findings, feedback=feedback)
    usable = {e["evidence_id"]: e for e in composable_evidence(evidence)}
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
        return _finding(raw["claim"].strip(), cited[0]["quote"], cited[0], _ids(cited))
    for item in cited:
        check = verify_quote(quote, item["quote"])
        if check.status == "PASS":
            return _finding(
                raw["claim"].strip(),
                check.matched_text,
                item,
                _ids(cited),
                (check.start, check.end),
            )
    # Kept as the model wrote it, so quality review reports the altered quote.
    return _finding(raw["claim"].strip(), quote, cited[0], _ids(cited))


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
