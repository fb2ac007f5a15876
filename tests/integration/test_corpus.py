"""The local corpus: FTS5 index over real files, incremental refresh, mapping and transport."""

from __future__ import annotations

import hashlib
import os
import threading
import time
import unicodedata
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from quotebound.acquisition import passagevectors
from quotebound.acquisition.corpus import LocalCorpus
from quotebound.acquisition.corpusindex import open_index
from quotebound.acquisition.ftsquery import (
    called_names,
    code_names,
    fts_query,
    offered_names,
    qualified_names,
)
from quotebound.acquisition.passagevectors import fill_vectors
from quotebound.errors import ConfigError, FetchError, Reason
from quotebound.evidence import encoder
from quotebound.storage.filelock import file_lock
from quotebound.storage.rawstore import parsed_page
from quotebound.text.passages import passage_head, passages
from quotebound.tiers import TrustTier

pytestmark = pytest.mark.integration

HTML = """<!doctype html><html><head><title>Photosynthesis explained</title>
<style>.x{color:red}</style></head><body><h1>Photosynthesis</h1>
<p>Photosynthesis is the process by which green plants use sunlight to turn carbon dioxide
and water into glucose and oxygen. Photosynthesis happens in the chloroplasts.</p>
<script>var tracking = "zebra";</script></body></html>"""
MARKDOWN = """# Volcano notes

Volcanoes erupt when magma rises through the crust. Basalt lava is runny.
"""
TEXT = "Tides are caused mainly by the gravitational pull of the Moon on the oceans.\n"


@pytest.fixture
def root(tmp_path: Path, make_pdf: Callable[[str], bytes]) -> Path:
    root = tmp_path / "library"
    (root / "bio").mkdir(parents=True)
    (root / "bio" / "photo synthesis.html").write_text(HTML)
    (root / "volcano.md").write_text(MARKDOWN)
    (root / "tides.txt").write_text(TEXT)
    (root / "glaciers.pdf").write_bytes(make_pdf("Glaciers carve U-shaped valleys slowly."))
    (root / "ignored.json").write_text('{"volcano": "not indexed"}')
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.md").write_text("# Volcano secret\n")
    return root


def make(
    root: Path,
    tmp_path: Path,
    *,
    base_url: str | None = None,
    tier: TrustTier = TrustTier.PRIMARY_SOURCE,
) -> LocalCorpus:
    return LocalCorpus(root, index_path=tmp_path / "index.sqlite", base_url=base_url, tier=tier)


async def top(corpus: LocalCorpus, query: str) -> list[str | None]:
    response = await corpus.search(query, max_results=10)
    return [c.document for c in response.candidates]


async def test_indexes_html_markdown_text_and_pdf(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path)
    stats = corpus.refresh()
    assert (stats.added, stats.updated, stats.removed, stats.skipped) == (4, 0, 0, 0)
    assert (await top(corpus, "chloroplasts"))[:1] == ["bio/photo synthesis.html"]
    assert await top(corpus, "magma") == ["volcano.md"]
    assert await top(corpus, "gravitational moon") == ["tides.txt"]
    assert await top(corpus, "glaciers valleys") == ["glaciers.pdf"]
    # script text and non-indexed or hidden files are not searchable
    assert await top(corpus, "zebra tracking") == []
    assert await top(corpus, "secret") == []


async def test_candidates_carry_titles_snippets_and_the_search_result_tier(
    root: Path, tmp_path: Path
) -> None:
    response = await make(root, tmp_path).search("volcano magma", max_results=5)
    (c,) = response.candidates
    assert c.title == "Volcano notes" and c.rank == 1 and c.provider == "corpus"
    assert "magma rises through the crust" in c.snippet
    assert c.tier == TrustTier.SEARCH_RESULT and c.query == "volcano magma"
    assert response.run.result_count == 1 and response.run.reason is None


async def test_ranking_puts_the_document_about_the_topic_first(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "a.md").write_text("# Cooking\n\nPasta needs salted water. Photosynthesis aside.\n")
    (root / "b.md").write_text(
        "# Photosynthesis\n\nPhotosynthesis converts light energy into chemical energy; "
        "photosynthesis in plants produces oxygen.\n"
    )
    (root / "c.md").write_text("# Gardening\n\nPlants need light and water.\n")
    corpus = make(root, tmp_path)
    assert (await top(corpus, "How does photosynthesis work in plants?"))[0] == "b.md"
    assert (await top(corpus, "salted pasta water"))[0] == "a.md"


