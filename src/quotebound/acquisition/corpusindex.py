"""The SQLite FTS5 index of a local corpus: which files it holds, its schema, where it lives.

The index holds passages (see :mod:`quotebound.text.passages`), each with its page title,
heading path and option keys (:mod:`quotebound.acquisition.ftsquery`), and their vectors
(:mod:`quotebound.acquisition.passagevectors`); the corpus searches it (docs/architecture.md
§3). It lives in the user's cache directory and is refreshed incrementally: a file whose size
and mtime are unchanged is not read; a file whose bytes hash the same is not parsed again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import platformdirs

from quotebound.acquisition.ftsquery import option_keys
from quotebound.acquisition.passagevectors import SCHEMA as VECTORS_SCHEMA
from quotebound.acquisition.passagevectors import drop_vectors
from quotebound.errors import ConfigError, FetchError
from quotebound.storage.bytecache import memoize
from quotebound.storage.rawstore import RawPage
from quotebound.text.normalize import as_seen
from quotebound.text.page import Page
from quotebound.text.passages import HEADING_SEPARATOR, passages

__all__ = [
    "MEDIA_TYPES",
    "IndexStats",
    "default_index_path",
    "document_suffix",
    "generation",
    "mark_changed",
    "open_index",
    "refresh_index",
    "too_large",
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

_INDEX_FORMAT = "23"
_SPAN_BYTES = 150
"""Bytes a page's passage span takes in the cache beside its path's characters: its entry, a
tuple and two integers."""
_SCHEMA = (
    VECTORS_SCHEMA
    + """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL, title TEXT NOT NULL, indexed INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    path UNINDEXED, title, heading, body, keys,
    tokenize = 'porter unicode61 remove_diacritics 2');
"""
)

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


def too_large(size: int, max_bytes: int) -> str:
    """Why a document of ``size`` bytes is neither indexed nor read."""
    return f"{size} bytes, over the {max_bytes} byte cap on a document (QUOTEBOUND_MAX_PAGE_MB)"


def open_index(index_path: Path, root: Path) -> sqlite3.Connection:
    """A connection to the index of ``root`` at ``index_path``, emptied first if it was
    written in another format or for another root."""
    index_path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(index_path, timeout=60.0, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA)
    except sqlite3.OperationalError as exc:
        db.close()
        raise ConfigError(f"cannot open corpus index {index_path}: {exc}") from exc
    stored = dict(db.execute("SELECT key, value FROM meta"))
    wanted = {"format": _INDEX_FORMAT, "root": str(root)}
    if {key: stored.get(key) for key in wanted} != wanted:  # start afresh
        db.executescript(
            "DROP TABLE IF EXISTS fts;"  # the index format before passages
            "DELETE FROM vectors; DELETE FROM passages; DELETE FROM docs; DELETE FROM meta;"
        )
        db.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
        mark_changed(db)
    return db


def generation(db: sqlite3.Connection) -> str:
    """A token that changes whenever the index does (:func:`mark_changed`): what is derived
    from the index is kept under it."""
    row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return str(row[0]) if row else ""


def _spans_bytes(spans: dict[str, tuple[int, int]]) -> int:
    return sum(_SPAN_BYTES + len(path) for path in spans)


@memoize(_spans_bytes)
def passage_spans(index: str, generation: str) -> dict[str, tuple[int, int]]:
    """The first and last rowid of each page's passages in the index at ``index`` as of its
    ``generation`` (:func:`generation`, the key of the cache). The full-text table cannot
    index a page's path, so finding a page's passages by path reads every passage; within its
    span, a page's passages are found at once (a refresh writes a page's passages together)."""
    with closing(sqlite3.connect(index, timeout=60.0)) as db:
        return {
            path: (first, last)
            for path, first, last in db.execute(
                "SELECT path, min(rowid), max(rowid) FROM passages GROUP BY path"
            )
        }


def mark_changed(db: sqlite3.Connection) -> None:
    """Give the index a new :func:`generation` (unique, so never that of an earlier index at
    the same path)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (uuid.uuid4().hex,))


