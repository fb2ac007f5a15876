"""Turning a document's bytes into Store content by media type, for fetch and the corpus."""

from __future__ import annotations

import io
from dataclasses import dataclass

from quotebound.errors import FetchError, Reason
from quotebound.text.charset import decode_bytes

__all__ = ["SUPPORTED_TYPES", "DecodedDocument", "decode_document", "media_type"]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset(
    {"text/plain", "text/markdown", "text/x-markdown", "application/json", "text/csv"}
)
PDF_TYPE = "application/pdf"
SUPPORTED_TYPES = HTML_TYPES | TEXT_TYPES | {PDF_TYPE}


def media_type(content_type: str | None) -> str:
    """The bare media type of a Content-Type header, lower-cased ("" when absent)."""
    return (content_type or "").split(";", 1)[0].strip().lower()


@dataclass(frozen=True)
class DecodedDocument:
    """A document's content in the shape the Store keeps (docs/architecture.md §2)."""

    media_type: str
    encoding: str | None
    html: str | None = None
    text: str | None = None
    pages: list[str] | None = None


def decode_document(body: bytes, content_type: str | None) -> DecodedDocument:
    """Decode ``body`` by its content type; raises FetchError(unsupported_type) otherwise."""
    mt = media_type(content_type)
    if mt in HTML_TYPES:
        html, enc = decode_bytes(body, content_type=content_type)
        return DecodedDocument(mt, enc, html=html.replace("\x00", ""))
    if mt in TEXT_TYPES:
        text, enc = decode_bytes(body, content_type=content_type)
        return DecodedDocument(mt, enc, text=text.replace("\x00", ""))
    if mt == PDF_TYPE:
        return DecodedDocument(mt, None, pages=_pdf_pages(body))
    raise FetchError(Reason.UNSUPPORTED_TYPE, f"content type {mt or 'missing'!r} is not supported")


def _pdf_pages(body: bytes) -> list[str]:
    from pypdf import PdfReader  # imported on first PDF: pypdf is slow to import
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        return [(page.extract_text() or "").replace("\x00", "") for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise FetchError(Reason.UNSUPPORTED_TYPE, f"unreadable PDF: {type(exc).__name__}") from exc
