"""parse_page / sanitize_html: clean text, paragraph blocks, roles, encodings, hostile input."""

from __future__ import annotations

import gc
import hashlib
import json
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotebound.text.html.nesting import cap_depth
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page, sanitize_html

PAGES = Path(__file__).parent.parent / "fixtures" / "pages"
FIXTURES = sorted(p.name for p in PAGES.glob("*.html"))


def _page(name: str, **kw: str) -> Page:
    return parse_page((PAGES / name).read_bytes(), **kw)


def _blocks(page: Page, role: str | None = None) -> list[str]:
    return [page.text[b.start : b.end] for b in page.blocks if role in (None, b.role)]


def _block_of(page: Page, needle: str) -> tuple[str, str]:
    """(role, tag) of the block containing ``needle``."""
    for b in page.blocks:
        if needle in page.text[b.start : b.end]:
            return b.role, b.tag
    raise AssertionError(f"{needle!r} is in no block of {page.text!r}")


def _digest(page: Page) -> str:
    return hashlib.sha256(repr(page).encode()).hexdigest()


# --- structure -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_blocks_are_the_paragraphs_of_the_text_in_order(name: str) -> None:
    page = _page(name)
    texts = _blocks(page)
    assert page.text == "\n\n".join(texts)
    assert all(t and t == t.strip() and "\n\n" not in t for t in texts)
    ends = [(b.start, b.end) for b in page.blocks]
    assert all(e1 + 2 == s2 for (_, e1), (s2, _) in pairwise(ends))


def test_inline_elements_add_no_whitespace_and_entities_are_decoded() -> None:
    assert sanitize_html("<p><code>os</code>.path &amp; sep<i>a</i>rator</p>") == (
        "os.path & separator"
    )
    assert sanitize_html("<p>a&nbsp;&nbsp;b\n\t c&#8212;d</p>") == "a b c—d"


def test_br_rules() -> None:
    page = parse_page("<p>One<br>Two<br><br>Three<br> &nbsp; <br>Four<br></p>")
    assert _blocks(page) == ["One\nTwo", "Three", "Four"]
    assert sanitize_html("<p>a<br/>b<BR>c<br class=x>d</p>") == "a\nb\nc\nd"


def test_block_elements_end_paragraphs_and_script_style_head_are_dropped() -> None:
    html = (
        "<html><head><title>T</title><style>p{}</style><script>var x = 1;</script></head>"
        "<body><div>a<p>b</p>c</div><template><p>tpl</p></template>"
        "<svg><text>svg text</text></svg><iframe>frame</iframe><h2>Head</h2><ul><li>x<li>y</ul>"
        "</body></html>"
    )
    page = parse_page(html)
    assert _blocks(page) == ["a", "b", "c", "Head", "x", "y"]
    assert [b.tag for b in page.blocks] == ["div", "p", "div", "h2", "li", "li"]
    assert page.title == "T"


_ARTICLE = (
    "<p>The council voted on Tuesday to keep the ferry running through the winter, a decision "
    "that residents of the island had campaigned for since the spring.</p>"
    "<p>The ferry will run twice a day from November to March, and fares stay the same for "
    "residents and visitors alike, the council&#8217;s spokesman said.</p>"
)


def test_a_noscript_copy_of_a_script_template_is_read_as_the_article() -> None:
    # Blogger's pages: scripts render the template, a browser without them shows the copy.
    html = (
        "<nav><a href=/a>Home</a> <a href=/b>News</a></nav><div class=post><h2>Ferry</h2>"
        f"<script type='text/template'>{_ARTICLE}</script><noscript>{_ARTICLE}</noscript>"
        "</div><footer>All rights reserved</footer>"
    )
    page = parse_page(html)
    assert _blocks(page, "main")[-2:] == [
        "The council voted on Tuesday to keep the ferry running through the winter, a decision "
        "that residents of the island had campaigned for since the spring.",
        "The ferry will run twice a day from November to March, and fares stay the same for "
        "residents and visitors alike, the council’s spokesman said.",
    ]
    assert page.text.count("The council voted") == 1