async def test_refresh_rereads_only_the_changed_file(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path)
    corpus.refresh()
    noop = corpus.refresh()
    assert (noop.unchanged, noop.read, noop.added, noop.updated) == (4, 0, 0, 0)

    (root / "volcano.md").write_text("# Knitting notes\n\nA purl stitch is a knit backwards.\n")
    stats = corpus.refresh()
    assert (stats.updated, stats.unchanged, stats.read, stats.added) == (1, 3, 1, 0)
    assert await top(corpus, "purl stitch") == ["volcano.md"]
    assert await top(corpus, "magma") == []  # neither its words nor its vectors are left

    # A file with the same size and mtime is not read at all: even swapped bytes go unseen.
    tides = root / "tides.txt"
    before = tides.stat()
    tides.write_text(TEXT.replace("Moon", "Mars"))
    os.utime(tides, ns=(before.st_atime_ns, before.st_mtime_ns))
    stats = corpus.refresh()
    assert (stats.read, stats.updated) == (0, 0)
    assert await top(corpus, "moon") == ["tides.txt"]


async def test_touching_a_file_reads_it_but_does_not_reindex_it(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path)
    corpus.refresh()
    st = (root / "tides.txt").stat()
    os.utime(root / "tides.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    stats = corpus.refresh()
    assert (stats.read, stats.updated, stats.unchanged) == (1, 0, 4)


async def test_removed_and_added_files(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path, base_url="https://lib.example/")
    corpus.refresh()
    (root / "volcano.md").unlink()
    (root / "new.txt").write_text("Comets have icy nuclei.\n")
    stats = corpus.refresh()
    assert (stats.removed, stats.added, stats.unchanged) == (1, 1, 3)
    assert await top(corpus, "magma volcano") == []
    assert await top(corpus, "comets") == ["new.txt"]
    assert corpus.document_for_url("https://lib.example/volcano.md") is None


async def test_an_unreadable_pdf_is_skipped_not_fatal(root: Path, tmp_path: Path) -> None:
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    corpus = make(root, tmp_path)
    stats = corpus.refresh()
    assert (stats.added, stats.skipped) == (4, 1)
    assert corpus.refresh().read == 0  # remembered: not re-read until it changes
    assert await top(corpus, "magma") == ["volcano.md"]


async def test_base_url_maps_documents_to_public_urls(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path, base_url="https://docs.example.org/3.11")
    response = await corpus.search("chloroplasts", max_results=1)
    c = response.candidates[0]
    assert c.url == "https://docs.example.org/3.11/bio/photo%20synthesis.html"
    assert c.document == "bio/photo synthesis.html"
    assert response.run.endpoint == "https://docs.example.org/3.11/"
    assert corpus.document_for_url(
        "https://DOCS.example.org/3.11/bio/photo%20synthesis.html#x"
    ) == ("bio/photo synthesis.html")
    assert corpus.document_for_url("https://elsewhere.example/bio/photo%20synthesis.html") is None


async def test_without_base_url_documents_are_file_uris(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path)
    (c,) = (await corpus.search("magma", max_results=3)).candidates
    assert c.url == (root / "volcano.md").resolve().as_uri()


async def test_read_is_the_corpus_transport(root: Path, tmp_path: Path) -> None:
    corpus = make(
        root, tmp_path, base_url="https://lib.example/", tier=TrustTier.AUTHORITATIVE_SOURCE
    )
    html = await corpus.read("bio/photo synthesis.html")
    assert html.url == html.final_url == "https://lib.example/bio/photo%20synthesis.html"
    assert html.status == 200 and html.provider == "corpus"
    assert html.trust_tier == TrustTier.AUTHORITATIVE_SOURCE
    assert (
        html.content_type == "text/html" and html.html is not None and "chloroplasts" in html.html
    )
    assert html.title == "Photosynthesis explained"
    assert html.sha256 == hashlib.sha256(HTML.encode()).hexdigest()
    md = await corpus.read("volcano.md")
    assert (md.content_type, md.text, md.title) == ("text/markdown", MARKDOWN, "Volcano notes")
    pdf = await corpus.read("glaciers.pdf")
    assert pdf.content_type == "application/pdf" and pdf.pages is not None
    assert "Glaciers carve U-shaped valleys" in pdf.pages[0]
    txt = await corpus.read("tides.txt")
    assert txt.text == TEXT and txt.title.startswith("Tides are caused")


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ("../outside.md", Reason.INVALID_URL),
        ("/etc/passwd", Reason.INVALID_URL),
        ("ignored.json", Reason.INVALID_URL),
        ("", Reason.INVALID_URL),
        ("missing.md", Reason.HTTP_STATUS),
    ],
)
async def test_read_refuses_paths_outside_or_missing(
    root: Path, tmp_path: Path, document: str, reason: Reason
) -> None:
    (tmp_path / "outside.md").write_text("# outside\n")
    with pytest.raises(FetchError) as info:
        await make(root, tmp_path).read(document)
    assert info.value.reason == reason


