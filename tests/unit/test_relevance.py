"""Lexical relevance: on-topic quotes pass the threshold, off-topic questions never do."""

from __future__ import annotations

import pydoc
import shutil
import subprocess
import textwrap
import zipfile

import pytest

from quotebound.evidence.relevance import (
    RELEVANCE_THRESHOLD,
    TermStats,
    content_terms,
    key_terms,
    relevance,
    sentence_spans,
    spells_identifiers,
    sub_questions,
    term_coverage,
    text_terms,
)


def _stdlib_quotes() -> list[str]:
    """40-word windows of real standard-library documentation rendered by pydoc."""
    quotes: list[str] = []
    for module in (shutil, subprocess, textwrap, zipfile):
        words = pydoc.plain(pydoc.render_doc(module)).split()
        quotes += [" ".join(words[i : i + 40]) for i in range(0, len(words), 40)]
    return quotes


STDLIB = _stdlib_quotes()


@pytest.mark.parametrize(
    "question",
    [
        "What is the boiling point of tungsten?",
        "What is the population of Tokyo?",
        "Which treaty ended World War I?",
        "How do I bake sourdough bread?",
    ],
)
def test_off_topic_question_scores_below_threshold_for_every_stdlib_quote(question: str) -> None:
    best = max(relevance(question, q) for q in STDLIB)
    assert best < RELEVANCE_THRESHOLD


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does shutil.copytree do?", "copytree"),
        ("How do I wrap text to a given width?", "width"),
        ("How do I read a member of a ZIP archive?", "zip"),
    ],
)
def test_on_topic_question_finds_relevant_stdlib_quotes(question: str, expected: str) -> None:
    passing = [q for q in STDLIB if relevance(question, q) >= RELEVANCE_THRESHOLD]
    assert passing
    assert any(expected in q.lower() for q in passing)


def test_on_topic_quote_outranks_off_topic_quote() -> None:
    question = "How does shutil.rmtree handle errors?"
    on = "rmtree(path, ignore_errors=False) deletes a directory tree; errors are ignored if set."
    off = "Return the number of bytes written to the underlying stream."
    assert relevance(question, on) >= RELEVANCE_THRESHOLD > relevance(question, off)


def test_identifier_is_matched_by_its_function_name_without_the_module() -> None:
    question = "What does shutil.copytree do?"
    assert relevance(question, "copytree(src, dst) copies a directory tree.") >= 0.6
    assert relevance(question, "rmtree(path) deletes a directory tree.") < RELEVANCE_THRESHOLD


def test_joined_identifier_matches_spaced_words() -> None:
    question = "What does copy.deepcopy return?"
    assert relevance(question, "Return a deep copy of x.") >= RELEVANCE_THRESHOLD


def test_missing_name_pulls_a_quote_below_threshold() -> None:
    question = "What is the population of Tokyo?"
    assert relevance(question, "The data is treated as population data.") < RELEVANCE_THRESHOLD
    assert relevance(question, "Tokyo has a population of 14 million.") == 1.0


def test_relevance_is_best_over_sub_questions() -> None:
    question = "How do I parse JSON text and what does shutil.rmtree do?"
    quote = "rmtree(path) deletes an entire directory tree."
    assert sub_questions(question) == ["How do I parse JSON text", "what does shutil.rmtree do"]
    assert relevance(question, quote) == relevance("what does shutil.rmtree do", quote)
    assert relevance(question, quote) >= RELEVANCE_THRESHOLD


def test_relevance_is_deterministic_and_bounded() -> None:
    first = [relevance("How do I wrap text to a given width?", q) for q in STDLIB]
    again = [relevance("How do I wrap text to a given width?", q) for q in reversed(STDLIB)]
    assert first == again[::-1]
    assert all(0.0 <= s <= 1.0 for s in first)
    assert max(first) > 0.5


def test_content_terms_drop_stopwords_stem_and_keep_digits() -> None:
    # Snowball (Porter 2) stems: "copied" and "copy" share the stem "copi".
    assert content_terms("What are the copied files in Python 3.12 using 30 workers?") == [
        "copi",
        "file",
        "python",
        "3.12",
        "30",
        "worker",
    ]


