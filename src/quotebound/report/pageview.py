"""A stored page as a reader sees it inside an evidence bundle: its clean text (the very text
every quote was verified against), paragraph by paragraph, with each cited quote marked and
given an anchor the bundle's HTML report links to.

The view is built from the parsed page, never from the page's own markup, so nothing the page
held (scripts, styles, links) comes along: every character is escaped and the view's Content
Security Policy forbids scripts as well. The same page and quotes give the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from html import escape
from itertools import pairwise
from typing import Any

from quotebound.evidence.verification import verify_quote
from quotebound.report.htmlpage import html_document
from quotebound.text.page import Page
from quotebound.urls import source_id

__all__ = ["VIEWS_DIR", "locate_quote", "page_views", "quote_anchor", "render_page_view"]

VIEWS_DIR = "views"
"""Where a bundle keeps the views of its cited pages."""
_SPACE = re.compile(r"\s+")


def locate_quote(quote: str, page: Page, verification: Mapping[str, Any]) -> tuple[int, int] | None:
    """Where the quote lies in the page's text: its recorded offsets when they still hold
    it, else where verification finds it now; None when it no longer verifies."""
    start, end = int(verification.get("start", -1)), int(verification.get("end", -1))
    if 0 <= start < end <= len(page.text) and _folded(page.text[start:end]) == _folded(quote):
        return start, end
    found = verify_quote(quote, page.text)
    return (found.start, found.end) if found.status == "PASS" else None


def page_views(
    result: Mapping[str, Any], pages: Mapping[str, Page]
) -> tuple[dict[str, str], dict[str, bytes]]:
    """The views of a run's cited pages, for its bundle: each cited URL's view path, and each
    view's file by path, its quotes (the findings' and the conflicts') marked."""
    audit = result.get("audit") or {}
    sides = [s for g in audit.get("conflicts") or [] for s in g["sides"]]
    cited = [*(result.get("findings") or []), *sides]
    spans: dict[str, set[tuple[int, int]]] = {}
    titles: dict[str, str] = {}
    for item in cited:
        url = str(item["url"])
        page = pages.get(url)
        if page is None:
            continue
        span = locate_quote(str(item["quote"]), page, item.get("verification") or {})
        if span is not None:
            spans.setdefault(url, set()).add(span)
            titles.setdefault(url, str(item.get("title") or ""))
    paths = {url: f"{VIEWS_DIR}/{source_id(url)}.html" for url in sorted(spans)}
    files = {
        path: render_page_view(pages[url], url=url, title=titles[url], spans=spans[url]).encode()
        for url, path in paths.items()
    }
    return paths, files


def quote_anchor(span: tuple[int, int]) -> str:
    """The anchor of the quote at ``span`` (offsets into the page's clean text) in its view."""
    return f"q{span[0]}-{span[1]}"


def render_page_view(page: Page, *, url: str, title: str, spans: Iterable[tuple[int, int]]) -> str:
    """The page's clean text as one self-contained HTML document, each span marked and anchored
    (:func:`quote_anchor`); overlapping spans share one mark."""
    wanted = sorted({(s, e) for s, e in spans if 0 <= s < e <= len(page.text)})
    marks = _merged(wanted)
    anchors = {s: [quote_anchor((s, e)) for s2, e in wanted if s2 == s] for s, _ in wanted}
    blocks = [(b.start, b.end) for b in page.blocks] or [(0, len(page.text))]
    body = [_paragraph(page.text, start, end, marks, anchors) for start, end in blocks]
    note = (
        '<p class="note">The text of this page as stored when it was read, the text its quotes '
        "were verified against; the quotes the report cites are marked.</p>"
    )
    heading = f"<h1>{escape(title or url)}</h1>"
    lines = [heading, f'<p class="url">{escape(url)}</p>', note, *body]
    return html_document(f"{title or url} - stored page", _CSS, lines)


def _folded(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _paragraph(
    text: str,
    start: int,
    end: int,
    marks: list[tuple[int, int]],
    anchors: dict[int, list[str]],
) -> str:
    """One block of the text, the parts of marks that fall in it highlighted, the anchors of
    the quotes that start in it placed where they start."""
    cuts = {start, end}
    cuts.update(p for m in marks for p in m if start < p < end)
    cuts.update(p for p in anchors if start < p < end)
    out: list[str] = []
    marking = False
    for a, b in pairwise(sorted(cuts)):
        out.extend(f'<span id="{name}"></span>' for name in anchors.get(a, ()))
        inside = any(m0 <= a and b <= m1 for m0, m1 in marks)
        if inside != marking:
            out.append("<mark>" if inside else "</mark>")
            marking = inside
        out.append(escape(text[a:b]))
    return f"<p>{''.join(out)}{'</mark>' if marking else ''}</p>"


_CSS = """
:root { color-scheme: light; }
body { margin: 0; background: #f6f8fa; color: #1f2328;
  font: 16px/1.6 -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif; }
main { max-width: 48rem; margin: 0 auto; padding: 2rem 1.5rem 3rem; background: #fff;
  min-height: 100vh; box-shadow: 0 0 0 1px #d1d9e0; }
h1 { font-size: 1.4rem; margin: 0 0 .4rem; overflow-wrap: anywhere; }
.url { font-family: "DejaVu Sans Mono", monospace; font-size: .82rem; color: #59636e;
  overflow-wrap: anywhere; margin: 0; }
.note { font-size: .85rem; color: #59636e; border-bottom: 1px solid #d1d9e0;
  padding-bottom: .8rem; }
p { white-space: pre-wrap; overflow-wrap: anywhere; }
mark { background: #fff3a3; padding: 0 .1rem; }
:target + mark { outline: 2px solid #0b5cad; }
"""
