"""What each subcommand of ``quotebound`` does: research, index, verify, show, sources, prune,
cache, providers (and, from :mod:`quotebound.interface.bundlecommands`, export and verify-bundle).

Each command imports what it needs when it runs (the graph only for research and show), so
that importing this module for ``--help`` costs nothing. A command returns its exit code
(:mod:`quotebound.interface.exitcodes`) and raises :class:`~quotebound.errors.ConfigError` for
a reason the user can fix. A run's output is written by :mod:`quotebound.interface.output`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotebound.errors import ConfigError
from quotebound.interface.bundlecommands import BUNDLE_HANDLERS
from quotebound.interface.exitcodes import EXIT_ERROR, EXIT_OK, run_exit
from quotebound.interface.housekeeping import HOUSEKEEPING_HANDLERS
from quotebound.interface.mcpserver import serve_mcp

if TYPE_CHECKING:
    from quotebound.acquisition.corpus import LocalCorpus
    from quotebound.acquisition.corpusindex import IndexStats
    from quotebound.context import Context
    from quotebound.evidence.verification import Verification
    from quotebound.graph.deps import Deps
    from quotebound.interface.progress import Progress
    from quotebound.storage.rawstore import RawPage
    from quotebound.storage.stores import StoreHandle

__all__ = ["HANDLERS", "prepare_corpus", "research_in", "url_page"]


def _progress(args: argparse.Namespace) -> Progress:
    from quotebound.interface.progress import Progress

    return Progress(sys.stderr, enabled=not args.quiet)


# --- research ---------------------------------------------------------------------------------


async def _research(args: argparse.Namespace) -> int:
    from quotebound.context import make_context
    from quotebound.evidence.encoder import enabled as meaning_enabled
    from quotebound.graph.deps import Deps
    from quotebound.graph.state import validate_question
    from quotebound.interface.output import emit_run, pages_for
    from quotebound.storage.bytecache import shared as shared_cache
    from quotebound.storage.rawstore import validate_thread_id
    from quotebound.storage.stores import open_store

    if args.resume is not None:
        return await _resume(args)
    if args.question is None:
        raise ConfigError("research needs a question (or --resume THREAD_ID)")
    question = validate_question(args.question)
    thread_id = validate_thread_id(args.thread_id) if args.thread_id else uuid.uuid4().hex
    explicit: dict[str, Any] = {
        "provider": args.provider,
        "max_sources": args.max_sources,
        "search_cache_hours": 0 if args.no_cache else None,
        "page_cache_hours": 0 if args.no_cache else None,
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
            result = await research_in(handle, question, thread_id, context, deps, progress)
            pages = await pages_for(args, handle.store, result)
        progress.note(f"status {result.get('status')}; see it again: quotebound show {thread_id}")
    emit_run(args, result, pages)
    return run_exit(result.get("status"))


async def research_in(
    handle: StoreHandle,
    question: str,
    thread_id: str,
    context: Context,
    deps: Deps,
    progress: Progress,
) -> dict[str, Any]:
    """Run one research on ``handle``'s Store and checkpointer, as ``quotebound research`` and
    the MCP ``research`` tool do: the corpus indexed first (file work, off the event loop) and
    the run's providers and model built, so that one that cannot run fails before the run."""
    from quotebound.interface.runner import run_research

    def prepare() -> None:
        settings = context.resolved()
        prepare_corpus(settings, deps.corpus_roots, progress)
        deps.toolkit(settings)

    await asyncio.to_thread(prepare)
    progress.note(f"thread {thread_id} in {handle.uri}")
    return await run_research(
        question,
        store=handle.store,
        checkpointer=handle.checkpointer,
        thread_id=thread_id,
        context=context,
        on_event=progress.event,
        deps=deps,
    )


def prepare_corpus(context: Context, roots: Sequence[Path] | None, progress: Progress) -> None:
    """Index, with progress lines, the corpus the run will search (the one
    :func:`quotebound.graph.deps.local_corpus` chooses), building the embedded one if need be."""
    from quotebound.acquisition.embedded import embedded_corpus
    from quotebound.graph.deps import local_corpus

    def embedded() -> LocalCorpus:
        progress.note("preparing the embedded corpus (built once into the user cache) ...")
        return embedded_corpus()

    corpus = local_corpus(context, roots, embedded=embedded)
    if corpus is not None:
        _refresh(corpus, progress)


def _refresh(corpus: LocalCorpus, progress: Progress) -> None:
    progress.note(f"indexing {corpus.name} {corpus.root} ...")
    stats = corpus.refresh(done=_vectors_made(progress))
    progress.note(f"{corpus.name} indexed: {_stats_line(stats)}")


def _vectors_made(progress: Progress) -> Callable[[int, int], None]:
    """Progress lines while a corpus's passages get their vectors: the first, then each tenth."""
    shown = -1

    def done(made: int, total: int) -> None:
        nonlocal shown
        if made * 10 // total > shown:
            shown = made * 10 // total
            progress.note(
                f"passage vectors (search by meaning; made once, QUOTEBOUND_MEANING=off skips "
                f"them): {made}/{total}"
            )

    return done


