"""The page text quotes are cut from, against the text a reader of the page sees in a browser
(Debian's headless Chromium): every paragraph of it is there, whitespace aside, so a quote of
any of them can be found by whoever opens the page it cites (invariant 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import Chromium, needs_chromium

from quotebound.text.parsing import parse_page

pytestmark = pytest.mark.integration

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


def _folded(text: str) -> str:
    return " ".join(text.split())


@needs_chromium
async def test_every_paragraph_of_a_page_is_in_the_text_the_browser_shows() -> None:
    files = sorted(PAGES.glob("*.html"))
    assert any("<table" in f.read_text(errors="replace") for f in files)
    async with Chromium() as browser:
        for file in files:
            page = parse_page(file.read_bytes(), content_type="text/html")
            await browser.open(file.as_uri())
            shown = _folded(await browser.evaluate("document.body.innerText"))
            missing = [
                paragraph
                for block in page.blocks
                if (paragraph := _folded(page.text[block.start : block.end])) not in shown
            ]
            assert not missing, (file.name, missing)
