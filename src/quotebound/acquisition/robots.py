"""robots.txt, fetched once per origin and honoured by the fetcher (docs/architecture.md §7).

The file is parsed with the standard library's :class:`urllib.robotparser.RobotFileParser`.
As RFC 9309 asks: a file that is unavailable (any 4xx) allows everything, and one that is
unreachable (a 5xx, a network failure, a timeout) disallows everything, since the site may be
overloaded or the rules simply not readable right now.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from urllib.robotparser import RobotFileParser

__all__ = ["RobotsCache", "RobotsLoader", "parse_robots"]

RobotsLoader = Callable[[str], Awaitable[str | None]]
"""``origin -> robots.txt text`` ("" when the site has none), or None when it is unreachable."""


def parse_robots(text: str) -> RobotFileParser:
    """A parser for ``text`` ("" has no rules: all allowed)."""
    parser = RobotFileParser()
    parser.parse(text.splitlines())
    return parser


class RobotsCache:
    """robots.txt rules per origin, loaded at most once even under concurrent fetches."""

    def __init__(self, load: RobotsLoader, *, user_agent: str) -> None:
        self._load = load
        self._user_agent = user_agent
        self._tasks: dict[str, asyncio.Task[RobotFileParser | None]] = {}

    async def refusal(self, origin: str, url: str) -> str | None:
        """Why robots.txt of ``origin`` forbids our user agent to fetch ``url``; None if allowed."""
        task = self._tasks.get(origin)
        if task is None:
            task = asyncio.ensure_future(self._parse(origin))
            self._tasks[origin] = task
        # Shielded: one fetch that gives up must not cancel the load other fetches wait for.
        parser = await asyncio.shield(task)
        if parser is None:
            return "robots.txt is unreachable (server error or no answer), which disallows all"
        return None if parser.can_fetch(self._user_agent, url) else "robots.txt disallows"

    async def _parse(self, origin: str) -> RobotFileParser | None:
        text = await self._load(origin)
        return None if text is None else parse_robots(text)

    async def aclose(self) -> None:
        """Cancel loads still running (their fetches have all given up)."""
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
