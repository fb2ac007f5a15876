"""Main-content roles by scoring: each signal weighs, none vetoes, every page with text has main.

Small hand-made pages, one per signal, then a sample of real pages from the shared
main-content evaluation set (skipped when ``../shared/data`` is absent) with a recall floor.
"""

from __future__ import annotations

import json
import lzma
import random
import tarfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotebound.text.maincontent import roles
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page

ARTICLE = [
    "Residents of the harbour town voted on Tuesday to keep the island ferry running for at "
    "least another ten years, after a campaign that filled the village hall three nights.",
    "The council had proposed replacing the ferry with a weekly boat service, arguing that the "
    "vessel, built in 1978, would need repairs costing more than the library's yearly budget.",
    "The vote passed by 1,204 votes to 387, and the council will now ask the regional "
    "government to share the cost of a new engine before the summer season begins.",
]


def _paras(*texts: str) -> str:
    return "".join(f"<p>{t}</p>" for t in texts)


def _role(page: Page, needle: str) -> str:
    """The role of the block containing ``needle``."""
    for b in page.blocks:
        if needle in page.text[b.start : b.end]:
            return b.role
    raise AssertionError(f"{needle!r} not in the page text")


def _assert_roles(page: Page, main: Sequence[str], boilerplate: Sequence[str] = ()) -> None:
    """Each text of ``main`` lies in a main block of ``page``, each of ``boilerplate`` in a
    boilerplate one."""
    for text in main:
        assert _role(page, text) == "main", text
    for text in boilerplate:
        assert _role(page, text) == "boilerplate", text


def _main(page: Page) -> str:
    return "\n".join(page.text[b.start : b.end] for b in page.blocks if b.role == "main")


MENU = (
    "<nav><ul><li><a href=/>Home</a></li><li><a href=/n>News</a></li>"
    "<li><a href=/s>Sport</a></li></ul></nav>"
)


def test_a_share_bar_inside_an_article_keeps_the_article_main() -> None:
    page = parse_page(
        f"<body>{MENU}<article><h1>Ferry vote</h1>"
        "<div class='share-bar'><a href=/f>Facebook</a> <a href=/t>Twitter</a> "
        "<a href=/m>Email this story</a></div>"
        f"{_paras(*ARTICLE)}</article></body>"
    )
    _assert_roles(page, ARTICLE, ["Email this story", "Sport"])


def test_an_article_outside_a_main_that_holds_only_a_hero_image_is_still_main() -> None:
    page = parse_page(
        f"<body>{MENU}<main><figure><img src=hero.jpg alt=''></figure></main>"
        f"<div class=story>{_paras(*ARTICLE)}</div>"
        "<footer><p>© 2024 The Coast Courier</p></footer></body>"
    )
    _assert_roles(page, ARTICLE, ["The Coast Courier"])


def test_an_ad_classed_wrapper_around_the_whole_page_vetoes_nothing() -> None:
    page = parse_page(
        f"<body><div class='ad-wrapper' id='header'>{MENU}"
        f"<div class=content>{_paras(*ARTICLE)}</div></div></body>"
    )
    _assert_roles(page, ARTICLE)


def test_a_generated_id_that_ends_in_ad_is_no_ad_box() -> None:
    # Org-mode, Elementor and UUIDs name boxes with hexadecimal ids: "orgd7109ad" is a hash,
    # not the word "ad"; "ad300x250" and "top-ad" are ad boxes.
    sections = "".join(
        f"<div id='outline-container-org{h}' class='outline-2'><h2>Part {n}</h2>"
        f"<div class='outline-text-2'><p>{text}</p></div></div>"
        for n, (h, text) in enumerate(zip(("ea1d19b", "d7109ad", "1a103d6"), ARTICLE, strict=True))
    )
    offer = "Book your harbour ferry tickets today and save on every crossing this summer."
    page = parse_page(
        f"<body><div id=content>{sections}<div id=ad300x250><p>{offer}</p></div>"
        f"<div class=top-ad><p>{offer} Limited seats.</p></div></div></body>"
    )
    _assert_roles(page, ARTICLE, [offer, "Limited seats"])


