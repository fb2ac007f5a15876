"""Progress events on LangGraph's custom stream; the command, Studio and SDK see the same."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

__all__ = ["emit"]


def emit(runtime: Runtime[Any], state: Mapping[str, Any], phase: str, message: str = "") -> None:
    """Write one progress event describing ``state`` (merged with the node's update)."""
    settings = state.get("settings") or {}
    evidence = state.get("evidence") or []
    runtime.stream_writer(
        {
            "event": "progress",
            "phase": phase,
            "round": state.get("round", 0),
            "max_rounds": settings.get("max_rounds", 0),
            "queries": list(state.get("queries") or []),
            "sources_found": len(state.get("candidates") or []),
            "sources_fetched": len(state.get("fetched") or []),
            "sources_failed": len(state.get("failed") or []),
            "quotes_verified": sum(1 for e in evidence if e["verification"]["status"] == "PASS"),
            "message": message,
        }
    )
