"""Markup nested deeper than browsers allow, flattened before lexbor builds its tree.

lexbor scans its open-element stack per tag, so its tree building is quadratic in nesting
depth. :func:`nesting_depth` bounds the depth at C speed; when it exceeds :data:`MAX_DEPTH`,
:func:`cap_depth` unwraps the elements below that depth with a linear tokenizer, keeping all
their text (docs/architecture.md §4).
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import accumulate, chain

from quotebound.text.html.tags import BLOCK_TAGS, names
from quotebound.text.wordtrie import trie_pattern

__all__ = ["MAX_DEPTH", "cap_depth", "nesting_depth"]

MAX_DEPTH = 512
"""Nesting beyond this is flattened first: lexbor scans its open-element stack per tag, so
depth costs quadratic time. Browsers cap the tree at a similar depth."""

_FLAT_TAGS = names(
    """
    area base br col embed hr img input keygen link meta param source track wbr p li dt dd
    tr td th option optgroup tbody thead tfoot path use circle rect line polyline polygon
    ellipse stop
    """
)
"""Tags that cannot build depth: void elements, elements that close their own kind, and SVG
shapes that are usually self-closed."""


# Upper-case tags all count as nesting (no case folding, for speed): that can only overestimate.
_NESTING_TAG = re.compile(rf"<(/?)(?!{trie_pattern(_FLAT_TAGS)}[\s/>])[a-zA-Z]")
_DEPTH_STEP = {"": 1, "/": -1}
_CHEAP_TAGS = 4096
"""Pages with fewer ``<`` than this cannot nest deep enough to be slow: skip the depth scan."""


def nesting_depth(html: str) -> int:
    """An upper bound on the element nesting depth of ``html``, computed at C speed.

    Overestimates (unclosed elements, upper-case tags) only cost time: :func:`cap_depth` then
    keeps the same text.
    """
    if html.count("<") < _CHEAP_TAGS:
        return 0
    steps = map(_DEPTH_STEP.__getitem__, _NESTING_TAG.findall(html))
    levels = list(accumulate(chain((0,), steps)))
    # Measured from the lowest level, so stray end tags cannot hide nesting.
    return max(levels) - min(levels)


# A tag up to the next "<" or ">": bounded by the next "<", so scanning stays linear.
_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)[^<>]*>")


def cap_depth(html: str) -> str:
    """``html`` with every element deeper than ``MAX_DEPTH`` unwrapped; all text is kept.

    An unwrapped block element becomes ``<hr>``, so its paragraph breaks survive.
    """
    out: list[str] = []
    stack: list[tuple[str, bool]] = []
    open_names: Counter[str] = Counter()
    pos = 0
    for m in _TAG.finditer(html):
        out.append(html[pos : m.start()])
        pos = m.end()
        name = m.group(2).lower()
        if name in _FLAT_TAGS:
            out.append(m.group())
        elif not m.group(1):
            kept = len(stack) < MAX_DEPTH
            stack.append((name, kept))
            open_names[name] += 1
            out.append(m.group() if kept else "<hr>" if name in BLOCK_TAGS else "")
        elif open_names[name]:
            while True:
                top, kept = stack.pop()
                open_names[top] -= 1
                out.append(f"</{top}>" if kept else "<hr>" if top in BLOCK_TAGS else "")
                if top == name:
                    break
        else:
            out.append(m.group())
    out.append(html[pos:])
    return "".join(out)
