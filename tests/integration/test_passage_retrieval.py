"""Passage retrieval end to end: the passage that answers is found, read and quoted, once."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.acquisition.providers import SearchResponse, search_response
from quotebound.context import make_context
from quotebound.graph.deps import Deps
from quotebound.interface.runner import run_research

pytestmark = pytest.mark.integration

BASE = "https://docs.example.org/3.11/"
MARK = '<a class="headerlink" href="#">¶</a>'
"""A permalink's mark as Sphinx writes it after a heading or signature."""
FILLER = [
    "Strings implement all of the common sequence operations, along with the additional "
    "methods described below, and they also support two styles of string formatting.",
    "The str type returns a new string object for every method that changes the text, because "
    "string objects are immutable and are never modified in place by any of the methods.",
    "Return a copy of the string with its first character capitalized and the rest lowercased; "
    "the default behaviour of this method is to return a new string each time it is called.",
]
STDTYPES = f"""<!doctype html><html><head><title>Built-in Types</title></head><body>
<nav><a href="/">Home</a> <a href="/library">Library</a></nav>
<main><h1>Built-in Types{MARK}</h1><h2>Text Sequence Type — str{MARK}</h2>
{"".join(f"<p>{p}</p>" for p in FILLER * 3)}
<h3>String Methods{MARK}</h3>
<dl><dt>str.removeprefix(prefix, /){MARK}</dt>
<dd><p>If the string starts with the prefix string, return string[len(prefix):]. Otherwise,
return a copy of the original string.</p><p>New in version 3.9.</p></dd></dl>
<dl><dt>str.upper(){MARK}</dt><dd><p>Return a copy of the string with all the cased characters
converted to uppercase, which is what most people expect from the method.</p></dd></dl>
</main></body></html>"""
STDTYPES_RST = (
    """Built-in Types
==============

Text Sequence Type --- :class:`str`
-----------------------------------

"""
    + "\n\n".join(FILLER * 3)
    + """

.. method:: str.removeprefix(prefix, /)

   If the string starts with the *prefix* string, return
   ``string[len(prefix):]``. Otherwise, return a copy of the original
   string.

   .. versionadded:: 3.9

.. method:: str.upper()

   Return a copy of the string with all the cased characters converted to
   uppercase, which is what most people expect from the method.
"""
)
CMDLINE = f"""<!doctype html><html><head><title>Command line and environment</title></head>
<body><main><h1>Command line and environment{MARK}</h1><h2>Miscellaneous options{MARK}</h2>
<dl><dt>-O{MARK}</dt><dd><p>Remove assert statements and any code conditional on the value of
__debug__. Augment the filename for compiled (bytecode) files.</p></dd></dl>
<dl><dt>-o file{MARK}</dt><dd><p>This option names the output file of the trace and is only
read by the tracing tools, never by the interpreter itself.</p></dd></dl>
<p>Options are read from left to right, and an option given twice keeps its last value,
which is the usual behaviour of command line options in most programs.</p>
</main></body></html>"""
POOL = """<!doctype html><html><head><title>Connection pooling</title></head><body><main>
<h1>Connection pooling</h1>
<p>The client keeps a pool of open connections so that requests to the same server can reuse
them. The pool holds at most 12 connections per host. Idle connections are closed after a while
so that servers are not kept busy by clients that have gone quiet.</p>
</main></body></html>"""

TERMINAL = """<!doctype html><html><head><title>Terminal output</title></head><body><main>
<h1>Terminal output</h1>
<p>Set the NO_COLOR environment variable to any value to get colorless output: the tool then
writes plain characters to the terminal, which suits logs and screen readers.</p>
</main></body></html>"""


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    root = tmp_path / "docs"
    (root / "library").mkdir(parents=True)
    (root / "using").mkdir()
    (root / "_sources" / "library").mkdir(parents=True)
    (root / "library" / "stdtypes.html").write_text(STDTYPES)
    (root / "_sources" / "library" / "stdtypes.rst.txt").write_text(STDTYPES_RST)
    (root / "using" / "cmdline.html").write_text(CMDLINE)
    (root / "library" / "pool.html").write_text(POOL)
    (root / "using" / "terminal.html").write_text(TERMINAL)
    return LocalCorpus(root, base_url=BASE, index_path=tmp_path / "index.sqlite")


async def _run(corpus: LocalCorpus, question: str) -> dict:
    context = make_context("chat", composer="extractive")
    return await run_research(
        question,
        store=InMemoryStore(),
        thread_id="t1",
        context=context,
        deps=Deps(providers=[corpus]),
    )


