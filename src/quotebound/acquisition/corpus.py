"""A local corpus: a directory of documents, a SQLite FTS5 index of their passages, a transport.

The corpus is the user's own library (docs/architecture.md §3): its documents get a configurable
tier and are read only through :meth:`LocalCorpus.read`, never over the network. Each document
carries a public URL for citation: ``base_url`` + its relative path, or its ``file://`` URI.

The index (:mod:`quotebound.acquisition.corpusindex`) holds passages (see
:mod:`quotebound.text.passages`): each with its page title and heading path, ranked by FTS5's
BM25 (IDF-weighted, Porter-stemmed) with title and heading matches counting more than body text.
A search (its query from :mod:`quotebound.acquisition.ftsquery`) ranks passages across the
corpus and returns the pages of the best ones, fused with the pages of the passages closest to
it in meaning when the index holds their vectors (:mod:`quotebound.acquisition.passagevectors`);
pages with the same content under two paths (an HTML page and its Sphinx ``_sources`` text, a
print version) collapse to one, the HTML page preferred, and a passage that a smaller page also
holds counts for that page alone (a page that gathers other pages' passages does not rank by
them).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing
from itertools import count
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urlsplit

from quotebound.acquisition.corpusindex import (
    MEDIA_TYPES,
    IndexStats,
    default_index_path,
    document_suffix,
    generation,
    mark_changed,
    open_index,
    passage_spans,
    refresh_index,
    too_large,
)
from quotebound.acquisition.duplicates import (
    content_words,
    content_words_of,
    copied_statements,
    same_content,
    same_content_pairs,
)
from quotebound.acquisition.ftsquery import (
    CAPITALS_RUN,
    called_names,
    code_names,
    fts_query,
    offered_names,
    phrase,
    qualified_names,
)
from quotebound.acquisition.passagevectors import closest_passages, fill_vectors, load_vectors
from quotebound.acquisition.providers import (
    SearchCandidate,
    SearchResponse,
    fusion_order,
    search_response,
)
from quotebound.errors import ConfigError, FetchError, Reason
from quotebound.evidence import encoder
from quotebound.evidence.relevance import content_terms, sentence_spans
from quotebound.storage.filelock import file_lock
from quotebound.storage.rawstore import RawPage, parsed_page
from quotebound.text.documents import decode_document
from quotebound.text.page import Page
from quotebound.text.passages import HEADING_SEPARATOR, passage_head, under_heading
from quotebound.tiers import TrustTier
from quotebound.urls import canonical_url

__all__ = ["MAX_DOCUMENT_BYTES", "LocalCorpus"]

MAX_DOCUMENT_BYTES = 5_000_000
"""The default cap on a corpus file's size, the same as a web page's."""

_BM25 = "bm25(passages, 0.0, 1.5, 2.0, 1.0, 4.0)"
"""BM25 with the weights of the columns: path (none), title, heading, body and option keys."""
_SEARCH = f"""
SELECT path, title, heading, body, {_BM25} AS score
FROM passages WHERE passages MATCH ? ORDER BY score, path, rowid LIMIT ?
"""
_TWIN_PASSAGES = f"""
SELECT title, heading, body FROM passages WHERE passages MATCH ? AND path = ?
ORDER BY {_BM25}, rowid LIMIT ?
"""
"""A page's best passages for a query (for the HTML twin that takes its copy's place)."""
_FIRST_PASSAGE = """
SELECT title, heading, body FROM passages WHERE rowid BETWEEN ? AND ? AND path = ?
ORDER BY rowid LIMIT 1
"""
_BODIES = "SELECT body FROM passages WHERE rowid BETWEEN ? AND ? AND path = ?"
"""A page's passages, looked up within its span of rowids (``passage_spans``)."""
_SPELLED = "SELECT 1 FROM passages WHERE passages MATCH ? LIMIT 1"
_HEADINGS = "SELECT heading FROM passages WHERE passages MATCH ?"
_WRITTEN = "SELECT title, heading, body FROM passages WHERE passages MATCH ?"
_CAPITALS_NEAR = 10
"""Words apart within which a passage writes each word of a run in capitals."""
_PASSAGES_SEARCHED = 400
"""Best passages a search ranks pages by."""
_SHARED_WORDS = 8
"""Distinct words from which a passage found on two pages belongs to the smaller one only."""
_MEANING_WEIGHT = 0.5
"""The weight of the ranking by meaning fused with BM25's (whose weight is 1): this encoder,
reading a passage's first words, is the weaker judge of the two."""
_PASSAGES_KEPT = 3
"""A result's best matching passages that the ranking of its quotes hears of."""
_SECOND_PASSAGE = 0.25
"""A page's score is its best passage's plus this share of its second best's."""
_SNIPPET_WORDS = 40
_SNIPPET_PASSAGES = 2
"""A result's snippet: of each of its best passages (each under the heading it sits right
under), its first words from the sentence that holds the most of the query's terms
(:func:`_excerpt`), joined by an ellipsis, as a web search's snippet shows the words that
match."""
_EXCERPT_SCAN = 5_000
"""Characters of a passage looked through for the sentence its snippet starts at: a passage is
about 120 words, but one block of a file with no paragraphs is one passage however long."""
_TITLE_CHARS = 120
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)

