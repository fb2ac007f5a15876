"""Live progress of a research run on stderr.

A terminal gets one rich status line that updates in place; a pipe or file gets one plain line
per event, so logs and tests can read them. Progress never goes to stdout: stdout is the report.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import TracebackType
from typing import Any, TextIO

from rich.console import Console
from rich.status import Status
from rich.text import Text

__all__ = ["Progress", "describe"]


def describe(event: Mapping[str, Any]) -> str:
    """One line for a progress event: phase, round, source counts, verified quotes, message."""
    parts = [f"[{event.get('phase', '?')}]"]
    if event.get("round"):
        rounds = event.get("max_rounds")
        parts.append(f"round {event['round']}/{rounds}" if rounds else f"round {event['round']}")
    parts.append(
        f"sources found {event.get('sources_found', 0)}, fetched {event.get('sources_fetched', 0)}"
        f", failed {event.get('sources_failed', 0)}"
    )
    parts.append(f"quotes verified {event.get('quotes_verified', 0)}")
    if event.get("message"):
        parts.append(str(event["message"]))
    return " · ".join(parts)


class Progress:
    """Shows progress events and notes on ``stream``; silent when not ``enabled``.

    Use as a context manager so a terminal's status line is removed at the end.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = enabled
        self._console = Console(file=self._stream, highlight=False, soft_wrap=True)
        self._status: Status | None = None

    @property
    def live(self) -> bool:
        """True when progress is an updating status line (stderr is a terminal)."""
        return self._enabled and self._console.is_terminal

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def event(self, event: Mapping[str, Any]) -> None:
        """Show a research progress event (the graph's ``on_event`` callback)."""
        if not self._enabled:
            return
        line = describe(event)
        if not self.live:
            print(f"quotebound: {line}", file=self._stream, flush=True)
        elif self._status is None:
            self._status = self._console.status(Text(line))
            self._status.start()
        else:
            self._status.update(Text(line))

    def note(self, message: str) -> None:
        """Show a one-off line (indexing a corpus, where the run was stored)."""
        if not self._enabled:
            return
        if self.live:
            self._console.print(message, markup=False)
        else:
            print(f"quotebound: {message}", file=self._stream, flush=True)
