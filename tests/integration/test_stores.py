"""Raw pages in the persistent stores (SQLite file, real PostgreSQL on loopback)."""

from __future__ import annotations

import asyncio
import multiprocessing
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from postgres import PostgresServer, postgres_server  # noqa: F401  (fixture)

from quotebound.errors import ConfigError
from quotebound.storage.rawstore import RawPage, get_raw_page, list_raw_pages, put_raw_page
from quotebound.storage.stores import default_store_uri, open_store
from quotebound.tiers import TrustTier

pytestmark = pytest.mark.integration


def _page(n: int, *, thread: str = "") -> RawPage:
    return RawPage(
        url=f"https://docs.example.org/{thread}/page-{n}.html",
        final_url=f"https://docs.example.org/{thread}/page-{n}.html",
        status=200,
        content_type="text/html",
        encoding="utf-8",
        sha256=RawPage.body_sha256(f"body {n}".encode()),
        title=f"Page {n} — “quoted” ünïcode",
        trust_tier=int(TrustTier.PRIMARY_SOURCE),
        provider="http",
        fetched_at="2024-05-01T12:00:00Z",
        html=f"<html><body><p>Paragraph {n} with ünïcode and a \u00a0 space.</p></body></html>",
    )


@pytest.fixture(params=["sqlite", "postgres"])
def store_uri(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'nested' / 'dir' / 'store.sqlite'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        yield server.uri


def _thread() -> str:
    return uuid.uuid4().hex


async def test_raw_page_round_trips(store_uri: str) -> None:
    thread = _thread()
    pdf = RawPage(
        url="https://example.edu/paper.pdf",
        final_url="https://example.edu/paper.pdf",
        status=200,
        content_type="application/pdf",
        encoding=None,
        sha256="0" * 64,
        title="Paper",
        trust_tier=int(TrustTier.AUTHORITATIVE_SOURCE),
        provider="http",
        fetched_at="2024-05-01T12:00:00Z",
        pages=["first page", "second page"],
    )
    async with open_store(store_uri) as handle:
        sid = await put_raw_page(handle.store, thread, _page(1))
        await put_raw_page(handle.store, thread, pdf)
    async with open_store(store_uri) as handle:  # a fresh connection reads what was written
        assert await get_raw_page(handle.store, thread, sid) == _page(1)
        assert await list_raw_pages(handle.store, thread) == sorted(
            [_page(1), pdf], key=lambda p: p.source_id
        )
        assert await get_raw_page(handle.store, thread, "0" * 16) is None


async def test_concurrent_threads_never_see_each_others_pages(store_uri: str) -> None:
    threads = [_thread(), _thread()]

    async def write(thread: str) -> None:
        for n in range(8):
            await put_raw_page(handle.store, thread, _page(n, thread=thread))

    async with open_store(store_uri) as handle:
        await asyncio.gather(*(write(t) for t in threads))
        for mine, other in (threads, threads[::-1]):
            pages = await list_raw_pages(handle.store, mine)
            assert len(pages) == 8
            assert all(f"/{mine}/" in p.url for p in pages)
            foreign = _page(0, thread=other)
            assert await get_raw_page(handle.store, mine, foreign.source_id) is None


async def test_postgres_data_survives_a_server_restart(postgres_server: PostgresServer) -> None:  # noqa: F811
    thread = _thread()
    async with open_store(postgres_server.uri) as handle:
        await put_raw_page(handle.store, thread, _page(7))
    postgres_server.restart()
    async with open_store(postgres_server.uri) as handle:
        assert await list_raw_pages(handle.store, thread) == [_page(7)]


async def test_handle_uri_masks_the_password(postgres_server: PostgresServer) -> None:  # noqa: F811
    uri = postgres_server.uri.replace("postgres@", "postgres:hunter2@")  # trust auth ignores it
    async with open_store(uri) as handle:
        assert "hunter2" not in handle.uri
        assert handle.uri.startswith("postgresql://postgres:***@127.0.0.1:")


@pytest.mark.parametrize(
    "uri",
    [
        "postgresql://alice:s3cr3t-pw@127.0.0.1:1/db",
        "postgres://alice:s3cr3t-pw@[::1/db",
        "postgresql://alice@127.0.0.1:1/db?password=s3cr3t-pw",
    ],
)
async def test_unreachable_or_malformed_postgres_is_a_one_line_config_error(uri: str) -> None:
    with pytest.raises(ConfigError) as info:
        async with open_store(uri):
            pytest.fail("open_store must not yield for an unreachable server")
    message = str(info.value)
    assert "\n" not in message
    assert "s3cr3t-pw" not in message
    assert "s3cr3t-pw" not in "".join(traceback.format_exception(info.value))  # --debug shows it
    assert "PostgreSQL" in message


async def test_unwritable_sqlite_path_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ConfigError, match="cannot open sqlite store"):
        async with open_store(f"sqlite:{blocker / 'store.sqlite'}"):
            pass


