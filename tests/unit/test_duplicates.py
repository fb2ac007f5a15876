"""One source per content: a page's set of words, read without a copy of the page."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quotebound.acquisition.duplicates import (
    SAME_CONTENT_JACCARD,
    content_words,
    content_words_of,
    copied_statements,
    same_content,
    same_content_pairs,
)


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


def test_same_content_pairs_finds_every_pair_that_is_one_content() -> None:
    texts = [
        "the archive tool writes every member into the target directory",
        "a ferry crosses to the island twice a week in winter",
        "The archive tool writes each member into the target directory.",
        "the ferry crosses to the island twice each week in winter",
        "nothing here is like any of the others at all",
    ]
    sets = {i: content_words(t) for i, t in enumerate(texts)}
    expected = [(i, j) for i in sets for j in sets if i < j and same_content(sets[i], sets[j])]
    assert same_content_pairs(sets) == expected == [(0, 2), (1, 3)]


@given(st.lists(st.sets(st.sampled_from("abcdefghijkl"), min_size=1), max_size=12))
def test_same_content_pairs_is_every_pair_compared_each_with_each(
    sets_list: list[set[str]],
) -> None:
    sets = {i: frozenset(s) for i, s in enumerate(sets_list)}
    expected = [(i, j) for i in sets for j in sets if i < j and same_content(sets[i], sets[j])]
    assert same_content_pairs(sets) == expected


@given(
    st.sets(st.sampled_from("abcdefghijklmnopqrst")),
    st.sets(st.sampled_from("abcdefghijklmnopqrst")),
)
def test_same_content_is_word_overlap_over_union(a: set[str], b: set[str]) -> None:
    # Sets far apart in size are told apart without comparing their words: the answer is
    # still the overlap over the union against the bar.
    union = a | b
    expected = not union or len(a & b) >= SAME_CONTENT_JACCARD * len(union)
    assert same_content(frozenset(a), frozenset(b)) is expected


def test_a_passage_mostly_of_statements_another_page_writes_is_their_copy() -> None:
    statement = "Query, set, or clear the enforcement of foreign key constraints, which is off."
    passages = {
        0: ("requirements.html", f"R-03478-24050\n\n{statement} (source: pragma.html, matrix)"),
        1: (
            "pragma.html",
            f"PRAGMA foreign_keys = boolean. {statement} It may only be changed when there is "
            "no pending transaction.",
        ),
        2: ("faq.html", "Are foreign keys on? Only if you turn them on, per connection."),
    }
    # The copy is mostly that statement (its number is no words); the paragraph holds more.
    assert copied_statements(passages) == [(0, 1)]
    # A sentence of fewer than six words is no statement that marks a copy.
    assert copied_statements({0: ("a.html", "It is off."), 1: ("b.html", "It is off.")}) == []
