"""The lifecycle, request log, latency and transport-level faults shared by both servers.

The protocol-specific parts (routes, validation, JSON shapes) live in :mod:`._openai` and
:mod:`._anthropic`; this module owns reading and logging requests, latency, the transport
faults (timeout, reset, malformed, empty, truncated) and a clean, prompt shutdown.
"""

from __future__ import annotations

import json
import math
import threading
import time
from types import TracebackType
from typing import Any, ClassVar, Self, cast
from urllib.parse import urlsplit

from ._core import (
    Fault,
    LimitDecision,
    ReplyFn,
    SlidingWindowLimiter,
    default_reply_text,
)
from ._http import Handler, HTTPServer, Reply, Request


class FakeServerBase:
    """Lifecycle, logging, latency and transport faults shared by both fake servers."""

    MODEL_ID: ClassVar[str] = "fake-model"
    TIMEOUT_FAULT_SECONDS: ClassVar[float] = 30.0
    MALFORMED_BODY: ClassVar[bytes] = b'{"choices": ['
    _URL_SUFFIX: ClassVar[str] = ""

    requests: list[dict[str, Any]]
    """Every POST body received, in arrival order (``{"_invalid_json": text}`` if not a
    JSON object), recorded before any validation, latency or fault."""
    headers: list[dict[str, str]]
    """The request headers (names lower-cased) of the entries in ``requests``."""
    errors: list[BaseException]
    """Exceptions raised by the reply function or by the server itself (answered as 500)."""
    replies: list[tuple[int, dict[str, Any]]]
    """What became of each POST: the HTTP status sent (0 when the connection was dropped
    instead) with the logged body, in the order the replies went out. Which calls this
    server answered, and which it failed, as the server saw them."""

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        latency: float = 0.0,
        api_key: str | None = None,
        rate_limit_per_minute: int | None = None,
        limit_headers: bool = True,
        rate_limit_window_s: float = 60.0,
    ) -> None:
        """``rate_limit_per_minute`` enforces a sliding-window limit (over
        ``rate_limit_window_s``, a minute unless a test needs it shorter); its state is sent
        in the API's rate-limit headers on every reply unless ``limit_headers`` is false."""
        if latency < 0 or not math.isfinite(latency):
            raise ValueError(f"latency must be a finite number >= 0, got {latency}")
        self.reply = reply
        self.latency = latency
        self.api_key = api_key
        self.rate_limit_per_minute = rate_limit_per_minute
        self.limit_headers = limit_headers
        self._limiter = (
            SlidingWindowLimiter(rate_limit_per_minute, rate_limit_window_s)
            if rate_limit_per_minute is not None
            else None
        )
        self.requests = []
        self.headers = []
        self.errors = []
        self.replies = []
        self._log_lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not running; call start() first")
        return f"http://127.0.0.1:{self._httpd.server_port}{self._URL_SUFFIX}"

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError(f"{type(self).__name__} is already running")
        self._stopping.clear()
        self._httpd = HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}:{self._httpd.server_port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop serving: wake sleeping handlers, close every connection, join the threads."""
        httpd, thread = self._httpd, self._thread
        if httpd is None or thread is None:
            return
        deadline = time.monotonic() + timeout
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(max(deadline - time.monotonic(), 0.0))
        for handler in httpd.close_all_connections():
            if handler is not threading.current_thread():
                handler.join(max(deadline - time.monotonic(), 0.0))
        self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def reset_log(self) -> None:
        with self._log_lock:
            self.requests.clear()
            self.headers.clear()
            self.errors.clear()
            self.replies.clear()

    # ----------------------------------------------------------------- hooks

    def _process(self, req: Request) -> Reply | Fault:
        raise NotImplementedError

    def _fault_reply(self, fault: Fault, req: Request) -> Reply:
        """The HTTP reply for the status faults and ``wrong_shape``."""
        raise NotImplementedError

    def _success_reply(self, req: Request, text: str) -> Reply:
        raise NotImplementedError

    def _limit_headers(self, decision: LimitDecision) -> dict[str, str]:
        """The API's rate-limit headers for the limiter's state after this request."""
        raise NotImplementedError

    def _validated(self, req: Request) -> dict[str, Any] | Reply:
        """The request's body if the API would take it, else the API's 400 reply."""
        raise NotImplementedError

    # ----------------------------------------------------------------- helpers for subclasses

    def _call_reply(self, body: dict[str, Any]) -> str | Fault:
        if self.reply is None:
            return default_reply_text(body)
        outcome = self.reply(body)
        if not isinstance(outcome, str | Fault):
            raise TypeError(f"reply function must return str or Fault, got {outcome!r}")
        return outcome

    def _rate_limit(self) -> LimitDecision | None:
        return self._limiter.acquire() if self._limiter is not None else None

    def _with_limit_headers(self, reply: Reply, decision: LimitDecision | None) -> Reply:
        if decision is None or not self.limit_headers:
            return reply
        return Reply(reply.status, reply.body, {**reply.headers, **self._limit_headers(decision)})

    def _answer(self, req: Request) -> Reply | Fault:
        """A completion request past routing and authentication, as both APIs answer one:
        the rate limit first (its 429 is the API's ``rate_limit`` fault), then validation,
        then the reply function; a reply and a 429 carry the rate-limit headers."""
        decision = self._rate_limit()
        if decision is not None and not decision.allowed:
            limited = self._fault_reply(Fault("rate_limit", retry_after=decision.retry_after), req)
            return self._with_limit_headers(limited, decision)
        body = self._validated(req)
        if isinstance(body, Reply):
            return body
        outcome = self._call_reply(body)
        if isinstance(outcome, Fault):
            return outcome
        return self._with_limit_headers(self._success_reply(req, outcome), decision)

    def _record_error(self, exc: BaseException) -> None:
        with self._log_lock:
            self.errors.append(exc)

    # ----------------------------------------------------------------- request flow

    def _handle(self, handler: Handler) -> None:
        try:
            raw = handler.read_body()
        except ValueError:
            handler.send_reply(Reply(400, b"bad request framing", content_type="text/plain"))
            handler.close_connection = True
            return
        headers = {name.lower(): value for name, value in handler.headers.items()}
        body = _parse_object(raw)
        logged: dict[str, Any] | None = None
        if handler.command == "POST":
            # a separate parse, so a reply function that mutates its body can't alter the log
            logged = _parse_object(raw)
            if logged is None:
                logged = {"_invalid_json": raw.decode("utf-8", "replace")}
            with self._log_lock:
                self.requests.append(logged)
                self.headers.append(dict(headers))
        req = Request(handler.command, urlsplit(handler.path).path, headers, body, raw)
        if self.latency > 0 and self._stopping.wait(self.latency):
            handler.drop()
            self._record_reply(handler, 0, logged)
            return
        try:
            outcome = self._process(req)
        except Exception as exc:
            self._record_error(exc)
            outcome = Fault("server_error")
        self._record_reply(handler, self._deliver(handler, req, outcome), logged)

    def _record_reply(self, handler: Handler, status: int, logged: dict[str, Any] | None) -> None:
        if handler.command == "POST" and logged is not None:
            with self._log_lock:
                self.replies.append((status, logged))

    def _deliver(self, handler: Handler, req: Request, outcome: Reply | Fault) -> int:
        """Send ``outcome``; the status sent, 0 when the connection was dropped instead."""
        if isinstance(outcome, Reply):
            handler.send_reply(outcome)
            return outcome.status
        fault = outcome
        reply: Reply | None = None
        if fault.kind == "reset":
            handler.drop()
        elif fault.kind == "timeout":
            if self._stopping.wait(self.TIMEOUT_FAULT_SECONDS):
                handler.drop()
            else:
                reply = self._success_reply(req, default_reply_text(req.body or {}))
        elif fault.kind == "empty":
            reply = Reply(fault.status or 200, b"")
        elif fault.kind == "malformed":
            reply = Reply(fault.status or 200, self.MALFORMED_BODY)
        elif fault.kind == "truncated":
            full = self._success_reply(req, default_reply_text(req.body or {}))
            partial = Reply(fault.status or 200, full.body[: len(full.body) // 2], full.headers)
            handler.send_reply(partial, declared_length=len(full.body))
            handler.drop()
        else:
            reply = self._fault_reply(fault, req)
        if reply is None:
            return 0
        handler.send_reply(reply)
        return reply.status


def _parse_object(raw: bytes) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return cast(dict[str, Any], value) if isinstance(value, dict) else None
