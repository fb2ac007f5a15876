"""A local corpus: a directory of documents, a SQLite FTS5 index of their passages, a transport.

The corpus is the user's own library (docs/architecture.md §3): its documents get a configurable
tier and are read only through :meth:`LocalCorpus.read`, never over the network. Each document
carries a public URL for citation: ``base_url`` + its relative path, or its ``file://`` URI.

The index holds passages (see :mod:`quotebound.passages`): each with its page title and heading
path, ranked by FTS5's BM25 (IDF-weighted, Porter-stemmed) with title and heading matches
counting more than body text. A search ranks passages across the corpus and returns the pages
of the best ones; pages with the same content under two paths (an HTML page and its Sphinx
``_sources`` text, a print version) collapse to one, the HTML page preferred.

The index lives in the user's cache directory and is refreshed incrementally: a file whose size
and mtime are unchanged is not read; a file whose bytes hash the same is not parsed again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urlsplit

import platformdirs

from quotebound.documents import decode_document
from quotebound.duplicates import content_words_of, same_content
from quotebound.errors import ConfigError, FetchError, Reason
from quotebound.parsing import Page
from quotebound.passages import passage_head, passages
from quotebound.rawstore import RawPage, parsed_page
from quotebound.search import SearchCandidate, SearchResponse, search_response
from quotebound.tiers import TrustTier
from quotebound.urls import canonical_url

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MEDIA_TYPES",
    "IndexStats",
    "LocalCorpus",
    "default_index_path",
    "fts_query",
]

MEDIA_TYPES = {
    ".html": "text/html",
    ".htm": "text/html",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".rst": "text/plain",
    ".pdf": "application/pdf",
}
"""File suffixes the corpus indexes, and the media type each is read as."""
MAX_DOCUMENT_BYTES = 5_000_000
"""The default cap on a corpus file's size, the same as a web page's."""

_INDEX_FORMAT = "6"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL, title TEXT NOT NULL, indexed INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    path UNINDEXED, title, heading, body, keys,
    tokenize = 'porter unicode61 remove_diacritics 2');
"""
_SEARCH = """
SELECT path, title, body, bm25(passages, 0.0, 1.5, 2.0, 1.0, 4.0) AS score
FROM passages WHERE passages MATCH ? ORDER BY score, path, rowid LIMIT ?
"""
_PASSAGES_SEARCHED = 400
"""Best passages a search ranks pages by."""
_PASSAGES_KEPT = 3
"""A result's best matching passages that the ranking of its quotes hears of."""
_SECOND_PASSAGE = 0.25
"""A page's score is its best passage's plus this share of its second best's."""
_SNIPPET_WORDS = 40
_WORD = re.compile(r"\w+")
_OPTION = re.compile(r"(?<![\w-])(--?)([A-Za-z][\w-]*)")
_IDENTIFIER = re.compile(r"\w+(?:\.\w+)+|\w*_\w+|\w*[a-z][A-Z]\w*")
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i",
    "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when",
    "where", "which", "who", "why", "with",
})  # fmt: skip
_MAX_TERMS = 24
_TITLE_CHARS = 120
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IndexStats:
    """What one refresh did."""

    added: int
    """Documents indexed for the first time."""
    updated: int
    """Documents whose content changed and were indexed again."""
    removed: int
    """Documents gone from the directory and dropped from the index."""
    unchanged: int
    """Documents already indexed with the same content."""
    read: int
    """Files whose bytes were read (files with unchanged size and mtime are not)."""
    skipped: int
    """New or changed files that could not be decoded (e.g. a broken PDF)."""


def default_index_path(root: Path) -> Path:
    """Where the index of ``root`` lives: the user's cache directory, keyed by the root path."""
    key = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:16]
    return Path(platformdirs.user_cache_dir("quotebound")) / "corpora" / f"{key}.sqlite"


def option_keys(text: str) -> str:
    """Command-line options in ``text`` (``-O``, ``--help``) as index words that keep their
    dashes and case apart (``-O`` and ``-o`` differ), space-separated."""
    return " ".join(_option_key(dashes, name) for dashes, name in _OPTION.findall(text))


def _option_key(dashes: str, name: str) -> str:
    spelled = "".join(f"u{c.lower()}" if c.isupper() else c for c in name if c.isalnum())
    return f"opt{len(dashes)}{spelled}"