async def test_an_identifier_query_finds_its_passage(corpus: LocalCorpus) -> None:
    out = await _run(corpus, "What does str.removeprefix return?")
    assert out["status"] == "answered"
    first = out["findings"][0]
    assert first["url"] == BASE + "library/stdtypes.html"
    assert "return string[len(prefix):]" in first["quote"]
    assert "¶" not in first["claim"]
    # The round that composed says from how many sources, in words a reader expects.
    reason = out["audit"]["rounds"][-1]["reason"]
    assert re.search(r"verified evidence from (?:1 source|\d+ sources)$", reason)
    assert not reason.endswith(" 1 sources")


async def test_an_option_query_finds_its_passage(corpus: LocalCorpus) -> None:
    response = await corpus.search("What does the -O option do?", max_results=5)
    assert response.candidates[0].document == "using/cmdline.html"
    out = await _run(corpus, "What does the -O option do?")
    assert "Remove assert statements" in out["findings"][0]["quote"]


async def test_a_question_in_british_spelling_finds_the_page_in_american(
    corpus: LocalCorpus,
) -> None:
    # The index reads "colorless" and "colourless" as two words: the query asks both.
    response = await corpus.search("colourless", max_results=5)
    assert [c.document for c in response.candidates] == ["using/terminal.html"]
    question = "How do I get colourless output?"
    out = await _run(corpus, question)
    assert out["status"] == "answered"
    assert "NO_COLOR environment variable" in out["findings"][0]["quote"]


async def test_the_html_page_wins_over_its_sources_twin(corpus: LocalCorpus) -> None:
    response = await corpus.search("removeprefix prefix string", max_results=5)
    documents = [c.document for c in response.candidates]
    assert "library/stdtypes.html" in documents
    assert "_sources/library/stdtypes.rst.txt" not in documents
    out = await _run(corpus, "What does str.removeprefix return?")
    assert all("_sources" not in s["url"] for s in out["sources"])


async def test_a_page_indexed_again_still_collapses_with_its_twin(corpus: LocalCorpus) -> None:
    # A page is found by its span of the index's rows, read once per state of the index: a
    # page written again lies in new rows, which the next state's spans point to.
    await corpus.search("removeprefix prefix string", max_results=5)
    page = corpus.root / "library" / "stdtypes.html"
    page.write_text(page.read_text() + "<!-- edited -->")
    assert corpus.refresh().updated == 1
    response = await corpus.search("removeprefix prefix string", max_results=5)
    documents = [c.document for c in response.candidates]
    assert "library/stdtypes.html" in documents
    assert "_sources/library/stdtypes.rst.txt" not in documents


async def test_a_search_sees_the_index_another_process_changed(corpus: LocalCorpus) -> None:
    # What a corpus read from its index (each page's words, to tell twins apart) holds for
    # one state of it: another process that indexes the corpus again moves it on.
    await corpus.search("removeprefix prefix string", max_results=5)  # the copy collapses
    copy = corpus.root / "_sources" / "library" / "stdtypes.rst.txt"
    copy.write_text(
        "Migration notes\n===============\n\nOlder code strips a known prefix string with a "
        "slice after startswith; removeprefix replaces that idiom in new code, and linters "
        "flag the slice when the project targets a recent interpreter release.\n"
    )
    other = LocalCorpus(corpus.root, base_url=BASE, index_path=corpus.index_path)
    assert other.refresh(vectors=False).updated == 1
    response = await corpus.search("removeprefix prefix string", max_results=5)
    documents = [c.document for c in response.candidates]
    assert "_sources/library/stdtypes.rst.txt" in documents  # no longer the page's twin
    assert "library/stdtypes.html" in documents


async def test_a_sources_copy_found_alone_gives_its_place_to_the_html_page(
    corpus: LocalCorpus,
) -> None:
    # Only the reST copy spells "versionadded" (the page renders it "New in version 3.9"):
    # the page a reader opens is still the one cited, at the copy's rank.
    response = await corpus.search("versionadded", max_results=5)
    [found] = response.candidates
    assert found.document == "library/stdtypes.html"
    assert found.url == BASE + "library/stdtypes.html"
    assert found.title == "Built-in Types"
    # Under the heading it sits right under (the page's title aside).
    assert found.snippet.startswith(
        "Text Sequence Type — str: Strings implement all of the common sequence operations"
    )
    assert found.passages == ()  # no passage of the page itself matched


async def test_a_how_many_question_gets_the_sentence_with_the_number(corpus: LocalCorpus) -> None:
    out = await _run(corpus, "How many connections does the pool hold per host?")
    assert out["status"] == "answered"
    assert out["findings"][0]["claim"] == "The pool holds at most 12 connections per host."


