"""Golden sets over real corpora, run the way a user runs them: answered, refused, honesty, time.

Each set (bench/golden_pydocs.json, golden_pg.json, golden_news.json, and the second sets
golden_pydocs_b.json, golden_news_b.json and golden_sqlite.json, and the later held-out sets
golden_pydocs_c.json, golden_pydocs_d.json, golden_news_c.json, golden_pydocs_e.json,
golden_pg_b.json and golden_sqlite_b.json, written the same way; no one tuning read the later
sets' questions, and of the held-out sets only totals are looked at; and the development sets
golden_pg_dev.json, golden_sqlite_dev.json, golden_pydocs_dev.json, golden_news_dev.json and
golden_pydocs_dev_b.json, written the same way after them, whose misses may be read) is a
directory of real pages searched as a local corpus (the corpus provider, the extractive
composer, no keys, the chat profile: what ``quotebound research "Q" --corpus DIR --base-url
URL`` does).
Counts:

- answered: for every expected part, a finding cites the expected page and its quote contains
  the gold words (whitespace folded);
- refused: unanswerable questions that end in insufficient evidence;
- off-page quotes: findings whose quote is not in the text of the page their URL cites
  (whitespace folded) -- must be 0;
- median seconds per question, after the corpus is indexed;
- where each missed expected part was lost (``LOSSES``), read from the run's audit: its page
  never found by the search, found but not read, read but no verified quote holds the gold
  words, such a quote verified but not cited, or such a quote verified but the run refused.

The run ends with a summary: a line per set, then the totals of the held-out sets, of the
development sets and of the others apart, and the same for where the missed parts were lost.
Exits 1 when a set misses a threshold. A set whose corpus is absent is skipped with a message;
the news pages are unpacked from the shared archive into the cache when needed.

    python bench/bench_corpora.py [--only NAME] [--limit N] [--dump FILE] [--informally]

``--informally`` types each question as many users type theirs: in lower case, without
apostrophes or a final question mark ("whats the default port"); the same pages must answer.

``--dump FILE`` also writes each question's run to FILE as a line of JSON: the question, its
set, category and place, the run's status, stop reason and findings, each expected part with
where it was lost and the evidence ids that hold its gold words, and every quote the run checked
with its scores and verification. ``bench/replay_compose.py`` composes them again, so that a
change to the answering rule or the composer is measured on every set in seconds.

NAME: pydocs, pg, news, pydocs_b, news_b, sqlite, pydocs_c, pydocs_d, news_c, pydocs_e, pg_b,
sqlite_b, pg_dev, sqlite_dev, pydocs_dev, news_dev or pydocs_dev_b (repeatable).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import statistics
import sys
import tarfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import platformdirs
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from quotebound.acquisition.corpus import LocalCorpus
from quotebound.context import make_context
from quotebound.graph.deps import Deps
from quotebound.interface.runner import load_evidence, run_research
from quotebound.storage.rawstore import parsed_page

BENCH = Path(__file__).parent
NEWS_ARCHIVE = BENCH.resolve().parents[1] / "shared" / "data" / "trafilatura-eval.tar.xz"
THRESHOLDS = {"questions": 0.85, "two_part": 0.80, "unanswerable": 0.90}
MEDIAN_S = 3.0


@dataclass(frozen=True)
class Corpus:
    name: str
    golden: str
    root: Path | None
    base_url: str


def _news_root() -> Path | None:
    """The trafilatura evaluation pages, unpacked from the shared archive into the cache once."""
    root = _cache() / "tev" / "tests"
    if (root / "eval").is_dir():
        return root
    if not NEWS_ARCHIVE.is_file():
        return None
    target = _cache() / "tev"
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(NEWS_ARCHIVE) as tar:
        tar.extractall(target, filter="data")
    found = next(target.rglob("eval"), None)
    return found.parent if found is not None else None


def _cache() -> Path:
    return Path(platformdirs.user_cache_dir("quotebound")) / "bench"


PYTHON_DOCS = (Path("/usr/share/doc/python3.11/html"), "https://docs.python.org/3.11/")
POSTGRES_DOCS = (
    Path("/usr/share/doc/postgresql-doc-15/html"),
    "https://www.postgresql.org/docs/15/",
)
SQLITE_DOCS = (Path("/usr/share/doc/sqlite3"), "https://sqlite.org/")
NEWS_URL = "https://pages.example.org/"


def _set(name: str, docs: tuple[Path, str] | None = None) -> Callable[[], Corpus]:
    """The set ``name`` (its questions in golden_NAME.json) over installed ``docs`` (root and
    base URL), or over the news pages when none."""
    if docs is None:
        return lambda: Corpus(name, f"golden_{name}.json", _news_root(), NEWS_URL)
    return lambda: Corpus(name, f"golden_{name}.json", *docs)


CORPORA = {
    "pydocs": _set("pydocs", PYTHON_DOCS),
    "pg": _set("pg", POSTGRES_DOCS),
    "news": _set("news"),
    # Second sets, written later the same way: their questions were never read while tuning,
    # their totals were measured when choosing a change (SQLite's docs: `apt-get install
    # sqlite3-doc`).
    "pydocs_b": _set("pydocs_b", PYTHON_DOCS),
    "news_b": _set("news_b"),
    "sqlite": _set("sqlite", SQLITE_DOCS),
    # Held-out sets (HELD_OUT).
    "pydocs_c": _set("pydocs_c", PYTHON_DOCS),
    "pydocs_d": _set("pydocs_d", PYTHON_DOCS),
    "news_c": _set("news_c"),
    "pydocs_e": _set("pydocs_e", PYTHON_DOCS),
    "pg_b": _set("pg_b", POSTGRES_DOCS),
    "sqlite_b": _set("sqlite_b", SQLITE_DOCS),
    # Development sets, written the same way after the held-out ones: their questions may be
    # read to see why a run missed, and they are summed apart from the first six sets.
    "pg_dev": _set("pg_dev", POSTGRES_DOCS),
    "sqlite_dev": _set("sqlite_dev", SQLITE_DOCS),
    "pydocs_dev": _set("pydocs_dev", PYTHON_DOCS),
    "news_dev": _set("news_dev"),
    "pydocs_dev_b": _set("pydocs_dev_b", PYTHON_DOCS),
}
HELD_OUT = ("pydocs_c", "pydocs_d", "news_c", "pydocs_e", "pg_b", "sqlite_b")
"""The later sets, of which only totals are looked at; the summary adds them up apart."""
DEVELOPMENT = ("pg_dev", "sqlite_dev", "pydocs_dev", "news_dev", "pydocs_dev_b")
"""Sets written after the held-out ones to read misses on; the summary adds them up apart."""
GROUPS = ("first six sets", "held-out sets", "development sets")


def group_of(name: str) -> str:
    """The group a set is summed in: the first six, the held-out or the development sets."""
    return GROUPS[1] if name in HELD_OUT else GROUPS[2] if name in DEVELOPMENT else GROUPS[0]


CATEGORIES = ("questions", "two_part", "unanswerable")
LOSSES = ("not found", "not read", "no quote", "not chosen", "refused")
"""The stage that lost a missed expected part, in the order a run goes through them."""


@dataclass(frozen=True)
class SetResult:
    """One set's counts: (hits, questions) per category, quotes off page, median seconds."""

    name: str
    counts: dict[str, tuple[int, int]]
    off_page: int
    median_s: float
    met: bool
    losses: Counter[str]
    """Missed expected parts of the answerable questions, by the stage that lost them."""


