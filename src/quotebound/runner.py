"""Running the graph from Python: one call that streams progress and returns the output."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from langgraph.types import StreamMode

from quotebound.context import Context
from quotebound.graph import build_graph
from quotebound.nodes.deps import Deps
from quotebound.rawstore import validate_thread_id
from quotebound.state import OutputState, validate_question

__all__ = ["OUTPUT_KEYS", "load_run", "run_research"]

OUTPUT_KEYS = tuple(OutputState.__annotations__)
"""The keys of a run's output (docs/architecture.md §6); the command's JSON adds ``thread_id``."""


def _output(values: dict[str, Any], thread_id: str | None) -> dict[str, Any]:
    return {**{k: values.get(k) for k in OUTPUT_KEYS}, "thread_id": thread_id}


async def run_research(
    question: str,
    *,
    store: BaseStore | None,
    checkpointer: BaseCheckpointSaver | None = None,
    thread_id: str | None = None,
    context: Context | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    deps: Deps | None = None,
) -> dict[str, Any]:
    """Research ``question`` and return the output keys plus ``thread_id``.

    With a store, pages are kept under ``(thread_id, "raw")`` (a new thread id when none is
    given); without one the run completes with nothing shown as verified. Raises ConfigError
    (a ValueError) at once for a question that is empty, too long or not valid Unicode text.
    """
    question = validate_question(question)
    if store is not None:
        thread_id = validate_thread_id(thread_id or uuid.uuid4().hex)
    graph = build_graph(deps).compile(store=store, checkpointer=checkpointer)
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}} if thread_id else {}
    modes: list[StreamMode] = ["custom", "values"]
    final: dict[str, Any] = {}
    async for mode, chunk in graph.astream(
        {"question": question},
        config=config,
        context=context or Context(),
        stream_mode=modes,
    ):
        if mode == "custom" and on_event is not None:
            on_event(cast(dict[str, Any], chunk))
        elif mode == "values":
            final = cast(dict[str, Any], chunk)
    return _output(final, thread_id)


async def load_run(thread_id: str, *, checkpointer: BaseCheckpointSaver) -> dict[str, Any] | None:
    """A past run's output from the checkpointer, or None when the thread has no finished run."""
    graph = build_graph().compile(checkpointer=checkpointer)
    snapshot = await graph.aget_state(
        {"configurable": {"thread_id": validate_thread_id(thread_id)}}
    )
    if not snapshot.values or "report_markdown" not in snapshot.values:
        return None
    return _output(snapshot.values, thread_id)
