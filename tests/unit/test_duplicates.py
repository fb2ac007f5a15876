"""One source per content: a page's set of words, read without a copy of the page."""

from __future__ import annotations

from quotebound.acquisition.duplicates import content_words, content_words_of, same_content


def test_a_pages_words_are_those_of_its_lines_together() -> None:
    text = "Ferry Engine\nrepair\u2028costs\x0cTWO mil\r\nlions; an ox ÉTÉ\u0085été"
    words = content_words(text)
    assert words == content_words_of(text.splitlines())
    assert words == {"ferry", "engine", "repair", "costs", "two", "mil", "lions", "été"}


def test_pages_that_share_most_words_are_one_content() -> None:
    a = content_words("the archive tool writes every member into the target directory")
    b = content_words("The archive tool writes each member into the target directory.")
    assert same_content(a, b)
    assert not same_content(a, content_words("a ferry crosses to the island twice a week"))
