"""Deterministic quote verification: is this quote the source's own words?

``verify_quote`` tries three steps, in order, and stops at the first that passes:

1. **exact**: the quote (stripped of surrounding whitespace) is a substring of the source;
   the span is its first occurrence.
2. **normalized**: after :func:`quotebound.text.normalize.normalize_text` on both sides
   (NFKC, zero-width characters, typographic quotes and dashes, whitespace runs; case kept), the
   quote is a substring of the source. The quote is tried as is, then without leading/trailing
   ellipses and quote marks. The span is mapped back to the original source text.
3. **fuzzy**, for quotes of at least :data:`MIN_FUZZY_WORDS` tokens (words and numbers,
   casefolded). After removing articles (a, an, the) from both sides, the quote's token sequence
   must occur *contiguously and in order* in the source's token sequence, so only whitespace,
   punctuation, case and articles may differ; and the multiset token Jaccard between the quote
   and that source window must exceed :data:`FUZZY_MIN_JACCARD` (this bounds how many articles
   may differ). The span runs from the window's first token to its last.

When nothing passes, the quote is aligned to its best source window (rapidfuzz partial-ratio
alignment of token codes) to say why, most specific first: ``number_mismatch``,
``negation_mismatch``, ``word_mismatch`` for a polarity swap (:data:`POLARITY_PAIRS`),
``order_mismatch`` (same tokens, other order), ``word_mismatch``, ``low_similarity``,
``not_found``. Because a pass needs the exact token sequence, a changed number, negation,
polarity word or proper noun never passes, even when the other word occurs in the window; the
lists of negations and polarity pairs only choose the reason.

Everything is pure string manipulation and arithmetic: no LLM, randomness or clock. The source
side of the fuzzy step, its normalized text and token index (cached per source text), is
:mod:`quotebound.evidence.tokenindex`; which tokens negate is decided by
:func:`quotebound.text.negation.negations`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from quotebound.evidence.tokenindex import (
    ARTICLES,
    UNKNOWN_CODE,
    SourceIndex,
    normalized_source,
    source_index,
    tokenize,
)
from quotebound.records import VerificationRecord
from quotebound.text.negation import negations
from quotebound.text.normalize import normalize_with_offsets, strip_quote_decorations

__all__ = [
    "FUZZY_MIN_JACCARD",
    "MAX_FUZZY_WORDS",
    "MIN_FUZZY_WORDS",
    "NOT_FOUND_JACCARD",
    "PLAUSIBLE_JACCARD",
    "POLARITY_PAIRS",
    "FailReason",
    "Verification",
    "verify_quote",
]

MIN_FUZZY_WORDS = 5
"""Quotes with fewer tokens pass only as exact or normalized matches (else ``too_short``)."""
MAX_FUZZY_WORDS = 1000
"""Longer quotes that are not exact/normalized matches fail ``low_similarity`` without search."""
FUZZY_MIN_JACCARD = 0.8
"""A fuzzy pass needs multiset token Jaccard strictly above this in its source window."""
PLAUSIBLE_JACCARD = 0.5
"""A failing best window at or above this Jaccard is near enough to name a specific mismatch."""
NOT_FOUND_JACCARD = 0.25
"""Below this Jaccard the best window is no match at all: ``not_found``."""

POLARITY_PAIRS: tuple[tuple[str, str], ...] = (
    ("enable", "disable"), ("enabled", "disabled"), ("enables", "disables"),
    ("before", "after"), ("true", "false"), ("always", "never"), ("first", "last"),
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("allow", "deny"), ("allowed", "denied"), ("allows", "denies"),
    ("include", "exclude"), ("included", "excluded"), ("includes", "excludes"),
    ("min", "max"), ("minimum", "maximum"), ("more", "less"), ("more", "fewer"),
    ("most", "least"), ("higher", "lower"), ("highest", "lowest"), ("above", "below"),
    ("larger", "smaller"), ("largest", "smallest"), ("greater", "less"), ("open", "closed"),
    ("on", "off"), ("accept", "reject"), ("accepted", "rejected"), ("success", "failure"),
    ("succeeded", "failed"), ("start", "end"), ("begin", "end"), ("input", "output"),
    ("upper", "lower"), ("left", "right"), ("inside", "outside"), ("positive", "negative"),
    ("add", "remove"), ("added", "removed"), ("rise", "fall"), ("rose", "fell"),
    ("up", "down"), ("required", "optional"), ("public", "private"), ("import", "export"),
    ("buy", "sell"), ("bought", "sold"), ("gain", "loss"), ("profit", "loss"),
    ("earliest", "latest"), ("oldest", "newest"), ("old", "new"), ("sync", "async"),
    ("synchronous", "asynchronous"), ("win", "lose"), ("won", "lost"), ("yes", "no"),
)  # fmt: skip
"""Antonym pairs; a swap between them is reported as ``word_mismatch`` (data, extend freely)."""
_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
"""``supported``/``unsupported`` and the like are polarity swaps too."""

FailReason = Literal[
    "not_found",
    "low_similarity",
    "number_mismatch",
    "negation_mismatch",
    "word_mismatch",
    "order_mismatch",
    "too_short",
]

_DIGIT = re.compile(r"\d")
_POLARITY = frozenset(frozenset(pair) for pair in POLARITY_PAIRS)


@dataclass(frozen=True)
class Verification:
    """The verdict on one quote against one source text."""

    status: Literal["PASS", "FAIL"]
    """PASS when the quote is the source's own words."""
    method: Literal["exact", "normalized", "fuzzy"] | None
    """The step that passed; None on FAIL."""
    score: float
    """1.0 for exact/normalized; the window's token Jaccard for fuzzy and most failures."""
    start: int
    """Offset of the matched span in the source text; -1 on FAIL."""
    end: int
    """Offset just after the matched span; -1 on FAIL."""
    matched_text: str
    """``source_text[start:end]`` on PASS; "" on FAIL."""
    reason: FailReason | None
    """None on PASS; why the quote failed otherwise."""

    def to_dict(self) -> VerificationRecord:
        """A JSON-serializable dict with the fields as keys."""
        return {
            "status": self.status,
            "method": self.method,
            "score": self.score,
            "start": self.start,
            "end": self.end,
            "matched_text": self.matched_text,
            "reason": self.reason,
        }


