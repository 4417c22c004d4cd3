"""HTTP plumbing: a stdlib ``ThreadingHTTPServer`` that tracks its connections so it can
stop promptly, and a keep-alive request handler that hands every request to its owner."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any, Final, Protocol, cast


class Owner(Protocol):
    """What the HTTP layer needs from the fake server that owns it."""

    def _handle(self, handler: Handler) -> None: ...

    def _record_error(self, exc: BaseException) -> None: ...


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any] | None  # None when the body is absent or not a JSON object
    raw: bytes
    query: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"

    @classmethod
    def json(cls, status: int, payload: object, headers: Mapping[str, str] | None = None) -> Reply:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return cls(status, data, dict(headers or {}))


_REASONS: Final[dict[int, str]] = {529: "Site Overloaded"}


class HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self._lock = threading.Lock()
        self._open_connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        self._closing = False
        super().__init__(("127.0.0.1", 0), Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind does a reverse DNS lookup (getfqdn); skip it.
        TCPServer.server_bind(self)
        host, port = self.socket.getsockname()[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def handle_error(self, request: object, client_address: object) -> None:
        exc = sys.exc_info()[1]
        if exc is not None and not isinstance(exc, OSError):  # peers hanging up are normal
            self.owner._record_error(exc)

    def track(self, conn: socket.socket) -> None:
        with self._lock:
            self._open_connections.add(conn)
            self._handler_threads.add(threading.current_thread())
            closing = self._closing
        if closing:  # accepted just before stop(): don't let it linger
            _shutdown_socket(conn)

    def untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._open_connections.discard(conn)
            self._handler_threads.discard(threading.current_thread())

    def close_all_connections(self) -> list[threading.Thread]:
        """Shut down every open connection (waking handlers blocked on keep-alive reads)
        and return the handler threads to join."""
        with self._lock:
            self._closing = True
            connections = list(self._open_connections)
            threads = list(self._handler_threads)
        for conn in connections:
            _shutdown_socket(conn)
        return threads


def _shutdown_socket(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like the real APIs
    disable_nagle_algorithm = True
    server_version = "fairpanel-fake/1.0"
    sys_version = ""

    @property
    def fake_server(self) -> HTTPServer:
        return cast(HTTPServer, self.server)

    def setup(self) -> None:
        super().setup()
        self.fake_server.track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.fake_server.untrack(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request stderr logging."""

    def _dispatch(self) -> None:
        self.fake_server.owner._handle(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _dispatch  # noqa: N815

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send_reply(self, reply: Reply, *, declared_length: int | None = None) -> None:
        try:
            self.send_response(reply.status, _REASONS.get(reply.status))
            self.send_header("Content-Type", reply.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            length = len(reply.body) if declared_length is None else declared_length
            self.send_header("Content-Length", str(length))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)
            self.wfile.flush()
        except OSError:  # the client went away (e.g. it timed out first)
            self.close_connection = True

    def drop(self) -> None:
        """Close the connection without (finishing) a response."""
        self.close_connection = True
        _shutdown_socket(self.connection)