@pytest.mark.parametrize("uri", ["redis://localhost/0", "sqlite:", "mem", ""])
async def test_unknown_or_empty_uri_is_a_config_error(uri: str) -> None:
    with pytest.raises(ConfigError):
        async with open_store(uri):
            pass


async def test_memory_store_and_default_uri(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_store_uri() == f"sqlite:{tmp_path / 'quotebound' / 'quotebound.sqlite'}"
    thread = _thread()
    async with open_store("memory") as handle:
        await put_raw_page(handle.store, thread, _page(3))
        assert await list_raw_pages(handle.store, thread) == [_page(3)]
    async with open_store(None) as handle:
        assert handle.uri == default_store_uri()
    assert (tmp_path / "quotebound" / "quotebound.sqlite").is_file()


# --- many processes opening one brand-new store at once ----------------------------------------

_PROCESSES = 8


def _open_new_stores(uris: list[str], barrier: Any, results: Any) -> None:
    """In a child process: for each URI, wait for every process, then open it and write."""

    async def use(uri: str) -> None:
        async with open_store(uri) as handle:
            page = _page(1, thread=uuid.uuid4().hex)
            await put_raw_page(handle.store, page.url.split("/")[3], page)

    failures = []
    for uri in uris:
        barrier.wait()
        try:
            asyncio.run(use(uri))
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {exc}".splitlines()[0])
    results.put(failures)


def _open_concurrently(uris: list[str]) -> list[str]:
    """Failures of ``_PROCESSES`` processes opening each of ``uris`` at the same moment."""
    ctx = multiprocessing.get_context("forkserver")  # no fork of pytest; one import for all
    ctx.set_forkserver_preload(["quotebound.storage.stores"])
    barrier, results = ctx.Barrier(_PROCESSES), ctx.Queue()
    procs = [
        ctx.Process(target=_open_new_stores, args=(uris, barrier, results))
        for _ in range(_PROCESSES)
    ]
    for p in procs:
        p.start()
    failures = [f for _ in procs for f in results.get(timeout=300)]
    for p in procs:
        p.join(timeout=60)
    assert all(p.exitcode == 0 for p in procs)
    return failures


def test_processes_opening_a_new_sqlite_store_at_once_all_succeed(tmp_path: Path) -> None:
    uris = [f"sqlite:{tmp_path / f'new-{i}' / 'store.sqlite'}" for i in range(15)]
    failures = _open_concurrently(uris)
    assert failures == [], f"{len(failures)} of {len(uris) * _PROCESSES} opens failed"


def test_processes_opening_a_new_postgres_store_at_once_all_succeed(
    postgres_server: PostgresServer,  # noqa: F811
) -> None:
    import psycopg

    names = [f"fresh_{uuid.uuid4().hex[:12]}" for _ in range(4)]
    admin = postgres_server.uri.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in names:
            conn.execute(f"CREATE DATABASE {name}")
    uris = [postgres_server.uri.rsplit("/", 1)[0] + f"/{name}" for name in names]
    failures = _open_concurrently(uris)
    assert failures == [], f"{len(failures)} of {len(uris) * _PROCESSES} opens failed"
