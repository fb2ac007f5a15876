"""Evidence ranking: which passages of the pages read best answer the question.

A candidate quote is scored by its relevance (IDF-weighted coverage of the question's terms by
the quote and the headings it sits under, best over sub-questions; for the score, each word
also weighs by how specific it is in English, see
:meth:`~quotebound.evidence.relevance.TermStats.by_specificity`), plus smaller shares for how
close together that sub-question's terms occur in it, whether it has the shape of the answer the
sub-question expects (a number for "how many", a version for "when" ...), how well its
headings alone match the question, whether it is prose (has a sentence's end), and whether it
lies in a passage the search ranked high across the whole corpus (reciprocal rank fusion of
the corpus's passage ranking with this one). The best quotes so far then gain a share for how
close their meaning is to the question's (:mod:`~quotebound.evidence.encoder`), read alone or
under their heading (or, for a question of one part, sentence by sentence), whichever is
closest, and to a question that tells the asker's situation first read sentence by sentence
too; the encoder sees a paraphrase that shares no term with the question. Without the
encoder, ranking is by terms alone. Then every quote gains a share for its page's rank
among the search's results (the same fusion). Last, two quotes side by side on a page that
are both worth reading join into one (:func:`join_neighbours`): a window that sets out what
the next one answers is quoted with it.
Relevance, how much of each part a quote covers (``Ranked.covers``) and the search's rank of
the quote's passage decide whether a quote may be composed
(:func:`quotebound.report.answering.answers`); the score orders them.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from quotebound.evidence import encoder
from quotebound.evidence.candidates import Candidate, joined
from quotebound.evidence.questions import fits, question_type
from quotebound.evidence.relevance import (
    PassageTerms,
    TermStats,
    content_terms,
    passage_relevance,
    question_terms,
    relevance,
    sentence_spans,
    spells_identifiers,
    sub_questions,
    text_terms,
)
from quotebound.text.page import Page
from quotebound.text.passages import (
    HEADING_SEPARATOR,
    HeadingIndex,
    passage_head,
    passages,
    under_heading,
)

__all__ = ["Ranked", "by_meaning", "by_page_rank", "join_neighbours", "proximity", "rank_pages"]

_FIT_WEIGHT = 0.15
_PROXIMITY_WEIGHT = 0.1
_HEADING_WEIGHT = 0.1
_PROSE_WEIGHT = 0.1
_PROSE = re.compile(r"[^\W\d_]{2}[.!?](?:\s|$)")
"""A sentence's end: prose, not a list of index terms, table cells or code."""
_RETRIEVED_WEIGHT = 1.0
_RETRIEVED_K = 3.0
"""Reciprocal rank fusion: a quote in the search's passage of rank r (0 best) gains
weight / (k + r), and as much again for its page's rank among the search's results."""
_MEANING_WEIGHT = 2.0
_MEANING_TOP = 20
_MEANING_PER_PAGE = 7
"""The quotes whose meaning is compared with the question's: each page's 7 best, and the best
over all the pages ranked at once (7 for each page, ``_MEANING_TOP`` at most); each gains
weight x cosine similarity. A round that reads a single page compares its 7 best. A page
all of whose quotes share fewer of the question's words than another page's still has its
best compared: the search ranked it worth reading, and the answer it holds may say in other
words what the question asks, which only its meaning shows."""

_COVERING_IDF_POWER = 0.5
"""The power of each term's IDF in a quote's ``Ranked.covers``. The IDF is counted over the
pages read, which were chosen for the words the question is about: those are common there and
weigh next to nothing, while the question's own wording, which an answer seldom repeats
("put", "inside", "body"), is rare and weighs most. Ranking quotes against each other, the
sharper weights tell them apart; judging whether a quote's words alone cover the question, the
square root keeps the subject's words counting. The bars that also ask for closeness in
meaning read the relevance with the IDF itself: they were set for it, and by the square root
a quote on another part of the question comes to share enough of a part it does not speak
of."""

_SENTENCES_FROM = 0.3
"""A quote whose whole reading is less close in meaning than this is not read sentence by
sentence: a sentence close to the question draws the quote's reading toward it, and of 2,236
compared quotes of the development, PostgreSQL and news golden sets read below 0.3, 7 held a
sentence at 0.5."""


