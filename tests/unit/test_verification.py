"""verify_quote: passes (exact, normalized, fuzzy) with exact spans; failures with reasons."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import typing

import pytest

from quotebound.evidence.verification import (
    FUZZY_MIN_JACCARD,
    MAX_FUZZY_WORDS,
    MIN_FUZZY_WORDS,
    Verification,
    verify_quote,
)
from quotebound.records import VerificationRecord
from quotebound.text.normalize import normalize_text, normalize_with_offsets

ARTICLE = (
    "Microsoft acquired GitHub in 2018 for 7.5 billion dollars, the company said on Monday.\n\n"
    "The new   retention\tpolicy keeps backups for 30 days before they are deleted.\n"
    "Timeouts range from 5 to 10 seconds, depending on the size of the request.\n"
    "The cache is enabled for reads and disabled for writes in this release.\n"
    "Hooks run before the commit and after the push, never during the merge.\n"
    "The flag is true for the first request and false for the last request.\n"
    "The scheduler always retries failed jobs and never retries cancelled jobs.\n"
    "The server does not accept connections until the handshake is complete.\n"
    "Requests are logged with the client address and the time of the request.\n"
)

OTHER_PAGE = "The Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair."


def passes(quote: str, source: str = ARTICLE) -> Verification:
    result = verify_quote(quote, source)
    assert result.status == "PASS", (quote, result)
    assert result.reason is None
    assert result.matched_text == source[result.start : result.end]
    assert result.matched_text == result.matched_text.strip()
    return result


def fails(quote: str, reason: str, source: str = ARTICLE) -> Verification:
    result = verify_quote(quote, source)
    assert (result.status, result.reason) == ("FAIL", reason), (quote, result)
    assert (result.method, result.start, result.end, result.matched_text) == (None, -1, -1, "")
    return result


# --- passes ---------------------------------------------------------------------------------


def test_exact_quote_passes_with_the_first_occurrence() -> None:
    result = passes("the size of the request")
    assert result.method == "exact"
    assert result.score == 1.0
    assert result.start == ARTICLE.index("the size of the request")


def test_surrounding_whitespace_of_the_quote_is_not_part_of_the_span() -> None:
    result = passes("  Microsoft acquired GitHub \n")
    assert (result.method, result.start, result.matched_text) == (
        "exact",
        0,
        "Microsoft acquired GitHub",
    )


def test_whitespace_and_newline_changes_pass_normalized_with_the_original_span() -> None:
    result = passes("The new retention policy\nkeeps backups")
    assert result.method == "normalized"
    assert result.matched_text == "The new   retention\tpolicy keeps backups"


def test_quote_across_a_paragraph_break_maps_to_the_span_with_the_break() -> None:
    result = passes("said on Monday. The new retention policy")
    assert result.matched_text == "said on Monday.\n\nThe new   retention\tpolicy"


def test_non_breaking_spaces_in_the_source() -> None:
    source = "Press\u00a0Ctrl\u00a0+\u00a0C to copy the\u202fselection."
    result = passes("Press Ctrl + C to copy the selection", source)
    assert result.method == "normalized"
    assert result.matched_text == "Press\u00a0Ctrl\u00a0+\u00a0C to copy the\u202fselection"


def test_zero_width_characters_and_soft_hyphens_in_source_and_quote() -> None:
    source = "Use the con\u00adfigu\u200bration file\u2060 to set the time\ufeffout."
    result = passes("configuration file to set the timeout", source)
    assert result.method == "normalized"
    assert result.matched_text == "con\u00adfigu\u200bration file\u2060 to set the time\ufeffout"
    result = passes("the con\u200bfiguration", source)
    assert result.matched_text == "the con\u00adfigu\u200bration"


def test_typographic_quotes_and_dashes_match_ascii_and_back() -> None:
    source = "He said \u201cit\u2019s fine\u201d \u2014 the range is 1\u20132 and \u22125 degrees."
    result = passes('He said "it\'s fine" - the range is 1-2 and -5 degrees', source)
    assert result.method == "normalized"
    assert result.matched_text == source[:-1]
    ascii_source = 'He said "it\'s fine" - the range is 1-2.'
    result = passes("said \u201cit\u2019s fine\u201d \u2013 the range", ascii_source)
    assert result.matched_text == 'said "it\'s fine" - the range'


def test_leading_and_trailing_ellipses_and_quote_marks_on_the_quote_are_ignored() -> None:
    for quote in (
        "... keeps backups for 30 days ...",
        "\u2026keeps backups for 30 days\u2026",
        "\u201ckeeps backups for 30 days\u201d",
        '"...keeps backups for 30 days..."',
    ):
        result = passes(quote)
        assert (result.method, result.matched_text) == ("normalized", "keeps backups for 30 days")


def test_quote_marks_that_are_in_the_source_stay_in_the_span() -> None:
    source = "The manual says \u201cnever edit the lock file by hand\u201d in bold."
    result = passes('"never edit the lock file by hand"', source)
    assert result.matched_text == "\u201cnever edit the lock file by hand\u201d"


def test_compatibility_forms_and_combining_accents_are_folded() -> None:
    source = "The \ufb01le was saved by the cafe\u0301 owner on the \uff11\uff12th."
    result = passes("file was saved by the caf\u00e9 owner on the 12th", source)
    assert result.method == "normalized"
    assert result.matched_text == source[4:-1]


def test_one_omitted_article_passes_fuzzy_with_the_full_source_span() -> None:
    result = passes("The new retention policy keeps backups for 30 days before they are deleted")
    assert result.method == "normalized"
    result = passes("new retention policy keeps backups for 30 days before they are deleted")
    assert result.method == "normalized"
    result = passes("Timeouts range from 5 to 10 seconds, depending on size of the request")
    assert result.method == "fuzzy"
    assert result.matched_text == (
        "Timeouts range from 5 to 10 seconds, depending on the size of the request"
    )
    assert FUZZY_MIN_JACCARD < result.score < 1.0


def test_an_article_at_the_quote_edge_is_included_in_the_span() -> None:
    result = passes("the server does not accept connections until handshake is complete")
    assert result.method == "fuzzy"
    assert result.matched_text == (
        "The server does not accept connections until the handshake is complete"
    )


def test_punctuation_and_case_changes_pass_fuzzy() -> None:
    result = passes("hooks run before the commit, and after the push; never during the merge")
    assert (result.method, result.score) == ("fuzzy", 1.0)
    assert result.matched_text == (
        "Hooks run before the commit and after the push, never during the merge"
    )


def test_fuzzy_needs_more_than_the_jaccard_threshold_of_articles_kept() -> None:
    source = "The server accepts the connections until the handshake completes."
    assert passes("server accepts connections until the handshake completes", source).score > 0.8
    # Two articles dropped from a six-word quote: same order, but too little in common.
    fails("server accepts connections until handshake completes", "low_similarity", source)


# --- failures -------------------------------------------------------------------------------


def test_a_changed_digit_fails_number_mismatch() -> None:
    fails("keeps backups for 31 days before they are deleted", "number_mismatch")
    fails("Microsoft acquired GitHub in 2019 for 7.5 billion dollars", "number_mismatch")
    fails("Microsoft acquired GitHub in 2018 for 7.6 billion dollars", "number_mismatch")


def test_swapped_numbers_fail_number_mismatch() -> None:
    fails("Timeouts range from 10 to 5 seconds, depending on the size", "number_mismatch")


def test_an_inserted_or_removed_negation_fails_negation_mismatch() -> None:
    fails("The server does accept connections until the handshake is complete", "negation_mismatch")
    fails("The server doesn't accept connections until the handshake is complete",
          "negation_mismatch")  # fmt: skip
    fails("The server doesn’t accept connections until the handshake is complete",
          "negation_mismatch")  # fmt: skip
    fails("The new retention policy never keeps backups for 30 days", "negation_mismatch")
    fails("Requests are not logged with the client address and the time", "negation_mismatch")


@pytest.mark.parametrize(
    "quote",
    [
        "The cache is disabled for reads and enabled for writes in this release",
        "Hooks run after the commit and before the push, never during the merge",
        "The flag is false for the first request and true for the last request",
        "The flag is true for the last request and false for the first request",
        "The scheduler never retries failed jobs and always retries cancelled jobs",
    ],
)
def test_a_polarity_swap_fails_even_when_both_words_are_in_the_window(quote: str) -> None:
    fails(quote, "word_mismatch")


def test_a_polarity_word_the_window_lacks_fails_word_mismatch() -> None:
    source = "Telemetry is disabled by default in every production build."
    fails("Telemetry is enabled by default in every production build", "word_mismatch", source)
    source = "Plugins in the sandbox are supported on every platform we ship."
    fails("Plugins in the sandbox are unsupported on every platform", "word_mismatch", source)


def test_a_replaced_proper_noun_fails_word_mismatch() -> None:
    fails("Google acquired GitHub in 2018 for 7.5 billion dollars", "word_mismatch")
    fails("Microsoft acquired GitLab in 2018 for 7.5 billion dollars", "word_mismatch")


def test_swapped_roles_fail_order_mismatch() -> None:
    fails("GitHub acquired Microsoft in 2018 for 7.5 billion dollars", "order_mismatch")


def test_a_spliced_sentence_fails_low_similarity() -> None:
    fails("The new retention policy keeps backups for the size of the request", "low_similarity")
    fails("Microsoft acquired GitHub in 2018 with the client address and the time",
          "low_similarity")  # fmt: skip


def test_a_sentence_from_another_page_fails_not_found() -> None:
    fails(OTHER_PAGE, "not_found")


def test_a_short_quote_that_is_not_an_exact_match_fails_too_short() -> None:
    assert MIN_FUZZY_WORDS == 5
    result = fails("acquired Github in 2018", "too_short")
    assert result.score == 0.0
    passes("acquired GitHub in 2018")


@pytest.mark.parametrize("quote", ["", "   ", "\u200b", "...", '""', "\u2026"])
def test_an_empty_quote_fails_too_short(quote: str) -> None:
    fails(quote, "too_short")


def test_an_empty_source_fails_not_found() -> None:
    fails("The new retention policy keeps backups", "not_found", "")
    fails("The new retention policy keeps backups", "not_found", " \n\t ")


def test_a_quote_over_the_fuzzy_limit_fails_quickly() -> None:
    words = ARTICLE.split()
    quote = " ".join((words * (MAX_FUZZY_WORDS // len(words) + 2))[: MAX_FUZZY_WORDS + 1])
    fails(quote + " extra", "low_similarity")


def test_huge_sources_and_quotes_complete() -> None:
    source = (ARTICLE * 6000)[:5_000_000]  # about 5 MB
    fails("The server does not accept connections until the handshake is incomplete",
          "word_mismatch", source)  # fmt: skip
    result = passes(ARTICLE[-200:].replace(" ", "  "), source)
    assert result.method == "normalized"
    long_quote = " ".join(OTHER_PAGE.split() * 50)
    assert verify_quote(long_quote, source).status == "FAIL"


# --- the naive baseline ------------------------------------------------------------------------


def naive_jaccard_accepts(quote: str, source: str) -> bool:
    """The check this module replaces: set token Jaccard > 0.8 in some window of the source."""
    quote_tokens = re.findall(r"\w+", quote.lower())
    source_tokens = re.findall(r"\w+", source.lower())
    size = len(quote_tokens)
    for first in range(max(1, len(source_tokens) - size + 1)):
        window = set(source_tokens[first : first + size])
        shared = len(window & set(quote_tokens))
        if shared / len(window | set(quote_tokens)) > 0.8:
            return True
    return False


@pytest.mark.parametrize(
    ("quote", "reason"),
    [
        ("GitHub acquired Microsoft in 2018 for 7.5 billion dollars", "order_mismatch"),
        ("Timeouts range from 10 to 5 seconds, depending on the size", "number_mismatch"),
        ("The cache is disabled for reads and enabled for writes in this release", "word_mismatch"),
        ("The scheduler never retries failed jobs and always retries cancelled jobs",
         "word_mismatch"),
        ("The new retention policy keeps backups for 90 days before they are deleted",
         "number_mismatch"),
        ("The server does accept connections until the handshake is complete",
         "negation_mismatch"),
        ("Hooks run after the commit and before the push, never during the merge",
         "word_mismatch"),
    ],
)  # fmt: skip
def test_the_naive_jaccard_check_accepts_what_verify_quote_rejects(quote: str, reason: str) -> None:
    assert naive_jaccard_accepts(quote, ARTICLE)
    fails(quote, reason)


def test_the_naive_baseline_is_a_real_check() -> None:
    assert naive_jaccard_accepts("The server does not accept connections until the", ARTICLE)
    assert not naive_jaccard_accepts(OTHER_PAGE, ARTICLE)


# --- records and determinism ------------------------------------------------------------------

CASES = [
    "the size of the request",
    "The new retention policy\nkeeps backups",
    "Timeouts range from 5 to 10 seconds, depending on size of the request",
    "GitHub acquired Microsoft in 2018 for 7.5 billion dollars",
    "The cache is disabled for reads and enabled for writes in this release",
    OTHER_PAGE,
    "acquired Github",
]


def test_to_dict_has_the_record_keys_and_is_json() -> None:
    for quote in CASES:
        record = verify_quote(quote, ARTICLE).to_dict()
        assert list(record) == list(typing.get_type_hints(VerificationRecord))
        assert json.loads(json.dumps(record)) == record


def test_results_are_identical_across_runs_and_processes() -> None:
    first = [verify_quote(quote, ARTICLE).to_dict() for quote in CASES]
    second = [verify_quote(quote, ARTICLE + "").to_dict() for quote in CASES]
    assert first == second
    script = (
        "import json, sys\n"
        "from quotebound.evidence.verification import verify_quote\n"
        "cases, source = json.load(sys.stdin)\n"
        "print(json.dumps([verify_quote(q, source).to_dict() for q in cases]))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps([CASES, ARTICLE]),
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    ).stdout
    assert json.loads(output) == first


# --- normalization ----------------------------------------------------------------------------


def test_normalize_text_folds_only_what_does_not_change_the_words() -> None:
    assert (
        normalize_text("A\u00a0\u201cquoted\u201d  \u2014\n\nword\u200b\u2026")
        == 'A "quoted" - word...'
    )
    assert normalize_text("Case Stays") == "Case Stays"


def test_every_normalized_character_maps_inside_the_original() -> None:
    text = " \u201cA\u00a0b\u200bc\u201d \ufb01 e\u0301\t\t\u2014 x "
    normalized = normalize_with_offsets(text)
    spans = [normalized.original_span(i, i + 1) for i in range(len(normalized.text))]
    for start, end in spans:
        assert 0 <= start < end <= len(text)
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)
    with pytest.raises(ValueError, match="non-empty"):
        normalized.original_span(3, 3)


def test_spans_stay_exact_on_long_pages_with_some_unicode() -> None:
    # Long enough to be normalized and tokenized in several blocks, mostly ASCII, with changes
    # of every kind here and there.
    oddities = ["\u00a0", "\ufb01x", "e\u0301", "\u200b", "\u201cq\u201d", "Stra\u00dfe", "  \n "]
    sentences = [
        f"Record {n} says the value {n * 7} is kept for reader {n % 13}{oddities[n % 7]} now."
        for n in range(600)
    ]
    page = "\n".join(sentences)
    for n in range(0, 600, 37):
        sentence = sentences[n]
        refolded = verify_quote(normalize_text(sentence), page)
        assert refolded.method in ("exact", "normalized") and refolded.matched_text == sentence
        head = sentence[: sentence.index(" for ")]
        fuzzy = verify_quote(head.upper(), page)
        assert (fuzzy.method, fuzzy.matched_text) == ("fuzzy", head)