def test_a_word_in_british_spelling_is_the_same_term_as_in_american() -> None:
    # No stemmer makes "serialised" and "serialized" one term ("serialis", "serial"); both are
    # read in the American spelling, whichever side writes which, and whatever its case.
    assert content_terms("Why is the colour of serialised output normalised?") == content_terms(
        "Why is the color of serialized output normalized?"
    )
    assert content_terms("The Labour Party") == content_terms("the labor party")
    answer = "When a dictionary is serialized to JSON, its keys are coerced to strings."
    assert relevance("What happens to dict keys when it is serialised to JSON?", answer) == (
        relevance("What happens to dict keys when it is serialized to JSON?", answer)
    )


def test_an_acronyms_plural_is_the_acronym_not_the_parts_of_an_identifier() -> None:
    # "INSERTs" was read as an identifier's parts, "INSER" and "Ts", both weighing as names: a
    # page that writes "INSERT" shared neither and lost half its relevance for lacking them.
    assert content_terms("Why are my INSERTs and BLOBs slow?") == content_terms(
        "Why are my INSERT and BLOB slow?"
    )
    assert key_terms("Why am I only getting a few dozen INSERTs per second?") == {}
    answer = "By default, each INSERT statement is its own transaction."
    assert relevance("Why am I only getting a few dozen INSERTs per second?", answer) == (
        relevance("Why am I only getting a few dozen INSERT per second?", answer)
    )
    # an identifier's parts are still its parts
    assert content_terms("ThreadPoolExecutor") == ["thread", "pool", "executor"]


def test_a_contraction_typed_without_its_apostrophe_is_a_function_word() -> None:
    question = "What's the default port, and why doesn't the server listen on it if I'm remote?"
    informal = question.replace("'", "").lower()
    assert content_terms(informal) == content_terms(question)
    assert sub_questions(informal) == [p.replace("'", "").lower() for p in sub_questions(question)]
    assert len(sub_questions(informal)) == 2


def test_content_terms_split_identifiers() -> None:
    assert content_terms("shutil.copytree") == ["shutil", "copytre"]
    assert content_terms("copy the tree") == content_terms("copying trees")
    assert content_terms("max_workers") == ["max", "worker"]
    assert content_terms("ThreadPoolExecutor") == ["thread", "pool", "executor"]


def test_apostrophes_are_no_quote_marks() -> None:
    # Two possessives or contractions in one question quote nothing between them: "purchase"
    # and "query" are what is asked, not phrases the question quotes.
    assert key_terms("Who pays for the Louvre's purchase of Chardin's painting?") == {
        "louver": 3.0,  # its American spelling, as on every side
        "chardin": 3.0,
    }
    assert key_terms("How often does psql's watch re-run the query when I don't give one?") == {}
    # A quoted title may hold an apostrophe; quoted words still weigh as keys.
    assert key_terms("In 'Why We're Polarized', what does the author blame?") == {"polar": 3.0}
    assert key_terms("What does ‘lazy loading’ mean here?") == {"lazi": 3.0, "load": 3.0}


def test_a_keyword_named_as_one_is_a_term() -> None:
    # "else" and "for" are function words, except where a text names them as keywords.
    assert content_terms("When does the else block of a for loop run?") == [
        "els",
        "block",
        "for",
        "loop",
        "run",
    ]
    assert content_terms("Is it in a WHERE clause or with the is operator?") == [
        "where",
        "claus",
        "is",
        "oper",
    ]
    assert content_terms("Wait for a loop to end, in order.") == ["wait", "loop", "end", "order"]


def test_sub_questions_split_on_conjunctions_and_question_words() -> None:
    assert sub_questions("How do I copy a directory tree and what does shutil.rmtree do?") == [
        "How do I copy a directory tree",
        "what does shutil.rmtree do",
    ]
    assert sub_questions("What does copy.deepcopy do; how does json.dumps indent?") == [
        "What does copy.deepcopy do",
        "how does json.dumps indent",
    ]
    assert len(sub_questions("Explain zipfile modes as well as the timeout of subprocess.run")) == 2


def test_sub_questions_keep_short_conjuncts_together() -> None:
    question = "What is the difference between copy and deepcopy?"
    assert sub_questions(question) == [question]
    assert sub_questions("") == [""]


