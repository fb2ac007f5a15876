"""The HTML report: one self-contained page, deep links to each quote, the quote in its
paragraph, and no way for a hostile page to inject markup, scripts or non-web links."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote

from quotebound.records import Finding, SourceInfo
from quotebound.report.fragments import TextDirective, first_match
from quotebound.report.html import render_html_report
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page

URL = "https://docs.example.org/bridge.html"
QUOTE = "a full lift cycle takes about twelve minutes from the first warning bells"
PAGE_HTML = f"""<html><head><title>Bridge</title></head><body><main>
<p>Not a full lift today: the harbor radio announces each lift an hour ahead.</p>
<p>On weekdays {QUOTE} until the traffic lanes reopen.</p></main></body></html>"""
HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>'


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of the document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(document: str) -> _Tags:
    tags = _Tags()
    tags.feed(document)
    tags.close()
    return tags


def _finding(quote: str = QUOTE, *, url: str = URL, title: str = "Bridge", **kw: Any) -> Finding:
    start = parse_page(PAGE_HTML).text.find(quote)
    return Finding(
        claim=kw.get("claim", "A lift cycle takes about twelve minutes."),
        quote=quote,
        evidence_ids=["ev-1"],
        url=url,
        title=title,
        trust_tier=2,
        verification={
            "status": "PASS",
            "method": "exact",
            "start": start,
            "end": start + len(quote),
        },
    )


def _source(url: str = URL, title: str = "Bridge") -> SourceInfo:
    return SourceInfo(
        source_id="s1",
        url=url,
        canonical_url=url,
        title=title,
        trust_tier=2,
        provider="corpus",
        fetch_status="fetched",
        fetched_at="2025-01-02T03:04:05Z",
    )


def _result(findings: list[Finding], sources: list[SourceInfo], **kw: Any) -> dict[str, Any]:
    return {
        "question": "How long does a lift cycle take?",
        "status": "answered",
        "answer": "A lift cycle takes about twelve minutes.",
        "findings": findings,
        "sources": sources,
        "audit": {"conflicts": [], "warnings": [], "stop_reason": "sufficient"},
        "thread_id": "t1",
        **kw,
    }


def _hrefs(document: str) -> list[str]:
    return [str(a["href"]) for tag, a in _parse(document).tags if tag == "a"]


def test_each_quote_links_to_its_page_with_a_fragment_whose_first_match_is_the_quote() -> None:
    page = parse_page(PAGE_HTML)
    document = render_html_report(_result([_finding()], [_source()]), {URL: page})
    link = next(h for h in _hrefs(document) if ":~:text=" in h)
    base, _, directive = link.partition("#:~:text=")
    assert base == URL
    terms = [unquote(t) for t in directive.split(",")]
    assert terms[0] == "weekdays-"  # "a full lift cycle" alone first matches the wrong paragraph
    parsed = TextDirective(terms[1], end=terms[2], prefix="weekdays")
    start = page.text.index(QUOTE)
    assert first_match(page.text, parsed) == (start, start + len(QUOTE))


def test_the_quote_is_shown_marked_inside_its_paragraph_in_a_collapsible_block() -> None:
    document = render_html_report(_result([_finding()], [_source()]), {URL: parse_page(PAGE_HTML)})
    details = document[document.index("<details>") : document.index("</details>")]
    assert f"<mark>{QUOTE}</mark>" in details
    assert "On weekdays " in details and " until the traffic lanes reopen." in details
    assert "harbor radio" not in details  # only the quote's own paragraph


def test_without_its_page_a_quote_still_links_by_its_own_words_but_shows_no_context() -> None:
    document = render_html_report(_result([_finding()], [_source()]))
    assert f"{URL}#:~:text=a%20full%20lift,first%20warning%20bells" in document
    assert "<details>" not in document


def test_a_hostile_page_cannot_inject_markup_scripts_handlers_or_links() -> None:
    evil_url = "javascript:alert(document.cookie)"
    hostile_page = parse_page(f"<p>{HOSTILE} and then {QUOTE} ends.</p>")
    findings = [
        _finding(f"{QUOTE}", title=HOSTILE, claim=HOSTILE),
        _finding(QUOTE, url=evil_url, title=HOSTILE),
        _finding(QUOTE, url="data:text/html,<script>alert(3)</script>", title="data"),
        _finding(QUOTE, url='https://x.org/"onmouseover="alert(4)', title="quote"),
    ]
    sources = [_source(evil_url, HOSTILE), _source("file:///etc/passwd", HOSTILE)]
    side = {"evidence_id": "e", "quote": HOSTILE, "url": evil_url, "title": HOSTILE}
    conflict = {"topic": HOSTILE, "sides": [{**side, "values": [HOSTILE]}]}
    result = _result(
        findings,
        sources,
        question=HOSTILE,
        answer=HOSTILE,
        audit={"conflicts": [conflict], "missing": HOSTILE, "stop_reason": HOSTILE},
    )
    document = render_html_report(result, {URL: hostile_page, evil_url: hostile_page})
    parsed = _parse(document)
    names = [tag for tag, _ in parsed.tags]
    assert "script" not in names and "img" not in names
    assert not [(t, k) for t, attrs in parsed.tags for k in attrs if k.startswith("on")]
    hrefs = _hrefs(document)
    assert hrefs and all(h.startswith(("https://", "http://")) for h in hrefs), hrefs
    assert any('"onmouseover="alert(4)' in h for h in hrefs)  # inert: inside the attribute
    text = "".join(parsed.text)
    assert HOSTILE in text and evil_url in text and "file:///etc/passwd" in text  # shown as text


def test_a_partial_answer_names_the_part_left_unanswered_under_the_answer() -> None:
    result = _result([_finding()], [_source()], audit={"missing": "the lift schedule"})
    text = "".join(_parse(render_html_report(result)).text)
    answer = text.split("Direct answer", 1)[1].split("Verified findings", 1)[0]
    assert "Not answered: the lift schedule." in answer
    assert "part of the question not answered" in text
    plain = render_html_report(_result([_finding()], [_source()]))
    assert "Not answered" not in "".join(_parse(plain).text)


def test_a_local_file_url_is_shown_as_text_not_linked() -> None:
    url = "file:///home/me/docs/copy.html"
    document = render_html_report(_result([_finding(url=url)], [_source(url, "copy")]))
    assert _hrefs(document) == []
    assert f'<span class="url">({url})</span>' in document


def test_the_document_is_self_contained_and_forbids_scripts() -> None:
    document = render_html_report(_result([_finding()], [_source()]), {URL: parse_page(PAGE_HTML)})
    tags = _parse(document).tags
    assert not [t for t, a in tags if t in ("script", "link", "img", "iframe", "object")]
    csp = next(a for t, a in tags if t == "meta" and a.get("http-equiv"))
    assert "default-src 'none'" in str(csp["content"])
    assert document.startswith("<!doctype html>") and "<style>" in document


def test_same_run_same_bytes() -> None:
    pages: dict[str, Page] = {URL: parse_page(PAGE_HTML)}
    result = _result([_finding()], [_source()])
    assert render_html_report(result, pages) == render_html_report(result, pages)


def test_a_run_without_an_answer_says_what_is_missing_and_shows_no_findings() -> None:
    result = _result(
        [_finding()],
        [_source()],
        status="insufficient_evidence",
        answer="",
        audit={"missing": "the lift schedule", "warnings": []},
    )
    document = render_html_report(result)
    assert "Insufficient evidence" in document and "Missing: the lift schedule." in document
    assert "<blockquote>" not in document


def test_a_run_without_verification_lists_its_leads_only() -> None:
    lead = {**_source(), "fetch_status": "lead"}
    result = _result(
        [], [lead], status="verified_disabled", answer="", audit={"missing": "no store"}
    )
    document = render_html_report(result)
    assert "Nothing in this report is verified: no store." in document
    assert "Unverified leads" in document
