"""The frame every HTML file quotebound writes shares: one self-contained document (UTF-8,
inline style, no external assets) whose Content Security Policy forbids scripts and every
fetch, and whose links send no referrer."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = ["html_document"]


def html_document(title: str, css: str, body: Sequence[str]) -> str:
    """A complete document: ``title`` (escaped here), ``css`` inline and ``body``, the
    already escaped markup of its ``<main>``, one line per item."""
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta http-equiv="Content-Security-Policy" '
            "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'none'\">",
            '<meta name="referrer" content="no-referrer">',
            f"<title>{escape(title)}</title>",
            f"<style>{css}</style>",
            "</head>",
            "<body><main>",
            *body,
            "</main></body>",
            "</html>",
            "",
        ]
    )
