"""The ``quotebound`` command: research, index, verify, show, sources and prune.

Each command imports what it needs when it runs (the graph only for research and show), so
``--help`` and a usage error answer at once.

Exit codes: 0 answered (or PASS, or done), 1 an unexpected error (or a quote that FAILs),
2 bad usage or configuration, with a one-line reason on stderr, 3 insufficient evidence.
Tracebacks only with ``--debug``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import traceback
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, get_args

from quotebound.errors import ConfigError, FetchError, StoreError

if TYPE_CHECKING:
    from quotebound.context import Context
    from quotebound.corpus import IndexStats, LocalCorpus
    from quotebound.progress import Progress
    from quotebound.rawstore import RawPage
    from quotebound.retention import ThreadInfo
    from quotebound.verification import Verification

__all__ = ["EXIT_ERROR", "EXIT_INSUFFICIENT", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INSUFFICIENT = 3

_STATUS_EXIT = {
    "answered": EXIT_OK,
    "insufficient_evidence": EXIT_INSUFFICIENT,
    "verified_disabled": EXIT_INSUFFICIENT,
}


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


def build_parser() -> argparse.ArgumentParser:
    """The command-line grammar of every subcommand."""
    from quotebound.context import PROFILES, ProviderName
    from quotebound.stores import default_store_uri

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
    fmt.add_argument("--format", choices=["markdown", "json"], default="markdown")
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
    research.add_argument("--provider", choices=get_args(ProviderName))
    research.add_argument("--profile", choices=sorted(PROFILES))
    research.add_argument(
        "--max-sources", type=_positive_int, metavar="N", help="most sources read (beats profile)"
    )
    research.add_argument("--thread-id", metavar="ID", help="letters, digits, '-', '_'")

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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (the console script exits with it)."""
    args = build_parser().parse_args(argv)
    _configure_logging(args)
    handler = _HANDLERS[args.command]
    try:
        return asyncio.run(handler(args))
    except (ConfigError, StoreError, FetchError) as exc:  # FetchError: verify's page
        return _fail(args, EXIT_USAGE, str(exc))
    except KeyboardInterrupt:
        return _fail(args, 130, "interrupted")
    except Exception as exc:
        return _fail(args, EXIT_ERROR, f"unexpected error: {type(exc).__name__}: {exc}")


def _fail(args: argparse.Namespace, code: int, message: str) -> int:
    if args.debug:
        traceback.print_exc()
    first = message.strip().splitlines()[0] if message.strip() else "error"
    print(f"quotebound: error: {first}", file=sys.stderr)
    return code


def _configure_logging(args: argparse.Namespace) -> None:
    level = logging.DEBUG if args.debug else logging.ERROR if args.quiet else logging.WARNING
    logging.basicConfig(format="quotebound: %(levelname)s: %(name)s: %(message)s")
    logging.getLogger("quotebound").setLevel(level)


def _progress(args: argparse.Namespace) -> Progress:
    from quotebound.progress import Progress

    return Progress(sys.stderr, enabled=not args.quiet)


# --- research ---------------------------------------------------------------------------------


async def _research(args: argparse.Namespace) -> int:
    from quotebound.bytecache import shared as shared_cache
    from quotebound.context import make_context
    from quotebound.encoder import enabled as meaning_enabled
    from quotebound.nodes.deps import Deps
    from quotebound.rawstore import validate_thread_id
    from quotebound.runner import run_research
    from quotebound.state import validate_question
    from quotebound.stores import open_store

    if args.resume is not None:
        return await _resume(args)
    if args.question is None:
        raise ConfigError("research needs a question (or --resume THREAD_ID)")
    question = validate_question(args.question)
    thread_id = validate_thread_id(args.thread_id) if args.thread_id else uuid.uuid4().hex
    explicit: dict[str, Any] = {
        "provider": args.provider,
        "max_sources": args.max_sources,
    }
    if args.corpus:
        explicit["corpus_dir"] = str(Path(args.corpus).expanduser().resolve())
    if args.base_url:
        explicit["corpus_base_url"] = args.base_url
    context = make_context(args.profile, **explicit)
    # A malformed QUOTEBOUND_CACHE_MB or QUOTEBOUND_MEANING fails here, before anything runs.
    shared_cache()
    meaning_enabled()
    deps = Deps()
    with _progress(args) as progress:
        async with open_store(args.store) as handle:
            _prepare_corpus(context.resolved(), progress)
            deps.toolkit(context.resolved())  # a provider or model that cannot run fails now
            progress.note(f"thread {thread_id} in {handle.uri}")
            result = await run_research(
                question,
                store=handle.store,
                checkpointer=handle.checkpointer,
                thread_id=thread_id,
                context=context,
                on_event=progress.event,
                deps=deps,
            )
        progress.note(f"status {result.get('status')}; see it again: quotebound show {thread_id}")
    _emit_run(args, result)
    return _STATUS_EXIT.get(str(result.get("status")), EXIT_ERROR)


