"""The extractive composer: findings from the most relevant verified quotes, diverse across
sources, each claim a sentence of its own quote, so it never writes a word the sources did not.
No LLM. :func:`finding_for` makes the finding both composers cite a quote with.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from quotebound.evidence import encoder
from quotebound.evidence.conflicts import numeric_conflicts
from quotebound.evidence.questions import answers_shape, demands_shape, fits, question_type
from quotebound.evidence.relevance import (
    RELEVANCE_THRESHOLD,
    content_terms,
    relevance,
    sentence_spans,
    sub_questions,
)
from quotebound.records import Composition, EvidenceItem, Finding, FindingVerification
from quotebound.report.answering import answers, best_part, composable_evidence

__all__ = ["compose_extractive", "finding_for"]

_MAX_ANSWER_SENTENCES = 3
_SAME_SOURCE_PENALTY = 0.25
_SIMILARITY_PENALTY = 0.25
_NEAR_DUPLICATE = 0.8
_URL = re.compile(r"\w+://\S+")
_FIT_WEIGHT = 0.3
_MEANING_WEIGHT = 1.0
"""A claim sentence's closeness in meaning to the question (cosine) counts as much as its
share of the question's terms."""
_ASKS = re.compile(r"\?[\"'”’)\]]*$")
"""A sentence that asks: its question mark, then any closing quotes or brackets."""
_MIN_CLAIM_WORDS = 4
_MAX_CLAIM_WORDS = 60
"""The longest a claim grows when a sentence takes the next ones it needs with it."""
_QUALIFIES = re.compile(
    r"[\"“(]?(?:However|But|Although|Though|Yet|Nevertheless|Nonetheless|Except|Unless|Instead)\b"
)
"""How a sentence that qualifies the one before it opens."""
_COMMENTED_LINE = re.compile(r"[^\n]*[ \t]#[ \t][^\n]*\n")
"""A line that ends in a code comment (``x = copy.copy(y)  # make a shallow copy of y``): the
comment runs to the line's end, so the next line is a statement of its own."""
_ENDS_SENTENCE = re.compile(r"[.!?…:;][\"'”’)\]]*$")
"""How a sentence ends: its stop, then any closing quotes or brackets."""
_CLAIM_NOISE = (
    # A mark that cites no numbered section or paragraph: a link's mark the page shows
    # (PostgreSQL's release notes link each item's commit with a "§"); "§ 5" and "¶ 2" stay.
    (re.compile(r"\s*[¶§](?!\s*[¶§]*\s*\d)"), ""),
    (re.compile(r"^\s*(?:[*•·‣▪–-]\s+)+"), ""),  # list bullets, "* - " table rows included
    (re.compile(r"\\(?=[^\w\s])"), ""),  # backslash escapes: "-\>"
    (re.compile(r":[\w:.-]+:`~?([^`<]*?)\s*(?:<[^`]*>)?`"), r"\1"),  # reST roles
    (re.compile(r"``([^`]+)``"), r"\1"),  # reST literals
    (re.compile(r"^\s*\.\.\s+[\w-]+::\s*"), ""),  # reST directives
    (re.compile(r"(?<!\S)([=~^*#+_<>:'\"`-])\1{2,}(?!\S)"), ""),  # heading underlines: ====, ^^^^
)


def compose_extractive(
    question: str, evidence: Sequence[EvidenceItem], *, max_findings: int = 8, final: bool = False
) -> Composition:
    """Findings from the most relevant verified quotes, diverse across sources; no LLM.
    ``final``: the run can read no more (see :mod:`~quotebound.report.answering`)."""
    usable = composable_evidence(question, evidence, final=final)
    chosen = _diverse(question, usable, max_findings, final=final)
    findings = [
        finding_for(claim, item["quote"], item)
        for claim, item in zip(_claims(question, chosen), chosen, strict=True)
    ]
    return Composition(
        answer=_extractive_answer(question, findings),
        findings=findings,
        conflicts=numeric_conflicts(question, usable),
        mode="extractive",
    )


