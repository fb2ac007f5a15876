"""Search candidates, de-duplication, selection for fetching, raw content, the provider ladder."""

from __future__ import annotations

import hashlib
import json

import pytest

from quotebound.acquisition.providers import (
    ProviderLadder,
    ProviderRun,
    SearchCandidate,
    SearchResponse,
    dedupe,
    fused,
    fusion_order,
    raw_content_page,
    select_for_fetch,
)
from quotebound.errors import Reason, SearchError
from quotebound.tiers import TrustTier
from quotebound.urls import source_id


def cand(
    url: str,
    rank: int = 1,
    provider: str = "tavily",
    *,
    title: str = "",
    document: str | None = None,
    raw_content: str | None = None,
) -> SearchCandidate:
    return SearchCandidate(
        url=url,
        title=title or f"T {url}",
        snippet="s",
        rank=rank,
        provider=provider,
        document=document,
        raw_content=raw_content,
    )


def test_candidate_to_dict_is_json_and_leaves_raw_content_out() -> None:
    c = cand("https://Example.com:443/a?utm_source=x#frag", raw_content="the whole page " * 100)
    d = c.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert "raw_content" not in d and "the whole page" not in json.dumps(d)
    assert d["tier"] == TrustTier.SEARCH_RESULT == 0
    assert d["canonical_url"] == "https://example.com/a"
    assert d["source_id"] == source_id("https://example.com/a") == c.source_id
    assert "the whole page" not in repr(c)


def test_dedupe_merges_url_variants_and_keeps_the_best_rank() -> None:
    variants = [
        cand("https://EXAMPLE.com:443/doc?b=2&a=1#top", rank=4),
        cand("https://example.com/doc?a=1&b=2&utm_source=news&fbclid=x", rank=2),
        cand("https://example.com/doc?gclid=1&a=1&b=2", rank=3, provider="corpus"),
    ]
    out = dedupe(variants)
    assert len(out) == 1
    assert out[0].rank == 2 and out[0].provider == "tavily"


def test_dedupe_orders_by_rank_then_provider_order_then_url() -> None:
    cs = [
        cand("https://b.org/2", rank=2),
        cand("https://z.org/1", rank=1, provider="news"),
        cand("https://a.org/1", rank=1, provider="news"),
        cand("https://m.org/1", rank=1),
    ]
    urls = [c.url for c in dedupe(cs)]
    # tavily appears first in the input, so it wins ties on rank; then canonical URL.
    assert urls == ["https://m.org/1", "https://a.org/1", "https://z.org/1", "https://b.org/2"]
    assert [c.url for c in dedupe(cs)] == urls


def test_fused_answers_put_a_page_several_queries_find_before_one_ranked_higher_once() -> None:
    # Three wordings of one gap: each ranks its own page first, and all three find the page
    # that answers second.
    answers = [
        [cand("https://a.org/1", rank=1), cand("https://both.org/1", rank=2)],
        [cand("https://b.org/1", rank=1), cand("https://both.org/1", rank=2)],
        [cand("https://c.org/1", rank=1), cand("https://both.org/1", rank=2)],
    ]
    out = fused(answers)
    assert [c.url for c in dedupe(c for answer in out for c in answer)] == [
        "https://both.org/1",
        "https://a.org/1",  # ties: the earlier answer
        "https://b.org/1",
        "https://c.org/1",
    ]
    # Each answer keeps its candidates, ranked by the fusion.
    assert [[c.rank for c in answer] for answer in out] == [[2, 1], [3, 1], [4, 1]]
    # One answer keeps its order.
    assert fused(answers[:1]) == [answers[0]]


