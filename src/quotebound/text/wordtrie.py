"""A regular expression that matches a list of words, built as a trie.

Python's ``re`` tries the branches of ``a|b|c`` one by one at each position; a trie
(``(?:n(?:av|ewsletter)|...)``) shares their prefixes, so a long word list costs about as much
as a short one. Used for tag names and for the word lists of content scoring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["trie_pattern"]


def trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching exactly ``words``, as a trie (much faster than a|b|c)."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def alternatives(node: dict[str, Any]) -> str:
        alts = [
            re.escape(ch) + alternatives(rest) if ch else "" for ch, rest in sorted(node.items())
        ]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return alternatives(tree)