def test_a_noscript_no_script_shows_is_not_read() -> None:
    notice = "<noscript><p>Please enable JavaScript in your browser to read the comments.</p>"
    fallback = f"<noscript>{_ARTICLE}</noscript>"  # a copy of nothing a script renders
    page = parse_page(f"<body>{notice}</noscript><article><h1>Ferry</h1>{fallback}</article>")
    assert "JavaScript" not in page.text
    assert "council" not in page.text


def test_a_box_for_readers_without_scripts_is_not_main_content() -> None:
    notice = (
        "<div class='padding_block no_js_blocker'><div class=no_js_message><p>Sorry, but your "
        "browser needs Javascript to use this site. If you're not sure how to activate it, "
        "please refer to this page.</p></div></div>"
    )
    page = parse_page(
        f"<html class=no-js><body class=no-js><div id=page class='site no-js'>{notice}"
        f"<article role=main><h1>Ferry</h1>{_ARTICLE}"
        "<div class=hide-if-no-js><p>Reload the page to see the latest timetable, which the "
        "ferry company updates every morning, as it has done since the spring.</p></div>"
        "</article></div></body></html>"
    )
    main = _blocks(page, "main")
    assert not any("Javascript" in block for block in main)
    assert "Javascript" in page.text  # kept as boilerplate: a reader may still quote it
    # A page or wrapper marked "no-js" until its scripts run is no such box; neither is one
    # that scripts show ("hide-if-no-js").
    assert any(block.startswith("The council voted") for block in main)
    assert any(block.startswith("Reload the page") for block in main)


def test_a_documents_footnotes_are_its_text_an_aside_beside_it_is_not() -> None:
    note = (
        "If newline='' is not specified, newlines embedded inside quoted fields will not be "
        "interpreted correctly."
    )
    aside = "<aside class=sidebar><p>Read our other stories about ferries and islands.</p></aside>"
    sphinx = (
        "<aside class='footnote-list brackets'><aside class='footnote brackets' id=id3 role=note>"
        f"<span class=label>[1]</span><p>{note}</p></aside></aside>"
    )
    docbook = f"<div class=footnotes><br><div class=footnote><p>[1] {note}</p></div></div>"
    for notes in (sphinx, docbook):
        page = parse_page(f"<body><main><h1>Ferry</h1>{_ARTICLE}{notes}{aside}</main></body>")
        main = _blocks(page, "main")
        assert any(note in block for block in main), notes
        assert not any("other stories" in block for block in main)


def test_an_unclosed_element_in_a_noscript_does_not_swallow_the_page() -> None:
    # Markup in <noscript> is text to a browser running scripts: the <div> it opens opens nothing.
    page = parse_page(
        "<html><head><noscript><img src=/pixel.gif></noscript><title>Ferry</title></head>"
        f"<body><noscript><div class=nojs></noscript><main><h1>Ferry</h1>{_ARTICLE}</main>"
        "<noscript></div></noscript></body></html>"
    )
    assert page.title == "Ferry"
    assert _blocks(page, "main")[-2:] == [
        "The council voted on Tuesday to keep the ferry running through the winter, a decision "
        "that residents of the island had campaigned for since the spring.",
        "The ferry will run twice a day from November to March, and fares stay the same for "
        "residents and visitors alike, the council’s spokesman said.",
    ]


def test_a_permalinks_mark_is_not_in_the_text_a_footnotes_is() -> None:
    page = parse_page(
        "<body><main><h2 id=use>Usage<a class=headerlink href='#use'>¶</a></h2>"
        "<dl><dt id=f>f(x)<a class=headerlink href='#f'> ¶ </a></dt>"
        "<dd><p>Return x, as <a href='#use'>Usage</a> says<a href='#n1'>†</a>"
        " (<a href='#n1'>[1]</a>); see <a href='/x'>¶</a> and <a href='#r'>§ 5</a>.</p></dd>"
        "<p id=p2>A rule of its own.<a href='#p2'>§</a><a href='#p2'>#</a></p></main></body>"
    )
    assert page.text == (
        "Usage\n\nf(x)\n\nReturn x, as Usage says† ([1]); see ¶ and § 5.\n\nA rule of its own."
    )


def test_title_falls_back_to_the_first_h1() -> None:
    assert parse_page("<body><h1>First <b>one</b></h1><h1>Second</h1>").title == "First one"
    assert parse_page("<p>none</p>").title == ""


