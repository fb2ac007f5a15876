"""Phase gates return results with reason codes; they never raise (docs/architecture.md §3)."""

from __future__ import annotations

from quotebound.errors import Reason
from quotebound.graph.gates import THIN_PAGE_CHARS, fetch_gate, search_gate
from quotebound.records import SourceInfo


def _check(url: str) -> Reason | None:
    if not url.startswith(("http://", "https://")):
        return Reason.INVALID_URL
    return Reason.BLOCKED_SSRF if "169.254" in url else None


def test_search_gate_needs_a_candidate() -> None:
    result = search_gate([], check_url=_check)
    assert not result.passed and result.reason == Reason.EMPTY_RESULTS


def test_search_gate_drops_unsafe_urls_and_admits_the_rest() -> None:
    result = search_gate(
        [{"url": "http://169.254.169.254/latest"}, {"url": "https://example.org/a"}],
        check_url=_check,
    )
    assert result.passed and result.admitted == ("https://example.org/a",)
    assert result.warnings[0].startswith("blocked_ssrf")


def test_search_gate_fails_when_all_are_unsafe() -> None:
    result = search_gate([{"url": "http://169.254.169.254/?key=secret"}], check_url=_check)
    assert not result.passed and result.reason == Reason.BLOCKED_SSRF
    assert "secret" not in " ".join(result.warnings)


def test_corpus_documents_need_no_network_check() -> None:
    result = search_gate([{"url": "file:///docs/a.html", "document": "a.html"}], check_url=_check)
    assert result.passed


def _source(sid: str, tier: int) -> SourceInfo:
    return SourceInfo(
        source_id=sid,
        url=f"https://e.org/{sid}",
        canonical_url=f"https://e.org/{sid}",
        title=sid,
        trust_tier=tier,
        provider="http",
        fetch_status="fetched",
    )


def test_fetch_gate_counts_documents_across_rounds() -> None:
    fetched = [_source("a", 2), _source("b", 1)]
    chars = {"a": 5000, "b": 10}
    assert not fetch_gate(fetched[:1], min_sources=2, text_chars=chars).passed
    result = fetch_gate(fetched, min_sources=2, text_chars=chars)
    assert result.passed
    assert any("thin page" in w for w in result.warnings)
    assert THIN_PAGE_CHARS > 10


def test_fetch_gate_refuses_a_search_result_as_a_source() -> None:
    result = fetch_gate([_source("a", 0)], min_sources=1, text_chars={"a": 9999})
    assert not result.passed and result.reason == Reason.INSUFFICIENT_EVIDENCE


def test_fetch_gate_warns_on_a_single_tier_set() -> None:
    result = fetch_gate(
        [_source("a", 2), _source("b", 2)], min_sources=1, text_chars={"a": 999, "b": 999}
    )
    assert any("one trust tier" in w for w in result.warnings)


def test_a_rejected_url_is_named_without_its_credentials_or_query() -> None:
    url = "https://user:secret@search.example/?q=x&key=sk-123"
    gate = search_gate(
        [{"url": url, "source_id": "s"}],
        check_url=lambda u: Reason.BLOCKED_SSRF,
    )
    shown = " ".join(gate.warnings + gate.errors)
    assert "search.example" in shown
    assert "secret" not in shown and "sk-123" not in shown and "user:" not in shown
