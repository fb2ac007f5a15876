"""Text-fragment deep links: the directive's encoding, and terms whose first match is the quote."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from quotebound.report.fragments import TextDirective, deep_link, first_match, text_fragment

LONG = (
    "The lift cycle takes about twelve minutes from the first warning bells until the traffic "
    "lanes reopen, and the bridge operators log every cycle."
)


def _at(text: str, quote: str, after: int = 0) -> tuple[int, int]:
    start = text.index(quote, after)
    return start, start + len(quote)


def test_terms_percent_encode_dash_ampersand_comma_and_every_reserved_character() -> None:
    directive = TextDirective("a-b & c, d#e", end="x%y", prefix="p-q", suffix="s,t")
    assert directive.encoded() == "p%2Dq-,a%2Db%20%26%20c%2C%20d%23e,x%25y,-s%2Ct"
    assert TextDirective("café naïve").encoded() == "caf%C3%A9%20na%C3%AFve"
    assert unquote(TextDirective("ten - twenty, & more").encoded()) == "ten - twenty, & more"


def test_deep_link_appends_the_directive_after_any_fragment() -> None:
    plain = deep_link("https://x.org/a?q=1", TextDirective("two words"))
    assert plain == "https://x.org/a?q=1#:~:text=two%20words"
    anchored = deep_link("https://x.org/a#section-2", TextDirective("two words"))
    assert anchored == "https://x.org/a#section-2:~:text=two%20words"
    replaced = deep_link("https://x.org/a#top:~:text=old", TextDirective("new"))
    assert replaced == "https://x.org/a#top:~:text=new"


def test_matching_is_case_insensitive_on_word_boundaries_with_any_whitespace() -> None:
    text = "Scattered words. The CAT sat\non the   mat."
    assert first_match(text, TextDirective("cat sat on the mat.")) == (21, len(text))
    assert first_match("concatenate the cat", TextDirective("cat")) == (16, 19)
    assert first_match("a category", TextDirective("cat")) is None


def test_prefix_and_suffix_must_touch_the_match_across_whitespace_only() -> None:
    text = "red apple. green apple. ripe, green apple"
    assert first_match(text, TextDirective("green apple", prefix="ripe,")) == (30, 41)
    assert first_match(text, TextDirective("apple", prefix="ripe")) is None
    assert first_match(text, TextDirective("apple", suffix="green")) is None
    assert first_match("apple. green apple pie", TextDirective("apple", suffix="pie")) == (13, 18)
    # The prefix's matches are walked in order until one is followed by the start.
    blue = TextDirective("blue car", prefix="old")
    assert first_match("old red car. old blue car.", blue) == (17, 25)


def test_start_end_ranges_end_at_the_first_end_after_the_start() -> None:
    text = "one two three four two three five"
    assert first_match(text, TextDirective("one", end="three")) == (0, 13)
    assert first_match(text, TextDirective("one", end="three", suffix="five")) == (0, 28)


def test_a_short_quote_is_linked_in_full_and_a_long_one_by_its_ends() -> None:
    assert text_fragment("twelve minutes in all") == TextDirective("twelve minutes in all")
    assert text_fragment(LONG) == TextDirective("The lift cycle", end="log every cycle.")


def test_a_start_that_occurs_earlier_on_the_page_gets_the_words_before_the_quote() -> None:
    text = f"Note: the lift cycle takes a while.\n\nOperators say: {LONG}"
    span = _at(text, LONG)
    directive = text_fragment(LONG, text, span)
    assert directive.prefix == "say:"
    assert first_match(text, directive) == span
    naive = text_fragment(LONG)  # without the page, its first match starts at the wrong place
    assert first_match(text, naive) != span


def test_a_quote_starting_its_paragraph_takes_its_prefix_from_the_line_above() -> None:
    short = "the bridge opens"
    text = f"Sometimes the bridge opens.\n\nAt noon:\n\n{short} for ships."
    span = _at(text, short, 20)
    directive = text_fragment(short, text, span)
    assert directive.prefix == "noon:"
    assert first_match(text, directive) == span


def test_an_end_that_recurs_inside_the_quote_grows_until_it_ends_it() -> None:
    quote = "alpha beta gamma delta one two three epsilon zeta one two three"
    text = f"Intro. {quote}. Outro."
    span = _at(text, quote)
    directive = text_fragment(quote, text, span)
    assert first_match(text, directive) == span
    assert directive.end is not None and directive.end.endswith("one two three")


def test_a_log_of_near_identical_lines_is_told_apart_by_the_words_before_the_quote() -> None:
    line = "the span was lowered again after ship number {} had passed the harbor channel."
    text = "\n\n".join(f"Lift {i}: " + line.format(i) for i in range(5000))
    quote = line.format(4000)
    span = _at(text, quote)
    directive = text_fragment(quote, text, span)
    assert directive.prefix == "4000:"
    assert first_match(text, directive) == span


def test_a_quote_over_two_paragraphs_never_puts_a_line_break_in_a_term() -> None:
    quote = "the first paragraph ends here.\n\nThe second begins here"
    text = f"Before. {quote} and goes on."
    span = _at(text, quote)
    directive = text_fragment(quote, text, span)
    assert "\n" not in directive.start and directive.end and "\n" not in directive.end
    assert first_match(text, directive) == span


def test_a_page_repeating_the_quote_in_the_same_words_falls_back_to_the_full_quote() -> None:
    text = " ".join(["go"] * 20)
    span = (45, 47)  # the 16th "go": eight words before it read as they do before the 9th
    directive = text_fragment("go", text, span)
    assert directive == TextDirective("go", prefix=" ".join(["go"] * 8))
    assert first_match(text, directive) == (24, 26)  # an identical copy


def test_a_quote_without_words_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one word"):
        text_fragment("  \n ")
