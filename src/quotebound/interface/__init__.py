"""Interfaces: the ``quotebound`` command (``cli``, its grammar in ``arguments``, its
subcommands in ``commands``, the evidence bundle's in ``bundlecommands`` and the Store's
housekeeping in ``housekeeping``, its exit codes in ``exitcodes``, a run's output in Markdown,
JSON or HTML in ``output``), running the graph from Python (``runner``), live progress on stderr
(``progress``) and the ``quotebound mcp`` server (``mcpserver``, serving the tools in
``mcptools``).

May import: every other package.
"""