def test_select_for_fetch_caps_each_domain_and_keeps_the_rest_as_replacements() -> None:
    cs = [cand(f"https://a.com/{i}", rank=i) for i in range(1, 6)]
    cs += [cand("https://b.com/1", rank=6), cand("https://c.com/1", rank=9)]
    out = select_for_fetch(cs, k=5, per_domain_cap=3)
    assert [c.url for c in out[:5]] == [
        "https://a.com/1",
        "https://a.com/2",
        "https://a.com/3",
        "https://b.com/1",
        "https://c.com/1",
    ]
    # replacements follow, still in rank order
    assert [c.url for c in out[5:]] == ["https://a.com/4", "https://a.com/5"]


def test_select_for_fetch_spares_under_the_cap_come_before_capped_ones() -> None:
    cs = [cand(f"https://a.com/{i}", rank=i) for i in range(1, 5)]
    cs += [cand("https://b.com/1", rank=5), cand("https://b.com/2", rank=6)]
    out = select_for_fetch(cs, k=2, per_domain_cap=2)
    assert [c.url for c in out] == [
        "https://a.com/1",
        "https://a.com/2",
        "https://b.com/1",
        "https://b.com/2",
        "https://a.com/3",
        "https://a.com/4",
    ]


def test_select_for_fetch_excludes_sources_fetched_earlier_and_duplicates() -> None:
    cs = [
        cand("https://a.com/1", rank=1),
        cand("https://a.com/1#again", rank=3),
        cand("https://b.com/1", rank=2),
        cand("https://c.com/1", rank=4),
    ]
    out = select_for_fetch(cs, k=2, exclude={source_id("https://a.com/1")})
    assert [c.url for c in out] == ["https://b.com/1", "https://c.com/1"]


def test_select_for_fetch_tie_breaks_are_deterministic() -> None:
    cs = [cand("https://z.com/", rank=1), cand("https://a.com/", rank=1)]
    assert [c.url for c in select_for_fetch(cs, k=1)][:1] == ["https://a.com/"]
    assert select_for_fetch(list(reversed(cs)), k=1)[0].url == "https://a.com/"


def test_select_for_fetch_does_not_cap_corpus_documents() -> None:
    cs = [
        cand(f"https://docs.python.org/3/{i}.html", rank=i, provider="corpus", document=f"{i}.html")
        for i in range(1, 6)
    ]
    assert len(select_for_fetch(cs, k=5, per_domain_cap=1)) == 5
    assert [c.document for c in select_for_fetch(cs, k=5, per_domain_cap=1)] == [
        "1.html",
        "2.html",
        "3.html",
        "4.html",
        "5.html",
    ]


def test_select_for_fetch_rejects_a_nonsense_cap() -> None:
    with pytest.raises(ValueError, match="per_domain_cap"):
        select_for_fetch([], k=1, per_domain_cap=0)


def test_raw_content_page_stores_markdown_with_the_domain_tier() -> None:
    body = "# Results\n\nThe agency reported [figures](https://x.gov/f) for 2024."
    c = cand("https://www.census.gov/data?utm_medium=x", raw_content=body, title="Census")
    page = raw_content_page(c)
    assert page is not None
    assert page.content_type == "text/markdown"
    assert page.text == body and page.html is None
    assert page.trust_tier == TrustTier.AUTHORITATIVE_SOURCE
    assert page.status == 200 and page.provider == "tavily" and page.title == "Census"
    assert page.sha256 == hashlib.sha256(body.encode()).hexdigest()
    assert page.source_id == c.source_id


def test_raw_content_page_plain_text_and_unknown_domain() -> None:
    page = raw_content_page(cand("https://blog.example/p", raw_content="Just a paragraph."))
    assert page is not None
    assert page.content_type == "text/plain"
    assert page.trust_tier == TrustTier.EXTERNAL_SOURCE


@pytest.mark.parametrize("raw", [None, "", "  \n "])
def test_raw_content_page_needs_content(raw: str | None) -> None:
    assert raw_content_page(cand("https://a.com/", raw_content=raw)) is None


