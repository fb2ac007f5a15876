"""Question types and the answer shapes they expect."""

from __future__ import annotations

import pytest

from quotebound.evidence.questions import (
    QuestionType,
    answers_shape,
    demands_shape,
    fits,
    question_type,
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many connections does the pool keep?", QuestionType.COUNT),
        ("By default, how much memory can a sort use?", QuestionType.COUNT),
        ("By how much is 3.11 faster than 3.10?", QuestionType.COUNT),
        # "How many" inside another question asks something else.
        ("Is max_wal_size a hard cap on how big the WAL can get?", QuestionType.YES_NO),
        ("How can I see how much time each import takes?", QuestionType.GENERAL),
        ("Which PEP introduced assignment expressions?", QuestionType.PEP),
        ("How much does a yearly subscription cost?", QuestionType.PRICE),
        ("In 2023, how much money did the city spend on parks?", QuestionType.PRICE),
        ("What salary does the mayor earn?", QuestionType.PRICE),
        ("What is the entry fee?", QuestionType.PRICE),
        # An amount of something else is a count.
        ("How much time does the collector spend in each pass?", QuestionType.COUNT),
        ("When was the zoneinfo module added?", QuestionType.VERSION),
        ("In which version did dict keep insertion order?", QuestionType.VERSION),
        ("What is the oldest SQLite version the module works with?", QuestionType.VERSION),
        ("How old a server version can pg_dump still read?", QuestionType.VERSION),
        ("What is the version number format?", QuestionType.GENERAL),
        ("What does str.removeprefix return?", QuestionType.RETURN),
        ("Who wrote the sqlite3 module?", QuestionType.PERSON),
        ("What is the default timeout?", QuestionType.DEFAULT),
        ("What is the difference between copy and deepcopy?", QuestionType.DIFFERENCE),
        ("How does deepcopy differ from copy?", QuestionType.DIFFERENCE),
        # "Different" alone is no comparison asked for.
        ("Can I move a virtual environment to a different machine?", QuestionType.YES_NO),
        ("What does zip() do when its inputs have different lengths?", QuestionType.GENERAL),
        ("How do I copy a directory tree?", QuestionType.GENERAL),
        ("When did the mine close?", QuestionType.VERSION),
        # A present-tense "when" asks for a condition; a leading "When I ..." is a clause.
        ("When does a LISTEN take effect?", QuestionType.GENERAL),
        ("When COPY writes to a file, can the name be relative?", QuestionType.GENERAL),
        ("Why is ANALYZE recommended after a restore?", QuestionType.REASON),
        ("What is the reason the mine closed?", QuestionType.REASON),
        # "Why" asks for a reason whatever else the question names.
        ("Why does json.dumps escape accented letters by default?", QuestionType.REASON),
        ("Why does max() return None here?", QuestionType.REASON),
        ("Does a plain VACUUM give the space back to the OS?", QuestionType.YES_NO),
        ("Is char(n) faster than text?", QuestionType.YES_NO),
        ("Might a long transaction hold back VACUUM?", QuestionType.YES_NO),
        ("Can I turn a table into a partitioned one?", QuestionType.YES_NO),
        # A yes/no question about what something returns is about the return value.
        ("Does str.split return a list?", QuestionType.RETURN),
        # A question that tells its situation first is asked by a later sentence.
        ("I ran pydoc on my script and it started my program. Why?", QuestionType.REASON),
        ("My block reports 4096 bytes on macOS. Is that a bug?", QuestionType.YES_NO),
        ("Our old code broke in 2019. When did the API change?", QuestionType.VERSION),
        ("I bought three tickets. How many seats are left?", QuestionType.COUNT),
        ("I bought three tickets. Who sold the last seats?", QuestionType.PERSON),
        # Typed without the apostrophe.
        ("whos the current maintainer of the sqlite3 module", QuestionType.PERSON),
        ("doesnt VACUUM give the space back to the OS", QuestionType.YES_NO),
        # A clause inside a sentence is not a sentence of its own.
        ("I wonder why the pool is empty", QuestionType.GENERAL),
    ],
)
def test_question_types(question: str, kind: QuestionType) -> None:
    assert question_type(question) is kind


def test_answer_shapes() -> None:
    assert fits(QuestionType.PRICE, "Tickets cost £12.")
    assert not fits(QuestionType.PRICE, "Tickets cost 12.")
    assert fits(QuestionType.COUNT, "It holds at most twelve connections.")
    assert not fits(QuestionType.COUNT, "It holds some connections.")
    assert fits(QuestionType.PEP, "See PEP 572 for the rationale.")
    assert fits(QuestionType.VERSION, "New in version 3.9.")
    assert fits(QuestionType.VERSION, "The bridge opened on 3 May 1998.")
    assert fits(QuestionType.VERSION, "The bridge opened in March.")
    # "may" is a verb, at the start of a sentence too, and a month only with a day or year.
    assert not fits(QuestionType.VERSION, "Generated columns may not have a default value.")
    assert not fits(QuestionType.VERSION, "May be omitted. It may not be used in a view.")
    assert fits(QuestionType.VERSION, "It was deprecated in May 2020.")
    assert fits(QuestionType.RETURN, "Returns a new list.")
    assert not fits(QuestionType.GENERAL, "Anything at all.")
    assert fits(QuestionType.PERSON, "The module was written by Gerhard Häring.")
    assert not fits(QuestionType.PERSON, "the module was written by someone.")
    assert fits(QuestionType.REASON, "Run it afterwards, because the dump holds no statistics.")
    assert fits(QuestionType.REASON, "Leave it at zero to prevent accidental use.")
    assert not fits(QuestionType.REASON, "The dump is a plain SQL script.")
    assert fits(QuestionType.YES_NO, "Extra space is not returned to the operating system.")
    assert fits(QuestionType.YES_NO, "A server restart is needed to add the module.")
    assert fits(QuestionType.YES_NO, "It is not possible to turn a regular table into one.")
    assert not fits(QuestionType.YES_NO, "The table is rewritten into a new file on disk.")


