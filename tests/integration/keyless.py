"""The environment of a new user with no provider keys and no quotebound settings, whose
cache and data directories lie under a test's own folder: what the command's subprocess tests
run it with."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["keyless_env"]


def keyless_env(home: Path) -> dict[str, str]:
    """This process's environment without keys or ``QUOTEBOUND_*`` settings, its home, cache
    and data directories under ``home``, colour off."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"TAVILY_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"}
        and not k.startswith("QUOTEBOUND_")
    }
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_DATA_HOME=str(home / "data"),
        NO_COLOR="1",
    )
    return env
