"""HTML parsing internals: one walk over lexbor's tree (``walker``) guided by the element
tables (``tags``), feeding the block builder (``collector``), which folds raw text into
paragraphs (``folding``) and reads JSON-LD metadata (``jsonld``); too-deep markup is flattened
first (``nesting``). :func:`quotebound.text.parsing.parse_page` is the way in.

May import: the foundation modules, :mod:`quotebound.text` and its subpackages.
"""