@pytest.mark.parametrize(
    ("question", "text", "can_answer"),
    [
        # "How many", "how large", "which version", "which PEP": nothing without the figure answers.
        ("How many connections does the pool keep?", "The pool keeps some connections.", False),
        ("How many connections does the pool keep?", "The pool keeps 8 connections.", True),
        ("How much memory does a sort use?", "A sort uses memory.", False),
        ("In which version did dict keep insertion order?", "Dicts keep their order.", False),
        ("What is the oldest SQLite version it works with?", "It needs a recent SQLite.", False),
        ("Which PEP introduced the walrus?", "The walrus came with a PEP.", False),
        ("How large is the annual budget?", "The budget is large.", False),
        # A price is an amount of money: a sum with its currency, or nothing to pay.
        ("How much does a yearly subscription cost?", "It costs $79.99 a year.", True),
        ("How much does a yearly subscription cost?", "It costs 80 euros a year.", True),
        ("How much does the pass cost?", "The pass is free for all players.", True),
        ("What salary does the mayor earn?", "The mayor earns a salary set by the council.", False),
        ("What salary does the mayor earn?", "The mayor has served for 8 years.", False),
        # A measure may be given by comparison.
        ("How big should a table be?", "It should exceed the physical memory.", True),
        ("How long is the lock held?", "The lock is held until the transaction ends.", True),
        ("How long is the lock held?", "The lock is held for a long time.", False),
        ("How large is the budget?", "It funds teams as well as maintainers.", False),
        # A frequency in words answers "how often", not "how big".
        ("How big is a WAL segment?", "Each segment is a single file.", False),
        ("How big is a WAL segment?", "A segment is 16 MB.", True),
        ("How often are backups taken?", "Backups run daily.", True),
        ("How much faster is the new parser?", "It runs twice as fast.", True),
        # "When did": an event answers too.
        ("When did the mine close?", "The mine shut down after the war broke out.", True),
        ("What does str.split return?", "It gives back words.", True),
        # A count counts what is asked: a number beside the counted word, or a few words from
        # it, before or after.
        ("How many new apartments does the rezoning allow?", "It allows 350 new apartments.", True),
        ("How many tables can a join hold?", "Joins of more than 64 tables fail.", True),
        ("How many tables can a join hold?", "A join holds tables up to 64.", True),
        ("How many tables can a join hold?", "The number of tables in a join is 64.", True),
        ("How many tonnes of CO2 will it emit?", "It will emit 16 million metric tons.", True),
        ("How many people died in the fire?", "Three people died.", True),
        ("How many times is the key called?", "The key is called once per item.", True),
        ("How many dollars did the training cost?", "Training cost $12 million.", True),
        # The counted word with no count, or a count of something else: no answer.
        ("How many cabins will it have?", "A 50 slip marina, docks, RV parking, cabins.", False),
        (
            "How many stylists work at the salon?",
            "The salon was founded 30 years ago by its owner. It employs only female stylists.",
            False,
        ),
        ("How many dollars did the training cost?", "Training used 2.8 gigawatt-hours.", False),
        # Nor a number the question gives, nor a year.
        ("How many votes did she win in 2023?", "In 2023 she won the votes of many.", False),
        ("How many masks did the 3 thieves steal?", "The 3 thieves stole masks.", False),
        # Nor a share of what is counted, nor a time of day beside it.
        ("How many votes did she get?", "She won 58% of the vote.", False),
        ("How many votes did she get?", "She won 58 percent of the votes.", False),
        ("How many votes did she get?", "Voting will commence at 9 a.m. sharp.", False),
        ("How many votes did she get?", "Voting opens at 9:30 and closes at 5pm.", False),
        ("How many votes did she get?", "She got 5,812 votes, 58% of those cast.", True),
        # Nor the number of a section, table or version beside it.
        (
            "How many replication connections does it use?",
            "It needs REPLICATION permissions (see Section 22.2).",
            False,
        ),
        ("How many tables can a join hold?", "Tables are listed in Table 9.62.", False),
    ],
)
def test_which_questions_demand_a_figure(question: str, text: str, can_answer: bool) -> None:
    assert answers_shape(question, text) is can_answer


def test_only_a_count_a_version_a_pep_or_a_price_is_demanded() -> None:
    assert demands_shape("How many connections does the pool keep?")
    assert demands_shape("Since which version can an index cover some rows?")
    assert not demands_shape("When did the mine close?")  # an event answers too
    assert not demands_shape("Why does the dump hold no statistics?")


def test_a_soft_hyphen_inside_a_word_does_not_hide_its_shape() -> None:
    question = "How many apartments did the city approve?"
    assert answers_shape(question, "The city approved 350 new apart\u00adments on Tuesday.")
    assert fits(QuestionType.PEP, "See PEP\u00ad 8.")