log = logging.getLogger(__name__)


class LocalCorpus:
    """A directory of HTML, Markdown, text and PDF documents as a search provider."""

    kind = "corpus"

    def __init__(
        self,
        root: Path | str,
        *,
        base_url: str | None = None,
        index_path: Path | None = None,
        tier: TrustTier = TrustTier.PRIMARY_SOURCE,
        name: str = "corpus",
        note_for: Callable[[str], str] | None = None,
        endpoint: str | None = None,
        max_bytes: int = MAX_DOCUMENT_BYTES,
    ) -> None:
        """``note_for`` (a document path → a note) adds a note to each document's title in
        parentheses; ``endpoint`` is what provider runs record (default: ``base_url`` or the
        root's URI); files over ``max_bytes`` are neither indexed nor read (``too_large``)."""
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
        self._note_for = note_for
        self._lock = threading.Lock()
        self._refreshed = False
        self._by_url: dict[str, str] | None = None
        self._words: dict[str, frozenset[str]] = {}
        self._html_by_stem: dict[str, list[str]] | None = None
        self._generation: str | None = None
        """The state of the index (see :func:`~quotebound.acquisition.corpusindex.generation`)
        that ``_by_url``, ``_words`` and ``_html_by_stem`` were read from."""
        self._termwise = False

    def __repr__(self) -> str:
        return f"LocalCorpus({str(self.root)!r}, name={self.name!r})"

    # -- mapping -------------------------------------------------------------------------

    def url_for(self, document: str) -> str:
        """The public URL that cites ``document`` (a path relative to the root)."""
        if self.base_url is not None:
            return self.base_url + quote(document, safe="/")
        return (self.root / document).as_uri()

    def document_for_url(self, url: str) -> str | None:
        """The indexed document whose public URL is ``url``, or None."""
        if self._by_url is None:
            with closing(open_index(self.index_path, self.root)) as db:
                paths = [p for (p,) in db.execute("SELECT path FROM docs WHERE indexed = 1")]
            self._by_url = {canonical_url(self.url_for(p)): p for p in paths}
        return self._by_url.get(canonical_url(url))

    # -- index ---------------------------------------------------------------------------

    def refresh(
        self, *, vectors: bool = True, done: Callable[[int, int], None] | None = None
    ) -> IndexStats:
        """Bring the index up to date with the directory; cheap when nothing changed.

        With ``vectors``, the passages that have no vector yet get one (``done`` hears how many
        of how many are made): a few minutes for a corpus of thousands of pages, once."""
        with self._lock, closing(open_index(self.index_path, self.root)) as db:
            db.execute("BEGIN IMMEDIATE")  # one writer at a time, across processes too
            try:
                stats = refresh_index(db, self.root, max_bytes=self.max_bytes, parse=self._parse)
                if stats.added or stats.updated or stats.removed:
                    mark_changed(db)
            except BaseException:
                db.rollback()
                raise
            db.commit()
            if vectors:
                # One process at a time makes an index's vectors: the next finds them made.
                with file_lock(self._vectors_lock, waiting=self._waiting):
                    if fill_vectors(db, done):
                        mark_changed(db)
            self._refreshed = True
            self._forget(generation(db))
            return stats

    def _forget(self, state: str) -> None:
        """Let go of what was read from the index before it reached ``state``: another process
        (a ``quotebound index``, a server beside this one) may have changed it."""
        if state != self._generation:
            self._by_url = None
            self._words = {}
            self._html_by_stem = None
            self._generation = state

    @property
    def _vectors_lock(self) -> Path:
        return self.index_path.with_name(self.index_path.name + ".vectors.lock")

    def _waiting(self) -> None:
        log.warning(
            "corpus %s: another process is making this index's passage vectors; waiting for it",
            self.name,
        )

    # -- search --------------------------------------------------------------------------

    async def search(self, query: str, *, max_results: int) -> SearchResponse:
        """The pages of the best passages by BM25 (the index refreshed on this corpus's first
        search), one page per content, the HTML page in place of its copies."""
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
        return search_response(self, query, started, candidates=candidates, failure=failure)

    def unspelled(self, text: str) -> list[str]:
        """The code ``text`` names that no passage of the corpus spells, as ``text`` writes it
        (the index refreshed first if this corpus has not been searched yet): a name of
        :func:`~quotebound.acquisition.ftsquery.code_names` or
        :func:`~quotebound.acquisition.ftsquery.called_names` no passage spells (:func:`_spells`:
        a dot-command with its dot), and a qualified name whose own name the corpus spells,
        but never under its qualifier (:func:`_never_under`; in any case when ``text`` is in
        lower case throughout). A name ``text`` gives only as an example
        (:func:`~quotebound.acquisition.ftsquery.offered_names`) is none of them."""
        named = {**code_names(text), **called_names(text)}
        qualified = qualified_names(text)
        offered = offered_names(text, [*named, *qualified])
        names = {name: match for name, match in named.items() if name not in offered}
        if not names:
            return []
        if not self._refreshed:
            self.refresh()
        with closing(open_index(self.index_path, self.root)) as db:
            unknown = [name for name, match in names.items() if not _spells(db, name, match)]
            unknown += [
                name
                for name, (qualifier, own) in qualified.items()
                if name not in offered
                and own not in unknown
                and _never_under(
                    db, qualifier, own, called=f"{name}(" in text, cased=not text.islower()
                )
            ]
        return unknown

    def _search(self, query: str, match: str, limit: int) -> tuple[SearchCandidate, ...]:
        if not self._refreshed:
            # Inside a run, under its deadline: the passages' vectors take minutes to make, so
            # they are left to an explicit refresh (``quotebound index``, ``research``).
            self.refresh(vectors=False)
        with closing(open_index(self.index_path, self.root)) as db:
            self._forget(generation(db))
            matched = db.execute(_SEARCH, (match, _PASSAGES_SEARCHED)).fetchall()
            pages: dict[str, list[tuple[float, str, str]]] = {}
            found: dict[str, list[tuple[int, str]]] = {}
            wanted = frozenset(content_terms(query))
            for rank, (path, title, heading, body, score) in enumerate(_own_passages(db, matched)):
                _keep(pages.setdefault(path, []), -score, title, heading, body, wanted)
                if len(found.setdefault(path, [])) < _PASSAGES_KEPT:
                    found[path].append((rank, passage_head(body)))
            ranked = sorted(pages, key=lambda p: (-_page_score(pages[p]), p))
            kept = self._one_per_content(db, ranked[: 3 * limit])
            closest = self._closest_pages(db, query)
            if closest:
                for path, nearest in closest.items():
                    pages.setdefault(path, nearest)
                    found.setdefault(path, [])
                near = self._one_per_content(db, list(closest)[: 3 * limit])
                both = [list(zip(kept, count(1))), list(zip(near, count(1)))]
                kept = self._one_per_content(db, fusion_order(both, (1.0, _MEANING_WEIGHT)))
            kept = kept[:limit]
            for i, path in enumerate(kept):
                twin = None if _is_html(path) else self._html_twin(db, path, exclude=kept)
                if twin is not None:
                    # The reader-facing page in its copy's place: its best passages take the
                    # copy's ranks (its first passage shows when none matches the query).
                    rows = db.execute(_TWIN_PASSAGES, (match, twin, _PASSAGES_KEPT)).fetchall()
                    ranks = [r for r, _ in found[path]]  # as many as the twin has, or fewer
                    found[twin] = [
                        (r, passage_head(b)) for r, (_, _, b) in zip(ranks, rows, strict=False)
                    ]
                    rows = rows or db.execute(_FIRST_PASSAGE, self._span(db, twin)).fetchall()
                    pages[twin] = []
                    for t, h, b in rows:
                        _keep(pages[twin], 0.0, t, h, b, wanted)
                    kept[i] = twin
        out = []
        for rank, path in enumerate(kept, start=1):
            title = pages[path][0][1]
            out.append(
                SearchCandidate(
                    url=self.url_for(path),
                    title=self._noted(title or PurePosixPath(path).name, path),
                    snippet=" … ".join(
                        " ".join(body.split()[:_SNIPPET_WORDS])
                        for _, _, body in pages[path][:_SNIPPET_PASSAGES]
                    ),
                    rank=rank,
                    provider=self.name,
                    query=query,
                    document=path,
                    passages=tuple(found[path]),
                )
            )
        return tuple(out)

    def _closest_pages(
        self, db: sqlite3.Connection, query: str
    ) -> dict[str, list[tuple[float, str, str]]]:
        """The pages of the passages closest in meaning to ``query``, best first, each with its
        closest passages (closeness, title, text under its heading) as ``_search`` keeps a
        page's passages; empty when the index has no vectors (see
        :mod:`~quotebound.acquisition.passagevectors`)."""
        if encoder.sentence_encoder() is None:  # off, or not installed
            return {}
        vectors = load_vectors(str(self.index_path), generation(db))
        if vectors is None:
            if not self._termwise:
                self._termwise = True
                log.warning(
                    "corpus %s: searching by terms alone, its passages have no vectors yet "
                    "(`quotebound index` makes them)",
                    self.name,
                )
            return {}
        pages: dict[str, list[tuple[float, str, str]]] = {}
        wanted = frozenset(content_terms(query))
        for path, title, heading, body, closeness in closest_passages(db, vectors, query):
            _keep(pages.setdefault(path, []), closeness, title, heading, body, wanted)
        return dict(sorted(pages.items(), key=lambda item: (-_page_score(item[1]), item[0])))

    def _one_per_content(self, db: sqlite3.Connection, ranked: list[str]) -> list[str]:
        """``ranked`` with near-duplicate pages collapsed into the best-ranked one's place,
        which goes to the HTML page of the group."""
        kept: list[str] = []
        words = self._content_words
        for path in ranked:
            twin = next((k for k in kept if same_content(words(db, k), words(db, path))), None)
            if twin is None:
                kept.append(path)
            elif _is_html(path) and not _is_html(twin):
                kept[kept.index(twin)] = path
        return kept

    def _html_twin(self, db: sqlite3.Connection, path: str, *, exclude: list[str]) -> str | None:
        """The HTML page of the same name (``_sources/a/b.rst.txt`` → ``a/b.html``) with the
        same content as the non-HTML page ``path``, or None; pages in ``exclude`` are not."""
        by_stem = self._html_by_stem
        if by_stem is None:
            # Built whole before it is shared: searches run in several threads at once.
            by_stem = {}
            for (p,) in db.execute("SELECT path FROM docs WHERE indexed = 1 ORDER BY path"):
                if _is_html(p):
                    by_stem.setdefault(_stem(p), []).append(p)
            self._html_by_stem = by_stem
        for twin in by_stem.get(_stem(path), ()):
            if twin not in exclude and same_content(
                self._content_words(db, twin), self._content_words(db, path)
            ):
                return twin
        return None

    def _content_words(self, db: sqlite3.Connection, path: str) -> frozenset[str]:
        if path not in self._words:
            bodies = db.execute(_BODIES, self._span(db, path))
            self._words[path] = content_words_of(body for (body,) in bodies)
        return self._words[path]

    def _span(self, db: sqlite3.Connection, path: str) -> tuple[int, int, str]:
        """The parameters that find the passages of ``path``: its span of rowids (see
        :func:`~quotebound.acquisition.corpusindex.passage_spans`), and itself."""
        first, last = passage_spans(str(self.index_path), generation(db)).get(path, (0, -1))
        return first, last, path

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
                raise FetchError(Reason.TOO_LARGE, f"{document}: {too_large(size, self.max_bytes)}")
            body = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError as exc:
            raise FetchError(
                Reason.HTTP_STATUS, f"no such corpus document (404): {document}"
            ) from exc
        except OSError as exc:
            raise FetchError(
                Reason.CONNECTION, f"cannot read corpus document {document}: {type(exc).__name__}"
            ) from exc
        page = await asyncio.to_thread(self._decoded, document, body)
        del body  # a large page's bytes are not held through its parse
        page, _ = await asyncio.to_thread(self._titled, document, page)
        return page

    def _path_of(self, document: str) -> Path:
        rel = PurePosixPath(document)
        if rel.is_absolute() or not rel.parts or ".." in rel.parts or "\\" in document:
            raise FetchError(Reason.INVALID_URL, f"not a path inside the corpus: {document!r}")
        if document_suffix(rel.name) not in MEDIA_TYPES:
            raise FetchError(Reason.INVALID_URL, f"not an indexable corpus document: {document!r}")
        path = self.root.joinpath(*rel.parts)
        if not path.resolve().is_relative_to(self.root):
            raise FetchError(Reason.INVALID_URL, f"corpus document leaves the root: {document!r}")
        return path

    def _parse(self, document: str, body: bytes) -> tuple[RawPage, Page]:
        """A document's bytes as a stored page (titled from its markup or first line, without
        the corpus's note: the index holds what the page says) and the parsed page whose clean
        text is indexed."""
        return self._titled(document, self._decoded(document, body), noted=False)

    def _decoded(self, document: str, body: bytes) -> RawPage:
        """A document's bytes as a stored page, untitled."""
        decoded = decode_document(body, MEDIA_TYPES[document_suffix(document)])
        url = self.url_for(document)
        return RawPage(
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

    def _titled(self, document: str, page: RawPage, *, noted: bool = True) -> tuple[RawPage, Page]:
        """``page`` titled from its markup or first line (and the corpus's note on it, when
        ``noted``), and its parse."""
        parsed = parsed_page(page)
        raw_text = page.text if page.text is not None else "\n".join(page.pages or ())
        title = parsed.title or _text_title(raw_text, document)
        return dataclasses.replace(
            page, title=self._noted(title, document) if noted else title
        ), parsed

    def _noted(self, title: str, document: str) -> str:
        """``title`` with the corpus's note on ``document``, if it has notes."""
        return title if self._note_for is None else f"{title} ({self._note_for(document)})"


def _readable_root(root: Path | str) -> Path:
    try:
        resolved = Path(root).expanduser().resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"corpus root does not exist: {root}") from exc
    if not resolved.is_dir() or not os.access(resolved, os.R_OK | os.X_OK):
        raise ConfigError(f"corpus root must be a readable directory: {root}")
    return resolved


