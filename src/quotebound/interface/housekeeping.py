"""The Store's housekeeping subcommands: ``prune`` removes old threads (pages, evidence and
checkpoints together) and trims the search and page caches; ``cache clear`` empties both caches.

Like :mod:`quotebound.interface.commands`, each handler imports what it needs when it runs and
returns its exit code.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from quotebound.interface.exitcodes import EXIT_OK

if TYPE_CHECKING:
    from quotebound.storage.retention import ThreadInfo

__all__ = ["HOUSEKEEPING_HANDLERS"]


async def _prune(args: argparse.Namespace) -> int:
    from quotebound.acquisition.pagecache import prune_page_cache
    from quotebound.acquisition.searchcache import prune_search_cache
    from quotebound.storage.retention import parse_duration, prune_threads, require_criteria
    from quotebound.storage.stores import open_store

    older_than = parse_duration(args.older_than) if args.older_than is not None else None
    require_criteria(older_than, args.keep_last)
    verb = "would prune" if args.dry_run else "pruned"

    def line(thread: ThreadInfo) -> None:
        written = thread.last_write.isoformat(timespec="seconds").replace("+00:00", "Z")
        print(f"{verb} {thread.thread_id}\tlast write {written}\t{thread.items} pages", flush=True)

    async with open_store(args.store) as handle:
        report = await prune_threads(
            handle.store,
            handle.checkpointer,
            older_than=older_than,
            keep_last=args.keep_last,
            dry_run=args.dry_run,
            on_thread=line,
        )
        expired = 0 if args.dry_run else await prune_search_cache(handle.store)
        stale = 0 if args.dry_run else await prune_page_cache(handle.store)
    print(report.summary())
    if expired:
        print(f"search cache: {expired} expired or over-cap answer(s) removed")
    if stale:
        print(f"page cache: {stale} expired or over-cap page(s) removed")
    return EXIT_OK


async def _cache(args: argparse.Namespace) -> int:
    from quotebound.acquisition.pagecache import clear_page_cache
    from quotebound.acquisition.searchcache import clear_search_cache
    from quotebound.storage.stores import open_store

    async with open_store(args.store) as handle:
        removed = await clear_search_cache(handle.store)
        pages = await clear_page_cache(handle.store)
    print(f"search cache cleared: {removed} answer(s) removed")
    print(f"page cache cleared: {pages} page(s) removed")
    return EXIT_OK


HOUSEKEEPING_HANDLERS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
    "prune": _prune,
    "cache": _cache,
}
"""The housekeeping subcommands, by the name the parser gives them (``args.command``)."""
