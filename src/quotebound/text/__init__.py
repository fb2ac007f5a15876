"""Text: page bytes to clean text and back.

Decoding (``charset``), a document's bytes to Store content by media type (``documents``),
HTML and plain text to a parsed page (``parsing``, through :mod:`.html`) of paragraph blocks
(``page``) with their main-content roles (:mod:`.maincontent`), passages under their headings
(``passages``), normalization with a map back to the original offsets (``normalize``), which
words negate (``negation``), what a name is (``names``), text that addresses a model
(``injection``) and word lists as regular expressions (``wordtrie``).

May import: the foundation modules (``errors``, ``records``, ``tiers``, ``urls``, ``context``).
"""