async def test_an_unanswerable_question_is_refused(corpus: LocalCorpus) -> None:
    out = await _run(corpus, "Who won the 2018 FIFA World Cup final in Moscow?")
    assert out["status"] == "insufficient_evidence"
    assert out["findings"] == []


async def test_a_refusal_says_what_the_pages_read_do_not_answer(corpus: LocalCorpus) -> None:
    # A page about prefixes is read; a later round finds nothing more to read, which is not
    # why there is no answer: the page read does not say how to trim a hedge.
    question = "What is the best way to trim the prefix of a garden hedge?"
    out = await _run(corpus, question)
    assert out["status"] == "insufficient_evidence" and len(out["sources"]) == 1
    assert out["audit"]["missing"] == (
        f"the one source read holds no verified quote that addresses: {question}"
    )


@pytest.mark.parametrize(
    ("question", "name"),
    [
        # Pages about str's other methods share every other word of the question: none answers.
        ("What does str.remove_prefix_all return?", "remove_prefix_all"),
        # The pages say "closed" (of connections), but the reference that heads its entries
        # "str.removeprefix(prefix, /)" never writes str.close: no such method is documented.
        ("What does str.close() return?", "str.close"),
    ],
)
async def test_a_question_about_code_no_document_spells_is_refused(
    corpus: LocalCorpus, question: str, name: str
) -> None:
    out = await _run(corpus, question)
    assert out["status"] == "insufficient_evidence"
    assert out["audit"]["stop_reason"] == "unknown_name"
    assert out["audit"]["missing"].startswith(
        f"no document mentions {name}, which the question names"
    )
    assert len(out["audit"]["rounds"]) == 1  # no second round looks for it


async def test_a_part_about_unknown_code_is_named_as_missing(corpus: LocalCorpus) -> None:
    out = await _run(
        corpus,
        "What does str.removeprefix return, and what does str.remove_suffix_all return?",
    )
    assert out["status"] == "answered"
    assert "return string[len(prefix):]" in out["findings"][0]["quote"]
    assert out["audit"]["missing"] == "what does str.remove_suffix_all return"
    # A part that refers back to unknown code is as unanswerable as the part naming it.
    out = await _run(corpus, "What does str.strip_all do, and what does it return?")
    assert out["status"] == "insufficient_evidence"
    assert out["audit"]["stop_reason"] == "unknown_name"


async def test_unknown_code_is_not_refused_when_the_web_may_know_it(
    corpus: LocalCorpus,
) -> None:
    class Web:
        name = "web"

        async def search(self, query: str, *, max_results: int) -> SearchResponse:
            return search_response(self, query, time.monotonic())

    out = await run_research(
        "What does str.remove_prefix_all return?",
        store=InMemoryStore(),
        thread_id="t1",
        context=make_context("chat", composer="extractive"),
        deps=Deps(providers=[corpus, Web()]),
    )
    assert out["audit"]["stop_reason"] != "unknown_name"


async def test_search_results_name_the_passages_that_matched(corpus: LocalCorpus) -> None:
    response = await corpus.search("What does str.removeprefix return?", max_results=5)
    first = response.candidates[0]
    assert first.document == "library/stdtypes.html"
    rank, head = first.passages[0]
    assert rank == 0
    assert head.startswith("str.removeprefix(prefix, /)")
    ranks = [r for c in response.candidates for r, _ in c.passages]
    assert len(ranks) == len(set(ranks))  # one ranking of passages across the corpus
    assert all(len(h) <= 80 for c in response.candidates for _, h in c.passages)


async def test_evidence_records_the_search_rank_of_its_passage(corpus: LocalCorpus) -> None:
    context = make_context("chat", composer="extractive")
    out = await run_research(
        "What does str.removeprefix return?",
        store=InMemoryStore(),
        thread_id="t1",
        context=context,
        deps=Deps(providers=[corpus]),
    )
    evidence = {e["evidence_id"]: e for e in out["audit"]["evidence"]}
    first = out["findings"][0]
    assert "return string[len(prefix):]" in first["quote"]
    assert evidence[first["evidence_ids"][0]]["retrieved"] == 0
    assert any(e["retrieved"] is None for e in evidence.values())  # what the search passed by


