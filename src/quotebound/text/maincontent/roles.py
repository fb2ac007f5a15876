"""Main content by scoring: which paragraphs of a page are its article, and which are not.

The parser's walk hands over the page's block elements as a tree
(:class:`~quotebound.text.maincontent.containers.Nodes`, each node weighed by what its tag and
attributes say) and its paragraphs with a few measures each
(:class:`~quotebound.text.maincontent.prose.Para`). One pass scores every container the way a
reader's eye does: prose paragraphs (long, with commas, few links) lend their score to the
containers above them, less with each level; a container's class and id words (``article``,
``content``, ``post`` ... or ``comment``, ``share``, ``related`` ...), its tag (``<article>``,
``<main>``, ``<nav>``), ``itemprop=articleBody``, its link density and the page's JSON-LD
``articleBody`` add or take away. Every signal is a weight; none decides alone.

The best container, widened to an ancestor when strong candidates sit side by side, and joined by
other strong candidates and by siblings that score well or are the same kind of box, is the main
region; the boxes of its kind beside the section it lies in join too, and beside the outermost
box of a kind it is nested in (a class's section inside a module's "Classes" section). Inside
it, paragraphs are classed as jusText does (good prose, near-good, short, link list;
:mod:`quotebound.text.maincontent.prose`) and short ones follow their neighbours; containers
that look like boilerplate (share bars, bylines, related lists, comment threads, captions) stay
boilerplate, unless captions of one class together hold most of the region (a slideshow told
in its captions), or boxes of one kind do with next to no prose beside them (a forum's posts
classed "comment": no article for them to comment on). Prose beside the region in its parent,
and a lead just above it, join it. A page that streams stories one after another, each in a
box of one kind under its own headline, has as its article the story whose headline the page's
title names, whichever scores best. When all that is found is a few lines of a page of prose,
the page is read again with the boxes that hold most of its prose, as prose, taken by their tag
alone: the article's own box may be named like a byline or a share bar. A page with text always
gets main paragraphs: with no prose anywhere, the best-named or the densest text container is
main.
"""

from __future__ import annotations

from functools import cached_property

from quotebound.text.maincontent.containers import (
    ARTICLE_TAGS,
    BODY,
    HIDDEN,
    LANDMARK_WEIGHT,
    NAMED,
    NEGATIVE,
    TAG_WEIGHT,
    Nodes,
    boilerplate_words,
)
from quotebound.text.maincontent.prose import BAD, GOOD, NEAR, Para, kind_of, lead_like, neighbours

__all__ = ["main_flags"]

_MIN_CHARS = 25
"""Shorter paragraphs lend no score."""
_SHADE = 0.3
"""What a paragraph under a boilerplate-looking container lends, as a share."""
_ALSO = 0.5
"""Another candidate this close to the best one's score joins the region."""
_SECTION_LEVELS = 2
"""How far above the region a section box may be that brings its sibling sections, counted in
boxes with a class (a table's row or body between them is no level)."""
_PART_OF_WHOLE = 1.0
"""The region widens to an ancestor whose prose outside it is at least this share of the prose
inside (climbing past wrappers, up to a boilerplate-looking box): the candidate was one section
of a body split into many."""
_LEVEL_SHARE = (1.0, 1.0, 0.5, 1 / 6, 1 / 9, 1 / 12)
"""Share of a paragraph's score that the node holding it and each ancestor level receive."""
_BESIDE_LEVELS = 2
"""Prose beside the region counts up to its grandparent (a lead in the article's header)."""
_LEAD_GAP = 14
"""Paragraphs that may stand between a lead and the body (byline, date, share links ...)."""
_LEAD_PARAGRAPHS = 4
"""The most paragraphs a lead may have."""
_BODY_BONUS = 20.0
"""What a paragraph of the page's stated JSON-LD ``articleBody`` adds to its score."""
_CAPTION = "figcaption"
"""A figure's caption: boilerplate beside an article, the story itself in a slideshow."""
_FREE_PROSE = 0.05
"""Boxes that a class word names boilerplate ("comment") and that together hold most of the
region are its content only when the prose beside them is less than this share of theirs."""
_SCANS = 4
"""How many times over its nodes a page's boxes may be measured by kind (:class:`_Wrappers`):
a real page measures a few boxes; a hostile one nesting thousands would be read again and again."""
_LINK_LIST = 0.5
"""A paragraph at least this share link text is a link list: boilerplate."""
_SHORT_MAIN = 300
"""Main content shorter than this many characters is read again (:func:`_misnamed`)."""
_FALLBACK_GAIN = 3
"""How many times as much main content the second reading must find to be taken (and no
less than ``_SHORT_MAIN``: a popup's line is no article)."""
_PROSE_LINKS = 0.1
"""The most link text a box of prose holds, as a share of its text (:func:`_misnamed`)."""