def _keep(
    kept: list[tuple[float, str, str]],
    score: float,
    title: str,
    heading: str,
    body: str,
    wanted: frozenset[str],
) -> None:
    """Add a passage to a page's ``kept`` ones (best first), under its heading; the first
    ``_SNIPPET_PASSAGES``, which its snippet shows, from their :func:`_excerpt`."""
    shown = _excerpt(body, wanted) if len(kept) < _SNIPPET_PASSAGES else body
    kept.append((score, title, under_heading(heading, shown, besides=title)))


def _excerpt(body: str, wanted: frozenset[str]) -> str:
    """What a result's snippet shows of a passage: from its sentence that holds the most of the
    query's terms (``wanted``) on, the first such sentence on ties; from its start when no
    sentence in its first ``_EXCERPT_SCAN`` characters holds any."""
    best, hits = 0, 0
    spans = sentence_spans(body[:_EXCERPT_SCAN])
    for i, (start, end) in enumerate(spans):
        held = len(wanted.intersection(content_terms(body[start:end])))
        if held > hits:
            best, hits = i, held
    return f"…{body[spans[best][0] :]}" if best else body


def _own_passages(
    db: sqlite3.Connection, rows: list[tuple[str, str, str, str, float]]
) -> list[tuple[str, str, str, str, float]]:
    """The search's passages (path, title, heading, body, score; best first) less each one that a
    smaller page also holds (the same content, :func:`same_content_pairs`), or that is mostly
    statements a smaller page's passage writes too
    (:func:`~quotebound.acquisition.duplicates.copied_statements`): a page that gathers other
    pages' passages (a whole API on one page, a list of requirements) does not rank by them
    ahead of the page each belongs to. An HTML page counts as smaller than any other kind (its
    ``_sources`` text); of two pages of one size, the passage ranked higher stays."""
    words = {i: content_words(body) for i, (_, _, _, body, _) in enumerate(rows)}
    shared = {i: w for i, w in words.items() if len(w) >= _SHARED_WORDS}
    twins = [(i, j) for i, j in same_content_pairs(shared) if rows[i][0] != rows[j][0]]
    copies = copied_statements({i: (row[0], row[3]) for i, row in enumerate(rows)})
    if not twins and not copies:
        return rows
    paths = sorted({rows[k][0] for pair in [*twins, *copies] for k in pair})
    query = f"SELECT path, size FROM docs WHERE path IN ({', '.join('?' * len(paths))})"
    sizes = {path: (not _is_html(path), size) for path, size in db.execute(query, paths)}

    def size(i: int) -> tuple[tuple[bool, int], int]:
        return sizes.get(rows[i][0], (True, 0)), i

    dropped = {j if size(i) <= size(j) else i for i, j in twins}
    dropped |= {copy for copy, source in copies if size(source) < size(copy)}
    return [r for i, r in enumerate(rows) if i not in dropped]


