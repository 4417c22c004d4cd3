"""Local fake LLM API servers for tests and benchmarks (127.0.0.1 only, stdlib only).

``FakeOpenAIServer`` speaks the OpenAI Chat Completions wire format and
``FakeAnthropicServer`` the Anthropic Messages one, including their error bodies, so the
real ``openai`` / ``anthropic`` SDKs can be pointed at them.  A ``ReplyFn`` maps the request
body to the assistant text or to a ``Fault`` (rate limit, 5xx, timeout, reset, malformed...).

    with FakeOpenAIServer(lambda body: "Score: 7", api_key="sk-test") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        client.chat.completions.create(model="gpt-4o-mini", messages=[...])
        assert server.requests[0]["model"] == "gpt-4o-mini"

    def flaky(body: dict[str, Any]) -> str | Fault:
        return Fault("rate_limit", retry_after=0.1) if len(server.requests) < 3 else "ok"

``server.reply`` may be reassigned while the server runs (e.g. with a module-scoped server).
"""

from ._anthropic_batch import FakeAnthropicBatchServer
from ._batch_core import BatchPlan
from ._openai_batch import FakeOpenAIBatchServer
from ._servers import (
    FakeAnthropicServer,
    FakeOpenAIServer,
    Fault,
    FaultKind,
    ReplyFn,
    default_reply_text,
)

__all__ = [
    "BatchPlan",
    "FakeAnthropicBatchServer",
    "FakeAnthropicServer",
    "FakeOpenAIBatchServer",
    "FakeOpenAIServer",
    "Fault",
    "FaultKind",
    "ReplyFn",
    "default_reply_text",
]