def main_flags(nodes: Nodes, paras: list[Para]) -> list[bool]:
    """Whether each paragraph is main content; at least one is when any has text."""
    if not paras:
        return []
    main = _main(nodes, paras, list(nodes.flags), list(nodes.weight))
    found = sum(p.chars for p, m in zip(paras, main, strict=True) if m)
    if found >= _SHORT_MAIN:
        return main
    # A few lines out of a page of prose: the article's own box may be named like boilerplate
    # ("author-article", "sharingcontainer"). Read again with the boxes that hold most of the
    # page's prose taken by their tag alone, the boxes inside them still by their names.
    misnamed = _misnamed(nodes, paras)
    if not misnamed:
        return main
    flags, weight = list(nodes.flags), list(nodes.weight)
    for i in misnamed:
        flags[i] &= ~NEGATIVE
        weight[i] = max(weight[i], TAG_WEIGHT.get(nodes.tag[i], 0.0))
    again = _main(nodes, paras, flags, weight)
    more = sum(p.chars for p, m in zip(paras, again, strict=True) if m)
    return again if more >= max(_SHORT_MAIN, _FALLBACK_GAIN * found) else main


def _sum_up(parent: list[int], *counts: list[int]) -> None:
    """Each node's ``counts`` summed over its subtree, in place, in one pass: children come
    after their parents."""
    for i in range(len(parent) - 1, -1, -1):
        up = parent[i]
        if up >= 0:
            for count in counts:
                count[up] += count[i]


def _misnamed(nodes: Nodes, paras: list[Para]) -> list[int]:
    """The boxes that their class or id names alone mark boilerplate (not a landmark tag or
    role) and that hold most of the page's prose paragraphs as prose: at most a tenth of their
    text in links (a sidebar of teasers links each of them)."""
    parent = nodes.parent
    n = len(parent)
    prose, chars, links = [0] * n, [0] * n, [0] * n
    for p in paras:
        if p.node >= 0:
            prose[p.node] += p.chars if _lends(p) else 0
            chars[p.node] += p.chars
            links[p.node] += p.links
    total = sum(prose)
    _sum_up(parent, prose, chars, links)
    return [
        i
        for i, flag in enumerate(nodes.flags)
        if flag & NAMED
        and not flag & HIDDEN
        and prose[i] * 2 >= total
        and links[i] <= _PROSE_LINKS * chars[i]
    ]


def _main(nodes: Nodes, paras: list[Para], flags: list[int], weight: list[float]) -> list[bool]:
    """Whether each paragraph is main content, the containers read with ``flags`` and
    ``weight`` (their own, or with misnamed boxes taken by their tag: :func:`main_flags`)."""
    n = len(nodes.parent)
    parent = nodes.parent
    chars = [0] * n
    links = [0] * n
    prose = [0] * n  # characters of scoring paragraphs outside boilerplate-looking boxes
    score = [0.0] * n
    # Prose under a boilerplate-looking or hidden container (a consent text in a form, a bio in
    # a footer) lends less: a weight, not a veto, so a page wrapped whole in one keeps its
    # ranking. An article's own <header> (headline, lead, byline) is not a page banner.
    shaded = [False] * n
    in_article = [False] * n
    for i, (up, tag) in enumerate(zip(parent, nodes.tag, strict=True)):
        outer = in_article[up] if up >= 0 else False
        in_article[i] = outer or tag in ARTICLE_TAGS
        if tag == "header" and outer:
            flags[i] &= ~NEGATIVE
            weight[i] += LANDMARK_WEIGHT
        # An <article> or <main> inside a boilerplate-named wrapper resets the shade: real
        # sites wrap whole articles in "share" or "ad" containers.
        reset = tag in ARTICLE_TAGS
        shaded[i] = bool(flags[i] & (NEGATIVE | HIDDEN)) or (up >= 0 and shaded[up] and not reset)
    hits = [0] * n  # paragraphs of the JSON-LD articleBody
    for p in paras:
        if p.node < 0:
            continue
        chars[p.node] += p.chars
        links[p.node] += p.links
        hits[p.node] += p.in_article_body
        if not _lends(p):
            continue
        s = 1.0 + p.commas + min(p.chars / 100, 3.0) + _BODY_BONUS * p.in_article_body
        if shaded[p.node]:
            s *= _SHADE
        else:
            prose[p.node] += p.chars
        node = p.node
        for share in _LEVEL_SHARE:
            if node < 0:
                break
            score[node] += s * share
            node = parent[node]
    _sum_up(parent, chars, links, hits, prose)
    final = [
        (score[i] + weight[i]) * (1 - links[i] / chars[i]) if score[i] > 0 else 0.0
        for i in range(n)
    ]
    # When the page states its article body, only containers holding some of it may join.
    joinable = [h > 0 for h in hits] if any(hits) else [True] * n
    # A stream of articles: only the one the title names, and nothing that holds another.
    apart = _other_articles(nodes, paras, final)
    if apart is not None:
        final = [0.0 if a else f for f, a in zip(final, apart, strict=True)]
        joinable = [j and not a for j, a in zip(joinable, apart, strict=True)]
        shaded = [s or a for s, a in zip(shaded, apart, strict=True)]
    roots = _region(nodes, final, chars, links, prose, shaded, joinable, apart or [False] * n)
    main = _clean(nodes, flags, paras, roots, chars, joinable, stated=any(hits))
    _add_lead(paras, main, shaded, stated=any(hits))
    return main