def test_a_gallery_whose_captions_hold_the_article_keeps_them_main() -> None:
    # A slideshow tells its story in its slides' captions; an article with a photo does not.
    slides = [
        "What you need: a yellow raincoat, rubber boots and a paper boat will turn you into "
        "the harbour's ferry captain, with a cap borrowed from the local sailing club.",
        "What you need: a striped jumper, a knitted hat and a rope coiled over one shoulder, "
        "and you are the island's lighthouse keeper for the night, lantern and all.",
        "What you need: wellington boots, a fishing net and a bucket of painted shells make "
        "the easiest costume of the season, finished in an afternoon at the kitchen table.",
    ]
    gallery = "".join(
        f"<figure><img src=/{n}.jpg><figcaption class=slide-caption><p>{text}</p>"
        "</figcaption></figure>"
        for n, text in enumerate(slides)
    )
    page = parse_page(
        f"<body><article><p>{ARTICLE[0]}</p><div class=gallery>{gallery}</div></article></body>"
    )
    for text in slides:
        assert _role(page, text) == "main"
    credit = "The island ferry leaving the harbour at dawn, seen from the old sea wall."
    page = parse_page(
        f"<body><article>{_paras(*ARTICLE)}<figure><img src=/ferry.jpg>"
        f"<figcaption class=slide-caption>{credit}</figcaption></figure></article></body>"
    )
    assert _role(page, ARTICLE[1]) == "main"
    assert _role(page, credit) == "boilerplate"
    # Captions inside a related list are its teasers, not the story: they do not count.
    teasers = gallery.replace("<figure>", "<figure><a href=/more>").replace(
        "</figure>", "</a></figure>"
    )
    page = parse_page(
        f"<body><article>{_paras(*ARTICLE)}<figure><img src=/ferry.jpg>"
        f"<figcaption class=slide-caption>{credit}</figcaption></figure>"
        f"<div class=related-stories>{teasers}</div></article></body>"
    )
    assert _role(page, credit) == "boilerplate"
    # Boxes a class word names (a thread of comments) are taken at their word, however many.
    thread = "".join(f"<div class=comment><p>{text}</p></div>" for text in slides)
    page = parse_page(f"<body><article><p>{ARTICLE[0]}</p>{thread}</article></body>")
    assert _role(page, ARTICLE[0]) == "main"
    for text in slides:
        assert _role(page, text) == "boilerplate"


def test_a_comment_thread_under_an_article_is_boilerplate() -> None:
    comments = [
        "I have taken that ferry every morning for thirty years, and I cannot imagine the "
        "island without it, so this is the best news we have had in a long, long time.",
        "Somebody has to pay for the engine, and I would like the council to publish the full "
        "repair estimate before anyone celebrates this result too loudly, to be honest.",
    ]
    page = parse_page(
        f"<body>{MENU}<article>{_paras(*ARTICLE)}</article>"
        "<section id=comments><h2>Comments</h2>"
        + "".join(f"<div class=comment><p>{c}</p></div>" for c in comments)
        + "</section></body>"
    )
    _assert_roles(page, ARTICLE, comments)


POSTS = [
    "Since the last update my phone only reaches the app store over wifi, never over mobile "
    "data, and I have already reset the network settings twice without any luck at all.",
    "Check the background refresh settings once more and look at which apps are allowed to "
    "use mobile data there; after the update mine had quietly switched the store off.",
    "That was it: the store had lost its mobile data permission in the update, and with the "
    "switch turned back on it loads at once, even out on the ferry with one bar of signal.",
]


FORUM = "".join(
    f"<div class=forum-comment><div class=comment-author>user{n}</div>"
    f"<div class=comment-text><p>{text}</p></div></div>"
    for n, text in enumerate(POSTS)
)
COMMENTARY = "".join(
    f"<div class='match-comment left'><div class=match-comment-time>{n}'</div>"
    f"<div class=match-comment-body><p>{text}</p></div></div>"
    for n, text in enumerate(POSTS)
)
REPORT = "<p>Our verdict on the ferry's new engine, in short.</p>" + "".join(
    f"<section class='report__section report__section--ads'><p>{text}</p></section>"
    for text in [*ARTICLE, *POSTS]
)


