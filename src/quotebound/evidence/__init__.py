"""Evidence: quotable passages of stored pages, how well they answer, and proof they are there.

Candidate windows (``candidates``), what a question asks for (``questions``), lexical relevance
(``relevance``), meaning (``encoder``), the ranking that combines them (``ranking``), the order
search results are read in (``leads``), numbers that disagree across sources (``conflicts``),
deterministic verification (``verification``) and the per-page token index it searches
(``tokenindex``).

May import: the foundation modules, :mod:`quotebound.text` and :mod:`quotebound.storage`.
"""
