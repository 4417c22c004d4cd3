"""Keeping API keys out of everything fairpanel writes or prints.

Keys are read from the environment only and never put into requests, specs or records, but
they can still come back: a provider or proxy that echoes the key in an error body, an SDK
exception whose text quotes a header, a traceback of an unexpected error. Every key the
registry reads is registered here, and text on its way out is redacted:

- ``ModelCallError`` redacts its own message, so trial errors in the store, the summary's
  stop reason and the CLI's messages never carry a key, whichever provider raised it;
- once a key is registered, uncaught exceptions (``sys.excepthook``, ``threading.excepthook``)
  and log records (messages and formatted tracebacks) are redacted before they are shown.

Besides the registered values, anything that looks like a bearer token or an ``api_key=``
assignment is redacted in error text, for keys fairpanel never read (a plugin's own).
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import traceback
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "REDACTED",
    "credential_free_url",
    "redact",
    "register_secret",
    "url_without_credentials",
]

REDACTED = "[redacted]"
_MIN_SECRET_LENGTH = 8
"""Shorter values (``unused``, test placeholders) are not secrets worth replacing everywhere."""

_secrets: set[str] = set()
_lock = threading.Lock()
_hooks_installed = False

_PATTERNS = (
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(
        r"(?i)(\b(?:x-api-key|api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?)"
        r"(?!bearer\s)[A-Za-z0-9._~+/=-]{8,}"
    ),
)


def register_secret(value: str) -> None:
    """Redact ``value`` from now on wherever fairpanel redacts (see the module docstring)."""
    if len(value) < _MIN_SECRET_LENGTH:
        return
    with _lock:
        _secrets.add(value)
    _install_hooks()


def redact(text: str) -> str:
    """``text`` with every registered secret and every token-like credential replaced."""
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda match: match.group(1) + REDACTED, text)
    return text


def _install_hooks() -> None:
    global _hooks_installed
    with _lock:
        if _hooks_installed:
            return
        _hooks_installed = True
    _wrap_excepthooks()
    _wrap_log_records()


def _wrap_excepthooks() -> None:
    def excepthook(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(redact(text))

    def thread_excepthook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None:
            return
        name = args.thread.name if args.thread is not None else "unknown"
        text = "".join(
            traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)
        )
        sys.stderr.write(redact(f"Exception in thread {name}:\n{text}"))

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook


def _wrap_log_records() -> None:
    """Log records are redacted when created, before any handler formats them."""
    make_record = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logging module's to report
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[0] is not None:
            formatted = "".join(traceback.format_exception(*record.exc_info))
            record.exc_text = redact(formatted).rstrip("\n")
            record.exc_info = None
        return record

    logging.setLogRecordFactory(factory)


def url_without_credentials(value: str | None) -> str | None:
    """The URL is part of cache keys, the manifest and the resolved config: a key in it
    would be written everywhere."""
    if value is not None and _credentials_in_url(value):
        raise ValueError(
            "base_url must not carry credentials (user:password@ or a key in the query); "
            "put the key in an environment variable and name it in api_key_env"
        )
    return value


_SECRET_QUERY_NAME = re.compile(r"(?i)(key|token|secret|password|signature)$|^sig$")


def _credentials_in_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return False  # not a URL at all; the client reports it
    return "@" in parts.netloc or any(_SECRET_QUERY_NAME.search(name) for name, _ in query)


def credential_free_url(url: str) -> str:
    """``url`` as a name safe to write (which replica answered, in the store and summary):
    configured URLs are refused with credentials in them, but a plugin's endpoint is not
    checked, and the name is written with every call. User info is dropped, secret-looking
    query values are replaced and registered keys redacted; a clean URL is kept as it is."""
    if not _credentials_in_url(url):
        return redact(url)
    parts = urlsplit(url)
    query = [
        (name, REDACTED if _SECRET_QUERY_NAME.search(name) else value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    ]
    netloc = parts.netloc.rpartition("@")[2]
    return redact(urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe="[]"), "")))
