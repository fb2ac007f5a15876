"""Deployment entrypoint named by langgraph.json: the research graph compiled bare.

The LangGraph server (and `langgraph dev`) injects its own store and checkpointer. Clients
send a context, so a local corpus is allowed only inside the directories listed (separated
by the platform's path separator) in QUOTEBOUND_CORPUS_ROOTS; by default none.
"""

import os
from pathlib import Path

from quotebound.graph.build import build_graph
from quotebound.graph.deps import Deps

_roots = os.environ.get("QUOTEBOUND_CORPUS_ROOTS", "")
graph = build_graph(
    Deps(corpus_roots=[Path(p) for p in _roots.split(os.pathsep) if p.strip()])
).compile()