def _similarity(ta: frozenset[str], tb: frozenset[str]) -> float:
    """Jaccard similarity of two quotes' content terms."""
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def _diverse(
    question: str, items: list[EvidenceItem], limit: int, *, final: bool
) -> list[EvidenceItem]:
    """Greedy maximal-marginal-relevance selection: relevance minus repetition of a source
    or of an already chosen quote; a near-duplicate of a chosen quote (the same words on two
    pages) is never chosen. Ties go to the smaller id.

    Diversity is across the sources that answer: a source's further quotes weigh less only
    while some source that answers the question (:func:`answers`) has no finding yet. Once
    none is left, a page's next-best quote is not put behind another page's that answers
    nothing."""
    chosen: list[EvidenceItem] = []
    per_source: Counter[str] = Counter()
    remaining = list(items)
    # Each quote's terms once: the loop compares every remaining quote with every chosen one.
    terms = {e["evidence_id"]: frozenset(content_terms(e["quote"])) for e in items}

    def choose(best: EvidenceItem) -> list[EvidenceItem]:
        chosen.append(best)
        per_source[best["source_id"]] += 1
        picked = terms[best["evidence_id"]]
        return [
            e
            for e in remaining
            if e is not best and _similarity(terms[e["evidence_id"]], picked) < _NEAR_DUPLICATE
        ]

    for best in _part_leaders(question, items, final=final)[:limit]:
        # The best quote for each part first, so no part is crowded out.
        if best in remaining:
            remaining = choose(best)
    while remaining and len(chosen) < limit:
        unheard = any(not per_source[e["source_id"]] and answers(e, final=final) for e in remaining)
        penalty = _SAME_SOURCE_PENALTY if unheard else 0.0
        remaining = choose(
            min(remaining, key=lambda e: _marginal(e, chosen, per_source, penalty, terms))
        )
    return chosen


def _marginal(
    item: EvidenceItem,
    chosen: list[EvidenceItem],
    per_source: Counter[str],
    penalty: float,
    terms: dict[str, frozenset[str]],
) -> tuple[float, str]:
    """The sort key of ``item``'s marginal relevance (best first; ties to the smaller id): its
    score less ``penalty`` for each finding of its source and a share of its overlap with the
    closest chosen quote (``terms``: each quote's content terms, by evidence id)."""
    own = terms[item["evidence_id"]]
    overlap = max((_similarity(own, terms[c["evidence_id"]]) for c in chosen), default=0.0)
    value = item["score"] - penalty * per_source[item["source_id"]] - _SIMILARITY_PENALTY * overlap
    return (-round(value, 9), item["evidence_id"])


def _part_leaders(question: str, items: list[EvidenceItem], *, final: bool) -> list[EvidenceItem]:
    """For a question in several parts, the best quote for each part (by score, then id),
    distinct, in part order; for a one-part question, one only when it demands a figure ("how
    many ...", "which version ..."), so that the report's first finding, and the answer it
    opens, gives the figure; none for other one-part questions. A part's leader answers it
    (:func:`answers`) and is about it: of the quotes that answer it, those most relevant to it
    of all the parts, unless there are none; and of those, the ones with the figure the part
    demands (:func:`~quotebound.evidence.questions.answers_shape`: "since which version ..."
    is answered by "supported since version 3.8.0", not by what the feature is), unless there
    are none. The score weighs meaning and the search's ranks beside the words a quote shares
    with the part; a quote that shares more of them may be about another part, and one closer
    in meaning may tell what the part is about rather than what it asks."""
    leaders: list[EvidenceItem] = []
    parts = max((len(e["parts"]) for e in items), default=0)
    texts = sub_questions(question)
    for part in range(parts if parts > 1 or demands_shape(question) else 0):
        answering = [
            e
            for e in items
            if len(e["parts"]) > part and e not in leaders and answers(e, part, final=final)
        ]
        about = [e for e in answering if best_part(e) == part] or answering
        about = [e for e in about if answers_shape(texts[part], e["quote"])] or about
        best = min(about, key=lambda e: (-e["score"], e["evidence_id"]), default=None)
        if best is not None:
            leaders.append(best)
    return leaders


def _claims(question: str, items: Sequence[EvidenceItem]) -> list[str]:
    """Each quote's claim (:func:`_claim`), the closeness in meaning of all their sentences to
    the question read at once (none without the encoder). A sentence is read as it stands in
    its quote: the ranking read the sentences of the quotes it compared in meaning the same
    way, so most are already in the encoder's cache."""
    spans = [_claim_spans(item["quote"]) for item in items]
    texts = [item["quote"][a:b] for item, own in zip(items, spans, strict=True) for a, b in own]
    close = encoder.similarities(sub_questions(question), texts) if texts else None
    each = iter(close if close is not None else [0.0] * len(texts))
    return [
        _claim(question, item, {span: next(each) for span in own})
        for item, own in zip(items, spans, strict=True)
    ]


def _claim_spans(quote: str) -> list[tuple[int, int]]:
    """The sentences of ``quote`` a claim may be, a line of code that ends in a comment apart
    (:func:`_code_lines`)."""
    sentences = sentence_spans(quote) or [(0, len(quote))]
    return [line for span in sentences for line in _code_lines(quote, span)]


