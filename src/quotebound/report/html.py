"""The HTML report: one self-contained file (inline CSS, no scripts, no external assets) with
the answer, the findings, the conflicts and the sources of a finished run.

Each quote links to its source with a text fragment (:mod:`~quotebound.report.fragments`), so
a browser that supports them opens the page with the quote highlighted, and shows the quote
inside its paragraph of the stored page, so the report alone lets a reader see its context.

Every text that comes from a page (titles, quotes, URLs, paragraphs) goes through
:func:`html.escape`; only ``http``/``https`` URLs become links (a ``file:`` URL of a local
document, or a hostile ``javascript:`` one, is shown as text); and the page's Content Security
Policy forbids scripts, so nothing a page says can run. The renderer is a pure function of its
inputs: the same run and pages give the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import urlsplit

from quotebound.records import ConflictGroup, Finding, SourceInfo, Status
from quotebound.report.fragments import deep_link, text_fragment
from quotebound.report.htmlpage import html_document
from quotebound.report.markdown import grounding_confidence, report_tier
from quotebound.report.outline import (
    PARTIAL_NOTE,
    answer_text,
    cited_first,
    shown_findings,
    tier_label,
    unanswered,
    unread_reasons,
)
from quotebound.report.pageview import locate_quote, quote_anchor
from quotebound.text.page import Page

__all__ = ["render_html_report"]

_CONTEXT_CHARS = 600
"""At most this much of the paragraph is shown on each side of a quote."""
_SPACE = re.compile(r"\s+")
_UNSAFE_URL = re.compile(r"[\x00-\x20\x7f]")
_VIEW_PATH = re.compile(r"[A-Za-z0-9_-]+/[0-9a-f]{16}\.html")
"""A page view's path in a bundle (our own name, never a page's): the only relative link."""

_CSS = """
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --accent: #0b5cad; --paper: #ffffff; --wash: #f6f8fa; --mark: #fff3a3; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--wash); color: var(--ink);
  font: 16px/1.55 -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.5rem 3rem; background: var(--paper);
  min-height: 100vh; box-shadow: 0 0 0 1px var(--line); }
h1 { font-size: 1.6rem; line-height: 1.3; margin: 0 0 .6rem; }
h2 { font-size: 1.15rem; margin: 2.2rem 0 .8rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--line); }
.meta { display: flex; flex-wrap: wrap; gap: .4rem; margin: 0; padding: 0; list-style: none; }
.meta li { font-size: .8rem; padding: .15rem .6rem; border-radius: 1rem; background: var(--wash);
  border: 1px solid var(--line); color: var(--muted); }
