"""What a question asks for: its type and the shape of text that can answer it.

"How many ..." wants a number (of what it counts: "how many cabins", a number beside "cabins"),
"how much does it cost" or "what salary" an amount of money, "when did ...", "which version
..." or "what is the oldest ... version" a date or version (a present-tense "when does ..."
asks for a condition, and a leading "When I ..." is a clause),
"which PEP ..." a PEP number, "what does X return" a return value, "who ..." a name, "what is the
default ..." a default. A question may tell its situation first and ask in a later sentence
("... every value comes out scrambled. Why?"): each of its sentences opens as a question would.
Ranking prefers passages, and the extractive composer sentences, that have the expected shape;
a question of no particular type expects nothing in particular.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

from quotebound.evidence.relevance import AUXILIARIES, content_terms
from quotebound.text.normalize import as_seen

__all__ = ["QuestionType", "answers_shape", "demands_shape", "fits", "question_type"]


class QuestionType(Enum):
    """A question's type, by the answer it expects."""

    PRICE = "price"
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


_AUXILIARY = "|".join(AUXILIARIES)
"""A verb a question may open with, as a pattern."""
_OPENS = r"(?:^|[.?!]\s+)\s*"
"""Where a sentence of the question opens: a question often tells its situation first and asks
last ("... cmdloop() still waits for keyboard input. Why is my stream not used?")."""
_TYPES: tuple[tuple[QuestionType, bool, re.Pattern[str]], ...] = (
    # (type, whether its answer must have the type's shape, how it is asked)
    (QuestionType.PEP, True, re.compile(r"\bwhich\s+peps?\b|\bwhat\s+peps?\b", re.I)),
    (
        QuestionType.PRICE,
        True,
        # "How much does it cost ...", "how much money did they spend ...", "what salary ...";
        # not "how much time does it spend ...".
        re.compile(
            rf"(?:^|[,:;.?!]\s*)(?:[\w-]+\s+)?how\s+much\s+(?:money\s+)?(?:{_AUXILIARY})\b"
            r"(?=[^?]*\b(?:costs?|pay|paid|earn(?:s|ed)?|spen[dt]|spends|charge[sd]?|worth)\b)"
            r"|\b(?:what|which)\s+(?:(?:is|was|are|were)\s+the\s+)?(?:[\w-]+\s+)?"
            r"(?:salar(?:y|ies)|prices?|fees?|wages?)\b",
            re.I,
        ),
    ),
    (
        QuestionType.COUNT,
        True,
        # What the question (or a clause of it) opens with: "how many ...", "By how much ...",
        # "In 2020, how many ..."; not "Is X a cap on how big Y gets?" nor "How can I see how
        # much time ...".
        re.compile(
            r"(?:^|[,:;.?!]\s*)(?:[\w-]+\s+)?how\s+(?:many|much|long|large|big|often)\b", re.I
        ),
    ),
    (
        QuestionType.VERSION,
        True,
        re.compile(
            r"\b(?:which|what)\s+(?:\w+\s+)?(?:version|release|year|date)\b"
            r"|\b(?:which|what)\s+(?:is|was|are|were)\s+the\s+(?:oldest|newest|latest|earliest"
            r"|first|last|minimum|maximum|lowest|highest|current|required)\s+(?:[\w-]+\s+){0,2}"
            r"(?:version|release)s?\b"
            r"|\bhow\s+(?:old|new|recent)\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}(?:version|release)\b"
            r"|\bsince\s+when\b|\bin\s+which\s+(?:version|release|year)\b",
            re.I,
        ),
    ),
    (
        QuestionType.VERSION,
        False,
        re.compile(_OPENS + r"when\s+(?:did|was|were|has|have|had)\b", re.I),
    ),
    (
        QuestionType.REASON,
        False,
        # Before the types a word names: "Why does json.dumps escape accents by default?"
        # asks for a reason, not a default.
        re.compile(_OPENS + r"why\b|\bwhat\s+(?:is|was)\s+the\s+reason\b", re.I),
    ),
    (QuestionType.RETURN, False, re.compile(r"\breturns?\b|\byields?\b", re.I)),
    (QuestionType.PERSON, False, re.compile(_OPENS + r"(?:who|whom|whos)\b", re.I)),
    (QuestionType.DEFAULT, False, re.compile(r"\bdefaults?\b", re.I)),
    (
        QuestionType.DIFFERENCE,
        False,
        # "Different" asks for a difference only as "different from" ("move it to a different
        # directory" does not).
        re.compile(
            r"\bdifferences?\b|\bdiffers?\b|\bdifferent\s+(?:from|than)\b|\bcompare[sd]?\b"
            r"|\bvs\.?\b",
            re.I,
        ),
    ),
    (
        QuestionType.YES_NO,
        False,
        re.compile(rf"{_OPENS}(?:{_AUXILIARY}|isn'?t|aren'?t|doesn'?t|don'?t|can'?t)\b", re.I),
    ),
)
"""Question types, most specific first. An amount of money, a number, version, date or PEP is
demanded of an answer to "how much does it cost", "how many", "which version" or "which PEP";
"when did" is answered by an event as often as by a date ("after the war broke out"), so a date
is preferred there, never demanded."""