def _lends(p: Para) -> bool:
    """Whether a paragraph is prose that lends its containers score: long enough, under half
    links."""
    return p.chars >= _MIN_CHARS and p.links * 2 < p.chars


def _other_articles(nodes: Nodes, paras: list[Para], final: list[float]) -> list[bool] | None:
    """On a page that streams articles one after another (a news site that appends the next
    stories below the one asked for), the nodes of the stories other than the one the page's
    title names, and every node that holds one of them; None on any other page.

    The best container's article is the box around it that holds a top heading (``h1``). When
    that headline is not the one the title names, and another box of the same kind (its tag
    and classes) holds the headline the title names, the page is such a stream: the boxes of
    that kind that each hold one headline are its stories, and the one named is the article."""
    if not any(p.names_page for p in paras):
        return None  # most pages: nothing more to read
    n = len(nodes.parent)
    parent = nodes.parent
    heads, named = [0] * n, [0] * n
    for p in paras:
        if p.tag == "h1" and p.node >= 0:
            heads[p.node] += 1
            named[p.node] += p.names_page
    if not any(named):
        return None
    _sum_up(parent, heads, named)
    box = max(range(n), key=lambda i: (final[i], -i))
    if final[box] <= 0:
        return None
    while box >= 0 and not heads[box]:
        box = parent[box]
    if box < 0 or named[box] or heads[box] != 1:
        return None
    kind = (nodes.tag[box], nodes.classes[box])
    if not kind[1] and kind[0] not in ARTICLE_TAGS:
        return None  # a box of no class and a plain tag is not of a kind
    stories = {i for i in range(n) if (nodes.tag[i], nodes.classes[i]) == kind and heads[i] == 1}
    chosen = [i for i in sorted(stories) if named[i]]
    if len(chosen) != 1 or final[chosen[0]] <= 0:
        return None
    stories.remove(chosen[0])
    others = [False] * n
    for i in range(n):  # a story's nodes (children come after parents)
        others[i] = i in stories or (parent[i] >= 0 and others[parent[i]])
    for i in range(n - 1, -1, -1):  # and every node that holds one
        if others[i] and parent[i] >= 0:
            others[parent[i]] = True
    return others


