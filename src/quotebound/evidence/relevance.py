"""Deterministic lexical relevance of a passage to a question.

No LLM and no embeddings. A question is split into sub-questions, each reduced to content terms
(English stopwords dropped unless named as a keyword, as in "a for loop"; words Snowball-stemmed
in their American spelling, on every side, so "serialised" is "serialized" and "Louvre"
"louver"; identifiers such as ``shutil.copytree`` split into parts; numbers and command-line
options such as ``-O`` kept whole). A passage scores the weighted share of a sub-question's
terms it contains, best over sub-questions. Terms weigh by their inverse document frequency in
the passages at hand (:class:`TermStats`), so a term that every candidate shares counts for
little and a rare one for much; the question's identifiers, names, options and quoted phrases
weigh most.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import snowballstemmer

from quotebound.text.names import is_name, is_particle
from quotebound.text.normalize import as_seen
from quotebound.text.spelling import american

__all__ = [
    "AUXILIARIES",
    "CONTEXT_THRESHOLD",
    "RELEVANCE_THRESHOLD",
    "SUPPORT_THRESHOLD",
    "PassageTerms",
    "TermStats",
    "content_terms",
    "key_terms",
    "names_identifiers",
    "passage_relevance",
    "question_terms",
    "relevance",
    "sentence_spans",
    "spells_identifiers",
    "sub_questions",
    "term_coverage",
    "text_terms",
]

RELEVANCE_THRESHOLD = 0.5
"""Verified evidence scoring at least this answers a question; at the support threshold it
answers only inside one of the search's best passages (see
:func:`quotebound.report.answering.answers`)."""

SUPPORT_THRESHOLD = 0.4
"""Once a question is answered, verified evidence scoring at least this may be composed beside
the best: the passage a reader would pick often shares few words with a paraphrased question."""

CONTEXT_THRESHOLD = 0.2
"""Once a question is answered, verified evidence scoring at least this from a page that
answers it may be composed too: the rest of the answering article, where a paraphrased
question's answer often lies (ordered after better-scored quotes)."""

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`*])|\n\s*\n\s*")
_TOKEN = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*"  # a command-line option: -O, --help
    r"|[A-Za-z0-9_]+(?:[.\-][A-Za-z0-9_]+)*"
)
_OPTION = re.compile(r"--?[A-Za-z]")
_NUMERIC = re.compile(r"\d+(?:\.\d+)*")
_PART = re.compile(r"[A-Za-z]+|\d+")
_IDENTIFIER = re.compile(r"[._]|[a-z][A-Z]|[A-Za-z]\d|^-")
_EXCEPTION = re.compile(r"(?:Error|Exception|Warning)$")
"""An exception's name (``AttributeError``, ``JSONDecodeError``, ``DeprecationWarning``)."""
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_ACRONYMS = re.compile(r"[A-Z]{2,}s")
"""An acronym's plural ("INSERTs", "BLOBs", "URLs"): one word, as its singular is, not the
parts of an identifier ("INSER" and "Ts")."""
_QUOTED = re.compile(r"(?<!\w)[\"“'‘`]((?:[^\"”'’`]|(?<=\w)['’](?=\w)){2,80}?)[\"”'’`](?!\w)")
"""A phrase in quotes. A quote mark opens after no letter and closes before none, and one
between two letters is an apostrophe ("what's", "Louvre's", "'Why We're Polarized'"): two
possessives in one question quote nothing."""

_HOW_WORD = re.compile(r"\bhow\s+(?:many|much|long|often|far|big|large|old|soon)\b", re.I)
""""How many", "how often" ...: the asking, not the subject; the answer's shape stands for it."""

_QUESTION_WORDS = (
    "what", "whats", "how", "hows", "why", "when", "where", "wheres", "which", "who", "whos",
    "whom", "whose",
)  # fmt: skip
"""The words a question may ask with, as typed with or without the apostrophe ("what's",
"whats")."""
AUXILIARIES = (
    "is", "are", "was", "were", "can", "could", "does", "do", "did", "will", "would", "should",
    "shall", "has", "have", "had", "may", "might", "must",
)  # fmt: skip
"""The verbs a question may open with ("Can I ...", "Is it ..."): it then asks yes or no."""
_ASKING = "|".join(_QUESTION_WORDS + AUXILIARIES)
_PRONOUN = r"(?:i|it|we|you|they|he|she|this|that|there|these|those)"
"""Who or what an auxiliary after a comma asks about when it opens a question of its own:
"..., can I raise it?" (not "For a large table, can VACUUM ...", a scene and its question)."""
_TELLING = r"tell\s+(?:me|us)|show|explain|describe|list|name|give|suggest"
"""A request that may follow "and" as a part of its own: "... and tell me which ...", "Explain
how X saves memory and list the drawbacks". A piece may open with these and a few more
(``_ASKS``), whose object "and" shares more often than not ("read and compare two files")."""
_LEADING = (
    r"(?:(?:in|on|at|for|from|by|under|to|with|of|during|after|before|since|until)\s+)?"
    r"(?:[a-z]+ly\s+)?"
)
"""A preposition a question word may follow ("on what date", "since which version"), then an
adverb ("roughly how long", "exactly which")."""
_ENUMERATOR = r"\(?(?:[1-9]|[a-h])\)"
"""The mark of an item in a list of asks: "1)", "(b)"."""
_WANTING = (
    r"(?:i(?:['’]?d|\s+would)\s+like|i\s+(?:want|need))\s+to\s+"
    r"(?:know|understand|find\s+out|figure\s+out|learn)\s+"
    r"|i(?:['’]?m|\s+am|\s+was)?\s+wondering\s+|i\s+wonder\s+"
)
"""Words that ask by saying what the asker wants to know: "I'd like to know which ...", "I
need to figure out if ...", "I'm wondering whether ..."."""
_SPLIT = re.compile(
    r"\s*(?:[;?]|(\bas well as\b|\band also\b)"
    rf"|,?(?=\s+(?:[2-9]|[b-h])\)|\s+\((?:[2-9]|[b-h])\))"
    rf"|(?:,\s*)?\band\b(?:\s+then\b)?(?=\s+(?:{_LEADING}(?:{_ASKING}|whether)|if|{_TELLING})\b)"
    rf"|,\s*(?:plus\s+|then\s+|or\s+)?(?={_LEADING}(?:{'|'.join(_QUESTION_WORDS)})\b)"
    rf"|,\s*(?:but|also)\s+(?={_LEADING}(?:{_ASKING})\b)"
    rf"|,\s*(?=(?:{'|'.join(AUXILIARIES)})\s+{_PRONOUN}\b))\s*",
    re.IGNORECASE,
)
"""Where a question's parts meet: ``;`` or ``?``, "as well as", "and also" (the one group: what
follows them is asked for too), before the second or a later item of a list of asks ("1) ...
2) ...", "(a) ..., (b) ..."), "and" before a question word, "whether" or an auxiliary
("..., and how ...", "..., and whether ...", "... and is ..."; not "X and Y"), before a
condition ("..., and if X, what ...") or before a request ("... and tell me which ..."), also
as "and then"; a comma before a question word, before "plus", "then" or "or" and a question
word ("..., plus how ...", "..., then how ...", "..., or how should I store it?"), before "but"
or "also" and a question word or an auxiliary ("..., but what about ...", "..., also can I
..."), or before an auxiliary and a pronoun ("..., can I raise it?"). "Or" before an auxiliary
offers the other answer to one yes-or-no question ("..., or will it deadlock?"), and a comma
before "whether" qualifies what is asked ("..., whether or not it is used"): neither is a
meeting."""
_CONJUNCTION = r"(?:and|but|also|so)(?:,\s*|\s+)"
"""A conjunction a part may open with ("And which ...", "Also, how ..."): it joins the part to
the question, it is not part of what is asked."""
_OPENING = re.compile(rf"{_CONJUNCTION}(?=\S)", re.IGNORECASE)
_LISTED = re.compile(rf"(?:^|(?<=:))\s*{_ENUMERATOR}\s+", re.IGNORECASE)
"""The mark of an item in a list of asks where the item opens: what a part leaves out."""
_WH = "|".join(w for w in _QUESTION_WORDS if w != "when")
_AUXILIARY = "|".join(AUXILIARIES)
_ASKS = re.compile(
    rf"(?:^|[:,]\s*|[.!]\s+|\s[-–—]\s*)(?:{_ENUMERATOR}\s*)?(?:{_CONJUNCTION})?"
    rf"(?:(?:{_WANTING})(?:if|whether|when)\b|(?:{_WANTING})?"
    rf"{_LEADING}(?:(?:{_WH})\b|when(?:\s+(?:{_AUXILIARY})\b|['’]s\b|\s*$)"
    rf"|(?:{_AUXILIARY}|{_TELLING}|tell|compare|find|summari[sz]e)\b))"
    r"|^whether\b",
    re.IGNORECASE,
)
"""A piece that asks something: it opens, or goes on after a colon, a comma, a dash or a
sentence that tells the situation ("I missed the match. What was the score ..."), with a
question word ("On what date ...", "When did ...", "when's ...", "..., and if so, when"), an
auxiliary ("Can I ...", "For a large table, can ...") or a request ("Explain ..."), a
conjunction or the mark of an item in a list of asks allowed before it ("And which ...", "1)
what ..."), and words that say what the asker wants to know ("I'd like to know which ...",
"I need to find out if ..."); or it opens with "whether" (what "and" split
off: "..., and whether TLS is required"). "When I sort ...", "In a StrEnum", "If the server has
..." only set the scene."""

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
    whats whos hows wheres thats theres im ive youre youve theyre weve dont doesnt didnt cant
    couldnt wouldnt shouldnt isnt arent wasnt werent hasnt havent hadnt wont
"""
_STOPWORDS = frozenset(_STOPWORD_LIST.split())
"""English function words: they say how a question is asked, not what it asks about. A
contraction typed without its apostrophe ("dont", "whats") is one too."""
_KEYWORDS = frozenset({
    "and", "as", "else", "for", "from", "having", "if", "in", "into", "is", "not", "on", "or",
    "over", "using", "where", "while", "with",
})  # fmt: skip
_CONSTRUCT = re.compile(r"(?:loop|statement|clause|block|keyword|operator)s?", re.IGNORECASE)
"""Function words that are also keywords of a language (Python's, SQL's), and the words that
say one is meant as a keyword: "the else clause of a for loop", "the WHERE clause", "the is
operator". Followed by one of those, the word is what the text is about, and a term."""

_KEY_WEIGHT = 3.0
_PREFIX_WEIGHT = 1.5
_EXACT_WEIGHT = 2.0
"""Numbers and options: matched whole, and rarely by accident."""
_MISSING_KEY_FACTOR = 0.5
_ASKED_SHARE = 0.2
"""The share of the weight of a question's words other than names and identifiers (what it
asks about them) a passage must hold, or its score is cut."""
_MISSING_ASKED_FACTOR = 0.5
_CONTEXT_SHARE = 0.6
"""The share of its weight a term found only in a passage's headings or title counts for."""
_PAGE_SHARE = 0.35
"""The share of its weight a term found elsewhere on the passage's page counts for: the page
says what the passage is about, less directly than its headings."""
_STEMMERS = threading.local()
"""One Snowball stemmer per thread: a stemmer keeps the word it is stemming in its own state,
so two threads sharing one (runs ranking pages in worker threads at once) garble each other's
words."""


class TermStats:
    """Document frequencies of terms over a collection of passages, for IDF weights.

    IDF is BM25's: ``ln(1 + (N - df + 0.5) / (df + 0.5))``, raised to ``power``. A term no
    passage contains weighs as one that a single passage contains: as rare as anything seen,
    no rarer, so a misspelt or differently inflected word does not drown the words that did
    match. A power below 1 brings rare and common terms' weights closer together (see
    :meth:`flattened`); counts made :meth:`by_specificity` weigh each word by how specific it
    is in English as well.
    """

    def __init__(
        self, texts: Iterable[str] = (), *, power: float = 1.0, specific: bool = False
    ) -> None:
        self._df: Counter[str] = Counter()
        self.size = 0
        self.power = power
        self.specific = specific
        self._weights: dict[str, dict[str, float]] = {}
        """Each (sub-)question's term weights by these counts: the same few questions are
        weighed against every passage of the pages read."""
        for text in texts:
            self.add(text_terms(text))

    def add(self, terms: Iterable[str]) -> None:
        """Count one more passage, with its distinct ``terms``."""
        self.size += 1
        self._df.update(terms)
        self._weights.clear()

    def weights(self, part: str) -> dict[str, float]:
        """The terms of the (sub-)question ``part``, each with its weight by these counts."""
        if part not in self._weights:
            self._weights[part] = _weights(part, self)
        return self._weights[part]

    def flattened(self, power: float) -> TermStats:
        """These counts as they stand, with each IDF raised to ``power``."""
        out = TermStats(power=power, specific=self.specific)
        out._df = self._df.copy()
        out.size = self.size
        return out

    def by_specificity(self) -> TermStats:
        """These counts as they stand, each word's weight also times how specific it is in
        English (:func:`_specificity`)."""
        out = self.flattened(self.power)
        out.specific = True
        return out

    def idf(self, term: str) -> float:
        df = max(self._df[term], 1)
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5)) ** self.power


