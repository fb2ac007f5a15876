"""robots.txt, fetched once per origin and honoured by the fetcher (DESIGN §7).

The file is parsed with the standard library's :class:`urllib.robotparser.RobotFileParser`.
A missing file (any 4xx) or one that cannot be fetched allows everything: robots.txt is a
request from the site, and an unreachable one says nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from urllib.robotparser import RobotFileParser

__all__ = ["RobotsCache", "RobotsLoader", "parse_robots"]

RobotsLoader = Callable[[str], Awaitable[str | None]]
"""``origin -> robots.txt text``, or None when the site has none or it cannot be read."""


def parse_robots(text: str | None) -> RobotFileParser:
    """A parser for ``text``; None means no robots.txt, which allows everything."""
    parser = RobotFileParser()
    parser.parse(text.splitlines() if text is not None else [])  # no rules: all allowed
    return parser


class RobotsCache:
    """robots.txt rules per origin, loaded at most once even under concurrent fetches."""

    def __init__(self, load: RobotsLoader, *, user_agent: str) -> None:
        self._load = load
        self._user_agent = user_agent
        self._tasks: dict[str, asyncio.Task[RobotFileParser]] = {}

    async def allows(self, origin: str, url: str) -> bool:
        """Whether robots.txt of ``origin`` lets our user agent fetch ``url``."""
        task = self._tasks.get(origin)
        if task is None:
            task = asyncio.ensure_future(self._parse(origin))
            self._tasks[origin] = task
        # Shielded: one fetch that gives up must not cancel the load other fetches wait for.
        parser = await asyncio.shield(task)
        return parser.can_fetch(self._user_agent, url)

    async def _parse(self, origin: str) -> RobotFileParser:
        return parse_robots(await self._load(origin))

    async def aclose(self) -> None:
        """Cancel loads still running (their fetches have all given up)."""
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
