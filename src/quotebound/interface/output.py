"""A run's output as the command writes it: Markdown, JSON or one HTML file, to ``--out`` or
stdout; and the stored pages an HTML report needs, read from the thread's Store.

Imported by the commands that print a run (research, its ``--resume``, show) when they run,
so ``--help`` never pays for it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from typing import Any

from langgraph.store.base import BaseStore

from quotebound.errors import ConfigError
from quotebound.storage.rawstore import get_raw_page, parsed_page
from quotebound.text.page import Page
from quotebound.urls import source_id

__all__ = ["cited_pages", "emit_run", "pages_for"]


async def cited_pages(
    store: BaseStore, thread_id: str, result: Mapping[str, Any]
) -> dict[str, Page]:
    """The parsed stored page of every URL the run's findings and conflicts cite, by URL; a
    URL whose page is not stored on the thread is left out."""
    audit = result.get("audit") or {}
    urls = [f["url"] for f in result.get("findings") or []]
    urls += [s["url"] for g in audit.get("conflicts") or [] for s in g["sides"]]
    pages: dict[str, Page] = {}
    for url in dict.fromkeys(urls):
        raw = await get_raw_page(store, thread_id, source_id(url))
        if raw is not None:
            pages[url] = await asyncio.to_thread(parsed_page, raw)
    return pages


async def pages_for(
    args: argparse.Namespace, store: BaseStore, result: Mapping[str, Any]
) -> dict[str, Page]:
    """The pages the chosen format needs: the cited ones for HTML, none otherwise."""
    thread_id = result.get("thread_id")
    if args.format != "html" or not thread_id:
        return {}
    return await cited_pages(store, str(thread_id), result)


def emit_run(args: argparse.Namespace, result: dict[str, Any], pages: Mapping[str, Page]) -> None:
    """Write a run's output as JSON, Markdown or HTML, to ``--out`` or stdout."""
    if args.format == "json":
        _write(args, json.dumps(result, ensure_ascii=False, indent=2) + "\n", markdown=False)
    elif args.format == "html":
        from quotebound.report.html import render_html_report

        _write(args, render_html_report(result, pages), markdown=False)
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
