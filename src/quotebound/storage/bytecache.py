"""One byte budget for the caches of derived objects: parsed pages, verification indexes, vectors.

A page is parsed, normalized and indexed once and then read by several steps of a run (fetch,
extraction, verification, review), so these results are worth keeping; but they are as large as
the pages they come from, and a server runs many threads at once. Every such cache is a
:func:`memoize`\\ d function sharing one least-recently-used store bounded in estimated bytes,
``QUOTEBOUND_CACHE_MB`` megabytes (10^6 bytes) in all, 64 by default. A result larger than a
quarter of the budget is not kept among the others, so one huge page never evicts everything
else; instead each cached function keeps its latest such result on its own, beside the budget,
until its next one takes the place. The steps of a run on one huge page (fetch, extraction,
verification of each quote) then parse and index it once rather than once each, which costs
less time and less memory: every step needs the page anyway, and each parse's scaffolding
(the markup's tree, the pieces of text) is several times the page. Thread-safe: values are
computed outside the lock, so two threads may compute the same one.
"""

from __future__ import annotations

import os
import sys
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from functools import wraps
from typing import Any, ParamSpec, TypeVar, cast

from quotebound.errors import ConfigError

__all__ = [
    "DEFAULT_BUDGET_MB",
    "ByteCache",
    "array_bytes",
    "configure",
    "memoize",
    "shared",
    "str_bytes",
]

DEFAULT_BUDGET_MB = 64.0
"""The default budget, in megabytes, of all the caches together."""
_LARGEST_SHARE = 4
"""A value costing more than budget / this is not kept."""

_T = TypeVar("_T")
_P = ParamSpec("_P")


def str_bytes(text: str) -> int:
    """The bytes ``text`` takes in memory (its encoding is 1, 2 or 4 bytes a character)."""
    return sys.getsizeof(text)


def array_bytes(values: Iterable[array[Any]]) -> int:
    """The bytes of the buffers of ``values``."""
    return sum(a.buffer_info()[1] * a.itemsize for a in values)


class ByteCache:
    """A least-recently-used store whose entries' estimated sizes add up to at most a budget."""

    def __init__(self, budget_bytes: int) -> None:
        if budget_bytes < 0:
            raise ValueError(f"a cache budget cannot be negative, got {budget_bytes}")
        self.budget = budget_bytes
        self.used = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._outsized: dict[Hashable, tuple[Hashable, Any]] = {}
        """Per kind, the latest value over a quarter of the budget: (key, value)."""
        self._lock = threading.Lock()

    def get(self, key: Hashable, kind: Hashable = None) -> tuple[bool, Any]:
        """``(True, value)`` when ``key`` is kept (it becomes the most recent), or is the
        latest outsized value of ``kind``; else ``(False, None)``."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return True, entry[0]
            outsized = self._outsized.get(kind)
        if outsized is not None and outsized[0] == key:  # compared outside the lock
            return True, outsized[1]
        return False, None

    def put(self, key: Hashable, value: Any, cost: int, kind: Hashable = None) -> None:
        """Keep ``value`` under ``key`` at ``cost`` bytes, evicting the least recent entries
        as needed; a value over a quarter of the budget is kept outside it instead, as the
        latest of its ``kind`` (replacing the one before), unless the budget is 0 (no cache)."""
        if cost > self.budget // _LARGEST_SHARE:
            if self.budget:
                with self._lock:
                    self._outsized[kind] = (key, value)
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.used -= old[1]
            self._entries[key] = (value, cost)
            self.used += cost
            while self.used > self.budget:
                _, (_, freed) = self._entries.popitem(last=False)
                self.used -= freed

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._outsized.clear()
            self.used = 0


def _budget_from_env() -> int:
    raw = os.environ.get("QUOTEBOUND_CACHE_MB")
    if raw is None or not raw.strip():
        return int(DEFAULT_BUDGET_MB * 1_000_000)
    try:
        mb = float(raw)
    except ValueError:
        raise ConfigError(
            f"QUOTEBOUND_CACHE_MB must be a number of megabytes, got {raw!r}"
        ) from None
    if not 0 <= mb <= 1_000_000:
        raise ConfigError(f"QUOTEBOUND_CACHE_MB must be between 0 and 1000000, got {raw!r}")
    return int(mb * 1_000_000)


_shared: ByteCache | None = None
_shared_lock = threading.Lock()


def shared() -> ByteCache:
    """The one cache every :func:`memoize`\\ d function uses (its budget read from the
    environment on first use, unless :func:`configure` set one)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ByteCache(_budget_from_env())
        return _shared


def configure(budget_mb: float | None = None) -> ByteCache:
    """Start the shared cache afresh, empty, with a budget of ``budget_mb`` megabytes (None:
    from ``QUOTEBOUND_CACHE_MB``, else the default); for a host that sizes its own memory."""
    global _shared
    budget = _budget_from_env() if budget_mb is None else int(budget_mb * 1_000_000)
    with _shared_lock:
        _shared = ByteCache(budget)
        return _shared


def memoize(cost: Callable[[_T], int]) -> Callable[[Callable[_P, _T]], Callable[_P, _T]]:
    """Cache a function of hashable arguments in the shared byte budget; ``cost(result)``
    estimates the bytes a result keeps alive, to which the sizes of the key's texts are added
    (the key holds them: a page's whole markup, for a parse). The function's latest result
    too large for the budget is kept on its own (see the module's docstring)."""

    def decorate(function: Callable[_P, _T]) -> Callable[_P, _T]:
        name = f"{function.__module__}.{function.__qualname__}"

        @wraps(function)
        def cached(*args: _P.args, **kwargs: _P.kwargs) -> _T:
            key = (name, args, tuple(sorted(kwargs.items())))
            hit, value = shared().get(key, name)
            if hit:
                return cast(_T, value)
            value = function(*args, **kwargs)
            texts = [a for a in (*args, *kwargs.values()) if isinstance(a, str)]
            shared().put(key, value, cost(value) + sum(map(str_bytes, texts)), name)
            return value

        return cached

    return decorate
