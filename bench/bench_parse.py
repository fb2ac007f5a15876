"""Parse throughput: quotebound.sanitize_html vs BeautifulSoup(html, "html.parser").get_text.

Both parse the same real pages in the same run, interleaved page by page, the best of several
runs per page counting, so a noisy machine slows both alike. Pages: the first 60
``library/*.html`` pages of Python 3.11's docs sorted by name (``apt-get install
python3.11-doc``), else pydoc's HTML rendering of standard-library modules (exists on any
machine with Python). Prints throughput (also of ``parse_page`` with roles), the ratio, and
exits non-zero when the 15x target is missed.

    .venv/bin/python bench/bench_parse.py [--reps N]
"""

from __future__ import annotations

import argparse
import glob
import importlib
import pydoc
import sys
import time
import warnings
from collections.abc import Callable

from bs4 import BeautifulSoup

from quotebound.text.parsing import parse_page, sanitize_html

MODULES = [
    "os",
    "re",
    "json",
    "collections",
    "itertools",
    "functools",
    "pathlib",
    "typing",
    "dataclasses",
    "argparse",
    "logging",
    "subprocess",
    "socket",
    "ssl",
    "http.client",
    "urllib.parse",
    "email.message",
    "csv",
    "sqlite3",
    "datetime",
    "decimal",
    "fractions",
    "statistics",
    "random",
    "string",
    "textwrap",
    "difflib",
    "heapq",
    "bisect",
    "array",
    "struct",
    "codecs",
    "io",
    "tempfile",
    "shutil",
    "glob",
    "fnmatch",
    "pickle",
    "copy",
    "pprint",
    "enum",
    "abc",
    "contextlib",
    "threading",
    "queue",
    "asyncio",
    "unittest",
    "inspect",
    "ast",
    "tokenize",
    "zipfile",
    "tarfile",
    "hashlib",
    "hmac",
    "base64",
    "math",
    "operator",
    "types",
]
TARGET = 15.0
DOCS = "/usr/share/doc/python3.11/html"


def pydoc_pages() -> list[str]:
    """pydoc's HTML for each module in MODULES (its real output, not a fixture)."""
    pages = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in MODULES:
            module = importlib.import_module(name)
            pages.append(pydoc.render_doc(module, renderer=pydoc.html))
    return pages


def debian_pages(limit: int = 60) -> list[str]:
    """The first ``limit`` ``library/*.html`` pages of Python 3.11's docs, sorted by name
    (Debian's python3.11-doc), when installed."""
    paths = sorted(glob.glob(f"{DOCS}/library/*.html"))[:limit]
    pages = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            pages.append(f.read())
    return pages


def _best(fn: Callable[[str], object], page: str, reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(page)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs per page; the best counts")
    args = parser.parse_args()
    pages = debian_pages()
    if pages:
        sources = f"the first {len(pages)} library/*.html pages of {DOCS}, sorted by name"
    else:
        pages = pydoc_pages()
        sources = f"pydoc HTML of {len(pages)} stdlib modules ({DOCS}: absent)"
    megabytes = sum(len(p.encode("utf-8")) for p in pages) / 1e6

    def soup_text(page: str) -> str:
        return BeautifulSoup(page, "html.parser").get_text("\n")

    for page in pages[:3]:  # warm up both
        sanitize_html(page)
        soup_text(page)
    ours = theirs = roles = 0.0
    for page in pages:  # interleaved page by page: a noisy moment slows both alike
        ours += _best(sanitize_html, page, args.reps)
        theirs += _best(soup_text, page, args.reps)
        roles += _best(parse_page, page, args.reps)
    ratio = theirs / ours
    print(f"sources: {sources}")
    print(f"pages: {len(pages)}  total: {megabytes:.2f} MB, best of {args.reps} per page")
    print(f"quotebound.sanitize_html (text only):      {megabytes / ours:8.2f} MB/s")
    print(f"quotebound.parse_page (text and roles):    {megabytes / roles:8.2f} MB/s")
    print(f'bs4 html.parser + get_text("\\n"):          {megabytes / theirs:8.2f} MB/s')
    met = ratio >= TARGET
    print(f"ratio sanitize_html / bs4: {ratio:.1f}x  target >= {TARGET:.0f}x: ", end="")
    print("met" if met else "NOT met")
    print(f"ratio parse_page with roles / bs4: {theirs / roles:.1f}x")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
