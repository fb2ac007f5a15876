"""The evidence bundle's subcommands: ``export`` writes a finished run's bundle, and
``verify-bundle`` re-checks one offline (the format: :mod:`quotebound.report.bundle`).

Like :mod:`quotebound.interface.commands`, each handler imports what it needs when it runs and
returns its exit code; a file that is not a bundle raises
:class:`~quotebound.errors.BundleError` (exit 2).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from quotebound.errors import ConfigError
from quotebound.interface.exitcodes import EXIT_ALTERED, EXIT_OK

__all__ = ["BUNDLE_HANDLERS"]


async def _export(args: argparse.Namespace) -> int:
    """Write the bundle of a finished run to ``--out``, with its HTML report and the views of
    its cited pages; one line says what it holds."""
    from quotebound.interface.output import cited_pages
    from quotebound.interface.runner import load_evidence, load_run
    from quotebound.report.bundle import MAX_ENTRIES, build_bundle
    from quotebound.report.html import render_html_report
    from quotebound.report.pageview import page_views
    from quotebound.storage.rawstore import list_raw_pages, validate_thread_id
    from quotebound.storage.stores import open_store

    thread_id = validate_thread_id(args.thread_id)
    async with open_store(args.store) as handle:
        result = await load_run(thread_id, checkpointer=handle.checkpointer)
        evidence = await load_evidence(thread_id, checkpointer=handle.checkpointer)
        if result is None or evidence is None:
            raise ConfigError(
                f"no finished run on thread {thread_id!r} in {handle.uri} (never run there, "
                "still running, or pruned)"
            )
        pages = await list_raw_pages(handle.store, thread_id, limit=MAX_ENTRIES)
        cited = await cited_pages(handle.store, thread_id, result)
    # The HTML report inside the bundle links each quote to its marked place in a view of the
    # stored page (its clean text, escaped), not to the live page.
    views, view_files = await asyncio.to_thread(page_views, result, cited)
    html = render_html_report(result, cited, views=views)
    extra = {"report.html": html.encode(), **view_files}
    data = build_bundle(result, evidence, pages, thread_id=thread_id, extra_files=extra)
    _write_file(args.out, data)
    print(
        f"exported thread {thread_id}: {len(pages)} pages, {len(evidence)} evidence records, "
        f"{len(result.get('findings') or [])} findings -> {args.out} "
        f"(sha256 {hashlib.sha256(data).hexdigest()})"
    )
    return EXIT_OK


def _write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file beside it, renamed)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise ConfigError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc


async def _verify_bundle(args: argparse.Namespace) -> int:
    """Re-check a bundle: one line per problem, then a summary; exit 0 when all holds, else 4."""
    from quotebound.report.bundle import read_bundle
    from quotebound.report.bundlecheck import check_bundle

    bundle = read_bundle(args.bundle)
    check = await asyncio.to_thread(check_bundle, bundle)
    for problem in check.problems:
        print(problem)
    print(check.summary())
    return EXIT_OK if check.ok else EXIT_ALTERED


BUNDLE_HANDLERS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
    "export": _export,
    "verify-bundle": _verify_bundle,
}
"""The bundle subcommands, by the name the parser gives them (``args.command``)."""
