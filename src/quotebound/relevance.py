"""Deterministic lexical relevance of a quote to a question (DESIGN §4).

No LLM and no embeddings: a question is split into sub-questions, each reduced to content terms
(stopwords dropped, light stemming, identifiers such as ``shutil.copytree`` split into parts), and
a text scores the weighted share of a sub-question's terms it contains, best over sub-questions.
Rarer-looking terms (longer words, identifiers, numbers) weigh more than generic ones.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

__all__ = [
    "RELEVANCE_THRESHOLD",
    "content_terms",
    "relevance",
    "sentence_spans",
    "sub_questions",
    "term_coverage",
]

RELEVANCE_THRESHOLD = 0.5
"""Evidence scoring below this for every sub-question may not be composed."""

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`*])|\n\s*\n\s*")
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[.\-][A-Za-z0-9_]+)*")
_NUMERIC = re.compile(r"\d+(?:\.\d+)*")
_PART = re.compile(r"[A-Za-z]+|\d+")
_IDENTIFIER = re.compile(r"[._]|[a-z][A-Z]|[A-Za-z]\d")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

_QUESTION_WORDS = ("what", "how", "why", "when", "where", "which", "who", "whom", "whose")
_SPLIT = re.compile(
    r"\s*(?:[;?]|\bas well as\b|\band also\b|\balso\b|\band\b"
    r"|,\s*(?=(?:" + "|".join(_QUESTION_WORDS) + r")\b))\s*",
    re.IGNORECASE,
)

_STOPWORD_LIST = """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can cannot could couldn did didn do does doesn doing don down
    during each either else etc ever every few for from further get gets got had hadn has hasn have
    haven having he her here hers herself him himself his how i if in into is isn it its itself
    just let like ll me might more most must mustn my myself need no nor not now of off on once
    one only or other ought our ours ourselves out over own per please rather re same shall shan
    she should shouldn so some such than that the their theirs them themselves then there these
    they this those though through thus to too under until up upon us use used uses using ve very
    via was wasn way we were weren what when where whether which while who whom whose why will
    with within without won would wouldn yes yet you your yours yourself yourselves
    also instead tell explain describe mean means meant s t d
"""
_STOPWORDS = frozenset(_STOPWORD_LIST.split())

_GENERIC_LIST = """
    default defaults value values return returns function functions method methods object objects
    module modules class classes name names type types number numbers new make work works set
    give gives given call calls called argument arguments parameter parameters option options
    example examples thing things happen happens different difference python
