"""Peak memory of one run on a large page, side by side with the same run on a small one.

Writes three article pages (about 20 KB, 5 MB and 50 MB of HTML, many paragraphs, one answer
sentence at the end) into a temporary corpus each, indexes each with ``quotebound index`` and
then runs ``quotebound research`` on it (no keys, memory store, the page cap raised to 60 MB),
each in its own process, and reads the process's peak resident set size from the kernel. The
small page is the peer: what the process costs with nothing large in it, measured in the same
run. Targets: a 5 MB page's run under 180 MB, a 50 MB page's under 400 MB. Exits 1 on a miss.

    .venv/bin/python bench/bench_memory.py [--skip-50]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
QUESTION = "How much will the ferry engine repair cost?"
TARGETS_MB = {5_000_000: 180.0, 50_000_000: 400.0}
_WORDS = tuple(
    [
        "harbour",
        "ferry",
        "council",
        "vote",
        "engine",
        "repair",
        "budget",
        "island",
        "village",
        "summer",
        "season",
        "regional",
        "government",
        "cost",
        "service",
        "boat",
        "residents",
        "campaign",
        "hall",
        "nights",
        "library",
        "yearly",
        "proposal",
        "weekly",
        "vessel",
        "crossing",
        "timetable",
        "mainland",
        "passengers",
        "winter",
        "storms",
        "pier",
        "captain",
        "crew",
    ]
)


def _write_page(root: Path, size: int) -> None:
    rng = random.Random(size)
    parts = ["<html><head><title>Ferry report</title></head><body><article><h1>Ferry report</h1>"]
    total, i = 0, 0
    while total < size - 2_000:
        words = " ".join(rng.choice(_WORDS) for _ in range(60))
        para = f"<p>{words}, as paragraph {i} of the report says.</p>"
        if i % 50 == 49:
            para += f"<h2>Part {i // 50 + 1}</h2>"
        parts.append(para)
        total += len(para)
        i += 1
    parts.append(
        "<p>The ferry engine repair will cost 2.4 million euros, according to the council.</p>"
        "</article></body></html>"
    )
    (root / "page.html").write_text("".join(parts), encoding="utf-8")


def _peak_mb(args: list[str], env: dict[str, str]) -> tuple[float, int, float]:
    """Peak RSS (MB), exit code and seconds of one command in its own process."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, proc.returncode, time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--skip-50", action="store_true", help="leave out the 50 MB page")
    args = ap.parse_args()
    sizes = [20_000, 5_000_000] + ([] if args.skip_50 else [50_000_000])
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "XDG_CACHE_HOME": f"{tmp}/cache",
            "XDG_DATA_HOME": f"{tmp}/data",
            "QUOTEBOUND_MAX_PAGE_MB": "60",
            "QUOTEBOUND_TIME_BUDGET_S": "600",
        }
        peer = 0.0
        for size in sizes:
            root = Path(tmp, f"corpus{size}")
            root.mkdir()
            _write_page(root, size)
            base = ["--corpus", str(root), "--base-url", "https://example.org/"]
            index_mb, _, index_s = _peak_mb(
                [str(BIN / "quotebound"), "index", str(root), "--base-url", "https://example.org/"],
                env,
            )
            run_mb, code, run_s = _peak_mb(
                [str(BIN / "quotebound"), "research", QUESTION, *base, "--store", "memory"], env
            )
            line = (
                f"{size / 1e6:6.2f} MB page: research peak {run_mb:6.1f} MB (exit {code}, "
                f"{run_s:.1f} s); index peak {index_mb:6.1f} MB ({index_s:.1f} s)"
            )
            if size not in TARGETS_MB:
                peer = run_mb
                print(f"{line}  [peer]")
                continue
            target = TARGETS_MB[size]
            met = run_mb <= target and code == 0
            ok &= met
            print(
                f"{line}; {run_mb / peer:.2f}x the small page's run; target <= {target:.0f} MB "
                f"and answered: {'met' if met else 'NOT met'}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