def test_tables_lists_and_pre() -> None:
    page = _page("tables_lists.html")
    blocks = _blocks(page)
    assert "Version\tReleased\tNotes" in blocks
    assert "3.11\t2022-10-24\tFaster CPython" in blocks
    assert "3.12\tPer-interpreter GIL" in blocks  # the empty cell leaves no separator
    assert [b for b in blocks if "item" in b or "Nested" in b] == [
        "First item with a link inside it",
        "Second item",
        "Nested one",
        "Nested two",
    ]
    # <pre> keeps line breaks and indentation; a blank line in it separates paragraphs.
    assert "def f(x):\n    return x  +  1" in blocks
    assert _block_of(page, "print(f(1))") == ("main", "pre")
    assert "Quoted text\non two lines" in blocks
    assert blocks[-3:] == ["One", "Two", "Three"]


def test_sphinx_page() -> None:
    page = _page("sphinx.html")
    assert page.title == "shlex — Simple lexical analysis — Example 3.12 documentation"
    intro = "The shlex class makes it easy to write lexical analyzers for simple syntaxes"
    assert _block_of(page, intro) == ("main", "p")
    assert _block_of(page, "Split the string s using shell-like syntax.") == ("main", "p")
    assert _block_of(page, "shlex.split(s, comments=False)") == ("main", "dt")
    assert _block_of(page, ">>> import shlex\n>>> shlex.split(") == ("main", "pre")
    for chrome in ("Navigation", "Table of Contents", "Quick search", "Report a Bug", "index"):
        assert _block_of(page, chrome)[0] == "boilerplate", chrome
    assert _block_of(page, "This page is licensed under")[0] == "boilerplate"
    assert "MathJax" not in page.text and "getElementById" not in page.text


def test_news_article_boilerplate_is_marked_but_kept() -> None:
    page = _page("news.html")
    main = _blocks(page, "main")
    assert any(b.startswith("Residents of the harbour town voted on Tuesday") for b in main)
    assert any(b.startswith("“We are not a museum,” said the harbour master") for b in main)
    assert any(b.startswith("The vote passed by 1,204 votes to 387.") for b in main)
    boilerplate = [
        "We use cookies",  # cookie banner
        "Sport",  # navigation
        "Share Email Copy link",  # share bar
        "Island school celebrates",  # related articles
        "I have taken that ferry every morning",  # comments
        "Sign up for our morning newsletter",  # newsletter
        "All rights reserved",  # footer
        "Skip to content",
        "Topics: Ferries",
    ]
    for text in boilerplate:
        assert text in page.text, text
        assert _block_of(page, text)[0] == "boilerplate", text
    assert page.author == "Maria Okafor"
    assert page.published == "2024-03-14T09:30:00Z"


def test_metadata_from_json_ld_and_time() -> None:
    ld = '{"@graph": [{"author": [{"name": "Ann Lee"}], "datePublished": "2020"}]}'
    page = parse_page(f'<script type="application/ld+json">{ld}</script><p>x</p>')
    assert (page.author, page.published) == ("Ann Lee", "2020")
    page = parse_page('<article><time datetime="2021-05-01">May</time><p>x</p></article>')
    assert (page.author, page.published) == (None, "2021-05-01")
    page = parse_page('<script type="application/ld+json">{not json</script><p>x</p>')
    assert (page.author, page.published) == (None, None)


def test_pydoc_style_nbsp_and_br() -> None:
    page = _page("pydoc_style.html")
    blocks = _blocks(page)
    assert "Return the index where to insert item x in list a, assuming a is sorted." in blocks
    assert (
        "The return value i is such that all e in a[:i] have e < x, and all e in\n"
        "a[i:] have e >= x. So if x already appears in the list, a.insert(i, x) will\n"
        "insert just before the leftmost x already there."
    ) in blocks
    assert _block_of(page, "bisect_left(a, x, lo=0, hi=None, *, key=None)") == ("main", "dt")
    assert _block_of(page, "Module Reference")[0] == "boilerplate"  # a cell of links
    assert "\xa0" not in page.text


def test_main_landmark_makes_the_rest_boilerplate() -> None:
    page = parse_page("<div>Site name</div><div role=main><p>Body text.</p></div><p>After</p>")
    assert [(b.role, page.text[b.start : b.end]) for b in page.blocks] == [
        ("boilerplate", "Site name"),
        ("main", "Body text."),
        ("boilerplate", "After"),
    ]


