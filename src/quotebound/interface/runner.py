"""Running the graph from Python: one call that streams progress and returns the output."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore
from langgraph.types import StreamMode

from quotebound.context import Context
from quotebound.errors import ConfigError
from quotebound.graph.build import build_graph
from quotebound.graph.deps import Deps
from quotebound.graph.state import OutputState, validate_question
from quotebound.records import EvidenceItem
from quotebound.storage.rawstore import validate_thread_id

__all__ = ["OUTPUT_KEYS", "load_evidence", "load_run", "resume_research", "run_research"]

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
    final = await _stream(graph, {"question": question}, config, context or Context(), on_event)
    return _output(final, thread_id)


async def resume_research(
    thread_id: str,
    *,
    store: BaseStore,
    checkpointer: BaseCheckpointSaver,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    deps: Deps | None = None,
) -> dict[str, Any]:
    """Continue the interrupted run of ``thread_id`` from its last checkpoint (a process
    killed or stopped mid-run) and return its output, as :func:`run_research` does.

    The run keeps its question and settings and gets its whole time budget again, counted
    from now. Raises ConfigError when the thread has no run, or its last run finished (a new
    run on the thread starts afresh; there is nothing to continue)."""
    thread_id = validate_thread_id(thread_id)
    graph = build_graph(deps).compile(store=store, checkpointer=checkpointer)
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    snapshot = await graph.aget_state(config)
    if not snapshot.values:
        raise ConfigError(f"no run to resume on thread {thread_id!r} (never run there, or pruned)")
    if not snapshot.next:
        raise ConfigError(
            f"the run on thread {thread_id!r} finished; nothing to resume "
            "(run a question on it to start afresh)"
        )
    if "settings" not in snapshot.values:  # its settings were never resolved, so not kept
        raise ConfigError(
            f"the run on thread {thread_id!r} stopped before it started; run its question again"
        )
    settings = Context(**snapshot.values["settings"])
    budget = float(settings.time_budget_s or 0)
    await graph.aupdate_state(config, {"deadline": time.time() + budget})
    final = await _stream(graph, None, config, settings, on_event)
    return _output(final, thread_id)


async def _stream(
    graph: Any,
    graph_input: dict[str, Any] | None,
    config: RunnableConfig,
    context: Context,
    on_event: Callable[[dict[str, Any]], None] | None,
) -> dict[str, Any]:
    """Run ``graph`` (from ``graph_input``, or on from its last checkpoint for None), sending
    progress events to ``on_event``; the final state."""
    modes: list[StreamMode] = ["custom", "values"]
    final: dict[str, Any] = {}
    async for mode, chunk in graph.astream(
        graph_input, config=config, context=context, stream_mode=modes
    ):
        if mode == "custom" and on_event is not None:
            on_event(cast(dict[str, Any], chunk))
        elif mode == "values":
            final = cast(dict[str, Any], chunk)
    return final


async def load_run(thread_id: str, *, checkpointer: BaseCheckpointSaver) -> dict[str, Any] | None:
    """A past run's output from the checkpointer, or None when the thread has no finished run."""
    values = await _finished(thread_id, checkpointer)
    return None if values is None else _output(values, thread_id)


async def load_evidence(
    thread_id: str, *, checkpointer: BaseCheckpointSaver
) -> list[EvidenceItem] | None:
    """A past run's evidence records (each quote it checked, with its verification, PASS or
    FAIL: the set the audit's ``evidence_sha256`` covers), or None when it has no finished run."""
    values = await _finished(thread_id, checkpointer)
    return None if values is None else list(values.get("evidence") or [])


async def _finished(thread_id: str, checkpointer: BaseCheckpointSaver) -> dict[str, Any] | None:
    """The state of the thread's finished run, or None."""
    graph = build_graph().compile(checkpointer=checkpointer)
    snapshot = await graph.aget_state(
        {"configurable": {"thread_id": validate_thread_id(thread_id)}}
    )
    if not snapshot.values or "report_markdown" not in snapshot.values:
        return None
    return dict(snapshot.values)