def _fold(text: str) -> str:
    return " ".join(text.split())


def _page(expect: dict[str, Any]) -> str:
    return f"{expect['dir']}/{expect['page']}" if "dir" in expect else expect["page"]


def _loss(out: dict[str, Any], url: str, words: str) -> str | None:
    """Where the run ``out`` lost the expected part (a page's ``url`` and its gold ``words``,
    folded), one of ``LOSSES``; None when a finding cites it."""
    if any(f["url"] == url and words in _fold(f["quote"]) for f in out["findings"]):
        return None
    audit = out["audit"] or {}
    read = {s["source_id"]: s["url"] for s in audit.get("sources") or []}
    if url not in read.values():
        found = any(
            url in (g.get("admitted") or [])
            for g in audit.get("gates") or []
            if g.get("gate") == "search_to_fetch"
        )
        return "not read" if found else "not found"
    if not _quoted(audit.get("evidence") or [], read, url, words):
        return "no quote"
    return "not chosen" if out["status"] == "answered" else "refused"


def _quoted(
    evidence: Sequence[Mapping[str, Any]], read: Mapping[str, str], url: str, words: str
) -> list[str]:
    """The ids of the verified quotes (``evidence``) of the page at ``url`` (``read``: each
    source's URL) whose matched text holds the gold ``words`` (folded)."""
    return [
        e["evidence_id"]
        for e in evidence
        if read.get(e["source_id"]) == url
        and e["verification"]["status"] == "PASS"
        and words in _fold(e["verification"].get("matched_text") or "")
    ]


