"""Reply functions for the fake API servers: answer as fairpanel's mock would, from the request
body the real SDK sent, so a run against a fake server behaves like a mock run."""

from __future__ import annotations

from typing import Any

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply

__all__ = ["SECRET", "anthropic_judge_like", "openai_judge_like"]

# The API key the fake servers expect; tests assert it is never written anywhere.
SECRET = "sk-test-DO-NOT-LEAK-1234567890"


def openai_judge_like(body: dict[str, Any]) -> str:
    """For ``FakeOpenAIServer``: the answer schema is ``response_format``'s json_schema."""
    response_format = body.get("response_format") or {}
    schema = (
        response_format.get("json_schema") if response_format.get("type") == "json_schema" else None
    )
    request = ModelRequest(
        model=body["model"],
        messages=tuple(Message(role=m["role"], content=m["content"]) for m in body["messages"]),
        response_schema=schema,
    )
    return mock_reply(request, MockBias())


def anthropic_judge_like(body: dict[str, Any]) -> str:
    """For ``FakeAnthropicServer``: system blocks lead, the answer schema is the forced tool."""
    messages = [Message(role="system", content=block["text"]) for block in body.get("system", [])]
    messages += [Message(role=m["role"], content=m["content"]) for m in body["messages"]]
    tools = body.get("tools") or []
    schema = {"name": tools[0]["name"], "schema": tools[0]["input_schema"]} if tools else None
    request = ModelRequest(model=body["model"], messages=tuple(messages), response_schema=schema)
    return mock_reply(request, MockBias())