def _spells(db: sqlite3.Connection, name: str, match: str) -> bool:
    """Whether some passage spells the code ``name`` (``match``: the FTS5 query of its words,
    see :func:`~quotebound.acquisition.ftsquery.code_names`). A shell's dot-command or a file
    extension counts only when written with its dot (``.replicate``, in any case): the index's
    words drop the dot, and the word alone ("replicate") is prose about something else.
    A run of words in capitals is spelled too by a passage that writes each of them in
    capitals, a few words apart (:func:`_capitals_apart`)."""
    if not name.startswith("."):
        if db.execute(_SPELLED, (match,)).fetchone() is not None:
            return True
        return CAPITALS_RUN.fullmatch(name) is not None and _capitals_apart(db, name.split())
    return _writes(db, match, [re.compile(rf"{re.escape(name)}(?!\w)", re.IGNORECASE)])


def _capitals_apart(db: sqlite3.Connection, words: list[str]) -> bool:
    """Whether some passage writes each of ``words`` in capitals, as a word of its own, all
    within ``_CAPITALS_NEAR`` words: a question runs names together that a page writes apart
    ("NASA JPL" of "NASA's Jet Propulsion Laboratory (JPL)"). A keyword phrase a corpus lacks
    ("CREATE PROCEDURE") is not spelled so: its words may each be prose ("a procedure"), but
    not in capitals beside the others."""
    near = "NEAR(" + " ".join(phrase(w) for w in words) + f", {_CAPITALS_NEAR})"
    return _writes(db, near, [re.compile(rf"(?<![\w-]){re.escape(w)}(?![\w-])") for w in words])


