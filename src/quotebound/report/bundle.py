"""The evidence bundle: one zip that holds a finished run's report, its stored pages, its
evidence and hashes over all of it, so anyone can re-check the run offline.

Layout (every JSON file with sorted keys; every entry with a fixed timestamp, in name order, so
the same run always gives the same bytes):

- ``report.md``: the Markdown report exactly as the run wrote it (the audit's ``report_sha256``
  is the sha256 of this file); ``report.json``: the run's output as ``show --format json``
  gives it, with the audit.
- ``evidence.json``: every evidence record of the run (quote, source id, offsets and its
  verification, PASS or FAIL), the set the audit's ``evidence_sha256`` covers.
- ``pages/<source_id>.html`` (``.txt``, or ``.json`` for a PDF's list of page texts): each page
  stored on the thread, its content exactly as stored, UTF-8.
- extra report files a caller adds (e.g. ``report.html``).
- ``manifest.json``: per page its URL, source id, content type, fetched time, the rest of its
  stored metadata and the sha256 of its file; the sha256 of every other file; and ``sha256``,
  the hash of the manifest itself without that key, so one hash covers everything.

Reading is bounded (entry count, and size per entry and in all as the zip declares them:
:mod:`zipfile` reads no further than an entry's declared size and then checks its CRC, so a
header that understates a size fails) and never writes to disk; an entry whose name is not a
plain relative path is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quotebound.errors import BundleError
from quotebound.records import EvidenceItem
from quotebound.storage.rawstore import RawPage

__all__ = [
    "BUNDLE_FORMAT",
    "BUNDLE_VERSION",
    "EVIDENCE_FILE",
    "MANIFEST_FILE",
    "MAX_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MAX_TOTAL_BYTES",
    "REPORT_JSON_FILE",
    "REPORT_MD_FILE",
    "Bundle",
    "build_bundle",
    "bundle_json",
    "manifest_sha256",
    "page_content",
    "page_path",
    "read_bundle",
    "sha256_bytes",
]

BUNDLE_FORMAT = "quotebound-bundle"
BUNDLE_VERSION = 1
MANIFEST_FILE = "manifest.json"
REPORT_MD_FILE = "report.md"
REPORT_JSON_FILE = "report.json"
EVIDENCE_FILE = "evidence.json"
_PAGES_DIR = "pages"
_RESERVED = frozenset({MANIFEST_FILE, REPORT_MD_FILE, REPORT_JSON_FILE, EVIDENCE_FILE})

MAX_ENTRIES = 20_000
"""The most entries a bundle may hold."""
MAX_ENTRY_BYTES = 256 * 1024 * 1024
"""The most bytes one entry may hold uncompressed."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""The most bytes all entries together may hold uncompressed."""

_CONTENT_SUFFIX = {"html": ".html", "text": ".txt", "pages": ".json"}
"""Which stored content field a page has, and the suffix of its file in the bundle."""
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bundle_json(value: Any) -> bytes:
    """A bundle's JSON file: sorted keys, two-space indent, UTF-8, a final newline."""
    return (json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2) + "\n").encode()


def manifest_sha256(manifest: Mapping[str, Any]) -> str:
    """The hash that covers the whole bundle: sha256 of the manifest without its ``sha256``
    key, as compact JSON with sorted keys (the manifest holds the hash of every other file)."""
    body = {k: v for k, v in manifest.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return sha256_bytes(text.encode())


def _content_field(page: RawPage) -> str:
    return "html" if page.html is not None else "text" if page.text is not None else "pages"


def page_path(page: RawPage) -> str:
    """Where ``page``'s stored content lies in a bundle, e.g. ``pages/<source_id>.html``."""
    return f"{_PAGES_DIR}/{page.source_id}{_CONTENT_SUFFIX[_content_field(page)]}"


def page_content(page: RawPage) -> bytes:
    """A page's stored content as its bundle file holds it: the markup or text, or a PDF's
    list of page texts as JSON."""
    if page.pages is not None:
        return bundle_json(page.pages)
    return (page.html if page.html is not None else page.text or "").encode()


def _page_entry(page: RawPage, content: bytes) -> dict[str, Any]:
    field = _content_field(page)
    metadata = {k: v for k, v in page.to_value().items() if k not in (field, "sha256")}
    return {
        **metadata,
        "source_id": page.source_id,
        "body_sha256": page.sha256,
        "content": field,
        "file": page_path(page),
        "sha256": sha256_bytes(content),
    }


def _safe_name(name: str) -> bool:
    """A plain relative path: no root, drive, backslash, control character, empty part, ``.``
    or ``..``."""
    return (
        name.isprintable()
        and "\\" not in name
        and ":" not in name
        and all(part not in ("", ".", "..") for part in name.split("/"))
    )


def build_bundle(
    result: Mapping[str, Any],
    evidence: Sequence[EvidenceItem],
    pages: Sequence[RawPage],
    *,
    thread_id: str,
    extra_files: Mapping[str, bytes] | None = None,
) -> bytes:
    """The bundle of a finished run, as zip bytes.

    ``result`` is the run's output (``load_run``), ``evidence`` its evidence records and
    ``pages`` the pages stored on its thread, which must include every page the evidence cites.
    ``extra_files`` adds report files by name (e.g. ``{"report.html": ...}``); a name that is
    not a plain relative path, or that a bundle already uses, is a :class:`BundleError`.
    """
    stored = {p.source_id for p in pages}
    missing = sorted({e["source_id"] for e in evidence} - stored)
    if missing:
        raise BundleError(
            f"thread {thread_id!r} no longer stores page {missing[0]}, which its evidence cites"
        )
    files: dict[str, bytes] = {
        REPORT_MD_FILE: str(result.get("report_markdown") or "").encode(),
        REPORT_JSON_FILE: bundle_json(dict(result)),
        EVIDENCE_FILE: bundle_json(list(evidence)),
    }
    for name, data in (extra_files or {}).items():
        if not _safe_name(name) or name in _RESERVED or name.startswith(f"{_PAGES_DIR}/"):
            raise BundleError(f"cannot add {name!r} to a bundle: a reserved or unsafe name")
        files[name] = bytes(data)
    entries: list[dict[str, Any]] = []
    for page in sorted(pages, key=lambda p: p.source_id):
        content = page_content(page)
        files[page_path(page)] = content
        entries.append(_page_entry(page, content))
    manifest: dict[str, Any] = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "thread_id": thread_id,
        "question": result.get("question"),
        "status": result.get("status"),
        "files": {
            name: sha256_bytes(data)
            for name, data in sorted(files.items())
            if not name.startswith(f"{_PAGES_DIR}/")
        },
        "pages": entries,
    }
    manifest["sha256"] = manifest_sha256(manifest)
    files[MANIFEST_FILE] = bundle_json(manifest)
    return _zip(files)


