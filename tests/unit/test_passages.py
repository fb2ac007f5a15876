"""Passages and their heading paths; pages with poor roles still have content."""

from __future__ import annotations

from quotebound.text.page import Block, Page
from quotebound.text.parsing import parse_page
from quotebound.text.passages import HeadingIndex, clean_heading, passages, under_heading

DOC = """<html><head><title>Resource Consumption</title></head><body><main>
<h1>Resource Consumption¶</h1><h2>Disk¶</h2>
<dl><dt>temp_file_limit (integer)¶</dt>
<dd><p>Specifies the maximum amount of disk space that a process can use for temporary files.
A transaction attempting to exceed this limit will be canceled.</p></dd></dl>
<h2>Memory¶</h2><p>Memory settings come next and say how much memory each process may use.</p>
</main></body></html>"""


def test_passages_carry_their_heading_path_and_definition_term() -> None:
    page = parse_page(DOC)
    found = {p.text.split()[-1]: p.headings for p in passages(page)}
    assert found["canceled."] == ("Resource Consumption", "Disk", "temp_file_limit (integer)")
    assert found["use."] == ("Resource Consumption", "Memory")
    offset = page.text.index("Memory settings")
    assert HeadingIndex(page).at(offset) == ("Resource Consumption", "Memory")


def test_clean_heading_drops_anchor_marks() -> None:
    assert clean_heading("  1.1. Command   line¶ ") == "1.1. Command line"


def test_passages_come_from_main_blocks_only() -> None:
    text = "Menu Home News Sport Weather\n\nFirst paragraph of the story, as the reader sees it."
    blocks = (Block(0, 28, "boilerplate", "p"), Block(30, len(text), "main", "p"))
    page = Page(text=text, title="Story", blocks=blocks)
    assert [p.text for p in passages(page)] == [text[30:]]
    assert list(passages(parse_page(DOC)))  # a parsed page with text always has main blocks


def test_a_text_reads_under_the_last_heading_of_its_path_unless_that_is_the_title() -> None:
    path = "Design and History FAQ / How are lists implemented in CPython?"
    assert (
        under_heading(path, "CPython's lists are arrays.")
        == "How are lists implemented in CPython?: CPython's lists are arrays."
    )
    assert under_heading("", "Text.") == "Text."
    assert under_heading("Python FAQ", "Text.", besides="Python FAQ") == "Text."
    assert under_heading("Python FAQ", "Text.", besides="Other") == "Python FAQ: Text."
