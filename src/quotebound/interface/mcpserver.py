"""The ``quotebound mcp`` command: a Model Context Protocol server on stdin and stdout.

It checks its settings, opens the Store once and serves the tools of
:mod:`quotebound.interface.mcptools` until the client closes stdin. The ``mcp`` SDK is an
optional extra: without it the command exits 2 saying how to install it. Nothing heavy is
imported here, so that the command's ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from quotebound.errors import ConfigError
from quotebound.interface.exitcodes import EXIT_OK

__all__ = ["serve_mcp"]

INSTALL_HINT = "pip install 'quotebound[mcp]'"


async def serve_mcp(args: argparse.Namespace) -> int:
    """Serve research, verify_quote and get_snapshot over stdio; exit 0 when the client is done.

    Stdout is the protocol channel: progress and logs go to stderr only.
    """
    try:
        from quotebound.interface.mcptools import build_server
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "mcp":
            raise
        raise ConfigError(f"quotebound mcp needs the MCP SDK: {INSTALL_HINT}") from None
    from quotebound.context import make_context
    from quotebound.evidence.encoder import enabled as meaning_enabled
    from quotebound.graph.deps import Deps
    from quotebound.storage.bytecache import shared as shared_cache
    from quotebound.storage.stores import open_store

    explicit: dict[str, Any] = {"corpus_base_url": args.base_url}
    if args.corpus:
        explicit["corpus_dir"] = str(Path(args.corpus).expanduser().resolve())
    explicit = {k: v for k, v in explicit.items() if v is not None}
    # A bad setting or an unreadable corpus fails now, not at the client's first call.
    settings = make_context(**explicit).resolved()
    deps = Deps()
    if settings.corpus_dir:
        deps.toolkit(settings)
    shared_cache()
    meaning_enabled()
    async with open_store(args.store) as handle:
        server = build_server(handle, deps=deps, explicit=explicit, quiet=args.quiet)
        await server.run_stdio_async()
    return EXIT_OK