@dataclass(frozen=True)
class Ranked:
    """A candidate with its context, relevance and ranking score."""

    candidate: Candidate
    context: str
    parts: tuple[float, ...]
    """Relevance to each sub-question of the question, in order."""
    covers: tuple[float, ...]
    """Relevance to each sub-question with each term at a power of its IDF
    (``_COVERING_IDF_POWER``): how much of it the quote covers, which the bars that judge a
    quote by its words alone read (:func:`quotebound.report.answering.answers`)."""
    relevance: float
    """The best of ``parts``."""
    score: float
    """What orders the quotes: the relevance with each word weighed by its specificity as
    well, plus the smaller shares the module's docstring lists (and, later, meaning's)."""
    retrieved: int | None = None
    """The search rank of the retrieved passage the candidate lies in, or None."""
    spelled: bool = False
    """Whether the quote, with its context, spells every identifier the sub-question it
    answers best names (see :func:`~quotebound.evidence.relevance.spells_identifiers`)."""
    meaning: float | None = None
    """Cosine similarity of the quote's meaning to the question's (to its closest part), or
    None when it was not compared (not among the best quotes, or no encoder)."""


def proximity(question: str, text: str) -> float:
    """How tightly the question's terms found in ``text`` cluster: distinct terms matched over
    the length (in terms) of the shortest run of ``text`` that holds them all; 0 for fewer
    than two."""
    wanted = set(content_terms(question))
    terms = content_terms(text)
    hits = [(i, t) for i, t in enumerate(terms) if t in wanted]
    distinct = {t for _, t in hits}
    if len(distinct) < 2:
        return 0.0
    best = len(terms)
    counts: dict[str, int] = {}
    left = 0
    for pos, term in hits:
        counts[term] = counts.get(term, 0) + 1
        while len(counts) == len(distinct):
            best = min(best, pos - hits[left][0] + 1)
            first = hits[left][1]
            counts[first] -= 1
            if not counts[first]:
                del counts[first]
            left += 1
    return len(distinct) / best


def rank_pages(
    question: str,
    pages: Sequence[tuple[Page, str, Sequence[Candidate]]],
    retrieved: Sequence[Mapping[str, int]] | None = None,
    *,
    best: int | None = None,
) -> list[list[Ranked]]:
    """Each page's candidates (a page, its title and its candidates) best first by terms,
    document order on ties, or only its ``best`` ones (a large page's tens of thousands of
    candidates are then never held ranked at once). Terms weigh by their IDF over all the
    candidates, each with its context. :func:`by_meaning` adds the share for meaning; it is
    apart so that a caller can let the pages' candidates go before the encoder comes in.

    ``retrieved`` holds, per page, the passages its search found (the passage's head, see
    :func:`~quotebound.text.passages.passage_head`, and its rank among all the passages the search
    ranked): a quote inside one gains a share that falls with that rank (reciprocal rank
    fusion), so a corpus-wide ranking of passages counts beside this ranking of quotes."""
    contexts = [_contexts(page, title, candidates) for page, title, candidates in pages]
    found = [
        _retrieved_ranks(page, candidates, (retrieved or [{}] * len(pages))[i])
        for i, (page, _, candidates) in enumerate(pages)
    ]
    # Each quote is read once, and only the question's terms of it are kept: enough for every
    # score below, and a few bytes a quote however large the page.
    # The same few sets of terms recur over a page's thousands of quotes: each is kept once.
    wanted = question_terms(question)
    heading_terms: dict[str, frozenset[str]] = {}
    quote_terms: list[list[frozenset[str]]] = []
    distinct: dict[frozenset[str], frozenset[str]] = {}
    stats = TermStats()
    for (_, _, candidates), page_contexts in zip(pages, contexts, strict=True):
        quote_terms.append([])
        for c, (context, _) in zip(candidates, page_contexts, strict=True):
            if context not in heading_terms:
                heading_terms[context] = text_terms(context) & wanted
            terms = text_terms(c.quote) & wanted
            terms = distinct.setdefault(terms, terms)
            quote_terms[-1].append(terms)
            stats.add(terms | heading_terms[context])
    questions = sub_questions(question)
    covering = stats.flattened(_COVERING_IDF_POWER)
    ordering = stats.by_specificity()
    out: list[list[Ranked]] = []
    for (_, _, candidates), page_contexts, ranks, terms_of in zip(
        pages, contexts, found, quote_terms, strict=True
    ):
        kept: list[tuple[float, int, Ranked]] = []  # a heap, worst first: (score, -index)
        page_terms = frozenset().union(*terms_of)
        for i, (c, (context, path)) in enumerate(zip(candidates, page_contexts, strict=True)):
            quote = c.quote
            beside = [
                j
                for j in (i - 1, i + 1)
                if 0 <= j < len(candidates) and page_contexts[j][1] == path
            ]
            passage = PassageTerms(
                terms_of[i],
                heading_terms[context].union(*(terms_of[j] for j in beside)),
                "\n".join([context, *(candidates[j].quote for j in beside), quote]),
            )
            parts = tuple(
                passage_relevance(q, passage, stats=stats, page_terms=page_terms) for q in questions
            )
            rel = max(parts)
            part = questions[parts.index(rel)]  # the sub-question it answers best
            heading = relevance(question, path, stats=stats) if path else 0.0
            found_at = ranks[i]
            ordered = max(
                passage_relevance(q, passage, stats=ordering, page_terms=page_terms)
                for q in questions
            )
            score = (
                ordered
                + _FIT_WEIGHT * fits(question_type(part), quote)
                + _PROXIMITY_WEIGHT * proximity(part, quote)
                + _HEADING_WEIGHT * heading
                + _PROSE_WEIGHT * bool(_PROSE.search(quote))
                + _fused(found_at)
            )
            full = best is not None and len(kept) >= best
            if full and (score, -i) <= kept[0][:2]:
                continue  # not among the page's best: no record is made of it
            spelled = spells_identifiers(part, passage.spelled)
            covers = tuple(
                passage_relevance(q, passage, stats=covering, page_terms=page_terms)
                for q in questions
            )
            item = (
                score,
                -i,
                Ranked(c, context, parts, covers, rel, round(score, 6), found_at, spelled),
            )
            if full:
                heapq.heapreplace(kept, item)
            else:
                heapq.heappush(kept, item)
        kept.sort(key=lambda t: (-t[0], -t[1]))
        out.append([r for _, _, r in kept])
    return out