def _zip(files: Mapping[str, bytes]) -> bytes:
    """Zip bytes that depend only on ``files``: entries in name order, fixed time and mode.
    A bundle that :func:`read_bundle` would refuse as too large is not written."""
    sizes = [len(data) for data in files.values()]
    if len(sizes) > MAX_ENTRIES or max(sizes) > MAX_ENTRY_BYTES or sum(sizes) > MAX_TOTAL_BYTES:
        raise BundleError(
            f"the run is too large to bundle ({len(sizes)} files, {sum(sizes)} bytes; at most "
            f"{MAX_ENTRIES} files, {MAX_ENTRY_BYTES // 2**20} MiB each, "
            f"{MAX_TOTAL_BYTES // 2**20} MiB in all)"
        )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name], compresslevel=9)
    return buffer.getvalue()


@dataclass(frozen=True)
class Bundle:
    """A bundle as read: its manifest (checked for shape) and every entry's bytes by name."""

    manifest: dict[str, Any]
    """The parsed ``manifest.json``."""
    entries: dict[str, bytes]
    """Every entry but the manifest, by name."""


def read_bundle(path: Path) -> Bundle:
    """Read the bundle at ``path`` into memory, within the bounds above.

    A file that is not a readable zip, holds an unsafe or repeated name or too much data, or
    lacks a well-formed manifest is a :class:`BundleError` (one line: what is wrong).
    """
    try:
        with zipfile.ZipFile(path) as archive:
            entries = _read_entries(archive, path)
    except FileNotFoundError:
        raise BundleError(f"cannot read {str(path)!r}: no such file") from None
    except IsADirectoryError:
        raise BundleError(f"cannot read {str(path)!r}: a directory, not a bundle") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as exc:
        raise BundleError(f"{str(path)!r} is not a readable zip: {exc}") from None
    except (NotImplementedError, RuntimeError) as exc:  # an unknown method, or encrypted
        raise BundleError(f"{str(path)!r} holds an entry that cannot be read: {exc}") from None
    except OSError as exc:
        raise BundleError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    raw = entries.pop(MANIFEST_FILE, None)
    if raw is None:
        raise BundleError(f"{str(path)!r} is not a quotebound bundle: it has no {MANIFEST_FILE}")
    return Bundle(_manifest(raw, path), entries)


def _read_entries(archive: zipfile.ZipFile, path: Path) -> dict[str, bytes]:
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BundleError(f"{str(path)!r} holds {len(infos)} entries, more than {MAX_ENTRIES}")
    entries: dict[str, bytes] = {}
    total = 0
    for info in infos:
        name = info.filename
        if not _safe_name(name.removesuffix("/") if info.is_dir() else name):
            raise BundleError(f"{str(path)!r} holds an entry with an unsafe name: {name!r}")
        if info.is_dir():
            continue
        if name in entries:
            raise BundleError(f"{str(path)!r} holds the entry {name!r} twice")
        total += info.file_size
        if info.file_size > MAX_ENTRY_BYTES or total > MAX_TOTAL_BYTES:
            raise BundleError(
                f"{str(path)!r}: entry {name!r} makes it larger than a bundle may hold "
                f"({MAX_ENTRY_BYTES // 2**20} MiB per entry, {MAX_TOTAL_BYTES // 2**20} MiB in all)"
            )
        entries[name] = archive.read(info)  # never more than file_size; its CRC is checked
    return entries


_PAGE_KEYS = ("file", "sha256", "source_id", "url", "content_type", "fetched_at")


def _manifest(raw: bytes, path: Path) -> dict[str, Any]:
    """The parsed manifest, checked for the shape :func:`build_bundle` writes."""
    where = f"{str(path)!r}: {MANIFEST_FILE}"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{where} is not JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"{where} is not a quotebound bundle manifest")
    if manifest.get("version") != BUNDLE_VERSION:
        raise BundleError(
            f"{where} has version {manifest.get('version')!r}; this quotebound reads "
            f"version {BUNDLE_VERSION}"
        )
    files, pages = manifest.get("files"), manifest.get("pages")
    if not (
        isinstance(manifest.get("sha256"), str)
        and isinstance(files, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
        and isinstance(pages, list)
        and all(_page_shape(p) for p in pages)
    ):
        raise BundleError(f"{where} is malformed (its sha256, files or pages)")
    return manifest


def _page_shape(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(k), str) for k in _PAGE_KEYS)
        and entry.get("content") in _CONTENT_SUFFIX
    )
