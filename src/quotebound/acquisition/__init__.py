"""Acquisition: finding pages and reading them safely.

The provider interface and ladder (``providers``), every remote provider by name (``catalog``):
Tavily (``tavily``), SearXNG, Brave, GDELT and Wikipedia (``webproviders``, over one JSON GET
with bounded retries in ``searchapi``) and DuckDuckGo (``duckduckgo``); answers kept in the
run database (``searchcache``), and fetched pages too (``pagecache``, reused by the rules of
``freshness``); local corpora (``corpus``, ``embedded``) with their index
(``corpusindex``) and queries (``ftsquery``), near-duplicate pages (``duplicates``), and the
fetcher (``fetcher``) with its policy (``fetchpolicy``), network guard (``netguard``),
robots.txt (``robots``), Content-Encoding decoding (``decompression``), binary bodies refused
(``sniffing``), concurrent runner
(``parallel``) and proxy modes (``proxies``); failures read as reason codes (``neterrors``).

May import: the foundation modules, :mod:`quotebound.text` and :mod:`quotebound.storage`.
"""