@pytest.mark.parametrize(
    "question",
    [
        # "and" between things asked about, not between questions
        "Will autovacuum vacuum and analyze my temporary tables for me?",
        "Which US foods did Jamie Oliver and the other signatories want kept out of Britain?",
        "Is a dataclass with eq=True and frozen=False hashable?",
        # a preamble that sets the scene for the one thing asked
        "In a StrEnum, what value does auto() produce for a member?",
        "When I sort with key=, how many times does Python evaluate my key callable?",
        "Views in SQLite don't accept UPDATE statements; is there any way to change a view?",
        "I called logging.basicConfig() again with another level and nothing changed. Why?",
        # a verb that shares its object with the one before it asks nothing of its own
        "How do I run and explain a slow query?",
    ],
)
def test_a_question_that_asks_one_thing_is_one_part(question: str) -> None:
    assert sub_questions(question) == [question]


def test_a_second_part_asked_with_whether_or_plus_is_a_part() -> None:
    assert sub_questions(
        "What is the default port of the server, and whether TLS is required for remote clients?"
    ) == ["What is the default port of the server", "whether TLS is required for remote clients"]
    assert sub_questions(
        "Which module computes checksums, plus how do I verify one from the shell?"
    ) == ["Which module computes checksums", "how do I verify one from the shell"]
    # A "whether" after a comma qualifies what is asked; it asks nothing of its own.
    question = "Does the cache expire old entries, whether or not they were read?"
    assert sub_questions(question) == [question]


