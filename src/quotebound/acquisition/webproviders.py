"""Search providers behind JSON APIs: SearXNG (self-hosted), Brave Web and News Search, the
GDELT DOC 2.0 news API and Wikipedia's MediaWiki search.

Each says how to ask its API and how to read the answer; asking, retrying and recording are
:class:`~quotebound.acquisition.searchapi.JsonSearchProvider`'s, and so are the keyword
arguments ``**http`` (``timeout_s``, ``retries``, ``backoff_s``, ``client``). Keys come from
the environment (``BRAVE_API_KEY``), travel in a header and never appear in an endpoint, a run
or a log.
"""

from __future__ import annotations

import html
import os
import re
from typing import Any, Literal
from urllib.parse import quote

import httpx

from quotebound.acquisition.searchapi import Hit, JsonSearchProvider, Request

__all__ = ["BraveProvider", "GdeltProvider", "SearxngProvider", "WikipediaProvider"]

_TAG = re.compile(r"<[^>]*>")
_USER_AGENT = "quotebound (a research agent that quotes its sources)"


def _text(value: object) -> str:
    """A string field as plain text: markup removed, entities decoded."""
    return html.unescape(_TAG.sub("", value)) if isinstance(value, str) else ""


def _rows(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ValueError(f"results must be a list, got {type(value).__name__}")
    return [r for r in value if isinstance(r, dict) and isinstance(r.get("url"), str)]


class SearxngProvider(JsonSearchProvider):
    """A SearXNG instance's JSON API (``/search?q=...&format=json``); its ``json`` output format
    must be enabled in the instance's settings. Category ``general`` (web) or ``news``."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        category: Literal["general", "news"] = "general",
        **http: Any,
    ) -> None:
        super().__init__(**http)
        raw = base_url if base_url is not None else os.environ.get("QUOTEBOUND_SEARXNG_URL", "")
        self.base_url = raw.strip().rstrip("/")
        self.category = category
        self.kind = "news" if category == "news" else "web"
        self.name = "searxng-news" if category == "news" else "searxng"

    @property
    def configured(self) -> bool:
        return self.base_url.startswith(("http://", "https://"))

    @property
    def endpoint(self) -> str:
        url = httpx.URL(self.base_url or "http://unset")
        return str(url.copy_with(username=None, password=None, query=None)) + "/search"

    def request(self, query: str, max_results: int) -> Request:
        return Request(
            f"{self.base_url}/search",
            {"q": query, "format": "json", "categories": self.category, "pageno": 1},
        )

    def hits(self, data: Any) -> list[Hit]:
        return [
            Hit(r["url"], _text(r.get("title")), _text(r.get("content")))
            for r in _rows(data["results"])
        ]


class BraveProvider(JsonSearchProvider):
    """Brave Web Search or Brave News Search (``BRAVE_API_KEY``, sent as
    ``X-Subscription-Token``)."""

    def __init__(
        self,
        *,
        news: bool = False,
        api_key: str | None = None,
        base_url: str = "https://api.search.brave.com",
        **http: Any,
    ) -> None:
        super().__init__(**http)
        self._api_key = api_key if api_key is not None else os.environ.get("BRAVE_API_KEY", "")
        self.base_url = base_url.rstrip("/")
        self.news = news
        self.kind = "news" if news else "web"
        self.name = "brave-news" if news else "brave"

    def __repr__(self) -> str:  # never show the key
        return f"BraveProvider(news={self.news!r}, base_url={self.base_url!r})"

    @property
    def configured(self) -> bool:
        return bool(self._api_key.strip())

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/res/v1/{'news' if self.news else 'web'}/search"

    def request(self, query: str, max_results: int) -> Request:
        return Request(
            self.endpoint,
            {"q": query, "count": min(max_results, 50 if self.news else 20)},
            {"Accept": "application/json", "X-Subscription-Token": self._api_key.strip()},
        )

    def hits(self, data: Any) -> list[Hit]:
        if self.news:
            rows = _rows(data["results"])
        else:  # no "web" section at all when nothing matched
            rows = _rows(data["web"]["results"]) if "web" in data else []
        return [Hit(r["url"], _text(r.get("title")), _text(r.get("description"))) for r in rows]


class GdeltProvider(JsonSearchProvider):
    """The GDELT DOC 2.0 API's article list (keyless news from across the world). GDELT
    answers ``{}`` when nothing matched and plain text when it refuses a query."""

    name = "gdelt"
    kind = "news"

    def __init__(
        self,
        *,
        base_url: str = "https://api.gdeltproject.org",
        **http: Any,
    ) -> None:
        super().__init__(**http)
        self.base_url = base_url.rstrip("/")

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/api/v2/doc/doc"

    def request(self, query: str, max_results: int) -> Request:
        return Request(
            self.endpoint,
            {
                "query": query,
                "mode": "artlist",
                "format": "json",
                "maxrecords": min(max_results, 250),
                "sort": "hybridrel",
            },
        )

    def hits(self, data: Any) -> list[Hit]:
        if not isinstance(data, dict):
            raise ValueError(f"gdelt answered a {type(data).__name__}")
        return [Hit(r["url"], _text(r.get("title"))) for r in _rows(data.get("articles", []))]


class WikipediaProvider(JsonSearchProvider):
    """Wikipedia's full-text search (the MediaWiki ``list=search`` API) in one language."""

    name = "wikipedia"
    kind = "web"

    def __init__(
        self,
        *,
        language: str = "en",
        base_url: str | None = None,
        **http: Any,
    ) -> None:
        super().__init__(**http)
        if not re.fullmatch(r"[a-z]{2,3}(?:-[a-z]+)*", language):
            raise ValueError(f"wikipedia language must be a code such as 'en', got {language!r}")
        self.language = language
        self.base_url = (base_url or f"https://{language}.wikipedia.org").rstrip("/")
        self._article_base = f"https://{language}.wikipedia.org/wiki/"

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/w/api.php"

    def request(self, query: str, max_results: int) -> Request:
        return Request(
            self.endpoint,
            {
                "action": "query",
                "list": "search",
                "srsearch": query,
                "srlimit": min(max_results, 50),
                "format": "json",
                "formatversion": 2,
            },
            {"User-Agent": _USER_AGENT},
        )

    def hits(self, data: Any) -> list[Hit]:
        if "error" in data:
            raise ValueError("the API answered an error")
        rows = data["query"]["search"]
        if not isinstance(rows, list):
            raise ValueError("search results must be a list")
        return [
            Hit(
                self._article_base + quote(r["title"].replace(" ", "_"), safe="/:()',"),
                r["title"],
                _text(r.get("snippet")),
            )
            for r in rows
            if isinstance(r, dict) and isinstance(r.get("title"), str)
        ]
