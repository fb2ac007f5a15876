"""Concurrent runs against one store: N ``quotebound research`` processes at once.

Each run is the real command on the embedded corpus with no keys. Against ONE fresh SQLite
store, the same run measures single runs (N=1, one after another) side by side with batches
of N=8 processes started together, and prints for each: completions, errors (exit codes
other than 0 answered and 3 insufficient evidence), p50/p95 latency of a process, its peak
RSS (from ``wait4``), the latency ratio N=8 / N=1, and the bytes a run adds to the SQLite
file. Target: 0 errors at N=8 on SQLite; exits 1 when it is missed.

With ``QUOTEBOUND_BENCH_PG_URI=postgresql://...`` the same is measured on that PostgreSQL
database (its password is never printed); without it PostgreSQL is skipped with a message.

Then one real ``langgraph dev`` server (see ``devserver.py``): single runs one after another
side by side with SERVER_THREADS runs on as many threads started together through the
``langgraph-sdk`` client, with completions, errors (a run that does not end ``success`` with an
answered or insufficient-evidence status), p50/p95 latency and the ratio. Target: 0 errors at
N=SERVER_THREADS threads on one server.

    .venv/bin/python bench/bench_load.py
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from langgraph_sdk import get_client

from devserver import ServerError, langgraph_dev
from quotebound.storage.stores import mask_uri

CONCURRENCY = 8
SERVER_THREADS = 20
ROUNDS = 2
"""Each round: two single runs, then one batch of CONCURRENCY runs."""
RUN_TIMEOUT_S = 120.0
"""A process still running after this is killed and counted as an error."""
OK_EXITS = (0, 3)
QUOTEBOUND = str(Path(sys.executable).with_name("quotebound"))
GOLDEN = Path(__file__).with_name("golden.json")


@dataclass(frozen=True)
class Sample:
    """One finished ``quotebound research`` process."""

    exit_code: int
    seconds: float
    max_rss_kb: int
    last_error: str
    """The last line of its stderr when it failed, else ""."""


def _questions() -> list[str]:
    items = json.loads(GOLDEN.read_text(encoding="utf-8"))["questions"]
    return [item["question"] for item in items if len(item["expect"]) == 1][:CONCURRENCY]


def _env() -> dict[str, str]:
    """This environment without provider keys or quotebound settings: the no-key default run."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in {"TAVILY_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"}
        and not k.startswith("QUOTEBOUND_")
    }


def _research(question: str, store: str) -> Sample:
    argv = [QUOTEBOUND, "research", question, "--provider", "embedded", "--store", store, "-q"]
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=_env(), stdout=subprocess.DEVNULL, stderr=err)
        killer = threading.Timer(RUN_TIMEOUT_S, proc.kill)
        killer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
    failed = proc.returncode not in OK_EXITS
    last = mask_uri(lines[-1]) if failed and lines else ""
    return Sample(proc.returncode, seconds, int(usage.ru_maxrss), last)


def _batch(questions: Sequence[str], store: str) -> list[Sample]:
    """Start one process per question at once; wait for all."""
    with ThreadPoolExecutor(max_workers=len(questions)) as pool:
        return list(pool.map(lambda q: _research(q, store), questions))


def _percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p * len(ordered)) - 1)]


@dataclass(frozen=True)
class Figures:
    """The samples of one concurrency level on one backend."""

    n: int
    samples: list[Sample]

    @property
    def errors(self) -> list[Sample]:
        return [s for s in self.samples if s.exit_code not in OK_EXITS]

    def p50(self) -> float:
        return _percentile([s.seconds for s in self.samples], 0.5)

    def line(self) -> str:
        seconds = [s.seconds for s in self.samples]
        rss_mb = max(s.max_rss_kb for s in self.samples) / 1024
        return (
            f"  N={self.n}: {len(self.samples) - len(self.errors)}/{len(self.samples)} completed, "
            f"{len(self.errors)} errors, p50 {self.p50():.2f} s, "
            f"p95 {_percentile(seconds, 0.95):.2f} s"
            + (f", peak RSS {rss_mb:.0f} MB" if rss_mb else "")
        )


