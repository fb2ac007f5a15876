"""Check that every gold text in the golden question sets is on its page.

For each golden file (default: every golden set of bench_corpora.py),
reads every expected page under the corpus root named in the file's "corpus" field (the path
after " at "; news pages add their "dir" subfolder), takes the page's visible text (html.parser,
script and style dropped, entities unescaped, whitespace folded) and checks that the gold
`words` occur in it. Prints counts per file and category, then "all gold texts found" or the
misses. Stdlib only.

    python bench/check_golden.py [golden.json ...]
"""

from __future__ import annotations

import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

BENCH = Path(__file__).parent
CATEGORIES = ("questions", "two_part", "unanswerable")
# fmt: off
BLOCK_TAGS = {
    "p", "div", "br", "li", "ul", "ol", "dl", "dt", "dd", "tr", "td", "th", "table",
    "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "section", "article",
    "header", "footer", "nav", "aside", "main", "title", "hr", "figure", "figcaption",
}
# fmt: on
_NEWS_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "quotebound"
    / "bench"
    / "tev"
    / "tests"
)
"""Where bench_corpora.py unpacks the shared archive's news pages (its cache on Linux)."""


class _TextParser(HTMLParser):
    """Collects visible text; block tags separate words, script and style are skipped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag in BLOCK_TAGS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag in BLOCK_TAGS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def fold(text: str) -> str:
    """Collapse runs of whitespace (including non-breaking spaces) to one space."""
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def visible_text(path: Path) -> str:
    """The page's whitespace-folded visible text; UTF-8, else Windows-1252."""
    raw = path.read_bytes()
    try:
        html = raw.decode("utf-8")
    except UnicodeDecodeError:
        html = raw.decode("cp1252", errors="replace")
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    return fold("".join(parser.parts))


def check_file(golden: Path) -> list[str]:
    """Check one golden file; print its counts and return one message per missing gold text."""
    data: dict[str, Any] = json.loads(golden.read_text(encoding="utf-8"))
    match = re.search(r" at (/\S+)", data["corpus"])
    if not match:
        return [f"{golden.name}: no ' at /path' in corpus field"]
    root = Path(match.group(1))
    if not root.is_dir() and _NEWS_CACHE.is_dir() and root.parts[-2:] == _NEWS_CACHE.parts[-2:]:
        root = _NEWS_CACHE  # the news pages as bench_corpora.py unpacks them
    counts = ", ".join(f"{cat} {len(data.get(cat, []))}" for cat in CATEGORIES)
    print(f"{golden.name}: {counts} (root {root})")
    cache: dict[Path, str] = {}
    missing: list[str] = []
    for cat in ("questions", "two_part"):
        for item in data.get(cat, []):
            for exp in item["expect"]:
                page = root / exp.get("dir", "") / exp["page"]
                if not page.is_file():
                    missing.append(f"{golden.name}: no page {page}")
                    continue
                if page not in cache:
                    cache[page] = visible_text(page)
                if fold(exp["words"]) not in cache[page]:
                    missing.append(f"{golden.name}: {exp['words']!r} not on {page}")
    return missing


def main(argv: list[str]) -> int:
    """Check the named golden files (or every default); exit 1 on any miss."""
    # By default every golden set of bench_corpora.py (bench_golden.py's is golden.json).
    files = [Path(a) for a in argv] or sorted(BENCH.glob("golden_*.json"))
    missing = [msg for f in files for msg in check_file(f)]
    for msg in missing:
        print("MISSING", msg)
    if missing:
        print(f"{len(missing)} gold texts missing")
        return 1
    print("all gold texts found")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
