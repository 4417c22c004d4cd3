"""What every HTML report shares: redaction of secrets, the formatting filters and the jinja2
environment over ``templates/`` (``_base.html.j2`` is the page, ``_components.html.j2`` the
shared sections; ``report.html.j2`` and ``study.html.j2`` fill them)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import jinja2

from fairpanel.report._numbers import format_p, percent, ties_note
from fairpanel.report._transcripts_link import transcripts_link

__all__ = ["environment", "integer", "percent", "redact"]

_SECRET_KEY = re.compile(
    r"(api[_-]?key|secret|token|password|passwd|authorization|credential)", re.IGNORECASE
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+", re.IGNORECASE)


def _redact_url(match: re.Match[str]) -> str:
    try:
        parts = urlsplit(match.group(0))
    except ValueError:
        return "[redacted url]"
    netloc = parts.netloc.rsplit("@", 1)[-1]
    if "@" in parts.netloc:
        netloc = "[redacted]@" + netloc
    query = urlencode(
        [
            (k, "[redacted]" if _SECRET_KEY.search(k) or k.lower() in {"key", "sig"} else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="[]",
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact(value: Any, key: str = "") -> Any:
    """A copy with secret-looking values masked: keys that name a secret (but not ``*_env``,
    which names an environment variable, not its value) and credentials inside URLs."""
    if isinstance(value, Mapping):
        return {str(k): redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item, key) for item in value]
    if isinstance(value, str):
        if key and _SECRET_KEY.search(key) and not key.endswith("_env") and value:
            return "[redacted]"
        return _URL.sub(_redact_url, value)
    return value


# --- formatting filters -------------------------------------------------------------------------


def _num(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, int | float):
        return f"{value:,.{digits}f}"
    return str(value)


def _signed(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{float(value):+.{digits}f}"


def integer(value: Any) -> str:
    return "–" if value is None else f"{int(value):,}"


def _auto(value: Any) -> str:
    """Whatever an unknown block holds: integers as integers, fractions with three digits."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return "–" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _cell(value: Any) -> str:
    """A value in a study's display table: small numbers keep three significant digits."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.3f}"
    return str(value)


@functools.cache
def environment() -> jinja2.Environment:
    """The templates' environment, built once per process (it caches compiled templates)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("fairpanel.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        p=format_p,
        num=_num,
        pct=percent,
        signed=_signed,
        int=integer,
        auto=_auto,
        cell=_cell,
        ties_note=ties_note,
    )
    env.globals["transcripts_link"] = transcripts_link
    return env
