"""How questions are asked: a set of 120 written by someone who had not read the splitter (100
asking two things in the forms users type, 20 asking one with "and" or commas inside), so that
a change to :func:`~quotebound.evidence.relevance.sub_questions` is measured on forms it was
not written for."""

from __future__ import annotations

import json
from pathlib import Path

from quotebound.evidence.relevance import sub_questions

FORMS = json.loads((Path(__file__).parents[1] / "fixtures" / "question_forms.json").read_text())
SPLIT_AT_LEAST = 75
"""Of the 100 questions asking two things, how many are split in two today. Some are not, by
design: a second part of fewer than two content words ("..., and where do they ship from?")
stays with the first, a first sentence that only sets a scene ("I need to attach a database.
Which pragma ...?") too, and "X, or do I need Y?" is read as one question with two
answers."""


def test_questions_asking_two_things_split_in_two_and_one_thing_stays_whole() -> None:
    two = [f["question"] for f in FORMS if len(f["parts"]) == 2]
    one = [f["question"] for f in FORMS if len(f["parts"]) == 1]
    assert (len(two), len(one)) == (100, 20)
    assert [q for q in one if sub_questions(q) != [q]] == []
    split = sum(len(sub_questions(q)) == 2 for q in two)
    assert split >= SPLIT_AT_LEAST, f"{split} of 100 split in two"