def _fused(rank: int | None) -> float:
    """The share of reciprocal rank fusion for a search's rank (0 best), none without one."""
    return _RETRIEVED_WEIGHT / (_RETRIEVED_K + rank) if rank is not None else 0.0


def by_meaning(question: str, ranked: list[list[Ranked]]) -> list[list[Ranked]]:
    """The pages' rankings (from :func:`rank_pages`) after each page's best quotes and the best
    over all of them (``_MEANING_PER_PAGE``) gain their share for closeness in meaning to the
    question (or to the closest of its sentences, for one that tells the asker's situation
    first: :func:`_readings`), or to the closest of its parts for a question in parts
    (unchanged without the encoder).

    A quote is read alone and under the heading it sits in ("FTS5 NEAR Queries: If no N
    parameter is supplied, it defaults to 10."), and the closer reading counts: a short
    answer often says what it is about only in its heading. For a question of one part, each
    sentence of a quote of several is read alone too (of a quote read at least
    ``_SENTENCES_FROM`` close), and the closest reading counts: a sentence that answers is read
    as one text with the sentences beside it, which say other things and take the quote's
    meaning away from the question's. A question in parts is left to whole quotes: read
    sentence by sentence, a quote with one sentence on one part came before another part's
    answer more often than it helped."""
    questions = sub_questions(question)
    readings = questions if len(questions) > 1 else _readings(question)
    places = [(page, i) for page, rs in enumerate(ranked) for i in range(len(rs))]
    # Stable: ties go to the earlier page, then the earlier place in its ranking.
    compared = min(_MEANING_TOP, _MEANING_PER_PAGE * len(ranked))
    best = sorted(places, key=lambda p: -ranked[p[0]][p[1]].score)[:compared]
    own = [(page, i) for page, i in places if i < _MEANING_PER_PAGE]  # rankings are best first
    top = sorted(set(best) | set(own), key=lambda p: (-ranked[p[0]][p[1]].score, p))
    if not top:
        return ranked  # nothing to compare: the encoder is not even loaded
    quotes = [ranked[page][i].candidate.quote for page, i in top]
    headed = [
        under_heading(ranked[page][i].context, quote)
        for (page, i), quote in zip(top, quotes, strict=True)
    ]
    close = encoder.similarities(readings, [*quotes, *headed])
    if close is None:
        return ranked
    closest = [max(close[n], close[len(top) + n]) for n in range(len(top))]
    if len(questions) == 1:
        near = [n for n, c in enumerate(closest) if c >= _SENTENCES_FROM]
        sentences = [(n, sentence) for n in near for sentence in _sentences(quotes[n])]
        each = encoder.similarities(readings, [sentence for _, sentence in sentences])
        if each is not None:  # the encoder that read the quotes reads their sentences
            for (n, _), similarity in zip(sentences, each, strict=True):
                closest[n] = max(closest[n], similarity)
    out = [list(rs) for rs in ranked]
    for n, (page, i) in enumerate(top):
        similarity = closest[n]
        r = out[page][i]
        out[page][i] = dataclasses.replace(
            r, score=round(r.score + _MEANING_WEIGHT * similarity, 6), meaning=similarity
        )
    # Stable: document order (the order before) on ties.
    return [sorted(rs, key=lambda r: -r.score) for rs in out]


