"""The ``quotebound`` command's grammar: its subcommands, their options and their checks.

A usage error is one line on stderr and exit 2 (:mod:`quotebound.interface.exitcodes`). Only
light modules are imported here, so that ``--help`` answers at once.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from quotebound.interface.exitcodes import EXIT_USAGE

__all__ = ["build_parser"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive_int(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {raw!r}") from None
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to 1000000, got {raw!r}")
    return value


def _count(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {raw!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {raw!r}")
    return value


def _ladder(raw: str) -> str:
    """A provider ladder: 'auto' or known provider names, comma-separated."""
    from quotebound.context import PROVIDERS

    names = [n.strip() for n in raw.split(",")]
    unknown = [n for n in names if n not in PROVIDERS]
    if raw.strip() != "auto" and unknown:
        raise argparse.ArgumentTypeError(
            f"unknown provider {unknown[0]!r}; choose 'auto' or from {', '.join(PROVIDERS)}"
        )
    return raw


def build_parser() -> argparse.ArgumentParser:
    """The command-line grammar of every subcommand."""
    from quotebound.context import PROFILES, PROVIDERS
    from quotebound.storage.stores import default_store_uri

    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    store = _Parser(add_help=False)
    store.add_argument(
        "--store",
        metavar="URI",
        default=None,
        help=f"'memory', 'sqlite:PATH' or 'postgresql://...' (default: {default_store_uri()})",
    )
    fmt = _Parser(add_help=False)
    fmt.add_argument(
        "--format",
        choices=["markdown", "json", "html"],
        default="markdown",
        help="html: one self-contained page whose quote links open the source at the quote",
    )
    fmt.add_argument("--out", metavar="PATH", type=Path, help="write the output here")

    parser = _Parser(
        prog="quotebound",
        description="Research a question and answer only with verified verbatim quotes.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    research = sub.add_parser(
        "research", parents=[common, store, fmt], help="answer a question with verified quotes"
    )
    research.add_argument("question", nargs="?", help="the question to research")
    research.add_argument(
        "--resume",
        metavar="THREAD_ID",
        help="continue that thread's interrupted run from its last checkpoint (no question)",
    )
    research.add_argument("--corpus", metavar="DIR", help="search this local corpus directory")
    research.add_argument("--base-url", metavar="URL", help="public URL the corpus is cited under")
    research.add_argument(
        "--provider",
        type=_ladder,
        metavar="P[,P...]",
        help="search providers in ladder order: 'auto' or some of " + ", ".join(PROVIDERS),
    )
    research.add_argument("--profile", choices=sorted(PROFILES))
    research.add_argument(
        "--max-sources", type=_positive_int, metavar="N", help="most sources read (beats profile)"
    )
    research.add_argument("--thread-id", metavar="ID", help="letters, digits, '-', '_'")
    research.add_argument(
        "--no-cache",
        action="store_true",
        help="ask the search providers and fetch the pages again instead of using those kept "
        "from earlier runs",
    )

    index = sub.add_parser("index", parents=[common], help="build or refresh a corpus index")
    index.add_argument("directory", metavar="DIR")
    index.add_argument("--base-url", metavar="URL", help="public URL the corpus is cited under")

    verify = sub.add_parser("verify", parents=[common], help="verify one quote against one page")
    verify.add_argument("--quote", required=True, metavar="TEXT")
    source = verify.add_mutually_exclusive_group(required=True)
    source.add_argument("--file", type=Path, metavar="PATH")
    source.add_argument("--url")
    verify.add_argument("--format", choices=["text", "json"], default="text")

    show = sub.add_parser(
        "show", parents=[common, store, fmt], help="print a past run's report and audit"
    )
    show.add_argument("thread_id", metavar="THREAD_ID")

    sources = sub.add_parser("sources", parents=[common, store], help="list a run's stored pages")
    sources.add_argument("thread_id", metavar="THREAD_ID")

    export = sub.add_parser(
        "export", parents=[common, store], help="write a finished run's evidence bundle (zip)"
    )
    export.add_argument("thread_id", metavar="THREAD_ID")
    export.add_argument(
        "-o", "--out", required=True, type=Path, metavar="PATH", help="the zip to write"
    )
    check = sub.add_parser(
        "verify-bundle", parents=[common], help="re-check an evidence bundle offline"
    )
    check.add_argument("bundle", type=Path, metavar="BUNDLE", help="a zip written by export")

    prune = sub.add_parser(
        "prune", parents=[common, store], help="remove old runs: pages, evidence and checkpoints"
    )
    prune.add_argument(
        "--older-than",
        metavar="DURATION",
        help="remove runs last written before this: 30d, 12h, 90m",
    )
    prune.add_argument(
        "--keep-last", type=_count, metavar="N", help="always keep the N most recent runs"
    )
    prune.add_argument("--dry-run", action="store_true", help="list what would go, delete nothing")

    cache = sub.add_parser(
        "cache",
        parents=[common, store],
        help="the search answers and pages kept in the run database",
    )
    cache.add_argument("action", choices=["clear"], help="clear: remove every kept answer and page")

    providers = sub.add_parser(
        "providers", parents=[common], help="list the search providers and what each needs"
    )
    providers.add_argument(
        "--check", action="store_true", help="also ask each ready provider one test query"
    )
    mcp = sub.add_parser(
        "mcp",
        parents=[common, store],
        help="serve research, verify_quote and get_snapshot to MCP clients over stdio",
    )
    mcp.add_argument("--corpus", metavar="DIR", help="the local corpus research searches")
    mcp.add_argument("--base-url", metavar="URL", help="public URL the corpus is cited under")
    return parser