def _region(
    nodes: Nodes,
    final: list[float],
    chars: list[int],
    links: list[int],
    prose: list[int],
    shaded: list[bool],
    joinable: list[bool],
    apart: list[bool],
) -> set[int]:
    """The roots of the main region: the best container, climbed and joined by siblings; none
    ``apart`` (another story of a stream, or a node that holds one: :func:`_other_articles`)."""
    parent = nodes.parent
    ranked = sorted((i for i in range(len(final)) if final[i] > 0), key=lambda i: -final[i])
    if not ranked:
        # No prose anywhere: the container its markup names best (a landmark, an article
        # class), else the one with the most text that is not links.
        texts = [i for i in range(len(chars)) if chars[i] > links[i]]
        if not texts:
            return set()
        named = max(texts, key=lambda i: (nodes.weight[i], chars[i] - links[i], -i))
        if nodes.weight[named] > TAG_WEIGHT["div"]:
            return {named}
        return {max(texts, key=lambda i: (chars[i] - links[i], -i))}
    top = ranked[0]
    best = final[top]
    # Strong candidates side by side (posts of a thread, sections of a long article) share an
    # ancestor: the region is that ancestor.
    strong = [i for i in ranked[1:5] if final[i] >= 0.75 * best]
    if len(strong) >= 2:
        ancestor = parent[top]
        while ancestor >= 0 and not apart[ancestor]:
            if sum(_within(parent, i, ancestor) for i in strong) >= 2:
                top = ancestor
                break
            ancestor = parent[ancestor]
    # Climb while the parent scores better: the candidate was one part of a larger body.
    last = final[top]
    up = parent[top]
    while up >= 0 and final[up] > last:
        top, last, up = up, final[up], parent[up]
    # A parent holding as much prose again beside the candidate (the other sections of a
    # reference page, each its own box) is the region, unless the page states its body.
    up = parent[top]
    while up >= 0 and not shaded[up] and joinable[up] and not nodes.flags[top] & BODY:
        if prose[up] - prose[top] >= _PART_OF_WHOLE * prose[top]:
            top = up
        up = parent[up]
    # A container the page names as its main content or article, around the candidate, is the
    # region: documentation splits one body into many sections, each a candidate of its own.
    up = parent[top]
    while up >= 0 and not apart[up] and not nodes.flags[top] & BODY:
        if nodes.flags[up] & BODY:
            top = up
            break
        up = parent[up]
    roots = {top}
    # Other strong candidates elsewhere (a lead above, a second column) join, unless they sit
    # in a boilerplate-looking container the chosen one is not in.
    for other in ranked[1:10]:
        if (shaded[other] and not shaded[top]) or not joinable[other]:
            continue
        if final[other] >= _ALSO * best and not any(
            _within(parent, other, r) or _within(parent, r, other) for r in roots
        ):
            roots.add(other)
    up = parent[top]
    if up < 0:
        return roots
    # Siblings that score well, or that are the same kind of box as the chosen one (the next
    # post of a thread, the next item of a listicle), join it.
    children = _children(parent)
    threshold = max(10.0, 0.2 * final[top])
    tag, classes = nodes.tag[top], nodes.classes[top]
    for sibling in children.get(up, ()):
        if sibling == top or not joinable[sibling]:
            continue
        alike = nodes.tag[sibling] == tag and nodes.classes[sibling] == classes
        if final[sibling] >= threshold or (alike and final[sibling] > 0):
            roots.add(sibling)

    def beside(box: int) -> set[int]:
        """The boxes of the kind of ``box`` (its tag and classes) beside it that hold prose."""
        kind = nodes.tag[box], nodes.classes[box]
        return {
            sibling
            for sibling in children[parent[box]]
            if sibling != box
            and prose[sibling] > 0
            and joinable[sibling]
            and not shaded[sibling]
            and (nodes.tag[sibling], nodes.classes[sibling]) == kind
        }

    # A named section box around the region, up to a few levels (the "Options" section of a
    # reference page), brings the boxes of its own kind beside it that hold prose: the other
    # sections of the same body.
    section, levels = up, 0
    while levels < _SECTION_LEVELS and parent[section] >= 0 and not shaded[section]:
        if nodes.classes[section]:  # a box of no class (a table's row) is no level
            roots |= beside(section)
            levels += 1
        section = parent[section]
    # A box inside a box of its own kind (a class's section inside a reference page's
    # "Classes" section) is a subsection: the outermost box of that kind brings the boxes of
    # its kind beside it, the other sections.
    nested: dict[tuple[str, str], list[int]] = {}
    box = top
    while parent[box] >= 0 and not shaded[box]:
        if nodes.classes[box]:
            nested.setdefault((nodes.tag[box], nodes.classes[box]), []).append(box)
        box = parent[box]
    for boxes in nested.values():
        if len(boxes) > 1:
            roots |= beside(boxes[-1])
    return roots


def _children(parent: list[int]) -> dict[int, list[int]]:
    """Each node's children in document order, by node (one pass: the region asks for the
    children of several boxes)."""
    children: dict[int, list[int]] = {}
    for i, up in enumerate(parent):
        children.setdefault(up, []).append(i)
    return children


