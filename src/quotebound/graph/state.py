"""Graph state: a narrow input, the output (docs/architecture.md §6), the internal state."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Annotated, Any, NotRequired, TypedDict, get_type_hints

from langgraph.types import Overwrite

from quotebound.context import require_unicode
from quotebound.errors import ConfigError
from quotebound.records import Composition, EvidenceItem, Finding, SourceInfo

__all__ = [
    "APPENDED",
    "MAX_QUESTION_CHARS",
    "Decision",
    "InputState",
    "OutputState",
    "ResearchState",
    "RoundRecord",
    "merged",
    "new_warnings",
    "validate_question",
]

MAX_QUESTION_CHARS = 2000
"""A question is a question, not a document: longer input is refused with a clear error."""


class Decision(StrEnum):
    """What evaluate decides after a round; the router after it follows the decision."""

    SEARCH = "search"
    COMPOSE = "compose"
    INSUFFICIENT = "insufficient"
    """Stop: nothing relevant enough to compose."""


class InputState(TypedDict):
    """What a caller passes: the question and a few options that beat the profile."""

    question: str
    profile: NotRequired[str]
    max_sources: NotRequired[int]
    max_rounds: NotRequired[int]


def validate_question(question: object) -> str:
    """The question without surrounding whitespace; ConfigError (a ValueError) when it is not
    a non-empty string of valid Unicode text of at most MAX_QUESTION_CHARS characters."""
    if not isinstance(question, str) or not question.strip():
        raise ConfigError("question must be a non-empty string")
    question = require_unicode("question", question.strip())
    if len(question) > MAX_QUESTION_CHARS:
        raise ConfigError(
            f"question must be at most {MAX_QUESTION_CHARS} characters, got {len(question)}"
        )
    return question


class OutputState(TypedDict, total=False):
    """The keys of the final state and of the command's JSON (docs/architecture.md §6)."""

    question: str
    status: str
    """A :class:`~quotebound.records.Status` value."""
    answer: str
    report_markdown: str
    grounding_confidence: str
    findings: list[Finding]
    sources: list[SourceInfo]
    audit: dict[str, Any]


class RoundRecord(TypedDict):
    round: int
    queries: list[str]
    gaps: list[str]
    candidates: int
    fetched: int
    failed: int
    new_evidence: int
    decision: str
    """A :class:`Decision` value."""
    reason: str


class ResearchState(OutputState, total=False):
    """Everything the nodes share. Raw pages never appear here; the Store holds them."""

    profile: str
    max_sources: int
    max_rounds: int
    settings: dict[str, Any]
    thread_id: str | None
    verified_disabled: bool
    disabled_reason: str
    deadline: float
    round: int
    queries: list[str]
    queries_done: list[str]
    gaps: list[str]
    candidates: list[dict[str, Any]]
    new_candidates: int
    provider_runs: Annotated[list[dict[str, Any]], operator.add]
    unknown_names: list[str]
    """Code the question names that no document spells, when only corpora are searched."""
    fetched: Annotated[list[SourceInfo], operator.add]
    failed: Annotated[list[SourceInfo], operator.add]
    round_sources: list[str]
    text_chars: dict[str, int]
    pending: list[dict[str, Any]]
    evidence: Annotated[list[EvidenceItem], operator.add]
    gates: Annotated[list[dict[str, Any]], operator.add]
    records: Annotated[list[dict[str, Any]], operator.add]
    rounds: Annotated[list[RoundRecord], operator.add]
    decision: str
    """A :class:`Decision` value."""
    stop_reason: str
    """A :class:`~quotebound.errors.Reason` value: sufficient, budget_exhausted, timeout,
    no_new_evidence or error."""
    composition: Composition
    review: dict[str, Any]
    reviews: Annotated[list[dict[str, Any]], operator.add]
    revisions: int
    force_extractive: bool
    warnings: Annotated[list[str], operator.add]


APPENDED = frozenset(
    key
    for key, hint in get_type_hints(ResearchState, include_extras=True).items()
    if getattr(hint, "__metadata__", None)
)
"""State lists a node appends to (its update holds only the new items), never rewrites."""


def merged(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The state as it is once ``update`` is applied: appended lists grow, an ``Overwrite``
    replaces, anything else is replaced."""
    out = dict(state)
    for key, value in update.items():
        if isinstance(value, Overwrite):
            out[key] = value.value
        elif key in APPENDED:
            out[key] = [*(state.get(key) or []), *value]
        else:
            out[key] = value
    return out


def new_warnings(state: Mapping[str, Any], warnings: Iterable[str]) -> list[str]:
    """``warnings`` the state does not hold yet, each once, in order: what a node appends."""
    known = set(state.get("warnings") or [])
    return [w for w in dict.fromkeys(warnings) if w not in known]
