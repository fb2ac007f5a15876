"""Storage: where a run's pages and state live, and the in-memory caches beside them.

Opening the Store and checkpointer (``stores``), raw pages under ``(thread_id, "raw")``
(``rawstore``), removing old runs (``retention``), caches kept in the run database
(``storecache``), the byte-bounded cache of derived objects (``bytecache``) and a lock between
processes (``filelock``).

May import: the foundation modules and :mod:`quotebound.text`.
"""