@pytest.mark.parametrize(
    ("body", "texts", "furniture"),
    [
        (f"<main><h1>App store over mobile data</h1>{FORUM}</main>", POSTS, "user1"),
        (f"<main><div class=match-comments>{COMMENTARY}</div></main>", POSTS, "2'"),
        (f"<article class=report>{REPORT}</article>", [*ARTICLE, *POSTS], "Sport"),
    ],
    ids=["forum-posts", "commentary-in-a-comments-wrapper", "report-sections-named-ads"],
)
def test_boxes_named_boilerplate_with_no_article_beside_them_are_the_content(
    body: str, texts: list[str], furniture: str
) -> None:
    # A forum's posts and a live match's commentary are classed "comment", a test report's
    # sections "--ads" (they hold ad slots): with no article in the region for them to
    # comment on, they are the page's content; their authors and times stay furniture.
    page = parse_page(f"<body>{MENU}{body}</body>")
    for text in texts:
        assert _role(page, text) == "main"
    assert _role(page, furniture) == "boilerplate"


def test_comments_beside_an_article_stay_boilerplate_inside_a_wrapper() -> None:
    # A comments box that holds most of a short article's region is taken as a wrapper, but
    # the comments in it still comment on the article beside them.
    page = parse_page(
        f"<body><div class=single><p>{ARTICLE[0]}</p><div class=comments>"
        "<ol class=commentlist>"
        + "".join(f"<li class=comment><div class=comment-body><p>{t}</p></div></li>" for t in POSTS)
        + "</ol></div></div></body>"
    )
    assert _role(page, ARTICLE[0]) == "main"
    for text in POSTS:
        assert _role(page, text) == "boilerplate"


def test_an_article_in_a_box_named_like_boilerplate_is_main_when_nothing_else_is() -> None:
    # The article's own box is named like an author's box ("author-article"), beside the
    # author's other stories: the first reading finds their heading alone. Read again with the
    # box that holds the page's prose taken by its tag, the article is main, and the share
    # button and the teasers are not.
    teasers = "".join(
        f"<div class=material><a href=/m{i}><div class=text>Podolski scores twice as the club "
        f"wins its {i}th match of the season</div></a></div>"
        for i in range(30)
    )
    page = parse_page(
        f"<body>{MENU}<div class=col-top><article class=author-article><h1>Ferry vote</h1>"
        "<div class=article-photo><div class=photo-text><span class=author>Photo: Alexander "
        "Smithson, Gazette</span> <span class=photo-date>12 May 2021, 14:05</span></div></div>"
        f"<div class=article-text>{_paras(*ARTICLE)}</div><div class=social-buttons>"
        "<a href=/f>Share</a></div></article><article class=author-materials>"
        f"<h3>More from the author</h3><div class=slider>{teasers}</div></article></div></body>"
    )
    _assert_roles(page, ARTICLE, ["Share", "wins its 3th match"])


def test_a_sidebar_of_linked_teasers_stays_boilerplate_beside_a_short_post() -> None:
    # A short post beside a news widget whose teasers hold most of the page's prose: a
    # quarter of the widget's text is links, so it is not read as the page's misnamed article.
    teasers = "".join(
        f"<li><a href=/n{i}>{text.split(',')[0]}</a><p>{text}</p></li>"
        for i, text in enumerate(NEXT_STORY)
    )
    page = parse_page(
        f"<body>{MENU}<div class=post><h2>Ferry vote</h2><p>{ARTICLE[0]}</p></div>"
        f"<div class='widget widget_rss'><ul>{teasers}</ul></div></body>"
    )
    assert _role(page, ARTICLE[0]) == "main"
    for text in NEXT_STORY:
        assert _role(page, text) == "boilerplate"


