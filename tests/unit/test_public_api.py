"""The public surface: every name imports from ``quotebound``, and only when it is used."""

from __future__ import annotations

import json
import subprocess
import sys

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