def test_link_lists_are_boilerplate_and_prose_with_a_link_is_not() -> None:
    page = parse_page(
        "<ul><li><a href=/a>A long related headline about the harbour</a></li></ul>"
        "<p>The report, <a href=/r>published today</a>, says the harbour will stay open.</p>"
    )
    assert [b.role for b in page.blocks] == ["boilerplate", "main"]


# --- text types ------------------------------------------------------------------------------


def test_text_types_keep_characters_and_split_on_blank_lines() -> None:
    text = "# Title &amp; <b>\n\n  first   line\nsecond\tline  \n \n\n\nlast\r\n"
    for ct in ("text/plain", "text/markdown; charset=utf-8", "application/json", "text/csv"):
        page = parse_page(text, content_type=ct)
        assert _blocks(page) == ["# Title &amp; <b>", "first line\nsecond line", "last"]
        tags = ["h1", "text", "text"] if "markdown" in ct else ["text"] * 3
        assert [(b.role, b.tag) for b in page.blocks] == [("main", t) for t in tags]
    assert parse_page(text, content_type="text/markdown").title == "Title &amp; <b>"
    assert parse_page(text.encode("utf-16"), content_type="text/plain").text.startswith("# T")


# --- encodings -------------------------------------------------------------------------------


def test_undeclared_utf8_is_not_mojibake() -> None:
    page = _page("utf8_undeclared.html")
    assert page.text == "Naïve café – “quoted” — 日本語 ≠ €5"
    assert page.title == "Café menu"


def test_legacy_encodings_declared_in_meta() -> None:
    assert _page("cp1252_meta.html").text == "Le café coûte 3 € — “très” cher…"
    assert _page("cp1252_meta.html").title == "Résumé"
    # Browsers read an ISO-8859-1 label as windows-1252: 0x80 is the euro sign.
    assert _page("latin1_label_cp1252_bytes.html").text == "Prix : 5 € pour l’entrée «spéciale»"


def test_header_charset_beats_meta_and_bom_beats_both() -> None:
    body = "<meta charset=windows-1251><p>Привет, мир</p>"
    assert parse_page(body.encode("koi8-r"), content_type="text/html; charset=KOI8-R").text == (
        "Привет, мир"
    )
    assert parse_page(body.encode("cp1251")).text == "Привет, мир"
    bom = "<meta charset=iso-8859-1><p>naïve – ok</p>"
    assert parse_page(b"\xef\xbb\xbf" + bom.encode("utf-8")).text == "naïve – ok"
    assert parse_page(bom.encode("utf-16"), content_type="text/html; charset=latin-1").text == (
        "naïve – ok"
    )


def test_invalid_bytes_never_raise() -> None:
    page = parse_page(
        b"<p>ok \xff\xfe\xc3( \xed\xa0\x80 end</p>", content_type="text/html; charset=utf-8"
    )
    assert page.text.startswith("ok") and page.text.endswith("end")
    assert parse_page(bytes(range(256)) * 20).text is not None


# --- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        "<div>" * 100_000 + "AFTER",
        "<div>x" * 100_000 + "AFTER" + "</div>" * 100_000 + "<p>TAIL</p>",
        "<span>" * 100_000 + "<div>d</div>" * 1000 + "</i>" * 1000 + "AFTER",
        "</div>" * 100_000 + "<ul><li>" * 100_000 + "AFTER",
        "<DIV>" * 100_000 + "AFTER",
        "<b><i>" * 50_000 + "AFTER",
    ],
    ids=["unclosed-divs", "closed-divs", "spans-then-scans", "stray-end-tags", "upper", "bi"],
)
def test_deep_nesting_keeps_the_text_after_it(html: str) -> None:
    text = sanitize_html(html)
    assert "AFTER" in text
    if "TAIL" in html:
        assert text.endswith("TAIL") and text.count("x") == 100_000


def test_flattening_deep_markup_keeps_paragraph_breaks() -> None:
    html = "<div>" * 600 + "<p>one</p><section>two</section>" + "</div>" * 600 + "<p>three</p>"
    assert _blocks(parse_page(html)) == ["one", "two", "three"]


