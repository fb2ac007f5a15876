"""The element tables of the walk: what the walker does at each HTML tag.

Block elements end paragraphs, table cells join a row's paragraph, links are counted for link
density, dropped elements (scripts, styles, SVG ...) are not entered, and ``<br>``, ``<hr>``,
``<meta>`` and ``<time>`` each have a job of their own; every other element is inline and only
descended (docs/architecture.md §4).
"""

from __future__ import annotations

__all__ = [
    "BLOCK",
    "BLOCK_TAGS",
    "BR",
    "CELL",
    "DROP",
    "HR",
    "KIND",
    "KIND_TEXT_ONLY",
    "LINK",
    "META",
    "PERMALINK_MARKS",
    "PRE_TAGS",
    "TIME",
    "names",
]


def names(words: str) -> frozenset[str]:
    """A set of tag, role or class names written as one whitespace-separated string."""
    return frozenset(words.split())


BLOCK_TAGS = names(
    """
    address article aside blockquote body caption center colgroup dd details dialog dir div
    dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup
    legend li listing main menu nav ol optgroup option p plaintext pre search section select
    summary table tbody textarea tfoot thead tr ul xmp
    """
)
PRE_TAGS = frozenset({"pre", "listing", "plaintext", "xmp", "textarea"})
_DROP_TAGS = names(
    """
    script style noscript template svg iframe object canvas title annotation annotation-xml
    datalist
    """
)
BLOCK, CELL, LINK, DROP, BR, HR, META, TIME = range(1, 9)
"""Element kinds; ``BLOCK`` and ``CELL`` must stay the two lowest."""
KIND = {
    **dict.fromkeys(BLOCK_TAGS, BLOCK),
    **dict.fromkeys(_DROP_TAGS, DROP),
    "td": CELL,
    "th": CELL,
    "a": LINK,
    "br": BR,
    "hr": HR,
    "meta": META,
    "time": TIME,
}
"""What the walker does at an element; elements not listed are inline and only descended."""
PERMALINK_MARKS = frozenset({"¶", "§", "#"})
"""The whole text of a link into its own page that marks a permalink, not content, which the
generators that write it show only on hover: Sphinx's and MkDocs' "¶", rustdoc's "§", the "#"
of PostgreSQL's newer documentation ("id_link")."""
KIND_TEXT_ONLY = {tag: kind for tag, kind in KIND.items() if kind != LINK}
"""The same when no roles are scored: links then need no counting."""
