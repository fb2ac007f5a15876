"""Main-content detection on real pages: quotebound's main roles vs trafilatura, side by side.

Reads the trafilatura evaluation set (990 real pages with hand-written ``with`` and ``without``
snippets) from ``../shared/data/trafilatura-eval.tar.xz``, unpacks it once into the cache
directory, and scores, page by page in the same run (interleaved, so a noisy machine slows both
alike):

- quotebound: the text of the blocks ``parse_page`` marks ``"main"``;
- trafilatura: ``trafilatura.extract(html, include_comments=False)`` (the ``bench`` extra).

The metric is trafilatura's own: each ``with`` snippet found in the extracted text is a true
positive, each ``without`` snippet found a false positive; sums over all pages give precision,
recall, accuracy and F1. Snippet and text are compared as a reader sees them, whitespace folded,
letters composed (NFC) and soft hyphens and zero-width characters dropped, for both tools. Also
printed: F1 by language (the ``lang`` attribute), the pages with text but no main block, and how
well evidence candidates cover the snippets of 5 words or more. Exits non-zero when a target is
missed; skips (exit 0) with a message when the data set is absent.

    .venv/bin/python bench/bench_main_content.py [--data PATH] [--no-peer] [--misses N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tarfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from quotebound.evidence.candidates import extract_candidates
from quotebound.text.normalize import as_seen
from quotebound.text.page import Page
from quotebound.text.parsing import parse_page

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trafilatura-eval.tar.xz"
TARGET_F1 = 0.93
TARGET_SPEEDUP = 3.0
TARGET_WITH_IN_CANDIDATES = 0.90
TARGET_WITHOUT_IN_CANDIDATES = 0.10
_LANG = re.compile(rb"<html[^>]*?\blang\s*=\s*[\"']?([a-zA-Z]{2})", re.I)


def _norm(text: str) -> str:
    """Text as a reader sees it, to compare: letters composed, soft hyphens and zero-width
    characters dropped (a browser shows "Mit\u00adtel\u00adal\u00adter" as "Mittelalter"),
    whitespace folded."""
    return " ".join(as_seen(text).split())


@dataclass
class Score:
    """Snippet counts summed over pages."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    seconds: float = 0.0

    def add(self, item: dict[str, list[str]], extracted: str) -> tuple[int, int]:
        text = _norm(extracted)
        tp = sum(_norm(w) in text for w in item["with"])
        fp = sum(_norm(w) in text for w in item["without"])
        self.tp += tp
        self.fp += fp
        self.fn += len(item["with"]) - tp
        self.tn += len(item["without"]) - fp
        return tp, fp

    def line(self) -> str:
        p = self.tp / max(1, self.tp + self.fp)
        r = self.tp / max(1, self.tp + self.fn)
        acc = (self.tp + self.tn) / max(1, self.tp + self.fp + self.fn + self.tn)
        return f"P {p:.4f}  R {r:.4f}  acc {acc:.4f}  F1 {self.f1():.4f}"

    def f1(self) -> float:
        p = self.tp / max(1, self.tp + self.fp)
        r = self.tp / max(1, self.tp + self.fn)
        return 2 * p * r / max(1e-9, p + r)


@dataclass
class Coverage:
    """Snippets of 5+ words that lie inside some evidence candidate."""

    with_in: int = 0
    with_all: int = 0
    without_in: int = 0
    without_all: int = 0
    misses: list[str] = field(default_factory=list)


def unpack(archive: Path) -> Path:
    """The unpacked ``tests`` folder of the archive, in the cache directory (once)."""
    root = Path(platformdirs.user_cache_dir("quotebound")) / "bench" / "trafilatura-eval"
    marker = root / ".complete"
    if not marker.exists():
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            tar.extractall(root, filter="data")
        marker.touch()
    return root / "tests"


def main_text(page: Page) -> str:
    """The text of the page's main blocks, one paragraph a line."""
    return "\n".join(page.text[b.start : b.end] for b in page.blocks if b.role == "main")


