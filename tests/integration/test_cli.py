"""The ``quotebound`` console script, run as a subprocess with no keys and no network."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from httpserver import LoopbackServer, respond
from keyless import keyless_env
from postgres import PostgresServer, postgres_server  # noqa: F401  (fixture)

from quotebound.evidence.verification import verify_quote
from quotebound.storage.rawstore import get_raw_page, list_raw_pages, parsed_page
from quotebound.storage.stores import open_store
from quotebound.urls import source_id

pytestmark = pytest.mark.integration

QUOTEBOUND = str(Path(sys.executable).with_name("quotebound"))
QUESTION = "How long does a Harbor Bridge lift cycle take?"
BASE_URL = "https://harbor.example.org/docs/"

CORPUS = {
    "bridge.html": """<!doctype html><html><head><title>Harbor Bridge operations</title>
<script>var tracking = "lift cycle takes forever";</script></head><body>
<nav><a href="/">Home</a> | <a href="/ferries">Ferries</a></nav>
<main><h1>Harbor Bridge operations</h1>
<p>The Harbor Bridge raises its central span for ships every day at noon, and a full lift
cycle takes about twelve minutes from the first warning bells until the traffic lanes reopen.</p>
<p>During a lift cycle the bridge operators stop road traffic with barriers, sound the warning
bells twice, and raise the span slowly while a harbor pilot confirms that the channel is clear.</p>
<p>Maintenance crews inspect the Harbor Bridge lift machinery every spring, replacing worn
cables and testing the counterweights so that each lift cycle stays smooth and predictable.</p>
</main></body></html>
""",
    "ferries.md": """# Harbor ferries

The harbor ferries run every twenty minutes between the north pier and the old market, and
the crossing takes about nine minutes in calm weather with a full load of passengers aboard.

When the Harbor Bridge lifts its span, ferry captains hold their boats at the pier until the
harbor pilot signals that the shipping channel is clear again for smaller passenger vessels.
""",
    "history.txt": """The harbor lighthouse was built in 1887 from local granite and still
