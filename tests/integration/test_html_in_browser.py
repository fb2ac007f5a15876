"""The HTML report of a real run, checked in a real browser (Debian's headless Chromium).

Acceptance: every quote link's text fragment decodes to text that lies on the cited stored
page and first matches the quote itself; the report renders (a screenshot, also kept in
/work/diag for a person to look at when that directory exists); and a deep link opened in
the browser scrolls to the quote, past an earlier decoy of its first words.
"""

from __future__ import annotations

import asyncio
import html
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from browser import Chromium, needs_chromium, screenshot
from httpserver import LoopbackServer, respond
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from tern import tern_corpus

from quotebound import cited_pages, make_context, render_html_report, run_research
from quotebound.evidence.verification import verify_quote
from quotebound.graph.deps import Deps
from quotebound.report.fragments import TextDirective, deep_link, first_match, text_fragment
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page

pytestmark = pytest.mark.integration

QUESTION = "What is the default timeout of the Tern client and how often does it retry?"
DIAG = Path("/work/diag")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [str(v) for k, v in attrs if tag == "a" and k == "href"]


def _hrefs(document: str) -> list[str]:
    links = _Links()
    links.feed(document)
    return links.hrefs


def _directive(fragment: str) -> TextDirective:
    """Decode ``[prefix-,]start[,end][,-suffix]`` (the test's own reading of the syntax)."""
    terms = fragment.split(",")
    prefix = unquote(terms.pop(0)[:-1]) if terms[0].endswith("-") else None
    suffix = unquote(terms.pop()[1:]) if terms[-1].startswith("-") else None
    start, end = (unquote(t) for t in [*terms, ""][:2])
    return TextDirective(start, end or None, prefix, suffix)


def _on_page(term: str, text: str) -> bool:
    """Whether ``term`` lies on the page: word-bounded, case-insensitive, any whitespace."""
    words = r"\s+".join(re.escape(w) for w in term.split())
    return re.search(rf"(?<!\w){words}(?!\w)", text, re.IGNORECASE) is not None


Report = tuple[dict[str, Any], dict[str, Page], str]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """A run on the Tern corpus, its cited pages read from the Store, and its HTML report,
    all through the public API."""
    corpus = tern_corpus(tmp_path_factory.mktemp("tern"))
    store = InMemoryStore()

    async def run() -> Report:
        result = await run_research(
            QUESTION,
            store=store,
            checkpointer=InMemorySaver(),
            thread_id="html-1",
            context=make_context(composer="extractive", provider="corpus", corpus_dir="x"),
            deps=Deps(providers=[corpus]),
        )
        pages = await cited_pages(store, "html-1", result)
        return result, pages, render_html_report(result, pages)

    result, pages, document = asyncio.run(run())
    assert result["status"] == "answered", result["report_markdown"]
    return result, pages, document


async def test_every_link_fragment_decodes_to_its_quote_on_the_cited_page(
    report: Report,
) -> None:
    result, pages, document = report
    deep = [h for h in _hrefs(document) if ":~:text=" in h]
    assert len(deep) == len(result["findings"]) >= 2
    for finding, href in zip(result["findings"], deep, strict=True):
        url, _, fragment = href.partition("#:~:text=")
        assert url == finding["url"]
        text = pages[url].text
        directive = _directive(fragment)
        terms = [directive.prefix, directive.start, directive.end, directive.suffix]
        assert all(_on_page(t, text) for t in terms if t), (terms, url)
        span = first_match(text, directive)
        assert span is not None and text[span[0] : span[1]] == finding["quote"], directive
        assert verify_quote(finding["quote"], text).status == "PASS"


async def test_the_report_is_the_same_bytes_from_the_same_run(
    report: Report,
) -> None:
    result, pages, document = report
    assert render_html_report(result, pages) == document