def fts_query(text: str) -> str | None:
    """A safe FTS5 query for arbitrary user text: any of its words, with what it names first.

    Identifiers (``str.removeprefix``, ``max_workers``) and quoted phrases become phrases and
    options (``-O``) option keys; each counts twice, so they weigh most. Every term is a quoted
    string of word characters, so no user text is ever read as FTS5 syntax. Common function
    words are dropped unless nothing else is left. None when the text has no words.
    """
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:_MAX_TERMS]
    if not words:
        return None
    terms = [w for w in words if w not in _STOPWORDS] or words
    phrases = [
        " ".join(_WORD.findall(m.lower()))
        for m in [*_IDENTIFIER.findall(text), *_QUOTED.findall(text)]
    ]
    keys = [f'keys : "{_option_key(d, n)}"' for d, n in _OPTION.findall(text)]
    named = [*dict.fromkeys(f'"{p}"' for p in phrases if p), *dict.fromkeys(keys)]
    return " OR ".join([*named, *named, *(f'"{w}"' for w in terms)])


class LocalCorpus:
    """A directory of HTML, Markdown, text and PDF documents as a search provider."""

    def __init__(
        self,
        root: Path | str,
        *,
        base_url: str | None = None,
        index_path: Path | None = None,
        tier: TrustTier = TrustTier.PRIMARY_SOURCE,
        name: str = "corpus",
        url_for: Callable[[str], str] | None = None,
        note_for: Callable[[str], str] | None = None,
        endpoint: str | None = None,
        max_bytes: int = MAX_DOCUMENT_BYTES,
    ) -> None:
        """``url_for`` (a document path → its public URL) overrides ``base_url``; ``note_for``
        (a document path → a note) adds a note to each document's title in parentheses;
        ``endpoint`` is what provider runs record (default: ``base_url`` or the root's URI);
        files over ``max_bytes`` are neither indexed nor read (``too_large``)."""
        self.root = _readable_root(root)
        if base_url is not None:
            parts = urlsplit(base_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(f"corpus base_url must be an http(s) URL, got {base_url!r}")
            base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.base_url = base_url
        self.index_path = Path(index_path) if index_path else default_index_path(self.root)
        self.tier = TrustTier(tier)
        self.max_bytes = max_bytes
        self.name = name
        self.endpoint = endpoint or base_url or self.root.as_uri()
        self._url_for = url_for
        self._note_for = note_for
        self._lock = threading.Lock()
        self._refreshed = False
        self._by_url: dict[str, str] | None = None
        self._words: dict[str, frozenset[str]] = {}

    def __repr__(self) -> str:
        return f"LocalCorpus({str(self.root)!r}, name={self.name!r})"

    # -- mapping -------------------------------------------------------------------------

    def url_for(self, document: str) -> str:
        """The public URL that cites ``document`` (a path relative to the root)."""
        if self._url_for is not None:
            return self._url_for(document)
        if self.base_url is not None:
            return self.base_url + quote(document, safe="/")
        return (self.root / document).as_uri()

    def document_for_url(self, url: str) -> str | None:
        """The indexed document whose public URL is ``url``, or None."""
        if self._by_url is None:
            with closing(self._connect()) as db:
                paths = [p for (p,) in db.execute("SELECT path FROM docs WHERE indexed = 1")]
            self._by_url = {canonical_url(self.url_for(p)): p for p in paths}
        return self._by_url.get(canonical_url(url))

    # -- index ---------------------------------------------------------------------------

    def refresh(self) -> IndexStats:
        """Bring the index up to date with the directory; cheap when nothing changed."""
        with self._lock, closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")  # one writer at a time, across processes too
            try:
                stats = self._refresh(db)
            except BaseException:
                db.rollback()
                raise
            db.commit()
            self._refreshed = True
            self._by_url = None
            self._words = {}
            return stats

    def _connect(self) -> sqlite3.Connection:
        self.index_path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.index_path, timeout=60.0, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
        except sqlite3.OperationalError as exc:
            db.close()
            raise ConfigError(f"cannot open corpus index {self.index_path}: {exc}") from exc
        stored = dict(db.execute("SELECT key, value FROM meta"))
        wanted = {"format": _INDEX_FORMAT, "root": str(self.root)}
        if stored != wanted:  # another format or another root: start afresh
            db.executescript(
                "DROP TABLE IF EXISTS fts;"  # the index format before passages
                "DELETE FROM passages; DELETE FROM docs; DELETE FROM meta;"
            )
            db.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
        return db

    def _refresh(self, db: sqlite3.Connection) -> IndexStats:
        known = {
            path: (size, mtime_ns, sha)
            for path, size, mtime_ns, sha in db.execute(
                "SELECT path, size, mtime_ns, sha256 FROM docs"
            )
        }
        counts = dict.fromkeys(("added", "updated", "unchanged", "read", "skipped"), 0)
        seen: set[str] = set()
        for rel, path in self._files():
            seen.add(rel)
            try:
                st = path.stat()
                row = known.get(rel)
                if row is not None and row[:2] == (st.st_size, st.st_mtime_ns):
                    counts["unchanged"] += 1
                    continue
                if st.st_size > self.max_bytes:
                    log.warning("corpus: skipping %s: %s", rel, self._too_large(st.st_size))
                    counts["skipped"] += 1
                    seen.discard(rel)
                    continue
                body = path.read_bytes()
            except OSError as exc:
                log.warning("corpus: cannot read %s: %s", rel, type(exc).__name__)
                seen.discard(rel)
                continue
            counts["read"] += 1
            sha = RawPage.body_sha256(body)
            if row is not None and row[2] == sha:
                db.execute(
                    "UPDATE docs SET size = ?, mtime_ns = ? WHERE path = ?",
                    (st.st_size, st.st_mtime_ns, rel),
                )
                counts["unchanged"] += 1
                continue
            db.execute("DELETE FROM passages WHERE path = ?", (rel,))
            try:
                page, parsed = self._parse(rel, body)
            except FetchError as exc:
                log.warning("corpus: skipping %s: %s", rel, exc)
                counts["skipped"] += 1
                title, indexed = "", 0
            else:
                counts["added" if row is None else "updated"] += 1
                title, indexed = page.title, 1
                db.executemany(
                    "INSERT INTO passages(path, title, heading, body, keys) VALUES (?, ?, ?, ?, ?)",
                    [
                        (rel, title, " / ".join(p.headings), p.text, option_keys(p.text))
                        for p in passages(parsed)
                    ],
                )
            db.execute(
                "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?, ?, ?)",
                (rel, st.st_size, st.st_mtime_ns, sha, title, indexed),
            )
        gone = sorted(set(known) - seen)
        for rel in gone:
            db.execute("DELETE FROM passages WHERE path = ?", (rel,))
            db.execute("DELETE FROM docs WHERE path = ?", (rel,))
        return IndexStats(removed=len(gone), **counts)

    def _files(self) -> Iterator[tuple[str, Path]]:
        """Indexable files under the root, in sorted order, hidden entries skipped."""
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                if filename.startswith(".") or _suffix(filename) not in MEDIA_TYPES:
                    continue
                path = Path(dirpath, filename)
                if path.resolve().is_relative_to(self.root):
                    yield path.relative_to(self.root).as_posix(), path

    # -- search --------------------------------------------------------------------------

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        """The pages of the best passages by BM25 (the index refreshed on this corpus's first
        search), one page per content."""
        started = time.monotonic()
        match = fts_query(query)
        failure: Reason | None = Reason.EMPTY_RESULTS
        candidates: tuple[SearchCandidate, ...] = ()
        if match is not None and max_results >= 1:
            try:
                candidates = await asyncio.to_thread(self._search, query, match, max_results)
                failure = None
            except (sqlite3.Error, OSError, ConfigError) as exc:
                log.warning("corpus %s: search failed: %s", self.name, exc)
                failure = Reason.PROVIDER_ERROR
        return search_response(
            provider=self.name,
            endpoint=self.endpoint,
            query=query,
            started=started,
            candidates=candidates,
            failure=failure,
        )

    def _search(self, query: str, match: str, limit: int) -> tuple[SearchCandidate, ...]:
        if not self._refreshed:
            self.refresh()
        with closing(self._connect()) as db:
            rows = db.execute(_SEARCH, (match, _PASSAGES_SEARCHED)).fetchall()
            pages: dict[str, list[tuple[float, str, str]]] = {}
            found: dict[str, list[tuple[int, str]]] = {}
            for rank, (path, title, body, score) in enumerate(rows):
                pages.setdefault(path, []).append((-score, title, body))
                if len(found.setdefault(path, [])) < _PASSAGES_KEPT:
                    found[path].append((rank, passage_head(body)))
            ranked = sorted(pages, key=lambda p: (-_page_score(pages[p]), p))
            kept = self._one_per_content(db, ranked[: 3 * limit])[:limit]
        out = []
        for rank, path in enumerate(kept, start=1):
            _, title, body = pages[path][0]
            out.append(
                SearchCandidate(
                    url=self.url_for(path),
                    title=title or PurePosixPath(path).name,
                    snippet=" ".join(body.split()[:_SNIPPET_WORDS]),
                    rank=rank,
                    provider=self.name,
                    query=query,
                    document=path,
                    passages=tuple(found[path]),
                )
            )
        return tuple(out)

    def _one_per_content(self, db: sqlite3.Connection, ranked: list[str]) -> list[str]:
        """``ranked`` with near-duplicate pages collapsed into the best-ranked one's place,
        which goes to the HTML page of the group."""
        kept: list[str] = []
        words = self._words
        for path in ranked:
            if path not in words:
                bodies = db.execute("SELECT body FROM passages WHERE path = ?", (path,))
                words[path] = content_words_of(body for (body,) in bodies)
            twin = next((k for k in kept if same_content(words[k], words[path])), None)
            if twin is None:
                kept.append(path)
            elif _is_html(path) and not _is_html(twin):
                kept[kept.index(twin)] = path
        return kept

    # -- transport -----------------------------------------------------------------------

    async def read(self, document: str) -> RawPage:
        """Read ``document`` from the corpus as a stored page with its public URL.

        Raises FetchError: ``invalid_url`` for a path outside the corpus or of an unsupported
        type, ``http_status`` for a missing file, ``unsupported_type`` for an unreadable PDF.
        """
        path = self._path_of(document)
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise FetchError(Reason.TOO_LARGE, f"{document}: {self._too_large(size)}")
            body = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError as exc:
            raise FetchError(
                Reason.HTTP_STATUS, f"no such corpus document (404): {document}"
            ) from exc
        except OSError as exc:
            raise FetchError(
                Reason.CONNECTION, f"cannot read corpus document {document}: {type(exc).__name__}"
            ) from exc
        page, _ = await asyncio.to_thread(self._parse, document, body)
        return page

    def _too_large(self, size: int) -> str:
        return (
            f"{size} bytes, over the {self.max_bytes} byte cap on a document "
            "(QUOTEBOUND_MAX_PAGE_MB)"
        )

    def _path_of(self, document: str) -> Path:
        rel = PurePosixPath(document)
        if rel.is_absolute() or not rel.parts or ".." in rel.parts or "\\" in document:
            raise FetchError(Reason.INVALID_URL, f"not a path inside the corpus: {document!r}")
        if _suffix(rel.name) not in MEDIA_TYPES:
            raise FetchError(Reason.INVALID_URL, f"not an indexable corpus document: {document!r}")
        path = self.root.joinpath(*rel.parts)
        if not path.resolve().is_relative_to(self.root):
            raise FetchError(Reason.INVALID_URL, f"corpus document leaves the root: {document!r}")
        return path

    def _parse(self, document: str, body: bytes) -> tuple[RawPage, Page]:
        """A document's bytes as a stored page (titled from its markup or first line) and
        the parsed page whose clean text is indexed."""
        decoded = decode_document(body, MEDIA_TYPES[_suffix(document)])
        url = self.url_for(document)
        page = RawPage(
            url=url,
            final_url=url,
            status=200,
            content_type=decoded.media_type,
            encoding=decoded.encoding,
            sha256=RawPage.body_sha256(body),
            title="",
            trust_tier=int(self.tier),
            provider=self.name,
            html=decoded.html,
            text=decoded.text,
            pages=decoded.pages,
        )
        parsed = parsed_page(page)
        raw_text = page.text if page.text is not None else "\n".join(page.pages or ())
        title = parsed.title or _text_title(raw_text, document)
        if self._note_for is not None:
            title = f"{title} ({self._note_for(document)})"
        return dataclasses.replace(page, title=title), parsed


def _readable_root(root: Path | str) -> Path:
    try:
        resolved = Path(root).expanduser().resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"corpus root does not exist: {root}") from exc
    if not resolved.is_dir() or not os.access(resolved, os.R_OK | os.X_OK):
        raise ConfigError(f"corpus root must be a readable directory: {root}")
    return resolved


def _page_score(scores: list[tuple[float, str, str]]) -> float:
    """Best passage plus a share of the second best (passages arrive best first)."""
    second = scores[1][0] if len(scores) > 1 else 0.0
    return scores[0][0] + _SECOND_PASSAGE * second


def _is_html(path: str) -> bool:
    return MEDIA_TYPES.get(_suffix(path)) == "text/html"


def _suffix(filename: str) -> str:
    return PurePosixPath(filename).suffix.lower()


def _text_title(text: str, document: str) -> str:
    """A Markdown heading, else the first line, else the file name."""
    m = _HEADING.search(text)
    line = m.group(1) if m else next((s.strip() for s in text.splitlines() if s.strip()), "")
    if len(line) > _TITLE_CHARS:
        line = line[:_TITLE_CHARS].rsplit(" ", 1)[0] + "…"
    return line or PurePosixPath(document).name