def refresh_index(
    db: sqlite3.Connection,
    root: Path,
    *,
    max_bytes: int,
    parse: Callable[[str, bytes], tuple[RawPage, Page]],
) -> IndexStats:
    """Bring the index in ``db`` up to date with the files under ``root``, in the caller's
    transaction; ``parse`` turns a document's bytes into its stored page and parsed page."""
    known = {
        path: (size, mtime_ns, sha)
        for path, size, mtime_ns, sha in db.execute("SELECT path, size, mtime_ns, sha256 FROM docs")
    }
    counts = dict.fromkeys(("added", "updated", "unchanged", "read", "skipped"), 0)
    seen: set[str] = set()
    for rel, path in _files(root):
        seen.add(rel)
        try:
            st = path.stat()
            row = known.get(rel)
            if row is not None and row[:2] == (st.st_size, st.st_mtime_ns):
                counts["unchanged"] += 1
                continue
            if st.st_size > max_bytes:
                log.warning("corpus: skipping %s: %s", rel, too_large(st.st_size, max_bytes))
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
        if row is not None:  # indexed before: its passages make way
            _drop_passages(db, rel)
        try:
            page, parsed = parse(rel, body)
        except FetchError as exc:
            log.warning("corpus: skipping %s: %s", rel, exc)
            counts["skipped"] += 1
            title, indexed = "", 0
        else:
            counts["added" if row is None else "updated"] += 1
            title, indexed = page.title, 1
            db.executemany(
                "INSERT INTO passages(path, title, heading, body, keys) VALUES (?, ?, ?, ?, ?)",
                _passage_rows(rel, title, parsed),
            )
        db.execute(
            "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?, ?, ?)",
            (rel, st.st_size, st.st_mtime_ns, sha, title, indexed),
        )
    gone = sorted(set(known) - seen)
    for rel in gone:
        _drop_passages(db, rel)
        db.execute("DELETE FROM docs WHERE path = ?", (rel,))
    return IndexStats(removed=len(gone), **counts)


def _passage_rows(rel: str, title: str, page: Page) -> Iterator[tuple[str, str, str, str, str]]:
    """The index rows of a page's passages (path, title, heading path, text, option keys), as a
    reader sees them (:func:`~quotebound.text.normalize.as_seen`): without soft hyphens and
    zero-width characters, which split a word into tokens ("Mit\u00adtel\u00adal\u00adter" is
    "Mittelalter"), and with letters composed, as
    :func:`~quotebound.acquisition.ftsquery.fts_query` reads a query."""
    title = as_seen(title)
    for p in passages(page):
        text = as_seen(p.text)
        heading = as_seen(HEADING_SEPARATOR.join(p.headings))
        yield rel, title, heading, text, option_keys(text)


def _drop_passages(db: sqlite3.Connection, path: str) -> None:
    """Drop the passages of ``path`` and their vectors. The full-text table cannot index a
    path, so its passages are found by one read of the table, then dropped by rowid."""
    rowids = [(r,) for (r,) in db.execute("SELECT rowid FROM passages WHERE path = ?", (path,))]
    drop_vectors(db, rowids)
    db.executemany("DELETE FROM passages WHERE rowid = ?", rowids)


def _files(root: Path) -> Iterator[tuple[str, Path]]:
    """Indexable files under ``root``, in sorted order, hidden entries skipped."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            if filename.startswith(".") or document_suffix(filename) not in MEDIA_TYPES:
                continue
            path = Path(dirpath, filename)
            if path.resolve().is_relative_to(root):
                yield path.relative_to(root).as_posix(), path


def document_suffix(filename: str) -> str:
    """The lower-cased suffix that picks a file's media type in :data:`MEDIA_TYPES`."""
    return PurePosixPath(filename).suffix.lower()