def opened(corpus: Corpus) -> tuple[dict[str, Any], LocalCorpus]:
    """The set's questions and its corpus, indexed (with a line saying how long that took)."""
    assert corpus.root is not None
    golden = json.loads((BENCH / corpus.golden).read_text())
    local = LocalCorpus(corpus.root, base_url=corpus.base_url)
    t = time.perf_counter()
    local.refresh()
    print(f"\n== {corpus.name}: {corpus.root} indexed in {time.perf_counter() - t:.1f} s")
    return golden, local


def typed_informally(question: str) -> str:
    """``question`` as many users type it: in lower case, without apostrophes ("whats", "dont")
    or a final question mark."""
    typed = re.sub(r"(?<=\w)['’](?=\w)", "", question).lower().rstrip()
    return typed.removesuffix("?").rstrip()


async def _run_set(
    corpus: Corpus,
    limit: int | None,
    dump: TextIO | None = None,
    typed: Callable[[str], str] = str,
) -> SetResult:
    golden, local = opened(corpus)
    context = make_context(
        "chat",
        provider="corpus",
        corpus_dir=str(corpus.root),
        corpus_base_url=corpus.base_url,
        composer="extractive",
    )
    deps = Deps()
    texts: dict[str, str] = {}
    times: list[float] = []
    off_page = 0
    ok = True
    counts: dict[str, tuple[int, int]] = {}
    losses: Counter[str] = Counter()
    for category in CATEGORIES:
        items = golden.get(category, [])[:limit]
        if not items:
            continue
        hits = 0
        for index, item in enumerate(items):
            saver = InMemorySaver() if dump is not None else None
            t = time.perf_counter()
            question = typed(item["question"])
            out = await run_research(
                question,
                store=InMemoryStore(),
                checkpointer=saver,
                context=context,
                deps=deps,
            )
            times.append(time.perf_counter() - t)
            for f in out["findings"]:
                document = local.document_for_url(f["url"])
                if document is None:
                    off_page += 1
                    continue
                if document not in texts:
                    texts[document] = _fold(parsed_page(await local.read(document)).text)
                off_page += _fold(f["quote"]) not in texts[document]
            expected = [
                {"url": local.url_for(_page(e)), "words": _fold(e["words"])}
                for e in item.get("expect", [])
            ]
            lost = [_loss(out, e["url"], e["words"]) for e in expected]
            losses.update(loss for loss in lost if loss is not None)
            hit = out["status"] != "answered" if category == "unanswerable" else not any(lost)
            if saver is not None and dump is not None:
                evidence = await load_evidence(out["thread_id"], checkpointer=saver) or []
                read = {e["source_id"]: e["url"] for e in evidence}
                record = {
                    "set": corpus.name,
                    "category": category,
                    "index": index,
                    "question": question,
                    "status": out["status"],
                    "stop_reason": (out["audit"] or {}).get("stop_reason"),
                    "findings": [f["evidence_ids"] for f in out["findings"]],
                    "expect": [
                        {
                            **e,
                            "loss": loss,
                            "evidence_ids": _quoted(evidence, read, e["url"], e["words"]),
                        }
                        for e, loss in zip(expected, lost, strict=True)
                    ],
                    "evidence": evidence,
                }
                dump.write(json.dumps(record, ensure_ascii=False) + "\n")
            hits += hit
            print(f"  {'PASS' if hit else 'MISS'}  {out['status']:<22} {question[:90]}")
        counts[category] = (hits, len(items))
        share = hits / len(items)
        met = share >= THRESHOLDS[category]
        ok &= met
        label = "refused" if category == "unanswerable" else "answered"
        print(
            f"{corpus.name} {category}: {label} {hits}/{len(items)} = {share:.0%} "
            f"(target >= {THRESHOLDS[category]:.0%}: {'met' if met else 'NOT met'})"
        )
    median = statistics.median(times)
    print(
        f"{corpus.name}: quotes off their cited page {off_page} (target 0: "
        f"{'met' if off_page == 0 else 'NOT met'}); median {median:.2f} s per question "
        f"(target <= {MEDIAN_S} s: {'met' if median <= MEDIAN_S else 'NOT met'})"
    )
    print(f"{corpus.name}: missed parts lost at: {_losses(losses)}")
    return SetResult(
        corpus.name, counts, off_page, median, ok and off_page == 0 and median <= MEDIAN_S, losses
    )


