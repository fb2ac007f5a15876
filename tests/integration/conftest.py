"""Fixtures shared by integration tests: real HTTP servers on loopback addresses, test PDFs."""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterator

import pytest
from httpserver import LoopbackServer


def _minimal_pdf(text: str) -> bytes:
    """A minimal valid one-page PDF showing ``text`` in Helvetica."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


@pytest.fixture
def make_pdf() -> Callable[[str], bytes]:
    """A builder of minimal valid one-page PDFs showing a line of text (Helvetica)."""
    return _minimal_pdf


@pytest.fixture
def make_server() -> Iterator[Callable[..., LoopbackServer]]:
    """A factory of started loopback servers (``make_server("::1")``), all stopped afterwards."""
    servers: list[LoopbackServer] = []

    def make(host: str = "127.0.0.1", *, tls: ssl.SSLContext | None = None) -> LoopbackServer:
        server = LoopbackServer(host, tls=tls).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def http_server(make_server: Callable[..., LoopbackServer]) -> LoopbackServer:
    """One started server on 127.0.0.1."""
    return make_server()