async def test_a_question_the_corpus_cannot_answer_says_what_is_missing(tmp_path: Path) -> None:
    store = InMemoryStore()
    result = await run_research(
        "Who painted the ceiling of the Sistine Chapel?",
        store=store,
        thread_id="html-2",
        context=make_context(composer="extractive", provider="corpus", corpus_dir="x"),
        deps=Deps(providers=[tern_corpus(tmp_path)]),
    )
    assert result["status"] == "insufficient_evidence"
    document = render_html_report(result, await cited_pages(store, "html-2", result))
    assert "Insufficient evidence: no verified quote answers this question." in document
    missing = html.escape(result["audit"]["missing"])
    assert missing and f"Missing: {missing}." in document
    assert "<blockquote>" not in document and ":~:text=" not in document


@needs_chromium
async def test_chromium_renders_the_report(report: Report, tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    html.write_text(report[2], encoding="utf-8")
    png = screenshot(html.as_uri(), tmp_path / "report.png", height=2000)
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 10_000
    if DIAG.is_dir():  # for a person to look at; never part of the repository
        shutil.copyfile(png, DIAG / "html_report.png")


@needs_chromium
async def test_a_partial_answer_shows_the_part_it_leaves_unanswered_under_the_answer(
    tmp_path: Path,
) -> None:
    store = InMemoryStore()
    part = "how much does a Tern enterprise licence cost"
    result = await run_research(
        f"What is the default timeout of the Tern client, and {part}?",
        store=store,
        thread_id="html-3",
        context=make_context(composer="extractive", provider="corpus", corpus_dir="x"),
        deps=Deps(providers=[tern_corpus(tmp_path / "tern")]),
    )
    assert result["status"] == "answered", result["report_markdown"]
    page = tmp_path / "partial.html"
    page.write_text(render_html_report(result, await cited_pages(store, "html-3", result)))
    box = "document.querySelector('.{}').getBoundingClientRect()"
    async with Chromium() as browser:
        await browser.open(page.as_uri())
        assert await browser.until("document.querySelector('.unanswered') !== null")
        shown = await browser.evaluate("document.querySelector('.unanswered').innerText")
        assert shown == f"Not answered: {part}."
        # Seen right under the answer, before the findings.
        assert await browser.evaluate(
            f"{box.format('unanswered')}.top >= {box.format('answer')}.bottom"
            f" && {box.format('unanswered')}.bottom <= {box.format('findings')}.top"
            f" && {box.format('unanswered')}.height > 0"
        )


LONG_PAGE_QUOTE = (
    "a full lift cycle takes about twelve minutes from the first warning bells until the "
    "traffic lanes reopen"
)


def _long_page() -> str:
    filler = "".join(
        f"<p>Harbor note {i}: ferries, tides and the weather at the old market pier.</p>"
        for i in range(150)
    )
    return (
        "<!doctype html><html><head><title>Harbor Bridge</title></head><body>"
        '<p id="decoy">Is a full lift cycle slow? Ask the bridge operators.</p>'
        f'{filler}<p id="quote">On weekdays {LONG_PAGE_QUOTE}.</p>{filler}</body></html>'
    )


def _in_view(element: str) -> str:
    rect = f"document.getElementById('{element}').getBoundingClientRect()"
    return f"({rect}.top >= 0 && {rect}.bottom <= window.innerHeight)"


@needs_chromium
async def test_a_deep_link_opens_the_page_scrolled_to_the_quote(
    http_server: LoopbackServer,
) -> None:
    body = _long_page().encode()
    http_server.routes["/bridge.html"] = lambda h: respond(
        h, 200, body, {"Content-Type": "text/html; charset=utf-8"}
    )
    url = http_server.url("/bridge.html")
    text = parse_page(body.decode()).text
    found = verify_quote(LONG_PAGE_QUOTE, text)
    directive = text_fragment(LONG_PAGE_QUOTE, text, (found.start, found.end))
    assert directive.prefix == "weekdays"  # its first words occur earlier, in the decoy
    naive = text_fragment(LONG_PAGE_QUOTE)  # the same quote, chosen without the page
    async with Chromium() as browser:
        await browser.open(deep_link(url, directive))
        assert await browser.until(f"window.scrollY > 0 && {_in_view('quote')}")
        assert not await browser.evaluate(_in_view("decoy"))
        # The control: without the prefix the range starts at the decoy, so no scroll.
        await browser.open("about:blank")
        await browser.open(deep_link(url, naive))
        assert not await browser.until(_in_view("quote"), timeout=2)
