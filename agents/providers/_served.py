"""What a reply says about the server that produced it: the model it ran and a fingerprint.

An alias such as ``gpt-4o-mini`` can be moved to a new snapshot, and a gateway can route one
name to different backends, between two calls of the same run. The response body names the
model that actually answered (``model``) and, on OpenAI-format servers, the backend
configuration (``system_fingerprint``; llama.cpp sends its build there). Servers whose body
carries no fingerprint sometimes send a version header instead; that is the fallback, with the
header's name kept in the value so a reader can tell it from a body fingerprint. Nothing is
made up: a server that reports neither leaves both None.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["VERSION_HEADERS", "served_of"]

VERSION_HEADERS = ("x-model-version", "openai-version", "anthropic-version")
"""Response headers read, in this order, when the body carries no fingerprint: a
model-specific version first, then the API versions OpenAI and Anthropic-format servers may
return."""


def _text(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def served_of(
    model: object, fingerprint: object, headers: Mapping[str, str] | None
) -> tuple[str | None, str | None]:
    """(served model, fingerprint) from a response body's ``model`` and fingerprint fields
    and its ``headers`` (looked up case-insensitively when they are ``httpx.Headers``)."""
    found = _text(fingerprint)
    if found is None and headers is not None:
        for name in VERSION_HEADERS:
            value = _text(headers.get(name))
            if value is not None:
                found = f"{name}: {value}"
                break
    return _text(model), found
