"""Re-checking an evidence bundle offline: every hash still matches, and every quote the run
verified still verifies against the page in the bundle.

The quotes go through the graph's own verifier
(:func:`quotebound.evidence.verification.verify_quote`) on the text the graph verified against
(:func:`quotebound.storage.rawstore.parsed_page` of the stored page, rebuilt from the manifest
and the page's file). No database, no network.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from quotebound.errors import StoreError
from quotebound.evidence.verification import verify_quote
from quotebound.records import EvidenceItem
from quotebound.report.audit import evidence_digest
from quotebound.report.bundle import (
    EVIDENCE_FILE,
    REPORT_JSON_FILE,
    REPORT_MD_FILE,
    Bundle,
    manifest_sha256,
    sha256_bytes,
)
from quotebound.storage.rawstore import RawPage, parsed_page

__all__ = ["BundleCheck", "check_bundle"]


@dataclass(frozen=True)
class BundleCheck:
    """What re-checking a bundle found."""

    problems: tuple[str, ...]
    """One line per altered, missing or unlisted file and per quote that no longer verifies."""
    pages: int
    """Pages the bundle holds."""
    quotes: int
    """Quotes checked: the evidence the run verified, and each finding's quote."""
    hashes: int
    """Hashes that matched: files, pages, the manifest's own and the audit's two."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.problems:
            return f"bundle NOT verified: {len(self.problems)} problem(s)"
        return (
            f"bundle verified: {self.quotes} quotes on {self.pages} pages, "
            f"{self.hashes} hashes match"
        )


@dataclass(frozen=True)
class _Page:
    url: str
    file: str
    text: str | None
    """The text quotes verify against; None when the file could not be read as a page."""

    def where(self) -> str:
        return f"{_printable(self.url)} ({_printable(self.file)})"


def _printable(text: str) -> str:
    """``text`` as is, or JSON-escaped when it holds a line break or another control character
    (so a hostile manifest cannot forge lines of the output)."""
    return text if text.isprintable() else json.dumps(text)


def check_bundle(bundle: Bundle) -> BundleCheck:
    """Re-check ``bundle``: hashes first, then each quote against its page."""
    problems: list[str] = []
    hashes = _check_hashes(bundle, problems)
    pages = _pages(bundle, problems)
    report = _json_file(bundle, REPORT_JSON_FILE, dict, problems)
    evidence = _evidence(bundle, problems)
    if isinstance(report, dict):
        audit = report.get("audit")
        if isinstance(audit, dict):
            hashes += _check_audit(bundle, audit, evidence, problems)
        else:
            problems.append(f"unreadable: {REPORT_JSON_FILE} holds no audit")
    quotes = 0
    for item in evidence or []:
        if item["verification"]["status"] == "PASS":
            quotes += 1
            _check_quote(item["quote"], [item["source_id"]], pages, "quote", problems)
    by_id = {e["evidence_id"]: e["source_id"] for e in evidence or []}
    for finding in _findings(report, problems):
        quotes += 1
        cited = [by_id[i] for i in finding["evidence_ids"] if i in by_id]
        _check_quote(finding["quote"], cited, pages, "finding's quote", problems)
    return BundleCheck(tuple(problems), len(pages), quotes, hashes)


def _check_hashes(bundle: Bundle, problems: list[str]) -> int:
    """Each file and page against the manifest, and the manifest against its own hash."""
    matched = 0
    listed: set[str] = set()
    for name, digest in sorted(bundle.manifest["files"].items()):
        listed.add(name)
        matched += _check_file(bundle, name, digest, _printable(name), problems)
    for entry in bundle.manifest["pages"]:
        listed.add(entry["file"])
        where = f"page {_Page(entry['url'], entry['file'], None).where()}"
        matched += _check_file(bundle, entry["file"], entry["sha256"], where, problems)
    for name in sorted(set(bundle.entries) - listed):
        problems.append(f"unlisted file: {_printable(name)} is not in the manifest")
    if manifest_sha256(bundle.manifest) == bundle.manifest["sha256"]:
        matched += 1
    else:
        problems.append("altered manifest: its sha256 does not match its contents")
    return matched


def _check_file(bundle: Bundle, name: str, digest: str, what: str, problems: list[str]) -> int:
    data = bundle.entries.get(name)
    if data is None:
        problems.append(f"missing: {what} is not in the bundle")
        return 0
    if sha256_bytes(data) != digest:
        problems.append(f"altered: {what}: its sha256 does not match the manifest")
        return 0
    return 1


def _pages(bundle: Bundle, problems: list[str]) -> dict[str, _Page]:
    """Each page of the manifest by source id, with the text quotes verify against."""
    pages: dict[str, _Page] = {}
    for entry in bundle.manifest["pages"]:
        data = bundle.entries.get(entry["file"])
        page = _Page(entry["url"], entry["file"], None)
        if data is not None:
            try:
                raw = _raw_page(entry, data)
            except (UnicodeDecodeError, json.JSONDecodeError, StoreError, TypeError) as exc:
                problems.append(f"unreadable page: {page.where()}: {exc}")
            else:
                if raw.source_id != entry["source_id"]:
                    problems.append(
                        f"altered page: {page.where()}: source id {entry['source_id']} "
                        "is not that of its URL"
                    )
                page = _Page(entry["url"], entry["file"], parsed_page(raw).text)
        pages[entry["source_id"]] = page
    return pages


def _raw_page(entry: Mapping[str, Any], data: bytes) -> RawPage:
    """The stored page, rebuilt from its manifest entry and its file's bytes."""
    field = entry["content"]
    content: Any = data.decode("utf-8")
    if field == "pages":
        content = json.loads(content)
        if not isinstance(content, list) or not all(isinstance(p, str) for p in content):
            raise TypeError("a PDF's file must hold a JSON list of page texts")
    value = {**entry, "sha256": entry.get("body_sha256"), field: content}
    return RawPage.from_value(value)