def sub_questions(question: str) -> list[str]:
    """Split a question into the parts it asks about; at least ``[question]``.

    Splits where ``_SPLIT`` finds parts meet: ``;``, ``?``, "as well as", "and also", "and" before a
    question word or auxiliary, a comma before a question word ... A piece that asks nothing (a
    preamble: "In a StrEnum, what value ...") joins the piece after it, unless "as well as" or "and
    also" added it to the request. A piece that names nothing ("..., and why?", "... and by whom?")
    joins the piece before it, and a piece after a first one that names fewer than two content terms
    joins it, so "X and Y" inside one part stays whole. A piece that names a single content term
    ("..., and what is its default?", "? Also, what about sets?") asks it of the part before it: it
    is a part of its own, followed by that part in brackets ("what is its default (What does
    statement_timeout control)"), whose words it is about. Joined pieces keep the question's own
    words between them.
    """
    cached = len(question) <= _CACHED_CHARS
    return list(_parts(question) if cached else _parts.__wrapped__(question))


@lru_cache(maxsize=1024)
def _parts(question: str) -> tuple[str, ...]:
    pieces: list[tuple[int, int, bool]] = []  # start, end, whether it asks
    start, added = 0, False
    for match in [*_SPLIT.finditer(question), None]:
        end = len(question) if match is None else match.start()
        text = question[start:end]
        if text.strip(" ,."):
            pieces.append((start, end, added or bool(_ASKS.search(text.strip(" ,.")))))
        if match is not None:
            start, added = match.end(), match.group(1) is not None
    spans: list[list[int]] = []
    scene: int | None = None  # where pieces that ask nothing began
    for begin, end, asks in pieces:
        if asks:
            spans.append([begin if scene is None else scene, end])
            scene = None
        elif scene is None:
            scene = begin
    if scene is not None:
        if spans:
            spans[-1][1] = pieces[-1][1]
        else:
            spans = [[scene, pieces[-1][1]]]

    def terms(span: list[int]) -> int:
        return len(content_terms(_LISTED.sub(" ", question[span[0] : span[1]])))

    merged: list[list[int]] = []
    leaning: set[int] = set()  # the parts that ask too little alone, of the part before them
    for span in spans:
        own = terms(span)
        if merged and (own == 0 or (terms(merged[-1]) < 2 and len(merged) - 1 not in leaning)):
            merged[-1][1] = span[1]
            continue
        if merged and own < 2:
            leaning.add(len(merged))
        merged.append(span)

    def worded(a: int, b: int) -> str:
        part = _LISTED.sub(" ", question[a:b]).lstrip(" ,.").rstrip(" ,.-–—(")
        if part.endswith(")") and part.count(")") > part.count("("):
            part = part[:-1]  # "(and why is it so low)": the bracket closes an aside
        return part[m.end() :] if (m := _OPENING.match(part)) else part

    parts: list[str] = []
    asked_of = ""
    for i, (a, b) in enumerate(merged):
        if i in leaning:
            parts.append(f"{worded(a, b)} ({asked_of})")
        else:
            asked_of = worded(a, b)
            parts.append(asked_of)
    return tuple(parts) if len(parts) > 1 else (question,)


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
    """Content terms of ``text`` in order, with repeats.

    Words are read as a reader sees them: zero-width characters and soft hyphens are not part
    of a word ("lunch\u00ades" is "lunches"), and a letter and its combining mark are one.
    Stopwords (but a keyword named as one: "the for loop") and single letters are dropped,
    words are lower-cased and Snowball-stemmed, numbers (``3.12``, ``30``) and options
    (``-O``, ``--help``) are kept whole, and identifiers (``copy.deepcopy``, ``max_workers``,
    ``ThreadPoolExecutor``) are split into their parts.
    """
    return list(_terms(text) if len(text) <= _CACHED_CHARS else _terms.__wrapped__(text))