.meta .status-answered { background: #dafbe1; border-color: #8ddb9f; color: #1a7f37; }
.meta .status-other { background: #fff1e5; border-color: #f2c48d; color: #9a4b00; }
.answer { font-size: 1.08rem; margin: 0; padding: .9rem 1.1rem;
  border-left: 4px solid var(--accent); background: #f0f6fc; border-radius: 0 .4rem .4rem 0; }
.unanswered { margin: .6rem 0 0; padding: .6rem 1.1rem; border-left: 4px solid #d4a72c;
  background: #fff8c5; border-radius: 0 .4rem .4rem 0; }
ol.findings { padding-left: 1.4rem; }
ol.findings > li { margin-bottom: 1.4rem; padding-left: .3rem; }
.claim { margin: 0 0 .4rem; font-weight: 600; }
blockquote { margin: 0 0 .4rem; padding: .2rem 0 .2rem .9rem; border-left: 3px solid var(--line);
  color: #333a41; font-style: italic; }
.cite, .source-meta { margin: 0; font-size: .88rem; color: var(--muted); }
a { color: var(--accent); text-decoration: none; overflow-wrap: anywhere; }
a:hover { text-decoration: underline; }
.url { font-family: "DejaVu Sans Mono", monospace; font-size: .82rem; overflow-wrap: anywhere; }
details { margin-top: .4rem; font-size: .92rem; }
summary { cursor: pointer; color: var(--muted); }
.context { white-space: pre-wrap; margin: .4rem 0 0; padding: .6rem .8rem; background: var(--wash);
  border: 1px solid var(--line); border-radius: .4rem; }
mark { background: var(--mark); padding: 0 .1rem; }
ul.plain { padding-left: 1.2rem; }
ul.plain > li { margin-bottom: .6rem; }
footer { margin-top: 2.5rem; padding-top: .8rem; border-top: 1px solid var(--line);
  font-size: .8rem; color: var(--muted); }
footer code { overflow-wrap: anywhere; }
"""


def render_html_report(
    result: Mapping[str, Any],
    pages: Mapping[str, Page] | None = None,
    *,
    views: Mapping[str, str] | None = None,
) -> str:
    """The run's report as one HTML document.

    ``result`` is a finished run's output (what :func:`~quotebound.run_research` returns);
    ``pages`` maps a cited URL to its stored page, parsed (as :func:`~quotebound.cited_pages`
    reads them): with it, each link's text fragment is chosen so its first match on the page
    is the quote, and each finding shows its paragraph. A page left out only loses those two.
    ``views`` maps a cited URL to the relative path of its stored page's view
    (:mod:`~quotebound.report.pageview`, in an evidence bundle): a quote on such a page links
    to its marked place in the view instead of the live page.
    """
    pages = pages or {}
    links = _QuoteLinks(pages, views or {})
    audit: Mapping[str, Any] = result.get("audit") or {}
    status = str(result.get("status") or "")
    findings: Sequence[Finding] = result.get("findings") or []
    shown = shown_findings(status, findings)
    question = str(result.get("question") or "")
    missing = audit.get("missing")
    answer = answer_text(status, str(result.get("answer") or ""), findings, missing)
    partial = unanswered(status, missing)
    body = [
        f"<h1>{escape(question)}</h1>",
        _meta(status, shown, result.get("thread_id"), partial=bool(partial)),
        "<h2>Direct answer</h2>",
        f'<p class="answer">{escape(answer)}</p>',
        *([f'<p class="unanswered">{escape(partial)}</p>'] if partial else []),
        "<h2>Verified findings</h2>",
        _findings(shown, links),
        "<h2>Conflicts and uncertainty</h2>",
        _uncertainty(audit.get("conflicts") or [] if status == Status.ANSWERED else [], links),
        "<h2>Sources</h2>",
        _sources(result.get("sources") or [], shown, status),
        _footer(audit, in_bundle=bool(views)),
    ]
    return html_document(f"{question} - quotebound report", _CSS, body)


def _meta(status: str, shown: Sequence[Finding], thread_id: object, *, partial: bool) -> str:
    tier = report_tier(shown)
    level = grounding_confidence(len(shown))
    css = "status-answered" if status == Status.ANSWERED else "status-other"
    part = PARTIAL_NOTE if partial else ""
    items = [
        f'<li class="{css}">{escape(status.replace("_", " ") or "unknown status")}</li>',
        f"<li>grounding confidence: {level} ({len(shown)} verified{part})</li>",
        f"<li>report tier: {escape(tier_label(tier)) if tier is not None else 'none'}</li>",
    ]
    if thread_id:
        items.append(f"<li>thread {escape(str(thread_id))}</li>")
    return '<ul class="meta">' + "".join(items) + "</ul>"


def _findings(findings: Sequence[Finding], links: _QuoteLinks) -> str:
    if not findings:
        return "<p>None.</p>"
    items = []
    for finding in findings:
        title, context = links.cite(finding, finding["verification"])
        parts = []
        if _folded(finding["claim"]) != _folded(finding["quote"]):  # an extractive claim is
            parts.append(f'<p class="claim">{escape(finding["claim"])}</p>')  # its quote
        parts += [
            f"<blockquote>\u201c{escape(finding['quote'])}\u201d</blockquote>",
            f'<p class="cite">{title} &middot; {escape(tier_label(finding["trust_tier"]))}'
            f" &middot; verified ({escape(finding['verification']['method'] or 'exact')})</p>",
        ]
        parts += [context] if context else []
        items.append("<li>" + "\n".join(parts) + "</li>")
    return '<ol class="findings">\n' + "\n".join(items) + "\n</ol>"


class _QuoteLinks:
    """Where a cited quote links and the paragraph it is shown in, from the stored pages and,
    in a bundle, the pages' views."""

    def __init__(self, pages: Mapping[str, Page], views: Mapping[str, str]) -> None:
        self._pages = pages
        self._views = views

    def cite(self, cited: Mapping[str, Any], verification: Mapping[str, Any]) -> tuple[str, str]:
        """The quote's title link and its paragraph block (empty without its stored page)."""
        url, quote = str(cited["url"]), str(cited["quote"])
        page = self._pages.get(url)
        span = locate_quote(quote, page, verification) if page is not None else None
        text = cited["title"] or url
        view = self._views.get(url)
        if view is not None and span is not None and _VIEW_PATH.fullmatch(view):
            link = (
                f'<a href="{escape(view)}#{quote_anchor(span)}">{escape(text)}</a>'
                f' <span class="url">({escape(url)})</span>'
            )
        else:
            link = _link(text, _quote_url(url, quote, page, span))
        return link, (_context(page, span) if page is not None and span is not None else "")


def _quote_url(url: str, quote: str, page: Page | None, span: tuple[int, int] | None) -> str:
    """The cited URL with a text fragment for its quote (a non-web URL as it is)."""
    if _web_url(url) is None or not quote.strip():
        return url
    if page is not None and span is not None:
        return deep_link(url, text_fragment(quote, page.text, span))
    return deep_link(url, text_fragment(quote))


def _folded(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _context(page: Page, span: tuple[int, int]) -> str:
    """A collapsible block: the paragraph(s) of the stored page holding the quote, marked."""
    start, end = span
    around = [b for b in page.blocks if b.end > start and b.start < end]
    first = min((b.start for b in around), default=start)
    last = max((b.end for b in around), default=end)
    lead, tail = "", ""
    if start - first > _CONTEXT_CHARS:
        first, lead = page.text.rfind(" ", 0, start - _CONTEXT_CHARS) + 1, "\u2026"
    if last - end > _CONTEXT_CHARS:
        cut = page.text.find(" ", end + _CONTEXT_CHARS)
        last, tail = (cut, "\u2026") if cut != -1 else (last, "")
    text = page.text
    return (
        "<details><summary>The quote in its paragraph of the stored page</summary>"
        f'<p class="context">{lead}{escape(text[first:start])}<mark>{escape(text[start:end])}'
        f"</mark>{escape(text[end:last])}{tail}</p></details>"
    )


def _uncertainty(conflicts: Sequence[ConflictGroup], links: _QuoteLinks) -> str:
    """As the Markdown report: the conflicts (the run's warnings stay in the audit)."""
    items = []
    for group in conflicts:
        sides = []
        for side in group["sides"]:
            link, _ = links.cite(side, {})
            values = f" (states {escape(', '.join(side['values']))})" if side["values"] else ""
            sides.append(f"<li>\u201c{escape(side['quote'])}\u201d &ndash; {link}{values}</li>")
        items.append(
            f"<li>Sources disagree on {escape(group['topic'])}:"
            f'<ul class="plain">{"".join(sides)}</ul></li>'
        )
    return f'<ul class="plain">{"".join(items)}</ul>' if items else "<p>None found.</p>"


def _sources(sources: Sequence[SourceInfo], findings: Sequence[Finding], status: str) -> str:
    if status == Status.VERIFIED_DISABLED:
        leads = [s for s in sources if s["fetch_status"] != "failed"]
        if not leads:
            return "<p>None: nothing was stored or verified, and no leads were found.</p>"
        rows = [
            f"<li>{_link(s['title'] or s['url'], s['url'])}"
            f'<p class="source-meta">unverified lead ({escape(s["provider"])})</p></li>'
            for s in leads
        ]
        return (
            "<p>Unverified leads (candidates only, nothing verified):</p>"
            f'<ul class="plain">{"".join(rows)}</ul>'
        )
    rows = [
        f"<li>{_link(source['title'] or source['url'], source['url'])}"
        f'<p class="source-meta">{escape(tier_label(source["trust_tier"]))} &middot; '
        f"{'cited' if cited else 'read'}, accessed "
        f"{escape(source.get('fetched_at') or 'unknown time')} &middot; "
        f'<span class="url">{escape(source["url"])}</span></p></li>'
        for source, cited in cited_first(sources, findings)
    ]
    reasons = unread_reasons(sources)
    if reasons:
        detail = ", ".join(f"{escape(reason)}: {n}" for reason, n in reasons)
        count = sum(n for _, n in reasons)
        rows.append(f"<li>{count} more could not be read ({detail}); see the audit</li>")
    return f'<ul class="plain">{"".join(rows)}</ul>' if rows else "<p>None.</p>"


def _footer(audit: Mapping[str, Any], *, in_bundle: bool) -> str:
    facts = [
        ("stop reason", audit.get("stop_reason")),
        ("report sha256", audit.get("report_sha256")),
        ("evidence sha256", audit.get("evidence_sha256")),
    ]
    shown = [f"{name}: <code>{escape(str(value))}</code>" for name, value in facts if value]
    opens = (
        "the stored page's text, in this bundle, with the quote marked"
        if in_bundle
        else "the page with the quote highlighted in browsers that support text fragments"
    )
    return (
        "<footer><p>Every quote above was matched verbatim against the page stored when it was "
        f"read; its link opens {opens}.</p>"
        + (f"<p>{' &middot; '.join(shown)}</p>" if shown else "")
        + "</footer>"
    )


def _web_url(url: str) -> str | None:
    """``url`` when it is an http(s) URL safe to put in an ``href``; else None."""
    if _UNSAFE_URL.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def _link(text: str, url: str) -> str:
    """An ``<a>`` to an http(s) URL; any other URL is shown as text, never linked."""
    target = _web_url(url)
    if target is None and text == url:
        return f'<span class="url">{escape(url)}</span>'
    if target is None:
        return f'{escape(text)} <span class="url">({escape(url)})</span>'
    return f'<a href="{escape(target, quote=True)}" rel="noreferrer">{escape(text)}</a>'
