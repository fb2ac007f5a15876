"""Graph: the research state machine.

Its state (``state``), injectable dependencies (``deps``), progress events (``events``), the
phase gates (``gates``), the query planner (``planner``), the nodes (:mod:`.nodes`) and the
wiring that joins them (``build``).

May import: every package but :mod:`quotebound.interface`.
"""
