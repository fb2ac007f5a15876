"""A forwarding HTTP proxy on loopback, for tests: absolute-form requests are relayed to their
origin and ``CONNECT`` opens a tunnel; it counts what it forwards and can require
``Proxy-Authorization``."""

from __future__ import annotations

import base64
import contextlib
import socket
import socketserver
import threading
from typing import Self
from urllib.parse import urlsplit

__all__ = ["ForwardProxy"]


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.connection.recv(65536)
            if not chunk:
                return
            head += chunk
        header, _, rest = head.partition(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        proxy = self.server.owner
        if proxy.credentials is not None:
            expected = "Basic " + base64.b64encode(proxy.credentials.encode()).decode()
            if fields.get("Proxy-Authorization") != expected:
                self.connection.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                return
        with proxy.lock:
            proxy.seen.append(f"{method} {target}")
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)))
            self.connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            _relay(self.connection, upstream, rest)
            return
        parts = urlsplit(target)
        upstream = socket.create_connection((parts.hostname or "", parts.port or 80))
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        kept = [
            line for line in lines[1:] if not line.lower().startswith(("proxy-", "connection:"))
        ]
        request = "\r\n".join([f"{method} {path or '/'} HTTP/1.1", *kept, "Connection: close"])
        upstream.sendall(request.encode("latin-1") + b"\r\n\r\n" + rest)
        _relay(self.connection, upstream, b"")


def _relay(client: socket.socket, upstream: socket.socket, first: bytes) -> None:
    if first:
        upstream.sendall(first)

    def pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join(timeout=10)
    upstream.close()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: ForwardProxy) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class ForwardProxy:
    """A proxy on 127.0.0.1; ``credentials`` (``user:password``) makes it require them."""

    def __init__(self, credentials: str | None = None) -> None:
        self.credentials = credentials
        self.seen: list[str] = []
        self.lock = threading.Lock()
        self._server = _Server(self)
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo + '@' if userinfo else ''}127.0.0.1:{self.port}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