_CACHED_CHARS = 300
"""Texts up to this long (questions, their parts, sentences) are the ones asked about again
and again; longer ones (a page's many passages) are computed each time, so the caches stay
small in bytes."""


@lru_cache(maxsize=4096)
def _terms(text: str) -> tuple[str, ...]:
    out: list[str] = []
    tokens = _TOKEN.findall(as_seen(text))
    for at, token in enumerate(tokens):
        if _NUMERIC.fullmatch(token) or _OPTION.match(token):
            out.append(token)
            continue
        for part in _identifier_parts(token):
            word = part.lower()
            if word.isdigit():
                out.append(word)
            elif len(word) > 1 and (
                word not in _STOPWORDS
                or (
                    word in _KEYWORDS
                    and at + 1 < len(tokens)
                    and _CONSTRUCT.fullmatch(tokens[at + 1])
                )
            ):
                out.append(_stem(word))
    return tuple(out)


def _identifier_parts(token: str) -> list[str]:
    parts: list[str] = []
    for piece in _PART.findall(token):
        camel = _CAMEL.findall(piece)
        whole = piece.isupper() or _ACRONYMS.fullmatch(piece) is not None
        parts.extend(camel if len(camel) > 1 and not whole else [piece])
    return parts


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """The stem of ``word`` in its American spelling: "serialised" is "serialized"."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(american(word)))


def text_terms(text: str) -> frozenset[str]:
    """The terms :func:`relevance` matches in ``text`` (uncached: for long texts)."""
    terms = _terms.__wrapped__(text)
    return frozenset(terms) | {a + b for a, b in pairwise(terms)}


@lru_cache(maxsize=1024)
def _text_terms(text: str) -> frozenset[str]:
    """The terms of ``text`` plus adjacent pairs joined, so "deep copy" matches "deepcopy"."""
    terms = _terms.__wrapped__(text)
    return frozenset(terms) | {a + b for a, b in pairwise(terms)}


@lru_cache(maxsize=1024)
def key_terms(part: str) -> dict[str, float]:
    """Weights of what a (sub-)question names: ``Tokyo``, ``os.path.join``, ``-O``, "a phrase".

    A name is what :func:`~quotebound.text.names.is_name` says (acronyms such as ``HTTP``, and
    their plurals such as ``BLOBs``, are topic words, not names), or a particle such as "van"
    inside one (:func:`~quotebound.text.names.is_particle`); an identifier has a dot,
    underscore, inner capital or digit, is an option, or is written as a call (``zip()``).
    Words in quotes are keys too. Module prefixes (``os.path.``) weigh less than the name they
    qualify, since pages about ``join`` often omit the module.
    """
    keys: dict[str, float] = {}
    for match in _TOKEN.finditer(part):
        token = match.group()
        acronym = token.isupper() or _ACRONYMS.fullmatch(token) is not None
        named = (is_name(part, match.start(), token) and not acronym) or is_particle(
            part, match.start(), token
        )
        if not named and not _IDENTIFIER.search(token) and not part.startswith("(", match.end()):
            continue
        prefix, _, last = token.rpartition(".") if not _OPTION.match(token) else ("", "", token)
        for text, weight in ((prefix, _PREFIX_WEIGHT), (last, _KEY_WEIGHT)):
            for term in _terms(text):
                if not term.isdigit():
                    keys[term] = max(weight, keys.get(term, 0.0))
    for phrase in _QUOTED.findall(part):
        for term in _terms(phrase):
            keys[term] = _KEY_WEIGHT
    return keys


@lru_cache(maxsize=1024)
def _identifiers(part: str) -> tuple[str, ...]:
    """The names a (sub-)question spells as code: the last component of each identifier
    (``set_max_threads`` of ``asyncio.set_max_threads()``) and each option (``-O``)."""
    names: list[str] = []
    for token in _TOKEN.findall(part):
        if _OPTION.match(token):
            names.append(token)
        elif _IDENTIFIER.search(token):
            last = token.rpartition(".")[2]
            if "_" in last or re.search(r"[a-z][A-Z]", last) or ("." in token and last.istitle()):
                names.append(last)
    return tuple(names)


def names_identifiers(question: str) -> bool:
    """Whether ``question`` names an identifier or option (see :func:`spells_identifiers`)."""
    return bool(_identifiers(question))


def spells_identifiers(question: str, text: str) -> bool:
    """Whether ``text`` spells, as written, every identifier and option that ``question``
    names (the last component of each: ``set_max_threads`` of ``asyncio.set_max_threads()``).
    A paraphrase may reword what a question asks, never the code it names. An exception's name
    is not asked for: a question names it to say what went wrong ("my old code now dies with
    AttributeError"), and the passage that says why ("The sys.maxint constant was removed")
    seldom names it; it still weighs as a name in relevance. A question (or a part of one)
    with no capital letter says nothing by its case, so it names the code in any case
    ("typing.type_checking" for ``typing.TYPE_CHECKING``)."""
    if question.islower():
        text = text.casefold()
    return all(name in text for name in _spelled_names(question))


@lru_cache(maxsize=1024)
def _spelled_names(part: str) -> tuple[str, ...]:
    """The names :func:`spells_identifiers` looks for (once per part: it is asked of every
    quote): ``part``'s identifiers and options but exceptions' names, folded when ``part`` has
    no capital letter."""
    names = [name for name in _identifiers(part) if not _EXCEPTION.search(name)]
    return tuple(name.casefold() for name in names) if part.islower() else tuple(names)


def _base_weight(term: str, keys: dict[str, float]) -> float:
    if term in keys:
        return keys[term]
    if term[0].isdigit() or term[0] == "-":
        return _EXACT_WEIGHT
    return 1.0


def _weights(part: str, stats: TermStats | None) -> dict[str, float]:
    """Each term of ``part`` with its weight: what it names weighs most (:func:`key_terms`),
    numbers and options more than words, each times its IDF by ``stats`` (and, by counts made
    :meth:`~TermStats.by_specificity`, a word times how specific it is in English)."""
    keys = key_terms(part)
    asked = _HOW_WORD.sub("how", part)
    words = _written_words(asked) if stats is not None and stats.specific else {}
    return {
        t: _base_weight(t, keys)
        * (_specificity(words[t]) if t in words and t not in keys else 1.0)
        * (stats.idf(t) if stats is not None else 1.0)
        for t in _terms(asked)
    }


@lru_cache(maxsize=1024)
def _written_words(part: str) -> dict[str, str]:
    """Each plain word's term in ``part`` with the word as written (lower-cased), the first
    one that stems to it; not a function word named as a keyword ("the for loop"), which is
    the subject however common it is in English."""
    out: dict[str, str] = {}
    for token in _TOKEN.findall(as_seen(part)):
        word = token.lower()
        if token.isalpha() and word not in _STOPWORDS:
            for term in _terms(word):
                out.setdefault(term, word)
    return out


_ENGLISH_ZIPF_CEILING = 9.0
_SPECIFICITY_SCALE = 4.5
_SPECIFICITY_POWER = 2.0
_SPECIFICITY_CAP = 2.0


@lru_cache(maxsize=4096)
def _specificity(word: str) -> float:
    """How specific ``word`` is by its frequency in general English, on wordfreq's Zipf scale
    (log10 of its uses per billion words: 6 for "make", 4 for "clause"; 0 for a word used
    less than once per million words, which its small list, 4 MB in memory, leaves out):
    ``((9 - zipf) / 4.5) ** 2``, 1.0 at Zipf 4.5, 0.44 for the commonest words, 2.0 at most.
    The pages read were chosen for the question's subject, so their counts
    (:class:`TermStats`) make the subject's words look common and the asker's everyday wording
    ("put", "inside", "body") rare; English as a whole says which is which."""
    from wordfreq import zipf_frequency  # 0.18 s to import: only once quotes are ranked

    zipf = zipf_frequency(word, "en", wordlist="small")
    ratio = (_ENGLISH_ZIPF_CEILING - zipf) / _SPECIFICITY_SCALE
    return min(_SPECIFICITY_CAP, ratio**_SPECIFICITY_POWER)


def _coverage(
    part: str,
    text_terms: frozenset[str],
    context_terms: frozenset[str],
    stats: TermStats | None,
    spelled: str,
    page_terms: frozenset[str] = frozenset(),
) -> float:
    keys = key_terms(part)
    weights = stats.weights(part) if stats is not None else _weights(part, None)
    total = sum(weights.values())
    if total == 0:
        return 0.0
    found = sum(w for t, w in weights.items() if t in text_terms)
    found += _CONTEXT_SHARE * sum(
        w for t, w in weights.items() if t in context_terms and t not in text_terms
    )
    found += _PAGE_SHARE * sum(
        w
        for t, w in weights.items()
        if t in page_terms and t not in text_terms and t not in context_terms
    )
    score = found / total
    if keys and not keys.keys() & (text_terms | context_terms):
        score *= _MISSING_KEY_FACTOR
    asked = {t: w for t, w in weights.items() if t not in keys}
    if asked and sum(w for t, w in asked.items() if t in text_terms | context_terms) < (
        _ASKED_SHARE * sum(asked.values())
    ):
        score *= _MISSING_ASKED_FACTOR  # the names are there, what is asked about them is not
    if not spells_identifiers(part, spelled):
        score *= _MISSING_KEY_FACTOR  # a passage about a name it never spells is not about it
    return score


def term_coverage(text: str, support: str) -> float:
    """The unweighted share of ``text``'s content terms that ``support`` contains (1.0 if none).

    Used to judge whether a claim restates its quotes rather than adding to them.
    """
    terms = set(_terms(text))
    if not terms:
        return 1.0
    return len(terms & _text_terms(support)) / len(terms)


@dataclass(frozen=True)
class PassageTerms:
    """A passage's terms, ready to be scored against any number of questions."""

    terms: frozenset[str]
    """The terms of the passage itself (see :func:`text_terms`); those of the question are
    enough (see :func:`question_terms`)."""
    context_terms: frozenset[str]
    """The terms of what it sits under: its title, headings and neighbours."""
    spelled: str
    """Its context and text as written, where identifiers are looked for."""


def question_terms(question: str) -> frozenset[str]:
    """Every term that the question or any of its parts weighs: a passage's other terms never
    change its relevance, so a passage's terms may be cut down to these."""
    out: set[str] = set()
    for part in {question, *sub_questions(question)}:
        out.update(_terms(part), _terms(_HOW_WORD.sub("how", part)), key_terms(part))
    return frozenset(out)


def relevance(
    question: str,
    text: str,
    *,
    context: str = "",
    stats: TermStats | None = None,
    page_terms: frozenset[str] = frozenset(),
) -> float:
    """How well ``text`` covers the question or one of its sub-questions, 0-1, deterministic.

    ``context`` is what the passage sits under (its page title and headings): a reader sees it
    with the passage, so its terms count, at a share of their weight (every passage of a page
    shares its title). ``page_terms`` (see :func:`text_terms`) are the terms of the rest of the
    page, which count at a smaller share. ``stats`` weighs terms by IDF.
    """
    passage = PassageTerms(
        _text_terms(text), _text_terms(context) if context else frozenset(), f"{context}\n{text}"
    )
    return passage_relevance(question, passage, stats=stats, page_terms=page_terms)


def passage_relevance(
    question: str,
    passage: PassageTerms,
    *,
    stats: TermStats | None = None,
    page_terms: frozenset[str] = frozenset(),
) -> float:
    """:func:`relevance` of a passage whose terms are already computed."""
    return round(
        max(
            _coverage(p, passage.terms, passage.context_terms, stats, passage.spelled, page_terms)
            for p in sub_questions(question)
        ),
        6,
    )
