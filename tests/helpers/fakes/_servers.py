"""The public fake servers: OpenAI Chat Completions and Anthropic Messages over real HTTP.

Each server is a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 (ephemeral port) running in a
daemon thread.  The shared transport lives in :mod:`._base`; the wire formats in
:mod:`._openai` and :mod:`._anthropic`.
"""

from __future__ import annotations

from ._anthropic import FakeAnthropicServer
from ._core import Fault, FaultKind, ReplyFn, default_reply_text
from ._openai import FakeOpenAIServer

__all__ = [
    "FakeAnthropicServer",
    "FakeOpenAIServer",
    "Fault",
    "FaultKind",
    "ReplyFn",
    "default_reply_text",
]
