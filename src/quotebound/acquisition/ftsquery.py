"""FTS5 query text for a local corpus, and the option keys its index spells options with.

Arbitrary user text becomes a query of quoted word terms, so nothing a user types is ever read
as FTS5 syntax. Command-line options (``-O``, ``--help``) become option keys, spelled the same
way in the index's ``keys`` column and in a query, so ``-O`` and ``-o`` stay apart
(docs/architecture.md §3).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from quotebound.text.normalize import as_seen
from quotebound.text.spelling import spellings

__all__ = [
    "CAPITALS_RUN",
    "called_names",
    "code_names",
    "fts_query",
    "offered_names",
    "option_keys",
    "phrase",
    "qualified_names",
]

_WORD = re.compile(r"\w+")
_OPTION = re.compile(r"(?<![\w-])(--?)([A-Za-z][\w-]*)")
_IDENTIFIER = re.compile(r"\w+(?:\.\w+)+|\w*_\w+|\w*[a-z][A-Z]\w*|[A-Za-z]\w+(?=\()")
CAPITALS_RUN = re.compile(r"[A-Z][A-Z\d]{2,}(?:[ ]+[A-Z][A-Z\d]{2,})+")
"""A run of words in capitals (``CREATE PROCEDURE``)."""
_CODE = re.compile(
    rf"(?<![\w.-])(?:{_IDENTIFIER.pattern}|{CAPITALS_RUN.pattern}|[A-Z][A-Z\d]{{3,}})(?!\w)"
)
"""Code a text names: an identifier (a dot, an underscore, an inner capital, or a word written
as a call: ``zip()``), a run of words in capitals (``CREATE PROCEDURE``, spelled together) or
a word in capitals (``MEDIUMBLOB``)."""
_DOT_NAME = re.compile(r"(?<![\w.])\.([A-Za-z][\w-]*)")
"""A name written after a dot at a word's start: a shell's dot-command (``.mode``), a file
extension (``.pyc``)."""
_LETTERS = re.compile(r"[A-Za-z]{2}")
_CALLED = re.compile(
    r"\bthe\s+(?:\S+\s+)?([A-Za-z][\w-]*)\s+"
    r"(?:keyword|operator|statement|option|flag|pragma|directive|setting|parameter|clause"
    r"|modifier|decorator)s?\b",
    re.IGNORECASE,
)
"""The word before what a text calls a keyword, operator, option or setting: "the fallthrough
keyword", "the -X nogil option"."""
_OFFERED = re.compile(
    r"\b(?:such\s+as|say|e\.g\.|for\s+(?:example|instance))[,:]?\s+[`'\"“‘]?$", re.IGNORECASE
)
"""What gives the name right after it as an example: "a long option such as --verb", "a
prefix, say, --verb", "e.g. `my_func()`"."""
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i",
    "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when",
    "where", "which", "who", "why", "with",
})  # fmt: skip
_MAX_TERMS = 24


def option_keys(text: str) -> str:
    """Command-line options in ``text`` (``-O``, ``--help``) as index words that keep their
    dashes and case apart (``-O`` and ``-o`` differ), space-separated."""
    return " ".join(_option_key(dashes, name) for dashes, name in _OPTION.findall(text))


def _option_key(dashes: str, name: str) -> str:
    spelled = "".join(f"u{c.lower()}" if c.isupper() else c for c in name if c.isalnum())
    return f"opt{len(dashes)}{spelled}"


def code_names(text: str) -> dict[str, str]:
    """The code ``text`` names, as written, each with the FTS5 query of a passage that spells
    it: an identifier by its last part (``sort_by_value`` of ``dict.sort_by_value()``: pages
    about a method often omit its class), words in capitals (``MEDIUMBLOB``; a run of them,
    such as ``CREATE PROCEDURE``, as one phrase), a dot-command or file extension (``.heatmap``,
    by its words: the passages to look in for it written with its dot) and an option
    (``--turbo-start``, by its option key). Numbers (``3.11``) name no code."""
    names: dict[str, str] = {}
    for token in _CODE.findall(text):
        last = token.rpartition(".")[2]
        if _LETTERS.search(last):
            names[last] = phrase(last)
    for name in _DOT_NAME.findall(text):
        if _LETTERS.search(name):
            names["." + name] = phrase(name)
    for dashes, name in _OPTION.findall(text):
        names[dashes + name] = f'keys : "{_option_key(dashes, name)}"'
    return names


