"""An exclusive lock between processes on one machine: ``fcntl.flock`` on a lock file.

The lock belongs to the open file, so a process that dies, however it dies, releases it.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

__all__ = ["async_file_lock", "file_lock"]


def _open(path: Path) -> int:
    if path.is_dir():
        return os.open(path, os.O_RDONLY)
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


@contextmanager
def file_lock(path: Path, *, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the exclusive lock on ``path`` for the block: a directory, or a file (created if
    missing). ``waiting`` is called once, before waiting, when another holds it."""
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the file releases the lock


@asynccontextmanager
async def async_file_lock(path: Path) -> AsyncIterator[None]:
    """:func:`file_lock` for async code: the wait happens in a thread, not on the event loop."""
    fd = _open(path)
    try:
        await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