def _readings(question: str) -> list[str]:
    """What a question of one part is compared with in meaning: the question, and, when it
    tells the asker's situation before it asks, each of its sentences of two terms or more.
    The closest reading counts: a situation told at length ("I ran python -m pydoc on my
    script just to read its docstrings, and it started my whole program, network calls
    included. Why does that happen?") draws the whole question's meaning away from the quote
    that explains it, which the sentence telling what happened is close to."""
    spans = sentence_spans(question)
    if len(spans) < 2:
        return [question]
    told = [question[start:end] for start, end in spans]
    return [question, *(sentence for sentence in told if len(content_terms(sentence)) >= 2)]


def _sentences(quote: str) -> list[str]:
    """The sentences of a quote of several; none of a quote of one."""
    spans = sentence_spans(quote)
    return [quote[start:end] for start, end in spans] if len(spans) > 1 else []


def by_page_rank(ranked: list[list[Ranked]], searched: Sequence[int | None]) -> list[list[Ranked]]:
    """The pages' rankings after each quote gains the share of reciprocal rank fusion for its
    page's rank among the search's results (``searched``: 0 best, None for a page no search
    ranked), so that of two quotes alike the one on the page the search put first comes first.
    It comes after :func:`by_meaning`: a page's rank orders its quotes among other pages',
    it does not choose whose meaning is compared."""
    return [
        [dataclasses.replace(r, score=round(r.score + _fused(rank), 6)) for r in rs]
        for rs, rank in zip(ranked, searched, strict=True)
    ]


def join_neighbours(ranked: Sequence[Ranked], worth: Callable[[Ranked], bool]) -> list[Ranked]:
    """A page's ranking (best first) with each quote joined to a neighbour: the quote right
    before or after it on the page with only whitespace between, itself in the ranking, when
    both are ``worth`` reading beside an answer. A window often sets out what the next one
    answers ("To do this, use the PERFORM statement:" / "This executes the query and throws
    the result away."), or names the subject the next one speaks of; the careful reader
    quotes the passage whole.

    Best first, a quote takes its better-ranked neighbour still free; each joins at most one.
    The joined quote takes the better one's place, with the better of each signal of the two
    (its context is theirs: no heading lies between them)."""
    order = sorted(range(len(ranked)), key=lambda i: ranked[i].candidate.start)
    place = {i: k for k, i in enumerate(order)}
    used: set[int] = set()
    out: list[Ranked] = []
    for i, r in enumerate(ranked):
        if i in used:
            continue
        used.add(i)
        k = place[i]
        beside = [order[j] for j in (k - 1, k + 1) if 0 <= j < len(order)]
        partners = sorted(j for j in beside if j not in used and worth(ranked[j]))
        for j in partners if worth(r) else []:
            first, second = sorted((r, ranked[j]), key=lambda x: x.candidate.start)
            both = joined(first.candidate, second.candidate)
            if both is not None:
                used.add(j)
                r = _joined_ranked(both, first, second)
                break
        out.append(r)
    return out


def _joined_ranked(candidate: Candidate, first: Ranked, second: Ranked) -> Ranked:
    """The ranking of two neighbours' joined quote: the better of each of their signals."""
    meanings = [m for m in (first.meaning, second.meaning) if m is not None]
    found = [f for f in (first.retrieved, second.retrieved) if f is not None]
    return Ranked(
        candidate=candidate,
        context=first.context,
        parts=tuple(map(max, first.parts, second.parts)),
        covers=tuple(map(max, first.covers, second.covers)),
        relevance=max(first.relevance, second.relevance),
        score=max(first.score, second.score),
        retrieved=min(found, default=None),
        spelled=first.spelled or second.spelled,
        meaning=max(meanings, default=None),
    )


def _retrieved_ranks(
    page: Page, candidates: Sequence[Candidate], retrieved: Mapping[str, int]
) -> list[int | None]:
    """For each candidate, the search rank of the retrieved passage it starts in, or None."""
    if not retrieved:
        return [None] * len(candidates)
    spans = [(p.start, p.end, retrieved.get(passage_head(p.text))) for p in passages(page)]
    starts = [s for s, _, _ in spans]
    out: list[int | None] = []
    for c in candidates:
        i = bisect.bisect_right(starts, c.start) - 1
        out.append(spans[i][2] if i >= 0 and c.start < spans[i][1] else None)
    return out


def _contexts(page: Page, title: str, candidates: Sequence[Candidate]) -> list[tuple[str, str]]:
    """Each candidate's context (title and headings) and heading path alone; candidates under
    the same headings share one pair."""
    headings = HeadingIndex(page)
    joined: dict[tuple[str, ...], tuple[str, str]] = {}
    out = []
    for c in candidates:
        path = headings.at(c.start)
        if path not in joined:
            shown = (title, *path) if title not in path[:1] else path  # a title often is the h1
            joined[path] = (
                HEADING_SEPARATOR.join(h for h in shown if h),
                HEADING_SEPARATOR.join(path),
            )
        out.append(joined[path])
    return out
