"""``quotebound export`` and ``verify-bundle`` on a real run: a local corpus, the SQLite store,
the console script as a subprocess (no keys, no network)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser import Chromium, needs_chromium
from keyless import keyless_env

from quotebound.interface.cli import main
from quotebound.interface.exitcodes import EXIT_ALTERED, EXIT_USAGE

pytestmark = pytest.mark.integration

QUOTEBOUND = str(Path(sys.executable).with_name("quotebound"))
QUESTION = "How long does a Harbor Bridge lift cycle take?"
BASE_URL = "https://harbor.example.org/docs/"
BRIDGE = """<!doctype html><html><head><title>Harbor Bridge operations</title></head><body>
<nav><a href="/">Home</a> | <a href="/ferries">Ferries</a></nav>
<main><h1>Harbor Bridge operations</h1>
<p>The Harbor Bridge raises its central span for ships every day at noon, and a full lift
cycle takes about twelve minutes from the first warning bells until the traffic lanes reopen.</p>
<p>During a lift cycle the bridge operators stop road traffic with barriers, sound the warning
bells twice, and raise the span slowly while a harbor pilot confirms that the channel is clear.</p>
</main></body></html>
"""
FERRIES = """# Harbor ferries

When the Harbor Bridge lifts its span for a lift cycle, ferry captains hold their boats at the
pier until the harbor pilot signals that the shipping channel is clear again for small vessels.
"""


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [QUOTEBOUND, *args],
        env=keyless_env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


@dataclass(frozen=True)
class Exported:
    home: Path
    store: str
    bundle: Path
    output: dict


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """One research run on a local corpus, exported to a bundle."""
    home = tmp_path_factory.mktemp("home")
    corpus = home / "corpus"
    corpus.mkdir()
    (corpus / "bridge.html").write_text(BRIDGE)
    (corpus / "ferries.md").write_text(FERRIES)
    store = f"sqlite:{home / 'runs.sqlite'}"
    done = _run(home, "research", QUESTION, "--corpus", str(corpus), "--base-url", BASE_URL,
                "--store", store, "--thread-id", "harbor-b", "--format", "json", "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["findings"], output
    bundle = home / "out" / "bundle.zip"
    export = _run(home, "export", "harbor-b", "--store", store, "-o", str(bundle))
    assert export.returncode == 0, export.stderr
    assert export.stdout.startswith("exported thread harbor-b: 2 pages, "), export.stdout
    return Exported(home, store, bundle, output)


def _page_file(bundle: Path, url: str) -> str:
    with zipfile.ZipFile(bundle) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    return next(p["file"] for p in manifest["pages"] if p["url"] == url)


def _rewrite(bundle: Path, name: str, old: bytes, new: bytes, out: Path) -> Path:
    """A copy of ``bundle`` whose entry ``name`` has ``old`` replaced by ``new`` (once)."""
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == name:
                assert data.count(old) == 1, (name, old)
                data = data.replace(old, new)
            target.writestr(info, data)
    return out


def test_an_exported_run_verifies_offline(exported: Exported) -> None:
    done = _run(exported.home, "verify-bundle", str(exported.bundle))
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.splitlines() == [done.stdout.strip()]
    assert done.stdout.startswith("bundle verified: "), done.stdout
    assert " quotes on 2 pages, " in done.stdout and done.stdout.endswith(" hashes match\n")
    shown = _run(exported.home, "show", "harbor-b", "--store", exported.store, "--format", "json")
    with zipfile.ZipFile(exported.bundle) as archive:
        assert json.loads(archive.read("report.json")) == json.loads(shown.stdout)
        assert archive.read("report.md").decode() == exported.output["report_markdown"]
        evidence = json.loads(archive.read("evidence.json"))
        assert {e["evidence_id"] for e in evidence} >= {
            i for f in exported.output["findings"] for i in f["evidence_ids"]
        }
        names = archive.namelist()
    assert names == sorted(names) and "manifest.json" in names


def test_export_twice_gives_the_same_bytes(exported: Exported, tmp_path: Path) -> None:
    again = tmp_path / "again.zip"
    done = _run(exported.home, "export", "harbor-b", "--store", exported.store, "--out", str(again))
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == exported.bundle.read_bytes()


def test_one_character_changed_inside_a_quote_names_the_page_and_the_quote(
    exported: Exported, tmp_path: Path
) -> None:
    finding = next(f for f in exported.output["findings"] if "twelve minutes" in f["quote"])
    name = _page_file(exported.bundle, finding["url"])
    changed = _rewrite(exported.bundle, name, b"twelve", b"twelvf", tmp_path / "changed.zip")
    done = _run(exported.home, "verify-bundle", str(changed))
    assert done.returncode == EXIT_ALTERED, (done.stdout, done.stderr)
    lines = done.stdout.splitlines()
    where = f"{finding['url']} ({name})"
    assert f"altered: page {where}: its sha256 does not match the manifest" in lines
    quoted = json.dumps(finding["quote"], ensure_ascii=False)
    assert any(
        line.startswith(f"finding's quote no longer verifies: {quoted} on {where}")
        for line in lines
    ), lines
    assert lines[-1].startswith("bundle NOT verified: ")


def test_a_change_outside_every_quote_is_a_named_hash_mismatch(
    exported: Exported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = BASE_URL + "bridge.html"
    name = _page_file(exported.bundle, url)
    changed = _rewrite(exported.bundle, name, b">Home<", b">Hone<", tmp_path / "nav.zip")
    assert main(["verify-bundle", str(changed)]) == EXIT_ALTERED
    # The manifest kept the page's old hash, and no quote lies in the navigation.
    assert capsys.readouterr().out.splitlines() == [
        f"altered: page {url} ({name}): its sha256 does not match the manifest",
        "bundle NOT verified: 1 problem(s)",
    ]


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse errors exit from inside parse_args
        code = exit_.code  # type: ignore[assignment]
    captured = capsys.readouterr()
    assert code == EXIT_USAGE, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


def test_a_file_that_is_not_a_bundle_is_one_line_and_exit_2(
    exported: Exported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.zip").write_text("not a zip")
    assert "is not a readable zip" in _one_line_error(
        capsys, ["verify-bundle", str(tmp_path / "notes.zip")]
    )
    assert "no such file" in _one_line_error(capsys, ["verify-bundle", str(tmp_path / "none")])
    with zipfile.ZipFile(tmp_path / "bare.zip", "w") as archive:
        archive.writestr("report.md", "# a report\n")
    assert "it has no manifest.json" in _one_line_error(
        capsys, ["verify-bundle", str(tmp_path / "bare.zip")]
    )
    unknown = ["export", "nobody", "--store", exported.store, "-o", str(tmp_path / "b.zip")]
    assert "no finished run on thread 'nobody'" in _one_line_error(capsys, unknown)
    assert not (tmp_path / "b.zip").exists()
    assert "run.1" in _one_line_error(capsys, ["export", "run.1", "-o", "b.zip"])
    assert "--out" in _one_line_error(capsys, ["export", "harbor-b"])
    into_a_file = [
        "export",
        "harbor-b",
        "--store",
        exported.store,
        "-o",
        str(exported.bundle / "x"),
    ]
    assert "cannot write" in _one_line_error(capsys, into_a_file)


def test_the_bundles_html_report_links_each_quote_to_its_marked_place_in_a_stored_page(
    exported: Exported,
) -> None:
    """Inside the bundle the report's quote links open a view of the stored page (its verified
    text, escaped, no scripts) at an anchor where the quote starts, the quote marked."""
    quotes = [" ".join(f["quote"].split()) for f in exported.output["findings"]]
    with zipfile.ZipFile(exported.bundle) as z:
        names = set(z.namelist())
        links = re.findall(
            r'href="(views/[0-9a-f]{16}\.html)#(q\d+-\d+)"', z.read("report.html").decode()
        )
        assert len(links) == len(quotes), links
        for (path, anchor), quote in zip(links, quotes, strict=True):
            assert path in names
            view = z.read(path).decode()
            assert "<script" not in view.lower() and "Content-Security-Policy" in view
            after = view.split(f'<span id="{anchor}"></span>', 1)[1]
            assert after.startswith("<mark>"), after[:80]
            text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", after)).split())
            assert text.startswith(quote), (text[:120], quote)
    assert main(["verify-bundle", str(exported.bundle)]) == 0


@needs_chromium
async def test_a_quote_link_in_the_bundle_opens_its_view_scrolled_to_the_marked_quote(
    exported: Exported, tmp_path: Path
) -> None:
    """Unpacked, the bundle is a small site: opening a quote's link from its HTML report in
    Chromium shows the stored page's view with the quote's mark in sight."""
    with zipfile.ZipFile(exported.bundle) as z:
        z.extractall(tmp_path)
    report = (tmp_path / "report.html").read_text()
    path, anchor = re.findall(r'href="(views/[0-9a-f]{16}\.html)#(q\d+-\d+)"', report)[-1]
    target = f"document.getElementById('{anchor}').nextElementSibling"
    in_view = (
        f"({target}.tagName === 'MARK' && {target}.getBoundingClientRect().top >= 0"
        f" && {target}.getBoundingClientRect().bottom <= window.innerHeight)"
    )
    async with Chromium() as browser:
        await browser.open(f"{(tmp_path / path).as_uri()}#{anchor}")
        assert await browser.until(in_view)