def called_names(text: str) -> dict[str, str]:
    """The words ``text`` calls a keyword, operator, option or setting (``fallthrough`` of "the
    fallthrough keyword", ``nogil`` of "the -X nogil option"), less those that
    :func:`code_names` holds: names of features, which documents that have the feature spell.
    Each comes with the FTS5 query of a passage that holds all its words, in any order
    ("multi-minmax" is the documents' "minmax-multi"). Most such words are English ("the same
    option"), which any corpus spells."""
    code = code_names(text)
    return {
        name: " ".join(f'"{word}"' for word in _WORD.findall(name.lower()))
        for name in _CALLED.findall(text)
        if _LETTERS.search(name) and not any(name in n or n in name for n in code)
    }


def qualified_names(text: str) -> dict[str, tuple[str, str]]:
    """The qualified names ``text`` writes (``math.clamp``, ``pathlib.Path.walk``), each with
    its last qualifier and its own name (``Path`` and ``walk``). Numbers (``3.11``) are none."""
    names: dict[str, tuple[str, str]] = {}
    for token in _CODE.findall(text):
        parts = token.split(".")
        if len(parts) > 1 and _LETTERS.search(parts[-2]) and _LETTERS.search(parts[-1]):
            names[token] = (parts[-2], parts[-1])
    return names


def offered_names(text: str, names: Iterable[str]) -> set[str]:
    """Those of ``names`` that ``text`` writes only as examples ("does argparse accept a prefix
    of a long option, such as --verb for --verbose?"): the asker's illustration of what is
    asked, not a name a document is asked to have."""
    offered = set()
    for name in names:
        written = rf"(?<![\w.-])(?:\w+\.)*{re.escape(name)}(?!\w)"  # "clamp" of "math.clamp"
        spots = [m.start() for m in re.finditer(written, text)]
        if spots and all(_OFFERED.search(text[:spot]) for spot in spots):
            offered.add(name)
    return offered


def phrase(name: str) -> str:
    """The FTS5 phrase of a passage that spells ``name``: its words, quoted."""
    return '"' + " ".join(_WORD.findall(name.lower())) + '"'


def fts_query(text: str) -> str | None:
    """A safe FTS5 query for arbitrary user text: any of its words, with what it names first.

    Identifiers (``str.removeprefix``, ``max_workers``, ``zip`` written as a call: ``zip()``)
    and quoted phrases become phrases and options (``-O``) option keys; each counts twice, so
    they weigh most. Every term is a quoted string of word characters, so no user text is ever
    read as FTS5 syntax. Common function words are dropped unless nothing else is left. A word
    that has a British and an American spelling is asked in both ("serialised" OR
    "serialized"). None when the text has no words. The text is read as a reader sees it
    first, as the index reads its passages (a later round's query takes words from the quotes
    it read).
    """
    text = as_seen(text)
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:_MAX_TERMS]
    if not words:
        return None
    terms = [w for w in words if w not in _STOPWORDS] or words
    phrases = [
        phrase(m) for m in [*_IDENTIFIER.findall(text), *_QUOTED.findall(text)] if _WORD.search(m)
    ]
    keys = [f'keys : "{_option_key(d, n)}"' for d, n in _OPTION.findall(text)]
    named = [*dict.fromkeys(phrases), *dict.fromkeys(keys)]
    spelled = dict.fromkeys(s for w in terms for s in spellings(w))
    return " OR ".join([*named, *named, *(f'"{w}"' for w in spelled)])