class Scripted:
    """A provider answering from a script; counts its calls."""

    def __init__(self, name: str, urls: list[str], reason: Reason | None = None) -> None:
        self.name = name
        self.urls = urls
        self.reason = reason
        self.calls = 0

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        self.calls += 1
        cs = tuple(
            SearchCandidate(url=u, title=u, snippet="", rank=i, provider=self.name, query=query)
            for i, u in enumerate(self.urls[:max_results], start=1)
        )
        reason = self.reason or (None if cs else Reason.EMPTY_RESULTS)
        run = ProviderRun(
            provider=self.name,
            endpoint=f"test:{self.name}",
            query=query,
            latency_ms=0,
            result_count=len(cs),
            cache_status="n/a",
            reason=None if reason is None else reason.value,
        )
        return SearchResponse(cs if reason is None else (), run)


class Raising:
    name = "broken"

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        raise SearchError(Reason.PROVIDER_ERROR, "backend down")


async def test_ladder_falls_through_failed_and_empty_providers_recording_each() -> None:
    failing = Scripted("web", [], Reason.PROVIDER_ERROR)
    empty = Scripted("news", [])
    good = Scripted("corpus", ["https://a.com/1", "https://a.com/2", "https://a.com/3"])
    unused = Scripted("spare", ["https://never.com/"])
    ladder = ProviderLadder([failing, Raising(), empty, good, unused])
    candidates, runs = await ladder.search("q", max_results=2)
    assert [c.url for c in candidates] == ["https://a.com/1", "https://a.com/2"]
    assert [(r.provider, r.reason) for r in runs] == [
        ("web", "provider_error"),
        ("broken", "provider_error"),
        ("news", "empty_results"),
        ("corpus", None),
    ]
    assert unused.calls == 0
    assert all(json.loads(json.dumps(r.to_dict())) == r.to_dict() for r in runs)


async def test_ladder_with_nothing_found_returns_no_candidates_and_every_run() -> None:
    ladder = ProviderLadder([Scripted("a", []), Scripted("b", [], Reason.PROVIDER_UNCONFIGURED)])
    candidates, runs = await ladder.search("q", max_results=5)
    assert candidates == []
    assert [r.reason for r in runs] == ["empty_results", "provider_unconfigured"]


def test_ladder_needs_a_provider() -> None:
    with pytest.raises(ValueError, match="at least one provider"):
        ProviderLadder([])


async def test_ladder_reorders_the_answer_it_takes_and_ranks_it_by_that_order() -> None:
    seen: list[list[str]] = []

    def reverse(found: list[SearchCandidate]) -> list[SearchCandidate]:
        seen.append([c.url for c in found])
        return found[::-1]

    good = Scripted("corpus", ["https://a.com/1", "https://a.com/2", "https://a.com/3"])
    ladder = ProviderLadder([Scripted("web", []), good], reorder=reverse)
    candidates, _ = await ladder.search("q", max_results=3)
    assert seen == [["https://a.com/1", "https://a.com/2", "https://a.com/3"]]
    assert [(c.url, c.rank) for c in candidates] == [
        ("https://a.com/3", 1),
        ("https://a.com/2", 2),
        ("https://a.com/1", 3),
    ]


def test_fusion_order_weighs_each_ranking() -> None:
    terms = [("a", 1), ("b", 2), ("c", 3)]
    meaning = [("d", 1), ("b", 2)]
    # What both rankings hold comes first; alike, the second ranking's first (1/3) ties the
    # first ranking's first (the earlier ranking's goes first) and passes its third (1/5) ...
    assert fusion_order([terms, meaning]) == ["b", "a", "d", "c"]
    # ... but at half weight (1/6) it does not.
    assert fusion_order([terms, meaning], (1.0, 0.5)) == ["b", "a", "c", "d"]
    # Ties go to the better single rank, then the earlier ranking.
    assert fusion_order([[("x", 1)], [("y", 1)]]) == ["x", "y"]
