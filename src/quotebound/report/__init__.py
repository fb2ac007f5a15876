"""Report: an answer composed from verified quotes, reviewed, written and audited.

The answering rule (``answering``), the two composers: extractive (``extractive``) and LLM
selector (``selector``), the deterministic quality review (``quality``), what a report says
(``outline``), the Markdown report (``markdown``), the HTML report (``html``, in the frame of
``htmlpage``) with its text-fragment deep links (``fragments``), the evidence records and
audit trail (``audit``), and the evidence bundle: building and reading it (``bundle``), the
views of its cited pages (``pageview``) and re-checking it offline (``bundlecheck``).

May import: the foundation modules, :mod:`quotebound.text`, :mod:`quotebound.storage`,
:mod:`quotebound.evidence` and :mod:`quotebound.model`.
"""
