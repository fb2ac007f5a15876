"""A small threaded HTTP server on a loopback address, for tests and benchmarks.

Routes are plain functions of the request handler; the server counts accepted TCP
connections, so a test can prove that an address was never contacted. :func:`validated` serves
a page with an ETag and Last-Modified and answers conditional requests for it with 304.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

__all__ = ["Handler", "LoopbackServer", "respond", "validated"]

Handler = Callable[[BaseHTTPRequestHandler], None]


def respond(
    h: BaseHTTPRequestHandler,
    status: int = 200,
    body: bytes = b"",
    headers: Mapping[str, str] | None = None,
) -> None:
    """Send a complete response with a Content-Length (unless ``headers`` set one)."""
    h.send_response(status)
    all_headers = {"Content-Length": str(len(body)), **(headers or {})}
    for name, value in all_headers.items():
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(body)


def validated(
    body: bytes,
    *,
    etag: str | None = None,
    last_modified: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Handler:
    """A route serving ``body`` as HTML with these validators (and ``headers``, such as a
    Cache-Control); it answers 304 Not Modified to an If-None-Match naming ``etag`` or, without
    an If-None-Match, to an If-Modified-Since equal to ``last_modified``."""
    sent = {"Content-Type": "text/html; charset=utf-8", **(headers or {})}
    sent |= {"ETag": etag} if etag else {}
    sent |= {"Last-Modified": last_modified} if last_modified else {}

    def handler(h: BaseHTTPRequestHandler) -> None:
        match, since = h.headers.get("If-None-Match"), h.headers.get("If-Modified-Since")
        if (etag and match == etag) or (match is None and last_modified and since == last_modified):
            respond(h, 304, b"", {k: v for k, v in sent.items() if k != "Content-Type"})
        else:
            respond(h, 200, body, sent)

    return handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, owner: LoopbackServer, host: str, tls: ssl.SSLContext | None) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.owner = owner
        super().__init__((host, 0), _RequestHandler)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)

    def handle_error(self, request: object, client_address: object) -> None:
        """Failed handshakes and dropped clients are expected in tests: stay quiet."""

    def process_request(self, request: object, client_address: object) -> None:
        with self.owner.lock:
            self.owner.connections += 1
        super().process_request(request, client_address)  # type: ignore[arg-type]


class _RequestHandler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        owner = self.server.owner
        path = urlsplit(self.path).path
        with owner.lock:
            owner.hits[path] += 1
            owner.headers_seen.append(dict(self.headers.items()))
        handler = owner.routes.get(path)
        if handler is None:
            respond(self, 404, b"not found", {"Content-Type": "text/plain"})
        else:
            handler(self)

    def log_message(self, format: str, *args: object) -> None:
        """Silence per-request logging."""


class LoopbackServer:
    """An HTTP server on ``host`` (127.0.0.1 or ::1) and an ephemeral port; HTTPS with ``tls``."""

    def __init__(self, host: str = "127.0.0.1", *, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Handler] = {}
        self.hits: Counter[str] = Counter()
        self.headers_seen: list[dict[str, str]] = []
        self.connections = 0
        self.lock = threading.Lock()
        self.scheme = "http" if tls is None else "https"
        self._server = _Server(self, host, tls)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.host = host
        self.port: int = self._server.server_address[1]

    @property
    def origin(self) -> str:
        netloc = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{netloc}:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
