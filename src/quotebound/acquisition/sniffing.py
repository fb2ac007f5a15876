"""Refusing bodies whose bytes contradict their declared type (an image sent as text/html).

The first bytes are sniffed for the magic numbers of common binary formats and for NUL bytes,
which no text has; a PDF must say ``%PDF-`` near its start.
"""

from __future__ import annotations

from quotebound.acquisition.netguard import safe_url
from quotebound.errors import FetchError, Reason
from quotebound.text.documents import PDF_TYPE

__all__ = ["refuse_binary"]

_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_BINARY_MAGIC = (
    b"\x89PNG",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"%PDF-",
    b"\x7fELF",
    b"wOFF",
    b"wOF2",
    b"OggS",
    b"ID3",
    b"\x00\x00\x01\x00",
)
_SNIFF_BYTES = 8192


def refuse_binary(body: bytes, mt: str, url: str) -> None:
    """Refuse bodies whose bytes contradict their declared type (e.g. an image as text/html)."""
    head = body[:_SNIFF_BYTES]
    if mt == PDF_TYPE:
        if b"%PDF-" not in head[:1024]:
            raise FetchError(Reason.UNSUPPORTED_TYPE, f"body is not a PDF: {safe_url(url)}")
        return
    if head.startswith(_TEXT_BOMS):
        return
    if b"\x00" in head or head.startswith(_BINARY_MAGIC):
        raise FetchError(
            Reason.UNSUPPORTED_TYPE, f"binary content declared as {mt!r}: {safe_url(url)}"
        )
