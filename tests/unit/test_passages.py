"""Passages and their heading paths; pages with poor roles still have content."""

from __future__ import annotations

from quotebound.text.page import Block, Page
from quotebound.text.parsing import parse_page
from quotebound.text.passages import HeadingIndex, passages, under_heading

DOC = """<html><head><title>Resource Consumption</title></head><body><main>
<h1 id=rc>Resource Consumption<a class=headerlink href='#rc'>¶</a></h1>
<h2 id=disk>Disk<a class=headerlink href='#disk'>¶</a></h2>
<dl><dt id=tfl>temp_file_limit (integer)<a class=headerlink href='#tfl'>¶</a></dt>
<dd><p>Specifies the maximum amount of disk space that a process can use for temporary files.
A transaction attempting to exceed this limit will be canceled.</p></dd></dl>
<h2 id=mem>Memory<a class=headerlink href='#mem'>¶</a></h2>
<p>Memory settings come next and say how much memory each process may use.</p>
</main></body></html>"""


def test_passages_carry_their_heading_path_and_definition_term() -> None:
    page = parse_page(DOC)
    found = {p.text.split()[-1]: p.headings for p in passages(page)}
    assert found["canceled."] == ("Resource Consumption", "Disk", "temp_file_limit (integer)")
    assert found["use."] == ("Resource Consumption", "Memory")
    offset = page.text.index("Memory settings")
    assert HeadingIndex(page).at(offset) == ("Resource Consumption", "Memory")


def test_a_heading_reads_as_written_its_permalink_mark_aside() -> None:
    page = parse_page(
        "<main><h1 id=c>Learning   C#<a class=headerlink href='#c'>¶</a></h1>"
        "<dl><dt id=p>%#</dt><dd><p>If the session user is a database superuser, then a #,"
        " otherwise a &gt;.</p></dd></dl></main>"
    )
    assert [p.headings for p in passages(page)] == [("Learning C#", "%#")]


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