NEXT_STORY = [
    "The regional rail operator said on Monday that night trains between the two cities will "
    "return in spring, after the line's signalling was renewed over eighteen months of work.",
    "Tickets go on sale in February, the operator said, and the sleeper cars, refitted with "
    "wider berths, will run three nights a week before a daily service begins in the summer.",
    "Passenger groups welcomed the news, though they asked that fares stay within reach of "
    "families, who made up most of the travellers on the line before it closed in 2019.",
    "The operator expects about forty thousand journeys in the first year, and has said the "
    "timetable will be set so that the morning arrival meets the first regional connections.",
]


def _story(headline: str, paragraphs: list[str]) -> str:
    return (
        f"<div class=scrollblock><article class=entry-main-content><h1>{headline}</h1>"
        f"<div class=entry-text>{_paras(*paragraphs)}</div></article></div>"
    )


@pytest.mark.parametrize("first", [True, False], ids=["named-first", "named-second"])
def test_of_a_stream_of_stories_the_one_the_title_names_is_main(first: bool) -> None:
    # A news site appends the next stories below the one asked for, each in a box of the same
    # kind with its own headline; the longer story scores better, but the page's title names
    # the ferry story's headline: that is the article, and the other stories are not.
    stories = [_story("Ferry vote keeps the island service", ARTICLE)]
    stories.insert(first, _story("Night trains to return in spring", NEXT_STORY))
    page = parse_page(
        "<html><head><title>Daily Post | Ferry vote keeps the island service</title></head>"
        f"<body>{MENU}<main class=main-content><section class=column>{''.join(stories)}"
        "</section></main></body></html>"
    )
    _assert_roles(page, ARTICLE, NEXT_STORY)
    # Without a title that names one of them, the page is not read as a stream.
    plain = parse_page(
        "<html><head><title>Daily Post</title></head>"
        f"<body>{MENU}<main class=main-content><section class=column>{''.join(stories)}"
        "</section></main></body></html>"
    )
    assert _role(plain, NEXT_STORY[0]) == "main"


SETTINGS = [
    "This setting decides how much is written to the log. The default writes enough to "
    "support archiving and replication, including running read-only queries on a standby.",
    "If this parameter is on, the server makes sure that updates are written to disk, by "
    "issuing system calls or various equivalent methods, and waits for the disk to confirm.",
    "Turning this parameter off speeds normal operation, but might lead to unrecoverable data "
    "corruption after a system failure, so it should only be turned off with great care.",
    "The amount of shared memory used for log data that has not yet been written to disk, "
    "which is taken from the main pool when the server starts and cannot change while it runs.",
]


def _section(sid: str, title: str, paras: list[str]) -> str:
    items = "".join(f"<dt>setting_{i}</dt><dd>{_paras(p)}</dd>" for i, p in enumerate(paras))
    return (
        f"<div class=sect2 id={sid}><div class=titlepage><h3>{title}</h3></div>"
        f"<div class=variablelist><dl class=variablelist>{items}</dl></div></div>"
    )


def test_every_section_of_a_reference_page_is_main_not_only_the_longest() -> None:
    # A reference page (DocBook's layout) splits one body into sections, each its own box;
    # the longest section is the best candidate, the others are no less the page's content.
    later = [
        "Maximum time between automatic checkpoints. If this value is specified without "
        "units, it is taken as seconds, and the valid range is between thirty seconds and a day.",
        "Maximum size to let the log grow during automatic checkpoints. This is a soft limit; "
        "the log can exceed it under heavy load, a failing archive command, or a high setting.",
    ]
    page = parse_page(
        "<body><div class=navheader><table><tr><td><a href=/p>Prev</a></td>"
        "<td><a href=/n>Next</a></td></tr></table></div><div class=sect1><h2>Write Ahead Log</h2>"
        + _section("settings", "Settings", SETTINGS * 3)
        + _section("checkpoints", "Checkpoints", later)
        + "</div><div class=navfooter><a href=/p>Prev</a> <a href=/h>Home</a></div></body>"
    )
    for text in [*SETTINGS, *later]:
        assert _role(page, text) == "main"
    assert _role(page, "Home") == "boilerplate"