guides fishing boats past the breakwater on foggy nights with a beam visible for sixteen miles.
""",
}


def _run(home: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [QUOTEBOUND, *args],
        env=keyless_env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def _write_corpus(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in CORPUS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@dataclass(frozen=True)
class Run:
    home: Path
    corpus: Path
    store: str
    thread_id: str
    done: subprocess.CompletedProcess[str]

    @property
    def output(self) -> dict:
        return json.loads(self.done.stdout)


@pytest.fixture(scope="module")
def sqlite_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One research run on a local corpus, stored in the default SQLite store."""
    home = tmp_path_factory.mktemp("home")
    corpus = _write_corpus(home / "corpus")
    store = f"sqlite:{home / 'data' / 'quotebound' / 'quotebound.sqlite'}"
    done = _run(home, "research", QUESTION, "--corpus", str(corpus), "--base-url", BASE_URL,
                "--format", "json", "--thread-id", "harbor-1")  # fmt: skip
    return Run(home, corpus, store, "harbor-1", done)


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path: Path) -> None:
    corpus = _write_corpus(tmp_path / "corpus")
    # A long log of lifts: reading it takes the run seconds, long enough to kill it meanwhile.
    lifts = "".join(
        f"<p>Lift {i}: the Harbor Bridge lift cycle ran for its usual time today, and the "
        f"span was lowered again after ship number {i} had passed the harbor channel.</p>"
        for i in range(25_000)
    )
    (corpus / "lift-log.html").write_text(f"<title>Harbor Bridge lift log</title>{lifts}")
    assert (corpus / "lift-log.html").stat().st_size < 5_000_000  # under the default page cap
    args = ["--corpus", str(corpus), "--base-url", BASE_URL, "--thread-id", "killed-1"]
    proc = subprocess.Popen(
        [QUOTEBOUND, "research", QUESTION, *args],
        env=keyless_env(tmp_path),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "[fetch]" in line:
            proc.kill()
            break
    proc.wait(timeout=60)
    assert proc.returncode == -9, "".join(seen)
    resumed = _run(tmp_path, "research", "--resume", "killed-1", "--format", "json")
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    assert out["status"] == "answered" and out["thread_id"] == "killed-1"
    assert any("twelve minutes" in f["quote"] for f in out["findings"])
    # It went on from where it was killed: nothing was planned or searched again.
    assert "[search]" not in resumed.stderr and "[plan]" not in resumed.stderr, resumed.stderr
    assert "[extract_evidence]" in resumed.stderr


def test_resume_says_in_one_line_why_there_is_nothing_to_continue(sqlite_run: Run) -> None:
    home, store = sqlite_run.home, sqlite_run.store
    finished = _one_line_error(_run(home, "research", "--resume", "harbor-1", "--store", store))
    assert "finished; nothing to resume" in finished
    unknown = _one_line_error(_run(home, "research", "--resume", "nobody", "--store", store))
    assert "no run to resume on thread 'nobody'" in unknown
    both = _one_line_error(_run(home, "research", QUESTION, "--resume", "harbor-1"))
    assert "drop a question" in both
    assert "--resume" in _one_line_error(_run(home, "research"))


def test_research_answers_with_quotes_that_verify_against_the_stored_pages(
    sqlite_run: Run,
) -> None:
    assert sqlite_run.done.returncode == 0, sqlite_run.done.stderr
    out = sqlite_run.output
    assert out["status"] == "answered"
    assert out["thread_id"] == "harbor-1"
    assert out["question"] == QUESTION
    for key in ("answer", "report_markdown", "grounding_confidence", "sources", "audit"):
        assert key in out
    assert out["findings"], out
    assert any("twelve minutes" in f["quote"] for f in out["findings"])

    async def check() -> None:
        async with open_store(sqlite_run.store) as handle:  # the default store was used
            for finding in out["findings"]:
                assert finding["url"].startswith(BASE_URL)
                page = await get_raw_page(
                    handle.store, sqlite_run.thread_id, source_id(finding["url"])
                )
                assert page is not None, finding["url"]
                verdict = verify_quote(finding["quote"], parsed_page(page).text)
                assert verdict.status == "PASS", (finding, verdict)

    asyncio.run(check())


def test_a_rerun_in_another_process_is_byte_identical(tmp_path: Path) -> None:
    """Same Store contents and inputs, a new process: the same report, evidence and hashes."""
    corpus = _write_corpus(tmp_path / "corpus")
    args = ("research", QUESTION, "--corpus", str(corpus), "--base-url", BASE_URL,
            "--format", "json", "--thread-id", "again-1")  # fmt: skip
    first_run, second_run = _run(tmp_path, *args), _run(tmp_path, *args)
    assert first_run.returncode == second_run.returncode == 0, second_run.stderr
    first, second = json.loads(first_run.stdout), json.loads(second_run.stdout)
    assert second["report_markdown"] == first["report_markdown"]
    for key in ("evidence_sha256", "report_sha256", "evidence"):
        assert second["audit"][key] == first["audit"][key]
    assert json.dumps(second["findings"], sort_keys=True) == json.dumps(
        first["findings"], sort_keys=True
    )


def test_research_shows_progress_on_stderr(sqlite_run: Run) -> None:
    lines = [ln for ln in sqlite_run.done.stderr.splitlines() if ln.startswith("quotebound: [")]
    phases = {ln.split("]")[0].removeprefix("quotebound: [") for ln in lines}
    assert len(phases) >= 3, sqlite_run.done.stderr
    verified = [int(m) for ln in lines for m in re.findall(r"quotes verified (\d+)", ln)]
    assert verified and max(verified) > 0, sqlite_run.done.stderr
    assert "corpus indexed" in sqlite_run.done.stderr
    assert "quotebound show harbor-1" in sqlite_run.done.stderr


def test_show_in_a_second_process_returns_the_same_report(sqlite_run: Run) -> None:
    shown = _run(sqlite_run.home, "show", "harbor-1", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == sqlite_run.output
    markdown = _run(sqlite_run.home, "show", "harbor-1", "--store", sqlite_run.store)
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith(sqlite_run.output["report_markdown"].rstrip())
    assert "## Audit" in markdown.stdout


def test_sources_lists_the_runs_pages(sqlite_run: Run) -> None:
    listed = _run(sqlite_run.home, "sources", "harbor-1")
    assert listed.returncode == 0, listed.stderr
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert rows[0] == ["source id", "tier", "status", "fetched at", "url", "title"]
    cited = {f["url"] for f in sqlite_run.output["findings"]}
    assert cited <= {row[4] for row in rows[1:]}
    assert all(row[1] == "PRIMARY_SOURCE" and row[2] == "200" for row in rows[1:])


def test_markdown_report_to_a_file(sqlite_run: Run) -> None:
    out = sqlite_run.home / "reports" / "report.md"
    done = _run(
        sqlite_run.home,
        "research",
        QUESTION,
        "--corpus",
        str(sqlite_run.corpus),
        "--base-url",
        BASE_URL,
        "--store",
        "memory",
        "--quiet",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert "twelve minutes" in out.read_text(encoding="utf-8")


def test_html_report_from_research_and_again_from_show(sqlite_run: Run) -> None:
    home, out = sqlite_run.home, sqlite_run.home / "reports" / "report.html"
    done = _run(home, "research", QUESTION, "--corpus", str(sqlite_run.corpus),
                "--base-url", BASE_URL, "--thread-id", "harbor-html", "--quiet",
                "--format", "html", "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    document = out.read_text(encoding="utf-8")
    assert document.startswith("<!doctype html>") and "<script" not in document
    assert f'<a href="{BASE_URL}bridge.html#:~:text=' in document  # a deep link to the quote
    assert "<mark>" in document and "twelve minutes" in document  # the quote in its paragraph
    shown = _run(home, "show", "harbor-html", "--format", "html")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == document


def test_unanswerable_question_exits_3(sqlite_run: Run) -> None:
    done = _run(sqlite_run.home, "research", "What is the airspeed velocity of a swallow?",
                "--corpus", str(sqlite_run.corpus), "--store", "memory", "--format", "json",
                "--quiet")  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["status"] == "insufficient_evidence"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["research"], "question"),
        (["research", "Q", "--corpus", "{home}/no-such-dir"], "no-such-dir"),
        (["research", "Q", "--corpus", "{home}/a-file"], "a-file"),
        (["research", "Q", "--store", "postgresql://u:pw-123@127.0.0.1:{port}/db"], "PostgreSQL"),
        (["research", "Q", "--provider", "bing"], "bing"),
        (["research", "Q", "--provider", "tavily"], "TAVILY_API_KEY"),
        (["research", "Q", "--provider", "wikipedia,brave"], "BRAVE_API_KEY"),
        (["research", "Q", "--provider", "searxng"], "QUOTEBOUND_SEARXNG_URL"),
        (["research", "Q", "--provider", "gdelt,gdelt"], "twice"),
        (["research", "Q", "--thread-id", "run.1"], "run.1"),
        (["research", "Why \udcff?"], "question must be valid UTF-8"),  # bytes not UTF-8
        (["research", "Q", "--base-url", "https://x.example/\udcff/"], "corpus_base_url"),
        (["research", "Q", "--store", "sqlite:{home}/\udcff.sqlite"], "store URI"),
        (["show", "run.1"], "run.1"),
        (["show", "t1", "--format", "pdf"], "'json', 'html'"),
        (["verify", "--quote", "x", "--file", "{home}/no-such-file"], "no-such-file"),
    ],
)
def test_bad_usage_exits_2_with_one_line(tmp_path: Path, args: list[str], expect: str) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    argv = [a.format(home=tmp_path, port=_closed_port()) for a in args]
    line = _one_line_error(_run(tmp_path, *argv, timeout=60))
    assert expect in line
    assert "pw-123" not in line


def test_index_reports_counts(tmp_path: Path) -> None:
    corpus = _write_corpus(tmp_path / "corpus")
    first = _run(tmp_path, "index", str(corpus), "--base-url", BASE_URL)
    assert first.returncode == 0, first.stderr
    assert "added 3" in first.stderr
    made = re.findall(r"passage vectors \(search by meaning.*\): (\d+)/(\d+)", first.stderr)
    assert made and made[-1][0] == made[-1][1] != "0"  # every passage has its vector
    (corpus / "history.txt").unlink()
    second = _run(tmp_path, "index", str(corpus), "--base-url", BASE_URL)
    assert second.returncode == 0, second.stderr
    assert "removed 1" in second.stderr and "unchanged 2" in second.stderr
    assert "passage vectors" not in second.stderr  # none to make


def test_index_survives_a_file_declaring_a_codec_that_is_not_a_text_encoding(
    tmp_path: Path,
) -> None:
    corpus = _write_corpus(tmp_path / "corpus")
    (corpus / "odd.html").write_bytes(
        "<meta charset=base64><title>Odd</title><p>Grüße aus Köln</p>".encode("cp1252")
    )
    done = _run(tmp_path, "index", str(corpus), "--base-url", BASE_URL)
    assert done.returncode == 0, done.stderr
    assert "added 4" in done.stderr


def test_index_and_verify_read_the_page_cap_that_research_reads(tmp_path: Path) -> None:
    corpus = _write_corpus(tmp_path / "corpus")
    big = corpus / "big.html"
    big.write_text("<p>" + "The long report goes on. " * 50_000 + "</p>", encoding="utf-8")
    assert 1_000_000 < big.stat().st_size < 2_000_000

    def run(cap: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [QUOTEBOUND, *args],
            env={**keyless_env(tmp_path), "QUOTEBOUND_MAX_PAGE_MB": cap},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )

    small_cap = run("1", "index", str(corpus), "--base-url", BASE_URL)
    assert small_cap.returncode == 0 and "skipped 1" in small_cap.stderr, small_cap.stderr
    raised = run("3", "index", str(corpus), "--base-url", BASE_URL)
    assert raised.returncode == 0 and "added 1" in raised.stderr, raised.stderr
    quote = "The long report goes on. The long report goes on."
    assert run("1", "verify", "--quote", quote, "--file", str(big)).returncode == 2
    assert run("3", "verify", "--quote", quote, "--file", str(big)).returncode == 0


def test_verify_pass_and_fail_against_a_file(tmp_path: Path) -> None:
    page = _write_corpus(tmp_path / "corpus") / "bridge.html"
    quote = "a full lift cycle takes about twelve minutes"
    passed = _run(tmp_path, "verify", "--quote", quote, "--file", str(page))
    assert passed.returncode == 0, passed.stderr
    assert "status:  PASS" in passed.stdout and "twelve minutes" in passed.stdout
    failed = _run(tmp_path, "verify", "--quote", quote.replace("twelve", "twenty"),
                  "--file", str(page), "--format", "json")  # fmt: skip
    assert failed.returncode == 1, failed.stderr
    verdict = json.loads(failed.stdout)
    assert verdict["status"] == "FAIL" and verdict["start"] == -1 and verdict["reason"]


@pytest.mark.parametrize(("variable", "value"), [("QUOTEBOUND_CACHE_MB", "lots"),
                                                  ("QUOTEBOUND_MEANING", "sometimes")])  # fmt: skip
def test_a_malformed_process_setting_exits_2_with_one_line(
    tmp_path: Path, variable: str, value: str
) -> None:
    done = subprocess.run(
        [QUOTEBOUND, "research", QUESTION, "--store", "memory"],
        env={**keyless_env(tmp_path), variable: value},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert variable in _one_line_error(done)


def test_verify_a_blocked_url_exits_2_with_the_reason_code(tmp_path: Path) -> None:
    line = _one_line_error(
        _run(tmp_path, "verify", "--quote", "anything", "--url", "http://127.0.0.1/admin")
    )
    assert "blocked_ssrf" in line


def test_research_on_postgres_survives_a_restart(
    tmp_path: Path,
    postgres_server: PostgresServer,  # noqa: F811
) -> None:
    corpus = _write_corpus(tmp_path / "corpus")
    store = ["--store", postgres_server.uri]
    done = _run(
        tmp_path,
        "research",
        QUESTION,
        "--corpus",
        str(corpus),
        "--base-url",
        BASE_URL,
        "--provider",
        "corpus",
        "--format",
        "json",
        "--thread-id",
        "pg-run",
        *store,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    postgres_server.restart()

    shown = _run(tmp_path, "show", "pg-run", "--format", "json", *store)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == out
    listed = _run(tmp_path, "sources", "pg-run", *store)
    assert listed.returncode == 0, listed.stderr
    assert {f["url"] for f in out["findings"]} <= {
        line.split("\t")[4] for line in listed.stdout.splitlines()[1:]
    }

    async def pages() -> int:
        async with open_store(postgres_server.uri) as handle:
            return len(await list_raw_pages(handle.store, "pg-run"))

    assert asyncio.run(pages()) == len(listed.stdout.splitlines()) - 1


SEARX_ANSWER = {
    "results": [
        {"url": "https://harbor.example/lift", "title": "Harbor Bridge", "content": "lift"},
        {"url": "https://harbor.example/faq", "title": "Harbor FAQ", "content": "cycle"},
    ]
}


def _searx(home: Path, server: LoopbackServer, *args: str) -> subprocess.CompletedProcess[str]:
    """``quotebound ARGS`` with QUOTEBOUND_SEARXNG_URL pointing at ``server``."""
    return subprocess.run(
        [QUOTEBOUND, *args],
        env={**keyless_env(home), "QUOTEBOUND_SEARXNG_URL": server.origin},
        cwd=home,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def _serve_searx(server: LoopbackServer) -> None:
    server.routes["/search"] = lambda h: respond(
        h, 200, json.dumps(SEARX_ANSWER).encode(), {"Content-Type": "application/json"}
    )


def test_research_through_searxng_records_its_run(
    tmp_path: Path, http_server: LoopbackServer
) -> None:
    """The command with a SearXNG-compatible server on loopback: the ladder asks it, the JSON
    report lists its run; its results are fetched like any lead (here they cannot be reached:
    no network), so the run ends in insufficient evidence, saying why for each source."""
    _serve_searx(http_server)
    done = _searx(
        tmp_path,
        http_server,
        "research",
        QUESTION,
        "--provider",
        "searxng",
        "--store",
        "memory",
        "--format",
        "json",
        "-q",
    )
    assert done.returncode == 3, done.stderr
    out = json.loads(done.stdout)
    runs = out["audit"]["provider_runs"]
    assert {(r["provider"], r["kind"], r["result_count"], r["reason"]) for r in runs} == {
        ("searxng", "web", 2, None)
    }
    assert runs[0]["endpoint"] == http_server.url("/search")
    failed = [s for s in out["sources"] if s["fetch_status"] == "failed"]
    assert {s["url"] for s in failed} == {
        "https://harbor.example/lift",
        "https://harbor.example/faq",
    }
    assert all(s["reason"] for s in failed)


def test_a_second_run_uses_the_kept_search_answers(
    tmp_path: Path, http_server: LoopbackServer
) -> None:
    _serve_searx(http_server)
    store = f"sqlite:{tmp_path / 'runs.sqlite'}"
    research = ["research", QUESTION, "--provider", "searxng", "--store", store]
    research += ["--format", "json", "-q"]

    def run(*extra: str) -> tuple[set[str], int]:
        done = _searx(tmp_path, http_server, *research, *extra)
        assert done.returncode == 3, done.stderr
        audit = json.loads(done.stdout)["audit"]
        page_hours = 0 if extra else 24  # --no-cache turns off the page cache too
        assert audit["settings"]["page_cache_hours"] == page_hours
        return {r["cache_status"] for r in audit["provider_runs"]}, http_server.hits["/search"]

    statuses, asked = run()
    assert statuses == {"miss"} and asked > 0
    assert run() == ({"hit"}, asked)  # nothing asked of the provider again
    assert run("--no-cache") == ({"n/a"}, 2 * asked)
    pruned = _searx(tmp_path, http_server, "prune", "--keep-last", "0", "--store", store)
    assert pruned.returncode == 0 and "quotebound:cache" not in pruned.stdout
    cleared = _searx(tmp_path, http_server, "cache", "clear", "--store", store)
    assert cleared.returncode == 0 and "answer(s) removed" in cleared.stdout
    assert "page cache cleared: 0 page(s) removed" in cleared.stdout  # failures are not kept
    assert run()[0] == {"miss"}


def test_providers_lists_each_with_what_it_needs(tmp_path: Path) -> None:
    env = {
        **keyless_env(tmp_path),
        "QUOTEBOUND_SEARXNG_URL": "https://admin:s3cret-pw@searx.example:8443/",
        "BRAVE_API_KEY": "brave-SECRET-KEY",
    }
    done = subprocess.run(
        [QUOTEBOUND, "providers"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert "not ready: set TAVILY_API_KEY" in lines["tavily"]
    assert " ready " in lines["brave"] and " ready " in lines["searxng"]
    assert "https://searx.example:8443/search" in lines["searxng"]
    assert "s3cret-pw" not in done.stdout and "brave-SECRET-KEY" not in done.stdout
    assert set(lines) >= {"duckduckgo", "gdelt", "wikipedia", "brave-news", "searxng-news"}