def test_a_preamble_joins_the_part_it_sets_the_scene_for() -> None:
    question = (
        "In April 2022, how many people in the Americas had no vaccine dose, "
        "and since which month was Barbados vaccinating pupils?"
    )
    assert sub_questions(question) == [
        "In April 2022, how many people in the Americas had no vaccine dose",
        "since which month was Barbados vaccinating pupils",
    ]
    assert sub_questions(
        "Which values may PYTHONHASHSEED take, and why are str and bytes hashes randomized?"
    ) == ["Which values may PYTHONHASHSEED take", "why are str and bytes hashes randomized"]


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # the second sentence opens with a conjunction; the first asks after a dash
        (
            "My cron job calls os.popen2() and breaks on Python 3 - what replaced it? "
            "And which module should new code use to run commands?",
            [
                "My cron job calls os.popen2() and breaks on Python 3 - what replaced it",
                "which module should new code use to run commands",
            ],
        ),
        # the first part asks after a preamble and a comma, with an auxiliary
        (
            "For a large table, can VACUUM FULL run without locking it, "
            "and can pg_repack be used instead?",
            [
                "For a large table, can VACUUM FULL run without locking it",
                "can pg_repack be used instead",
            ],
        ),
        # a conjunction that opens a part joins it to the question; it is not asked
        (
            "What does os.scandir() yield? Also, is it faster than os.listdir()?",
            ["What does os.scandir() yield", "is it faster than os.listdir()"],
        ),
        # a dash before the second part's conjunction is not kept at the first part's end
        (
            "What does os.scandir() yield - and is it faster than os.listdir()?",
            ["What does os.scandir() yield", "is it faster than os.listdir()"],
        ),
        # the second part sets its own scene with a condition before it asks
        (
            "Does the sorted() builtin keep equal items in order, and if a key function "
            "raises, what happens to the list being sorted?",
            [
                "Does the sorted() builtin keep equal items in order",
                "if a key function raises, what happens to the list being sorted",
            ],
        ),
        # a request after "and" is a part of its own
        (
            "Compare the Instant Pot Duo and Duo Plus and tell me which one has a sterilize mode.",
            ["Compare the Instant Pot Duo and Duo Plus", "tell me which one has a sterilize mode"],
        ),
        (
            "What is a savepoint in PostgreSQL and explain how ROLLBACK TO releases its locks",
            ["What is a savepoint in PostgreSQL", "explain how ROLLBACK TO releases its locks"],
        ),
        # a question after a comma: "then" and a question word, or an auxiliary and a pronoun
        (
            "How do I see the running queries in Postgres, then how do I cancel a slow one?",
            ["How do I see the running queries in Postgres", "how do I cancel a slow one"],
        ),
        (
            "What is the default recursion limit in Python, can I raise it safely?",
            ["What is the default recursion limit in Python", "can I raise it safely"],
        ),
    ],
)
def test_where_the_parts_of_a_question_meet_and_what_opens_them(
    question: str, parts: list[str]
) -> None:
    assert sub_questions(question) == parts


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # a second ask after "or", "but" or "also" and a question word or an auxiliary
        (
            "Does SQLite have a real boolean type, or how should I store true/false values?",
            ["Does SQLite have a real boolean type", "how should I store true/false values"],
        ),
        (
            "Is LIKE case-insensitive in SQLite, but what about letters outside ASCII?",
            ["Is LIKE case-insensitive in SQLite", "what about letters outside ASCII"],
        ),
        (
            "What page size does a new database get, also can I change it after tables exist?",
            ["What page size does a new database get", "can I change it after tables exist"],
        ),
        # "and then" before a question; a request after "and"
        (
            "How do I export a table to CSV with a header and then how do I load that file "
            "into SQLite?",
            ["How do I export a table to CSV with a header", "how do I load that file into SQLite"],
        ),
        (
            "Explain how __slots__ saves memory and list the drawbacks.",
            ["Explain how __slots__ saves memory", "list the drawbacks"],
        ),
        # an adverb before the question word
        (
            "What does PRAGMA integrity_check print for a healthy database? Also, roughly how "
            "long does it take on a 10 GB file?",
            [
                "What does PRAGMA integrity_check print for a healthy database",
                "roughly how long does it take on a 10 GB file",
            ],
        ),
        (
            "Which lock does REINDEX take, and exactly which statements does it block?",
            ["Which lock does REINDEX take", "exactly which statements does it block"],
        ),
        # the first part asks after a sentence that tells the situation
        (
            "I missed the match last night. What was the final score between Arsenal and "
            "Spurs, and did anyone get injured?",
            [
                "I missed the match last night. What was the final score between Arsenal and Spurs",
                "did anyone get injured",
            ],
        ),
        (
            "who's replacing the outgoing Fed vice chair and when's the confirmation hearing",
            ["who's replacing the outgoing Fed vice chair", "when's the confirmation hearing"],
        ),
        # a part that names a single term asks it of the part before it
        (
            "What does statement_timeout control in PostgreSQL, and what is its default?",
            [
                "What does statement_timeout control in PostgreSQL",
                "what is its default (What does statement_timeout control in PostgreSQL)",
            ],
        ),
        (
            "Are dicts guaranteed to keep insertion order in Python 3.7? Also, what about sets?",
            [
                "Are dicts guaranteed to keep insertion order in Python 3.7",
                "what about sets (Are dicts guaranteed to keep insertion order in Python 3.7)",
            ],
        ),
        (
            "What is the default shared_buffers value (and why is it so low)?",
            [
                "What is the default shared_buffers value",
                "why is it so low (What is the default shared_buffers value)",
            ],
        ),
        # a list of asks, each item a part, its mark left out
        (
            "postgres question: 1) what does max_wal_size actually control 2) does hitting it "
            "force a checkpoint?",
            [
                "postgres question: what does max_wal_size actually control",
                "does hitting it force a checkpoint",
            ],
        ),
        (
            "sqlite: (a) does PRAGMA quick_check catch index corruption, (b) is it safe to run "
            "while the app is writing?",
            [
                "sqlite: does PRAGMA quick_check catch index corruption",
                "is it safe to run while the app is writing",
            ],
        ),
        # an ask worded as what the asker wants to know
        (
            "I'd like to know which consortium won the rail contract and whether the losing "
            "bidder plans to appeal.",
            [
                "I'd like to know which consortium won the rail contract",
                "whether the losing bidder plans to appeal",
            ],
        ),
        (
            "I need to find out if my phone supports eSIM, and which carriers offer it in Spain?",
            [
                "I need to find out if my phone supports eSIM",
                "which carriers offer it in Spain",
            ],
        ),
    ],
)
def test_more_ways_two_asks_meet(question: str, parts: list[str]) -> None:
    assert sub_questions(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        # the other answer to one yes-or-no question
        "Is it safe to call os.fork() after starting threads, or will it deadlock?",
        # a premise the question goes on from
        "The docs say the imp module is gone, but what replaces imp.load_source?",
        # a part that names nothing of its own is the part before it
        "Which minister resigned over the rail contract, and why?",
        "When was zoneinfo added to the standard library and by whom?",
        # numbers in brackets that mark no list of asks
        "What do the values (1) and (2) mean in the output of chmod?",
        "Should I use (a) a list or (b) a tuple for fixed records?",
        # an item's mark is no term: a first part that names a single term still takes the next
        "(A) What is a tuple? (B) How do I unpack one?",
        # a condition sets the scene; only what the asker wants to know asks
        "For a big table, if the server has 4 GB of RAM, what should work_mem be?",
        "I need to attach a second database file. Which pragma lists the attached databases?",
        # a comma before an auxiliary without "but" or "also" goes on with the question
        "Which limits, such as maximum SQL length, page count, and number of attached "
        "databases, can be lowered at runtime with sqlite3_limit()?",
    ],
)
def test_what_only_looks_like_a_second_ask_is_none(question: str) -> None:
    assert sub_questions(question) == [question]