def test_a_docbook_section_whose_id_reads_as_a_box_is_main() -> None:
    # DocBook names each section from its title ("SQL-SYNTAX-COMMENTS" for "Comments",
    # "APP-PSQL-META-COMMANDS"): the section is the document's, whatever its title says.
    comments = [
        "A comment is a sequence of characters beginning with double dashes and extending to "
        "the end of the line, which the server removes before the query is parsed further."
    ]
    page = parse_page(
        "<body><div class=navheader><a href=/p>Prev</a> <a href=/n>Next</a></div>"
        "<div class=sect1 id=SQL-SYNTAX><h2>Lexical Structure</h2>"
        "<div class=sect2 id=SQL-SYNTAX-CONSTANTS><div class=titlepage><h3>Constants</h3></div>"
        f"{_paras(*SETTINGS)}</div>"
        "<div class=sect2 id=SQL-SYNTAX-COMMENTS><div class=titlepage><h3>Comments</h3></div>"
        f"{_paras(*comments)}</div></div>"
        "<div class=navfooter><a href=/p>Prev</a> <a href=/h>Home</a></div></body>"
    )
    for text in [*SETTINGS, *comments]:
        assert _role(page, text) == "main"
    assert _role(page, "Home") == "boilerplate"


def test_the_sections_beside_a_long_options_section_are_main() -> None:
    # The options section outweighs the description and notes together; they are read all
    # the same, as boxes of the same kind as the section the best candidate sits in.
    notes = [
        "The dump file does not contain the statistics used by the optimizer to make query "
        "planning decisions, so it is wise to run the statistics command after restoring it.",
    ]
    description = [
        "This tool extracts a database into a script file or other archive file, and makes "
        "consistent exports even while the database is being used concurrently by others.",
    ]
    page = parse_page(
        "<body><div class=refentry><div class=refsect1><div class=titlepage><h2>Description</h2>"
        f"</div>{_paras(*description)}</div><div class=refsect1><div class=titlepage>"
        "<h2>Options</h2></div><div class=variablelist><dl class=variablelist>"
        + "".join(f"<dt>--opt{i}</dt><dd>{_paras(p, p)}</dd>" for i, p in enumerate(SETTINGS * 4))
        + "</dl></div></div><div class=refsect1><div class=titlepage><h2>Notes</h2></div>"
        f"{_paras(*notes)}</div></div></body>"
    )
    for text in [*description, *SETTINGS, *notes]:
        assert _role(page, text) == "main"


def _pydoc_section(title: str, body: str) -> str:
    """A section as pydoc renders a module: a table whose rows hold its title and its body."""
    return (
        f"<table class=section><tr class=decor><td class=section-title colspan=3>"
        f"<strong class=bigsection>{title}</strong></td></tr><tr><td class=decor>&nbsp;</td>"
        f"<td>&nbsp;</td><td class=singlecolumn>{body}</td></tr></table>"
    )


def _pydoc_entries(docs: Sequence[str]) -> str:
    return "".join(f"<dl><dt>entry_{i}(x)</dt><dd>{d}</dd></dl>" for i, d in enumerate(docs))


@pytest.mark.parametrize("classes", [1, 3], ids=["one class", "three classes"])
def test_a_modules_functions_are_main_beside_its_long_classes_section(classes: int) -> None:
    # pydoc renders a module as tables of one kind (Classes, Functions, Data), each body in a
    # row's cell, and each class as a table of that kind again inside "Classes". The methods
    # of one class may outweigh the rest; the functions are the module's all the same.
    functions = [
        "Return a random text string, in hexadecimal, with twice as many digits as bytes.",
        "Return True when both strings are equal, in time that does not depend on the content.",
    ]
    class_body = _pydoc_entries(SETTINGS * 4)
    page = parse_page(
        "<body><table class=heading><tr><td><a href=.>index</a></td></tr></table>"
        + _pydoc_section("Modules", "<a href=os.html>os</a>")
        + _pydoc_section("Classes", _pydoc_section("class Box", class_body) * classes)
        + _pydoc_section("Functions", _pydoc_entries(functions))
        + "</body>"
    )
    for text in [*SETTINGS, *functions]:
        assert _role(page, text) == "main"
    assert _role(page, "index") == "boilerplate"


