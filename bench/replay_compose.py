"""Compose the runs of a ``bench_corpora.py --dump`` again, with the code as it is now.

A run of every golden set takes about 25 minutes; most of it is searching, reading and ranking,
which a change to the answering rule (:mod:`quotebound.report.answering`) or to the extractive
composer (:mod:`quotebound.report.extractive`) leaves alone. This script takes each dumped run's
checked quotes, with the scores they were ranked by, and composes them as the compose node does
(the composable quotes, then the extractive composition, with the chat profile's citations and
the run's own stop reason); it then scores the findings as ``bench_corpora.py`` does. So such a
change is measured on every set in seconds.

It replays what is composed, not whether the run composes: a run that ended in insufficient
evidence before composing stays so. It does not replay quality review. Its first line says
how many runs' findings it composed again exactly as they were; a change is read from the
gains and losses against that.

Counts are summed as ``bench_corpora.py`` sums them: the first six sets, the held-out sets and
the development sets apart. The questions that changed outcome are listed for the sets that are
not held out; the held-out sets are shown only as totals.

    python bench/replay_compose.py DUMP
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_corpora import CATEGORIES, GROUPS, group_of
from quotebound.context import PROFILES
from quotebound.graph.assessment import final_round
from quotebound.report.answering import composable_evidence
from quotebound.report.extractive import compose_extractive


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open() as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _composed(run: dict[str, Any]) -> list[list[str]]:
    """The evidence ids of each finding the run's quotes compose into now (none for a run that
    did not compose)."""
    if run["status"] != "answered":
        return []
    final = final_round({"stop_reason": run["stop_reason"]})
    evidence = composable_evidence(run["question"], run["evidence"], final=final)
    composition = compose_extractive(
        run["question"],
        evidence,
        max_findings=int(PROFILES["chat"]["max_citations"]),
        final=final,
    )
    return [f["evidence_ids"] for f in composition["findings"]]


def _hit(run: dict[str, Any], findings: list[list[str]]) -> bool:
    """Whether the findings pass as ``bench_corpora.py`` scores them: none for an unanswerable
    question, else a quote holding each expected part's gold words."""
    if run["category"] == "unanswerable":
        return not findings
    cited = {i for ids in findings for i in ids}
    return all(cited & set(part["evidence_ids"]) for part in run["expect"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dump", type=Path, help="the JSON lines of bench_corpora.py --dump")
    args = ap.parse_args()
    counts: Counter[tuple[str, str, str]] = Counter()
    changed: Counter[tuple[str, str]] = Counter()
    same = runs = 0
    for run in _records(args.dump):
        findings = _composed(run)
        before = _hit(run, run["findings"])
        after = _hit(run, findings)
        group = group_of(run["set"])
        runs += 1
        same += findings == run["findings"]
        for key, hit in (("before", before), ("after", after), ("n", True)):
            counts[(group, run["category"], key)] += hit
        if before != after:
            change = "gained" if after else "lost"
            changed[(group, change)] += 1
            if group != GROUPS[1]:
                print(f"  {change:<6} {run['set']} {run['category']}: {run['question'][:90]}")
    print(f"{same} of {runs} runs composed the same findings as when dumped")
    print("answered single-hop, two-part; refused unanswerable: when dumped -> now")
    for group in GROUPS:
        cells = [
            f"{counts[(group, c, 'before')]} -> {counts[(group, c, 'after')]}"
            f"/{counts[(group, c, 'n')]}"
            for c in CATEGORIES
            if counts[(group, c, "n")]
        ]
        if cells:
            print(
                f"  {group:<18} {'   '.join(cells)}   "
                f"(gained {changed[(group, 'gained')]}, lost {changed[(group, 'lost')]})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
