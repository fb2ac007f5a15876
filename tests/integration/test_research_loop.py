"""The agentic loop (issue 6 acceptance): rounds, budgets, planner fallback, conflicts, events.

Every run uses a real LocalCorpus index on disk (copied from ``loop_corpus/`` into tmp_path), a
real InMemoryStore and the real graph; only the LLM is replaced, by langchain-core's scripted
``FakeListChatModel`` (the planner consumes its first reply, then evaluate, then compose).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.context import PROFILES, Context, make_context
from quotebound.graph.build import build_graph
from quotebound.graph.deps import Deps
from quotebound.graph.nodes.evaluate import evaluate
from quotebound.interface.runner import run_research

LOOP_CORPUS = Path(__file__).parent / "loop_corpus"
BASE = "https://docs.example.org/"

MULTIHOP = (
    "Which organisation maintains the Zephyr parser, and in which city is that organisation "
    "headquartered?"
)
CITY_PART = "in which city is that organisation headquartered"
UNANSWERABLE_PART = (
    "Which organisation maintains the Zephyr parser, and how large is the annual budget of that "
    "organisation?"
)
MAINTAINER_DOC = BASE + "zephyr-governance.md"
CITY_DOC = BASE + "about-us.md"
MAINTAINER_QUOTE = (
    "The Zephyr parser is maintained by the Orion Foundation, which took over stewardship from "
    "the project's original author and now reviews every change before a release is tagged."
)
TERN = "What is the default Tern timeout?"
CHAT_SHORT = 3
"""Sources a chat run may read when the budget must run out before the city's page: round 1
reads three, so no round reads a name the first one verified."""

CorpusFactory = Callable[..., LocalCorpus]


@pytest.fixture
def make_corpus(tmp_path: Path) -> CorpusFactory:
    """A LocalCorpus of ``loop_corpus/<name>`` (only ``files`` when given), indexed in tmp_path
    for search by terms alone: the loop's rounds are under test here, on pages a search by
    terms reaches only once an earlier round has verified a name (search by meaning is
    ``test_corpus.py``'s)."""

    def make(name: str, files: tuple[str, ...] = ()) -> LocalCorpus:
        root = tmp_path / name
        if files:
            root.mkdir()
            for f in files:
                shutil.copy(LOOP_CORPUS / name / f, root / f)
        else:
            shutil.copytree(LOOP_CORPUS / name, root)
        corpus = LocalCorpus(root, base_url=BASE, index_path=tmp_path / f"{name}.sqlite")
        corpus.refresh(vectors=False)
        return corpus

    return make


def _context(profile: str, *, model: Any = None, **explicit: Any) -> Context:
    composer = "llm" if model is not None else "extractive"
    return make_context(
        profile, composer=composer, provider="corpus", corpus_dir="unused", **explicit
    )


async def _run(
    corpus: LocalCorpus,
    question: str,
    profile: str = "chat",
    *,
    model: Any = None,
    events: list[dict[str, Any]] | None = None,
    **explicit: Any,
) -> dict[str, Any]:
    return await run_research(
        question,
        store=InMemoryStore(),
        checkpointer=InMemorySaver(),
        thread_id="loop",
        context=_context(profile, model=model, **explicit),
        deps=Deps(providers=[corpus], chat_model=model),
        on_event=events.append if events is not None else None,
    )


def _fetched(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in out["sources"] if s["fetch_status"] == "fetched"]


# --- multi-hop: the second document is only reachable through a name the first one gives ------
# The corpus holds more pages about cities, organisations and headquarters than a search returns,
# none naming the Orion Foundation: the city's page is not among the results for the question's
# words alone, so no reading order (lexical or by meaning) can reach it before the name is known.


async def test_deep_follows_the_maintainer_to_its_headquarters(make_corpus: CorpusFactory) -> None:
    out = await _run(make_corpus("multihop"), MULTIHOP, "deep")
    audit = out["audit"]
    assert out["status"] == "answered", out["report_markdown"]
    cited = {f["url"] for f in out["findings"]}
    assert {MAINTAINER_DOC, CITY_DOC} <= cited
    assert any("Lisbon" in f["quote"] for f in out["findings"] if f["url"] == CITY_DOC)
    assert len(audit["rounds"]) > 1
    assert audit["stop_reason"] == "sufficient"
    # Round 2 went after the uncovered part with the name round 1 verified.
    assert audit["rounds"][0]["gaps"] == [CITY_PART]
    assert any("Orion Foundation" in q for q in audit["rounds"][1]["queries"])
    city_source = next(s for s in _fetched(out) if s["url"] == CITY_DOC)
    assert city_source["round"] > 1
    # A source read in one round is never read again.
    ids = [s["source_id"] for s in out["sources"]]
    assert len(ids) == len(set(ids))


async def test_chat_stops_within_its_budget_with_a_partial_answer(
    make_corpus: CorpusFactory,
) -> None:
    out = await _run(make_corpus("multihop"), MULTIHOP, "chat", max_sources=CHAT_SHORT)
    audit = out["audit"]
    assert len(audit["rounds"]) <= PROFILES["chat"]["max_rounds"]
    assert len(_fetched(out)) <= CHAT_SHORT
    assert out["status"] in ("answered", "insufficient_evidence")
    assert audit["stop_reason"] == "budget_exhausted"
    # What it did verify is reported; the city it never read is named as missing, not invented.
    assert {f["url"] for f in out["findings"]} == {MAINTAINER_DOC}
    assert audit["rounds"][-1]["gaps"] == [CITY_PART]
    assert "Lisbon" not in out["report_markdown"]
    assert "Lisbon" not in json.dumps(out["findings"])


async def test_partial_answer_names_the_uncovered_part_in_the_report(
    make_corpus: CorpusFactory,
) -> None:
    # Right under the direct answer, the report names the part it found no answer to, and its
    # confidence line says that part of the question is not answered.
    out = await _run(make_corpus("multihop"), MULTIHOP, "chat", max_sources=CHAT_SHORT)
    assert out["status"] == "answered"
    section = out["report_markdown"].split("## Direct answer", 1)[1]
    assert f"Not answered: {CITY_PART}." in section.split("## Verified findings", 1)[0]
    assert "part of the question not answered" in out["report_markdown"]


# --- budgets ---------------------------------------------------------------------------------

TIGHT: dict[str, Any] = {
    "max_rounds": 3,
    "max_queries": 1,
    "max_sources": 3,
    "sources_per_round": 1,
}


@pytest.mark.parametrize(
    ("profile", "explicit"),
    [("chat", {}), ("deep", {}), ("deep", TIGHT), ("chat", {"max_rounds": 1})],
    ids=["chat", "deep", "deep-tight", "chat-one-round"],
)
async def test_rounds_queries_and_sources_stay_within_budget(
    make_corpus: CorpusFactory, profile: str, explicit: dict[str, Any]
) -> None:
    out = await _run(make_corpus("multihop"), UNANSWERABLE_PART, profile, **explicit)
    limits = {**PROFILES[profile], **explicit}
    audit = out["audit"]
    rounds = audit["rounds"]
    assert {k: audit["settings"][k] for k in limits} == limits
    assert 1 <= len(rounds) <= limits["max_rounds"]
    assert all(len(r["queries"]) <= limits["max_queries"] for r in rounds)
    assert all(r["fetched"] + r["failed"] <= limits["sources_per_round"] for r in rounds)
    assert len(_fetched(out)) <= limits["max_sources"]
    asked = [q for r in rounds for q in r["queries"]]
    assert len(audit["provider_runs"]) == len(asked)  # one provider: one run per query
    assert [r["query"] for r in audit["provider_runs"]] == asked
    assert out["status"] == "answered"  # the maintainer part is answerable
    assert audit["stop_reason"] in ("budget_exhausted", "no_new_evidence")


async def test_tight_budget_is_what_stops_the_run(make_corpus: CorpusFactory) -> None:
    out = await _run(make_corpus("multihop"), UNANSWERABLE_PART, "deep", **TIGHT)
    audit = out["audit"]
    assert audit["stop_reason"] == "budget_exhausted"
    assert len(_fetched(out)) == TIGHT["max_sources"]
    assert [r["fetched"] for r in audit["rounds"]] == [1, 1, 1]


# --- the planner: invalid model output falls back to the deterministic planner -------------

COMPOSE_30 = json.dumps(
    {
        "answer": "The default Tern timeout is 30 seconds.",
        "claims": [{"claim": "The default Tern timeout is 30 seconds.", "evidence_ids": [1]}],
    }
)


@pytest.mark.parametrize(
    "plan_reply",
    [
        "I would search for the Tern documentation first.",
        '{"queries": "Tern default timeout"}',
        '["Tern default timeout"]',
        '{"queries": [], "coverage_gaps": []}',
        '{"queries": ["Tern timeout"], "coverage_gaps": "everything"}',
    ],
    ids=["prose", "queries-not-a-list", "array", "no-queries", "gaps-not-a-list"],
)
async def test_invalid_planner_output_falls_back_with_a_warning(
    make_corpus: CorpusFactory, plan_reply: str
) -> None:
    corpus = make_corpus("conflict", ("tern-guide.md", "tern-faq.md"))
    model = FakeListChatModel(responses=[plan_reply, COMPOSE_30])
    out = await _run(corpus, TERN, model=model)
    audit = out["audit"]
    assert any("planner output invalid" in w for w in audit["warnings"]), audit["warnings"]
    assert audit["rounds"][0]["queries"] == [TERN]  # the deterministic planner's first query
    assert out["status"] == "answered"
    assert audit["composer"] == "llm"
    assert "30 seconds" in out["findings"][0]["quote"]


async def test_valid_planner_output_is_used_without_a_warning(make_corpus: CorpusFactory) -> None:
    corpus = make_corpus("conflict", ("tern-guide.md", "tern-faq.md"))
    plan = json.dumps({"queries": ["Tern timeout seconds"], "coverage_gaps": [], "reason": "x"})
    out = await _run(corpus, TERN, model=FakeListChatModel(responses=[plan, COMPOSE_30]))
    assert out["audit"]["rounds"][0]["queries"] == ["Tern timeout seconds"]
    assert not any("planner" in w for w in out["audit"]["warnings"])
    assert out["status"] == "answered"


# --- conflicts --------------------------------------------------------------------------------


async def test_pages_that_disagree_on_a_number_form_a_conflict_group(
    make_corpus: CorpusFactory,
) -> None:
    out = await _run(make_corpus("conflict", ("tern-guide.md", "tern-blog.md")), TERN)
    assert out["status"] == "answered"
    (group,) = out["audit"]["conflicts"]
    sides = {s["url"]: s for s in group["sides"]}
    assert set(sides) == {BASE + "tern-guide.md", BASE + "tern-blog.md"}
    assert sides[BASE + "tern-guide.md"]["values"] == ["30"]
    assert sides[BASE + "tern-blog.md"]["values"] == ["60"]
    section = out["report_markdown"].split("## Conflicts and uncertainty", 1)[1]
    section = section.split("## Sources", 1)[0]
    assert "Sources disagree on" in section
    for side in group["sides"]:
        assert " ".join(side["quote"].split()) in section  # the report folds line breaks
        assert side["url"] in section


async def test_pages_that_agree_form_no_conflict_group(make_corpus: CorpusFactory) -> None:
    out = await _run(make_corpus("conflict", ("tern-guide.md", "tern-faq.md")), TERN)
    assert out["status"] == "answered"
    assert len({f["url"] for f in out["findings"]}) == 2
    assert out["audit"]["conflicts"] == []
    section = out["report_markdown"].split("## Conflicts and uncertainty", 1)[1]
    assert section.split("## Sources", 1)[0].strip() == "None found."


# --- progress events on the custom stream -------------------------------------------------

ROUND_PHASES = ["plan", "search", "fetch", "extract_evidence", "verify_evidence", "evaluate"]


async def test_custom_stream_yields_ordered_progress_for_every_round(
    make_corpus: CorpusFactory,
) -> None:
    deps = Deps(providers=[make_corpus("multihop")])
    graph = build_graph(deps).compile(store=InMemoryStore(), checkpointer=InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": "stream"}}
    events: list[dict[str, Any]] = []
    async for chunk in graph.astream(
        {"question": MULTIHOP}, config, context=_context("deep"), stream_mode="custom"
    ):
        events.append(chunk)
    phases = [e["phase"] for e in events]
    assert phases[0] == "check_store"
    assert phases[-1] == "finalize"
    assert all(e["event"] == "progress" and e["max_rounds"] == 6 for e in events)
    rounds = max(e["round"] for e in events)
    assert rounds > 1
    for r in range(1, rounds + 1):
        in_round = [e["phase"] for e in events if e["round"] == r and e["phase"] in ROUND_PHASES]
        assert in_round == ROUND_PHASES, (r, in_round)
    # Rounds run in order; the composition follows the last evaluation.
    loop = [(e["round"], e["phase"]) for e in events if e["phase"] in ROUND_PHASES]
    assert loop == sorted(loop, key=lambda t: (t[0], ROUND_PHASES.index(t[1])))
    assert phases[-4:] == ["evaluate", "compose", "quality_review", "finalize"]
    sources = (await graph.aget_state(config)).values["sources"]
    fetched = sum(1 for s in sources if s["fetch_status"] == "fetched")
    assert events[-1]["sources_fetched"] == fetched > 1


# --- evaluate: the model's judgment on top of the deterministic signals -------------------


async def _state_before_first_evaluate(corpus: LocalCorpus) -> tuple[dict[str, Any], Context]:
    """The real state of a chat run on the multi-hop corpus, paused before round 1's evaluate:
    the maintainer is verified, the city is not, budget is left (the signals say "search")."""
    context = _context("chat")
    graph = build_graph(Deps(providers=[corpus])).compile(
        store=InMemoryStore(), checkpointer=InMemorySaver(), interrupt_before=["evaluate"]
    )
    config: RunnableConfig = {"configurable": {"thread_id": "judge"}}
    await graph.ainvoke({"question": MULTIHOP}, config, context=context)
    state = dict((await graph.aget_state(config)).values)
    state["deadline"] = time.time() + 60
    return state, context


async def _evaluate_with(state: dict[str, Any], context: Context, replies: list[str]) -> Any:
    """Run the evaluate node in LLM mode with a scripted model."""
    state = {**state, "settings": {**state["settings"], "composer": "llm"}}
    deps = Deps(chat_model=FakeListChatModel(responses=replies), providers=[])
    return await evaluate(state, Runtime(context=context), deps=deps)  # type: ignore[arg-type]


async def test_model_judgment_can_end_the_search(make_corpus: CorpusFactory) -> None:
    state, context = await _state_before_first_evaluate(make_corpus("multihop"))
    reply = json.dumps({"decision": "compose", "reason": "the maintainer is what matters"})
    update = await _evaluate_with(state, context, [reply])
    assert update["decision"] == "compose"
    assert update["stop_reason"] == "sufficient"
    record = update["rounds"][-1]
    assert record["decision"] == "compose"
    assert "the maintainer is what matters" in record["reason"]
    assert CITY_PART in record["reason"]  # the signals' reason is kept beside the model's


async def test_model_judgment_agreeing_keeps_searching(make_corpus: CorpusFactory) -> None:
    state, context = await _state_before_first_evaluate(make_corpus("multihop"))
    reply = json.dumps({"decision": "search", "reason": "the city is still unknown"})
    update = await _evaluate_with(state, context, [reply])
    assert update["decision"] == "search"
    assert "stop_reason" not in update
    assert "the city is still unknown" in update["rounds"][-1]["reason"]


async def test_model_judgment_can_continue_after_no_new_evidence(
    make_corpus: CorpusFactory,
) -> None:
    state, context = await _state_before_first_evaluate(make_corpus("multihop"))
    state.update(round=2, new_candidates=0, settings={**state["settings"], "max_rounds": 4})
    reply = json.dumps({"decision": "search", "reason": "try the foundation's own pages"})
    update = await _evaluate_with(state, context, [reply])
    assert update["decision"] == "search"
    assert "the last round found nothing new" in update["rounds"][-1]["reason"]
    assert "try the foundation's own pages" in update["rounds"][-1]["reason"]


@pytest.mark.parametrize(
    "spent",
    [{"round": 2}, {"deadline": 0.0}, {"settings_max_sources": 3}],
    ids=["rounds", "time", "sources"],
)
async def test_model_judgment_never_overrides_a_budget_stop(
    make_corpus: CorpusFactory, spent: dict[str, Any]
) -> None:
    state, context = await _state_before_first_evaluate(make_corpus("multihop"))
    if "settings_max_sources" in spent:
        state["settings"] = {**state["settings"], "max_sources": spent["settings_max_sources"]}
    else:
        state.update(spent)
    reply = json.dumps({"decision": "search", "reason": "keep going"})
    update = await _evaluate_with(state, context, [reply])
    assert update["decision"] == "compose"
    assert update["stop_reason"] in ("budget_exhausted", "timeout")
    assert "keep going" not in update["rounds"][-1]["reason"]


@pytest.mark.parametrize(
    "reply",
    ["Let's compose now.", '{"decision": "maybe"}', '{"decision": "compose", "reason": 3}', "[]"],
    ids=["prose", "unknown-decision", "reason-not-text", "array"],
)
async def test_invalid_model_judgment_keeps_the_signals_decision(
    make_corpus: CorpusFactory, reply: str
) -> None:
    state, context = await _state_before_first_evaluate(make_corpus("multihop"))
    update = await _evaluate_with(state, context, [reply])
    assert update["decision"] == "search"
    assert any("model judgment invalid" in w for w in update["warnings"])


async def test_without_a_model_evaluate_follows_the_signals(make_corpus: CorpusFactory) -> None:
    state, context = await _state_before_first_evaluate(make_corpus("multihop"))
    update = await evaluate(state, Runtime(context=context))  # type: ignore[arg-type]
    assert update["decision"] == "search"
    assert "model" not in update["rounds"][-1]["reason"]


async def test_model_judgment_ends_the_loop_through_the_graph(make_corpus: CorpusFactory) -> None:
    plan = json.dumps({"queries": ["Which organisation maintains the Zephyr parser"]})
    judge = json.dumps({"decision": "compose", "reason": "the maintainer is what matters"})
    compose = json.dumps(
        {
            "answer": "The Zephyr parser is maintained by the Orion Foundation.",
            "claims": [
                {
                    "claim": "The Zephyr parser is maintained by the Orion Foundation.",
                    "evidence_ids": [1],
                    "quote": MAINTAINER_QUOTE,
                }
            ],
        }
    )
    model = FakeListChatModel(responses=[plan, judge, compose])
    out = await _run(make_corpus("multihop"), MULTIHOP, "deep", model=model)
    rounds = out["audit"]["rounds"]
    assert len(rounds) == 1
    assert "the maintainer is what matters" in rounds[0]["reason"]
    assert out["status"] == "answered"
