"""Caches kept in the run database: what the search cache and the page cache share.

A cache is one Store namespace ``("quotebound:cache", name)`` (a label no thread id can take,
so retention never mistakes it for a run). Its entries are JSON objects with ``created`` and
``expires`` (seconds since the epoch): :func:`prune_cache` removes the expired ones, then the
oldest until the rest fit in a byte cap; :func:`clear_cache` removes them all. Whether an entry
is still usable before it expires is its cache's business. In front of the Store, entries
read or kept by this process sit in its shared byte-bounded cache (``QUOTEBOUND_CACHE_MB``),
under a generation per open store and cache, so clearing or pruning forgets them at once (a
server process that did not clear the cache forgets its copies as they are evicted).
"""

from __future__ import annotations

import json
import time
import uuid
import weakref
from typing import Any

from langgraph.store.base import BaseStore, PutOp

from quotebound.storage.bytecache import shared

__all__ = ["CACHE_LABEL", "StoreCache", "clear_cache", "entry_bytes", "prune_cache"]

CACHE_LABEL = "quotebound:cache"
_PAGE = 500


def entry_bytes(value: dict[str, Any]) -> int:
    """An entry's size as the byte caps count it: its JSON text."""
    return len(json.dumps(value))


class StoreCache:
    """The entries of the cache called ``name`` in ``store``."""

    def __init__(self, store: BaseStore, name: str) -> None:
        self.store = store
        self.name = name
        self.namespace = (CACHE_LABEL, name)

    async def get(self, key: str) -> dict[str, Any] | None:
        """The entry under ``key``, expired or not; None when there is none."""
        found, value = shared().get(self._memory_key(key))
        if found:  # None: deleted by this process
            return value
        item = await self.store.aget(self.namespace, key)
        if item is None:
            return None
        shared().put(self._memory_key(key), item.value, entry_bytes(item.value))
        return item.value

    async def put(self, key: str, value: dict[str, Any], size: int) -> None:
        """Keep ``value`` (``size`` bytes, from :func:`entry_bytes`) under ``key``."""
        await self.store.aput(self.namespace, key, value, index=False)
        shared().put(self._memory_key(key), value, size)

    async def delete(self, key: str) -> None:
        """Remove the entry under ``key``, if there is one."""
        await self.store.adelete(self.namespace, key)
        shared().put(self._memory_key(key), None, 0)

    def _memory_key(self, key: str) -> tuple[str, str, str, str]:
        """Where an entry sits in the process's shared cache, in front of the Store."""
        generations = _GENERATIONS.setdefault(self.store, {})
        return ("store-cache", self.name, generations.setdefault(self.name, _new()), key)


_GENERATIONS: weakref.WeakKeyDictionary[BaseStore, dict[str, str]] = weakref.WeakKeyDictionary()
"""Per open store and cache, the name its entries go under in the in-process layer; a new one
forgets them all."""


def _new() -> str:
    return uuid.uuid4().hex


def _forget(store: BaseStore, name: str) -> None:
    _GENERATIONS.setdefault(store, {})[name] = _new()


async def _entries(store: BaseStore, name: str) -> list[Any]:
    found: list[Any] = []
    while batch := await store.asearch((CACHE_LABEL, name), limit=_PAGE, offset=len(found)):
        found.extend(batch)
    return found


async def clear_cache(store: BaseStore, name: str) -> int:
    """Remove every entry of the cache ``name``; how many there were."""
    _forget(store, name)
    entries = await _entries(store, name)
    if entries:
        await store.abatch([PutOp((CACHE_LABEL, name), e.key, None) for e in entries])
    return len(entries)


async def prune_cache(
    store: BaseStore, name: str, *, max_bytes: int, now: float | None = None
) -> int:
    """Remove the expired entries of the cache ``name``, then the oldest until the rest fit
    in ``max_bytes``; how many went."""
    moment = time.time() if now is None else now
    entries = await _entries(store, name)
    doomed = [e for e in entries if float(e.value.get("expires", 0)) <= moment]
    gone = {e.key for e in doomed}
    alive = sorted(
        (e for e in entries if e.key not in gone),
        key=lambda e: float(e.value.get("created", 0)),
        reverse=True,
    )
    total = 0
    for entry in alive:
        total += entry_bytes(entry.value)
        if total > max_bytes:
            doomed.append(entry)
    if doomed:
        _forget(store, name)
        await store.abatch([PutOp((CACHE_LABEL, name), e.key, None) for e in doomed])
    return len(doomed)
