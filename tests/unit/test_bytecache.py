"""The caches of parsed pages and verification indexes: one budget in bytes, thread-safe."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from quotebound.errors import ConfigError
from quotebound.evidence.verification import verify_quote
from quotebound.storage import bytecache
from quotebound.storage.bytecache import ByteCache, configure, shared
from quotebound.storage.rawstore import RawPage, parsed_page
from quotebound.text.parsing import parse_page


@pytest.fixture(autouse=True)
def _fresh_shared_cache() -> Iterator[None]:
    yield
    configure(bytecache.DEFAULT_BUDGET_MB)


def test_entries_are_evicted_least_recent_first_within_the_budget() -> None:
    cache = ByteCache(100)
    for key in "abc":
        cache.put(key, key.upper(), 24)
    assert cache.get("a") == (True, "A")  # a is now the most recent
    cache.put("d", "D", 24)
    cache.put("e", "E", 24)  # 120 bytes: b, the least recent, goes
    assert cache.get("b") == (False, None)
    assert [cache.get(k)[0] for k in "acde"] == [True, True, True, True]
    assert cache.used == 96 <= cache.budget


def test_a_value_over_a_quarter_of_the_budget_is_kept_alone_as_its_kinds_latest() -> None:
    cache = ByteCache(100)
    cache.put("small", 1, 20)
    cache.put("huge", 2, 26, "parse")
    cache.put("other", 3, 90, "index")
    assert cache.get("huge", "parse") == (True, 2)
    assert cache.get("huge", "index") == (False, None)  # kept for its own kind only
    assert cache.get("small") == (True, 1)  # and it evicted nothing
    assert cache.used == 20
    cache.put("huger", 4, 50, "parse")  # the next one of the kind takes its place
    assert cache.get("huge", "parse") == (False, None)
    assert cache.get("huger", "parse") == (True, 4)
    assert cache.get("other", "index") == (True, 3)
    cache.clear()
    assert cache.get("huger", "parse") == (False, None)


def test_a_budget_of_nothing_keeps_nothing() -> None:
    cache = ByteCache(0)
    cache.put("huge", 2, 26, "parse")
    assert cache.get("huge", "parse") == (False, None)


def test_many_threads_at_once_keep_the_budget() -> None:
    cache = ByteCache(1_000)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            barrier.wait()
            for i in range(2_000):
                cache.put((n, i % 50), i, 10 + i % 90)
                cache.get((n, (i * 7) % 50))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cache.used <= cache.budget
    assert cache.used == sum(cost for _, cost in cache._entries.values())


@pytest.mark.parametrize("raw", ["abc", "-1", "nan", "1e12"])
def test_a_malformed_budget_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("QUOTEBOUND_CACHE_MB", raw)
    with pytest.raises(ConfigError, match="QUOTEBOUND_CACHE_MB"):
        configure()


def test_the_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTEBOUND_CACHE_MB", "0.5")
    assert configure().budget == 500_000
    monkeypatch.delenv("QUOTEBOUND_CACHE_MB")
    assert configure().budget == bytecache.DEFAULT_BUDGET_MB * 1_000_000


def _page(paragraphs: int) -> RawPage:
    body = "".join(
        f"<p>Paragraph {i} of the page, with a few words.</p>" for i in range(paragraphs)
    )
    return RawPage(
        url="https://example.org/p",
        final_url="https://example.org/p",
        status=200,
        content_type="text/html",
        encoding="utf-8",
        sha256="0" * 64,
        title="p",
        trust_tier=2,
        provider="test",
        html=f"<html><body>{body}</body></html>",
    )


def test_a_page_is_parsed_once_and_only_the_latest_huge_one_is_kept_beside_the_budget() -> None:
    configure(0.4)  # 400 KB: one entry may cost 100 KB
    small, huge, other = _page(20), _page(5_000), _page(5_001)
    assert parsed_page(small) is parsed_page(small)
    first = parsed_page(huge)
    assert parsed_page(huge) is first  # each step of a run on it reads the one parse
    assert shared().used <= shared().budget
    parsed_page(other)
    assert parsed_page(huge) is not first and parsed_page(huge) == first


def test_verification_stays_within_the_budget_on_many_pages() -> None:
    configure(1)
    for n in range(30):
        text = " ".join(f"word{n}x{i}" for i in range(5_000))
        assert verify_quote(f"word{n}x10 word{n}x11 word{n}x12 word{n}x13", text).status == "PASS"
        assert verify_quote(f"word{n}x10  word{n}x11\nword{n}x12 word{n}x13", text).status == "PASS"
        fuzzy = f"word{n}x10, word{n}x11 word{n}x12, word{n}x13 word{n}x14"
        assert verify_quote(fuzzy, text).method == "fuzzy"
        assert shared().used <= shared().budget


def test_parsing_in_many_threads_leaves_the_collector_as_it_found_it() -> None:
    html = "<html><body>" + "<p>Some words of a paragraph.</p>" * 2_000 + "</body></html>"
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        barrier = threading.Barrier(6)

        def parse(barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            for _ in range(3):
                parse_page(html, content_type="text/html")

        threads = [threading.Thread(target=parse) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert gc.isenabled() is enabled
    gc.enable()