def _claim(question: str, item: EvidenceItem, close: dict[tuple[int, int], float]) -> str:
    """The quote's sentence (of those ``close`` holds, in order, each with its closeness in
    meaning to the question) that best answers the question (the shorter claim, then the
    first, on ties), cleaned of markup so that it reads as a sentence.

    Sentences without a URL come first: a claim never cites a page the thread did not fetch,
    so review would reject one that carries a link. Then statements over questions (a FAQ's
    "How long do entries live?" repeats what was asked and answers nothing), then full
    sentences over fragments. Among those, a sentence's share of the question's terms, the
    shape the question expects (a number for "how many" ...) and its closeness in meaning
    count together: the sentence that answers often says in other words what was asked,
    while the one that repeats the question's words may tell nothing new. A sentence that
    ends with a colon, or is followed by one that qualifies it, takes the next one with it
    (:func:`_with_what_completes_it`), and is ranked so, as the claim it makes, its closeness in
    meaning that of the closest sentence in it: "You can install it through pip:" says how to
    install only with the command it introduces. Of two claims that rank alike, the shorter
    says it more directly.
    """
    quote = item["quote"]
    kind = question_type(question)
    spans = list(close)

    def claim(span: tuple[int, int]) -> tuple[str, float]:
        """The claim ``span`` makes, with what completes it, and its closeness in meaning (the
        closest of its sentences)."""
        start, end = _with_what_completes_it(quote, spans, span)
        meaning = max(close[s] for s in spans if start <= s[0] and s[1] <= end)
        return _clean(quote[start:end]), meaning

    claims = {span: claim(span) for span in spans}

    def rank(span: tuple[int, int]) -> tuple[bool, bool, bool, float, int, int]:
        sentence, meaning = claims[span]
        score = relevance(question, sentence, context=item["context"])
        return (
            _URL.search(sentence) is None,
            _ASKS.search(sentence) is None,
            len(sentence.split()) >= _MIN_CLAIM_WORDS,
            round(score + _FIT_WEIGHT * fits(kind, sentence) + _MEANING_WEIGHT * meaning, 9),
            -len(sentence),
            -span[0],
        )

    return claims[max(spans, key=rank)][0]


def _code_lines(quote: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    """``span`` of ``quote``, cut after each line in it that ends in a code comment."""
    start, end = span
    out = []
    for line in _COMMENTED_LINE.finditer(quote, start, end):
        out.append((start, line.end() - 1))
        start = line.end()
    return [*out, (start, end)]


def _with_what_completes_it(
    quote: str, spans: list[tuple[int, int]], span: tuple[int, int]
) -> tuple[int, int]:
    """``span`` with the sentences after it that it needs, as long as together they do not run
    past ``_MAX_CLAIM_WORDS``: the next one when it ends with a colon (a sentence that
    introduces what follows, "Python's deep copy operation avoids these problems by:", reads
    as a claim only with it), then the next one when that opens by qualifying it ("Plain
    VACUUM simply reclaims space and makes it available for re-use." / "However, extra space
    is not returned to the operating system"): without its qualification, a claim says more
    than its page does."""
    start, end = span
    after = spans.index(span) + 1

    def fits_with(following: int) -> bool:
        return len(quote[start : spans[following][1]].split()) <= _MAX_CLAIM_WORDS

    if after < len(spans) and quote[start:end].endswith(":") and fits_with(after):
        end, after = spans[after][1], after + 1
    if after < len(spans) and _QUALIFIES.match(quote, spans[after][0]) and fits_with(after):
        end = spans[after][1]
    return start, end


def _clean(text: str) -> str:
    for pattern, replacement in _CLAIM_NOISE:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def _extractive_answer(question: str, findings: list[Finding]) -> str:
    """The top claim, plus the best claim for each further sub-question (at most three). A full
    stop follows a claim that lacks one (a line of code: "x = copy.copy(y)  # make a shallow
    copy of y"), so that it does not read on into the next claim."""
    if not findings:
        return ""
    claims = [findings[0]["claim"]]
    for part in sub_questions(question):
        scored = [(relevance(part, f["quote"]), -i, f["claim"]) for i, f in enumerate(findings)]
        score, _, claim = max(scored)
        if score >= RELEVANCE_THRESHOLD and claim not in claims:
            claims.append(claim)
    claims = claims[:_MAX_ANSWER_SENTENCES]
    ended = [c if _ENDS_SENTENCE.search(c) else f"{c}." for c in claims[:-1]]
    return " ".join([*ended, claims[-1]])


def finding_for(
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