def test_headings_that_link_back_to_the_contents_are_main() -> None:
    # Sphinx's FAQ pages: each question is a heading whose text is a link back to the page's
    # contents, and the answers under it are read under that heading.
    questions = ["How are lists implemented?", "How are ferries scheduled?"]
    sections = "".join(
        f"<section id=q{i}><h2><a class=toc-backref href='#c{i}'>{q}</a>"
        f"<a class=headerlink href='#q{i}'>¶</a></h2>{_paras(ARTICLE[i])}</section>"
        for i, q in enumerate(questions)
    )
    page = parse_page(f"<body>{MENU}<div class=body><h1>FAQ</h1>{sections}</div></body>")
    for text in [*questions, *ARTICLE[:2]]:
        assert _role(page, text) == "main"
    # A heading that links to another page is still a link.
    teaser = "<h3><a href='/other'>Island school celebrates its hundredth year</a></h3>"
    page = parse_page(f"<body><article>{_paras(*ARTICLE)}</article>{teaser}</body>")
    assert _role(page, "Island school") == "boilerplate"


def _linked_section(sid: str, title: str, *texts: str) -> str:
    link = f"<a class=headerlink href='#{sid}'>¶</a>"
    return f"<section id={sid}><h2>{title}{link}</h2>{_paras(*texts)}</section>"


def test_a_section_whose_permalinked_id_reads_as_a_box_is_main() -> None:
    # Sphinx names each section after its heading and links the heading to it: "Menus" and
    # "Editing and navigation" are sections of the page, not a menu or a navigation bar.
    startup = "IDLE starts a shell window unless it is given files to edit, which it opens."
    page = parse_page(
        f"<body>{MENU}<div class=body><section id=idle><h1>IDLE</h1>"
        + _linked_section("menus", "Menus", ARTICLE[0])
        + _linked_section("editing-and-navigation", "Editing and navigation", ARTICLE[1])
        + _linked_section("startup", "Startup", ARTICLE[2], startup)
        + "</section></div></body>"
    )
    for text in [*ARTICLE, startup]:
        assert _role(page, text) == "main"
    assert _role(page, "Sport") == "boilerplate"
    # Without the heading's link the id still says what the box is, and a permalink leaves
    # the class its say.
    thread = "<div class=comment><p>I take that ferry every day and I am glad it stays.</p></div>"
    for box in (
        f"<section id=comments><h2>Comments</h2>{thread}</section>",
        f"<section id=c1 class=comments><h2>Comments<a href='#c1'>¶</a></h2>{thread}</section>",
    ):
        page = parse_page(f"<body>{MENU}<article>{_paras(*ARTICLE)}</article>{box}</body>")
        assert _role(page, "I take that ferry") == "boilerplate"


def test_a_sentence_whose_names_are_links_is_main_a_list_of_links_is_not() -> None:
    # Release notes link every name they mention: most of such an item is link text, yet it
    # says something in its own words. A list of headlines says nothing but its links.
    item = (
        "Added the verbs <a href=/a>SQLITE_STATUS_PAGECACHE_SIZE</a> and <a href=/b>"
        "SQLITE_STATUS_SCRATCH_SIZE</a> to the <a href=/c>sqlite3_status()</a> interface of "
        "each connection."
    )
    related = "".join(
        f"<li><a href=/r{i}>Island school celebrates its hundredth year, number {i}</a></li>"
        for i in range(3)
    )
    short = "Added support for <a href=/d>ALTER TABLE DROP COLUMN</a>."  # 19 of its own
    page = parse_page(
        f"<body>{MENU}<article><h1>Release notes</h1>{_paras(*ARTICLE)}<ol><li>{item}</li>"
        f"<li>{short}</li></ol></article><div><h3>More news</h3><ul>{related}</ul></div></body>"
    )
    assert _role(page, "Added the verbs") == "main"
    assert _role(page, "Added support for") == "main"
    assert _role(page, "Island school") == "boilerplate"


