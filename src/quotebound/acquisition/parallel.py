"""Fetching many items at once, in input order, with a dead link replaced by the next item.

:func:`fetch_until` is how the fetch node reads a round's candidates; :func:`run_until` is the
runner under it and under :meth:`~quotebound.acquisition.fetcher.Fetcher.fetch_many`. A fetch
that raises :class:`~quotebound.errors.FetchError` becomes a :class:`FetchFailure`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from quotebound.errors import ConfigError, FetchError, Reason
from quotebound.storage.rawstore import RawPage

__all__ = ["FetchFailure", "fetch_until", "run_until"]

T = TypeVar("T")


@dataclass(frozen=True)
class FetchFailure:
    """A URL that could not be fetched, and why."""

    url: str
    """The URL as asked for."""
    reason: Reason
    """The reason code."""
    detail: str
    """A safe explanation: no secrets, no query strings, no page text."""


def _item_url(item: object) -> str:
    """The URL an item stands for, for its FetchFailure: its ``url`` key or attribute, or the
    item itself (a URL string)."""
    if isinstance(item, Mapping) and "url" in item:
        return str(item["url"])
    return str(getattr(item, "url", item))


async def fetch_until(
    items: Sequence[T],
    want: int,
    fetch_one: Callable[[T], Awaitable[RawPage]],
    *,
    concurrency: int,
) -> tuple[list[tuple[T, RawPage]], list[tuple[T, FetchFailure]]]:
    """Fetch the first ``want`` items concurrently, replacing each failure by the next item.

    A dead link is replaced by the next candidate while items remain. Which items are fetched
    depends only on which fail, never on timing, and both lists are in input order.
    ``fetch_one`` raising FetchError gives a FetchFailure for the item's URL (its ``url`` key or
    attribute).
    """
    done = await run_until(items, want, fetch_one, concurrency=concurrency)
    done.sort(key=lambda d: d[0])
    pages = [(item, r) for _, item, r in done if isinstance(r, RawPage)]
    failures = [(item, r) for _, item, r in done if isinstance(r, FetchFailure)]
    return pages, failures


async def run_until(
    items: Sequence[T],
    want: int,
    fetch_one: Callable[[T], Awaitable[RawPage]],
    *,
    concurrency: int,
) -> list[tuple[int, T, RawPage | FetchFailure]]:
    """Results (index, item, page or failure) of the shortest prefix of ``items`` that holds
    ``want`` pages (or all items), at most ``concurrency`` in flight."""
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency!r}")

    async def attempt(item: T) -> RawPage | FetchFailure:
        try:
            return await fetch_one(item)
        except FetchError as exc:
            return FetchFailure(_item_url(item), exc.reason, exc.detail)

    results: list[tuple[int, T, RawPage | FetchFailure]] = []
    running: dict[asyncio.Task[RawPage | FetchFailure], int] = {}
    successes = 0
    next_index = 0
    try:
        while True:
            while (
                next_index < len(items)
                and len(running) < concurrency
                and successes + len(running) < want
            ):
                running[asyncio.ensure_future(attempt(items[next_index]))] = next_index
                next_index += 1
            if not running:
                return results
            finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                index = running.pop(task)
                result = task.result()
                successes += isinstance(result, RawPage)
                results.append((index, items[index], result))
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
