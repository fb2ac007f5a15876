"""Main-content detection: which paragraphs of a page are its article (``roles``), from what
containers' tags and attributes say (``containers``) and how each paragraph reads (``prose``).

May import: the foundation modules, :mod:`quotebound.text` and its subpackages.
"""