def test_a_table_of_data_inside_an_article_is_main() -> None:
    table = "<table><tr><th>Year</th><th>Passengers</th></tr><tr><td>2022</td><td>41,200</td>"
    table += "</tr><tr><td>2023</td><td>43,950</td></tr></table>"
    page = parse_page(
        f"<body>{MENU}<article>{_paras(*ARTICLE[:2])}{table}{_paras(ARTICLE[2])}</article></body>"
    )
    assert _role(page, "2023\t43,950") == "main"
    assert _role(page, "Year\tPassengers") == "main"


def test_related_links_and_a_newsletter_box_inside_the_article_stay_boilerplate() -> None:
    page = parse_page(
        f"<body><article>{_paras(*ARTICLE)}"
        "<div class=related-stories><h3>Read more</h3><ul>"
        "<li><a href=/1>Island school celebrates its hundredth year with a parade</a></li>"
        "<li><a href=/2>New timetable for the coastal bus brings earlier departures</a></li>"
        "</ul></div><div class=newsletter-signup><p>Sign up for our morning newsletter and get "
        "the most important local stories from the coast, every weekday.</p></div>"
        "</article></body>"
    )
    _assert_roles(page, ARTICLE, ["Island school", "morning newsletter"])


def test_a_lead_above_the_body_past_a_byline_is_main_and_metadata_is_read() -> None:
    lead = "The island keeps its lifeline: a decade more of daily crossings, voters decided."
    page = parse_page(
        "<body><div class=top><h1>Harbour town keeps its ferry</h1>"
        f"<p class=standfirst>{lead}</p><div class=byline>By Maria Okafor</div>"
        "<div class=date>14 March 2024</div></div>"
        f"<div class=body>{_paras(*ARTICLE)}</div></body>"
    )
    assert _role(page, lead) == "main"
    assert _role(page, "By Maria Okafor") == "boilerplate"
    assert _role(page, "Harbour town keeps its ferry") == "boilerplate"
    assert page.headline == "Harbour town keeps its ferry"
    assert page.byline == "By Maria Okafor"


def test_json_ld_article_body_is_strong_evidence() -> None:
    body = " ".join(ARTICLE)
    ld = json.dumps({"@type": "NewsArticle", "headline": "Ferry stays", "articleBody": body})
    teaser = (
        "Weather: a long spell of sunshine, with light winds from the west, is expected for the "
        "whole weekend across the coast, according to the regional forecast, as usual."
    )
    page = parse_page(
        f"<head><script type='application/ld+json'>{ld}</script></head><body>"
        f"<div class=x>{_paras(teaser, teaser[::-1])}</div><div class=y>{_paras(*ARTICLE)}</div>"
        "</body>"
    )
    assert _role(page, ARTICLE[0]) == "main"
    assert _role(page, teaser) == "boilerplate"
    assert page.headline == "Ferry stays"


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["div", "nav", "footer", "aside", "p", "section", "li", "h2", "a"]),
            st.sampled_from(["", "ad", "share", "comment", "content", "nav", "article-body"]),
            st.text(alphabet="abc ,.", min_size=0, max_size=60),
        ),
        max_size=12,
    )
)
def test_a_page_with_text_always_has_main_blocks(parts: list[tuple[str, str, str]]) -> None:
    html = "".join(f"<{tag} class='{cls}'>{text}</{tag}>" for tag, cls, text in parts)
    page = parse_page(f"<body>{html}</body>")
    assert bool(page.text.strip()) == any(b.role == "main" for b in page.blocks)


def test_sanitize_skips_roles_but_keeps_the_same_text() -> None:
    html = f"<body>{MENU}<article>{_paras(*ARTICLE)}</article></body>"
    assert parse_page(html, roles=False).text == parse_page(html).text
    assert {b.role for b in parse_page(html, roles=False).blocks} == {"main"}