def candidate_coverage(cov: Coverage, item: dict[str, list[str]], page: Page, name: str) -> None:
    quotes = [_norm(c.quote) for c in extract_candidates(page, source_id="bench")]
    for key in ("with", "without"):
        for snippet in item[key]:
            s = _norm(snippet)
            if len(s.split()) < 5:
                continue
            inside = any(s in q for q in quotes)
            if key == "with":
                cov.with_all += 1
                cov.with_in += inside
                if not inside:
                    cov.misses.append(f"{name}: {s[:70]}")
            else:
                cov.without_all += 1
                cov.without_in += inside


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the trafilatura-eval archive")
    ap.add_argument("--no-peer", action="store_true", help="skip trafilatura (faster)")
    ap.add_argument("--misses", type=int, default=0, help="print this many missed pages")
    args = ap.parse_args()
    if not args.data.exists():
        print(f"SKIP: {args.data} not found (the shared data set is not beside the repo)")
        return 0
    extract = None
    if not args.no_peer:
        try:
            from trafilatura import extract
        except ImportError:
            print("SKIP peer: trafilatura is not installed (pip install -e '.[bench]')")
    tests = unpack(args.data)
    evaldata: dict[str, dict[str, list[str]]] = json.loads((tests / "evaldata.json").read_text())
    ours, peer = Score(), Score()
    by_lang: dict[str, tuple[Score, Score]] = defaultdict(lambda: (Score(), Score()))
    cov = Coverage()
    empty: list[str] = []
    missed: list[tuple[int, str, str]] = []
    for url in sorted(evaldata):
        item = evaldata[url]
        path = tests / "cache" / item["file"]
        if not path.exists():
            path = tests / "eval" / item["file"]
        raw = path.read_bytes()
        m = _LANG.search(raw[:20000])
        lang = m.group(1).decode().lower() if m else "?"
        t0 = time.perf_counter()
        page = parse_page(raw, content_type="text/html")
        t1 = time.perf_counter()
        ours.seconds += t1 - t0
        text = main_text(page)
        tp, fp = ours.add(item, text)
        by_lang[lang][0].add(item, text)
        if page.text.strip() and not text.strip():
            empty.append(item["file"])
        lost = len(item["with"]) - tp + fp
        if lost:
            missed.append((lost, item["file"], url))
        candidate_coverage(cov, item, page, item["file"])
        if extract is not None:
            t0 = time.perf_counter()
            result = extract(raw, include_comments=False) or ""
            peer.seconds += time.perf_counter() - t0
            peer.add(item, result)
            by_lang[lang][1].add(item, result)

    print(f"pages: {len(evaldata)} (trafilatura evaluation set, real pages, many languages)")
    print(f"quotebound main roles: {ours.line()}  {ours.seconds:6.2f} s")
    ok = ours.f1() >= TARGET_F1 and not empty
    if extract is not None:
        speedup = peer.seconds / max(ours.seconds, 1e-9)
        print(f"trafilatura extract:   {peer.line()}  {peer.seconds:6.2f} s")
        print(f"parse with roles is {speedup:.1f}x faster than trafilatura (target >= 3x)")
        ok = ok and ours.f1() >= peer.f1() and speedup >= TARGET_SPEEDUP
    print("\nF1 by language (pages: ours / trafilatura):")
    for lang, (a, b) in sorted(by_lang.items(), key=lambda kv: -(kv[1][0].tp + kv[1][0].fn)):
        n = a.tp + a.fn + a.fp + a.tn
        peer_f1 = f"{b.f1():.3f}" if extract is not None else "-"
        print(f"  {lang:<3} {n:5d} snippets  ours {a.f1():.3f}  trafilatura {peer_f1}")
    with_share = cov.with_in / max(1, cov.with_all)
    without_share = cov.without_in / max(1, cov.without_all)
    print(
        f"\nevidence candidates hold {cov.with_in}/{cov.with_all} = {with_share:.1%} of 'with' "
        f"snippets of 5+ words (target >= 90%) and {cov.without_in}/{cov.without_all} = "
        f"{without_share:.1%} of 'without' ones (target <= 10%)"
    )
    ok = ok and with_share >= TARGET_WITH_IN_CANDIDATES
    ok = ok and without_share <= TARGET_WITHOUT_IN_CANDIDATES
    print(f"pages with text but no main block: {len(empty)}  {' '.join(empty[:20])}")
    if args.misses:
        print(f"\npages losing most snippets (missed 'with' + found 'without'), top {args.misses}:")
        for lost, name, url in sorted(missed, reverse=True)[: args.misses]:
            print(f"  {lost}  {name}  {url}")
    print(f"\ntargets: F1 >= {TARGET_F1} and >= trafilatura's, 0 empty pages: ", end="")
    print("met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