_CARDINALS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundred|thousand|million|billion|dozen"
)
_NUMBER_WORDS = (
    _CARDINALS + r"|single|double|once|twice"
    r"|every|each|daily|weekly|monthly|yearly|annually|hourly|overnight"
)
"""Numbers in words, and the frequencies and durations that answer "how often" or "how long"."""
_NUMBER = r"(?<![\d.,])(?!(?:1[89]|20)\d\d(?![\d.,]))\d"
"""A number that is not just a year."""
_SHAPES: dict[QuestionType, re.Pattern[str]] = {
    # An amount of money: a sum with its currency's sign or name, or nothing to pay.
    QuestionType.PRICE: re.compile(
        r"[$€£¥]\s?\d|\b\d[\d.,]*\s*(?:dollars?|euros?|pounds?|yen|cents?)\b"
        r"|\b(?:dollars?|euros?|pounds?|USD|EUR|GBP)\b|\bfree\b",
        re.I,
    ),
    # A count or amount: a number that is not just a year, or a number in words.
    QuestionType.COUNT: re.compile(rf"{_NUMBER}|\b(?:{_NUMBER_WORDS})\b", re.I),
    # A month by its capitalized name; "May" with a day or year beside it, as "may" is a verb
    # ("they may not use ...") wherever it opens a sentence.
    QuestionType.VERSION: re.compile(
        r"(?i:\b(?:version|release[sd]?|since|added|changed|deprecated|introduced)\b.{0,40}\d"
        r"|\b\d+\.\d+\b|\b(?:1[89]|20)\d\d\b)"
        r"|\b(?:January|February|March|April|June|July|August|September|October|November"
        r"|December)\b|\bMay\s+\d|\d\s+May\b"
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


_HOW_OFTEN = re.compile(r"\bhow\s+(?:often|long)\b", re.I)
"""What a frequency or duration in words ("every", "daily", "overnight") answers."""
_AMOUNT = re.compile(rf"{_NUMBER}|\b(?:{_CARDINALS}|half|twice|double)\b", re.I)
"""A number that is not just a year, or an amount in words: what answers "how much", "how big"
or "how large"."""
_MEASURED = re.compile(r"\bhow\s+(?:long|large|big)\b", re.I)
"""A measure, which a comparison gives as well as a figure: "how big should a table be"."""
_COMPARED = re.compile(
    r"\bthan\b|\bexceeds?\b|\bat\s+(?:least|most)\b|\bup\s+to\b|\buntil\b"
    r"|\bas\s+(?:long|large|big|much|many|high|small|little|few|far)\s+as\b",
    re.I,
)
"""A measure given by comparison: "larger than", "should exceed the physical memory", "until
the transaction ends", "as long as the session lasts" (not "as well as")."""
_HOW_MANY = re.compile(r"\bhow\s+many\s+((?:[\w'-]+\s+){0,4})", re.I)
_NOT_COUNTED = frozenset({
    "of", "in", "on", "at", "for", "to", "from", "with", "by", "does", "do", "did", "is", "are",
    "was", "were", "will", "would", "can", "could", "should", "has", "have", "had", "must", "may",
    "might", "the", "a", "an", "there", "per",
})  # fmt: skip
"""Words that end what "how many" counts: "how many new apartments | does ..."."""
_WORD = re.compile(r"[$€£¥]?\w+(?:[.,:]\d+)*")
"""A word, or a figure with its separators: "5,812", "3.5", a time of day "9:30" (no count)."""
_COUNT = re.compile(rf"[$€£¥]?\d[\d.,]*|{_CARDINALS}", re.I)
_YEAR = re.compile(r"(?:1[89]|20)\d\d")
_NOT_A_COUNT = re.compile(r"\s?(?:%|per\s?cent\b|[ap]\.m\.|[ap]m\b|o['’]clock\b)", re.I)
"""What makes the number before it a share or a time of day, not a count: "58% of the vote",
"at 9 a.m.". "How many votes" is not answered by a share of them nor by when voting starts."""
_COUNT_GAP = 3
"""Words that may stand between a count and what it counts: "350 new apartments", "16 million
metric tons", "tables: at most 64"."""
_VARIANT_STEM = 3
"""The shortest stem that another may begin with and still be a variant of the same word."""
_NUMBER_OF = frozenset({"number of", "numbers of"})
_LABELS = frozenset({
    "section", "sections", "chapter", "table", "figure", "fig", "example", "appendix", "version",
    "versions", "release", "page", "pages", "line", "lines", "step", "rule", "pep", "rfc",
    "issue", "bpo",
})  # fmt: skip
"""Words after which a number names what they label ("see Section 22.2", "Table 9.62"): it
counts nothing."""
_TIMES = "time"
_ONCE = re.compile(r"\b(?:once|twice|thrice)\b", re.I)
_MONEY = frozenset({"dollar", "euro", "pound", "yen", "cent"})
_MONEY_SIGN = re.compile(r"[$€£¥]\d")


@lru_cache(maxsize=1024)
def _counted(question: str) -> frozenset[str]:
    """The stems of what "how many" counts in ``question`` ("how many new apartments does"
    counts "new" and "apart"; "how many people died", "peopl" and "die"), or none."""
    match = _HOW_MANY.search(question)
    words: list[str] = []
    for word in match.group(1).split() if match else ():
        if word.lower() in _NOT_COUNTED:
            break
        words.append(word)
    return frozenset(content_terms(" ".join(words)))


def _same_word(stem: str, counted: str) -> bool:
    """Whether ``stem`` is ``counted`` or a variant of it: one begins the other ("ton" and
    "tonn" of "tons" and "tonnes", "staff" and "staffer")."""
    if min(len(stem), len(counted)) < _VARIANT_STEM:
        return stem == counted
    return stem.startswith(counted) or counted.startswith(stem)


def _counts(counted: frozenset[str], given: set[str], text: str) -> bool:
    """Whether ``text`` counts what is ``counted`` (stems): a number, not a year, a share, a
    time of day, a label's (``_LABELS``) nor one the question gives, a few words from a counted
    word ("350 new apartments", "64 tables") or after "the number of" one; an amount ("$10")
    when money is counted; "once" or "twice" when times are."""
    found = list(_WORD.finditer(text))
    words = [m.group() for m in found]  # "9:30" is one word, which _COUNT does not take
    stems = [next(iter(content_terms(w)), "") for w in words]
    named = {i for i, stem in enumerate(stems) if any(_same_word(stem, c) for c in counted)}
    numbered = any(" ".join(words[max(0, i - 2) : i]).lower() in _NUMBER_OF for i in named)
    for i, word in enumerate(words):
        if not _COUNT.fullmatch(word) or word in given or _YEAR.fullmatch(word):
            continue
        if _NOT_A_COUNT.match(text, found[i].end()):
            continue  # a share or a time of day
        if i and words[i - 1].lower() in _LABELS:
            continue  # the number of a section, table or version names it
        if counted & _MONEY and _MONEY_SIGN.match(word):
            return True
        if numbered or any(abs(i - j) <= _COUNT_GAP + 1 for j in named):
            return True
    return _TIMES in counted and _ONCE.search(text) is not None


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


def demands_shape(question: str) -> bool:
    """Whether an answer to ``question`` must have its type's shape: a number for "how many",
    a version or date for "which version", a PEP for "which PEP", an amount for "how much
    does it cost" (:func:`answers_shape` tells which text has it)."""
    return _classified(question)[1]


def answers_shape(question: str, text: str) -> bool:
    """Whether ``text`` can answer ``question`` by shape: it must fit when the question demands
    a number, version, date or PEP ("how many", "which version", "which PEP"); any text can
    otherwise. A count must be of what is counted: "how many cabins" wants a number a few words
    from "cabins", and neither a number the question gives nor one that labels a section, table
    or version ("see Section 22.2") is an answer to it. A frequency or duration in words
    ("each", "daily") answers "how often" and "how long" only, not "how big". A measure ("how
    long", "how big") may be given by comparison instead: "until the transaction ends"."""
    kind, demanded = _classified(question)
    if not demanded:
        return True
    text = as_seen(text)  # "apart\u00adments" is "apartments"
    counted = _counted(question) if kind is QuestionType.COUNT else frozenset()
    if not counted:
        measured = kind is QuestionType.COUNT and _MEASURED.search(question) is not None
        if kind is QuestionType.COUNT and _HOW_OFTEN.search(question) is None:
            shaped = _AMOUNT.search(text) is not None  # "each" or "daily" is no size
        else:
            shaped = fits(kind, text)
        return shaped or (measured and _COMPARED.search(text) is not None)
    return _counts(counted, set(_WORD.findall(question)), text)


def fits(kind: QuestionType, text: str) -> bool:
    """Whether ``text`` has the shape of an answer to a question of type ``kind``."""
    shape = _SHAPES.get(kind)
    return shape is not None and shape.search(as_seen(text)) is not None
