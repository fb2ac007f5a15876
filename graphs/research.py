"""Deployment entrypoint named by langgraph.json: the research graph compiled bare.

The LangGraph server (and `langgraph dev`) injects its own store and checkpointer.
"""

from quotebound.graph import build_graph

graph = build_graph().compile()
