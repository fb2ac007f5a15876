"""Which threads a prune picks, and the durations it accepts (pure, no store)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from quotebound.errors import ConfigError
from quotebound.storage.retention import PruneReport, ThreadInfo, parse_duration, select_for_pruning

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
# newest first, as list_threads gives them: ages 1 h, 2 days, 40 days, 90 days
THREADS = [
    ThreadInfo("a", NOW - timedelta(hours=1), 3),
    ThreadInfo("b", NOW - timedelta(days=2), 2),
    ThreadInfo("c", NOW - timedelta(days=40), 4),
    ThreadInfo("d", NOW - timedelta(days=90), 1),
]


def _pick(older_than: timedelta | None, keep_last: int | None) -> list[str]:
    picked = select_for_pruning(THREADS, older_than=older_than, keep_last=keep_last, now=NOW)
    return [t.thread_id for t in picked]


@pytest.mark.parametrize(
    ("older_than", "keep_last", "expect"),
    [
        (timedelta(days=30), None, ["d", "c"]),
        (timedelta(days=1), None, ["d", "c", "b"]),
        (timedelta(days=365), None, []),
        (None, 1, ["d", "c", "b"]),
        (None, 0, ["d", "c", "b", "a"]),
        (None, 10, []),
        (timedelta(days=1), 3, ["d"]),
        (timedelta(minutes=1), 4, []),
    ],
)
def test_keep_last_protects_the_newest_and_older_than_picks_by_last_write(
    older_than: timedelta | None, keep_last: int | None, expect: list[str]
) -> None:
    assert _pick(older_than, keep_last) == expect


def test_nothing_to_go_by_is_refused_rather_than_pruning_everything() -> None:
    with pytest.raises(ConfigError, match="--older-than"):
        _pick(None, None)


@pytest.mark.parametrize(
    ("text", "expect"),
    [("30d", timedelta(days=30)), ("12h", timedelta(hours=12)), ("90m", timedelta(minutes=90))],
)
def test_durations(text: str, expect: timedelta) -> None:
    assert parse_duration(text) == expect


def test_summary_line() -> None:
    report = PruneReport(tuple(THREADS[2:]), kept=2, dry_run=False)
    assert report.summary() == "pruned 2 threads, 5 pages, kept 2"
    assert (
        PruneReport((), kept=4, dry_run=True).summary() == "would prune 0 threads, 0 pages, kept 4"
    )
