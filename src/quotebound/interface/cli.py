"""The ``quotebound`` command's entry point: parse, run the subcommand, turn errors into exits.

The grammar lives in :mod:`quotebound.interface.arguments`, what each subcommand does in
:mod:`quotebound.interface.commands` and the exit codes in
:mod:`quotebound.interface.exitcodes`. Nothing heavy is imported here, so ``--help`` and a
usage error answer at once. An error the user can fix is one line on stderr; tracebacks only
with ``--debug``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import traceback
from collections.abc import Sequence

from quotebound.errors import ConfigError, FetchError, StoreError
from quotebound.interface.arguments import build_parser
from quotebound.interface.commands import HANDLERS
from quotebound.interface.exitcodes import EXIT_ERROR, EXIT_USAGE

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (the console script exits with it)."""
    args = build_parser().parse_args(argv)
    _configure_logging(args)
    handler = HANDLERS[args.command]
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