def test_hostile_shapes_stay_linear_and_keep_main() -> None:
    # One prose paragraph among 60,000 short list items: the neighbour pass is linear.
    items = "".join(f"<li>item {i}</li>" for i in range(60_000))
    page = parse_page(f"<body><article>{_paras(ARTICLE[0])}<ul>{items}</ul></article></body>")
    assert _role(page, ARTICLE[0]) == "main"
    # A huge JSON-LD articleBody and many paragraphs: matching it is bounded.
    body = json.dumps({"articleBody": "word " * 400_000})
    paras = _paras(*[f"{ARTICLE[1]} {i}" for i in range(5_000)])
    page = parse_page(f"<script type='application/ld+json'>{body}</script><body>{paras}</body>")
    assert any(b.role == "main" for b in page.blocks)


def test_a_hostile_nest_of_boxes_named_boilerplate_is_measured_in_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Boxes named "comment" nested 400 deep, each beside prose: each would have the boxes of
    # its kind under it measured again, the nest read once per level. The nodes measured stay
    # within a few passes over the page.
    scanned: list[int] = []
    nodes: list[int] = []
    measures = roles._Wrappers._measures

    def counted(self: roles._Wrappers, scope: int) -> tuple[dict[tuple[str, str], int], int]:
        if scope not in self._measured:
            tops = self._roots if scope < 0 else (scope,)
            result = measures(self, scope)
            if result[0] or result[1] != self._region:  # scanned, not refused
                scanned.append(sum(self._last[top] - top + 1 for top in tops))
            nodes.append(len(self._last))
            return result
        return measures(self, scope)

    monkeypatch.setattr(roles._Wrappers, "_measures", counted)
    filler = _paras(*ARTICLE)
    nest = "".join(
        f"<div class=comment>{filler}<div class=comment><p>x</p></div>" for _ in range(400)
    )
    page = parse_page(f"<body><main>{nest}{'</div>' * 800}</main></body>")
    assert any(b.role == "main" for b in page.blocks)
    assert scanned and sum(scanned) <= 5 * nodes[0]  # the region, then 4 passes at most


def test_pages_without_text_have_no_blocks_and_frames_only_pages_parse() -> None:
    for html in ("", "<frameset><frame src=a.html><frame src=b.html></frameset>", "<br><hr>"):
        page = parse_page(html)
        assert page.text == "" and page.blocks == ()


# --- real pages ------------------------------------------------------------------------------

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trafilatura-eval.tar.xz"
SAMPLE = 150
RECALL_FLOOR = 0.88
PRECISION_FLOOR = 0.85


def _norm(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def real_pages() -> list[tuple[dict[str, list[str]], bytes]]:
    """A fixed random sample of the shared evaluation set's pages with their snippets."""
    if not DATA.exists():
        pytest.skip(f"{DATA} is absent (the shared data set lies beside the repo)")
    pages: dict[str, bytes] = {}
    evaldata: dict[str, dict[str, object]] = {}
    with lzma.open(DATA) as xz, tarfile.open(fileobj=xz, mode="r|") as tar:
        for member in tar:
            name = member.name
            handle = tar.extractfile(member) if member.isfile() else None
            if handle is None:
                continue
            if name.endswith("evaldata.json"):
                evaldata = json.loads(handle.read())
            elif "/cache/" in name or "/eval/" in name:
                pages.setdefault(name.rsplit("/", 1)[1], handle.read())
    items = sorted(evaldata.values(), key=lambda item: str(item["file"]))
    random.Random(7).shuffle(items)
    return [(item, pages[str(item["file"])]) for item in items[:SAMPLE]]  # type: ignore[misc]


def test_real_pages_recall_floor_and_no_page_without_main(
    real_pages: list[tuple[dict[str, list[str]], bytes]],
) -> None:
    tp = fp = fn = 0
    empty = []
    for item, raw in real_pages:
        page = parse_page(raw, content_type="text/html")
        main = _norm(_main(page))
        if page.text.strip() and not main:
            empty.append(item["file"])
        found = sum(_norm(w) in main for w in item["with"])
        tp += found
        fn += len(item["with"]) - found
        fp += sum(_norm(w) in main for w in item["without"])
    assert not empty
    assert tp / (tp + fn) >= RECALL_FLOOR
    assert tp / (tp + fp) >= PRECISION_FLOOR
