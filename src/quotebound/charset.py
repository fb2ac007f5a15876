"""Decoding page bytes to text without mojibake (issue 2 §2).

Order: byte-order mark, then the HTTP content-type charset, then ``<meta charset>`` /
``http-equiv`` in the first bytes, then detection (many real pages declare nothing), then
UTF-8 with replacement characters. Never raises.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

__all__ = ["charset_from_content_type", "decode_bytes"]

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CT_CHARSET = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_SNIFF_BYTES = 4096
_CP1252_LABELS = frozenset({"ascii", "latin-1", "iso8859-1", "cp1252"})
_DETECT_BYTES = 256 * 1024


def charset_from_content_type(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header, if it names a known codec."""
    if not content_type:
        return None
    m = _CT_CHARSET.search(content_type)
    return _known(m.group(1)) if m else None


def _known(name: str) -> str | None:
    try:
        return codecs.lookup(name.strip().lower()).name
    except LookupError:
        return None


def decode_bytes(body: bytes, *, content_type: str | None = None) -> tuple[str, str]:
    """Decode ``body``; returns ``(text, encoding used)``. Never raises."""
    for bom, enc in _BOMS:
        if body.startswith(bom):
            return body.decode(enc, errors="replace"), enc.replace("-sig", "")
    declared = charset_from_content_type(content_type)
    if declared is None:
        m = _META_CHARSET.search(body[:_SNIFF_BYTES])
        declared = _known(m.group(1).decode("ascii", "replace")) if m else None
        # A <meta> that could be read as ASCII cannot be right about UTF-16/32 (WHATWG).
        if declared is not None and declared.startswith(("utf-16", "utf-32")):
            declared = "utf-8"
    utf8 = _is_utf8(body)
    if declared == "utf-8" and not utf8:
        declared = None  # mislabelled: what it says cannot be true, so detect instead
    if declared is not None:
        # A page that says it is Latin-1 or ASCII but is valid UTF-8 is UTF-8 in practice.
        if declared in _CP1252_LABELS and utf8:
            return body.decode("utf-8"), "utf-8"
        if declared in _CP1252_LABELS:
            declared = "cp1252"  # browsers read Latin-1 and ASCII labels as windows-1252
        return body.decode(declared, errors="replace"), declared
    if utf8:
        return body.decode("utf-8"), "utf-8"
    return _detect(body)


def _detect(body: bytes) -> tuple[str, str]:
    """Detection for undeclared legacy bytes. Among Latin-script single-byte code pages the
    detector cannot tell apart reliably, windows-1252 (by far the most common) wins."""
    best = from_bytes(body[:_DETECT_BYTES]).best()
    enc = _known(best.encoding) if best is not None else None
    if (enc is None or enc in _LATIN_SINGLE_BYTE) and _decodes(body, "cp1252"):
        enc = "cp1252"
    if enc is not None:
        return body.decode(enc, errors="replace"), enc
    return body.decode("utf-8", errors="replace"), "utf-8"


_LATIN_SINGLE_BYTE = frozenset(
    {"cp1250", "cp1252", "cp1254", "cp1257", "cp1258", "latin-1", "mac-roman", "mac-latin2"}
    | {f"iso8859-{n}" for n in (1, 2, 3, 4, 9, 10, 13, 14, 15, 16)}
)


def _decodes(body: bytes, encoding: str) -> bool:
    try:
        body.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _is_utf8(body: bytes) -> bool:
    return _decodes(body, "utf-8")
