"""Retrieval alone: where a corpus search puts each golden question's expected pages, by terms
with meaning (as a run searches) against by terms alone (SQLite FTS5's BM25), side by side.

For every answerable question of the golden sets of ``bench_corpora.py`` (single-hop and
two-part), the question is searched once as it is written, for 8 results, in each of the two
ways, and each expected part's page is looked for among the results: first, among the first 3
(the pages the chat profile reads in its first round) or among the 8. A run's later queries
(a part's or a gap's) are not made, so this measures the search a run starts from, in minutes
rather than the 25 of ``bench_corpora.py``: a change to indexing or to the ranking of pages is
measured here first, then there.

Prints a line per set and the totals of the first six, the held-out and the development sets
apart (``bench_corpora.py``'s groups; of the held-out sets only totals are to be read). Exits 1
when, in some group, the search with meaning puts fewer expected pages among the first 3 than
terms alone. A set whose corpus is absent is skipped with a message.

    python bench/bench_retrieval.py [--only NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections import Counter
from collections.abc import Sequence
from unittest import mock

from bench_corpora import CORPORA, GROUPS, HELD_OUT, Corpus, _page, group_of, opened
from quotebound.acquisition.corpus import LocalCorpus
from quotebound.evidence.encoder import ENV_VAR

RESULTS = 8
READ_FIRST = 3
"""The pages the chat profile reads in its first round."""
WAYS = ("meaning", "terms")
"""The search as a run makes it (terms fused with meaning), and its peer: terms alone."""
KINDS = ("questions", "two_part")


async def _ranks(local: LocalCorpus, question: str, urls: Sequence[str]) -> list[int | None]:
    """Each URL's place (0 first) among the search's results for ``question``, or None."""
    found = [c.url for c in (await local.search(question, max_results=RESULTS)).candidates]
    return [found.index(url) if url in found else None for url in urls]


async def _run_set(corpus: Corpus) -> Counter[tuple[str, str, str]]:
    """Counts keyed by (way, kind, "parts" | "first" | "read" | "found") for one set."""
    golden, local = opened(corpus)
    counts: Counter[tuple[str, str, str]] = Counter()
    for kind in KINDS:
        for item in golden.get(kind, []):
            urls = [local.url_for(_page(e)) for e in item.get("expect", [])]
            for way in WAYS:
                with mock.patch.dict(os.environ, {ENV_VAR: "on" if way == "meaning" else "off"}):
                    ranks = await _ranks(local, item["question"], urls)
                counts[(way, kind, "parts")] += len(ranks)
                counts[(way, kind, "first")] += sum(r == 0 for r in ranks)
                counts[(way, kind, "read")] += sum(r is not None and r < READ_FIRST for r in ranks)
                counts[(way, kind, "found")] += sum(r is not None for r in ranks)
    return counts


def _line(label: str, counts: Counter[tuple[str, str, str]]) -> str:
    cells = []
    for kind in KINDS:
        n = counts[(WAYS[0], kind, "parts")]
        for way in WAYS:
            first, read, found = (counts[(way, kind, k)] for k in ("first", "read", "found"))
            cells.append(f"{first:>3} {read:>3} {found:>3}/{n:<3}" if n else f"{'-':>15}")
    return f"  {label:<18} {'   '.join(cells)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", choices=sorted(CORPORA), action="append")
    args = ap.parse_args()
    sets: dict[str, Counter[tuple[str, str, str]]] = {}
    for name in args.only or sorted(CORPORA):
        corpus = CORPORA[name]()
        if corpus.root is None or not corpus.root.is_dir():
            print(f"\n== {name}: corpus not found ({corpus.root}); skipped")
            continue
        sets[name] = asyncio.run(_run_set(corpus))
    groups = {g: sum((c for n, c in sets.items() if group_of(n) == g), Counter()) for g in GROUPS}
    print(f"\n== expected pages first, among the first {READ_FIRST}, among the {RESULTS} / parts")
    heads = [f"{kind} {way}" for kind in ("single", "2-part") for way in WAYS]
    print(f"  {'':<18} {'   '.join(f'{h:<15}' for h in heads)}")
    for name, counts in sets.items():
        if name not in HELD_OUT:
            print(_line(name, counts))
    ok = True
    for group, counts in groups.items():
        if counts:
            print(_line(group, counts))
        for kind in KINDS:
            ok &= counts[("meaning", kind, "read")] >= counts[("terms", kind, "read")]
    print(f"with meaning >= terms alone among the first {READ_FIRST}: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
