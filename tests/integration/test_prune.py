"""Pruning old runs from real SQLite and PostgreSQL stores, and from the command.

Threads are made by running the real graph on a small local corpus; their ages are set by
the order of the runs and the moment the prune takes as "now".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from postgres import PostgresServer, postgres_server  # noqa: F401  (fixture)
from tern import BASE, CORPUS, tern_corpus

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.context import make_context
from quotebound.graph.deps import Deps
from quotebound.interface.runner import load_run, run_research
from quotebound.storage.rawstore import list_raw_pages
from quotebound.storage.retention import list_threads, prune_threads
from quotebound.storage.stores import StoreHandle, open_store

pytestmark = pytest.mark.integration

QUESTION = "What is the default timeout of the Tern client and how often does it retry?"
QUOTEBOUND = str(Path(sys.executable).with_name("quotebound"))


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    return tern_corpus(tmp_path)


@pytest.fixture(params=["sqlite", "postgres"])
def store_uri(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty store: a new SQLite file or a new database on the test server."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'store.sqlite'}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = f"prune_{uuid.uuid4().hex[:12]}"
    admin = f"postgresql://postgres@127.0.0.1:{server.port}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield f"postgresql://postgres@127.0.0.1:{server.port}/{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
async def handle(store_uri: str) -> AsyncIterator[StoreHandle]:
    async with open_store(store_uri) as opened:
        yield opened


async def _research(handle: StoreHandle, corpus: LocalCorpus, thread_id: str) -> None:
    out = await run_research(
        QUESTION,
        store=handle.store,
        checkpointer=handle.checkpointer,
        thread_id=thread_id,
        context=make_context(composer="extractive", provider="corpus", corpus_dir="x"),
        deps=Deps(providers=[corpus]),
    )
    assert out["status"] == "answered"


async def _runs(handle: StoreHandle, corpus: LocalCorpus) -> datetime:
    """Run threads "old", "mid" and "new" in that order; returns a moment between old and mid."""
    await _research(handle, corpus, "old")
    between = datetime.now(UTC)
    await _research(handle, corpus, "mid")
    await _research(handle, corpus, "new")
    return between


async def _is_whole(handle: StoreHandle, thread_id: str, pages: int) -> bool:
    stored = await list_raw_pages(handle.store, thread_id)
    return (
        len(stored) == pages
        and await load_run(thread_id, checkpointer=handle.checkpointer) is not None
    )


async def _is_gone(handle: StoreHandle, thread_id: str) -> bool:
    items = await handle.store.asearch((thread_id,))
    checkpoint = await handle.checkpointer.aget_tuple({"configurable": {"thread_id": thread_id}})
    return not items and checkpoint is None


async def test_older_than_removes_exactly_the_old_threads(
    handle: StoreHandle, corpus: LocalCorpus
) -> None:
    between = await _runs(handle, corpus)
    before = {t.thread_id: t for t in await list_threads(handle.store, handle.checkpointer)}
    assert list(before) == ["new", "mid", "old"]
    assert all(t.items > 0 for t in before.values())

    report = await prune_threads(
        handle.store,
        handle.checkpointer,
        older_than=timedelta(days=30),
        now=between + timedelta(days=30),
    )
    assert [t.thread_id for t in report.pruned] == ["old"]
    assert report.summary() == f"pruned 1 threads, {before['old'].items} pages, kept 2"
    assert await _is_gone(handle, "old")
    assert await _is_whole(handle, "mid", before["mid"].items)
    assert await _is_whole(handle, "new", before["new"].items)


async def test_keep_last_keeps_the_newest_and_a_dry_run_deletes_nothing(
    handle: StoreHandle, corpus: LocalCorpus
) -> None:
    await _runs(handle, corpus)
    before = {t.thread_id: t for t in await list_threads(handle.store, handle.checkpointer)}

    dry = await prune_threads(handle.store, handle.checkpointer, keep_last=1, dry_run=True)
    assert [t.thread_id for t in dry.pruned] == ["old", "mid"]
    assert dry.summary().startswith("would prune 2 threads")
    assert all([await _is_whole(handle, t, info.items) for t, info in before.items()])

    report = await prune_threads(handle.store, handle.checkpointer, keep_last=1)
    assert [t.thread_id for t in report.pruned] == ["old", "mid"]
    assert report.kept == 1
    assert await _is_gone(handle, "old") and await _is_gone(handle, "mid")
    assert await _is_whole(handle, "new", before["new"].items)
    # keep-last and older-than together: the newest stays whatever its age
    later = datetime.now(UTC) + timedelta(days=400)
    again = await prune_threads(
        handle.store, handle.checkpointer, older_than=timedelta(days=1), keep_last=1, now=later
    )
    assert again.pruned == () and again.kept == 1


async def test_a_rerun_finishes_a_half_pruned_thread(
    handle: StoreHandle, corpus: LocalCorpus
) -> None:
    await _research(handle, corpus, "old")
    await handle.store.aput(("old", "notes"), "note", {"text": "another namespace of the thread"})
    between = datetime.now(UTC)
    await _research(handle, corpus, "old_new")  # a name that starts like the pruned one
    kept_pages = len(await list_raw_pages(handle.store, "old_new"))
    # a prune interrupted after the first Store items of "old" went, before its checkpoints
    first = (await handle.store.asearch(("old", "raw"), limit=1))[0]
    await handle.store.adelete(first.namespace, first.key)

    report = await prune_threads(
        handle.store,
        handle.checkpointer,
        older_than=timedelta(hours=1),
        now=between + timedelta(hours=1),
    )
    assert [t.thread_id for t in report.pruned] == ["old"]
    assert await _is_gone(handle, "old")
    assert [t.thread_id for t in await list_threads(handle.store, handle.checkpointer)] == [
        "old_new"
    ]
    assert kept_pages > 0 and await _is_whole(handle, "old_new", kept_pages)


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [QUOTEBOUND, *args], env=env, cwd=home, capture_output=True, text=True, timeout=240
    )


def test_prune_command_and_show_of_a_pruned_thread(tmp_path: Path, store_uri: str) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    for thread in ("first", "second"):
        done = _run(tmp_path, "research", QUESTION, "--corpus", str(docs), "--base-url", BASE,
                    "--store", store_uri, "--thread-id", thread, "-q")  # fmt: skip
        assert done.returncode == 0, done.stderr

    dry = _run(tmp_path, "prune", "--keep-last", "1", "--dry-run", "--store", store_uri)
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    assert lines[0].startswith("would prune first\t") and len(lines) == 2
    assert lines[1].startswith("would prune 1 threads, ") and lines[1].endswith(" kept 1")

    done = _run(tmp_path, "prune", "--keep-last", "1", "--store", store_uri)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == lines[1].replace("would prune", "pruned")

    shown = _run(tmp_path, "show", "first", "--store", store_uri)
    assert shown.returncode == 2
    assert "no such thread 'first'" in shown.stderr and len(shown.stderr.splitlines()) == 1
    assert _run(tmp_path, "sources", "first", "--store", store_uri).returncode == 2
    assert _run(tmp_path, "show", "second", "--store", store_uri).returncode == 0
    kept = _run(tmp_path, "prune", "--older-than", "30d", "--store", store_uri)
    assert kept.stdout == "pruned 0 threads, 0 pages, kept 1\n"