def _prepare_corpus(context: Context, progress: Progress) -> None:
    """Index the run's local corpus (or build the embedded one) first, with a progress line."""
    from quotebound.corpus import LocalCorpus
    from quotebound.embedded import embedded_corpus

    if context.corpus_dir and context.provider in ("auto", "corpus"):
        corpus = LocalCorpus(
            context.corpus_dir,
            base_url=context.corpus_base_url or None,
            max_bytes=context.page_bytes(),
        )
        _refresh(corpus, progress)
    elif context.provider == "embedded" or (context.provider == "auto" and not context.corpus_dir):
        progress.note("preparing the embedded corpus (built once into the user cache) ...")
        _refresh(embedded_corpus(), progress)


def _refresh(corpus: LocalCorpus, progress: Progress) -> None:
    progress.note(f"indexing {corpus.name} {corpus.root} ...")
    stats = corpus.refresh()
    progress.note(f"{corpus.name} indexed: {_stats_line(stats)}")


def _stats_line(stats: IndexStats) -> str:
    return (
        f"added {stats.added}, updated {stats.updated}, removed {stats.removed}, "
        f"unchanged {stats.unchanged}, skipped {stats.skipped}"
    )


def _emit_run(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Write a run's output as JSON or Markdown, to ``--out`` or stdout."""
    if args.format == "json":
        _write(args, json.dumps(result, ensure_ascii=False, indent=2) + "\n", markdown=False)
    else:
        _write(args, _run_markdown(args, result), markdown=True)


def _run_markdown(args: argparse.Namespace, result: dict[str, Any]) -> str:
    text = str(result.get("report_markdown") or "").rstrip() + "\n"
    if args.command == "show":
        audit = json.dumps(result.get("audit", {}), ensure_ascii=False, indent=2)
        text += f"\n## Audit\n\n```json\n{audit}\n```\n"
    return text


def _write(args: argparse.Namespace, text: str, *, markdown: bool) -> None:
    if args.out is not None:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write {args.out}: {exc.strerror}") from exc
        return
    if markdown and sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


# --- index ------------------------------------------------------------------------------------


async def _index(args: argparse.Namespace) -> int:
    from quotebound.context import Context
    from quotebound.corpus import LocalCorpus

    with _progress(args) as progress:
        root = Path(args.directory).expanduser().resolve()
        cap = Context().resolved().page_bytes()  # QUOTEBOUND_MAX_PAGE_MB, as research reads it
        _refresh(LocalCorpus(root, base_url=args.base_url, max_bytes=cap), progress)
    return EXIT_OK


async def _resume(args: argparse.Namespace) -> int:
    from quotebound.bytecache import shared as shared_cache
    from quotebound.encoder import enabled as meaning_enabled
    from quotebound.nodes.deps import Deps
    from quotebound.rawstore import validate_thread_id
    from quotebound.runner import resume_research
    from quotebound.stores import open_store

    given = [
        name
        for name, value in (
            ("a question", args.question),
            ("--thread-id", args.thread_id),
            ("--corpus", args.corpus),
            ("--base-url", args.base_url),
            ("--provider", args.provider),
            ("--profile", args.profile),
            ("--max-sources", args.max_sources),
        )
        if value is not None
    ]
    if given:
        raise ConfigError(
            f"--resume continues a run with its own question and settings; drop {given[0]}"
        )
    thread_id = validate_thread_id(args.resume)
    shared_cache()
    meaning_enabled()
    with _progress(args) as progress:
        async with open_store(args.store) as handle:
            result = await resume_research(
                thread_id,
                store=handle.store,
                checkpointer=handle.checkpointer,
                on_event=progress.event,
                deps=Deps(),
            )
        progress.note(f"status {result.get('status')}; see it again: quotebound show {thread_id}")
    _emit_run(args, result)
    return _STATUS_EXIT.get(str(result.get("status")), EXIT_ERROR)


# --- verify -----------------------------------------------------------------------------------


async def _verify(args: argparse.Namespace) -> int:
    from quotebound.rawstore import parsed_page
    from quotebound.verification import verify_quote

    page = await _file_page(args.file) if args.file is not None else await _url_page(args.url)
    result = verify_quote(args.quote, parsed_page(page).text)
    if args.format == "json":
        print(json.dumps({"source": page.url, **result.to_dict()}, ensure_ascii=False, indent=2))
    else:
        print(_verification_text(page.url, result))
    return EXIT_OK if result.status == "PASS" else EXIT_ERROR


async def _file_page(path: Path) -> RawPage:
    """A local file read through the corpus transport, as a one-document corpus."""
    from quotebound.context import Context
    from quotebound.corpus import LocalCorpus

    if not path.is_file():
        raise ConfigError(f"cannot read {str(path)!r}: not an existing file")
    resolved = path.resolve()
    cap = Context().resolved().page_bytes()
    return await LocalCorpus(resolved.parent, max_bytes=cap).read(resolved.name)


async def _url_page(url: str) -> RawPage:
    from quotebound.fetch import Fetcher

    async with Fetcher() as fetcher:
        return await fetcher.fetch(url)


def _verification_text(source: str, v: Verification) -> str:
    span = f"{v.start}-{v.end}" if v.status == "PASS" else "-"
    return "\n".join(
        [
            f"status:  {v.status}",
            f"method:  {v.method or '-'}",
            f"score:   {v.score:.3f}",
            f"span:    {span}",
            f"matched: {json.dumps(v.matched_text, ensure_ascii=False)}",
            f"reason:  {v.reason or '-'}",
            f"source:  {source}",
        ]
    )


# --- show and sources -------------------------------------------------------------------------


async def _show(args: argparse.Namespace) -> int:
    from quotebound.rawstore import validate_thread_id
    from quotebound.runner import load_run
    from quotebound.stores import open_store

    thread_id = validate_thread_id(args.thread_id)
    async with open_store(args.store) as handle:
        result = await load_run(thread_id, checkpointer=handle.checkpointer)
        if result is None:
            raise ConfigError(
                f"no such thread {thread_id!r} in {handle.uri} (never run there, or pruned)"
            )
    _emit_run(args, result)
    return EXIT_OK


async def _sources(args: argparse.Namespace) -> int:
    from quotebound.rawstore import list_raw_pages, validate_thread_id
    from quotebound.stores import open_store

    thread_id = validate_thread_id(args.thread_id)
    async with open_store(args.store) as handle:
        pages = await list_raw_pages(handle.store, thread_id)
        if not pages:
            raise ConfigError(f"no pages stored for thread id {thread_id!r} in {handle.uri}")
    _print_sources(pages)
    return EXIT_OK


def _print_sources(pages: Sequence[RawPage]) -> None:
    header = ("source id", "tier", "status", "fetched at", "url", "title")
    rows = [(p.source_id, p.tier.name, str(p.status), p.fetched_at, p.url, p.title) for p in pages]
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        table = Table(*header)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        Console().print(table)
    else:
        for row in (header, *rows):
            print("\t".join(row))


# --- prune ------------------------------------------------------------------------------------


async def _prune(args: argparse.Namespace) -> int:
    from quotebound.retention import parse_duration, prune_threads, require_criteria
    from quotebound.stores import open_store

    older_than = parse_duration(args.older_than) if args.older_than is not None else None
    require_criteria(older_than, args.keep_last)
    verb = "would prune" if args.dry_run else "pruned"

    def line(thread: ThreadInfo) -> None:
        written = thread.last_write.isoformat(timespec="seconds").replace("+00:00", "Z")
        print(f"{verb} {thread.thread_id}\tlast write {written}\t{thread.items} pages", flush=True)

    async with open_store(args.store) as handle:
        report = await prune_threads(
            handle.store,
            handle.checkpointer,
            older_than=older_than,
            keep_last=args.keep_last,
            dry_run=args.dry_run,
            on_thread=line,
        )
    print(report.summary())
    return EXIT_OK


_HANDLERS = {
    "research": _research,
    "index": _index,
    "verify": _verify,
    "show": _show,
    "sources": _sources,
    "prune": _prune,
}
