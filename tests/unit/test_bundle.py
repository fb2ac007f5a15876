"""The evidence bundle: built deterministically, read within bounds, and re-checked offline
(hashes, and every verified quote against its page with the graph's own verifier)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from quotebound.errors import BundleError
from quotebound.evidence.verification import verify_quote
from quotebound.records import EvidenceItem
from quotebound.report import bundle as bundle_module
from quotebound.report.audit import evidence_digest, sha256_text
from quotebound.report.bundle import (
    MANIFEST_FILE,
    build_bundle,
    manifest_sha256,
    page_path,
    read_bundle,
    sha256_bytes,
)
from quotebound.report.bundlecheck import check_bundle
from quotebound.storage.rawstore import RawPage, parsed_page

HTML = """<html><head><title>Harbor Bridge</title><script>var x = 1;</script></head><body>
<nav><a href="/">Home</a></nav><main><p>The Harbor Bridge raises its central span every day
at noon, and a full lift cycle takes about twelve minutes from the first warning bells.</p>
<p>Maintenance crews inspect the lift machinery every spring and replace worn cables.</p>
</main></body></html>
"""
TEXT = "The harbor ferries run every twenty minutes between the north pier and the market.\n"
PDF = ["The lighthouse was built in 1887 from local granite.", "Its beam reaches sixteen miles."]


def _page(url: str, **content: Any) -> RawPage:
    return RawPage(
        url=url,
        final_url=url,
        status=200,
        content_type="application/pdf" if "pages" in content else "text/html",
        encoding=None if "pages" in content else "utf-8",
        sha256="0" * 64,
        title="t",
        trust_tier=2,
        provider="corpus",
        fetched_at="2026-01-02T03:04:05Z",
        **content,
    )


PAGES = [
    _page("https://harbor.example.org/bridge.html", html=HTML),
    _page("https://harbor.example.org/ferries.txt", text=TEXT),
    _page("https://harbor.example.org/light.pdf", pages=PDF),
]
QUOTES = [
    (PAGES[0], "a full lift cycle takes about twelve minutes from the first warning bells."),
    (PAGES[1], "The harbor ferries run every twenty minutes between the north pier"),
    (PAGES[2], "The lighthouse was built in 1887 from local granite."),
    (PAGES[0], "Maintenance crews inspect the lift machinery every autumn"),  # a FAIL
]


def _evidence() -> list[EvidenceItem]:
    items = []
    for i, (page, quote) in enumerate(QUOTES):
        verdict = verify_quote(quote, parsed_page(page).text).to_dict()
        items.append(
            {
                "evidence_id": f"ev-{i}",
                "chunk_id": f"c{i}",
                "hash_version": 1,
                "source_id": page.source_id,
                "url": page.url,
                "quote": quote,
                "start": verdict["start"],
                "end": verdict["end"],
                "verification": verdict,
            }
        )
    assert [e["verification"]["status"] for e in items] == ["PASS", "PASS", "PASS", "FAIL"]
    return items  # type: ignore[return-value]


def _result(evidence: list[EvidenceItem]) -> dict[str, Any]:
    report = '# How long is a lift?\n\n* It takes twelve minutes - "twelve minutes"\n'
    return {
        "question": "How long is a lift?",
        "status": "answered",
        "report_markdown": report,
        "findings": [
            {"claim": "twelve", "quote": "about twelve minutes", "evidence_ids": ["ev-0"]}
        ],
        "audit": {
            "report_sha256": sha256_text(report),
            "evidence_sha256": evidence_digest(evidence),
        },
        "thread_id": "t-1",
    }


def _bundle(tmp_path: Path, **extra: bytes) -> Path:
    evidence = _evidence()
    data = build_bundle(_result(evidence), evidence, PAGES, thread_id="t-1", extra_files=extra)
    path = tmp_path / "bundle.zip"
    path.write_bytes(data)
    return path


def _rewrite(path: Path, change: dict[str, bytes | None], *, fix_hashes: bool = False) -> Path:
    """A copy of the bundle with entries replaced (None drops one), its manifest's hashes
    recomputed when ``fix_hashes``."""
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    for name, data in change.items():
        if data is None:
            files.pop(name)
        else:
            files[name] = data
    if fix_hashes:
        manifest = json.loads(files[MANIFEST_FILE])
        for entry in manifest["pages"]:
            entry["sha256"] = sha256_bytes(files[entry["file"]])
        manifest["sha256"] = manifest_sha256(manifest)
        files[MANIFEST_FILE] = json.dumps(manifest).encode()
    out = path.with_name("changed.zip")
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out


def test_a_bundle_holds_the_report_pages_evidence_and_manifest(tmp_path: Path) -> None:
    path = _bundle(tmp_path, **{"report.html": b"<p>report</p>"})
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        assert names == sorted(names)
        assert archive.read(page_path(PAGES[0])) == HTML.encode()
        assert archive.read(page_path(PAGES[1])) == TEXT.encode()
        assert json.loads(archive.read(page_path(PAGES[2]))) == PDF
        assert archive.read("report.md") == _result(_evidence())["report_markdown"].encode()
        assert archive.read("report.html") == b"<p>report</p>"
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in archive.infolist())
    assert [page_path(p).rsplit(".", 1)[1] for p in PAGES] == ["html", "txt", "json"]
    manifest = read_bundle(path).manifest
    assert manifest["sha256"] == manifest_sha256(manifest)
    assert set(manifest["files"]) == {"evidence.json", "report.html", "report.json", "report.md"}
    entry = manifest["pages"][[p["url"] for p in manifest["pages"]].index(PAGES[0].url)]
    assert entry["source_id"] == PAGES[0].source_id
    assert entry["content_type"] == "text/html" and entry["fetched_at"] == "2026-01-02T03:04:05Z"
    assert entry["sha256"] == sha256_bytes(HTML.encode())
    assert entry["body_sha256"] == "0" * 64


def test_the_same_run_gives_the_same_bytes() -> None:
    evidence = _evidence()
    first = build_bundle(_result(evidence), evidence, PAGES, thread_id="t-1")
    again = build_bundle(_result(evidence), evidence, list(reversed(PAGES)), thread_id="t-1")
    assert first == again


def test_an_untouched_bundle_verifies(tmp_path: Path) -> None:
    check = check_bundle(read_bundle(_bundle(tmp_path)))
    assert check.ok, check.problems
    # 3 PASS evidence quotes and 1 finding (the FAIL one is not re-checked); 3 pages; hashes:
    # 3 files, 3 pages, the manifest's own and the audit's two.
    assert (check.quotes, check.pages, check.hashes) == (4, 3, 9)
    assert check.summary() == "bundle verified: 4 quotes on 3 pages, 9 hashes match"


def test_one_changed_character_in_a_quote_names_the_page_and_the_quote(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    altered = HTML.replace("twelve", "twelwe").encode()
    check = check_bundle(read_bundle(_rewrite(path, {page_path(PAGES[0]): altered})))
    assert not check.ok
    where = f"{PAGES[0].url} ({page_path(PAGES[0])})"
    assert f"altered: page {where}: its sha256 does not match the manifest" in check.problems
    assert any(
        p.startswith("quote no longer verifies: " + json.dumps(QUOTES[0][1])) and where in p
        for p in check.problems
    ), check.problems
    assert any(p.startswith("finding's quote no longer verifies") for p in check.problems)
    assert check.summary() == f"bundle NOT verified: {len(check.problems)} problem(s)"


def test_a_changed_quote_fails_even_when_every_hash_was_recomputed(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    altered = HTML.replace("twelve", "twenty").encode()
    check = check_bundle(
        read_bundle(_rewrite(path, {page_path(PAGES[0]): altered}, fix_hashes=True))
    )
    assert [p.split(":")[0] for p in check.problems] == [
        "quote no longer verifies",
        "finding's quote no longer verifies",
    ]
    assert "number_mismatch" in check.problems[0] or "word_mismatch" in check.problems[0]


def test_a_change_outside_every_quote_is_a_hash_mismatch_only(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    altered = HTML.replace("Home", "Hone").encode()
    check = check_bundle(read_bundle(_rewrite(path, {page_path(PAGES[0]): altered})))
    where = f"{PAGES[0].url} ({page_path(PAGES[0])})"
    assert check.problems == (f"altered: page {where}: its sha256 does not match the manifest",)


@pytest.mark.parametrize(
    ("change", "expect"),
    [
        ({"report.md": b"# another report\n"}, "altered: report.md: its sha256"),
        ({"report.md": None}, "missing: report.md is not in the bundle"),
        ({"extra.txt": b"x"}, "unlisted file: extra.txt is not in the manifest"),
        ({"evidence.json": b"[1, 2]"}, "unreadable: evidence.json holds a record that is not"),
        ({"report.json": b"{"}, "unreadable: report.json is not JSON"),
        ({"report.json": b"{}"}, "unreadable: report.json holds no audit"),
        (
            {"report.json": b'{"findings": [{"quote": "q", "evidence_ids": [[1]]}], "audit": {}}'},
            "unreadable: report.json holds findings of the wrong shape",
        ),
    ],
)
def test_each_altered_missing_or_unlisted_file_is_named(
    tmp_path: Path, change: dict[str, bytes | None], expect: str
) -> None:
    check = check_bundle(read_bundle(_rewrite(_bundle(tmp_path), change)))
    assert any(p.startswith(expect) for p in check.problems), check.problems


def test_evidence_and_report_are_checked_against_the_audits_hashes(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    evidence = _evidence()
    evidence[1]["quote"] = "The harbor ferries run every twenty minutes"
    changed = {"evidence.json": json.dumps(evidence).encode(), "report.md": b"other\n"}
    problems = check_bundle(read_bundle(_rewrite(path, changed))).problems
    assert "altered: evidence.json does not match the audit's evidence_sha256" in problems
    assert "altered: report.md does not match the audit's report_sha256" in problems


def test_a_missing_page_names_it_and_its_quotes(tmp_path: Path) -> None:
    changed = _rewrite(_bundle(tmp_path), {page_path(PAGES[1]): None})
    problems = check_bundle(read_bundle(changed)).problems
    where = f"{PAGES[1].url} ({page_path(PAGES[1])})"
    assert f"missing: page {where} is not in the bundle" in problems
    assert any("its file is missing or unreadable" in p and where in p for p in problems)


def test_an_altered_manifest_is_named(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read(MANIFEST_FILE))
    manifest["question"] = "Something else?"
    changed = _rewrite(path, {MANIFEST_FILE: json.dumps(manifest).encode()})
    problems = check_bundle(read_bundle(changed)).problems
    assert problems == ("altered manifest: its sha256 does not match its contents",)


def test_a_hostile_url_cannot_forge_an_output_line(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read(MANIFEST_FILE))
    manifest["pages"][0]["url"] = "x\nbundle verified: 9 quotes"
    changed = _rewrite(path, {MANIFEST_FILE: json.dumps(manifest).encode()})
    problems = check_bundle(read_bundle(changed)).problems
    assert problems and all("\n" not in p for p in problems)


def test_bad_extra_files_are_refused() -> None:
    evidence = _evidence()
    for name in ("manifest.json", "report.md", "pages/x.html", "../x", "/abs", "a\\b", "c:x"):
        with pytest.raises(BundleError, match="reserved or unsafe"):
            build_bundle(_result(evidence), evidence, PAGES, thread_id="t", extra_files={name: b""})


def test_a_bundle_without_a_page_its_evidence_cites_is_not_built() -> None:
    evidence = _evidence()
    with pytest.raises(BundleError, match="no longer stores page"):
        build_bundle(_result(evidence), evidence, PAGES[1:], thread_id="t")


def _zip(tmp_path: Path, files: dict[str, bytes], name: str = "x.zip") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry, data in files.items():
            archive.writestr(entry, data)
    return path


def _manifest(**changes: Any) -> bytes:
    manifest = {"format": "quotebound-bundle", "version": 1, "files": {}, "pages": []}
    manifest["sha256"] = manifest_sha256(manifest)
    return json.dumps({**manifest, **changes}).encode()


@pytest.mark.parametrize(
    ("files", "expect"),
    [
        ({"report.md": b"x"}, "it has no manifest.json"),
        ({"manifest.json": b"not json"}, "manifest.json is not JSON"),
        ({"manifest.json": b"[]"}, "not a quotebound bundle manifest"),
        ({"manifest.json": _manifest(version=9)}, "has version 9"),
        ({"manifest.json": _manifest(pages=[{"file": "p"}])}, "is malformed"),
        ({"manifest.json": _manifest(files={"a": 1})}, "is malformed"),
        ({"manifest.json": _manifest(), "../evil.txt": b"x"}, "unsafe name: '../evil.txt'"),
        ({"manifest.json": _manifest(), "/etc/passwd": b"x"}, "unsafe name: '/etc/passwd'"),
        ({"manifest.json": _manifest(), "a\nb": b"x"}, "unsafe name"),
    ],
)
def test_a_malformed_bundle_is_one_clear_error(
    tmp_path: Path, files: dict[str, bytes], expect: str
) -> None:
    with pytest.raises(BundleError, match=re.escape(expect)):
        read_bundle(_zip(tmp_path, files))


def test_what_is_not_a_zip_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "text.zip").write_text("hello")
    with pytest.raises(BundleError, match="is not a readable zip"):
        read_bundle(tmp_path / "text.zip")
    with pytest.raises(BundleError, match="no such file"):
        read_bundle(tmp_path / "missing.zip")
    with pytest.raises(BundleError, match="a directory"):
        read_bundle(tmp_path)
    data = _bundle(tmp_path).read_bytes()
    (tmp_path / "cut.zip").write_bytes(data[: len(data) // 2])
    with pytest.raises(BundleError, match="is not a readable zip"):
        read_bundle(tmp_path / "cut.zip")


def test_a_repeated_entry_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, pytest.warns(UserWarning):
        archive.writestr("manifest.json", _manifest())
        archive.writestr("manifest.json", _manifest())
    (tmp_path / "twice.zip").write_bytes(buffer.getvalue())
    with pytest.raises(BundleError, match="twice"):
        read_bundle(tmp_path / "twice.zip")


def test_reads_are_bounded_whatever_the_zip_claims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle_module, "MAX_ENTRY_BYTES", 1000)
    bomb = _zip(tmp_path, {"manifest.json": _manifest(), "zeros": b"\0" * 100_000})
    with pytest.raises(BundleError, match="larger than a bundle may hold"):
        read_bundle(bomb)
    # A header that understates the size: zipfile stops there, and the CRC check refuses it.
    data = bytearray(bomb.read_bytes())
    with zipfile.ZipFile(bomb) as archive:
        info = archive.getinfo("zeros")
    for offset in (info.header_offset + 22, _central_offset(data, b"zeros") + 24):
        data[offset : offset + 4] = (10).to_bytes(4, "little")  # "10 bytes uncompressed"
    (tmp_path / "liar.zip").write_bytes(bytes(data))
    with pytest.raises(BundleError, match="not a readable zip: Bad CRC-32"):
        read_bundle(tmp_path / "liar.zip")
    monkeypatch.setattr(bundle_module, "MAX_TOTAL_BYTES", 1500)
    two = _zip(tmp_path, {"manifest.json": _manifest(), "a": b"a" * 800, "b": b"b" * 800}, "2.zip")
    with pytest.raises(BundleError, match="'b' makes it larger than a bundle may hold"):
        read_bundle(two)
    monkeypatch.setattr(bundle_module, "MAX_ENTRIES", 2)
    many = _zip(tmp_path, {"manifest.json": _manifest(), "a": b"", "b": b""}, "many.zip")
    with pytest.raises(BundleError, match="3 entries, more than 2"):
        read_bundle(many)


def _central_offset(data: bytearray, name: bytes) -> int:
    """Where the central directory record of the entry ``name`` starts."""
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = int.from_bytes(data[at + 28 : at + 30], "little")
        if bytes(data[at + 46 : at + 46 + length]) == name:
            return at
        at = data.find(b"PK\x01\x02", at + 4)
    raise AssertionError(name)
