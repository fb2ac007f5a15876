"""The embedded corpus: pydoc pages of the standard library, reproducible and citable."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest

from quotebound.acquisition.embedded import embedded_corpus, embedded_dir
from quotebound.tiers import TrustTier

pytestmark = pytest.mark.integration

BUILD = """
import logging
import sys
from pathlib import Path
from quotebound.acquisition.embedded import embedded_corpus
logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
print(embedded_corpus(cache_dir=Path(sys.argv[1])).root)
"""
RENDERING = "quotebound.acquisition.embedded: rendering the embedded corpus"
ADDRESS = re.compile(r"(?:\s|&nbsp;)at(?:\s|&nbsp;)0x[0-9A-Fa-f]{4,}")


def _build(cache: Path, *, seed: int = 0, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", BUILD, str(cache)],
        env={**os.environ, "PYTHONHASHSEED": str(seed)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def build_in_subprocesses(*caches: Path) -> tuple[list[Path], int]:
    """Build the corpus in one process per cache dir, concurrently, each with its own hash seed;
    returns each process's corpus root and how many renderings they ran in all."""
    procs = [_build(cache, seed=seed) for seed, cache in enumerate(caches, start=1)]
    roots, renderings = [], 0
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        roots.append(Path(out.strip()))
        renderings += err.count(RENDERING)
    return roots, renderings


def page_hashes(root: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.iterdir())
        if not p.name.startswith(".")
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("embedded")
    (first, second), _ = build_in_subprocesses(base / "one", base / "two")
    return first, second


def test_two_processes_render_byte_identical_pages(built: tuple[Path, Path]) -> None:
    first, second = built
    assert first != second
    hashes = page_hashes(first)
    assert len(hashes) > 100 and "copy.html" in hashes and "manifest.json" in hashes
    assert hashes == page_hashes(second)


def test_pages_hold_no_addresses_or_machine_paths(built: tuple[Path, Path]) -> None:
    root = built[0]
    machine = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sysconfig.get_path("stdlib"),
        str(Path.home()),
        str(root),
        str(Path(__file__).resolve().parents[2]),
    }
    for page in sorted(root.glob("*.html")):
        html = page.read_text("utf-8")
        assert not ADDRESS.search(html), page.name
        assert 'href="file:' not in html, page.name
        for path in machine:
            assert path not in html, (page.name, path)


def test_pages_cite_cpython_source_at_this_version(built: tuple[Path, Path]) -> None:
    manifest = json.loads((built[0] / "manifest.json").read_text())
    tag = f"https://github.com/python/cpython/blob/v{platform.python_version()}/"
    assert manifest["json.html"] == tag + "Lib/json/__init__.py"
    assert manifest["copy.html"] == tag + "Lib/copy.py"
    assert all(url.startswith(tag) for url in manifest.values())
    assert len(set(manifest.values())) == len(manifest)  # one page per source: no duplicates
    copy_html = (built[0] / "copy.html").read_text()
    assert f'href="{tag}Lib/copy.py"' in copy_html


def test_machine_specific_values_are_not_rendered(built: tuple[Path, Path]) -> None:
    sqlite_page = (built[0] / "sqlite3.html").read_text()
    import sqlite3

    assert sqlite3.sqlite_version not in sqlite_page
    assert "sqlite_version</strong> = &lt;str&gt;" in sqlite_page


async def test_embedded_corpus_searches_and_reads_stdlib_docs(built: tuple[Path, Path]) -> None:
    corpus = embedded_corpus(cache_dir=built[0].parent)
    assert corpus.root == built[0]
    response = await corpus.search("shallow copy of an object", max_results=5)
    assert response.run.provider == "embedded" and response.run.reason is None
    # Passages rank pages: copy's page and collections' (deque.copy, ChainMap.copy ...) lead.
    documents = [c.document for c in response.candidates]
    assert "copy.html" in documents[:2]
    first = response.candidates[documents.index("copy.html")]
    assert first.provider == "embedded"
    # Cited as the rendered page a reader can open; the title names the upstream source.
    assert first.url == (built[0] / "copy.html").as_uri()
    page = await corpus.read("copy.html")
    assert page.url == first.url and page.provider == "embedded"
    tag = f"https://github.com/python/cpython/blob/v{platform.python_version()}/"
    assert page.title.endswith(f"(pydoc rendering of {tag}Lib/copy.py)")
    assert page.trust_tier == TrustTier.PRIMARY_SOURCE
    assert page.html is not None and "shallow" in page.html
    assert corpus.document_for_url(first.url) == "copy.html"


def test_a_stale_build_is_replaced(tmp_path: Path, built: tuple[Path, Path]) -> None:
    target = embedded_dir(tmp_path)
    target.mkdir(parents=True)
    (target / "leftover.html").write_text("<p>old render</p>")
    (target / ".complete").write_text('{"render": 0}')
    corpus = embedded_corpus(cache_dir=tmp_path)
    assert not (target / "leftover.html").exists()
    assert page_hashes(corpus.root) == page_hashes(built[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temp dirs left


def test_processes_starting_together_render_the_corpus_once(tmp_path: Path) -> None:
    roots, renderings = build_in_subprocesses(*[tmp_path] * 4)
    assert renderings == 1
    assert set(roots) == {embedded_dir(tmp_path)}
    assert (roots[0] / ".complete").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [roots[0].name]


def test_a_killed_build_leaves_nothing_behind_after_the_next(
    tmp_path: Path, built: tuple[Path, Path]
) -> None:
    killed = _build(tmp_path, start_new_session=True)  # its own group: the renderer dies too
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".embedded-build-*")) and killed.poll() is None:
        assert time.monotonic() < deadline, "the build never started"
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=60)
    assert list(tmp_path.glob(".embedded-build-*"))  # what a killed build leaves
    corpus = embedded_corpus(cache_dir=tmp_path)
    assert page_hashes(corpus.root) == page_hashes(built[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == [corpus.root.name]