def _losses(losses: Counter[str]) -> str:
    return ", ".join(f"{stage} {losses[stage]}" for stage in LOSSES)


def _summary(results: list[SetResult]) -> None:
    """A line per set, then the totals of the held-out sets and of the others apart; the same
    for where the missed parts were lost."""
    groups = [
        (label, group)
        for label, group in (
            (
                "tuned and second sets",
                [r for r in results if r.name not in HELD_OUT + DEVELOPMENT],
            ),
            ("held-out sets", [r for r in results if r.name in HELD_OUT]),
            ("development sets", [r for r in results if r.name in DEVELOPMENT]),
        )
        if group
    ]
    print("\n== summary: answered single-hop, two-part; refused unanswerable; off page; median")

    def cells(counts: list[dict[str, tuple[int, int]]]) -> str:
        out = []
        for category in CATEGORIES:
            hits = sum(c[category][0] for c in counts if category in c)
            n = sum(c[category][1] for c in counts if category in c)
            out.append(f"{hits:>3}/{n:<3} {hits / n:>4.0%}" if n else f"{'-':>12}")
        return "  ".join(out)

    for r in results:
        print(f"  {r.name:<22} {cells([r.counts])}  {r.off_page:>3}  {r.median_s:.2f} s")
    for label, group in groups:
        print(f"  {label:<22} {cells([r.counts for r in group])}")
    print("\n== missed expected parts, by where they were lost: " + ", ".join(LOSSES))
    rows = [(r.name, r.losses) for r in results]
    rows += [(label, sum((r.losses for r in group), Counter())) for label, group in groups]
    for name, losses in rows:
        print(f"  {name:<22} {'  '.join(f'{losses[stage]:>3}' for stage in LOSSES)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", choices=sorted(CORPORA), action="append")
    ap.add_argument("--limit", type=int, default=None, help="at most N questions per category")
    ap.add_argument("--dump", type=Path, help="write each question's run to FILE (JSON lines)")
    ap.add_argument(
        "--informally",
        action="store_true",
        help="type each question in lower case, without apostrophes or a final question mark",
    )
    args = ap.parse_args()
    results: list[SetResult] = []
    with args.dump.open("w") if args.dump else contextlib.nullcontext() as dump:
        for name in args.only or sorted(CORPORA):
            corpus = CORPORA[name]()
            if corpus.root is None or not corpus.root.is_dir():
                print(f"\n== {name}: corpus not found ({corpus.root}); skipped")
                continue
            typed = typed_informally if args.informally else str
            results.append(asyncio.run(_run_set(corpus, args.limit, dump, typed)))
    _summary(results)
    return 0 if all(r.met for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
