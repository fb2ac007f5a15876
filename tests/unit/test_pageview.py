"""The views of stored pages in an evidence bundle: the verified text, escaped, quotes marked."""

from __future__ import annotations

import html
import re

from quotebound.report.pageview import page_views, quote_anchor, render_page_view
from quotebound.text.parsing import parse_page

HOSTILE = (
    "<html><head><title>x</title><script>alert(1)</script></head><body>"
    "<p>The bridge lifts at noon &lt;script&gt;alert(2)&lt;/script&gt; every day of the week.</p>"
    '<p>Its span <a href="javascript:alert(3)">rises</a> in twelve minutes, the operators say.</p>'
    "</body></html>"
)


def test_a_view_is_the_pages_text_escaped_with_no_markup_of_its_own() -> None:
    page = parse_page(HOSTILE, content_type="text/html")
    view = render_page_view(page, url="javascript:alert(4)", title="<b>t</b>", spans=[])
    assert "<script" not in view and "javascript:alert(3)" not in view
    assert "&lt;script&gt;alert(2)" in view and "&lt;b&gt;t&lt;/b&gt;" in view
    assert "href" not in view and "default-src 'none'" in view
    assert html.unescape(re.sub(r"<[^>]+>", "", view)).count("every day of the week") == 1


def test_each_quote_is_marked_and_anchored_where_it_starts_overlaps_sharing_a_mark() -> None:
    page = parse_page(HOSTILE, content_type="text/html")
    first = page.text.index("The bridge")
    second = page.text.index("lifts at noon")
    span_a = (first, first + len("The bridge lifts at noon"))
    span_b = (second, second + len("lifts at noon <script>"))
    view = render_page_view(page, url="https://x.example/", title="t", spans=[span_a, span_b])
    assert view.count("<mark>") == 1
    assert f'<span id="{quote_anchor(span_a)}"></span><mark>The bridge ' in view
    assert f'<span id="{quote_anchor(span_b)}"></span>lifts at noon &lt;script&gt;</mark>' in view


def test_page_views_mark_the_cited_quotes_of_each_cited_page_only() -> None:
    page = parse_page(HOSTILE, content_type="text/html")
    quote = "Its span rises in twelve minutes"
    start = page.text.index(quote)
    finding = {
        "url": "https://x.example/a",
        "title": "A",
        "quote": quote,
        "verification": {"start": start, "end": start + len(quote)},
    }
    lost = dict(finding, url="https://x.example/b", quote="not on any page at all, anywhere")
    paths, files = page_views({"findings": [finding, lost]}, {"https://x.example/a": page})
    assert list(paths) == ["https://x.example/a"]
    view = files[paths["https://x.example/a"]].decode()
    assert f'id="{quote_anchor((start, start + len(quote)))}"' in view
    assert page_views({"findings": [finding]}, {"https://x.example/a": page}) == (paths, files)
