"""Compose prompt size for a 16-source run, in characters (target <= 24,000).

Sixteen standard-library modules rendered by pydoc stand in for fetched pages; each page is
inflated to about 1 MB so page size cannot matter. Every 15-60 word window that meets the
relevance threshold becomes a verified candidate quote. A second, adversarial run makes every
window maximally relevant and as long as the word cap allows. Prints sizes and whether the
target is met; timing is not measured.

Run: .venv/bin/python bench/bench_prompt.py
"""

from __future__ import annotations

import hashlib
import importlib
import pydoc
import sys

from quotebound.evidence.relevance import RELEVANCE_THRESHOLD, relevance
from quotebound.records import EvidenceItem
from quotebound.report.selector import MAX_PROMPT_CHARS, build_compose_messages
from quotebound.urls import source_id

MODULES = (
    "shutil", "os", "pathlib", "io", "tempfile", "zipfile", "tarfile", "json",
    "csv", "subprocess", "logging", "argparse", "sqlite3", "gzip", "glob", "fileinput",
)  # fmt: skip
QUESTION = "How do I open, read and write files and copy a directory tree?"
PAGE_BYTES = 1_000_000
WINDOW_WORDS = 45


def _page(module: str) -> str:
    text = pydoc.plain(pydoc.render_doc(importlib.import_module(module)))
    return (text + "\n\n") * (PAGE_BYTES // max(len(text), 1) + 1)


def _evidence(module: str, text: str, *, adversarial: bool) -> list[EvidenceItem]:
    url = f"https://docs.python.org/3/library/{module}.html"
    sid = source_id(url)
    words = text[: PAGE_BYTES // 4].split()
    items: list[EvidenceItem] = []
    for i in range(0, len(words), WINDOW_WORDS):
        quote = " ".join(words[i : i + WINDOW_WORDS])
        if adversarial:
            quote = " ".join(f"{w}{'x' * 12}" for w in quote.split())[:799]
        score = 1.0 if adversarial else relevance(QUESTION, quote)
        chunk = hashlib.sha256(quote.encode()).hexdigest()
        items.append(
            EvidenceItem(
                evidence_id=f"{sid}-{chunk[:12]}",
                chunk_id=chunk,
                hash_version=1,
                source_id=sid,
                url=url,
                title=f"{module} module",
                trust_tier=2,
                quote=quote,
                start=0,
                end=len(quote),
                words=len(quote.split()),
                relevance=score,
                parts=[score],
                score=score,
                context="",
                verification={
                    "status": "PASS",
                    "method": "exact",
                    "score": 1.0,
                    "start": 0,
                    "end": len(quote),
                    "matched_text": quote,
                    "reason": None,
                },
                round=1,
            )
        )
    return items


def _measure(label: str, pages: dict[str, str], *, adversarial: bool) -> bool:
    evidence = [e for m, t in pages.items() for e in _evidence(m, t, adversarial=adversarial)]
    feedback = [f"claim {n}: quote_not_verified: the quote differs from the cited evidence"
                for n in range(1, 9)]  # fmt: skip
    messages = build_compose_messages(QUESTION, evidence, max_findings=8, feedback=feedback)
    total = sum(len(m.text) for m in messages)
    shown = messages[1].text.count("\n[")
    eligible = sum(1 for e in evidence if e["relevance"] >= RELEVANCE_THRESHOLD)
    met = total <= MAX_PROMPT_CHARS
    print(
        f"{label:<12} sources={len(pages)} page_chars={sum(map(len, pages.values())):,} "
        f"candidates={len(evidence):,} eligible={eligible:,} quotes_in_prompt={shown} "
        f"prompt_chars={total:,} ratio_to_target={total / MAX_PROMPT_CHARS:.2f} "
        f"target <= {MAX_PROMPT_CHARS:,}: {'met' if met else 'NOT met'}"
    )
    return met


def main() -> int:
    pages = {m: _page(m) for m in MODULES}
    real = _measure("pydoc", pages, adversarial=False)
    worst = _measure("adversarial", pages, adversarial=True)
    print(f"overall target <= {MAX_PROMPT_CHARS:,}: {'met' if real and worst else 'NOT met'}")
    return 0 if real and worst else 1


if __name__ == "__main__":
    sys.exit(main())
