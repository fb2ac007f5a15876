"""The run's time budget inside steps, and CPU work off the event loop.

A real LocalCorpus, a real InMemoryStore and the real graph. The slow step is the real
candidate extraction, made slow by a wrapper that sleeps past the deadline on the worker
thread: what the run then does is decided by the deadline, not by how fast this machine is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

import quotebound.graph.nodes.compose as compose_node
import quotebound.graph.nodes.extract_evidence as extract_node
import quotebound.graph.nodes.verify_evidence as verify_node
from quotebound.acquisition.corpus import LocalCorpus
from quotebound.context import make_context
from quotebound.graph.deps import Deps
from quotebound.interface.runner import run_research

QUESTION = "How long does the Tern cache keep an entry?"
PAGES = {
    "cache.md": "# Tern cache\n\nThe Tern cache keeps an entry for ten minutes after its last "
    "use, then drops it on the next lookup.\n",
    "faq.md": "# Tern FAQ\n\nThe Tern cache keeps each entry for ten minutes; a restart empties "
    "the Tern cache at once.\n",
}
BUDGET_S = 1.0


def _corpus(tmp_path: Path) -> LocalCorpus:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in PAGES.items():
        (root / name).write_text(text)
    return LocalCorpus(root, index_path=tmp_path / "index.sqlite")


async def _run(tmp_path: Path, **explicit: Any) -> dict[str, Any]:
    corpus = _corpus(tmp_path)
    context = make_context(
        "chat", composer="extractive", provider="corpus", corpus_dir="unused", **explicit
    )
    return await run_research(
        QUESTION, store=InMemoryStore(), context=context, deps=Deps(providers=[corpus])
    )


def _wrap(
    monkeypatch: pytest.MonkeyPatch, name: str, before: Callable[[], None]
) -> list[threading.Thread]:
    """Wrap ``name`` as the extract, verify or compose node module sees it: call ``before``
    first; record the thread it runs on."""
    node = {"verify_quote": verify_node, "compose_extractive": compose_node}.get(name, extract_node)
    real = getattr(node, name)
    threads: list[threading.Thread] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        before()
        return real(*args, **kwargs)

    monkeypatch.setattr(node, name, wrapped)
    return threads


async def test_the_budget_is_checked_inside_a_slow_step_and_the_run_stops_with_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first page's extraction outlasts the whole budget, as a huge page's parse would.
    _wrap(monkeypatch, "extract_candidates", lambda: time.sleep(BUDGET_S + 0.2))
    out = await _run(tmp_path, time_budget_s=BUDGET_S)
    audit = out["audit"]
    assert audit["stop_reason"] == "timeout"
    assert out["status"] == "insufficient_evidence"
    assert out["findings"] == []
    warnings = " ".join(audit["warnings"])
    assert "extract_evidence: time budget spent; 1 page(s) not read" in warnings
    assert "verify_evidence: time budget spent" in warnings
    assert "time budget" in out["report_markdown"] or "timeout" in out["report_markdown"]


async def test_the_same_run_within_its_budget_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = await _run(tmp_path, time_budget_s=60.0)
    assert out["status"] == "answered"
    assert out["audit"]["stop_reason"] != "timeout"


async def test_extraction_ranking_verification_and_composition_run_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread = threading.current_thread()
    cut = _wrap(monkeypatch, "extract_candidates", lambda: None)
    ranked = _wrap(monkeypatch, "rank_pages", lambda: None)
    verified = _wrap(monkeypatch, "verify_quote", lambda: None)
    composed = _wrap(monkeypatch, "compose_extractive", lambda: None)
    out = await _run(tmp_path)
    assert out["status"] == "answered"
    for threads in (cut, ranked, verified, composed):
        assert threads
        assert loop_thread not in threads
