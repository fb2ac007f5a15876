"""Golden-set evaluation and per-node timing on the embedded corpus (issues 4 and 6).

For each question in bench/golden.json, runs the graph with no keys (embedded corpus,
extractive composer) and counts it answered when, for every expected part, some finding cites
that module's page and quotes the expected words. Prints the share answered, the time per
question split by node, and the targets. Not a test: it measures and prints.

    python bench/bench_golden.py [--profile chat|deep] [--only single|two_part]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.embedded import embedded_corpus
from quotebound.context import make_context
from quotebound.graph.deps import Deps
from quotebound.interface.runner import run_research

GOLDEN = Path(__file__).with_name("golden.json")


def _cites(finding: dict[str, Any], module: str, words: str) -> bool:
    """The finding cites the module's rendered page and quotes ``words``."""
    on_page = finding["url"].endswith(f"/{module}.html")
    return on_page and " ".join(words.split()) in " ".join(finding["quote"].split())


async def _evaluate(
    items: list[dict[str, Any]], profile: str
) -> tuple[int, dict[str, list[float]]]:
    deps = Deps()
    context = make_context(profile, provider="embedded", composer="extractive")
    answered = 0
    node_times: dict[str, list[float]] = defaultdict(list)
    for item in items:
        stamps: list[tuple[str, float]] = [("start", time.perf_counter())]

        def stamp(event: dict[str, Any], stamps: list[tuple[str, float]] = stamps) -> None:
            stamps.append((event["phase"], time.perf_counter()))

        out = await run_research(
            item["question"], store=InMemoryStore(), context=context, deps=deps, on_event=stamp
        )
        for (_, t0), (phase, t1) in itertools.pairwise(stamps):
            node_times[phase].append(t1 - t0)
        node_times["total"].append(stamps[-1][1] - stamps[0][1])
        ok = all(
            any(_cites(f, e["page"], e["words"]) for f in out["findings"]) for e in item["expect"]
        )
        answered += ok
        mark = "PASS" if ok else "MISS"
        print(f"  {mark}  {out['status']:<22} {len(out['findings'])} findings  {item['question']}")
    return answered, node_times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--profile", default=None, choices=["chat", "deep"])
    ap.add_argument("--only", default=None, choices=["single", "two_part"])
    args = ap.parse_args()
    golden = json.loads(GOLDEN.read_text())
    t = time.perf_counter()
    embedded_corpus().refresh()
    print(f"embedded corpus ready (built/indexed if needed) in {time.perf_counter() - t:.1f} s")
    sets = [("single", golden["questions"], "chat"), ("two_part", golden["two_part"], "deep")]
    missed = False
    for name, items, default_profile in sets:
        if args.only and args.only != name:
            continue
        profile = args.profile or default_profile
        print(f"\n{name} questions ({len(items)}), profile {profile}:")
        answered, times = asyncio.run(_evaluate(items, profile))
        share = answered / len(items)
        print(
            f"answered with the expected quote from the expected page: {answered}/{len(items)} "
            f"= {share:.0%}  (target >= 80%: {'met' if share >= 0.8 else 'NOT met'})"
        )
        total = times.pop("total")
        missed = missed or share < 0.8 or statistics.median(total) > 3
        print(
            f"time per question after indexing: median {statistics.median(total):.2f} s, "
            f"max {max(total):.2f} s  (target <= 3 s: "
            f"{'met' if statistics.median(total) <= 3 else 'NOT met'})"
        )
        for phase, values in sorted(times.items(), key=lambda kv: -sum(kv[1])):
            print(
                f"  {phase:<17} median {statistics.median(values) * 1000:8.1f} ms  "
                f"total {sum(values):6.2f} s over {len(values)} calls"
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