def verify_quote(quote: str, source_text: str) -> Verification:
    """Verify that ``quote`` is the words of ``source_text`` (exact, normalized or fuzzy)."""
    normalized_quote = normalize_with_offsets(quote).text.strip()
    bare_quote = strip_quote_decorations(normalized_quote)
    if not bare_quote:
        return _fail("too_short")

    needle = quote.strip()
    found = source_text.find(needle)
    if found >= 0:
        return _pass("exact", 1.0, source_text, found, found + len(needle))

    source = normalized_source(source_text)
    for candidate in dict.fromkeys((normalized_quote, bare_quote)):
        found = source.text.find(candidate)
        if found >= 0:
            start, end = source.original_span(found, found + len(candidate))
            return _pass("normalized", 1.0, source_text, start, end)

    return _verify_fuzzy(tokenize(normalized_quote), source_text)


def _verify_fuzzy(quote_tokens: list[str], source_text: str) -> Verification:
    if len(quote_tokens) < MIN_FUZZY_WORDS:
        return _fail("too_short")
    if len(quote_tokens) > MAX_FUZZY_WORDS:
        return _fail("low_similarity")
    index = source_index(source_text)
    if not index.tokens:
        return _fail("not_found")
    content = [token for token in quote_tokens if token not in ARTICLES]
    best: tuple[float, int, int] | None = None
    for first in _occurrences(content, index):
        window = _article_extended(quote_tokens, index, first, first + len(content))
        score = _jaccard(quote_tokens, index.tokens[window[0] : window[1]])
        if best is None or score > best[0]:
            best = (score, *window)
    if best is not None:
        score, first_token, end_token = best
        if score <= FUZZY_MIN_JACCARD:
            return _fail("low_similarity", score)
        start, end = index.normalized.original_span(*index.token_span(first_token, end_token - 1))
        return _pass("fuzzy", score, source_text, start, end)
    return _diagnose(quote_tokens, content, index)


def _occurrences(content: list[str], index: SourceIndex) -> list[int]:
    """Indices in the source's content tokens where the sequence ``content`` occurs."""
    if not content or any(token not in index.codes for token in content):
        return []
    needle = "".join(index.codes[token] for token in content)
    found = []
    first = index.content_codes.find(needle)
    while first >= 0:
        end = first + len(content)
        # Codes are distinct for the first 1,112,063 distinct tokens only; compare the tokens.
        window = index.tokens[index.content_token(first) : index.content_token(end - 1) + 1]
        if [token for token in window if token not in ARTICLES] == content:
            found.append(first)
        first = index.content_codes.find(needle, first + 1)
    return found


