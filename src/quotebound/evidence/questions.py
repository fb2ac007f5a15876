"""What a question asks for: its type and the shape of text that can answer it.

"How many ..." wants a number, "when did ..." or "which version ..." a date or version (a
present-tense "when does ..." asks for a condition, and a leading "When I ..." is a clause), "which
PEP ..." a PEP number, "what does X return" a return value, "who ..." a name, "what is the
default ..." a default. Ranking prefers passages, and the extractive composer sentences, that
have the expected shape; a question of no particular type expects nothing in particular.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

__all__ = ["QuestionType", "answers_shape", "fits", "question_type"]


class QuestionType(Enum):
    """A question's type, by the answer it expects."""

    COUNT = "count"
    VERSION = "version"
    PEP = "pep"
    RETURN = "return"
    PERSON = "person"
    DEFAULT = "default"
    DIFFERENCE = "difference"
    REASON = "reason"
    YES_NO = "yes_no"
    GENERAL = "general"


_TYPES: tuple[tuple[QuestionType, bool, re.Pattern[str]], ...] = (
    # (type, whether its answer must have the type's shape, how it is asked)
    (QuestionType.PEP, True, re.compile(r"\bwhich\s+peps?\b|\bwhat\s+peps?\b", re.I)),
    (QuestionType.COUNT, True, re.compile(r"\bhow\s+(?:many|much|long|large|big|often)\b", re.I)),
    (
        QuestionType.VERSION,
        True,
        re.compile(
            r"\b(?:which|what)\s+(?:\w+\s+)?(?:version|release|year|date)\b"
            r"|\bsince\s+when\b|\bin\s+which\s+(?:version|release|year)\b",
            re.I,
        ),
    ),
    (QuestionType.VERSION, False, re.compile(r"^\s*when\s+(?:did|was|were|has|have|had)\b", re.I)),
    (QuestionType.RETURN, False, re.compile(r"\breturns?\b|\byields?\b", re.I)),
    (QuestionType.PERSON, False, re.compile(r"^\s*(?:who|whom)\b", re.I)),
    (QuestionType.DEFAULT, False, re.compile(r"\bdefaults?\b", re.I)),
    (
        QuestionType.DIFFERENCE,
        False,
        re.compile(r"\bdifferen(?:ce|t)\b|\bcompare[sd]?\b|\bvs\.?\b", re.I),
    ),
    (
        QuestionType.REASON,
        False,
        re.compile(r"^\s*why\b|\bwhat\s+(?:is|was)\s+the\s+reason\b", re.I),
    ),
    (
        QuestionType.YES_NO,
        False,
        re.compile(
            r"^\s*(?:is|are|was|were|can|could|does|do|did|will|would|should|shall|has|have|had"
            r"|may|must|isn't|aren't|doesn't|don't|can't)\b",
            re.I,
        ),
    ),
)
"""Question types, most specific first. A number, version, date or PEP is demanded of an
answer to "how many", "which version" or "which PEP"; "when did" is answered by an event as
often as by a date ("after the war broke out"), so a date is preferred there, never demanded."""

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundred|thousand|million|billion|dozen|single|double|once|twice"
    r"|every|each|daily|weekly|monthly|yearly|annually|hourly|overnight"
)
"""Numbers in words, and the frequencies and durations that answer "how often" or "how long"."""
_SHAPES: dict[QuestionType, re.Pattern[str]] = {
    # A count or amount: a number that is not just a year, or a number in words.
    QuestionType.COUNT: re.compile(
        rf"(?<![\d.,])(?!(?:1[89]|20)\d\d(?![\d.,]))\d|\b(?:{_NUMBER_WORDS})\b", re.I
    ),
    QuestionType.VERSION: re.compile(
        r"\b(?:version|release[sd]?|since|added|changed|deprecated|introduced)\b.{0,40}\d"
        r"|\b\d+\.\d+\b|\b(?:1[89]|20)\d\d\b"
        r"|\b(?:January|February|March|April|May|June|July|August|September|October"
        r"|November|December)\b",
        re.I,
    ),
    QuestionType.PEP: re.compile(r"\bPEP\s*\d+"),
    QuestionType.RETURN: re.compile(r"\breturn(?:s|ed|ing)?\b|\byields?\b", re.I),
    # Two capitalized words, Latin letters with accents too ("Gerhard Häring").
    QuestionType.PERSON: re.compile(r"\b[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+\s+[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+"),
    QuestionType.DEFAULT: re.compile(r"\bdefaults?\b|\bby default\b", re.I),
    QuestionType.DIFFERENCE: re.compile(
        r"\bunlike\b|\bwhereas\b|\binstead of\b|\bdiffer|\bwhile\b|\bbut\b|\bcompared\b", re.I
    ),
    # A cause or purpose.
    QuestionType.REASON: re.compile(
        r"\bbecause\b|\bsince\b|\bso that\b|\bin order to\b|\bdue to\b|\breasons?\b"
        r"|\bas a result\b|\botherwise\b|\btherefore\b|\bthus\b|\bwhich means\b"
        r"|\bto (?:prevent|avoid|ensure|allow|make sure|keep)\b",
        re.I,
    ),
    # A statement that settles a yes or no: a negation, a limit, a necessity or a possibility.
    QuestionType.YES_NO: re.compile(
        r"\bnot\b|n't\b|\bno\b|\bnever\b|\bcannot\b|\bonly\b|\balways\b|\bmust\b"
        r"|\bneed(?:s|ed)?\b|\brequire[sd]?\b|\b(?:im)?possible\b|\bunless\b|\bwithout\b",
        re.I,
    ),
}


@lru_cache(maxsize=1024)
def _classified(question: str) -> tuple[QuestionType, bool]:
    """The type of ``question`` and whether its answer must have the type's shape."""
    for kind, demanded, pattern in _TYPES:
        if pattern.search(question):
            return kind, demanded
    return QuestionType.GENERAL, False


def question_type(question: str) -> QuestionType:
    """The type of ``question`` (the first that applies, most specific first)."""
    return _classified(question)[0]


def answers_shape(question: str, text: str) -> bool:
    """Whether ``text`` can answer ``question`` by shape: it must fit when the question demands
    a number, version, date or PEP ("how many", "which version", "which PEP"); any text can
    otherwise."""
    kind, demanded = _classified(question)
    return not demanded or fits(kind, text)


def fits(kind: QuestionType, text: str) -> bool:
    """Whether ``text`` has the shape of an answer to a question of type ``kind``."""
    shape = _SHAPES.get(kind)
    return shape is not None and shape.search(text) is not None