def _store_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def _measure(store: str, questions: list[str]) -> tuple[Figures, Figures]:
    single: list[Sample] = []
    concurrent: list[Sample] = []
    for round_ in range(ROUNDS):
        for i in range(2):
            single += _batch([questions[(2 * round_ + i) % len(questions)]], store)
        concurrent += _batch(questions, store)
    return Figures(1, single), Figures(len(questions), concurrent)


def _report(name: str, single: Figures, concurrent: Figures) -> None:
    print(f"{name}:")
    print(single.line())
    print(concurrent.line())
    ratio = concurrent.p50() / single.p50()
    print(f"  latency p50 N={concurrent.n} / N=1: {ratio:.2f}")
    for sample in single.errors + concurrent.errors:
        print(f"  error: exit {sample.exit_code}: {sample.last_error or 'no message'}")


async def _server_run(url: str, question: str) -> Sample:
    """One run on its own thread of the server; exit code 0 or 3 as the command would give."""
    client = get_client(url=url)
    start = time.perf_counter()
    try:
        thread = await client.threads.create()
        run = await client.runs.create(
            thread["thread_id"], "research", input={"question": question}
        )
        await client.runs.join(thread["thread_id"], run["run_id"])
        run = await client.runs.get(thread["thread_id"], run["run_id"])
        state = await client.threads.get_state(thread["thread_id"])
    except Exception as exc:  # a failed request is this run's error, reported with the rest
        return Sample(1, time.perf_counter() - start, 0, f"{type(exc).__name__}: {exc}"[:200])
    seconds = time.perf_counter() - start
    status = (state.get("values") or {}).get("status")
    if run["status"] != "success" or status not in ("answered", "insufficient_evidence"):
        return Sample(1, seconds, 0, f"run {run['status']}, status {status}")
    return Sample(0 if status == "answered" else 3, seconds, 0, "")


async def _server_measure(url: str, questions: list[str]) -> tuple[Figures, Figures]:
    single = [await _server_run(url, questions[i % len(questions)]) for i in range(4)]
    asked = [questions[i % len(questions)] for i in range(SERVER_THREADS)]
    together = await asyncio.gather(*(_server_run(url, q) for q in asked))
    return Figures(1, single), Figures(SERVER_THREADS, list(together))


def _server(questions: list[str]) -> bool:
    """The server section; True when its target is met."""
    with tempfile.TemporaryDirectory(prefix="quotebound-server-") as tmp:
        try:
            with langgraph_dev(Path(tmp)) as url:
                asyncio.run(_server_run(url, questions[0]))  # warm-up: graph and corpus loaded
                single, together = asyncio.run(_server_measure(url, questions))
        except ServerError as exc:
            print(f"langgraph dev server: {exc}")
            return False
    _report("langgraph dev server (threads on one server)", single, together)
    met = not together.errors
    verdict = "met" if met else "MISSED"
    print(f"target: 0 errors at N={SERVER_THREADS} threads on one server: {verdict}")
    return met


def main() -> int:
    questions = _questions()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="quotebound-load-") as tmp:
        path = Path(tmp) / "runs.sqlite"
        store = f"sqlite:{path}"
        # warm-up: builds the embedded corpus when missing, creates the tables
        warm = _research(questions[0], store)
        if warm.exit_code not in OK_EXITS:
            print(f"warm-up run failed: exit {warm.exit_code}: {warm.last_error}")
            return 1
        before = _store_bytes(path)
        single, concurrent = _measure(store, questions)
        runs = len(single.samples) + len(concurrent.samples)
        per_run = (_store_bytes(path) - before) / runs
    _report("SQLite (one fresh file)", single, concurrent)
    print(f"  store growth: {per_run / 1024:.0f} KB per run ({runs} runs)")
    failed = len(concurrent.errors) > 0
    pg_uri = os.environ.get("QUOTEBOUND_BENCH_PG_URI", "").strip()
    if pg_uri:
        pg_single, pg_concurrent = _measure(pg_uri, questions)
        _report(f"PostgreSQL ({mask_uri(pg_uri)})", pg_single, pg_concurrent)
        failed = failed or len(pg_concurrent.errors) > 0
    else:
        print("PostgreSQL: skipped (set QUOTEBOUND_BENCH_PG_URI=postgresql://... to measure it)")
    verdict = "MISSED" if failed else "met"
    print(f"target: 0 errors at N={CONCURRENCY} processes: {verdict}")
    failed = not _server(questions) or failed
    print(f"bench time {time.perf_counter() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