def _add_lead(paras: list[Para], main: list[bool], shaded: list[bool], *, stated: bool) -> None:
    """Prose just above the first main paragraph (a lead or standfirst between the headline
    and the body, past a byline, a date or a share bar) is main too: at most four paragraphs,
    and only paragraphs of the stated article body when the page states one."""
    first = main.index(True) if True in main else 0
    skipped = added = 0
    for k in range(first - 1, -1, -1):
        p = paras[k]
        if (p.heading and p.tag == "h1") or added == _LEAD_PARAGRAPHS:
            return
        if p.node >= 0 and shaded[p.node]:
            skipped += 1
        elif lead_like(p) and (p.in_article_body or not stated):
            main[k] = True
            added += 1
            continue
        else:
            skipped += 1
        if skipped > _LEAD_GAP:
            return


def _up(parent: list[int], node: int, levels: int) -> int:
    """The ancestor ``levels`` above ``node``, or the topmost one there is."""
    for _ in range(levels):
        if parent[node] < 0:
            break
        node = parent[node]
    return node


def _within(parent: list[int], node: int, ancestor: int) -> bool:
    """Whether ``node`` is ``ancestor`` or lies under it."""
    while node > ancestor:
        node = parent[node]
    return node == ancestor


def _kind(nodes: Nodes, i: int) -> tuple[str, str] | None:
    """What makes a boilerplate-looking box one of a group: a caption by its class, another box
    by its tag and the class words that say boilerplate; None for a box only its tag or ARIA
    role marks."""
    if nodes.tag[i] == _CAPTION:
        return _CAPTION, nodes.classes[i]
    words = boilerplate_words(nodes.classes[i])
    return (nodes.tag[i], " ".join(words)) if words else None


class _Wrappers:
    """Which boilerplate-looking boxes inside a page's main region are its content, asked of
    each box top down (parents first): one that holds most of the region alone is a misnamed
    wrapper; boxes of one kind (:func:`_kind`) that together hold most of the region, or of a
    box taken so, are content when the region holds next to no prose beside them (a forum's
    posts or a live match's commentary named "comment": no article for them to comment on),
    and captions of one class whatever prose is beside them (a slideshow's story); inside boxes
    taken as content, a box that holds most of its box is content too."""

    def __init__(
        self, nodes: Nodes, flags: list[int], paras: list[Para], roots: set[int], chars: list[int]
    ) -> None:
        n = len(nodes.parent)
        self._nodes, self._flags, self._roots, self._chars = nodes, flags, roots, chars
        self._paras = paras
        self._region = sum(chars[r] for r in roots) or 1
        self._measured: dict[int, tuple[dict[tuple[str, str], int], int]] = {}
        self._told = [False] * n  # whether a box taken is content by its kind, not alone
        self._budget = _SCANS * n  # nodes the measures may visit, however the boxes nest

    # Read only once some box is measured by its kind: most pages never ask.
    @cached_property
    def _last(self) -> list[int]:
        """Each node's last descendant: a subtree is a run of nodes."""
        parent = self._nodes.parent
        last = list(range(len(parent)))
        for i in range(len(parent) - 1, -1, -1):
            if parent[i] >= 0:
                last[parent[i]] = max(last[parent[i]], last[i])
        return last

    @cached_property
    def _free(self) -> list[int]:
        """Each node's own prose paragraphs, in characters."""
        free = [0] * len(self._nodes.parent)
        for p in self._paras:
            if p.node >= 0 and _lends(p):
                free[p.node] += p.chars
        return free

    def taken(self, i: int, scope: int) -> bool:
        """Whether the boilerplate-looking box ``i`` of the region, in ``scope`` (the box taken
        that it lies in, -1 for none), is taken: then it is the scope of the boxes under it."""
        chars = self._chars
        inside = scope >= 0 and self._told[scope]
        if chars[i] * 2 >= self._region:
            self._told[i] = inside
            return True
        if inside:  # alone first: a box's share of its kind is counted only when needed
            most = chars[scope]
            self._told[i] = chars[i] * 2 >= most or self._share(i, scope) * 2 >= most
        else:
            self._told[i] = self._content(i, scope)
        return self._told[i]

    def _share(self, i: int, scope: int) -> int:
        """The characters of the boxes of the kind of box ``i`` in ``scope``."""
        kind = _kind(self._nodes, i)
        if kind is None or (kind[0] == _CAPTION and scope >= 0):
            return 0
        return self._measures(scope)[0].get(kind, 0)

    def _content(self, i: int, scope: int) -> bool:
        """Whether box ``i`` is content by the boxes of its kind beside it in ``scope``."""
        total = self._share(i, scope)
        if total * 2 < (self._region if scope < 0 else self._chars[scope]):
            return False
        return self._nodes.tag[i] == _CAPTION or self._measures(-1)[1] < _FREE_PROSE * total

    def _measures(self, scope: int) -> tuple[dict[tuple[str, str], int], int]:
        """Of a scope: the characters of its outermost boilerplate-looking boxes (under no
        other), summed by kind, and the characters of the prose paragraphs under none of them."""
        if scope in self._measured:
            return self._measured[scope]
        tops = self._roots if scope < 0 else (scope,)
        cost = sum(self._last[top] - top + 1 for top in tops)
        if cost > self._budget:  # a hostile nest of boxes: no more are taken by their kind
            self._measured[scope] = {}, self._region
            return self._measured[scope]
        self._budget -= cost
        parent, flags = self._nodes.parent, self._flags
        groups: dict[tuple[str, str], int] = {}
        prose = 0
        boxed = NEGATIVE | HIDDEN
        for top in tops:
            prose += self._free[top]
            under = {top: False}
            for j in range(top + 1, self._last[top] + 1):
                up = parent[j]
                hidden = under[up] or (up != top and bool(flags[up] & boxed))
                under[j] = hidden
                if hidden:
                    continue
                if flags[j] & boxed:
                    kind = _kind(self._nodes, j)
                    if kind is not None and not flags[j] & HIDDEN:
                        groups[kind] = groups.get(kind, 0) + self._chars[j]
                else:
                    prose += self._free[j]
        self._measured[scope] = groups, prose
        return groups, prose