def _writes(db: sqlite3.Connection, match: str, written: list[re.Pattern[str]]) -> bool:
    """Whether some passage the FTS5 query ``match`` finds holds every one of ``written`` in
    its title, heading or body as written: the index's words are stemmed and lowercased, and
    only narrow the passages read."""
    return any(
        all(w.search(f"{title}\n{heading}\n{body}") for w in written)
        for title, heading, body in db.execute(_WRITTEN, (match,))
    )


def _never_under(
    db: sqlite3.Connection, qualifier: str, own: str, *, called: bool, cased: bool
) -> bool:
    """Whether the corpus documents names under ``qualifier`` but never ``own`` under it.

    Under ``qualifier``: some passage's own heading names ``qualifier.`` followed by a name,
    as a reference heads its entries (``math.sqrt(x)``; a parameter's default such as
    ``tzinfo=self.tzinfo`` is no entry). Never ``own``: no passage writes the two together
    (``math.clamp``), and no page whose title names ``qualifier`` mentions ``own``: as code when
    the question ``called`` it (``own(`` or ``.own``; the datetime page says "parse" of strings,
    but no ``datetime.parse()``), in any words otherwise (a field is named in prose: "When
    clamp is 1"). A question about ``math.clamp()`` then asks about a name the documents do not
    have, however often they say "clamp" elsewhere; the asker's own variable
    (``my_list.sort()``) heads no entry.
    Names are matched as written, case and all (unless not ``cased``: a question typed in
    lower case throughout writes ``typing.type_checking`` for ``typing.TYPE_CHECKING``): the
    index's stemmed words only narrow the passages read (its "typing override" is also "an
    immutable type, override")."""
    flags = 0 if cased else re.IGNORECASE
    named, written = _written(qualifier, flags), _written(own, flags)
    together = re.compile(rf"{named.pattern}[ .]{written.pattern}", flags)
    as_code = rf"(?<![\w.])(?:\w+\.)*{re.escape(own)}\(|\.{written.pattern}"
    mentioned = re.compile(as_code, flags) if called else written
    for title, heading, body in db.execute(
        _WRITTEN,
        (
            f"{phrase(f'{qualifier}.{own}')}"
            f" OR (title : {phrase(qualifier)} AND {{heading body}} : {phrase(own)})",
        ),
    ):
        text = f"{heading}\n{body}"
        if together.search(text) or (named.search(title) and mentioned.search(text)):
            return False
    qualifies = re.compile(rf"{named.pattern}\.\w", flags)
    headings = db.execute(_HEADINGS, (f"heading : {phrase(qualifier)}",))
    return any(qualifies.search(_entry_name(heading)) for (heading,) in headings)


