"""Undoing a response's Content-Encoding (gzip, deflate) as bytes arrive, under a cap.

The cap is on bytes after decoding, so a small compressed body that inflates to gigabytes (a
gzip bomb) stops at the cap with ``too_large`` instead of filling memory (docs/architecture.md §7).
"""

from __future__ import annotations

import zlib

from quotebound.errors import FetchError, Reason

__all__ = ["BodyDecoder"]


class _Inflater:
    """One gzip or deflate layer, decoded incrementally with a cap on its output."""

    def __init__(self, coding: str, *, limit: int, where: str) -> None:
        self._coding = coding
        self._limit = limit
        self._where = where
        gzip = coding in ("gzip", "x-gzip")
        self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS if gzip else zlib.MAX_WBITS)
        self._raw_fallback = not gzip  # servers send "deflate" both zlib-wrapped and raw
        self._produced = 0

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        while data and not self._obj.eof:
            try:
                chunk = self._obj.decompress(data, self._limit - self._produced + 1)
            except zlib.error as exc:
                if not self._raw_fallback:
                    raise FetchError(
                        Reason.UNSUPPORTED_TYPE, f"body is not valid {self._coding}: {self._where}"
                    ) from exc
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                self._raw_fallback = False
                continue
            self._raw_fallback = False
            self._produced += len(chunk)
            if self._produced > self._limit:
                raise FetchError(
                    Reason.TOO_LARGE,
                    f"body inflates past {self._limit} bytes ({self._coding}): {self._where}",
                )
            out += chunk
            data = self._obj.unconsumed_tail
        return bytes(out)

    def flush(self) -> bytes:
        return self._obj.flush()


class BodyDecoder:
    """Undoes Content-Encoding as bytes arrive, never holding more than the cap (gzip bombs)."""

    def __init__(self, content_encoding: str, *, limit: int, where: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",")]
        codings = [c for c in codings if c not in ("", "identity")]
        unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise FetchError(
                Reason.UNSUPPORTED_TYPE,
                f"content encoding {unknown[0]!r} is not supported: {where}",
            )
        self._layers = [_Inflater(c, limit=limit, where=where) for c in reversed(codings)]

    def feed(self, data: bytes) -> bytes:
        for layer in self._layers:
            data = layer.feed(data)
        return data

    def flush(self) -> bytes:
        data = b""
        for layer in self._layers:
            data = layer.feed(data) + layer.flush()
        return data