def _json_file(bundle: Bundle, name: str, kind: type, problems: list[str]) -> Any:
    """A JSON file of the bundle, or None (and a problem) when it is absent or not ``kind``."""
    data = bundle.entries.get(name)
    if data is None:
        return None  # a missing listed file is already a problem; an unlisted one is one too
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"unreadable: {name} is not JSON: {exc}")
        return None
    if not isinstance(value, kind):
        problems.append(f"unreadable: {name} does not hold a JSON {kind.__name__}")
        return None
    return value


def _evidence(bundle: Bundle, problems: list[str]) -> list[EvidenceItem] | None:
    records = _json_file(bundle, EVIDENCE_FILE, list, problems)
    if records is None:
        return None
    if not all(_is_evidence(r) for r in records):
        problems.append(f"unreadable: {EVIDENCE_FILE} holds a record that is not evidence")
        return None
    return cast(list[EvidenceItem], records)


def _is_evidence(record: object) -> bool:
    return (
        isinstance(record, dict)
        and all(isinstance(record.get(k), str) for k in ("evidence_id", "source_id", "quote"))
        and all(isinstance(record.get(k), int) for k in ("start", "end"))
        and "chunk_id" in record
        and isinstance(record.get("verification"), dict)
        and record["verification"].get("status") in ("PASS", "FAIL")
    )


def _findings(report: Any, problems: list[str]) -> list[dict[str, Any]]:
    findings = report.get("findings") if isinstance(report, dict) else None
    if findings is None:
        return []
    if not isinstance(findings, list) or not all(
        isinstance(f, dict)
        and isinstance(f.get("quote"), str)
        and isinstance(f.get("evidence_ids"), list)
        and all(isinstance(i, str) for i in f["evidence_ids"])
        for f in findings
    ):
        problems.append(f"unreadable: {REPORT_JSON_FILE} holds findings of the wrong shape")
        return []
    return findings


def _check_audit(
    bundle: Bundle,
    audit: Mapping[str, Any],
    evidence: list[EvidenceItem] | None,
    problems: list[str],
) -> int:
    """The audit's hashes of the report and of the evidence set, recomputed."""
    matched = 0
    report = bundle.entries.get(REPORT_MD_FILE)
    if report is not None:
        if sha256_bytes(report) == audit.get("report_sha256"):
            matched += 1
        else:
            problems.append(f"altered: {REPORT_MD_FILE} does not match the audit's report_sha256")
    if evidence is not None:
        if evidence_digest(evidence) == audit.get("evidence_sha256"):
            matched += 1
        else:
            problems.append(f"altered: {EVIDENCE_FILE} does not match the audit's evidence_sha256")
    return matched


def _check_quote(
    quote: str, cited: list[str], pages: Mapping[str, _Page], what: str, problems: list[str]
) -> None:
    """A problem unless ``quote`` verifies against one of the ``cited`` pages."""
    shown = json.dumps(quote, ensure_ascii=False)
    known = [pages[sid] for sid in dict.fromkeys(cited) if sid in pages]
    if not known:
        problems.append(f"{what} cites no page in the bundle: {shown}")
        return
    reasons = []
    for page in known:
        if page.text is None:
            reasons.append(f"{page.where()}: its file is missing or unreadable")
            continue
        verdict = verify_quote(quote, page.text)
        if verdict.status == "PASS":
            return
        reasons.append(f"{page.where()}: {verdict.reason}")
    problems.append(f"{what} no longer verifies: {shown} on {'; '.join(reasons)}")
