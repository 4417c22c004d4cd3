"""Anthropic Message Batches on the fake Anthropic server: ``/v1/messages/batches``.

A batch is created with its requests inline (``custom_id``, ``params``); while it runs its
``processing_status`` is ``in_progress`` (``canceling`` after a cancel), then ``ended`` with a
``results_url``. Results are JSONL lines whose ``result`` is ``succeeded`` (the message the
Messages endpoint would have returned for ``params``), ``errored`` (a per-item error),
``expired`` or ``canceled``. A plan ending in ``failed`` is refused at creation (400), which is
how the Message Batches API rejects a malformed batch. The list (``GET``) pages most recent
first with ``limit``, ``after_id`` and ``before_id``, as ``{data, has_more, first_id, last_id}``.
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from typing import Any

from ._anthropic import FakeAnthropicServer, _error
from ._batch_core import BatchBook, FakeBatch
from ._core import Fault, random_id
from ._http import Reply, Request

_BATCH = re.compile(r"^/v1/messages/batches/([^/]+)(/cancel|/results)?$")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class FakeAnthropicBatchServer(FakeAnthropicServer):
    """``FakeAnthropicServer`` plus Message Batches; ``book`` plans and records them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.book = BatchBook()

    def _process(self, req: Request) -> Reply | Fault:
        path = req.path.rstrip("/")
        if not path.startswith("/v1/messages/batches"):
            return super()._process(req)
        if not req.headers.get("x-api-key") and not req.headers.get("authorization"):
            return _error(401, "authentication_error", "x-api-key header is required")
        if (req.method, path) == ("POST", "/v1/messages/batches"):
            return self._create(req.body or {})
        if (req.method, path) == ("GET", "/v1/messages/batches"):
            return self._list(req)
        found = _BATCH.match(path)
        batch = self.book.batches.get(found.group(1)) if found else None
        if found is None or batch is None:
            return _error(404, "not_found_error", "batch not found")
        if found.group(2) == "/cancel" and req.method == "POST":
            batch.cancel_requested = True
            return Reply.json(200, self._object(batch, canceling=True))
        if found.group(2) == "/results" and req.method == "GET":
            if not batch.ended:
                return _error(400, "invalid_request_error", "batch has not ended")
            return Reply(200, self._results(batch), content_type="application/binary")
        if found.group(2) is None and req.method == "GET":
            read = self.book.read(batch.id)
            assert read is not None
            return Reply.json(200, self._object(read))
        return _error(404, "not_found_error", "Not Found")

    def _list(self, req: Request) -> Reply:
        """``limit`` (1 to 1000, 20 by default), ``after_id`` / ``before_id`` cursors; most
        recently created first."""
        limit = int(req.query.get("limit", "20"))
        if not 1 <= limit <= 1000:
            return _error(400, "invalid_request_error", "limit: must be from 1 to 1000")
        batches, more = self.book.page(
            limit, after=req.query.get("after_id"), before=req.query.get("before_id")
        )
        data = [self._object(b) for b in batches]
        first, last = (data[0]["id"], data[-1]["id"]) if data else (None, None)
        return Reply.json(200, {"data": data, "has_more": more, "first_id": first, "last_id": last})

    def _create(self, body: dict[str, Any]) -> Reply | Fault:
        requests: dict[str, dict[str, Any]] = {}
        for index, item in enumerate(body.get("requests") or []):
            custom_id = item.get("custom_id") if isinstance(item, dict) else None
            if not isinstance(custom_id, str) or not re.match(r"^[a-zA-Z0-9_-]{1,64}$", custom_id):
                return _error(400, "invalid_request_error", f"requests.{index}.custom_id: invalid")
            if custom_id in requests:
                return _error(400, "invalid_request_error", f"requests.{index}: duplicate")
            requests[custom_id] = item.get("params") or {}
        if not requests:
            return _error(400, "invalid_request_error", "requests: at least one is required")
        plan = self.book.next_plan()
        if plan.end == "failed":
            return _error(400, "invalid_request_error", "requests: the batch was refused")
        batch = FakeBatch(random_id("msgbatch_01", 22), requests, plan, time.time())
        self.book.add(batch)
        if self.book.drop_this_reply():
            return Fault("reset")
        return Reply.json(200, self._object(batch))

    def _object(self, batch: FakeBatch, *, canceling: bool = False) -> dict[str, Any]:
        ended = batch.ended and not canceling
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if ended:
            for line in self._results(batch).splitlines():
                kind = json.loads(line)["result"]["type"]
                counts[kind] += 1
        else:
            counts["processing"] = len(batch.requests)
        base = f"http://127.0.0.1:{self._httpd.server_port}" if self._httpd else ""
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended"
            if ended
            else ("canceling" if canceling else "in_progress"),
            "request_counts": counts,
            "ended_at": _iso(time.time()) if ended else None,
            "created_at": _iso(batch.created_at),
            "expires_at": _iso(batch.created_at + 86400),
            "archived_at": None,
            "cancel_initiated_at": _iso(time.time()) if batch.cancel_requested else None,
            "results_url": f"{base}/v1/messages/batches/{batch.id}/results" if ended else None,
        }

    def _results(self, batch: FakeBatch) -> bytes:
        lines = []
        for custom_id, params in batch.requests.items():
            message = batch.plan.item_error(custom_id)
            result: dict[str, Any]
            if not batch.ran(custom_id):
                result = {"type": "expired" if batch.end == "expired" else "canceled"}
            elif message is not None:
                error = {"type": "api_error", "message": message}
                result = {"type": "errored", "error": {"type": "error", "error": error}}
            else:
                reply = self._success_reply(
                    Request("POST", "/v1/messages", {}, params, b""),
                    str(self._call_reply(params)),
                )
                result = {"type": "succeeded", "message": json.loads(reply.body)}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}) + "\n")
        return "".join(lines).encode()