async def test_a_page_that_gathers_other_pages_passages_does_not_rank_by_them(
    tmp_path: Path,
) -> None:
    # A whole API on one page, as SQLite's capi3ref.html holds every c3ref/*.html page.
    entries = {
        "busy": "Set a busy timeout: the handler sleeps until the lock clears or the timeout "
        "of the given milliseconds has elapsed, and a timeout of zero turns the handler off.",
        "close": "Close a connection: every prepared statement must be finalized before the "
        "connection is closed, or the call returns an error and leaves the connection open.",
        "open": "Open a new connection to a database file, creating the file when it does "
        "not exist yet, unless the flags say that the file must already exist.",
    }
    root = tmp_path / "api"
    (root / "c3ref").mkdir(parents=True)
    for name, text in entries.items():
        (root / "c3ref" / f"{name}.html").write_text(
            f"<html><head><title>{name}</title></head><body><main><p>{text}</p></main></body></html>"
        )
    everything = "".join(f"<h2>{name}</h2><p>{text}</p>" for name, text in entries.items())
    (root / "capi3ref.html").write_text(
        f"<html><head><title>C API</title></head><body><main>{everything}</main></body></html>"
    )
    corpus = LocalCorpus(root, base_url=BASE, index_path=tmp_path / "index.sqlite")
    response = await corpus.search("busy timeout of zero milliseconds", max_results=5)
    assert [c.document for c in response.candidates] == ["c3ref/busy.html"]
    # A passage the large page alone holds still finds it.
    (root / "capi3ref.html").write_text(
        f"<html><head><title>C API</title></head><body><main>{everything}"
        "<p>Every interface on this page is also described on a page of its own, one page "
        "per interface, with the same busy timeout wording.</p></main></body></html>"
    )
    corpus.refresh()
    response = await corpus.search("busy timeout of zero milliseconds", max_results=5)
    assert [c.document for c in response.candidates] == ["c3ref/busy.html", "capi3ref.html"]


async def test_a_page_that_gathers_other_pages_statements_does_not_rank_by_them(
    tmp_path: Path,
) -> None:
    # A list of requirements, as SQLite's requirements.html repeats each statement of its other
    # pages word for word, with the source page's name and the tests that check it.
    sources = {
        "pragma": "Query, set, or clear the enforcement of foreign key constraints, which is "
        "off by default in every new database connection.",
        "vacuum": "The VACUUM command rebuilds the database file, repacking it into a minimal "
        "amount of disk space.",
        "attach": "The ATTACH DATABASE statement adds another database file to the current "
        "database connection.",
    }
    root = tmp_path / "docs"
    root.mkdir()
    for name, statement in sources.items():
        (root / f"{name}.html").write_text(
            f"<html><head><title>{name}</title></head><body><main><p>This page describes "
            f"{name} at length. {statement} Other settings are described below, each with "
            "its default and the version that added it.</p></main></body></html>"
        )
    listed = "".join(
        f"<h3>R-{n:05d}-{n * 7:05d}</h3><p>{statement} (source: {name}.html, checked-by: "
        f"th3/req1/{name}01.test, matrix: context, detail)</p>"
        for n, (name, statement) in enumerate(sources.items(), 1)
    )
    (root / "requirements.html").write_text(
        f"<html><head><title>Requirements</title></head><body><main>{listed}</main></body></html>"
    )
    corpus = LocalCorpus(root, base_url=BASE, index_path=tmp_path / "index.sqlite")
    response = await corpus.search("enforcement of foreign key constraints", max_results=5)
    assert [c.document for c in response.candidates] == ["pragma.html"]


STATEMENTS = """<!doctype html><html><head><title>Basic statements</title></head><body><main>
<h1>Basic statements</h1><h2>Executing a command with no result</h2>
<p>Sometimes it is useful to evaluate a query but discard the result, for example when calling
a function that has side effects and no useful result value. To do this, use the PERFORM
statement:</p>
<p>This executes the query and throws the result away. Write the query the same way you would
write a SELECT command, but put PERFORM in place of the initial keyword.</p>
<h2>Doing nothing at all</h2>
<p>Sometimes a placeholder statement that does nothing is useful, for example to show that one
arm of an if chain is deliberately empty; the NULL statement serves for it.</p>
</main></body></html>"""


async def test_a_finding_quotes_the_window_that_answers_with_the_one_that_leads_to_it(
    tmp_path: Path,
) -> None:
    """The question's words are in the window that names the statement; what it does is in the
    next one. The finding quotes both, as the page has them, and the quote verifies."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "statements.html").write_text(STATEMENTS)
    corpus = LocalCorpus(root, base_url=BASE, index_path=tmp_path / "index.sqlite")
    out = await _run(corpus, "How do I evaluate a query but discard its result?")
    assert out["status"] == "answered"
    first = out["findings"][0]
    assert "use the PERFORM statement:" in first["quote"]
    assert "This executes the query and throws the result away." in first["quote"]
    assert first["verification"]["status"] == "PASS"
    cited = [e for e in out["audit"]["evidence"] if e["evidence_id"] in first["evidence_ids"]]
    assert [e["verification"]["matched_text"] for e in cited] == [first["quote"]]
    assert "placeholder" not in first["quote"]  # a heading lies between