def _article_extended(
    quote_tokens: list[str], index: SourceIndex, first: int, end: int
) -> tuple[int, int]:
    """The token window of a content match, widened by articles the quote also has at its ends."""
    start_token = index.content_token(first)
    end_token = index.content_token(end - 1) + 1
    leading = _leading_articles(quote_tokens)
    trailing = _leading_articles(quote_tokens[::-1])
    for article in reversed(leading):
        if start_token == 0 or index.tokens[start_token - 1] != article:
            break
        start_token -= 1
    for article in reversed(trailing):
        if end_token == len(index.tokens) or index.tokens[end_token] != article:
            break
        end_token += 1
    return start_token, end_token


def _leading_articles(tokens: list[str]) -> list[str]:
    count = 0
    while count < len(tokens) and tokens[count] in ARTICLES:
        count += 1
    return tokens[:count]


def _diagnose(quote_tokens: list[str], content: list[str], index: SourceIndex) -> Verification:
    """Fail with the most specific reason, judged in the quote's best-aligned source window."""
    window = _best_window(quote_tokens, index)
    if window is None:
        return _fail("not_found")
    window_tokens = index.tokens[window[0] : window[1]]
    window_content = [token for token in window_tokens if token not in ARTICLES]
    score = _jaccard(quote_tokens, window_tokens)
    if score < NOT_FOUND_JACCARD:
        return _fail("not_found", score)
    if score < PLAUSIBLE_JACCARD:
        return _fail("low_similarity", score)
    if _numbers(quote_tokens) != _numbers(window_tokens):
        return _fail("number_mismatch", score)
    if negations(quote_tokens) != negations(window_tokens):
        return _fail("negation_mismatch", score)
    changes = [op for op in _opcodes(content, window_content) if op[0] != "equal"]
    swapped = (
        pair
        for _, i1, i2, j1, j2 in changes
        for pair in zip(content[i1:i2], window_content[j1:j2], strict=False)
    )
    if any(_is_polarity_swap(a, b) for a, b in swapped):
        return _fail("word_mismatch", score)
    if Counter(content) == Counter(window_content):
        return _fail("order_mismatch", score)
    substitutions_only = all(
        tag == "replace" and i2 - i1 == j2 - j1 for tag, i1, i2, j1, j2 in changes
    )
    if score > FUZZY_MIN_JACCARD or substitutions_only:
        return _fail("word_mismatch", score)
    return _fail("low_similarity", score)


def _best_window(tokens: list[str], index: SourceIndex) -> tuple[int, int] | None:
    """The span of ``index.tokens`` that best aligns with ``tokens``, or None if none does.

    rapidfuzz (3.5 MB once imported) is imported here, on the first quote that fails: a run
    whose quotes all pass never needs it."""
    from rapidfuzz import fuzz

    codes = "".join(index.codes.get(token, UNKNOWN_CODE) for token in tokens)
    if len(codes) >= len(index.token_codes):
        return 0, len(index.token_codes)
    alignment = fuzz.partial_ratio_alignment(codes, index.token_codes)
    if alignment is None or alignment.score == 0:
        return None
    return alignment.dest_start, alignment.dest_end


def _opcodes(a: Sequence[str], b: Sequence[str]) -> Sequence[tuple[str, int, int, int, int]]:
    return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _is_polarity_swap(a: str, b: str) -> bool:
    if frozenset((a, b)) in _POLARITY:
        return True
    return any(a == prefix + b or b == prefix + a for prefix in _NEGATING_PREFIXES)


def _jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """Multiset Jaccard: shared token count over combined token count."""
    count_a, count_b = Counter(a), Counter(b)
    union = sum((count_a | count_b).values())
    return sum((count_a & count_b).values()) / union if union else 0.0


def _numbers(tokens: Sequence[str]) -> list[str]:
    return [token for token in tokens if _DIGIT.search(token)]


def _pass(
    method: Literal["exact", "normalized", "fuzzy"],
    score: float,
    source_text: str,
    start: int,
    end: int,
) -> Verification:
    while start < end and source_text[start].isspace():
        start += 1
    while end > start and source_text[end - 1].isspace():
        end -= 1
    return Verification("PASS", method, round(score, 4), start, end, source_text[start:end], None)


def _fail(reason: FailReason, score: float = 0.0) -> Verification:
    return Verification("FAIL", None, round(score, 4), -1, -1, "", reason)