@pytest.mark.parametrize("name", FIXTURES)
def test_the_flattening_path_agrees_with_the_fast_path(name: str) -> None:
    html = (PAGES / name).read_bytes().decode("utf-8", "replace")
    assert parse_page(cap_depth(html)) == parse_page(html)


def test_a_50_megabyte_page_in_a_subprocess() -> None:
    code = """
import json, resource, sys
from quotebound.text.parsing import parse_page
para = "<p>" + " ".join(f"w{i}" for i in range(90)) + " &amp; <b>bold</b> <a href=/x>x</a>.</p>\\n"
html = "<body><div>FIRST</div>" + para * (50_000_000 // len(para) + 1) + "<p>LAST</p></body>"
page = parse_page(html)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(json.dumps([len(html), len(page.blocks), page.text[:5], page.text[-4:], rss]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    size, blocks, first, last, rss_mb = json.loads(out.stdout)
    assert size >= 50_000_000 and blocks > 100_000, (size, blocks)
    assert (first, last) == ("FIRST", "LAST")
    assert rss_mb < 2000  # linear in the page: well under 40 bytes per input byte


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("a\x00b<p>c\x00</p>", "ab\n\nc"),
        ("<div><p>one<p>two<ul><li>three<li>four", "one\n\ntwo\n\nthree\n\nfour"),
        ("a < b and c <", "a < b and c <"),
        ("<", "<"),
        ("x <<>> y", "x <<>> y"),
        ("a<!-- hidden -->b<![CDATA[zz]]>c", "abc"),
        ("<p class=a\"b id=x'y =z data-=>text</p><p title='x>y' <>more</p>", "text\n\nmore"),
        ("<p>mark\ufdd0s\ufdd1 go\ufdd2</p>", "marks go"),
        ("", ""),
        ("   \n\t ", ""),
    ],
)
def test_malformed_input(html: str, expected: str) -> None:
    assert sanitize_html(html) == expected
    assert sanitize_html(html.encode("utf-8")) == expected


def test_unterminated_tags_are_linear() -> None:
    text = sanitize_html("<a " * 200_000 + ">AFTER")
    assert "AFTER" in text


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<div>",
                "</div>",
                "<p>",
                "</p>",
                "<br>",
                "<td>",
                "<tr>",
                "<table>",
                "</table>",
                "<pre>",
                "</pre>",
                "<a href=x>",
                "</a>",
                "<nav>",
                "</nav>",
                "<script>",
                "</script>",
                "<!--",
                "-->",
                "<",
                ">",
                "&amp;",
                "&nbsp;",
                " ",
                "\n",
                "word",
                "é",
                "\x00",
            ]
        ),
        max_size=60,
    )
)
def test_any_token_soup_parses_into_consistent_blocks(tokens: list[str]) -> None:
    page = parse_page("".join(tokens))
    assert page.text == "\n\n".join(_blocks(page))
    assert all(t and t == t.rstrip() for t in _blocks(page))


def test_the_garbage_collector_is_left_as_it_was() -> None:
    parse_page("<p>x</p>")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_page("<p>x</p>")
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- determinism -----------------------------------------------------------------------------


def test_same_pages_in_two_runs_and_two_processes() -> None:
    here = {name: _digest(_page(name)) for name in FIXTURES}
    assert here == {name: _digest(_page(name)) for name in FIXTURES}
    code = """
import hashlib, json, pathlib, sys
from quotebound.text.parsing import parse_page
d = pathlib.Path(sys.argv[1])
print(json.dumps({n: hashlib.sha256(repr(parse_page((d / n).read_bytes())).encode()).hexdigest()
                  for n in json.loads(sys.argv[2])}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code, str(PAGES), json.dumps(FIXTURES)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == here


def test_thousands_of_noscript_copies_are_read_only_up_to_a_bound() -> None:
    template = f"<script type='text/template'>{_ARTICLE}</script>"
    page = parse_page(template + f"<div><noscript>{_ARTICLE}</noscript></div>" * 5000)
    assert page.text.count("The council voted") == 64  # noscript._MAX_ASKED

    def nested(depth: int) -> str:
        return "<noscript>" * depth + _ARTICLE + "</noscript>" * depth

    assert parse_page(template + nested(3)).text.count("The council voted") == 1
    # Each copy's own copy is asked about too: past the bound, the innermost is not reached.
    assert parse_page(template + nested(5000)).text.count("The council voted") == 0