async def test_read_refuses_a_symlink_that_leaves_the_root(root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("# outside\n")
    (root / "link.md").symlink_to(tmp_path / "outside.md")
    corpus = make(root, tmp_path)
    with pytest.raises(FetchError) as info:
        await corpus.read("link.md")
    assert info.value.reason == Reason.INVALID_URL
    assert await top(corpus, "outside") == []


HOSTILE = ['"', "*", "NEAR(", "-", ")(", 'a" OR "b', "title:x", "^start", "x AND", "NOT", "{a b}",
           "'; DROP TABLE docs; --", "magma*", "\u200b\x00", "🌋 volcano"]  # fmt: skip


@pytest.mark.parametrize("query", HOSTILE)
async def test_hostile_queries_never_raise(root: Path, tmp_path: Path, query: str) -> None:
    response = await make(root, tmp_path).search(query, max_results=5)
    assert response.run.reason in (None, "empty_results")
    assert response.run.result_count == len(response.candidates)


@pytest.mark.parametrize("query", ["", "   ", "?!", "***", "()"])
async def test_queries_without_words_are_empty_results(
    root: Path, tmp_path: Path, query: str
) -> None:
    assert fts_query(query) is None
    response = await make(root, tmp_path).search(query, max_results=5)
    assert response.run.reason == "empty_results" and response.candidates == ()


def test_fts_query_quotes_every_term() -> None:
    # A quoted phrase is searched as a phrase and weighs twice (and NEAR, written as a call,
    # as code); no text is FTS5 syntax.
    assert fts_query('What is "NEAR(magma)"?') == (
        '"near" OR "near magma" OR "near" OR "near magma" OR "near" OR "magma"'
    )
    assert fts_query("the") == '"the"'
    # A word as a reader sees it, whatever invisible characters a page put in it.
    assert fts_query("Mit\u00adtel\u00adal\u00adter Gra\u200bfen") == '"mittelalter" OR "grafen"'


def test_fts_query_asks_a_word_in_both_its_spellings() -> None:
    # The index stems "serialized" to "serial", "serialised" to "serialis": the query asks both.
    assert fts_query("Is the colour serialised?") == (
        '"colour" OR "color" OR "serialised" OR "serialized"'
    )
    assert fts_query("color") == '"color" OR "colour"'
    # British "instal" is "install" to a stemmer: asked twice, "install" would weigh double.
    assert fts_query("install") == '"install"'


def test_fts_query_weighs_identifiers_and_options() -> None:
    query = fts_query("What does str.removeprefix return under -O?")
    assert query == (
        '"str removeprefix" OR keys : "opt1uo" OR "str removeprefix" OR keys : "opt1uo"'
        ' OR "str" OR "removeprefix" OR "return" OR "under" OR "o"'
    )
    # A word written as a call is code too: "round" weighs most, the number stays whole.
    assert fts_query("Why does round(2.5) give 2?") == (
        '"round" OR "2 5" OR "round" OR "2 5" OR "round" OR "2" OR "5" OR "give"'
    )


def test_code_names_are_identifiers_capitals_and_options() -> None:
    # A method by its last part, a word in capitals, an option by its key; no number is code.
    assert code_names("Does dict.sort_by_value() beat MEDIUMBLOB or --turbo-start in 3.11?") == {
        "sort_by_value": '"sort_by_value"',
        "MEDIUMBLOB": '"mediumblob"',
        "--turbo-start": 'keys : "opt2turbostart"',
    }
    assert code_names("Why do plants need sunlight, e.g. in 2020?") == {}
    # A run of words in capitals is one name (SQL's keywords); a call names its function; a
    # word before a spaced parenthesis is prose.
    assert code_names("Can CREATE PROCEDURE run in SQL?") == {
        "CREATE PROCEDURE": '"create procedure"'
    }
    assert code_names("What does zip() return, and what is a round (of golf)?") == {"zip": '"zip"'}
    # A shell's dot-command and a file extension are code; a dot inside a word or an ellipsis
    # is not.
    assert code_names("What does the .heatmap dot-command show for .py files?") == {
        ".heatmap": '"heatmap"',
        ".py": '"py"',
    }
    assert code_names("Is it e.g. faster... or slower?") == {}


def test_called_names_are_the_words_a_question_calls_a_keyword_option_or_setting() -> None:
    assert called_names("How do I use the fallthrough keyword inside a match?") == {
        "fallthrough": '"fallthrough"'
    }
    # The word right before what it is called, past an option; one code_names holds is left to
    # it; a symbol has no words to look for; a compound's words are looked for in any order.
    assert called_names("What does the -X nogil option do?") == {"nogil": '"nogil"'}
    assert called_names("Does the MEDIUMBLOB option apply?") == {}
    assert called_names("Does the jsonb_path_ops class support the ? operator?") == {}
    assert called_names("Should I use the multi-minmax operator class?") == {
        "multi-minmax": '"multi" "minmax"'
    }
    assert called_names("What does a keyword argument do?") == {}


def test_qualified_names_are_dotted_identifiers_with_their_last_qualifier() -> None:
    assert qualified_names("Is pathlib.Path.walk() like os.walk, or my_list.sort in 3.11?") == {
        "pathlib.Path.walk": ("Path", "walk"),
        "os.walk": ("os", "walk"),
        "my_list.sort": ("my_list", "sort"),
    }
    assert qualified_names("Does zip() beat MEDIUMBLOB, e.g. in 2.5.1?") == {}


def test_offered_names_are_those_given_only_as_examples() -> None:
    names = ["--verb", "--verbose", "clamp", "math.clamp", "floor"]
    question = "Is a prefix such as --verb for --verbose, e.g. math.clamp(), like floor()?"
    assert offered_names(question, names) == {"--verb", "clamp", "math.clamp"}
    # Named once as an example and once as the subject, it is asked about.
    assert offered_names("Is there a clamp(), say `clamp()`?", ["clamp"]) == set()


async def test_unspelled_names_the_code_no_document_spells(root: Path, tmp_path: Path) -> None:
    (root / "shell.txt").write_text("Type .TIDES to list the tide tables of a harbour.\n")
    (root / "survey.txt").write_text(
        "The NGS team at the Survey's Harbour Office (SHO) charts each tide. The NGS never "
        "runs a drill: the erupt tables are its own, and a lava flow is charted apart.\n"
    )
    corpus = make(root, tmp_path)
    # The index is built on first use; hostile text is only ever a quoted phrase. A name is
    # spelled as the index reads words: "MAGMA_RISE" is there, in "magma rises".
    assert corpus.unspelled("Is BASALT lava runny, and what is magma_flow_rate?") == [
        "magma_flow_rate"
    ]
    assert corpus.unspelled('Is MAGMA_RISE a MAGMA_FLOW* or NEAR("x') == ["MAGMA_FLOW", "NEAR"]
    assert corpus.unspelled("How do volcanoes erupt?") == []
    # A run of words in capitals is spelled together: "BASALT LAVA" is, "LAVA ERUPT" is not.
    assert corpus.unspelled("Is BASALT LAVA runny? Does LAVA ERUPT?") == ["LAVA ERUPT"]
    # A run of names a page writes apart, each in capitals, is spelled: "NGS SHO" is, in "The
    # NGS team at the Survey's Harbour Office (SHO)"; "NGS DRILL" is not: the page writes
    # "drill" as a word, not in capitals, though near "NGS".
    assert corpus.unspelled("What does the NGS SHO chart? Does NGS DRILL?") == ["NGS DRILL"]
    # A method's page often omits its class or module (pydoc writes "copytree(src, dst)").
    assert corpus.unspelled("What does biology.photosynthesis() make?") == []
    # A dot-command is spelled with its dot, in any case: ".tides" is; the documents speak of
    # basalt and harbours, but never write ".basalt" nor ".harbour"; ".tremor_map" not at all.
    assert corpus.unspelled("Does .tides beat .basalt, .harbour or .tremor_map?") == [
        ".basalt",
        ".harbour",
        ".tremor_map",
    ]
    # A word the question calls a keyword or an option names a feature: the documents that have
    # it spell it. "the runny option" is spelled (basalt lava is runny), "the lahar option" not;
    # a compound's words may come in another order ("lava-basalt": "Basalt lava").
    assert corpus.unspelled("What does the lahar keyword do, and the runny option?") == ["lahar"]
    assert corpus.unspelled("Is the lava-basalt setting on?") == []
    # A name given only as an example is the asker's, not one a document is asked to have.
    assert corpus.unspelled("Can an option be cut short, such as --magma for --magma_flow?") == [
        "--magma_flow"
    ]
    assert corpus.unspelled("Is there a tool, e.g. geology.magma_flow(), or is --magma it?") == [
        "--magma"
    ]


async def test_results_are_deterministic(root: Path, tmp_path: Path) -> None:
    corpus = make(root, tmp_path)
    first = await corpus.search("the", max_results=10)
    again = await make(root, tmp_path).search("the", max_results=10)
    assert first.candidates == again.candidates


def test_index_defaults_to_the_user_cache(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    corpus = LocalCorpus(root)
    assert corpus.index_path.parent == tmp_path / "cache" / "quotebound" / "corpora"
    assert corpus.refresh().added == 4 and corpus.index_path.is_file()


def test_a_missing_or_unreadable_root_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        LocalCorpus(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ConfigError, match="readable directory"):
        LocalCorpus(tmp_path / "file.txt")
    with pytest.raises(ConfigError, match="base_url"):
        LocalCorpus(tmp_path, base_url="ftp://x/")


async def test_a_file_over_the_size_cap_is_neither_indexed_nor_read(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.md").write_text("# Small\n\nThe quokka cache keeps entries for an hour.\n")
    (docs / "huge.md").write_text("# Huge\n\n" + "The quokka cache grows. " * 2000)
    corpus = LocalCorpus(docs, index_path=tmp_path / "i.sqlite", max_bytes=10_000)
    stats = corpus.refresh()
    assert (stats.added, stats.skipped) == (1, 1)
    assert await top(corpus, "quokka cache") == ["small.md"]
    with pytest.raises(FetchError) as caught:
        await corpus.read("huge.md")
    assert caught.value.reason is Reason.TOO_LARGE
    assert "over the 10000 byte cap" in str(caught.value)
    assert "QUOTEBOUND_MAX_PAGE_MB" in str(caught.value)
    raised = LocalCorpus(docs, index_path=tmp_path / "j.sqlite", max_bytes=100_000)
    assert raised.refresh().added == 2
    assert (await raised.read("huge.md")).text is not None


async def test_a_snippet_shows_the_sentences_of_the_pages_two_best_passages_that_match(
    tmp_path: Path,
) -> None:
    # As a web search's snippet does: the words of each passage that hold the query's, not the
    # passage's first words, so that a reader (and the ranking of what to read) sees them.
    root = tmp_path / "s"
    root.mkdir()
    (root / "a.md").write_text(
        "# Sea\n\n## Spring tides\n\nThe harbour master posts a table every week. "
        "Spring tides follow the full moon.\n\n"
        "## Harbour\n\nThe harbour opens at nine.\n\n"
        "## Neap tides\n\nNeap tides come when the moon is at a quarter. Boats wait for them.\n"
    )
    (c,) = (await make(root, tmp_path).search("moon tides", max_results=5)).candidates
    shown = sorted(piece.partition(": ")[2] for piece in c.snippet.split(" … "))
    assert shown == [
        "Neap tides come when the moon is at a quarter. Boats wait for them.",
        "…Spring tides follow the full moon.",
    ]


async def test_a_snippet_looks_for_its_sentence_only_near_a_long_passages_start(
    tmp_path: Path,
) -> None:
    # A text file with no blank lines is one passage however long: its snippet's sentence is
    # looked for in its first few thousand characters, so a huge one costs no more to show.
    root = tmp_path / "long"
    root.mkdir()
    filler = " ".join(f"The harbour master posts table {i} every week." for i in range(2000))
    (root / "log.txt").write_text(f"Harbour log. {filler} Spring tides follow the full moon.\n")
    (c,) = (await make(root, tmp_path).search("spring tides moon", max_results=5)).candidates
    assert c.snippet.startswith("Harbour log. The harbour master posts table 0")


async def test_words_hyphenated_or_decomposed_are_found_as_a_reader_sees_them(
    tmp_path: Path,
) -> None:
    # Pages hyphenate long words with invisible soft hyphens ("Mit\u00adtel\u00adal\u00adter")
    # and break them with zero-width spaces; a reader sees one word, and so does the search.
    root = tmp_path / "h"
    root.mkdir()
    (root / "burg.html").write_text(
        "<html><head><title>Burgen</title></head><body><p>Im Mit\u00adtel\u00adal\u00adter "
        "bauten die Gra\u200bfen viele Burgen auf den H\u00fcgeln.</p>"
        # Decomposed letters (NFD: Hangul as its jamo, as macOS writes it) read as composed.
        + unicodedata.normalize("NFD", "<p>서울의 성곽은 조선 시대에 세워졌다.</p>")
        + "</body></html>"
    )
    corpus = make(root, tmp_path)
    for query in ("Mittelalter", "Grafen"):
        (c,) = (await corpus.search(query, max_results=5)).candidates
        assert "Im Mittelalter bauten die Grafen" in c.snippet
    (c,) = (await corpus.search("서울의 성곽", max_results=5)).candidates
    assert "서울의 성곽은" in c.snippet
    # The passage the search found is still found in the page as read, soft hyphens and all.
    page = parsed_page(await corpus.read("burg.html"))
    assert "\u00ad" in page.text
    assert [head for _, head in c.passages] == [passage_head(p.text) for p in passages(page)]


REFERENCE = {
    "math.html": """<html><head><title>math — Mathematical functions</title></head><body>
<h1>math — Mathematical functions</h1><h2>math.sqrt(x)</h2><p>Return the square root of x.</p>
<h2>math.floor(x)</h2><p>Return the largest integer less than or equal to x.</p></body></html>""",
    "decimal.html": """<html><head><title>decimal — Decimal arithmetic</title></head><body>
<h1>decimal — Decimal arithmetic</h1><h2>Context objects</h2>
<p>When clamp is 1, a large exponent is reduced to fit the context.</p></body></html>""",
    "array.html": """<html><head><title>array — Efficient arrays of numbers</title></head>
<body><h1>array — Efficient arrays of numbers</h1><h2>array.array(typecode)</h2>
<p>A new array whose items are restricted by typecode.</p><h3>byteswap()</h3>
<p>Swap the bytes of all items of the array.</p></body></html>""",
    "typing.html": """<html><head><title>typing — Support for type hints</title></head><body>
<h1>typing — Support for type hints</h1><h2>typing.cast(typ, val)</h2>
<p>Cast a value to a type, which returns the value unchanged.</p>
<h2>typing.TYPE_CHECKING</h2><p>A constant that static type checkers take to be true.</p>
</body></html>""",
    "datetime.html": """<html><head><title>datetime — Dates and times</title></head><body>
<h1>datetime — Dates and times</h1><h2>datetime.strptime(date_string, format)</h2>
<p>Parse a date string by format; see the table of directives to parse dates.</p>
</body></html>""",
    "typeobj.html": """<html><head><title>Type objects</title></head><body><h1>Type objects</h1>
<h2>date.replace(year=self.year, day=self.day)</h2>
<p>A subtype may override this slot, and a day counter is kept.</p></body></html>""",
}


async def test_unspelled_names_a_qualified_name_the_documents_never_write(
    tmp_path: Path,
) -> None:
    root = tmp_path / "reference"
    root.mkdir()
    for name, html in REFERENCE.items():
        (root / name).write_text(html)
    corpus = make(root, tmp_path)
    # The reference heads its entries "math.sqrt(x)" and says "clamp" of decimal only: no
    # math.clamp() exists, although "clamp" is spelled.
    assert corpus.unspelled("What does math.clamp() do to a value out of bounds?") == ["math.clamp"]
    assert corpus.unspelled("Is math.sqrt() exact?") == []
    # A page about decimal, or about array, mentions the name under its own heading.
    assert corpus.unspelled("When is decimal.clamp set?") == []
    # Called, a name is mentioned as code: the datetime page speaks of parsing dates, but no
    # parse() is under it. Not called, it may be a field, which prose names ("clamp is 1").
    assert corpus.unspelled("How does datetime.datetime.parse() guess?") == [
        "datetime.datetime.parse"
    ]
    assert corpus.unspelled("Is datetime.strptime() strict?") == []
    assert corpus.unspelled("Does array.byteswap() work in place?") == []
    # Names are read as written: "Type objects ... override" is not the typing page saying
    # "override", although the index stems "typing" and "type" alike.
    assert corpus.unspelled("What does typing.override check?") == ["typing.override"]
    # The asker's own variable qualifies nothing the reference heads an entry with, nor does
    # a parameter's default ("year=self.year").
    assert corpus.unspelled("Why does my_numbers.floor() fail?") == []
    assert corpus.unspelled("Why is self.counter never reset?") == []
    # A name no passage spells at all is named by itself, as before.
    assert corpus.unspelled("What does math.clamp_all() do?") == ["clamp_all"]
    # A question typed in lower case throughout names code in any case; one that uses case
    # names it as written.
    assert corpus.unspelled("is typing.type_checking true when the program runs") == []
    assert corpus.unspelled("what does math.clamp() do to a value out of bounds") == ["math.clamp"]
    assert corpus.unspelled("Is typing.type_checking true when the program runs?") == [
        "typing.type_checking"
    ]


MEANING_PAGES = {
    "text.html": "<title>Text methods</title><h1>removeprefix</h1><p>Return a copy of the text "
    "with the leading characters removed, if they are present.</p>",
    "math.html": "<title>Logarithms</title><p>The natural logarithm of x is computed to full "
    "precision.</p>",
    "files.html": "<title>Opening files</title><p>The mode argument chooses reading or writing; "
    "binary mode returns bytes.</p>",
}
IN_OTHER_WORDS = "How can I strip a prefix off a string?"  # no page writes "prefix" alone


def _vector_count(corpus: LocalCorpus) -> tuple[int, int]:
    import sqlite3

    with sqlite3.connect(corpus.index_path) as db:
        (passages,) = db.execute("SELECT count(*) FROM passages").fetchone()
        (vectors,) = db.execute("SELECT count(*) FROM vectors").fetchone()
    return passages, vectors


@pytest.fixture
def meaning_root(tmp_path: Path) -> Path:
    root = tmp_path / "meaning"
    root.mkdir()
    for name, html in MEANING_PAGES.items():
        (root / name).write_text(html)
    return root


async def test_a_page_that_says_it_in_other_words_is_found_by_meaning(
    meaning_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    said = "Why do plants turn sunlight into sugar?"  # no word of it on any page
    # Searched before any refresh (as inside a run), the index gets no vectors: terms alone.
    termwise = LocalCorpus(meaning_root, index_path=tmp_path / "terms.sqlite")
    assert await top(termwise, said) == []
    assert "searching by terms alone" in caplog.text
    assert _vector_count(termwise)[1] == 0
    made: list[tuple[int, int]] = []
    corpus = LocalCorpus(meaning_root, index_path=tmp_path / "meaning.sqlite")
    corpus.refresh(done=lambda count, total: made.append((count, total)))
    assert made[-1] == (3, 3) and _vector_count(corpus) == (3, 3)
    assert (await top(corpus, IN_OTHER_WORDS))[0] == "text.html"
    # A question on no page's topic finds nothing, however the encoder ranks the pages.
    assert await top(corpus, said) == []
    # The term-wise index gets its vectors on its next refresh, and ranks the same.
    termwise.refresh()
    assert _vector_count(termwise) == (3, 3)
    assert await top(termwise, IN_OTHER_WORDS) == await top(corpus, IN_OTHER_WORDS)


async def test_a_changed_or_removed_page_takes_its_vectors_with_it(
    meaning_root: Path, tmp_path: Path
) -> None:
    corpus = LocalCorpus(meaning_root, index_path=tmp_path / "index.sqlite")
    corpus.refresh()
    (meaning_root / "text.html").write_text("<title>Knitting</title><p>Purl is knit reversed.</p>")
    (meaning_root / "math.html").unlink()
    made: list[tuple[int, int]] = []
    corpus.refresh(done=lambda count, total: made.append((count, total)))
    assert made == [(1, 1)] and _vector_count(corpus) == (2, 2)
    assert "text.html" not in await top(corpus, IN_OTHER_WORDS)
    assert await top(corpus, "logarithm") == []


def test_one_process_at_a_time_makes_an_indexs_vectors(
    meaning_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = tmp_path / "index.sqlite"
    corpus = LocalCorpus(meaning_root, index_path=index)
    made: list[tuple[int, int]] = []
    # Another process holds the lock while it makes the vectors.
    with file_lock(index.with_name("index.sqlite.vectors.lock")):
        worker = threading.Thread(
            target=corpus.refresh, kwargs={"done": lambda n, total: made.append((n, total))}
        )
        worker.start()
        for _ in range(200):
            if "waiting for it" in caplog.text:
                break
            time.sleep(0.05)
        assert "another process is making this index's passage vectors" in caplog.text
        assert worker.is_alive() and _vector_count(corpus) == (3, 0)
        with closing(open_index(index, corpus.root)) as db:
            assert fill_vectors(db) == 3  # what the other process does meanwhile
    worker.join(timeout=60)
    # Once it is done, the waiting refresh finds every vector made and encodes nothing.
    assert not worker.is_alive() and made == [] and _vector_count(corpus) == (3, 3)


def test_an_index_up_to_date_makes_no_vectors_and_loads_no_encoder(
    meaning_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    LocalCorpus(meaning_root, index_path=tmp_path / "index.sqlite").refresh()
    loaded: list[bool] = []
    monkeypatch.setattr(encoder, "sentence_encoder", lambda: loaded.append(True))
    again = LocalCorpus(meaning_root, index_path=tmp_path / "index.sqlite")
    assert again.refresh().unchanged == 3
    assert loaded == [] and _vector_count(again) == (3, 3)


def test_vectors_are_made_a_chunk_at_a_time_for_the_passages_without_one(
    meaning_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index.sqlite"
    corpus = LocalCorpus(meaning_root, index_path=index)
    corpus.refresh(vectors=False)
    monkeypatch.setattr(passagevectors, "_CHUNK", 2)
    made: list[tuple[int, int]] = []
    with closing(open_index(index, corpus.root)) as db:
        assert fill_vectors(db, lambda count, total: made.append((count, total))) == 3
        assert made[-1] == (3, 3) and (2, 3) in made
        # The first and last passages lose their vectors: the one between keeps its own.
        rowids = [r for (r,) in db.execute("SELECT passage FROM vectors ORDER BY passage")]
        kept = db.execute("SELECT vector FROM vectors WHERE passage = ?", rowids[1:2]).fetchone()
        db.executemany("DELETE FROM vectors WHERE passage = ?", [rowids[:1], rowids[2:]])
        assert fill_vectors(db) == 2
        assert (
            db.execute("SELECT vector FROM vectors WHERE passage = ?", rowids[1:2]).fetchone()
            == kept
        )
    assert _vector_count(corpus) == (3, 3)


async def test_without_the_encoder_no_vectors_are_made(
    meaning_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUOTEBOUND_MEANING", "off")
    corpus = LocalCorpus(meaning_root, index_path=tmp_path / "index.sqlite")
    corpus.refresh()
    assert _vector_count(corpus) == (3, 0)
    assert await top(corpus, "leading characters") == ["text.html"]
    assert await top(corpus, IN_OTHER_WORDS) == []