def _entry_name(heading: str) -> str:
    """What a passage's own heading names, its parameters left out: ``datetime.combine`` of
    "classmethod datetime.combine(date, time, tzinfo=self.tzinfo)"."""
    return heading.rpartition(HEADING_SEPARATOR)[2].partition("(")[0]


def _written(name: str, flags: int = 0) -> re.Pattern[str]:
    """``name`` as a whole word, written as it is (in any case with ``re.IGNORECASE``)."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", flags)


def _page_score(scores: list[tuple[float, str, str]]) -> float:
    """Best passage plus a share of the second best (passages arrive best first)."""
    second = scores[1][0] if len(scores) > 1 else 0.0
    return scores[0][0] + _SECOND_PASSAGE * second


def _stem(path: str) -> str:
    """A document's file name less its suffixes of known types: ``3.6.rst.txt`` → ``3.6``."""
    name = PurePosixPath(path).name
    while document_suffix(name) in MEDIA_TYPES:
        name = name[: -len(document_suffix(name))]
    return name


def _is_html(path: str) -> bool:
    return MEDIA_TYPES.get(document_suffix(path)) == "text/html"


def _text_title(text: str, document: str) -> str:
    """A Markdown heading, else the first line, else the file name."""
    m = _HEADING.search(text)
    line = m.group(1) if m else next((s.strip() for s in text.splitlines() if s.strip()), "")
    if len(line) > _TITLE_CHARS:
        line = line[:_TITLE_CHARS].rsplit(" ", 1)[0] + "…"
    return line or PurePosixPath(document).name
