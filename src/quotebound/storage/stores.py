"""Opening the Store and checkpointer a run keeps its pages and state in (docs/architecture.md §2).

One URI picks the backend: ``memory`` (tests, ``langgraph dev``), ``sqlite:PATH`` (the
command's default, under the user's data directory) or ``postgresql://...`` (a server).
Every failure to open becomes a :class:`ConfigError` with a one-line reason that never
contains a password.

Many processes may open one brand-new store at the same moment (several commands started
together, server workers): table creation and migrations run one process at a time, under a
file lock beside a SQLite file and a PostgreSQL advisory lock. SQLite runs in WAL mode and
waits for a busy database instead of failing at once.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from quotebound.context import require_unicode
from quotebound.errors import ConfigError
from quotebound.storage.filelock import async_file_lock

if TYPE_CHECKING:
    import psycopg
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.store.base import BaseStore

__all__ = [
    "CONNECT_TIMEOUT_S",
    "StoreHandle",
    "default_store_uri",
    "mask_uri",
    "open_store",
]

CONNECT_TIMEOUT_S = 5
"""Seconds to wait for a PostgreSQL server before giving up, so a dead server fails fast."""
SQLITE_BUSY_TIMEOUT_S = 60
"""Seconds a SQLite statement waits for another process's write to finish."""
_PG_SETUP_LOCK = 0x71756F7465626E64
"""The advisory lock key (b"quotebnd") that serializes table setup on a PostgreSQL database."""
_PG_LOCK_POLL_S = 0.05

_USERINFO_PASSWORD = re.compile(r"(//[^/@:]*:)[^/]*@")
_QUERY_PASSWORD = re.compile(r"(?i)(password=)[^&\s]*")


@dataclass(frozen=True)
class StoreHandle:
    """An open Store and checkpointer, valid inside :func:`open_store`'s block."""

    store: BaseStore
    """Where raw pages live, under ``(thread_id, "raw")``."""
    checkpointer: BaseCheckpointSaver
    """Where graph state lives, so a past run can be shown again."""
    uri: str
    """The URI in display form, with any password masked."""


def default_store_uri() -> str:
    """The command's default store: a SQLite file under the user's data directory."""
    return "sqlite:" + str(Path(platformdirs.user_data_dir("quotebound")) / "quotebound.sqlite")


def mask_uri(uri: str) -> str:
    """``uri`` with any password (in the user info or a ``password=`` parameter) as ``***``."""
    return _QUERY_PASSWORD.sub(r"\1***", _USERINFO_PASSWORD.sub(r"\1***@", uri))


@asynccontextmanager
async def open_store(uri: str | None = None) -> AsyncIterator[StoreHandle]:
    """Open the Store and checkpointer named by ``uri`` (default :func:`default_store_uri`).

    Tables are created on first use. Raises ConfigError for a malformed URI, an unknown
    scheme, an unwritable SQLite path or a PostgreSQL server that is unreachable or refuses.
    """
    uri = default_store_uri() if uri is None else require_unicode("store URI", uri.strip())
    async with AsyncExitStack() as stack:
        if uri == "memory":
            from langgraph.checkpoint.memory import InMemorySaver
            from langgraph.store.memory import InMemoryStore

            handle = StoreHandle(InMemoryStore(), InMemorySaver(), uri)
        elif uri.startswith("sqlite:"):
            handle = await _open_sqlite(stack, uri)
        elif uri.startswith(("postgresql://", "postgres://")):
            handle = await _open_postgres(stack, uri)
        else:
            raise ConfigError(
                "store URI must be 'memory', 'sqlite:PATH' or 'postgresql://...', "
                f"got {mask_uri(uri)!r}"
            )
        yield handle


def _sqlite_path(uri: str) -> Path:
    rest = uri.removeprefix("sqlite:")
    if rest.startswith("///"):  # sqlite:///abs/path, the SQLAlchemy spelling
        rest = rest[2:]
    if not rest or rest == ":memory:":
        raise ConfigError(f"a sqlite store URI needs a file path (sqlite:PATH), got {uri!r}")
    return Path(rest).expanduser()


async def _open_sqlite(stack: AsyncExitStack, uri: str) -> StoreHandle:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.store.sqlite.aio import AsyncSqliteStore

    path = _sqlite_path(uri)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        store = await stack.enter_async_context(AsyncSqliteStore.from_conn_string(str(path)))
        saver = await stack.enter_async_context(AsyncSqliteSaver.from_conn_string(str(path)))
        for conn in (store.conn, saver.conn):
            await conn.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_S * 1000}")
        async with async_file_lock(path.with_name(path.name + ".setup-lock")):
            await store.conn.execute("PRAGMA journal_mode = WAL")
            await store.setup()
            await saver.setup()
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError(f"cannot open sqlite store at {path}: {_one_line(exc)}") from exc
    return StoreHandle(store, saver, f"sqlite:{path}")


async def _open_postgres(stack: AsyncExitStack, uri: str) -> StoreHandle:
    import psycopg
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.store.postgres.aio import AsyncPostgresStore
    from psycopg.conninfo import make_conninfo

    shown = mask_uri(uri)
    try:
        conninfo = make_conninfo(uri, connect_timeout=CONNECT_TIMEOUT_S)
        store = await stack.enter_async_context(AsyncPostgresStore.from_conn_string(conninfo))
        saver = await stack.enter_async_context(AsyncPostgresSaver.from_conn_string(conninfo))
        async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as lock:
            await _pg_advisory_lock(lock)  # released when this session ends, whatever happens
            await store.setup()
            await saver.setup()
    except psycopg.Error as exc:
        detail = mask_uri(_one_line(exc))
        password = _password(uri)
        if password:
            detail = detail.replace(password, "***")
        # from None: the cause may quote the URI with its password, even in a --debug traceback
        raise ConfigError(f"cannot open PostgreSQL store at {shown}: {detail}") from None
    return StoreHandle(store, saver, shown)


async def _pg_advisory_lock(conn: psycopg.AsyncConnection[Any]) -> None:
    """Take the setup lock, polling: a session blocked inside ``pg_advisory_lock`` would be an
    open transaction, which the holder's ``CREATE INDEX CONCURRENTLY`` waits for (deadlock)."""
    while True:
        cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (_PG_SETUP_LOCK,))
        row = await cur.fetchone()
        if row is not None and row[0]:
            return
        await asyncio.sleep(_PG_LOCK_POLL_S)


def _password(uri: str) -> str | None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        value = conninfo_to_dict(uri).get("password")
    except psycopg.Error:  # unparsable: mask_uri hides a password in the URI psycopg quotes
        return None
    return str(value) if value else None


def _one_line(exc: BaseException) -> str:
    """The first non-empty line of an error's message (libpq's are multi-line)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
