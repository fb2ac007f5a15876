"""Local corpus index: build time, no-change refresh time and query latency on ~500 real pages.

The pages are pydoc HTML of the standard library (python3-doc's HTML is not assumed to be
installed): every embedded-corpus module page plus evenly spaced class and function pages, up to
PAGES in all. Prints numbers and ratios; never fails on time.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.acquisition.embedded import MODULES, build_pages

PAGES = 500
QUERIES = [
    "shallow copy of an object", "parse json string", "sort a list with a key function",
    "read a csv file", "regular expression groups", "temporary directory", "run a subprocess",
    "timeout", "thread pool executor", "asyncio gather tasks", "http request headers",
    "url quote unquote", "dataclass default factory", "enum auto values", "decimal rounding",
    "fraction limit denominator", "random sample without replacement", "heap push pop",
    "bisect insort", "deque maxlen", "ordered dict move to end", "default dict", "named tuple",
    "lru cache", "partial function", "context manager exit stack", "abstract base class",
    "inspect signature", "typing generic protocol", "logging handler formatter",
    "argument parser subcommands", "unit test assert raises", "mock patch object",
    "zip file extract", "tar archive", "gzip compress", "pickle protocol", "struct pack",
    "text wrap width", "string template substitute", "path glob pattern", "shutil copy tree",
    "sqlite connection cursor", "email message headers", "mime type guess",
    "ip address network", "uuid4", "median standard deviation", "ElementTree parse xml",
    "weak reference callback",
]  # fmt: skip


def pick_pages(all_pages: Path, out: Path) -> None:
    """All module pages, then evenly spaced class and function pages, up to PAGES files."""
    module_pages = {f"{m}.html" for m in MODULES}
    pages = sorted(p.name for p in all_pages.glob("*.html"))
    modules = [p for p in pages if p in module_pages]
    members = [p for p in pages if p not in module_pages]
    step = max(1, len(members) // max(1, PAGES - len(modules)))
    for name in modules + members[::step][: PAGES - len(modules)]:
        shutil.copy2(all_pages / name, out / name)


async def queries(corpus: LocalCorpus) -> list[float]:
    latencies = []
    for q in QUERIES:
        started = time.perf_counter()
        response = await corpus.search(q, max_results=10)
        latencies.append((time.perf_counter() - started) * 1000)
        assert response.run.reason in (None, "empty_results")
    return latencies


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        build_pages(work / "all", members=True)
        render_s = time.perf_counter() - started
        root = work / "pages"
        root.mkdir()
        pick_pages(work / "all", root)
        files = sorted(root.glob("*.html"))
        megabytes = sum(p.stat().st_size for p in files) / 1e6

        corpus = LocalCorpus(root, index_path=work / "index.sqlite")
        started = time.perf_counter()
        built = corpus.refresh()
        build_s = time.perf_counter() - started
        started = time.perf_counter()
        noop = corpus.refresh()
        noop_s = time.perf_counter() - started
        assert built.added == len(files) and noop.unchanged == len(files) and noop.read == 0

        latencies = asyncio.run(queries(corpus))
        cuts = statistics.quantiles(latencies, n=20)
        print(f"python {sys.version.split()[0]}; pages: pydoc HTML of stdlib modules and members")
        print(f"pages                     {len(files)}")
        print(f"total MB                  {megabytes:.1f}")
        rendered = len(list((work / "all").glob("*.html")))
        print(f"render pydoc pages s      {render_s:.2f}  ({rendered} rendered, not part of build)")
        print(f"index build s             {build_s:.2f}  ({len(files) / build_s:.0f} pages/s)")
        print(f"refresh, no changes s     {noop_s:.3f}  (build / no-op = {build_s / noop_s:.0f}x)")
        print(f"queries                   {len(latencies)}")
        print(f"query median ms           {statistics.median(latencies):.2f}")
        print(f"query p95 ms              {cuts[18]:.2f}")


if __name__ == "__main__":
    main()
