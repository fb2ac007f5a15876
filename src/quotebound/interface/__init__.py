"""Interfaces: the ``quotebound`` command (``cli``, its grammar in ``arguments``, its
subcommands in ``commands``, its exit codes in ``exitcodes``, a run's output in Markdown, JSON
or HTML in ``output``), running the graph from Python (``runner``) and live progress on stderr
(``progress``).

May import: every other package.
"""
