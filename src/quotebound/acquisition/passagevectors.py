"""Search by meaning in a corpus index: a vector for each passage, and the pages whose passages
are closest in meaning to a query.

BM25 finds the pages that share a question's words, but a question often says in its own words
what the page says in others: "the three values that occur most often" for ``most_common``,
"how much time each import takes" for ``-X importtime``. So the index keeps, beside each
passage's text, the vector the sentence encoder (:mod:`quotebound.evidence.encoder`) makes of
its page title, heading and first words; the corpus ranks pages by their closest passages and
fuses that ranking with BM25's (reciprocal rank fusion). The vectors are made when the index is
refreshed, a chunk at a time, each chunk committed, so an interrupted refresh keeps what it did
and the next one makes the rest; a search uses them only once every passage has one, and
without the encoder (not installed, or ``QUOTEBOUND_MEANING=off``) none are made and search is
by terms alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotebound.evidence import encoder
from quotebound.storage.bytecache import memoize
from quotebound.text.passages import under_heading

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "SCHEMA",
    "Vectors",
    "closest_passages",
    "drop_vectors",
    "fill_vectors",
    "load_vectors",
]

SCHEMA = "CREATE TABLE IF NOT EXISTS vectors(passage INTEGER PRIMARY KEY, vector BLOB NOT NULL);"
"""Each passage's vector (its rowid in ``passages``), ``encoder.DIMENSIONS`` half-precision
floats."""
TOKENS = 32
"""Tokens of a passage's text its vector reads: the title, the heading and the first words say
what a passage is about, and encoding a whole corpus costs in proportion."""
_CHUNK = 2048
"""Passages encoded, then committed, at a time."""
_PASSAGES_SEARCHED = 400
"""Closest passages a search ranks pages by."""
_CLOSE_ENOUGH = 0.3
"""The least closeness (cosine) of a passage a search ranks pages by: this encoder puts texts
on unrelated topics below it."""
_MISSING_BETWEEN = (
    "SELECT rowid, title, heading, body FROM passages "
    "WHERE rowid BETWEEN ? AND ? AND rowid NOT IN (SELECT passage FROM vectors) ORDER BY rowid"
)
"""The passages of a chunk, by the first and last rowid of those that had no vector."""


@dataclass(frozen=True)
class Vectors:
    """An index's passage vectors in memory: the passages' rowids and a matrix of their vectors
    (single precision, one row each)."""

    rowids: np.ndarray
    matrix: np.ndarray


def _passage_text(title: str, heading: str, body: str) -> str:
    return f"{title}\n{under_heading(heading, body, besides=title)}"


def drop_vectors(db: sqlite3.Connection, passages: Iterable[tuple[int]]) -> None:
    """Drop the vectors of ``passages`` (their rowids, each in a 1-tuple), before the passages
    themselves."""
    db.executemany("DELETE FROM vectors WHERE passage = ?", passages)


def fill_vectors(db: sqlite3.Connection, done: Callable[[int, int], None] | None = None) -> int:
    """Make the vector of every passage that has none, committing a chunk at a time (``db`` in
    autocommit mode); ``done`` hears how many of how many are made. Returns how many were made:
    0 when the encoder is off or not installed. The encoder is loaded only when some passage
    needs it, and a chunk's texts are read when its turn comes: an index that is up to date
    costs neither the model's memory nor its loading time, and a new one never holds the
    whole corpus's text at once."""
    missing = [
        rowid
        for (rowid,) in db.execute(
            "SELECT rowid FROM passages WHERE rowid NOT IN (SELECT passage FROM vectors) "
            "ORDER BY rowid"
        )
    ]
    model = encoder.sentence_encoder() if missing else None
    if model is None:
        return 0
    made = 0
    for at in range(0, len(missing), _CHUNK):
        first, last = missing[at], missing[min(at + _CHUNK, len(missing)) - 1]
        chunk = db.execute(_MISSING_BETWEEN, (first, last)).fetchall()

        def progress(count: int, before: int = made) -> None:
            if done is not None:
                done(before + count, len(missing))

        vectors = model.passage_vectors(
            [_passage_text(t, h, b) for _, t, h, b in chunk], tokens=TOKENS, done=progress
        )
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                (
                    (rowid, v.astype("<f2").tobytes())
                    for (rowid, *_), v in zip(chunk, vectors, strict=True)
                ),
            )
        except BaseException:
            db.rollback()
            raise
        db.commit()
        made += len(chunk)
    return made


def _vectors_bytes(vectors: Vectors | None) -> int:
    return 0 if vectors is None else int(vectors.rowids.nbytes + vectors.matrix.nbytes)


@memoize(_vectors_bytes)
def load_vectors(index: str, generation: str) -> Vectors | None:
    """The passage vectors of the index at ``index`` as of its ``generation`` (the key of the
    cache: a refresh that changes the index changes it), or None unless every passage has one."""
    import numpy as np

    with closing(sqlite3.connect(index, timeout=60.0)) as db:
        db.execute("BEGIN")  # one snapshot: the counts and the rows agree
        (passages,) = db.execute("SELECT count(*) FROM passages").fetchone()
        (count,) = db.execute("SELECT count(*) FROM vectors").fetchone()
        if not count or count != passages:
            return None
        # Filled row by row: the matrix is the one copy held, never the rows' bytes beside it.
        rowids = np.empty(count, dtype=np.int64)
        matrix = np.empty((count, encoder.DIMENSIONS), dtype=np.float32)
        rows = db.execute("SELECT passage, vector FROM vectors ORDER BY passage")
        for i, (rowid, vector) in enumerate(rows):
            rowids[i] = rowid
            matrix[i] = np.frombuffer(vector, dtype="<f2")
    return Vectors(rowids=rowids, matrix=matrix)


def closest_passages(
    db: sqlite3.Connection, vectors: Vectors, query: str
) -> list[tuple[str, str, str, str, float]]:
    """The passages (path, title, heading, body, closeness) closest in meaning to ``query``,
    closest first (ties in passage order): ``_PASSAGES_SEARCHED`` at most, none less close
    than ``_CLOSE_ENOUGH``."""
    import numpy as np

    wanted = encoder.query_vector(query)
    if wanted is None:
        return []
    closeness = vectors.matrix @ wanted
    best = [
        i
        for i in np.argsort(-closeness, kind="stable")[:_PASSAGES_SEARCHED]
        if closeness[i] >= _CLOSE_ENOUGH
    ]
    rowids = [int(vectors.rowids[i]) for i in best]
    marks = ", ".join("?" * len(rowids))
    text = {
        rowid: (path, title, heading, body)
        for rowid, path, title, heading, body in db.execute(
            f"SELECT rowid, path, title, heading, body FROM passages WHERE rowid IN ({marks})",
            rowids,
        )
    }
    return [
        (*text[rowid], round(float(closeness[i]), 4))
        for rowid, i in zip(rowids, best, strict=True)
        if rowid in text
    ]
