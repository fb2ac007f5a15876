"""The research graph end to end on a local corpus (issue 4 acceptance), offline.

Every run uses a real LocalCorpus index on disk, a real InMemoryStore or SqliteStore, and the
real graph; only the LLM is replaced, by langchain-core's scripted fake chat models.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore
from markdown_it import MarkdownIt
from tern import BASE, CORPUS, tern_corpus

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.context import make_context
from quotebound.errors import ConfigError
from quotebound.evidence.encoder import MODEL_PACKAGE
from quotebound.evidence.verification import verify_quote
from quotebound.graph.build import build_graph
from quotebound.graph.deps import Deps
from quotebound.interface.runner import resume_research, run_research
from quotebound.storage.rawstore import get_raw_page, list_raw_pages, parsed_page

QUESTION = "What is the default timeout of the Tern client and how often does it retry?"


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    return tern_corpus(tmp_path)


def _one_page_corpus(tmp_path: Path, name: str, text: str) -> LocalCorpus:
    root = tmp_path / "docs"
    root.mkdir()
    (root / name).write_text(text)
    return LocalCorpus(root, base_url=BASE, index_path=tmp_path / "i.sqlite")


def _ctx(**kw: Any) -> Any:
    return make_context(**{"composer": "extractive", "provider": "corpus", "corpus_dir": "x", **kw})


async def _run(
    corpus: LocalCorpus,
    question: str = QUESTION,
    *,
    store: Any = None,
    thread_id: str | None = "t1",
    model: Any = None,
    events: list[dict[str, Any]] | None = None,
    **ctx: Any,
) -> dict[str, Any]:
    deps = Deps(providers=[corpus], chat_model=model)
    composer = "llm" if model is not None else "extractive"
    return await run_research(
        question,
        store=store if store is not None else InMemoryStore(),
        checkpointer=InMemorySaver(),
        thread_id=thread_id,
        context=_ctx(composer=composer, **ctx),
        deps=deps,
        on_event=events.append if events is not None else None,
    )


async def _assert_quotes_are_stored_spans(store: Any, thread_id: str, out: dict[str, Any]) -> None:
    for f in out["findings"]:
        page = next(p for p in await list_raw_pages(store, thread_id) if p.url == f["url"])
        text = parsed_page(page).text
        v = f["verification"]
        assert text[v["start"] : v["end"]] == f["quote"]
        assert verify_quote(f["quote"], text).status == "PASS"


async def test_answers_with_exact_spans_of_stored_pages(corpus: LocalCorpus) -> None:
    store = InMemoryStore()
    events: list[dict[str, Any]] = []
    out = await _run(corpus, store=store, events=events)
    assert out["status"] == "answered", out["report_markdown"]
    assert out["findings"]
    assert any("30 seconds" in f["quote"] for f in out["findings"])
    await _assert_quotes_are_stored_spans(store, "t1", out)
    assert all(f["url"].startswith(BASE) for f in out["findings"])
    assert "## Verified findings" in out["report_markdown"]
    assert out["audit"]["record_chain"][0].startswith("rec-001")
    phases = [e["phase"] for e in events]
    assert phases[0] == "check_store" and phases[-1] == "finalize"
    assert "verify_evidence" in phases


async def test_rerun_on_the_same_store_is_byte_identical(corpus: LocalCorpus) -> None:
    store = InMemoryStore()
    first = await _run(corpus, store=store)
    second = await _run(corpus, store=store)
    assert first["report_markdown"] == second["report_markdown"]
    assert first["audit"]["report_sha256"] == second["audit"]["report_sha256"]
    assert first["audit"]["evidence_sha256"] == second["audit"]["evidence_sha256"]
    assert json.dumps(first["findings"], sort_keys=True) == json.dumps(
        second["findings"], sort_keys=True
    )


async def test_without_the_encoder_quotes_are_ranked_by_terms_and_a_warning_says_so(
    corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, MODEL_PACKAGE, None)  # the package is not installed
    out = await _run(corpus)
    assert out["status"] == "answered", out["report_markdown"]
    assert any("30 seconds" in f["quote"] for f in out["findings"])
    assert any(MODEL_PACKAGE in w and "terms alone" in w for w in out["audit"]["warnings"])
    monkeypatch.undo()
    assert not any(MODEL_PACKAGE in w for w in (await _run(corpus))["audit"]["warnings"])


async def test_off_topic_question_is_insufficient(corpus: LocalCorpus) -> None:
    out = await _run(corpus, "What is the boiling point of tungsten at sea level?")
    assert out["status"] == "insufficient_evidence"
    assert out["findings"] == []
    assert out["grounding_confidence"] == "insufficient"
    assert "tungsten" in out["report_markdown"].lower()


async def test_without_store_nothing_is_verified_and_leads_are_listed(corpus: LocalCorpus) -> None:
    deps = Deps(providers=[corpus])
    graph = build_graph(deps).compile()
    out = await graph.ainvoke({"question": QUESTION}, context=_ctx())
    assert out["status"] == "verified_disabled"
    assert out["findings"] == []
    assert any(s["fetch_status"] == "lead" for s in out["sources"])
    assert "verif" in out["report_markdown"].lower()


async def test_without_thread_id_nothing_is_verified(corpus: LocalCorpus) -> None:
    deps = Deps(providers=[corpus])
    graph = build_graph(deps).compile(store=InMemoryStore())
    out = await graph.ainvoke({"question": QUESTION}, context=_ctx())
    assert out["status"] == "verified_disabled"
    assert out["findings"] == []


async def test_two_concurrent_threads_stay_apart(tmp_path: Path, corpus: LocalCorpus) -> None:
    other_root = tmp_path / "other"
    other_root.mkdir()
    (other_root / "bread.md").write_text((CORPUS / "baking.md").read_text())
    other = LocalCorpus(
        other_root, base_url="https://bread.example.org/", index_path=tmp_path / "o.sqlite"
    )
    store = InMemoryStore()
    a, b = await asyncio.gather(
        _run(corpus, store=store, thread_id="alpha"),
        _run(other, "How often is a sourdough starter fed?", store=store, thread_id="beta"),
    )
    assert a["status"] == b["status"] == "answered"
    alpha = {p.url for p in await list_raw_pages(store, "alpha")}
    beta = {p.url for p in await list_raw_pages(store, "beta")}
    assert alpha and beta and not alpha & beta
    assert all(u.startswith(BASE) for u in alpha)
    assert all(f["url"] in beta for f in b["findings"])


async def test_a_new_run_on_a_used_thread_starts_afresh(corpus: LocalCorpus) -> None:
    store, saver = InMemoryStore(), InMemorySaver()
    deps = Deps(providers=[corpus])

    async def run(question: str, thread_id: str, **kw: Any) -> dict[str, Any]:
        return await run_research(question, thread_id=thread_id, context=_ctx(), deps=deps, **kw)

    first = await run(QUESTION, "t1", store=store, checkpointer=saver)
    assert first["status"] == "answered" and first["audit"]["reviews"]
    off_topic = "Which composer wrote the opera Carmen?"
    again = await run(off_topic, "t1", store=store, checkpointer=saver)
    fresh = await run(off_topic, "t2", store=InMemoryStore(), checkpointer=InMemorySaver())
    assert again["status"] == fresh["status"] == "insufficient_evidence"
    for key in ("reviews", "composer", "rounds", "evidence", "gates"):
        assert again["audit"].get(key) == fresh["audit"].get(key), key
    assert again["findings"] == fresh["findings"] == []


async def test_nodes_append_to_the_lists_of_the_state_never_rewrite_them(
    corpus: LocalCorpus,
) -> None:
    graph = build_graph(Deps(providers=[corpus])).compile(
        store=InMemoryStore(), checkpointer=InMemorySaver()
    )
    config: Any = {"configurable": {"thread_id": "t1"}}
    updates = [
        (node, update)
        async for chunk in graph.astream(
            {"question": QUESTION}, config=config, context=_ctx(), stream_mode="updates"
        )
        for node, update in chunk.items()
    ]
    state = (await graph.aget_state(config)).values
    after_start = updates[1:]  # check_store starts every list afresh
    # Each node writes one record and only its own evidence, and the state holds them all.
    assert all(len(update["records"]) == 1 for _, update in after_start if "records" in update)
    assert [r["stage"] for r in state["records"]] == [
        node for node, update in after_start if "records" in update
    ]
    written = [e for node, u in after_start if node == "verify_evidence" for e in u["evidence"]]
    assert written == state["evidence"] and written


async def test_an_interrupted_run_resumes_from_its_checkpoint_with_a_new_budget(
    corpus: LocalCorpus,
) -> None:
    store, saver = InMemoryStore(), InMemorySaver()
    deps = Deps(providers=[corpus])
    config: Any = {"configurable": {"thread_id": "t1"}}
    # A run stopped after its pages were read (as a killed process leaves its checkpoints).
    stopped = build_graph(deps).compile(store=store, checkpointer=saver, interrupt_after=["fetch"])
    await stopped.ainvoke({"question": QUESTION}, config=config, context=_ctx(time_budget_s=1.0))
    assert (await stopped.aget_state(config)).next == ("extract_evidence",)
    read = {p.url for p in await list_raw_pages(store, "t1")}
    await asyncio.sleep(1.2)  # its deadline has passed: a resumed run gets its budget again
    out = await resume_research("t1", store=store, checkpointer=saver, deps=deps)
    assert out["status"] == "answered", out["answer"]
    assert out["audit"]["stop_reason"] != "timeout"
    assert {p.url for p in await list_raw_pages(store, "t1")} >= read
    fresh = await _run(corpus)
    assert [f["quote"] for f in out["findings"]] == [f["quote"] for f in fresh["findings"]]
    with pytest.raises(ConfigError, match="finished; nothing to resume"):
        await resume_research("t1", store=store, checkpointer=saver, deps=deps)
    with pytest.raises(ConfigError, match="no run to resume"):
        await resume_research("t9", store=store, checkpointer=saver, deps=deps)
    # Stopped before its settings were resolved: nothing of its own to go on with.
    unstarted = build_graph(deps).compile(
        store=store, checkpointer=saver, interrupt_before=["check_store"]
    )
    other: Any = {"configurable": {"thread_id": "t3"}}
    await unstarted.ainvoke({"question": QUESTION}, config=other, context=_ctx())
    with pytest.raises(ConfigError, match="stopped before it started"):
        await resume_research("t3", store=store, checkpointer=saver, deps=deps)


async def test_prompt_injection_adds_no_source_or_citation(corpus: LocalCorpus) -> None:
    out = await _run(corpus, "How does the Tern client use a proxy, and what is its timeout?")
    assert "evil.example" not in " ".join(f["url"] for f in out["findings"])
    assert all(s["url"].startswith(BASE) for s in out["sources"])
    assert "999" not in " ".join(f["claim"] for f in out["findings"])
    assert "evil.example/steal" not in out["answer"]
    assert "Ignore previous instructions" not in json.dumps(out["findings"])
    assert any("addressing the model" in w for w in out["audit"]["warnings"])


# --- LLM mode, scripted -------------------------------------------------------------------

TIMEOUT_QUOTE = (
    "Every request that the Tern client sends has a default timeout of 30 seconds, measured "
    "from the moment the connection opens until the last byte of the response arrives."
)
PLAN = json.dumps({"queries": ["Tern client default timeout retries"], "coverage_gaps": []})


def _claims(*claims: dict[str, Any]) -> str:
    return json.dumps({"answer": claims[0]["claim"] if claims else "", "claims": list(claims)})


def _good() -> str:
    return _claims(
        {
            "claim": "The Tern client has a default timeout of 30 seconds.",
            "evidence_ids": [1],
            "quote": TIMEOUT_QUOTE,
        }
    )


ENOUGH = json.dumps({"decision": "compose", "reason": "the quotes answer both parts"})
"""The model's judgment after round 1: QUESTION is in two parts, each answered, so the signals
offer one more round for the part answered least surely, and the model declines it."""


async def _llm_run(corpus: LocalCorpus, replies: list[str]) -> tuple[dict[str, Any], Any]:
    store = InMemoryStore()
    model = FakeListChatModel(responses=[PLAN, ENOUGH, *replies])
    out = await _run(corpus, store=store, model=model)
    return out, store


async def test_llm_answers_well(corpus: LocalCorpus) -> None:
    out, store = await _llm_run(corpus, [_good()])
    assert out["status"] == "answered"
    assert out["audit"]["composer"] == "llm"
    assert out["findings"][0]["quote"] == TIMEOUT_QUOTE
    await _assert_quotes_are_stored_spans(store, "t1", out)


async def test_llm_altered_quote_is_caught_and_revised(corpus: LocalCorpus) -> None:
    altered = _claims(
        {
            "claim": "The Tern client has a default timeout of 60 seconds.",
            "evidence_ids": [1],
            "quote": TIMEOUT_QUOTE.replace("30", "60"),
        }
    )
    out, _ = await _llm_run(corpus, [altered, _good()])
    assert out["status"] == "answered"
    reviews = out["audit"]["reviews"]
    assert reviews[0]["passed"] is False and reviews[-1]["passed"] is True
    assert all("60" not in f["quote"] for f in out["findings"])


async def test_llm_unfetched_url_and_unsupported_name_are_caught(corpus: LocalCorpus) -> None:
    bad = _claims(
        {
            "claim": "Per Microsoft (http://evil.example/steal) the timeout is 30 seconds.",
            "evidence_ids": [1],
            "quote": TIMEOUT_QUOTE,
            "url": "http://evil.example/steal",
        }
    )
    out, _ = await _llm_run(corpus, [bad, _good()])
    codes = {p["code"] for p in out["audit"]["reviews"][0]["problems"]}
    assert {"unsupported_name", "url_not_fetched"} <= codes
    assert all("Microsoft" not in f["claim"] for f in out["findings"])
    assert all(f["url"].startswith(BASE) for f in out["findings"])


async def test_llm_that_keeps_failing_falls_back_to_extractive(corpus: LocalCorpus) -> None:
    bad = _claims(
        {
            "claim": "The timeout is 45 seconds.",
            "evidence_ids": [1],
            "quote": TIMEOUT_QUOTE.replace("30", "45"),
        }
    )
    out, store = await _llm_run(corpus, [bad, bad, bad, bad])
    assert out["status"] == "answered"
    assert out["audit"]["composer"] == "extractive"
    assert all("45" not in f["quote"] + f["claim"] for f in out["findings"])
    await _assert_quotes_are_stored_spans(store, "t1", out)


async def test_llm_malformed_json_falls_back(corpus: LocalCorpus) -> None:
    out, _ = await _llm_run(corpus, ["Sure! Here is what I found: {claims: [oops"])
    assert out["status"] == "answered"
    assert out["audit"]["composer"] == "extractive"
    assert any("LLM composer failed" in w for w in out["audit"]["warnings"])


async def test_stored_pages_live_under_the_thread_namespace(corpus: LocalCorpus) -> None:
    store = InMemoryStore()
    out = await _run(corpus, store=store, thread_id="ns-check")
    pages = await list_raw_pages(store, "ns-check")
    assert pages
    for s in out["sources"]:
        if s["fetch_status"] == "fetched":
            page = await get_raw_page(store, "ns-check", s["source_id"])
            assert page is not None and page.url == s["url"]
    assert await list_raw_pages(store, "another-thread") == []


class _WriteLog(InMemoryStore):
    """An InMemoryStore that records which graph node wrote each value."""

    def __init__(self) -> None:
        super().__init__()
        self.writers: list[str] = []

    async def abatch(self, ops: Any) -> Any:
        ops = list(ops)
        if any(isinstance(op, PutOp) for op in ops):
            self.writers.append(get_config()["metadata"]["langgraph_node"])
        return await super().abatch(ops)


async def test_only_search_and_fetch_write_to_the_store(corpus: LocalCorpus) -> None:
    store = _WriteLog()
    out = await _run(corpus, store=store)
    assert out["status"] == "answered"
    assert store.writers and set(store.writers) <= {"search", "fetch"}


async def test_llm_quoting_part_of_a_candidate_points_at_exactly_those_words(
    corpus: LocalCorpus,
) -> None:
    part = "has a default timeout of 30 seconds, measured from the moment the connection opens"
    reply = _claims(
        {"claim": "The default timeout is 30 seconds.", "evidence_ids": [1], "quote": part}
    )
    out, store = await _llm_run(corpus, [reply])
    assert out["status"] == "answered"
    assert out["findings"][0]["quote"] == part
    await _assert_quotes_are_stored_spans(store, "t1", out)


async def test_keys_never_reach_state_reports_or_the_store(
    corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "openai-test-not-a-real-key-0123")
    monkeypatch.setenv("TAVILY_API_KEY", "tavily-test-not-a-real-key-0123")
    store = InMemoryStore()
    out = await _run(corpus, store=store)
    stored = json.dumps([p.to_value() for p in await list_raw_pages(store, "t1")])
    for blob in (json.dumps(out), stored):
        assert "not-a-real-key" not in blob


@pytest.mark.parametrize(
    ("question", "message"),
    [("   ", "non-empty"), ("why " * 600, "at most"), ("Why \udcff?", "valid UTF-8")],
)
async def test_empty_or_huge_questions_are_refused_clearly(
    corpus: LocalCorpus, question: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        await _run(corpus, question)


# --- what a misbehaving model or a hostile page must never do ------------------------------


class _Broken(FakeListChatModel):
    """A chat model whose provider fails, echoing the key it was sent, as some servers do."""

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        request = httpx.Request("POST", "https://api.example.invalid/v1/chat/completions")
        raise openai.APIConnectionError(
            message="401 Invalid API key provided: Bearer sk-ECHOED-KEY-123", request=request
        )


async def test_a_failing_model_falls_back_and_its_error_text_is_not_kept(
    corpus: LocalCorpus,
) -> None:
    out = await _run(corpus, model=_Broken(responses=["unused"]))
    assert out["status"] == "answered"
    assert out["audit"]["composer"] == "extractive"
    assert any("APIConnectionError" in w for w in out["audit"]["warnings"])
    assert "ECHOED-KEY" not in json.dumps(out)


async def test_a_deeply_nested_reply_falls_back(corpus: LocalCorpus) -> None:
    out, _ = await _llm_run(corpus, ["[" * 100_000])
    assert out["status"] == "answered" and out["audit"]["composer"] == "extractive"


async def test_a_negated_answer_or_claim_is_caught(corpus: LocalCorpus) -> None:
    negated = json.dumps(
        {
            "answer": "The Tern client never has a default timeout of 30 seconds.",
            "claims": [
                {
                    "claim": "Every request does not have a default timeout of 30 seconds.",
                    "evidence_ids": [1],
                    "quote": TIMEOUT_QUOTE,
                }
            ],
        }
    )
    out, _ = await _llm_run(corpus, [negated, _good()])
    codes = {p["code"] for p in out["audit"]["reviews"][0]["problems"]}
    assert "unsupported_negation" in codes
    assert "never" not in out["answer"] and "not" not in out["findings"][0]["claim"]


async def test_page_markup_in_quotes_is_inert_in_the_report(tmp_path: Path) -> None:
    lc = _one_page_corpus(
        tmp_path,
        "widget.md",
        "The widget frobnicator rotates every widget ninety degrees before packing, "
        'as the <a href="//evil.example/steal">packing guide</a> explains with '
        '<img src="//evil.example/t.png"> a diagram for new staff.\n',
    )
    out = await _run(lc, "Does the widget frobnicator rotate every widget before packing?")
    assert out["status"] == "answered"
    assert "<a href" in out["findings"][0]["quote"]  # the finding keeps the page's exact words
    report = out["report_markdown"]
    assert re.search(r"(?<!\\)<", report) is None  # every "<" is escaped: no tag can open
    assert "\\<a href" in report
    rendered = MarkdownIt("commonmark").render(report)  # as a Markdown viewer shows it
    assert '<a href="//evil' not in rendered and "<img" not in rendered
    assert html.escape('<a href="//evil.example/steal">packing guide</a>') in rendered  # as text


async def test_an_answer_rejected_by_review_says_so(tmp_path: Path) -> None:
    lc = _one_page_corpus(
        tmp_path,
        "mirror.md",
        "The Tern release archive is mirrored at https://mirror.example.net/tern every night, "
        "and the mirror keeps the last thirty releases of the Tern client for download.\n",
    )
    out = await _run(lc, "Where is the Tern release archive mirrored every night?")
    assert out["status"] == "insufficient_evidence"
    assert "rejected by quality review (url_not_fetched)" in out["report_markdown"]


async def test_a_server_indexes_no_directory_outside_its_corpus_roots(
    tmp_path: Path, corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the index built here
    graph = build_graph(Deps(corpus_roots=[corpus.root])).compile(store=InMemoryStore())
    config = {"configurable": {"thread_id": "srv"}}
    elsewhere = tmp_path / "private"
    elsewhere.mkdir()
    with pytest.raises(ConfigError, match="not inside an allowed corpus root"):
        await graph.ainvoke(
            {"question": QUESTION},
            config=config,  # type: ignore[arg-type]
            context=make_context(provider="corpus", corpus_dir=str(elsewhere)),
        )
    inside = make_context(provider="corpus", corpus_dir=str(corpus.root), composer="extractive")
    out = await graph.ainvoke({"question": QUESTION}, config=config, context=inside)  # type: ignore[arg-type]
    assert out["status"] == "answered"


class _CorpusWithABrokenDecoder(LocalCorpus):
    """A corpus transport whose decoder fails on one document, as a codec bug would."""

    async def read(self, document: str) -> Any:
        if document == "timeouts.html":
            raise LookupError("'base64' is not a text encoding")
        return await super().read(document)


async def test_a_page_that_cannot_be_decoded_fails_alone(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    shutil.copytree(CORPUS, root)
    broken = _CorpusWithABrokenDecoder(root, base_url=BASE, index_path=tmp_path / "i.sqlite")
    store = InMemoryStore()
    out = await _run(broken, store=store)
    failed = [s for s in out["sources"] if s["fetch_status"] == "failed"]
    broken_page = (BASE + "timeouts.html", "unsupported_type")
    assert [(s["url"], s["reason"]) for s in failed] == [broken_page]
    assert await get_raw_page(store, "t1", failed[0]["source_id"]) is None
    assert any(s["fetch_status"] == "fetched" for s in out["sources"])


async def test_tavily_asked_for_without_a_key_is_a_configuration_error(
    corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="TAVILY_API_KEY"):
        await run_research(
            QUESTION,
            store=InMemoryStore(),
            thread_id="t1",
            context=make_context(provider="tavily", composer="extractive"),
        )


class _Buggy(FakeListChatModel):
    """A chat model whose own code is wrong: not a provider failure."""

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("unsupported operand type(s)")


async def test_a_bug_is_not_taken_for_a_provider_failure(corpus: LocalCorpus) -> None:
    with pytest.raises(TypeError):
        await _run(corpus, model=_Buggy(responses=["unused"]))