def _stats_line(stats: IndexStats) -> str:
    return (
        f"added {stats.added}, updated {stats.updated}, removed {stats.removed}, "
        f"unchanged {stats.unchanged}, skipped {stats.skipped}"
    )


# --- index ------------------------------------------------------------------------------------


async def _index(args: argparse.Namespace) -> int:
    from quotebound.acquisition.corpus import LocalCorpus
    from quotebound.context import Context

    with _progress(args) as progress:
        root = Path(args.directory).expanduser().resolve()
        cap = Context().resolved().page_bytes()  # QUOTEBOUND_MAX_PAGE_MB, as research reads it
        _refresh(LocalCorpus(root, base_url=args.base_url, max_bytes=cap), progress)
    return EXIT_OK


async def _resume(args: argparse.Namespace) -> int:
    from quotebound.evidence.encoder import enabled as meaning_enabled
    from quotebound.graph.deps import Deps
    from quotebound.interface.output import emit_run, pages_for
    from quotebound.interface.runner import resume_research
    from quotebound.storage.bytecache import shared as shared_cache
    from quotebound.storage.rawstore import validate_thread_id
    from quotebound.storage.stores import open_store

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
            pages = await pages_for(args, handle.store, result)
        progress.note(f"status {result.get('status')}; see it again: quotebound show {thread_id}")
    emit_run(args, result, pages)
    return run_exit(result.get("status"))


# --- verify -----------------------------------------------------------------------------------


async def _verify(args: argparse.Namespace) -> int:
    from quotebound.evidence.verification import verify_quote
    from quotebound.storage.rawstore import parsed_page

    page = await _file_page(args.file) if args.file is not None else await url_page(args.url)
    result = verify_quote(args.quote, parsed_page(page).text)
    if args.format == "json":
        print(json.dumps({"source": page.url, **result.to_dict()}, ensure_ascii=False, indent=2))
    else:
        print(_verification_text(page.url, result))
    return EXIT_OK if result.status == "PASS" else EXIT_ERROR


async def _file_page(path: Path) -> RawPage:
    """A local file read through the corpus transport, as a one-document corpus."""
    from quotebound.acquisition.corpus import LocalCorpus
    from quotebound.context import Context

    if not path.is_file():
        raise ConfigError(f"cannot read {str(path)!r}: not an existing file")
    resolved = path.resolve()
    cap = Context().resolved().page_bytes()
    return await LocalCorpus(resolved.parent, max_bytes=cap).read(resolved.name)


async def url_page(url: str) -> RawPage:
    """The page at ``url``, fetched now under the default fetch policy (public addresses only)."""
    from quotebound.acquisition.fetcher import Fetcher

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
    from quotebound.interface.output import emit_run, pages_for
    from quotebound.interface.runner import load_run
    from quotebound.storage.rawstore import validate_thread_id
    from quotebound.storage.stores import open_store

    thread_id = validate_thread_id(args.thread_id)
    async with open_store(args.store) as handle:
        result = await load_run(thread_id, checkpointer=handle.checkpointer)
        if result is None:
            raise ConfigError(
                f"no such thread {thread_id!r} in {handle.uri} (never run there, or pruned)"
            )
        pages = await pages_for(args, handle.store, result)
    emit_run(args, result, pages)
    return EXIT_OK


async def _sources(args: argparse.Namespace) -> int:
    from quotebound.storage.rawstore import list_raw_pages, validate_thread_id
    from quotebound.storage.stores import open_store

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


# --- providers --------------------------------------------------------------------------------


async def _providers(args: argparse.Namespace) -> int:
    """One line per remote provider: name, kind, state, endpoint; with ``--check``, the
    result of one test query to each ready one. Exit 1 when a checked provider fails."""
    from quotebound.acquisition.catalog import provider_states, remote_provider
    from quotebound.context import make_context

    settings = make_context().resolved()
    failed = 0
    for state in provider_states(settings):
        status = "ready" if state.ready else f"not ready: {state.hint}"
        line = f"{state.name:<13} {state.kind:<5} {status}  {state.endpoint}"
        if args.check and state.ready:
            response = await remote_provider(state.name, settings).search(
                "open source", max_results=3
            )
            run = response.run
            failed += run.reason is not None
            outcome = run.reason or "ok"
            line += f"  check: {outcome}, {run.result_count} results, {run.latency_ms} ms"
        print(line, flush=True)
    print("local: corpus (--corpus DIR), embedded (the standard library's docs)")
    return EXIT_ERROR if failed else EXIT_OK


HANDLERS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
    "research": _research,
    "index": _index,
    "verify": _verify,
    "show": _show,
    "sources": _sources,
    "providers": _providers,
    "mcp": serve_mcp,
    **BUNDLE_HANDLERS,
    **HOUSEKEEPING_HANDLERS,
}
"""Each subcommand's implementation, by the name the parser gives it (``args.command``)."""