def _clean(
    nodes: Nodes,
    flags: list[int],
    paras: list[Para],
    roots: set[int],
    chars: list[int],
    joinable: list[bool],
    *,
    stated: bool,
) -> list[bool]:
    """Paragraphs in the region, less boilerplate containers and link lists inside it, plus
    prose paragraphs beside it under its grandparent (of the stated article body, if there is
    one) in boxes that may join it (``joinable``)."""
    parent = nodes.parent
    n = len(parent)
    wrappers = _Wrappers(nodes, flags, paras, roots, chars)
    around = {_up(parent, r, _BESIDE_LEVELS) for r in roots if parent[r] >= 0}
    # 0: outside; 1: in the region; 2: under a boilerplate container; 3: beside the region.
    state = [0] * n
    scopes = [-1] * n  # the box taken (:class:`_Wrappers`) that a node lies in, -1 for none
    for i in range(n):
        up = parent[i]
        outer = state[up] if up >= 0 else 0
        if i in roots:
            state[i] = 1
        elif i in around and not outer:
            state[i] = 3
        elif outer == 3 and not joinable[i]:
            continue  # beside the region, a box that may not join it: outside
        elif outer:
            # Inside the region a boilerplate-looking container may be a misnamed wrapper or
            # the content itself (:class:`_Wrappers`); beside the region none joins.
            scopes[i] = scopes[up]
            if outer == 2 or flags[i] & HIDDEN or (flags[i] & NEGATIVE and outer == 3):
                state[i] = 2
            elif not flags[i] & NEGATIVE:
                state[i] = outer
            elif wrappers.taken(i, scopes[up]):
                state[i], scopes[i] = 1, i
            else:
                state[i] = 2
    main = [False] * len(paras)
    kinds: list[tuple[int, int]] = []  # (paragraph index, kind) of the paragraphs in reach
    for k, p in enumerate(paras):
        where = state[p.node] if p.node >= 0 else 0
        if where == 1:
            kinds.append((k, kind_of(p)))
        elif where == 3 and kind_of(p) == GOOD and (p.in_article_body or not stated):
            kinds.append((k, GOOD))
    prose = any(kind == GOOD for _, kind in kinds)
    befores = neighbours([kind for _, kind in kinds])
    afters = neighbours([kind for _, kind in reversed(kinds)])[::-1]
    for j, (k, kind) in enumerate(kinds):
        if kind == GOOD or (not prose and kind != BAD):
            main[k] = True
        elif kind != BAD:
            before, after = befores[j], afters[j]
            if paras[k].heading or paras[k].introduces:
                following = kinds[j + 1][1] if j + 1 < len(kinds) else BAD
                main[k] = after == GOOD or (following == NEAR and before == GOOD)
            elif kind == NEAR:
                main[k] = GOOD in (before, after)
            else:  # short: between prose, or a sentence beside prose
                main[k] = before == after == GOOD or (paras[k].sentence and GOOD in (before, after))
    if not any(main):
        main = [p.chars > 0 and p.links < _LINK_LIST * p.chars for p in paras]
        if not any(main):
            main = [p.chars > 0 for p in paras]
    return main
