"""The public surface: every name imports from ``quotebound``, and only when it is used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import quotebound

HEAVY = ("langgraph", "langchain_core", "langchain_openai", "httpx", "selectolax", "rich")

PROBE = """
import json, sys
from quotebound.interface.arguments import build_parser
build_parser().parse_args(["research", "Q", "--provider", "embedded"])
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_the_command_line_imports_no_graph_or_network_library() -> None:
    """``quotebound --help`` and argument errors must not pay for importing the graph."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = set(json.loads(done.stdout))
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


UNUSED_CLIENTS = ("openai", "langchain_openai", "tavily")
"""Clients a run without an LLM and without Tavily never uses (60 MB and 0.3 s to import)."""
ALIGNMENT = ("rapidfuzz",)
"""What only a quote that fails verification needs, to be aligned with the page (3.5 MB)."""

RUN_PROBE = """
import json, sys
from quotebound.interface.cli import main
main(["research", "How is the ferry repair paid?", "--corpus", sys.argv[1], "--quiet"])
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_a_run_without_model_or_tavily_imports_neither_client(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("The ferry repair is paid by the council, the mayor said.\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    done = subprocess.run(
        [sys.executable, "-c", RUN_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path)},
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert loaded.isdisjoint(UNUSED_CLIENTS), sorted(loaded & set(UNUSED_CLIENTS))
    assert loaded.isdisjoint(ALIGNMENT)  # its one quote passed


def test_every_public_name_imports_from_the_package() -> None:
    from quotebound import build_graph, make_context, run_research

    assert callable(build_graph) and callable(make_context) and callable(run_research)
    for name in quotebound.__all__:
        assert getattr(quotebound, name) is not None, name
    assert set(quotebound.__all__) <= set(dir(quotebound))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        quotebound.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        from quotebound import no_such_name  # noqa: F401
