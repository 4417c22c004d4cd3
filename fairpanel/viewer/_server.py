"""The viewer's HTTP server: loopback only, one random token, a few fixed routes.

It listens on 127.0.0.1 (a port the system picks) and answers only requests from a loopback
peer whose path starts with the token printed with its address; anything else gets 403 before
its path is read further. Routes are a fixed table (the page, its script and style, five JSON
endpoints): no file is looked up from a path, so there is nothing to list or traverse. Every
reply carries a Content-Security-Policy that allows the page's own script and style and its
requests to this server, nothing else, and ``X-Content-Type-Options: nosniff``; JSON replies
write ``<``, ``>`` and ``&`` as ``\\u`` escapes, so no reply reads as markup whatever a run's
texts hold.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import secrets
import sqlite3
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fairpanel.viewer._index import ensure_index, read_only
from fairpanel.viewer._queries import FILTERS, SELECTS, Reader
from fairpanel.viewer._search import SearchIndex

__all__ = ["CSP", "STORE_FILE", "NotViewableError", "ViewServer", "is_loopback_peer", "serve_run"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_STATIC = Path(__file__).with_name("static")
_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def is_loopback_peer(host: str) -> bool:
    """Whether a peer's address is this machine's (127.0.0.0/8, ::1, or v4 mapped in v6)."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


def _style() -> bytes:
    """The offline page's style (report/templates/transcripts.css), found without importing
    the report package (which brings the plotting libraries)."""
    spec = find_spec("fairpanel.report")
    assert spec is not None and spec.origin is not None
    return (Path(spec.origin).parent / "templates" / "transcripts.css").read_bytes()


def json_bytes(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in _ESCAPES.items():
        text = text.replace(raw, escaped)
    return text.encode("utf-8")


class ViewServer(ThreadingHTTPServer):
    """A run's viewer: ``url`` (token included) until ``shutdown``."""

    daemon_threads = True
    allow_reuse_address = False

    def __init__(
        self, run_dir: Path, store_path: Path, name: str, token: str | None = None
    ) -> None:
        self.token = token or secrets.token_urlsafe(24)
        index = ensure_index(run_dir, store_path)
        self.reader = Reader(index, store_path, SearchIndex(index, store_path))
        page = (_STATIC / "viewer.html").read_text(encoding="utf-8")
        page = page.replace("{{ csp }}", CSP.removesuffix("; frame-ancestors 'none'")).replace(
            "{{ name }}", _escape_html(name)
        )
        self.files = {
            "": (page.encode("utf-8"), "text/html; charset=utf-8"),
            "viewer.js": ((_STATIC / "viewer.js").read_bytes(), "text/javascript; charset=utf-8"),
            "viewer.css": (_style(), "text/css; charset=utf-8"),
        }
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/{self.token}/"

    def verify_request(self, request: Any, client_address: Any) -> bool:
        return is_loopback_peer(str(client_address[0]))

    def serve_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread

    def prepare_search(self) -> threading.Thread:
        """Build the search index now, in the background, rather than on the first search (a
        million turns take about 13 s): pages are answered meanwhile, since SQLite inserts
        without the interpreter lock; a search asked before it is done waits for the rest. A
        failure here is left to that search, which tries again and reports it."""

        def build() -> None:
            with contextlib.suppress(sqlite3.Error, OSError):
                self.reader.search.ensure()

        thread = threading.Thread(target=build, daemon=True, name="search-index")
        thread.start()
        return thread


def _escape_html(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        .replace("'", "&#x27;")
    )  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Frame-Options", "DENY")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _refuse(self, status: int = HTTPStatus.FORBIDDEN) -> None:
        self._send(status, json_bytes({"error": HTTPStatus(status).phrase}), "application/json")

    def do_POST(self) -> None:
        self._refuse(HTTPStatus.METHOD_NOT_ALLOWED)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        if not is_loopback_peer(str(self.client_address[0])):
            return self._refuse()
        parts = urlsplit(self.path)
        prefix = f"/{self.server.token}/"
        given = parts.path[: len(prefix)]
        if not secrets.compare_digest(given.encode(), prefix.encode()):
            return self._refuse()
        route = parts.path[len(prefix) :]
        if route in self.server.files:
            body, kind = self.server.files[route]
            return self._send(HTTPStatus.OK, body, kind)
        query = {k: v for k, v in parse_qsl(parts.query) if k in FILTERS or k == "key"}
        reader = self.server.reader
        try:
            if route == "api/page":
                reply: Any = reader.page(query)
            elif route == "api/counts":
                reply = reader.counts(query)
            elif route == "api/options":
                reply = {
                    "options": reader.options(),
                    "selects": list(SELECTS),
                    "total": reader.total(),
                }
            elif route == "api/trial":
                reply = reader.trial_by_key(query.get("key", ""))
                if reply is None:
                    return self._refuse(HTTPStatus.NOT_FOUND)
            elif route == "api/search":
                if not query.get("q", "").strip():
                    return self._refuse(HTTPStatus.BAD_REQUEST)
                reply = reader.keys({"q": query.get("q", ""), "page": query.get("page", "1")})
                del reply["n"]
            else:
                return self._refuse(HTTPStatus.NOT_FOUND)
        except ValueError:
            return self._refuse(HTTPStatus.BAD_REQUEST)
        return self._send(HTTPStatus.OK, json_bytes(reply), "application/json; charset=utf-8")


STORE_FILE = "fairpanel.sqlite"
SUMMARY_FILE = "summary.json"


class NotViewableError(ValueError):
    """The folder holds no store, or a store without judge-panel trials the viewer reads."""


def serve_run(run_dir: Path, token: str | None = None) -> ViewServer:
    """A viewer of the run in ``run_dir``, listening (``serve_forever`` answers requests)."""
    store = run_dir / STORE_FILE
    if not store.is_file():
        raise NotViewableError(f"{run_dir} is not a run folder (no {STORE_FILE})")
    db = read_only(store)
    try:
        columns = {str(row[1]) for row in db.execute("PRAGMA table_info(turns)")}
        trials = db.execute("SELECT count(*) FROM trials").fetchone()[0] if columns else 0
    finally:
        db.close()
    if columns and "numbers" not in columns:
        raise NotViewableError(
            f"{run_dir} holds a store older than the viewer reads: `fairpanel report "
            f"{run_dir}` brings it up to date"
        )
    if not trials:
        raise NotViewableError(
            f"{run_dir} holds no judge-panel trials (a study's run folder, or a run that has not "
            "finished a trial yet)"
        )
    name = run_dir.resolve().name
    summary = run_dir / SUMMARY_FILE
    if summary.is_file():
        found = json.loads(summary.read_text(encoding="utf-8"))
        if isinstance(found, dict) and found.get("name"):
            name = str(found["name"])
    return ViewServer(run_dir, store, name, token)