def test_term_coverage_measures_support() -> None:
    quote = "copytree recursively copies an entire directory tree."
    assert term_coverage("copytree copies a directory tree", quote) == 1.0
    assert term_coverage("rmtree deletes symbolic links", quote) == 0.0


def test_options_are_kept_whole_and_case_apart() -> None:
    assert content_terms("What does the -O option do?") == ["-O", "option"]
    assert content_terms("built-in --help, well-known") == ["built", "--help", "well", "known"]
    question = "What does the -O option do?"
    assert relevance(question, "-O Remove assert statements.", context="Options") >= 0.5
    assert relevance(question, "-o writes output to a file.", context="Options") < 0.5


def test_idf_weighs_rare_terms_over_common_ones() -> None:
    passages = [f"The module {w} returns a value." for w in ("json", "csv", "zlib", "bz2")]
    passages.append("Frobnicate a widget.")
    stats = TermStats(passages)
    assert stats.idf("frobnic") > stats.idf("modul")
    question = "Which module can frobnicate a widget?"
    assert relevance(question, passages[-1], stats=stats) >= RELEVANCE_THRESHOLD
    assert relevance(question, passages[0], stats=stats) < RELEVANCE_THRESHOLD
    flat = stats.flattened(0.5)  # the same counts, rare and common terms weighed closer
    assert flat.idf("frobnic") == pytest.approx(stats.idf("frobnic") ** 0.5)
    assert flat.idf("frobnic") / flat.idf("modul") < stats.idf("frobnic") / stats.idf("modul")
    stats.add({"modul"})
    assert flat.size == len(passages)  # counted as they stood


def test_a_word_common_in_english_weighs_less_by_specificity() -> None:
    passages = [
        "The RETURNING clause returns the rows an INSERT changed.",
        "The RETURNING clause lists the columns of the INSERT.",
        "The RETURNING clause cannot be used by statements within triggers.",
        "Put the lid inside the box.",
    ]
    stats = TermStats(passages)
    specific = stats.by_specificity()
    question = "Can I put a RETURNING clause inside a trigger?"
    for_lid = relevance(question, passages[3], stats=stats)
    for_answer = relevance(question, passages[2], stats=stats)
    assert relevance(question, passages[3], stats=specific) < for_lid  # "put", "inside"
    assert relevance(question, passages[2], stats=specific) > for_answer  # "clause", "trigger"
    assert relevance(question, passages[2], stats=stats) == for_answer  # the counts unchanged
    assert specific.flattened(0.5).specific  # flattened counts keep the weighing


def test_context_counts_as_the_passages_own_terms() -> None:
    question = "What does the timeout argument of socket.create_connection default to?"
    quote = "If no timeout is supplied, the global default timeout setting is used."
    assert relevance(question, quote) < RELEVANCE_THRESHOLD
    context = "socket — Low-level networking interface / socket.create_connection"
    assert relevance(question, quote, context=context) >= RELEVANCE_THRESHOLD


def test_sentence_spans_keep_decimals_and_abbreviations() -> None:
    text = "Python 3.12 adds it, e.g. here. It also works!  Next?\n\nNew paragraph"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Python 3.12 adds it, e.g. here.",
        "It also works!",
        "Next?",
        "New paragraph",
    ]


def test_a_name_the_passage_never_spells_is_not_its_subject() -> None:
    question = "What does asyncio.set_max_threads() configure?"
    assert relevance(question, "Set the max threads of the default executor.") < 0.5
    assert relevance(question, "set_max_threads() configures the max threads.") >= 0.5


