"""Retention: removing old runs (their pages, evidence and checkpoints) from a store.

A thread is everything stored under one thread id: the Store items in every namespace that
starts with it (the raw pages under ``(thread_id, "raw")``) and the checkpointer's checkpoints
and writes, which hold the run's state, evidence and report. Its age is the time of its
newest write, in either place.

Threads go one at a time: Store items first (a batch of deletions per call), then all the
thread's checkpoints in one checkpointer call. A prune that is interrupted leaves every
thread either whole, gone, or with its checkpoints but fewer pages; such a thread keeps the
age of its checkpoints, so running the same prune again finishes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore, PutOp

from quotebound.errors import ConfigError
from quotebound.storage.rawstore import is_thread_id

__all__ = [
    "PruneReport",
    "ThreadInfo",
    "delete_thread",
    "list_threads",
    "parse_duration",
    "prune_threads",
    "require_criteria",
    "select_for_pruning",
]

_DURATION = re.compile(r"^\s*(\d{1,9})\s*([dhm])\s*$")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}
_PAGE = 100
"""Store items read or deleted per call."""


@dataclass(frozen=True)
class ThreadInfo:
    """One thread found in a store."""

    thread_id: str
    """The thread id, the first label of its Store namespaces and the checkpointer's key."""
    last_write: datetime
    """The newest write of its checkpoints and Store items (UTC)."""
    items: int
    """How many Store items (pages) it holds."""


@dataclass(frozen=True)
class PruneReport:
    """What a prune removed (or, on a dry run, would remove) and how many threads it kept."""

    pruned: tuple[ThreadInfo, ...]
    """The threads removed (or to be removed), oldest first."""
    kept: int
    """How many threads stay."""
    dry_run: bool
    """True when nothing was deleted."""

    @property
    def pages(self) -> int:
        """The Store items of the pruned threads."""
        return sum(t.items for t in self.pruned)

    def summary(self) -> str:
        """One line: ``pruned N threads, M pages, kept K`` (``would prune`` on a dry run)."""
        verb = "would prune" if self.dry_run else "pruned"
        return f"{verb} {len(self.pruned)} threads, {self.pages} pages, kept {self.kept}"


def parse_duration(text: str) -> timedelta:
    """A positive age such as ``30d``, ``12h`` or ``90m``; ConfigError for anything else."""
    match = _DURATION.match(text)
    if match is None or int(match[1]) == 0:
        raise ConfigError(
            f"duration must be a positive whole number of days, hours or minutes "
            f"('30d', '12h', '90m'), got {text!r}"
        )
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


def require_criteria(older_than: timedelta | None, keep_last: int | None) -> None:
    """ConfigError unless an age or a count says what to prune (never "everything" by default)."""
    if older_than is None and keep_last is None:
        raise ConfigError("say what to prune: --older-than DURATION and/or --keep-last N")
    if keep_last is not None and keep_last < 0:
        raise ConfigError(f"--keep-last must be 0 or more, got {keep_last}")


async def list_threads(store: BaseStore, checkpointer: BaseCheckpointSaver) -> list[ThreadInfo]:
    """Every thread with Store items or checkpoints, newest first (ties by thread id)."""
    newest: dict[str, datetime] = {}
    items: dict[str, int] = {}

    def seen(thread_id: str, when: datetime) -> None:
        when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
        if thread_id not in newest or when > newest[thread_id]:
            newest[thread_id] = when

    async for saved in checkpointer.alist(None):
        seen(
            str(saved.config["configurable"]["thread_id"]),
            datetime.fromisoformat(saved.checkpoint["ts"]),
        )
    for (thread_id,) in await _top_namespaces(store):
        if not is_thread_id(thread_id):  # the search cache's label, say: not a thread
            continue
        offset = 0
        while batch := await store.asearch((thread_id,), limit=_PAGE, offset=offset):
            for item in batch:
                seen(thread_id, item.updated_at)
            offset += len(batch)
        items[thread_id] = offset
    threads = [ThreadInfo(t, when, items.get(t, 0)) for t, when in newest.items()]
    return sorted(threads, key=lambda t: (t.last_write, t.thread_id), reverse=True)


async def _top_namespaces(store: BaseStore) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    while batch := await store.alist_namespaces(max_depth=1, limit=_PAGE, offset=len(found)):
        found.extend(batch)
    return found


def select_for_pruning(
    threads: Sequence[ThreadInfo],
    *,
    older_than: timedelta | None,
    keep_last: int | None,
    now: datetime,
) -> list[ThreadInfo]:
    """The threads to remove, oldest first.

    ``threads`` are newest first. The ``keep_last`` newest always stay; of the others, those
    whose last write is more than ``older_than`` before ``now`` go (all of them without
    ``older_than``).
    """
    require_criteria(older_than, keep_last)
    candidates = threads[keep_last:] if keep_last is not None else threads
    if older_than is not None:
        candidates = [t for t in candidates if t.last_write < now - older_than]
    return sorted(candidates, key=lambda t: (t.last_write, t.thread_id))


async def delete_thread(
    store: BaseStore, checkpointer: BaseCheckpointSaver, thread_id: str
) -> None:
    """Remove one thread: its Store items in every namespace under it, then its checkpoints."""
    while batch := await store.asearch((thread_id,), limit=_PAGE):
        await store.abatch([PutOp(item.namespace, item.key, None) for item in batch])
    await checkpointer.adelete_thread(thread_id)


async def prune_threads(
    store: BaseStore,
    checkpointer: BaseCheckpointSaver,
    *,
    older_than: timedelta | None = None,
    keep_last: int | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
    on_thread: Callable[[ThreadInfo], None] | None = None,
) -> PruneReport:
    """Remove the threads :func:`select_for_pruning` picks, one whole thread at a time.

    ``on_thread`` is called with each thread once it is gone (on a dry run, once it is picked).
    """
    threads = await list_threads(store, checkpointer)
    doomed = select_for_pruning(
        threads, older_than=older_than, keep_last=keep_last, now=now or datetime.now(UTC)
    )
    for thread in doomed:
        if not dry_run:
            await delete_thread(store, checkpointer, thread.thread_id)
        if on_thread is not None:
            on_thread(thread)
    return PruneReport(tuple(doomed), kept=len(threads) - len(doomed), dry_run=dry_run)
