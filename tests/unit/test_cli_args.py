"""The command's grammar and its one-line usage errors (in-process, no network, no run)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from quotebound.interface.arguments import build_parser
from quotebound.interface.cli import main
from quotebound.interface.exitcodes import EXIT_USAGE
from quotebound.interface.progress import Progress, describe


def _usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run ``argv``; assert exit 2 and a single stderr line, and return that line."""
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse errors exit from inside parse_args
        code = exit_.code  # type: ignore[assignment]
    captured = capsys.readouterr()
    assert code == EXIT_USAGE, captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""
    return lines[0]


def test_research_options_parse() -> None:
    args = build_parser().parse_args(
        ["research", "What is X?", "--corpus", "docs", "--base-url", "https://d.example/",
         "--provider", "corpus", "--profile", "deep", "--max-sources", "7", "--format", "json",
         "--out", "r.json", "--store", "memory", "--thread-id", "run-1", "--quiet"]
    )  # fmt: skip
    assert (args.command, args.question, args.corpus, args.base_url) == (
        "research",
        "What is X?",
        "docs",
        "https://d.example/",
    )
    assert (args.provider, args.profile, args.max_sources, args.format) == (
        "corpus",
        "deep",
        7,
        "json",
    )
    assert (args.out, args.store, args.thread_id, args.quiet) == (
        Path("r.json"),
        "memory",
        "run-1",
        True,
    )


def test_defaults_leave_configuration_to_the_context() -> None:
    args = build_parser().parse_args(["research", "Q"])
    assert args.provider is None and args.profile is None and args.max_sources is None
    assert args.store is None and args.thread_id is None and args.format == "markdown"


def test_missing_question_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    line = _usage_error(capsys, ["research"])
    assert "question" in line


def test_missing_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert "required" in _usage_error(capsys, [])


def test_unknown_provider(capsys: pytest.CaptureFixture[str]) -> None:
    line = _usage_error(capsys, ["research", "Q", "--provider", "bing"])
    assert "bing" in line and "--provider" in line


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_max_sources_must_be_positive(capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert "--max-sources" in _usage_error(capsys, ["research", "Q", "--max-sources", value])


def test_thread_id_with_a_dot(capsys: pytest.CaptureFixture[str]) -> None:
    line = _usage_error(capsys, ["research", "Q", "--store", "memory", "--thread-id", "a.b"])
    assert "'a.b'" in line and "thread id" in line


def test_empty_question(capsys: pytest.CaptureFixture[str]) -> None:
    assert "empty" in _usage_error(capsys, ["research", "   ", "--store", "memory"])


def test_missing_corpus_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    line = _usage_error(capsys, ["research", "Q", "--store", "memory", "--corpus", str(missing)])
    assert str(missing) in line


def test_unknown_store_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    line = _usage_error(capsys, ["research", "Q", "--store", "redis://localhost/0"])
    assert "redis://localhost/0" in line


def test_verify_needs_exactly_one_source(capsys: pytest.CaptureFixture[str]) -> None:
    _usage_error(capsys, ["verify", "--quote", "x"])
    _usage_error(capsys, ["verify", "--quote", "x", "--file", "a", "--url", "https://a.example/"])


def test_show_rejects_a_bad_thread_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert "thread id" in _usage_error(capsys, ["show", "x.y", "--store", "memory"])


def test_show_unknown_thread(capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such thread" in _usage_error(capsys, ["show", "never-ran", "--store", "memory"])


def test_sources_unknown_thread(capsys: pytest.CaptureFixture[str]) -> None:
    assert "no pages" in _usage_error(capsys, ["sources", "never-ran", "--store", "memory"])


@pytest.mark.parametrize("duration", ["30", "30x", "-1d", "0h", "1.5d", "d", "", "30 days"])
def test_prune_refuses_a_bad_duration(capsys: pytest.CaptureFixture[str], duration: str) -> None:
    line = _usage_error(capsys, ["prune", f"--older-than={duration}", "--store", "memory"])
    assert "duration" in line and "'30d', '12h', '90m'" in line


@pytest.mark.parametrize("argv", [[], ["--keep-last", "-1"], ["--keep-last", "two"]])
def test_prune_needs_an_age_or_a_count(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert "keep-last" in _usage_error(capsys, ["prune", *argv, "--store", "memory"])


@pytest.mark.parametrize("duration", ["30d", "12h", "90m"])
def test_prune_accepts_days_hours_and_minutes(
    capsys: pytest.CaptureFixture[str], duration: str
) -> None:
    assert main(["prune", "--older-than", duration, "--store", "memory"]) == 0
    assert capsys.readouterr().out == "pruned 0 threads, 0 pages, kept 0\n"


_EVENT = {
    "phase": "fetch",
    "round": 1,
    "max_rounds": 2,
    "queries": ["q"],
    "sources_found": 5,
    "sources_fetched": 3,
    "sources_failed": 1,
    "quotes_verified": 4,
    "message": "read 3 pages",
}


def test_describe_names_phase_round_counts_and_message() -> None:
    assert describe(_EVENT) == (
        "[fetch] · round 1/2 · sources found 5, fetched 3, failed 1 · quotes verified 4"
        " · read 3 pages"
    )


def test_progress_to_a_pipe_is_one_line_per_event() -> None:
    stream = io.StringIO()
    with Progress(stream) as progress:
        assert not progress.live
        progress.note("indexing corpus docs ...")
        progress.event(_EVENT)
        progress.event({**_EVENT, "phase": "verify_evidence", "quotes_verified": 9})
    assert stream.getvalue().splitlines() == [
        "quotebound: indexing corpus docs ...",
        f"quotebound: {describe(_EVENT)}",
        "quotebound: [verify_evidence] · round 1/2 · sources found 5, fetched 3, failed 1"
        " · quotes verified 9 · read 3 pages",
    ]


def test_quiet_progress_writes_nothing() -> None:
    stream = io.StringIO()
    with Progress(stream, enabled=False) as progress:
        progress.note("hello")
        progress.event(_EVENT)
    assert stream.getvalue() == ""
