"""A page's JSON-LD read for the metadata the parser keeps.

The walk collects the text of every ``<script type="application/ld+json">``; this reads the
first ``author`` (a name), ``datePublished``, ``headline`` and ``articleBody`` among all their
items, including those of a ``@graph``. Scripts that are not valid JSON are skipped.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_ld"]


def json_ld(scripts: list[str]) -> dict[str, str]:
    """``author`` (a name), ``datePublished``, ``headline`` and ``articleBody`` from JSON-LD."""
    found: dict[str, str] = {}
    todo: list[Any] = []
    for script in scripts:
        try:
            todo.append(json.loads(script))
        except ValueError:
            continue
    while todo:
        item = todo.pop(0)
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            graph = item.get("@graph")
            if isinstance(graph, list):
                todo.extend(graph)
            for key in ("author", "datePublished", "articleBody", "headline"):
                value = _ld_name(item.get(key))
                if value and key not in found:
                    found[key] = value
    return found


def _ld_name(value: Any) -> str | None:
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict):
        value = value.get("name")
    return value if isinstance(value, str) else None