"""
_GENERIC = frozenset(_GENERIC_LIST.split())
"""Common words in technical text; they count, but less than distinctive terms."""

_GENERIC_WEIGHT = 0.6
_KEY_WEIGHT = 3.0
_PREFIX_WEIGHT = 1.5
_MISSING_KEY_FACTOR = 0.5


def sub_questions(question: str) -> list[str]:
    """Split a question into the parts it asks about; at least ``[question]``.

    Splits on ``;``, ``?``, "and", "also", "as well as" and on a comma before a question word.
    A piece with fewer than two content terms joins its neighbour, so "X and Y" inside one
    part ("the difference between X and Y") stays whole.
    """
    pieces = [p.strip(" ,.") for p in _SPLIT.split(question) if p and p.strip(" ,.")]
    parts: list[str] = []
    for piece in pieces:
        if parts and (len(content_terms(piece)) < 2 or len(content_terms(parts[-1])) < 2):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    if len(parts) > 1 and len(content_terms(parts[-1])) < 2:
        tail = parts.pop()
        parts[-1] = f"{parts[-1]} {tail}"
    return parts if len(parts) > 1 else [question]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, stripped, in order; decimals stay whole."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in [*_SENTENCE_BREAK.finditer(text), None]:
        end = len(text) if match is None else match.start()
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        if match is not None:
            start = match.end()
    return spans


def content_terms(text: str) -> list[str]:
    """Lower-cased content terms of ``text`` in order, with repeats.

    Stopwords and single letters are dropped, plurals and -ing/-ed endings are stemmed lightly,
    numbers (``3.12``, ``30``) are kept whole, and identifiers (``copy.deepcopy``,
    ``max_workers``, ``ThreadPoolExecutor``) are split into their parts.
    """
    return list(_terms(text))


@lru_cache(maxsize=8192)
def _terms(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for token in _TOKEN.findall(text):
        if _NUMERIC.fullmatch(token):
            out.append(token)
            continue
        for part in _identifier_parts(token):
            word = part.lower()
            if word.isdigit():
                out.append(word)
            elif len(word) > 1 and word not in _STOPWORDS:
                out.append(_stem(word))
    return tuple(out)


def _identifier_parts(token: str) -> list[str]:
    parts: list[str] = []
    for piece in _PART.findall(token):
        camel = _CAMEL.findall(piece)
        parts.extend(camel if len(camel) > 1 and not piece.isupper() else [piece])
    return parts


def _stem(word: str) -> str:
    """A light, consistent stem: plural, -ing and -ed endings only."""
    if len(word) > 4 and word.endswith(("ies", "ied")):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            stem = word[: -len(suffix)]
            if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]
            return stem
    return word


def _weight(term: str) -> float:
    if term.isdigit() or any(c.isdigit() for c in term):
        return 2.0
    if term in _GENERIC:
        return _GENERIC_WEIGHT
    return 1.0 + min(len(term), 12) / 6


@lru_cache(maxsize=8192)
def _text_terms(text: str) -> frozenset[str]:
    """The terms of ``text`` plus adjacent pairs joined, so "deep copy" matches "deepcopy"."""
    terms = _terms(text)
    return frozenset(terms) | {a + b for a, b in pairwise(terms)}


@lru_cache(maxsize=1024)
def _key_weights(part: str) -> dict[str, float]:
    """Weights of the names and identifiers in a (sub-)question: ``Tokyo``, ``os.path.join``.

    A name is a capitalized word that does not start a sentence (acronyms such as ``HTTP`` are
    topic words, not names); an identifier has a dot, underscore, inner capital or digit.
    Module prefixes (``os.path.``) weigh less than the name they qualify, since pages about
    ``join`` often omit the module.
    """
    keys: dict[str, float] = {}
    for match in _TOKEN.finditer(part):
        token = match.group()
        before = part[: match.start()].rstrip()
        initial = not before or before[-1] in ".?!:;\"'("
        is_name = token[0].isupper() and not initial and not token.isupper()
        if not is_name and not _IDENTIFIER.search(token):
            continue
        prefix, _, last = token.rpartition(".")
        for text, weight in ((prefix, _PREFIX_WEIGHT), (last, _KEY_WEIGHT)):
            for term in _terms(text):
                if term not in _GENERIC and not term.isdigit():
                    keys[term] = max(weight, keys.get(term, 0.0))
    return keys


def _coverage(part: str, text_terms: frozenset[str]) -> float:
    keys = _key_weights(part)
    weights = {t: keys.get(t) or _weight(t) for t in _terms(part)}
    total = sum(weights.values())
    if total == 0:
        return 0.0
    score = sum(w for t, w in weights.items() if t in text_terms) / total
    if keys and not keys.keys() & text_terms:
        score *= _MISSING_KEY_FACTOR
    return score


def term_coverage(text: str, support: str) -> float:
    """The unweighted share of ``text``'s content terms that ``support`` contains (1.0 if none).

    Used to judge whether a claim restates its quotes rather than adding to them.
    """
    terms = set(_terms(text))
    if not terms:
        return 1.0
    return len(terms & _text_terms(support)) / len(terms)


def relevance(question: str, text: str) -> float:
    """How well ``text`` covers the question or one of its sub-questions, 0-1, deterministic."""
    text_terms = _text_terms(text)
    return round(max(_coverage(part, text_terms) for part in sub_questions(question)), 6)