def test_a_passage_spells_the_code_a_question_names_or_not() -> None:
    question = "What does asyncio.set_max_threads() do with the -X option?"
    assert spells_identifiers(question, "loop.set_max_threads(n) ... python -X dev")
    assert not spells_identifiers(question, "Set the max threads of the default executor, -X.")
    assert not spells_identifiers(question, "set_max_threads(n) sets the maximum.")
    assert spells_identifiers("How does the event loop pick threads?", "Any text at all.")
    # Typed in lower case throughout, a question names code in any case.
    assert spells_identifiers("is typing.type_checking true", "if TYPE_CHECKING: import x")
    assert not spells_identifiers("Is typing.type_checking true?", "if TYPE_CHECKING: import x")


def test_an_exception_the_question_names_need_not_be_spelled() -> None:
    # The exception says what went wrong; the passage that explains why seldom names it.
    question = "My old code uses sys.max_int and now dies with AttributeError. Why?"
    assert spells_identifiers(question, "The sys.max_int constant was removed.")
    assert not spells_identifiers(question, "AttributeError is raised on a missing attribute.")
    assert spells_identifiers("When is a DeprecationWarning shown?", "Warnings are shown once.")


def test_names_without_what_is_asked_about_them_fall_below_threshold() -> None:
    question = "What salary does Anders Tegnell earn?"
    assert relevance(question, "Anders Tegnell gave the daily briefing.") < RELEVANCE_THRESHOLD
    assert relevance(question, "Anders Tegnell earns a salary of 100,000 kronor.") == 1.0


def test_terms_elsewhere_on_the_page_count_for_less_than_headings() -> None:
    question = "Does the Quokka scheduler retry failed jobs?"
    quote = "Failed jobs are retried three times with a growing delay."
    alone = relevance(question, quote)
    on_page = relevance(question, quote, page_terms=text_terms("The Quokka scheduler runs jobs."))
    under_heading = relevance(question, quote, context="Quokka scheduler")
    assert alone < on_page < under_heading


def test_a_particle_inside_a_name_is_part_of_the_name() -> None:
    from quotebound.evidence.relevance import key_terms

    assert set(key_terms("When was Guido van Rossum born?")) == {"guido", "van", "rossum"}
    assert "van" not in key_terms("Is the van parked by Anna?")
    # A word written as a call names code: it weighs as an identifier does.
    assert set(key_terms("What does zip() do, and what is a round (of golf)?")) == {"zip"}
    # The name alone, without what is asked about it, no longer counts as an answer.
    quote = "PEP written by Guido van Rossum and Talin. Implemented by Guido van Rossum."
    assert relevance("On what date was Guido van Rossum born?", quote) < RELEVANCE_THRESHOLD


def test_words_stemmed_in_many_threads_at_once_stem_as_in_one() -> None:
    import sys
    import threading

    from quotebound.evidence import relevance as module

    stems = ("connect", "relat", "generaliz", "hop", "nation", "condition", "formal")
    endings = ("ing", "ed", "ation", "ations", "ness", "ers", "ization", "ional", "ly")
    words = [stem + end for stem in stems for end in endings] * 100
    expected = [module._stem.__wrapped__(w) for w in words]
    results: list[list[str]] = []
    errors: list[Exception] = []

    def stem_all() -> None:
        try:  # uncached, so every word goes through the thread's stemmer
            results.append([module._stem.__wrapped__(w) for w in words])
        except Exception as exc:  # kept, and asserted on below
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=stem_all) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors
    assert results == [expected] * 4


def test_soft_hyphens_and_zero_width_characters_are_not_part_of_a_word() -> None:
    # News sites hyphenate words invisibly ("pre&shy;pared"): a reader sees "prepared".
    hyphenated = (
        "Massy sold only pre\u00adpared lunch\u00ades, in cash\u200b-only trans\u00adac\u00adtions."
    )
    plain = "Massy sold only prepared lunches, in cash-only transactions."
    assert content_terms(hyphenated) == content_terms(plain)
    question = "What did Massy sell, and were the transactions in cash?"
    assert relevance(question, hyphenated) == relevance(question, plain) > 0


def test_a_letter_and_its_combining_mark_are_one_letter() -> None:
    # Some pages write "für" as "u" and a combining diaeresis (NFD); a reader sees "ü".
    decomposed = "Gru\u0308nde fu\u0308r die Scho\u0308nheit der Stra\u00dfe"
    composed = "Gr\u00fcnde f\u00fcr die Sch\u00f6nheit der Stra\u00dfe"
    assert content_terms(decomposed) == content_terms(composed)
    assert relevance("Gründe für Schönheit", decomposed) == relevance(
        "Gründe für Schönheit", composed
    )
