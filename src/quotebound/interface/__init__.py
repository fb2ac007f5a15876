"""Interfaces: the ``quotebound`` command (``cli``, its grammar in ``arguments``, its
subcommands in ``commands`` and the evidence bundle's in ``bundlecommands``, its exit codes in
``exitcodes``), running the graph from Python (``runner``) and live progress on stderr
(``progress``).

May import: every other package.
"""
